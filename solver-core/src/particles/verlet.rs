//! Velocity Verlet for the spheres: half kick, drift, new contact geometry, half kick.
//!
//! A kick takes gravity, then every contact in parallel: each finds its normal force from
//! the approach rate its two bodies have after gravity's share (`laws::half_kick`, the
//! viscous and dry terms at the end of the kick), and the drop of that rate it causes.
//! The drops are then applied serially, in a fixed order, with opposite signs to the two
//! spheres in proportion to their inverse masses: momentum is conserved to round-off, and
//! the result is the same bits on any number of threads. For elastic laws this is plain
//! velocity Verlet (the force f(x) at the kick's positions).
//!
//! Only the live contacts (overlapping or with a collision open, listed by the placement)
//! are kicked and applied, in the same order; the kick of any other only cleared its drop.

use super::collisions::CollisionLog;
use super::contact::{Contact, Live, Other, CHUNK};
use super::search::NeighbourList;
use super::setup::Setup;
use super::{pairs, walls};
use crate::error::SolveError;
use rayon::prelude::*;

/// The moving state and the contacts of a solve.
pub struct Integrator<'a> {
    setup: &'a Setup,
    pub x: Vec<[f64; 3]>,
    /// The positions of the increment before: a rebuild places the wall contacts new to
    /// the list there. The drift writes the new positions into this buffer and swaps.
    previous: Vec<[f64; 3]>,
    pub v: Vec<[f64; 3]>,
    pub pairs: NeighbourList,
    pub walls: Vec<Contact>,
    /// The live contacts of each list, from the last placement.
    wall_live: Live,
    pair_live: Live,
    pub log: CollisionLog,
}

impl<'a> Integrator<'a> {
    /// The state at t = 0, with the contacts placed (initial overlaps open collisions).
    pub fn new(setup: &'a Setup, listed: usize) -> Self {
        let x = setup.position.clone();
        let v = setup.velocity.clone();
        let mut pairs = NeighbourList::new(setup, &x);
        let mut walls = walls::contacts(setup, &x, pairs.skin());
        let mut pair_live = Live::default();
        let mut wall_live = Live::default();
        pairs::place(
            &mut pairs.contacts,
            &mut pairs.geometry,
            &mut pair_live,
            setup,
            &x,
            &x,
            0.0,
            0.0,
        );
        walls::place(&mut walls, &mut wall_live, setup, &x, 0.0, 0.0);
        Integrator {
            setup,
            previous: x.clone(),
            x,
            v,
            pairs,
            walls,
            wall_live,
            pair_live,
            log: CollisionLog::new(setup.interactions.len(), listed),
        }
    }

    /// Every contact, walls first.
    pub fn contacts(&self) -> impl Iterator<Item = &Contact> {
        self.walls.iter().chain(self.pairs.contacts.iter())
    }

    /// Advance from `t_end - dt` to `t_end`.
    pub fn increment(&mut self, t_end: f64, dt: f64) -> Result<(), SolveError> {
        let half = 0.5 * dt;
        self.gravity(half);
        self.kick_by_contacts(half);
        std::mem::swap(&mut self.x, &mut self.previous);
        // One pass over the spheres: the drift, gravity's share of the second half kick
        // (nothing between reads the velocities: the placement reads only positions) and
        // the staleness test of the neighbour list; the same operations on the same values
        // as three passes, in one fork and join.
        let g = self.setup.gravity;
        let pull = g != [0.0; 3];
        let pairs = &self.pairs;
        let stale = self
            .x
            .par_chunks_mut(CHUNK)
            .zip(self.previous.par_chunks(CHUNK))
            .zip(self.v.par_chunks_mut(CHUNK))
            .zip(pairs.anchor().par_chunks(CHUNK))
            .map(|(((x, p), v), a)| {
                // Plain loops without early exits, so they vectorise.
                for ((x, p), v) in x.iter_mut().zip(p).zip(v.iter()) {
                    x[0] = p[0] + dt * v[0];
                    x[1] = p[1] + dt * v[1];
                    x[2] = p[2] + dt * v[2];
                }
                if pull {
                    for v in v.iter_mut() {
                        v[0] += half * g[0];
                        v[1] += half * g[1];
                        v[2] += half * g[2];
                    }
                }
                x.iter()
                    .zip(a)
                    .fold(false, |out, (x, a)| out | pairs.moved_out(x, a))
            })
            .reduce(|| false, |a, b| a | b);
        if stale {
            if let Some(i) = self
                .x
                .par_iter()
                .position_first(|p| !(p[0].is_finite() && p[1].is_finite() && p[2].is_finite()))
            {
                return Err(SolveError::Failed {
                    element: None,
                    time: t_end,
                    reason: format!(
                        "sphere {i} left the finite numbers: the increment {dt:e} is too long for the stiffest contact (ask for more steps_per_contact or a smaller dt)"
                    ),
                });
            }
            self.pairs.rebuild(self.setup, &self.x);
            self.walls = walls::rebuild(
                std::mem::take(&mut self.walls),
                self.setup,
                &self.x,
                &self.previous,
                self.pairs.skin(),
            );
        }
        pairs::place(
            &mut self.pairs.contacts,
            &mut self.pairs.geometry,
            &mut self.pair_live,
            self.setup,
            &self.x,
            &self.previous,
            t_end,
            dt,
        );
        walls::place(
            &mut self.walls,
            &mut self.wall_live,
            self.setup,
            &self.x,
            t_end,
            dt,
        );
        self.kick_by_contacts(half);
        Ok(())
    }

    /// Gravity's share of a half kick.
    fn gravity(&mut self, half: f64) {
        let g = self.setup.gravity;
        if g != [0.0; 3] {
            self.v
                .par_iter_mut()
                .with_min_len(super::MIN_PER_TASK)
                .for_each(|v| {
                    v[0] += half * g[0];
                    v[1] += half * g[1];
                    v[2] += half * g[2];
                });
        }
    }

    /// The contacts' share of a half kick, after gravity's.
    fn kick_by_contacts(&mut self, half: f64) {
        kick_contacts(&mut self.walls, &self.wall_live, self.setup, &self.v, half);
        kick_contacts(
            &mut self.pairs.contacts,
            &self.pair_live,
            self.setup,
            &self.v,
            half,
        );
        // Walls first, then pairs, each in list order: the order the drops have always
        // been summed in (the contacts passed over add nothing).
        for (contacts, live) in [
            (&mut self.walls, &self.wall_live),
            (&mut self.pairs.contacts, &self.pair_live),
        ] {
            for (chunk, list) in contacts.chunks_mut(CHUNK).zip(&live.chunks) {
                for &k in list {
                    let c = &mut chunk[k as usize];
                    if c.drop != 0.0 {
                        apply(c, self.setup, &mut self.v);
                    }
                    if c.open.is_some() {
                        self.log.settle(c, self.setup);
                    }
                }
            }
        }
    }
}

/// Each live contact's force and rate drop for this kick, from the velocities before it.
fn kick_contacts(contacts: &mut [Contact], live: &Live, setup: &Setup, v: &[[f64; 3]], half: f64) {
    contacts
        .par_chunks_mut(CHUNK)
        .zip(live.chunks.par_iter())
        .for_each(|(chunk, list)| {
            for &k in list {
                kick_one(&mut chunk[k as usize], setup, v, half);
            }
        });
}

fn kick_one(c: &mut Contact, setup: &Setup, v: &[[f64; 3]], half: f64) {
    if c.overlap <= 0.0 && c.open.is_none() {
        c.drop = 0.0;
        return;
    }
    let i = c.particle as usize;
    let n = c.normal;
    let (dv, inv) = match c.other {
        Other::Sphere(j) => {
            let j = j as usize;
            (
                [v[i][0] - v[j][0], v[i][1] - v[j][1], v[i][2] - v[j][2]],
                setup.inverse_mass[i] + setup.inverse_mass[j],
            )
        }
        Other::Wall(_) => (v[i], setup.inverse_mass[i]),
    };
    let rate0 = -(dv[0] * n[0] + dv[1] * n[1] + dv[2] * n[2]);
    let law = &setup.interactions[c.interaction as usize].law;
    c.kick(law, rate0, half * inv, half);
}

/// Spread a contact's rate drop over its spheres by their inverse masses.
fn apply(c: &Contact, setup: &Setup, v: &mut [[f64; 3]]) {
    let i = c.particle as usize;
    let n = c.normal;
    match c.other {
        Other::Sphere(j) => {
            let j = j as usize;
            let (wi, wj) = (setup.inverse_mass[i], setup.inverse_mass[j]);
            let si = c.drop * (wi / (wi + wj));
            let sj = c.drop * (wj / (wi + wj));
            for k in 0..3 {
                v[i][k] += si * n[k];
                v[j][k] -= sj * n[k];
            }
        }
        Other::Wall(_) => {
            // The whole drop goes to the sphere, so a sphere the dry term stops against
            // an axis-aligned wall has exactly zero normal velocity.
            for k in 0..3 {
                v[i][k] += c.drop * n[k];
            }
        }
    }
}
