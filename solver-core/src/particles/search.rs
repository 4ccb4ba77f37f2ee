//! The neighbour search: a cell list (cells one largest diameter plus the skin wide, the
//! spheres sorted into them by `cells`) builds a list of candidate pairs closer than their
//! radii plus the skin, sphere by sphere in key order; the list is kept until some sphere
//! has moved half the skin, so the search runs now and then and its cost grows with the
//! number of spheres, not its square. Pairs keep their collision state across rebuilds.

use super::cells::Cells;
use super::contact::{Contact, Other, CHUNK};
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
    cells: Cells,
    /// An empty buffer with the room of an earlier list: the next rebuild writes its list
    /// there and keeps the old one's, so a rebuild maps no fresh pages (megabytes of
    /// records, cleared by the kernel page by page) once the lists have grown.
    spare: Vec<Contact>,
    /// The last rebuild's plan, kept for its room.
    plan: Vec<Source>,
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
            cells: Cells::default(),
            spare: Vec::new(),
            plan: Vec::new(),
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
        let found = candidates(setup, x, self.skin, &mut self.cells);
        // One merge of the old list (ascending by key) with the pairs found (ascending):
        // a pair found again keeps its record and state, a collision still open is kept
        // even if its pair left the list's reach in one increment, and each record is
        // written once. (The walls' list does the same with `carry_over` and `keep_open`.)
        // Both lists are ordered by the lower sphere first, so the merge splits by chunks
        // of spheres and runs in parallel: a plan of where each record comes from, then
        // the records written in parallel from it (a serial merge moved every record, some
        // 200 bytes, on one thread).
        let old = std::mem::replace(&mut self.contacts, std::mem::take(&mut self.spare));
        let mut plan = std::mem::take(&mut self.plan);
        plan.clear();
        let chunks = x.len().div_ceil(CHUNK);
        let first_of = |c: usize| (c * CHUNK) as u32;
        plan.par_extend(
            (0..chunks)
                .into_par_iter()
                .with_max_len(1)
                .flat_map_iter(|c| {
                    let (from, to) = (first_of(c), first_of(c + 1));
                    let olds = old.partition_point(|o| o.particle < from)
                        ..old.partition_point(|o| o.particle < to);
                    let news = found.partition_point(|f| f[0] < from)
                        ..found.partition_point(|f| f[0] < to);
                    merge_plan(
                        &old[olds.clone()],
                        olds.start,
                        &found[news.clone()],
                        news.start,
                    )
                }),
        );
        let fresh = |&[i, j, interaction]: &[u32; 3]| {
            Contact::new(
                i,
                Other::Sphere(j),
                interaction,
                setup.pair_stiffness(interaction, i as usize, j as usize),
            )
        };
        plan.par_iter()
            .with_min_len(CHUNK)
            .map(|source| match *source {
                Source::Old(k) => old[k as usize].clone(),
                Source::Found(k) => fresh(&found[k as usize]),
            })
            .collect_into_vec(&mut self.contacts);
        let mut new_to_list = std::mem::take(&mut self.geometry.fresh);
        new_to_list.clear();
        new_to_list.par_extend(
            plan.par_iter()
                .with_min_len(CHUNK)
                .map(|source| matches!(source, Source::Found(_))),
        );
        self.plan = plan;
        self.spare = old;
        self.spare.clear();
        self.geometry.refill(&self.contacts, setup, new_to_list);
        self.anchor.clear();
        self.anchor.extend_from_slice(x);
        self.rebuilds += 1;
    }
}

/// Where a record of the rebuilt list comes from.
#[derive(Clone, Copy, Debug)]
enum Source {
    /// The old list's record at this index, with its state.
    Old(u32),
    /// A new record for the pair found at this index.
    Found(u32),
}

/// The merge of one chunk of spheres' old records (`old`, from index `old_at` of the
/// old list) and pairs found (`found`, from `found_at`), both ascending by key.
fn merge_plan(old: &[Contact], old_at: usize, found: &[[u32; 3]], found_at: usize) -> Vec<Source> {
    let mut next = found.iter().enumerate().peekable();
    let mut plan = Vec::with_capacity(found.len() + old.len() / 8);
    let index = |at: usize, k: usize| (at + k) as u32;
    for (k, c) in old.iter().enumerate() {
        let key = c.key();
        while let Some((f, _)) = next.next_if(|(_, f)| (f[0], f[1]) < key) {
            plan.push(Source::Found(index(found_at, f)));
        }
        let again = next.next_if(|(_, f)| (f[0], f[1]) == key).is_some();
        if again || c.open.is_some() {
            plan.push(Source::Old(index(old_at, k)));
        }
    }
    plan.extend(next.map(|(f, _)| Source::Found(index(found_at, f))));
    plan
}

/// Pairs of spheres closer than their radii plus the skin whose groups have a law, as
/// (lower id, higher id, interaction), in key order: each sphere finds its partners of
/// higher id in the cells around its own, so the list comes out sorted sphere by sphere,
/// in fixed chunks of spheres, whatever the number of threads.
fn candidates(setup: &Setup, x: &[[f64; 3]], skin: f64, cells: &mut Cells) -> Vec<[u32; 3]> {
    let n = x.len();
    if n < 2 {
        return Vec::new();
    }
    let r_max = setup.radius.iter().copied().fold(0.0, f64::max);
    cells.fill(x, &setup.radius, 2.0 * r_max + skin);
    let cells = &*cells;
    (0..n)
        .into_par_iter()
        .fold_chunks(
            CHUNK,
            || (Vec::new(), Vec::new()),
            |(mut out, mut partners): (Vec<[u32; 3]>, Vec<[u32; 3]>), i| {
                let a = x[i];
                let ri = setup.radius[i];
                partners.clear();
                cells.around(&a, |ids, packed| {
                    for (&j, b) in ids.iter().zip(packed) {
                        let d = [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
                        let reach = ri + b[3] + skin;
                        // One branch for both tests, rarely taken.
                        let near = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] < reach * reach;
                        if near & (j as usize > i) {
                            if let Some(interaction) = setup.pair_interaction(i, j as usize) {
                                partners.push([i as u32, j, interaction]);
                            }
                        }
                    }
                });
                // Key order (i is the same in all, and j gives the interaction); the
                // hashed buckets may list a pair twice.
                partners.sort_unstable_by_key(|p| p[1]);
                if !cells.dense() {
                    partners.dedup_by_key(|p| p[1]);
                }
                out.extend_from_slice(&partners);
                (out, partners)
            },
        )
        // One chunk a task: a few chunks on two threads split by halves leave one thread
        // more chunks than the other.
        .with_max_len(1)
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

    /// The pairs closer than their radii plus the skin, by trying every pair.
    fn brute_force(setup: &Setup, skin: f64) -> Vec<(u32, u32)> {
        let x = &setup.position;
        let mut pairs = Vec::new();
        for i in 0..x.len() {
            for j in i + 1..x.len() {
                let d: f64 = (0..3)
                    .map(|k| (x[i][k] - x[j][k]).powi(2))
                    .sum::<f64>()
                    .sqrt();
                if d < setup.radius[i] + setup.radius[j] + skin {
                    pairs.push((i as u32, j as u32));
                }
            }
        }
        pairs
    }

    #[test]
    fn dense_grid_finds_what_brute_force_finds() {
        let parts = cloud(600);
        let setup = Setup::new(&parts).unwrap();
        let list = NeighbourList::new(&setup, &setup.position);
        assert!(list.cells.dense());
        let brute = brute_force(&setup, list.skin);
        let found: Vec<(u32, u32)> = list.contacts.iter().map(Contact::key).collect();
        assert!(brute.len() > 100);
        assert_eq!(found, brute);
    }

    #[test]
    fn hashed_buckets_find_what_brute_force_finds() {
        // Two spheres flung far off (one far beyond the grid's reach, one at the
        // opposite corner) make the box too large for a dense grid; a close pair of them
        // must still be found (the one inserted first shifts their ids by one).
        let mut parts = cloud(600);
        let far = |position| Sphere {
            position,
            velocity: None,
            radius: Some(0.03),
            mass: None,
        };
        let spheres = &mut parts.groups[0].spheres;
        spheres.push(far([1e7, -3e6, 2e5]));
        spheres.push(far([1e7 + 0.05, -3e6, 2e5]));
        spheres.insert(17, far([-4e5, 9e6, -1e6]));
        let setup = Setup::new(&parts).unwrap();
        let list = NeighbourList::new(&setup, &setup.position);
        assert!(!list.cells.dense());
        let brute = brute_force(&setup, list.skin);
        let found: Vec<(u32, u32)> = list.contacts.iter().map(Contact::key).collect();
        assert!(brute.contains(&(601, 602)));
        assert_eq!(found, brute);
    }
}
