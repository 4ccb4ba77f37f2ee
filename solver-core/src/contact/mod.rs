//! Penalty contact: the boundary the integrator calls. Once per increment `apply` finds
//! the face pairs of every contact (from candidate lists that a bucket grid search renews
//! only when a face leaves the box it was searched with), integrates them segment to
//! segment in parallel into private records, and sums the forces onto the nodes in face
//! order, so the same bits come out on any thread count; the node update adds them
//! (`add_forces_at`). Friction and damping act at the secondary nodes (on the mid-plane,
//! at both faces' nodes). Each contact keeps the energy its springs hold, what friction
//! and damping dissipated, and its report; rigid walls ride along (their impulses act
//! right after the position update, `hold_at_walls`).

mod friction;
mod initial;
mod node_to_face;
mod normal_sum;
pub mod penalty;
pub mod search;
pub mod segment;
pub mod surface;
pub mod walls;

pub use initial::settle as settle_initial_penetrations;
pub use surface::ContactPair;
pub use walls::Walls;

use crate::assembly::Assembly;
use crate::hex8::{cross, dot, norm, sub};
use impact_protocol::{AdjustedNode, ContactReport, Model, PairIntegration};
use normal_sum::NormalSum;
use rayon::prelude::*;
use search::{Aabb, Grid};
use segment::{Clipping, FaceGeometry, PairForce, Secondary};

/// Below this many faces a parallel task costs more than the work it carries.
const MIN_FACES_PER_TASK: usize = 128;

/// The faces of one task of the search and the pairs' integration. A face integrates some
/// 16 000 instructions of pairs an increment where it is pressed, so a task of 32 is
/// large against rayon's cost. On the mid-plane only the secondary set integrates: the
/// block's 625 faces make 20 tasks, enough for two threads to share evenly, where 128
/// made five.
const FACES_PER_PAIR_TASK: usize = 32;

/// One secondary face pressed by one main face in one increment.
#[derive(Clone, Copy, Debug)]
struct PairRecord {
    secondary: u32,
    main: u32,
    /// The unit normal the pair was integrated along (the secondary face's, or the plane
    /// between the faces' on the mid-plane): the main face is pushed along it.
    normal: [f64; 3],
    force: PairForce,
}

/// A face's box grows by this fraction of its largest extent (on every side) for the
/// search: the candidate lists then hold until some face leaves its grown box. A tenth
/// keeps the lists short and lets a face move a tenth of its box's size first: at a stable
/// increment a node moves a small fraction of an element an increment, so the lists last
/// hundreds of increments (the Hertz spheres search once in a whole impact).
const SEARCH_SKIN: f64 = 0.1;

/// One task's share of the face pairs: the candidate lists of its faces from the last
/// search, and the pairs they pressed in this increment, in face order. Kept between
/// increments, so that they allocate nothing once warm.
#[derive(Clone, Debug, Default)]
struct Chunk {
    records: Vec<PairRecord>,
    /// The candidates of the chunk's k-th face are `candidates[first[k]..first[k + 1]]`,
    /// ascending: the faces whose search boxes overlapped its own and that may touch it.
    first: Vec<u32>,
    candidates: Vec<u32>,
    /// The grid query's output, before the topology filter.
    found: Vec<u32>,
}

/// Per-node scratch of the assembly, zeroed each increment, kept between increments.
#[derive(Clone, Debug, Default)]
struct NodeScratch {
    pressed: Vec<f64>,
    direction: Vec<[f64; 3]>,
    partner: Vec<[f64; 3]>,
    tangential_force: Vec<[f64; 3]>,
    damping_force: Vec<[f64; 3]>,
}

impl NodeScratch {
    fn clear(&mut self, n: usize) {
        self.pressed.clear();
        self.pressed.resize(n, 0.0);
        for v in [
            &mut self.direction,
            &mut self.partner,
            &mut self.tangential_force,
            &mut self.damping_force,
        ] {
            v.clear();
            v.resize(n, [0.0; 3]);
        }
    }
}

/// Nodal forces of one kind at the end of the last increment and of this one.
#[derive(Clone, Debug)]
struct Forces {
    previous: Vec<[f64; 3]>,
    current: Vec<[f64; 3]>,
}

impl Forces {
    fn new(n: usize) -> Self {
        Forces {
            previous: vec![[0.0; 3]; n],
            current: vec![[0.0; 3]; n],
        }
    }

    fn start(&mut self) {
        self.turn();
        self.current.iter_mut().for_each(|f| *f = [0.0; 3]);
    }

    /// This increment's forces become the last's; `current` keeps stale values, for a
    /// caller that writes every node's.
    fn turn(&mut self) {
        std::mem::swap(&mut self.previous, &mut self.current);
    }

    /// Trapezoidal work over the increment of the nodes `nodes` moving at `v` for `dt`.
    fn work(&self, nodes: &[u32], v: &[[f64; 3]], dt: f64) -> f64 {
        let mut w = 0.0;
        for (i, &n) in nodes.iter().enumerate() {
            let (a, b, vn) = (self.previous[i], self.current[i], v[n as usize]);
            for k in 0..3 {
                w += 0.5 * (a[k] + b[k]) * vn[k] * dt;
            }
        }
        w
    }
}

/// The running state of one contact.
#[derive(Clone, Debug)]
struct Interface {
    pair: ContactPair,
    /// Local index of each global node (u32::MAX when not a node of this contact).
    slot: Vec<u32>,
    /// Each face's corners as local slots (`slot` of its nodes), made once: the sums at
    /// the nodes index by them without a lookup in `slot` per corner and record.
    local_faces: Vec<[u32; 4]>,
    mass: Vec<f64>,
    /// Each node's tributary area on the contact surface (reference configuration).
    area: Vec<f64>,
    /// Each node's penalty per area for one direction, from the first increment.
    node_penalty: Vec<f64>,
    /// The smallest of its nodes' penalty and of their m/A, per face.
    face_penalty: Vec<f64>,
    face_m_over_a: Vec<f64>,
    normal: Forces,
    friction: Forces,
    damping: Forces,
    /// The tangential (friction) force at each node as a secondary one.
    tangential: Vec<[f64; 3]>,
    stored_energy: f64,
    friction_dissipation: f64,
    damping_dissipation: f64,
    peak_force: f64,
    first_contact: Option<f64>,
    last_contact: Option<f64>,
    max_penetration: f64,
    adjusted: Vec<AdjustedNode>,
    /// This increment's faces in the current configuration and their boxes, the search
    /// grid over the grown boxes of the last search, the candidates and the pairs found
    /// (by chunks of `FACES_PER_PAIR_TASK` faces, in face order) and the assembly's
    /// scratch: storage kept between increments.
    geometry: Vec<FaceGeometry>,
    boxes: Vec<Aabb>,
    grid: Grid,
    /// How many times the candidate lists were searched anew.
    searches: u64,
    chunks: Vec<Chunk>,
    normal_sum: NormalSum,
    scratch: NodeScratch,
}

/// Every contact of the model and the rigid walls, with the state they keep.
#[derive(Clone, Debug)]
pub struct Contacts {
    interfaces: Vec<Interface>,
    walls: Walls,
    time_step_scale: f64,
    /// The total normal force of each contact, then each wall, in the last increment.
    last_forces: Vec<f64>,
    /// Per global node: the force all contacts applied to it in the last increment
    /// (normal, friction and damping), and its normal part (springs and damping). Empty
    /// without contacts; allocated once, only the contacts' nodes are touched.
    nodal_force: Vec<[f64; 3]>,
    nodal_normal: Vec<[f64; 3]>,
    /// Per global node: its tributary contact area, a quarter of each distinct face of
    /// every contact surface it belongs to (reference configuration).
    nodal_area: Vec<f64>,
    /// Per global node: whether some contact has it. The node pass asks this of every
    /// node, one load, before it walks the contacts' slot tables (most nodes are in none).
    in_contact: Vec<bool>,
}

impl Contacts {
    /// `dt0` is the stable increment at the start (it sets the penalty), `adjusted` what
    /// the initial-penetration pass moved.
    pub fn new(
        model: &Model,
        asm: &Assembly,
        dt0: f64,
        time_step_scale: f64,
        adjusted: Vec<Vec<AdjustedNode>>,
    ) -> Self {
        let mut adjusted = adjusted.into_iter();
        let interfaces: Vec<Interface> = asm
            .contacts
            .iter()
            .map(|pair| {
                Interface::new(
                    pair.clone(),
                    asm,
                    dt0,
                    time_step_scale,
                    model.controls.bulk_viscosity.linear,
                    adjusted.next().unwrap_or_default(),
                )
            })
            .collect();
        let walls = Walls::new(model, asm);
        let nodal_area = tributary_areas(asm, &interfaces);
        let nn = nodal_area.len();
        let nodes = if interfaces.is_empty() {
            0
        } else {
            asm.reference.len()
        };
        let mut in_contact = vec![false; nodes];
        for &n in interfaces.iter().flat_map(|it| &it.pair.nodes) {
            in_contact[n as usize] = true;
        }
        Contacts {
            in_contact,
            last_forces: vec![0.0; interfaces.len() + walls.len()],
            nodal_force: vec![[0.0; 3]; nn],
            nodal_normal: vec![[0.0; 3]; nn],
            nodal_area,
            interfaces,
            walls,
            time_step_scale,
        }
    }

    /// How many reports (contacts, then walls) the solve gives.
    pub fn count(&self) -> usize {
        self.last_forces.len()
    }

    pub fn is_empty(&self) -> bool {
        self.interfaces.is_empty() && self.walls.is_empty()
    }

    /// Every node a contact or a wall acts on (with repeats): their forces and impulses
    /// are sized for one increment, so subcycling keeps these nodes at its finest level.
    pub fn acted_on(&self) -> impl Iterator<Item = u32> + '_ {
        self.interfaces
            .iter()
            .flat_map(|it| it.pair.nodes.iter().copied())
            .chain(self.walls.nodes())
    }

    /// The walls' impulses, right after the position update: `x` at `time`, `v` the
    /// velocities over the increment (both corrected in place), `a` the accelerations at
    /// its start.
    #[allow(clippy::too_many_arguments)]
    pub fn hold_at_walls(
        &mut self,
        x: &mut [[f64; 3]],
        v: &mut [[f64; 3]],
        a: &[[f64; 3]],
        mass: &[f64],
        fixed: &[[bool; 3]],
        dt: f64,
        time: f64,
    ) {
        if self.walls.is_empty() {
            return;
        }
        self.walls.apply(x, v, a, mass, fixed, dt, time);
        let n = self.interfaces.len();
        for (slot, f) in self.last_forces[n..]
            .iter_mut()
            .zip(self.walls.last_forces())
        {
            *slot = f;
        }
    }

    /// The contact forces at positions `x` (end of the increment), for `add_forces_at` to
    /// add node by node, and the work done over the increment whose velocities were `v`.
    pub fn apply(&mut self, x: &[[f64; 3]], v: &[[f64; 3]], dt: f64, time: f64) {
        // Clear every contact's nodes first: a node may belong to several contacts.
        for it in &self.interfaces {
            for &n in &it.pair.nodes {
                self.nodal_force[n as usize] = [0.0; 3];
                self.nodal_normal[n as usize] = [0.0; 3];
            }
        }
        for (i, it) in self.interfaces.iter_mut().enumerate() {
            self.last_forces[i] = it.apply(
                x,
                v,
                dt,
                time,
                self.time_step_scale,
                (&mut self.nodal_force, &mut self.nodal_normal),
            );
        }
    }

    /// Add the last increment's contact forces on global node `n` into `f`: each
    /// contact's normal, friction and damping force in turn, in contact order (so the
    /// node update adds them as they were added to an assembled force before).
    #[inline]
    pub fn add_forces_at(&self, n: usize, f: &mut [f64; 3]) {
        if !self.in_contact.get(n).copied().unwrap_or(false) {
            return;
        }
        for it in &self.interfaces {
            let Some(&la) = it.slot.get(n) else { continue };
            if la == u32::MAX {
                continue;
            }
            let la = la as usize;
            let (fn_, ff, fd) = (
                it.normal.current[la],
                it.friction.current[la],
                it.damping.current[la],
            );
            for k in 0..3 {
                f[k] += fn_[k] + ff[k] + fd[k];
            }
        }
    }

    /// Each node's contact force in the last increment (the sum over the contacts of the
    /// normal, friction and damping forces they applied to it; rigid walls, which act by
    /// impulses, not included); `n` zeros for a model without contacts.
    pub fn nodal_forces(&self, n: usize) -> Vec<[f64; 3]> {
        if self.nodal_force.is_empty() {
            vec![[0.0; 3]; n]
        } else {
            self.nodal_force.clone()
        }
    }

    /// Each node's contact pressure in the last increment: the magnitude of the normal
    /// part of its contact force (springs and damping, summed over the contacts) over its
    /// tributary contact area; 0 off the contact surfaces. `n` zeros without contacts.
    pub fn nodal_pressures(&self, n: usize) -> Vec<f64> {
        if self.nodal_area.is_empty() {
            return vec![0.0; n];
        }
        self.nodal_normal
            .iter()
            .zip(self.nodal_area.iter())
            .map(|(f, &a)| if a > 0.0 { norm(*f) / a } else { 0.0 })
            .collect()
    }

    /// What the contact springs hold now.
    pub fn stored_energy(&self) -> f64 {
        self.interfaces.iter().map(|i| i.stored_energy).sum()
    }

    /// What friction has dissipated, in contacts and on walls.
    pub fn friction_dissipation(&self) -> f64 {
        self.interfaces
            .iter()
            .map(|i| i.friction_dissipation)
            .sum::<f64>()
            + self.walls.friction_dissipation()
    }

    /// What contact damping has dissipated.
    pub fn damping_dissipation(&self) -> f64 {
        self.interfaces.iter().map(|i| i.damping_dissipation).sum()
    }

    /// The work the rigid walls did on the parts.
    pub fn wall_work(&self) -> f64 {
        self.walls.external_work()
    }

    /// The total normal force of each contact, then each wall, in the last increment.
    pub fn last_forces(&self) -> &[f64] {
        &self.last_forces
    }

    /// One report per contact, then one per wall.
    pub fn reports(&self) -> Vec<ContactReport> {
        self.interfaces
            .iter()
            .map(|i| ContactReport {
                name: i.pair.name.clone(),
                peak_force: i.peak_force,
                first_contact: i.first_contact,
                last_contact: i.last_contact,
                max_penetration: i.max_penetration,
                friction_dissipation: i.friction_dissipation,
                adjusted_nodes: i.adjusted.clone(),
            })
            .chain(self.walls.reports())
            .collect()
    }
}

/// Each global node's tributary contact area: a quarter of the reference area of every
/// distinct face (by its nodes) of every contact surface, so a face two contacts share
/// counts once. Empty when the model has no contacts.
fn tributary_areas(asm: &Assembly, interfaces: &[Interface]) -> Vec<f64> {
    if interfaces.iter().all(|it| it.pair.faces.is_empty()) {
        return Vec::new();
    }
    let mut area = vec![0.0; asm.reference.len()];
    let mut seen = std::collections::HashSet::new();
    for it in interfaces {
        for f in &it.pair.faces {
            let mut key = *f;
            key.sort_unstable();
            if !seen.insert(key) {
                continue;
            }
            let a = reference_area(&asm.reference, f);
            for &n in f {
                area[n as usize] += 0.25 * a;
            }
        }
    }
    area
}

/// A quad face's reference area: half the cross product of its diagonals (exact for a
/// planar quad, the mean projected area of a warped one).
fn reference_area(reference: &[[f64; 3]], face: &[u32; 4]) -> f64 {
    let c = face.map(|n| reference[n as usize]);
    0.5 * norm(cross(sub(c[2], c[0]), sub(c[3], c[1])))
}

/// A contact's faces in this increment's configuration, with their penalties.
struct FacesNow<'a> {
    pair: &'a ContactPair,
    geometry: &'a [FaceGeometry],
    face_penalty: &'a [f64],
    face_m_over_a: &'a [f64],
}

impl FacesNow<'_> {
    /// Make `sec` ready for face `i`'s pair with face `j` and give the normal its record
    /// carries, or None when the pair cannot press. Both ways, face `i`'s own plane serves
    /// all its pairs: made at its first pair of the increment (`made` is None until then,
    /// then whether the face has a plane). On the plane between the faces
    /// (`segment::between`), once per pair.
    fn plane(
        &self,
        sec: &mut Secondary,
        made: &mut Option<bool>,
        i: usize,
        j: usize,
    ) -> Option<[f64; 3]> {
        let gi = &self.geometry[i];
        match self.pair.integration {
            PairIntegration::BothWays => {
                (*made.get_or_insert_with(|| sec.prepare(gi))).then_some(gi.normal)
            }
            PairIntegration::MidPlane => {
                let (origin, normal) = segment::between(gi, &self.geometry[j])?;
                sec.prepare_in(gi, origin, normal).then_some(normal)
            }
        }
    }

    /// How face `i` (made ready as `sec`, its record's normal `normal`, by `plane`) and
    /// face `j` press on each other now: their record, face `i` its secondary face, is
    /// added to `records` if they do. The penalty is the lesser of the two faces' and of
    /// the room the increment leaves, each a direction's share (`penalty::GAMMA`): once
    /// for a pair integrated both ways, for both directions at once on the plane between.
    #[allow(clippy::too_many_arguments)]
    fn press(
        &self,
        sec: &Secondary,
        normal: [f64; 3],
        i: usize,
        j: usize,
        dt: f64,
        time_step_scale: f64,
        clipping: &mut Clipping,
        records: &mut Vec<PairRecord>,
    ) {
        let share = self.face_penalty[i]
            .min(self.face_penalty[j])
            .min(penalty::room(
                self.face_m_over_a[i].min(self.face_m_over_a[j]),
                dt,
                time_step_scale,
            ));
        let eps = match self.pair.integration {
            PairIntegration::BothWays => share,
            PairIntegration::MidPlane => share / penalty::GAMMA,
        };
        let depth = self.pair.depth_limit[i].min(self.pair.depth_limit[j]);
        // The record is made in its place in the list and filled there (or taken back):
        // made on the stack and moved in, its force went through three copies.
        records.push(PairRecord {
            secondary: i as u32,
            main: j as u32,
            normal,
            force: PairForce::default(),
        });
        let pressed = match records.last_mut() {
            Some(r) => sec.integrate_into(&self.geometry[j], eps, depth, clipping, &mut r.force),
            None => false,
        };
        if !pressed {
            records.pop();
        }
    }
}

/// How friction and damping read a pressed pair's record: as the return map of the
/// secondary face's nodes against the main face, with the normal out of the secondary
/// face and the coupling between their corners (rows the secondary face's).
#[derive(Clone, Copy)]
enum Reading {
    /// As integrated: both ways, the record is one direction of its pair.
    Whole,
    /// On the plane between the faces the record is both directions. Each face's nodes
    /// keep their own return map against the other face, at half the coupling (the share
    /// one direction of a contact run both ways gives them), the normal out of their face.
    FromSecondary,
    FromMain,
}

impl Reading {
    /// The readings of every record of a contact integrated so.
    fn of_contact(integration: PairIntegration) -> &'static [Reading] {
        match integration {
            PairIntegration::BothWays => &[Reading::Whole],
            PairIntegration::MidPlane => &[Reading::FromSecondary, Reading::FromMain],
        }
    }

    /// This reading's secondary face, main face, normal, and coupling.
    fn of(self, r: &PairRecord) -> (usize, usize, [f64; 3], [[f64; 4]; 4]) {
        let (sec, main, c) = (r.secondary as usize, r.main as usize, &r.force.coupling);
        match self {
            Reading::Whole => (sec, main, r.normal, *c),
            Reading::FromSecondary => (sec, main, r.normal, c.map(|row| row.map(|v| 0.5 * v))),
            Reading::FromMain => (
                main,
                sec,
                r.normal.map(|v| -v),
                std::array::from_fn(|a| std::array::from_fn(|b| 0.5 * c[b][a])),
            ),
        }
    }
}

impl Interface {
    fn new(
        pair: ContactPair,
        asm: &Assembly,
        dt0: f64,
        time_step_scale: f64,
        bulk_linear: f64,
        adjusted: Vec<AdjustedNode>,
    ) -> Self {
        let nn = pair.nodes.len();
        let mut slot = vec![u32::MAX; if nn == 0 { 0 } else { asm.reference.len() }];
        for (i, &n) in pair.nodes.iter().enumerate() {
            slot[n as usize] = i as u32;
        }
        let mut area = vec![0.0; nn];
        for f in &pair.faces {
            let a = reference_area(&asm.reference, f);
            for &n in f {
                area[slot[n as usize] as usize] += 0.25 * a;
            }
        }
        let mass: Vec<f64> = pair.nodes.iter().map(|&n| asm.mass[n as usize]).collect();
        let m_over_a: Vec<f64> = mass
            .iter()
            .zip(area.iter())
            .map(|(m, a)| if *a > 0.0 { m / a } else { f64::INFINITY })
            .collect();
        let widest = penalty::widest_increment(dt0, bulk_linear);
        let node_penalty: Vec<f64> = m_over_a
            .iter()
            .map(|&r| penalty::per_area(pair.penalty_scale, r, dt0, widest, time_step_scale))
            .collect();
        let per_face = |values: &[f64]| -> Vec<f64> {
            pair.faces
                .iter()
                .map(|f| {
                    f.iter()
                        .map(|&n| values[slot[n as usize] as usize])
                        .fold(f64::INFINITY, f64::min)
                })
                .collect()
        };
        let face_penalty = per_face(&node_penalty);
        let face_m_over_a = per_face(&m_over_a);
        Interface {
            local_faces: pair
                .faces
                .iter()
                .map(|f| f.map(|n| slot[n as usize]))
                .collect(),
            slot,
            mass,
            area,
            node_penalty,
            face_penalty,
            face_m_over_a,
            normal: Forces::new(nn),
            friction: Forces::new(nn),
            damping: Forces::new(nn),
            tangential: vec![[0.0; 3]; nn],
            stored_energy: 0.0,
            friction_dissipation: 0.0,
            damping_dissipation: 0.0,
            peak_force: 0.0,
            first_contact: None,
            last_contact: None,
            max_penetration: 0.0,
            adjusted,
            geometry: Vec::new(),
            boxes: Vec::new(),
            grid: Grid::default(),
            searches: 0,
            chunks: Vec::new(),
            normal_sum: NormalSum::default(),
            scratch: NodeScratch::default(),
            pair,
        }
    }

    /// Find and integrate the face pairs in parallel, in face order: each chunk of
    /// `FACES_PER_PAIR_TASK` integrating faces fills its own records, read back chunk by
    /// chunk.
    /// The pairs are those a search of the current boxes would find: every face's box lies
    /// inside the grown box it was last searched with (or the search runs anew), so two
    /// boxes that overlap now overlapped then and are in the candidate lists, in the same
    /// ascending order as the grid's answer.
    fn find_pairs(&mut self, x: &[[f64; 3]], dt: f64, time_step_scale: f64) {
        let pair = &self.pair;
        let nf = pair.faces.len();
        self.geometry.resize(nf, FaceGeometry::default());
        self.boxes.resize(nf, ([0.0; 3], [0.0; 3]));
        // Each face's box is tested against the box it was searched with as it is made: a
        // second pass over both sets of boxes cost a tenth to a fifth of this one's time.
        // A reduction, not `any`: `any` may stop early, and every face's geometry is needed.
        let searched = self.grid.boxes();
        let all_searched = searched.len() == nf;
        let stale = self
            .geometry
            .par_iter_mut()
            .zip(self.boxes.par_iter_mut())
            .zip(pair.faces.par_iter())
            .zip(pair.depth_limit.par_iter())
            .enumerate()
            .with_min_len(MIN_FACES_PER_TASK)
            .map(|(i, (((g, b), f), &d))| {
                *g = FaceGeometry::new(f.map(|n| x[n as usize]));
                *b = search::prism_box(&g.corners, g.normal, d);
                !all_searched || !search::contains(&searched[i], b)
            })
            .reduce(|| false, |a, b| a || b);
        let ni = pair.integrating_faces();
        self.chunks
            .resize_with(ni.div_ceil(FACES_PER_PAIR_TASK), Chunk::default);
        if stale {
            self.search(ni);
        }
        let boxes = &self.boxes;
        let faces_now = FacesNow {
            pair: &self.pair,
            geometry: &self.geometry,
            face_penalty: &self.face_penalty,
            face_m_over_a: &self.face_m_over_a,
        };
        self.chunks
            .par_iter_mut()
            .enumerate()
            .for_each(|(c, chunk)| {
                chunk.records.clear();
                let mut clipping = Clipping::default();
                let mut secondary = Secondary::EMPTY;
                let faces = c * FACES_PER_PAIR_TASK..((c + 1) * FACES_PER_PAIR_TASK).min(ni);
                for (k, i) in faces.enumerate() {
                    let listed = chunk.first[k] as usize..chunk.first[k + 1] as usize;
                    let mut made = None;
                    for &j in &chunk.candidates[listed] {
                        let j = j as usize;
                        if !search::overlap(&boxes[i], &boxes[j]) {
                            continue;
                        }
                        if let Some(normal) = faces_now.plane(&mut secondary, &mut made, i, j) {
                            faces_now.press(
                                &secondary,
                                normal,
                                i,
                                j,
                                dt,
                                time_step_scale,
                                &mut clipping,
                                &mut chunk.records,
                            );
                        }
                    }
                }
            });
    }

    /// Search the current boxes, grown by `SEARCH_SKIN`, into the chunks' candidate lists
    /// of the first `ni` faces, those that integrate pairs.
    fn search(&mut self, ni: usize) {
        self.searches += 1;
        let pair = &self.pair;
        let nf = pair.faces.len();
        let grown = self.grid.boxes_mut();
        grown.resize(nf, ([0.0; 3], [0.0; 3]));
        grown
            .par_iter_mut()
            .zip(self.boxes.par_iter())
            .with_min_len(MIN_FACES_PER_TASK)
            .for_each(|(g, b)| *g = search::grow(b, SEARCH_SKIN));
        self.grid.rebuild();
        let grid = &self.grid;
        self.chunks
            .par_iter_mut()
            .enumerate()
            .for_each(|(c, chunk)| {
                chunk.first.clear();
                chunk.candidates.clear();
                let faces = c * FACES_PER_PAIR_TASK..((c + 1) * FACES_PER_PAIR_TASK).min(ni);
                for i in faces {
                    chunk.first.push(chunk.candidates.len() as u32);
                    // Only the pairs face i integrates (`ContactPair::integrates`): the
                    // cheap part in the grid's query, the topology after it.
                    grid.query_where(&grid.boxes()[i], &mut chunk.found, |e| {
                        pair.listed(i, e as usize)
                    });
                    chunk.candidates.extend(
                        chunk
                            .found
                            .iter()
                            .copied()
                            .filter(|&j| pair.may_touch(i, j as usize)),
                    );
                }
                chunk.first.push(chunk.candidates.len() as u32);
            });
    }

    /// One increment of this contact; returns its total normal force. Its nodal forces
    /// are added to `nodal.0`, and their normal part to `nodal.1`.
    #[allow(clippy::too_many_arguments)]
    fn apply(
        &mut self,
        x: &[[f64; 3]],
        v: &[[f64; 3]],
        dt: f64,
        time: f64,
        time_step_scale: f64,
        nodal: (&mut [[f64; 3]], &mut [[f64; 3]]),
    ) -> f64 {
        if self.pair.faces.is_empty() {
            return 0.0;
        }
        self.find_pairs(x, dt, time_step_scale);
        // Without friction and damping their forces stay zero, as they started: the
        // passes over every node of the surface that keep them are skipped.
        let law = self.pair.friction;
        let zeta = self.pair.damping;
        let tangential = law.is_some() || zeta > 0.0;
        let readings = Reading::of_contact(self.pair.integration);
        // `normal_sum` below writes every node's normal force: nothing to zero first.
        self.normal.turn();
        let nn = self.pair.nodes.len();
        if tangential {
            self.friction.start();
            self.damping.start();
            // Per secondary node: its normal force, the direction, and the force-weighted
            // velocity of the main surface under it; then the friction and damping forces.
            self.scratch.clear(nn);
        }
        let NodeScratch {
            pressed,
            direction,
            partner,
            tangential_force,
            damping_force,
        } = &mut self.scratch;
        // The normal forces, each node's in face order within each of a fixed number of
        // parts of the records, the parts summed in order.
        let (total, deepest) =
            self.normal_sum
                .write(&self.chunks, &self.local_faces, &mut self.normal.current);
        if tangential {
            for r in self.chunks.iter().flat_map(|c| &c.records) {
                for &view in readings {
                    let (secondary, main, n, c) = view.of(r);
                    let (ls, fm) = (&self.local_faces[secondary], &self.pair.faces[main]);
                    for a in 0..4 {
                        let la = ls[a] as usize;
                        let row: f64 = c[a].iter().sum();
                        pressed[la] += row;
                        for (d, nk) in direction[la].iter_mut().zip(n.iter()) {
                            *d += row * nk;
                        }
                        for (cc, &m) in fm.iter().enumerate() {
                            let vm = v[m as usize];
                            for k in 0..3 {
                                partner[la][k] += c[a][cc] * vm[k];
                            }
                        }
                    }
                }
            }
        }

        // Friction and damping at the secondary nodes.
        if tangential {
            for la in 0..nn {
                if pressed[la] <= 0.0 {
                    self.tangential[la] = [0.0; 3];
                    continue;
                }
                let len = norm(direction[la]);
                let nhat = direction[la].map(|d| d / len);
                let va = v[self.pair.nodes[la] as usize];
                let rel = [
                    va[0] - partner[la][0] / pressed[la],
                    va[1] - partner[la][1] / pressed[la],
                    va[2] - partner[la][2] / pressed[la],
                ];
                let stiffness = self.node_penalty[la] * self.area[la];
                // The damping's normal force: it opposes the approach, and on separation
                // it may pull, but never more than the springs push.
                let mut damped = 0.0;
                if zeta > 0.0 {
                    let c = zeta * (2.0 * stiffness * self.mass[la]).sqrt();
                    damped = (c * dot(rel, nhat)).max(-pressed[la]);
                    damping_force[la] = nhat.map(|d| -damped * d);
                }
                if let Some(law) = &law {
                    // Coulomb's limit on the whole normal force, springs and damping: with
                    // the springs' alone, the damping that carries the load while a body
                    // settles would let it slide free of friction.
                    let f = friction::return_map(
                        law,
                        self.tangential[la],
                        nhat,
                        rel.map(|r| r * dt),
                        dt,
                        stiffness,
                        pressed[la] + damped,
                    );
                    self.tangential[la] = f;
                    tangential_force[la] = f;
                }
            }
            for r in self.chunks.iter().flat_map(|c| &c.records) {
                for &view in readings {
                    let (secondary, main, _, c) = view.of(r);
                    let (ls, lm) = (&self.local_faces[secondary], &self.local_faces[main]);
                    for (a, &la) in ls.iter().enumerate() {
                        let la = la as usize;
                        if pressed[la] <= 0.0 {
                            continue;
                        }
                        for (cc, &lc) in lm.iter().enumerate() {
                            let lc = lc as usize;
                            let share = c[a][cc] / pressed[la];
                            for k in 0..3 {
                                self.friction.current[lc][k] -= share * tangential_force[la][k];
                                self.damping.current[lc][k] -= share * damping_force[la][k];
                            }
                        }
                    }
                }
            }
            for la in 0..nn {
                for k in 0..3 {
                    self.friction.current[la][k] += tangential_force[la][k];
                    self.damping.current[la][k] += damping_force[la][k];
                }
            }
        }

        // Trapezoidal work over the increment: the springs hold minus the normal forces'
        // work; friction and damping dissipate minus theirs.
        let nodes = &self.pair.nodes;
        self.stored_energy -= self.normal.work(nodes, v, dt);
        if tangential {
            self.friction_dissipation -= self.friction.work(nodes, v, dt);
            self.damping_dissipation -= self.damping.work(nodes, v, dt);
        }
        for (i, &n) in nodes.iter().enumerate() {
            let (fn_, ff, fd) = (
                self.normal.current[i],
                self.friction.current[i],
                self.damping.current[i],
            );
            let n = n as usize;
            for k in 0..3 {
                nodal.0[n][k] += fn_[k] + ff[k] + fd[k];
                nodal.1[n][k] += fn_[k] + fd[k];
            }
        }

        if total > 0.0 {
            self.peak_force = self.peak_force.max(total);
            self.first_contact.get_or_insert(time);
            self.last_contact = Some(time);
        }
        self.max_penetration = self.max_penetration.max(deepest);
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assembly::assemble;
    use impact_protocol::SolveParams;

    /// Two plates, the upper sunk into the lower, on non-matching meshes.
    fn plates() -> Model {
        let json = serde_json::json!({"model": {
            "materials": [{"name": "m", "E": 100.0, "nu": 0.0, "rho": 0.01}],
            "parts": [
                {"name": "low", "material": "m", "mesh": {"generate": {"kind": "block",
                    "origin": [0, 0, 0], "size": [1, 1, 0.1], "nx": 8, "ny": 8, "nz": 1}}},
                {"name": "high", "material": "m", "mesh": {"generate": {"kind": "block",
                    "origin": [0.2, 0.2, 0.099], "size": [0.6, 0.6, 0.1], "nx": 5, "ny": 5, "nz": 1}}}
            ],
            "contacts": [{"name": "c", "secondary": {"part": "high", "set": "zmin"},
                          "main": {"part": "low", "set": "zmax"}}],
            "steps": [{"name": "s", "duration": 1.0, "output_interval": 1.0}]
        }});
        let p: SolveParams = serde_json::from_value(json).expect("the test model parses");
        p.model
    }

    /// The plates, their pairs integrated so.
    fn plates_integrated(integration: PairIntegration) -> Model {
        let mut m = plates();
        m.contacts[0].integration = integration;
        m
    }

    /// The plates with the two face sets swapped: the lower plate's top as the secondary.
    fn plates_swapped(integration: PairIntegration) -> Model {
        let mut m = plates_integrated(integration);
        let c = &mut m.contacts[0];
        std::mem::swap(&mut c.secondary, &mut c.main);
        m
    }

    /// The plates parallel, 1e-3 apart in depth and shifted off the mesh's lines.
    fn parallel(p: [f64; 3]) -> [f64; 3] {
        [p[0] + 0.013, p[1] + 0.007, p[2] - 1e-3]
    }

    /// The upper plate tilted by 2e-3 about y.
    fn tilted(p: [f64; 3]) -> [f64; 3] {
        [p[0], p[1], p[2] - 1e-3 + 2e-3 * (p[0] - 0.5)]
    }

    /// Each node's contact force with the plates' upper one moved by `place`, and the upper
    /// plate's share of the upward force.
    fn forces_on_plates(
        model: &Model,
        place: impl Fn([f64; 3]) -> [f64; 3],
    ) -> (Vec<[f64; 3]>, f64) {
        let asm = assemble(model).expect("assembles");
        let mut contacts = Contacts::new(model, &asm, 1e-3, 0.9, vec![Vec::new()]);
        let upper = &asm.parts[1];
        let high = upper.node_offset as usize..(upper.node_offset + upper.node_count) as usize;
        let x: Vec<[f64; 3]> = asm
            .reference
            .iter()
            .enumerate()
            .map(|(i, p)| if high.contains(&i) { place(*p) } else { *p })
            .collect();
        let v = vec![[0.0; 3]; x.len()];
        contacts.apply(&x, &v, 1e-3, 0.0);
        let f = contacts.nodal_forces(x.len());
        let up = f[high].iter().map(|f| f[2]).sum();
        (f, up)
    }

    /// Both ways the pairs are integrated from each face, on the plane between them once:
    /// neither prefers a set, so which set is the secondary one does not matter. Where the
    /// plates are parallel the pressure is uniform and the rule exact, and every node's
    /// force is the same to rounding. Tilted, the rule sums the pressure (linear) exactly,
    /// so the total is the same to rounding, while the node's shares differ by the rule's
    /// error on the two fans of triangles.
    #[test]
    fn swapping_the_secondary_and_main_sets_gives_the_same_forces() {
        for integration in PairIntegration::ALL {
            for (what, place) in [("parallel", parallel as fn(_) -> _), ("tilted", tilted)] {
                let uniform = what == "parallel";
                let (a, up_a) = forces_on_plates(&plates_integrated(integration), place);
                let (b, up_b) = forces_on_plates(&plates_swapped(integration), place);
                let what = format!("{integration:?}, {what}");
                assert!(up_a > 0.0, "{what}: the plates press");
                // Rounding in sums over some thousand integration points.
                let rounding = 1e-12 * up_a;
                assert!(
                    (up_a - up_b).abs() <= rounding,
                    "{what}: {up_a} against {up_b}"
                );
                if uniform {
                    same_forces(&a, &b, rounding, &what);
                }
            }
        }
    }

    fn same_forces(a: &[[f64; 3]], b: &[[f64; 3]], tolerance: f64, what: &str) {
        for (n, (fa, fb)) in a.iter().zip(b).enumerate() {
            for k in 0..3 {
                assert!(
                    (fa[k] - fb[k]).abs() <= tolerance,
                    "{what}, node {n}: {fa:?} {fb:?}"
                );
            }
        }
    }

    /// On parallel faces the plane between them is each face's plane, and the whole
    /// penalty once gives what half of it gives from each side: every node's force the
    /// same to rounding. Tilted by theta = 2e-3, the gap is measured along normals that
    /// differ by theta / 2 and over areas projected on planes that do: the totals differ
    /// at order theta^2 = 4e-6 (5e-7 measured), under 1e-5 of the force; a difference of order
    /// theta (2e-3) would fail.
    #[test]
    fn the_plane_between_gives_what_both_ways_give() {
        let (a, up_a) = forces_on_plates(&plates_integrated(PairIntegration::BothWays), parallel);
        let (b, up_b) = forces_on_plates(&plates_integrated(PairIntegration::MidPlane), parallel);
        assert!(up_a > 0.0, "the plates press");
        same_forces(&a, &b, 1e-12 * up_a, "parallel");
        assert!((up_a - up_b).abs() <= 1e-12 * up_a, "{up_a} against {up_b}");
        let (_, up_a) = forces_on_plates(&plates_integrated(PairIntegration::BothWays), tilted);
        let (_, up_b) = forces_on_plates(&plates_integrated(PairIntegration::MidPlane), tilted);
        assert!(
            (up_a - up_b).abs() <= 1e-5 * up_a,
            "tilted: {up_a} both ways against {up_b} on the plane between"
        );
    }

    /// What a search of every pair of faces finds now: the pairs, in face order.
    fn every_pair(it: &Interface, dt: f64, scale: f64) -> Vec<(u32, u32, f64)> {
        let faces_now = FacesNow {
            pair: &it.pair,
            geometry: &it.geometry,
            face_penalty: &it.face_penalty,
            face_m_over_a: &it.face_m_over_a,
        };
        let nf = it.pair.faces.len();
        let mut found = Vec::new();
        for i in 0..nf {
            for j in 0..nf {
                // Fresh scratch for every pair: the lists' loop keeps one per chunk of faces.
                if it.pair.integrates(i, j) && search::overlap(&it.boxes[i], &it.boxes[j]) {
                    let (mut sec, mut clipping) = (Secondary::EMPTY, Clipping::default());
                    if let Some(n) = faces_now.plane(&mut sec, &mut None, i, j) {
                        faces_now.press(&sec, n, i, j, dt, scale, &mut clipping, &mut found);
                    }
                }
            }
        }
        found
            .iter()
            .map(|r| (r.secondary, r.main, r.force.total()))
            .collect()
    }

    /// The candidate lists give, increment by increment, exactly the pairs (and the bits)
    /// that a search of every face pair gives, while the upper plate slides, sinks and
    /// tilts across the lower one; and they are searched anew only now and then.
    #[test]
    fn candidate_lists_find_what_a_search_of_every_pair_finds() {
        for integration in PairIntegration::ALL {
            lists_find_what_every_pair_finds(integration);
        }
    }

    fn lists_find_what_every_pair_finds(integration: PairIntegration) {
        let model = plates_integrated(integration);
        let asm = assemble(&model).expect("assembles");
        let (dt, scale) = (1e-3, 0.9);
        let mut contacts = Contacts::new(&model, &asm, dt, scale, vec![Vec::new()]);
        let upper = &asm.parts[1];
        let high = upper.node_offset as usize..(upper.node_offset + upper.node_count) as usize;
        let increments = 400;
        let mut pressed_somewhere = 0;
        for n in 1..=increments {
            let t = n as f64 / increments as f64;
            // Two faces of slide, a sink, and a tilt about y that rotates the normals.
            let x: Vec<[f64; 3]> = asm
                .reference
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    if high.contains(&i) {
                        [
                            p[0] + 0.25 * t,
                            p[1] + 0.1 * t,
                            p[2] - 2e-3 * t + 0.01 * t * (p[0] - 0.5),
                        ]
                    } else {
                        *p
                    }
                })
                .collect();
            let it = &mut contacts.interfaces[0];
            it.find_pairs(&x, dt, scale);
            let listed: Vec<(u32, u32, f64)> = it
                .chunks
                .iter()
                .flat_map(|c| &c.records)
                .map(|r| (r.secondary, r.main, r.force.total()))
                .collect();
            let expected = every_pair(it, dt, scale);
            assert_eq!(
                listed.len(),
                expected.len(),
                "{integration:?}, increment {n}"
            );
            for (a, b) in listed.iter().zip(&expected) {
                assert_eq!(
                    (a.0, a.1, a.2.to_bits()),
                    (b.0, b.1, b.2.to_bits()),
                    "{integration:?}, increment {n}"
                );
            }
            pressed_somewhere += usize::from(!listed.is_empty());
        }
        assert_eq!(pressed_somewhere, increments, "the plates press throughout");
        let searches = contacts.interfaces[0].searches;
        assert!(
            (2..increments as u64 / 10).contains(&searches),
            "{searches} searches in {increments} increments: the lists should be renewed as the plate moves, and reused in between"
        );
    }
}
