//! Velocity Verlet for the spheres: half kick, drift, new contact geometry, half kick.
//!
//! A kick takes gravity, then every contact in parallel: each finds its normal force from
//! the approach rate its two bodies have after gravity's share (`laws::half_kick`, the
//! viscous and dry terms at the end of the kick), and the drop of that rate it causes.
//! The drops are then applied sphere by sphere in parallel (`gather`), each sphere summing
//! its contacts' shares (opposite signs to the two spheres, in proportion to their inverse
//! masses) in the fixed order of the lists, walls first: momentum is conserved to
//! round-off, and the result is the same bits on any number of threads. For elastic laws
//! this is plain velocity Verlet (the force f(x) at the kick's positions).
//!
//! Only the live contacts (overlapping or with a collision open, listed by the placement)
//! are kicked and applied, in the same order; the kick of any other only cleared its drop.
//! The collision log is settled serially after each kick, for the few contacts whose
//! collision begins or ends (for any other it changes nothing), in list order.
//!
//! Gravity's share of the first half kick is added as the contacts read the velocities and
//! as the spheres gather, and the drift and gravity's share of the second half kick ride
//! on the first gather's pass: fewer passes and fork-joins, the same operations on the
//! same values.

use super::collisions::CollisionLog;
use super::contact::{prefetch, Contact, Live, Open, Other, CHUNK, UNNUMBERED};
use super::gather::{share, Shares};
use super::search::NeighbourList;
use super::setup::Setup;
use super::{pairs, walls};
use crate::error::SolveError;
use rayon::prelude::*;

/// The moving state and the contacts of a solve.
#[derive(Clone)]
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
    /// What the last kick's contacts add to their spheres.
    shares: Shares,
    /// The live contacts whose collision the log must settle after the kick, chunk by
    /// chunk as the live lists (walls, pairs); kept from one kick to the next.
    wall_settle: Vec<Vec<u32>>,
    pair_settle: Vec<Vec<u32>>,
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
            shares: Shares::default(),
            wall_settle: Vec::new(),
            pair_settle: Vec::new(),
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
        let g = self.setup.gravity;
        // Gravity's share of a half kick, or none (adding zero could turn a -0 into +0).
        let pull = (g != [0.0; 3]).then(|| [half * g[0], half * g[1], half * g[2]]);
        // The first half kick: gravity's share is added where the velocities are read.
        self.kick_contacts(half, pull);
        std::mem::swap(&mut self.x, &mut self.previous);
        // One pass over the spheres: the first half kick's gather, the drift, gravity's
        // share of the second half kick (nothing between reads the velocities: the
        // placement reads only positions) and the staleness test of the neighbour list;
        // the same operations on the same values as four passes, in one fork and join.
        let pairs = &self.pairs;
        let shares = &self.shares;
        let stale = self
            .x
            .par_chunks_mut(CHUNK)
            .zip(self.previous.par_chunks(CHUNK))
            .zip(self.v.par_chunks_mut(CHUNK))
            .zip(pairs.anchor().par_chunks(CHUNK))
            .enumerate()
            .with_max_len(1) // skewed work: see `CHUNK`
            .map(|(n, (((x, p), v), a))| {
                if let Some(hg) = pull {
                    for v in v.iter_mut() {
                        v[0] += hg[0];
                        v[1] += hg[1];
                        v[2] += hg[2];
                    }
                }
                shares.gather(n, v);
                // Plain loops without early exits, so they vectorise.
                for ((x, p), v) in x.iter_mut().zip(p).zip(v.iter()) {
                    x[0] = p[0] + dt * v[0];
                    x[1] = p[1] + dt * v[1];
                    x[2] = p[2] + dt * v[2];
                }
                if let Some(hg) = pull {
                    for v in v.iter_mut() {
                        v[0] += hg[0];
                        v[1] += hg[1];
                        v[2] += hg[2];
                    }
                }
                x.iter()
                    .zip(a)
                    .fold(false, |out, (x, a)| out | pairs.moved_out(x, a))
            })
            .reduce(|| false, |a, b| a | b);
        self.settle();
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
            self.rebuild_lists();
        }
        // The two placements touch disjoint records: one join for both, so the few wall
        // chunks run beside the pairs' rather than after a barrier of their own.
        let (setup, x, previous) = (self.setup, &self.x[..], &self.previous[..]);
        let (pair_list, pair_live) = (&mut self.pairs, &mut self.pair_live);
        let (wall_list, wall_live) = (&mut self.walls, &mut self.wall_live);
        rayon::join(
            || {
                pairs::place(
                    &mut pair_list.contacts,
                    &mut pair_list.geometry,
                    pair_live,
                    setup,
                    x,
                    previous,
                    t_end,
                    dt,
                )
            },
            || walls::place(wall_list, wall_live, setup, x, t_end, dt),
        );
        // The second half kick (gravity's share was added in the drift's pass).
        self.kick_contacts(half, None);
        let shares = &self.shares;
        self.v
            .par_chunks_mut(CHUNK)
            .enumerate()
            .with_max_len(1) // skewed work: see `CHUNK`
            .for_each(|(n, v)| shares.gather(n, v));
        self.settle();
        Ok(())
    }

    /// Renew the pairs' neighbour list and the walls' list about the current positions
    /// (the walls' new contacts placed at the positions before).
    fn rebuild_lists(&mut self) {
        self.pairs.rebuild(self.setup, &self.x);
        self.walls = walls::rebuild(
            std::mem::take(&mut self.walls),
            self.setup,
            &self.x,
            &self.previous,
            self.pairs.skin(),
        );
    }

    /// Each live contact's force and rate drop for a kick, from the velocities before it
    /// (plus `pull`, gravity's share, when given), in parallel by fixed chunks of both
    /// lists in one fork and join; writes the shares of the non-zero drops and lists the
    /// collisions to settle.
    fn kick_contacts(&mut self, half: f64, pull: Option<[f64; 3]>) {
        let (setup, v) = (self.setup, &self.v[..]);
        let wall_chunks = self.wall_live.chunks.len();
        self.shares
            .fit(wall_chunks + self.pair_live.chunks.len(), v.len());
        let (wall_shares, pair_shares) = self.shares.buckets.split_at_mut(wall_chunks);
        self.wall_settle
            .resize_with(self.wall_live.chunks.len(), Vec::new);
        self.pair_settle
            .resize_with(self.pair_live.chunks.len(), Vec::new);
        let walls = self
            .walls
            .par_chunks_mut(CHUNK)
            .zip(wall_shares.par_iter_mut())
            .zip(self.wall_live.chunks.par_iter())
            .zip(self.wall_settle.par_iter_mut());
        let pairs = self
            .pairs
            .contacts
            .par_chunks_mut(CHUNK)
            .zip(pair_shares.par_iter_mut())
            .zip(self.pair_live.chunks.par_iter())
            .zip(self.pair_settle.par_iter_mut());
        walls
            .chain(pairs)
            .with_max_len(1) // skewed work: see `CHUNK`
            .for_each(|(((chunk, shares), list), settle)| {
                for bucket in shares.iter_mut() {
                    bucket.clear();
                }
                settle.clear();
                for (m, &k) in list.iter().enumerate() {
                    if let Some(&ahead) = list.get(m + PREFETCH_AHEAD) {
                        prefetch(&chunk[ahead as usize]);
                    }
                    let k = k as usize;
                    let c = &mut chunk[k];
                    kick_one(c, setup, v, half, pull);
                    // The serial loop applied only the non-zero drops.
                    if c.drop != 0.0 {
                        share(c, setup, shares);
                    }
                    if c.open.as_ref().is_some_and(to_settle) {
                        settle.push(k as u32);
                    }
                }
            });
    }

    /// Settle the collisions the last kick listed, walls first, then pairs, each in list
    /// order: the order the log has always seen them in (for any other live contact,
    /// settling changes nothing).
    fn settle(&mut self) {
        for (contacts, settle) in [
            (&mut self.walls, &self.wall_settle),
            (&mut self.pairs.contacts, &self.pair_settle),
        ] {
            for (chunk, list) in contacts.chunks_mut(CHUNK).zip(settle) {
                for &k in list {
                    self.log.settle(&mut chunk[k as usize], self.setup);
                }
            }
        }
    }
}

/// How many live contacts ahead a kick asks for a record's cache lines: enough for a
/// load from beyond the L2 to arrive before the kick reaches it.
const PREFETCH_AHEAD: usize = 6;

/// True when `CollisionLog::settle` would change something: a collision to number, or
/// one ended whose separation speed is known.
#[inline]
fn to_settle(open: &Open) -> bool {
    open.seq == UNNUMBERED || (open.end.is_some() && open.separation_speed.is_some())
}

/// Sphere `i`'s velocity as a kick reads it: plus gravity's share when given.
#[inline]
fn velocity(v: &[[f64; 3]], i: usize, pull: Option<[f64; 3]>) -> [f64; 3] {
    let mut w = v[i];
    if let Some(hg) = pull {
        w[0] += hg[0];
        w[1] += hg[1];
        w[2] += hg[2];
    }
    w
}

fn kick_one(c: &mut Contact, setup: &Setup, v: &[[f64; 3]], half: f64, pull: Option<[f64; 3]>) {
    if c.overlap <= 0.0 && c.open.is_none() {
        c.drop = 0.0;
        return;
    }
    let i = c.particle as usize;
    let n = c.normal;
    let vi = velocity(v, i, pull);
    let (dv, inv) = match c.other {
        Other::Sphere(j) => {
            let j = j as usize;
            let vj = velocity(v, j, pull);
            (
                [vi[0] - vj[0], vi[1] - vj[1], vi[2] - vj[2]],
                setup.inverse_mass[i] + setup.inverse_mass[j],
            )
        }
        Other::Wall(_) => (vi, setup.inverse_mass[i]),
    };
    let rate0 = -(dv[0] * n[0] + dv[1] * n[1] + dv[2] * n[2]);
    let law = &setup.interactions[c.interaction as usize].law;
    c.kick(law, rate0, half * inv, half);
}

#[cfg(test)]
mod tests {
    use super::*;
    use impact_protocol::particles::{
        ContactLaw, LawKind, ParticleGroup, Particles, Sphere, TimeStep, Wall,
    };

    /// Spheres of two sizes and masses packed close in a box under gravity, shaken: many
    /// contacts of pairs and walls, collisions opening and closing, rebuilds, and more
    /// than one chunk of spheres and of pairs.
    fn shaken_box() -> Particles {
        let mut sequence = crate::test_support::Sequence::new(99);
        let mut next = || sequence.unit();
        let r = 0.005;
        let (side, layers) = (10, 13);
        let mut groups: Vec<ParticleGroup> = ["small", "large"]
            .iter()
            .enumerate()
            .map(|(g, name)| ParticleGroup {
                name: (*name).into(),
                radius: Some(r * (1.0 + 0.2 * g as f64)),
                mass: None,
                density: Some(2500.0 * (1.0 + g as f64)),
                velocity: [0.0; 3],
                spheres: Vec::new(),
            })
            .collect();
        for k in 0..layers {
            for j in 0..side {
                for i in 0..side {
                    let at = [i, j, k].map(|n| 1.3 * r + 2.3 * r * n as f64 + 0.002 * next());
                    let velocity = [0.0; 3].map(|_: f64| 1.0 * next() - 0.5);
                    groups[(i + j + k) % 2].spheres.push(Sphere {
                        position: at,
                        velocity: Some(velocity),
                        radius: None,
                        mass: None,
                    });
                }
            }
        }
        let box_side = 2.3 * r * side as f64 + 0.004;
        let wall = |name: &str, point: [f64; 3], normal: [f64; 3]| Wall {
            name: name.into(),
            point,
            normal,
            law: None,
        };
        Particles {
            dimension: 3,
            groups,
            walls: vec![
                wall("floor", [0.0; 3], [0.0, 0.0, 1.0]),
                wall("west", [0.0; 3], [1.0, 0.0, 0.0]),
                wall("east", [box_side, 0.0, 0.0], [-1.0, 0.0, 0.0]),
                wall("south", [0.0; 3], [0.0, 1.0, 0.0]),
                wall("north", [0.0, box_side, 0.0], [0.0, -1.0, 0.0]),
            ],
            gravity: [0.0, 0.0, -9.81],
            law: Some(ContactLaw {
                kind: LawKind::HertzHuntCrossley,
                k: None,
                youngs_modulus: Some(1e7),
                nu: Some(0.3),
                c: None,
                n: None,
                b: Some(0.5),
                d: Some(0.1),
            }),
            laws: vec![],
            time_step: TimeStep {
                dt: Some(2e-5),
                steps_per_contact: None,
            },
            listed_collisions: 50,
        }
    }

    impl Integrator<'_> {
        /// The increment as it was before the gather: gravity's pass, the kicks, the
        /// drops applied serially in list order, the drift's own pass.
        fn increment_serial(&mut self, t_end: f64, dt: f64) {
            let half = 0.5 * dt;
            let g = self.setup.gravity;
            let pull = g != [0.0; 3];
            if pull {
                for v in &mut self.v {
                    v[0] += half * g[0];
                    v[1] += half * g[1];
                    v[2] += half * g[2];
                }
            }
            self.kick_serial(half);
            std::mem::swap(&mut self.x, &mut self.previous);
            let mut stale = false;
            for s in 0..self.x.len() {
                let (p, v) = (self.previous[s], &mut self.v[s]);
                self.x[s] = [0, 1, 2].map(|k| p[k] + dt * v[k]);
                if pull {
                    for k in 0..3 {
                        v[k] += half * g[k];
                    }
                }
                stale |= self.pairs.moved_out(&self.x[s], &self.pairs.anchor()[s]);
            }
            if stale {
                self.rebuild_lists();
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
            self.kick_serial(half);
        }

        fn kick_serial(&mut self, half: f64) {
            for (contacts, live) in [
                (&mut self.walls, &self.wall_live),
                (&mut self.pairs.contacts, &self.pair_live),
            ] {
                for (chunk, list) in contacts.chunks_mut(CHUNK).zip(&live.chunks) {
                    for &k in list {
                        kick_one(&mut chunk[k as usize], self.setup, &self.v, half, None);
                    }
                }
            }
            for (contacts, live) in [
                (&mut self.walls, &self.wall_live),
                (&mut self.pairs.contacts, &self.pair_live),
            ] {
                for (chunk, list) in contacts.chunks_mut(CHUNK).zip(&live.chunks) {
                    for &k in list {
                        let c = &mut chunk[k as usize];
                        if c.drop != 0.0 {
                            let i = c.particle as usize;
                            let n = c.normal;
                            let v = &mut self.v;
                            match c.other {
                                Other::Sphere(j) => {
                                    let j = j as usize;
                                    let (wi, wj) =
                                        (self.setup.inverse_mass[i], self.setup.inverse_mass[j]);
                                    let si = c.drop * (wi / (wi + wj));
                                    let sj = c.drop * (wj / (wi + wj));
                                    for k in 0..3 {
                                        v[i][k] += si * n[k];
                                        v[j][k] -= sj * n[k];
                                    }
                                }
                                Other::Wall(_) => {
                                    for k in 0..3 {
                                        v[i][k] += c.drop * n[k];
                                    }
                                }
                            }
                        }
                        if c.open.is_some() {
                            self.log.settle(c, self.setup);
                        }
                    }
                }
            }
        }

        /// Everything the state holds, as bits and debug text.
        fn fingerprint(&self, t: f64) -> (Vec<u64>, String) {
            let bits = self
                .x
                .iter()
                .chain(&self.v)
                .flatten()
                .map(|f| f.to_bits())
                .collect();
            let log = self.log.finish(self.contacts(), self.setup, t);
            (
                bits,
                format!("{:?} {:?} {log:?}", self.walls, self.pairs.contacts),
            )
        }
    }

    /// The pairs' placement takes a pair's overlap at the positions before from its record
    /// when the pair was open at the placement before: that must be the bits the
    /// expression gives on those positions.
    #[test]
    fn a_pair_open_at_its_placement_holds_the_overlap_of_those_positions() {
        let parts = shaken_box();
        let setup = Setup::new(&parts).unwrap();
        let dt = 2e-5;
        let mut it = Integrator::new(&setup, 50);
        let mut checked = 0;
        for n in 1..=300 {
            it.increment(n as f64 * dt, dt).unwrap();
            let list = &it.pairs;
            for (c, _) in list
                .contacts
                .iter()
                .zip(&list.geometry.full)
                .filter(|(_, &f)| f)
            {
                let (i, j) = c.key();
                let (i, j) = (i as usize, j as usize);
                let expected =
                    setup.radius[i] + setup.radius[j] - pairs::distance2(&it.x[i], &it.x[j]).sqrt();
                assert_eq!(
                    c.overlap.to_bits(),
                    expected.to_bits(),
                    "pair {i} {j}, increment {n}"
                );
                checked += 1;
            }
        }
        assert!(checked > 10_000, "open pairs checked: {checked}");
    }

    #[test]
    fn gather_is_the_serial_apply_bit_for_bit_on_any_pool() {
        let parts = shaken_box();
        let setup = Setup::new(&parts).unwrap();
        let dt = 2e-5;
        for threads in [1, 2, 3] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| {
                let mut ours = Integrator::new(&setup, 50);
                let mut serial = ours.clone();
                let mut touching = 0;
                for n in 1..=400 {
                    let t = n as f64 * dt;
                    ours.increment(t, dt).unwrap();
                    serial.increment_serial(t, dt);
                    if n % 50 == 0 || n == 1 {
                        assert_eq!(ours.fingerprint(t), serial.fingerprint(t), "increment {n}");
                    }
                    touching = touching.max(ours.pair_live.chunks.iter().map(Vec::len).sum());
                }
                let t = 400.0 * dt;
                assert_eq!(ours.fingerprint(t), serial.fingerprint(t));
                assert!(
                    ours.pairs.contacts.len() > CHUNK,
                    "more than one chunk of pairs"
                );
                assert!(touching > 100, "pairs touching: {touching}");
                assert!(ours.pairs.rebuilds > 0);
                assert!(ours.log.total() > 100, "collisions: {}", ours.log.total());
            });
        }
    }
}
