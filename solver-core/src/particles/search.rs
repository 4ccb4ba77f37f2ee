//! The neighbour search: a cell list (cells of one diameter plus a skin, found by sorting
//! the particles by cell) builds a list of candidate pairs closer than their radii plus
//! the skin; the list is kept until some sphere has moved half the skin, so the search
//! runs now and then and its cost grows with the number of spheres, not its square.
//! Pairs keep their collision state across rebuilds.

use super::contact::{carry_over, keep_open, Contact, Other};
use super::pairs::Geometry;
use super::setup::Setup;
use rayon::prelude::*;

/// The skin as a fraction of the largest radius.
const SKIN_PER_RADIUS: f64 = 0.3;

/// The 13 neighbour cells "after" a cell (the other 13 see it as theirs), so each pair of
/// cells is visited once.
const HALF_STENCIL: [[i64; 3]; 13] = [
    [1, 0, 0],
    [-1, 1, 0],
    [0, 1, 0],
    [1, 1, 0],
    [-1, -1, 1],
    [0, -1, 1],
    [1, -1, 1],
    [-1, 0, 1],
    [0, 0, 1],
    [1, 0, 1],
    [-1, 1, 1],
    [0, 1, 1],
    [1, 1, 1],
];

/// Candidate sphere pairs, each once as (lower id, higher id), sorted.
#[derive(Clone, Debug)]
pub struct NeighbourList {
    pub contacts: Vec<Contact>,
    /// What the placement's pass over every pair reads, beside `contacts`.
    pub geometry: Geometry,
    /// Positions at the last build.
    anchor: Vec<[f64; 3]>,
    skin: f64,
    pub rebuilds: u64,
}

impl NeighbourList {
    pub fn new(setup: &Setup, x: &[[f64; 3]]) -> Self {
        let r_max = setup.radius.iter().copied().fold(0.0, f64::max);
        let mut list = NeighbourList {
            contacts: Vec::new(),
            geometry: Geometry::default(),
            anchor: Vec::new(),
            skin: SKIN_PER_RADIUS * r_max,
            rebuilds: 0,
        };
        list.rebuild(setup, x);
        list.rebuilds = 0;
        list
    }

    /// The distance beyond contact the list reaches (pairs and walls).
    pub fn skin(&self) -> f64 {
        self.skin
    }

    /// True when some sphere has moved more than half the skin since the last build (two
    /// such spheres may have closed the whole skin between them).
    pub fn stale(&self, x: &[[f64; 3]]) -> bool {
        let limit = 0.25 * self.skin * self.skin;
        x.par_iter()
            .zip(self.anchor.par_iter())
            .with_min_len(super::MIN_PER_TASK)
            .any(|(p, a)| {
                let d = [p[0] - a[0], p[1] - a[1], p[2] - a[2]];
                // A non-finite position also asks for a rebuild; the integrator reports it.
                let moved = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
                moved > limit || moved.is_nan()
            })
    }

    pub fn rebuild(&mut self, setup: &Setup, x: &[[f64; 3]]) {
        let mut fresh = candidates(setup, x, self.skin);
        // Carry the state of pairs found again; keep open collisions even if the pair
        // left the list's reach in one increment.
        let old = std::mem::take(&mut self.contacts);
        let (carried, orphans) = carry_over(&mut fresh, old);
        let mut new_to_list: Vec<bool> = carried.iter().map(|&kept| !kept).collect();
        if !orphans.is_empty() {
            // The kept collisions move the indices; they are not new to the list.
            let new_keys: Vec<(u32, u32)> = fresh
                .iter()
                .zip(&new_to_list)
                .filter(|(_, &new)| new)
                .map(|(c, _)| c.key())
                .collect();
            keep_open(&mut fresh, orphans);
            new_to_list = fresh
                .iter()
                .map(|c| new_keys.binary_search(&c.key()).is_ok())
                .collect();
        }
        self.contacts = fresh;
        self.geometry = Geometry::of(&self.contacts, setup, new_to_list);
        self.anchor = x.to_vec();
        self.rebuilds += 1;
    }
}

fn cell_of(p: &[f64; 3], size: f64) -> [i64; 3] {
    // `as` saturates: a sphere far away lands in a far (possibly shared) cell, never UB.
    [
        (p[0] / size).floor() as i64,
        (p[1] / size).floor() as i64,
        (p[2] / size).floor() as i64,
    ]
}

/// Pairs of spheres closer than their radii plus the skin whose groups have a law.
fn candidates(setup: &Setup, x: &[[f64; 3]], skin: f64) -> Vec<Contact> {
    let n = x.len();
    if n < 2 {
        return Vec::new();
    }
    let r_max = setup.radius.iter().copied().fold(0.0, f64::max);
    let size = 2.0 * r_max + skin;
    let mut keyed: Vec<([i64; 3], u32)> = x
        .par_iter()
        .enumerate()
        .map(|(i, p)| (cell_of(p, size), i as u32))
        .collect();
    keyed.par_sort_unstable();
    let mut cells: Vec<([i64; 3], usize, usize)> = Vec::new();
    let mut start = 0;
    for k in 1..=n {
        if k == n || keyed[k].0 != keyed[start].0 {
            cells.push((keyed[start].0, start, k));
            start = k;
        }
    }
    let close = |i: usize, j: usize| -> Option<Contact> {
        let (a, b) = (x[i], x[j]);
        let d = [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
        let reach = setup.radius[i] + setup.radius[j] + skin;
        if d[0] * d[0] + d[1] * d[1] + d[2] * d[2] >= reach * reach {
            return None;
        }
        let interaction = setup.pair_interaction(i, j)?;
        let (lo, hi) = if i < j { (i, j) } else { (j, i) };
        Some(Contact::new(
            lo as u32,
            Other::Sphere(hi as u32),
            interaction,
            setup.pair_stiffness(interaction, lo, hi),
        ))
    };
    let mut found: Vec<Contact> = cells
        .par_iter()
        .flat_map_iter(|&(key, lo, hi)| {
            let mut out = Vec::new();
            for a in lo..hi {
                let i = keyed[a].1 as usize;
                for item in &keyed[a + 1..hi] {
                    out.extend(close(i, item.1 as usize));
                }
            }
            for off in HALF_STENCIL {
                let nk = [key[0] + off[0], key[1] + off[1], key[2] + off[2]];
                if let Ok(c) = cells.binary_search_by(|probe| probe.0.cmp(&nk)) {
                    let (nlo, nhi) = (cells[c].1, cells[c].2);
                    for a in lo..hi {
                        let i = keyed[a].1 as usize;
                        for item in &keyed[nlo..nhi] {
                            out.extend(close(i, item.1 as usize));
                        }
                    }
                }
            }
            out
        })
        .collect();
    // Pairs are unique, so the order is the same on any number of threads.
    found.par_sort_unstable_by_key(Contact::key);
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use impact_protocol::particles::{
        ContactLaw, LawKind, ParticleGroup, Particles, Sphere, TimeStep,
    };

    fn cloud(n: usize) -> Particles {
        // A deterministic scatter (a multiplicative congruential sequence) in a 1 m box.
        let mut seed: u64 = 12345;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        let spheres = (0..n)
            .map(|_| Sphere {
                position: [next(), next(), next() - 0.5],
                velocity: None,
                radius: Some(0.02 + 0.03 * next()),
                mass: None,
            })
            .collect();
        Particles {
            dimension: 3,
            groups: vec![ParticleGroup {
                name: "cloud".into(),
                radius: None,
                mass: Some(1.0),
                density: None,
                velocity: [0.0; 3],
                spheres,
            }],
            walls: vec![],
            gravity: [0.0; 3],
            law: Some(ContactLaw {
                kind: LawKind::Hooke,
                k: Some(1.0),
                youngs_modulus: None,
                nu: None,
                c: None,
                n: None,
                b: None,
                d: None,
            }),
            laws: vec![],
            time_step: TimeStep::default(),
            listed_collisions: 10,
        }
    }

    #[test]
    fn cell_list_finds_what_brute_force_finds() {
        let parts = cloud(600);
        let setup = Setup::new(&parts).unwrap();
        let list = NeighbourList::new(&setup, &setup.position);
        let skin = list.skin;
        let x = &setup.position;
        let mut brute = Vec::new();
        for i in 0..x.len() {
            for j in i + 1..x.len() {
                let d: f64 = (0..3)
                    .map(|k| (x[i][k] - x[j][k]).powi(2))
                    .sum::<f64>()
                    .sqrt();
                if d < setup.radius[i] + setup.radius[j] + skin {
                    brute.push((i as u32, j as u32));
                }
            }
        }
        let found: Vec<(u32, u32)> = list.contacts.iter().map(Contact::key).collect();
        assert!(!brute.is_empty());
        assert_eq!(found, brute);
    }
}
