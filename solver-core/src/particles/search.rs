//! The neighbour search: a cell list (cells of one diameter plus a skin, the particles
//! put in hashed buckets of cells by a counting sort) builds a list of candidate pairs
//! closer than their radii plus the skin, sphere by sphere in key order; the list is kept until some sphere has moved half the skin, so the search
//! runs now and then and its cost grows with the number of spheres, not its square.
//! Pairs keep their collision state across rebuilds.

use super::contact::{Contact, Other};
use super::pairs::Geometry;
use super::setup::Setup;
use rayon::prelude::*;

/// The skin as a fraction of the largest radius.
const SKIN_PER_RADIUS: f64 = 0.3;

/// Candidate sphere pairs, each once as (lower id, higher id), sorted.
#[derive(Clone, Debug)]
pub struct NeighbourList {
    pub contacts: Vec<Contact>,
    /// What the placement's pass over every pair reads, beside `contacts`.
    pub geometry: Geometry,
    /// Positions at the last build.
    anchor: Vec<[f64; 3]>,
    skin: f64,
    /// The cell sort's buffers, kept for the next rebuild.
    buckets: Buckets,
    /// An empty buffer with the room of an earlier list: the next rebuild writes its list
    /// there and keeps the old one's, so a rebuild maps no fresh pages (megabytes of
    /// records, cleared by the kernel page by page) once the lists have grown.
    spare: Vec<Contact>,
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
            buckets: Buckets::default(),
            spare: Vec::new(),
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

    /// The positions at the last build.
    pub fn anchor(&self) -> &[[f64; 3]] {
        &self.anchor
    }

    /// True when a sphere now at `p`, at `a` at the last build, has moved more than half
    /// the skin: two such spheres may have closed the whole skin between them, so the list
    /// is stale. The integrator asks it of every sphere as it drifts them.
    #[inline]
    pub fn moved_out(&self, p: &[f64; 3], a: &[f64; 3]) -> bool {
        let limit = 0.25 * self.skin * self.skin;
        let d = [p[0] - a[0], p[1] - a[1], p[2] - a[2]];
        // A non-finite position (a NaN here) also asks for a rebuild; the integrator
        // reports it.
        let moved = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        (moved > limit) | moved.is_nan()
    }

    pub fn rebuild(&mut self, setup: &Setup, x: &[[f64; 3]]) {
        let found = candidates(setup, x, self.skin, &mut self.buckets);
        // One merge of the old list (ascending by key) with the pairs found (ascending):
        // a pair found again keeps its record and state, a collision still open is kept
        // even if its pair left the list's reach in one increment, and each record is
        // written once. (The walls' list does the same with `carry_over` and `keep_open`.)
        let mut old = std::mem::replace(&mut self.contacts, std::mem::take(&mut self.spare));
        let contacts = &mut self.contacts;
        contacts.clear();
        contacts.reserve(found.len());
        let mut new_to_list = std::mem::take(&mut self.geometry.fresh);
        new_to_list.clear();
        new_to_list.reserve(found.len());
        let fresh = |&[i, j, interaction]: &[u32; 3]| {
            Contact::new(
                i,
                Other::Sphere(j),
                interaction,
                setup.pair_stiffness(interaction, i as usize, j as usize),
            )
        };
        let mut next = found.iter().peekable();
        for c in old.drain(..) {
            let key = c.key();
            while let Some(f) = next.next_if(|f| (f[0], f[1]) < key) {
                contacts.push(fresh(f));
                new_to_list.push(true);
            }
            let again = next.next_if(|f| (f[0], f[1]) == key).is_some();
            if again || c.open.is_some() {
                contacts.push(c);
                new_to_list.push(false);
            }
        }
        for f in next {
            contacts.push(fresh(f));
            new_to_list.push(true);
        }
        self.spare = old;
        self.geometry.refill(&self.contacts, setup, new_to_list);
        self.anchor.clear();
        self.anchor.extend_from_slice(x);
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

/// The multipliers of the cell hash's linear part.
const HASH: [u64; 3] = [
    0x9E37_79B9_7F4A_7C15,
    0xC2B2_AE3D_27D4_EB4F,
    0x1656_67B1_9E37_79F9,
];

/// The linear part of a cell's hash, modulo 2^64: a neighbour's is the cell's plus its
/// offset's (`STENCIL`), so the 27 cells around a sphere's cost an addition each.
const fn linear(cell: [i64; 3]) -> u64 {
    (cell[0] as u64)
        .wrapping_mul(HASH[0])
        .wrapping_add((cell[1] as u64).wrapping_mul(HASH[1]))
        .wrapping_add((cell[2] as u64).wrapping_mul(HASH[2]))
}

/// The linear parts of the offsets to the 27 cells around and including a cell.
const STENCIL: [u64; 27] = {
    let mut s = [0u64; 27];
    let mut k = 0;
    while k < 27 {
        s[k] = linear([
            (k % 3) as i64 - 1,
            ((k / 3) % 3) as i64 - 1,
            (k / 9) as i64 - 1,
        ]);
        k += 1;
    }
    s
};

/// The spheres sorted by cell with a counting sort: each cell is hashed into one of a
/// power of two buckets (at least twice the spheres), and the bucket holds its spheres'
/// ids in increasing order. Cells far apart may share a bucket; the distance test sorts
/// them out, so memory stays bounded however far the spheres spread, and nothing is
/// sorted by comparison. The buffers are kept from one rebuild to the next.
#[derive(Clone, Debug, Default)]
struct Buckets {
    /// log2 of the number of buckets.
    bits: u32,
    /// The bucket of each sphere.
    of: Vec<u32>,
    /// Where each bucket's ids begin in `ids` (one more entry than buckets).
    start: Vec<u32>,
    ids: Vec<u32>,
    /// Beside `ids`, each sphere's position and radius: the search reads a bucket's
    /// members in a row instead of through their ids.
    packed: Vec<[f64; 4]>,
}

impl Buckets {
    fn bucket(&self, cell: [i64; 3]) -> u32 {
        self.mix(linear(cell))
    }

    /// The bucket of a cell from its `linear` part: the top bits, the best mixed.
    #[inline]
    fn mix(&self, h: u64) -> u32 {
        let h = (h ^ (h >> 29)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        (h >> (64 - self.bits)) as u32
    }

    fn fill(&mut self, x: &[[f64; 3]], radius: &[f64], size: f64) {
        let n = x.len();
        self.bits = (2 * n).next_power_of_two().trailing_zeros().max(1);
        let buckets = 1usize << self.bits;
        let mut of = std::mem::take(&mut self.of);
        of.clear();
        of.par_extend(
            x.par_iter()
                .with_min_len(super::MIN_PER_TASK)
                .map(|p| self.bucket(cell_of(p, size))),
        );
        self.of = of;
        self.start.clear();
        self.start.resize(buckets + 1, 0);
        for &b in &self.of {
            self.start[b as usize + 1] += 1;
        }
        for b in 0..buckets {
            self.start[b + 1] += self.start[b];
        }
        // Scatter in id order, so each bucket lists its ids ascending; `start` is moved
        // on as it fills and set back after.
        self.ids.clear();
        self.ids.resize(n, 0);
        for (i, &b) in self.of.iter().enumerate() {
            let slot = &mut self.start[b as usize];
            self.ids[*slot as usize] = i as u32;
            *slot += 1;
        }
        for b in (1..=buckets).rev() {
            self.start[b] = self.start[b - 1];
        }
        self.start[0] = 0;
        self.packed.clear();
        self.packed.extend(self.ids.iter().map(|&i| {
            let (p, r) = (x[i as usize], radius[i as usize]);
            [p[0], p[1], p[2], r]
        }));
    }

    /// The ids of a bucket's spheres, ascending, and their positions and radii.
    fn members(&self, bucket: u32) -> (&[u32], &[[f64; 4]]) {
        let b = bucket as usize;
        let range = self.start[b] as usize..self.start[b + 1] as usize;
        (&self.ids[range.clone()], &self.packed[range])
    }
}

/// Pairs of spheres closer than their radii plus the skin whose groups have a law, as
/// (lower id, higher id, interaction), in key order: each sphere finds its partners of higher id in the 27 cells around its own, so
/// the list comes out sorted sphere by sphere, in fixed chunks of spheres, whatever the
/// number of threads.
fn candidates(setup: &Setup, x: &[[f64; 3]], skin: f64, buckets: &mut Buckets) -> Vec<[u32; 3]> {
    let n = x.len();
    if n < 2 {
        return Vec::new();
    }
    let r_max = setup.radius.iter().copied().fold(0.0, f64::max);
    let size = 2.0 * r_max + skin;
    buckets.fill(x, &setup.radius, size);
    let buckets = &*buckets;
    (0..n)
        .into_par_iter()
        .fold_chunks(
            super::MIN_PER_TASK,
            || (Vec::new(), Vec::new()),
            |(mut out, mut partners): (Vec<[u32; 3]>, Vec<[u32; 3]>), i| {
                let a = x[i];
                let ri = setup.radius[i];
                let base = linear(cell_of(&a, size));
                partners.clear();
                for off in STENCIL {
                    // A bucket holds a sphere or two: a scan past the lower ids costs less
                    // than a binary search.
                    let (ids, packed) = buckets.members(buckets.mix(base.wrapping_add(off)));
                    for (&j, b) in ids.iter().zip(packed) {
                        if j as usize <= i {
                            continue;
                        }
                        let d = [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
                        let reach = ri + b[3] + skin;
                        if d[0] * d[0] + d[1] * d[1] + d[2] * d[2] >= reach * reach {
                            continue;
                        }
                        if let Some(interaction) = setup.pair_interaction(i, j as usize) {
                            partners.push([i as u32, j, interaction]);
                        }
                    }
                }
                // Key order (i is the same in all, and j gives the interaction); two of
                // the 27 cells in one bucket list its pairs twice.
                partners.sort_unstable_by_key(|p| p[1]);
                partners.dedup_by_key(|p| p[1]);
                out.extend_from_slice(&partners);
                (out, partners)
            },
        )
        .flat_map_iter(|(out, _)| out)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use impact_protocol::particles::{
        ContactLaw, LawKind, ParticleGroup, Particles, Sphere, TimeStep,
    };

    fn cloud(n: usize) -> Particles {
        // A deterministic scatter (a multiplicative congruential sequence) in a 1 m box.
        let mut sequence = crate::test_support::Sequence::new(12345);
        let mut next = || sequence.unit();
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
