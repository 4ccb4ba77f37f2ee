//! A finished solve: its summary, the stored frames and histories, and the probe that
//! reads them. Nothing here re-solves: a probe interpolates between stored frames.

use crate::assembly::Assembly;
use crate::contact::Contacts;
use crate::error::ProbeError;
use crate::nearest::NodeGrid;
use crate::particles::ParticleSolution;
use impact_protocol::{
    EnergySummary, InvalidParams, Pointer, ProbeField, ProbeParams, ProbeResult, ProbedNode,
    SolveSummary,
};
use std::sync::{Arc, OnceLock};

/// The nodal fields and the element stresses at one instant.
#[derive(Clone, Debug)]
pub struct Frame {
    pub time: f64,
    pub displacement: Vec<[f64; 3]>,
    pub velocity: Vec<[f64; 3]>,
    /// Each element's Cauchy stress at its centre (Voigt order xx, yy, zz, xy, yz, zx),
    /// kept so an export can show it; probes read only the nodal fields.
    pub stress: Vec<[f64; 6]>,
    /// Each node's contact force in the frame's increment: the sum over the contacts of
    /// the penalty normal, friction and damping forces they applied to it (rigid walls
    /// not included); zeros at t = 0 and off the contact surfaces.
    pub contact_force: Vec<[f64; 3]>,
    /// Each node's contact pressure: the magnitude of the normal part of its contact
    /// force (springs and damping) over its tributary contact area (a quarter of each of
    /// its contact faces' reference areas); 0 off the contact surfaces.
    pub contact_pressure: Vec<f64>,
}

impl Frame {
    pub fn capture(
        time: f64,
        x: &[[f64; 3]],
        reference: &[[f64; 3]],
        v: &[[f64; 3]],
        stress: &[[f64; 6]],
        contacts: &Contacts,
    ) -> Self {
        Frame {
            time,
            displacement: x
                .iter()
                .zip(reference.iter())
                .map(|(x, r)| [x[0] - r[0], x[1] - r[1], x[2] - r[2]])
                .collect(),
            velocity: v.to_vec(),
            stress: stress.to_vec(),
            contact_force: contacts.nodal_forces(reference.len()),
            contact_pressure: contacts.nodal_pressures(reference.len()),
        }
    }

    fn bytes(&self) -> usize {
        (self.displacement.len() + self.velocity.len() + self.contact_force.len())
            * std::mem::size_of::<[f64; 3]>()
            + self.stress.len() * std::mem::size_of::<[f64; 6]>()
            + self.contact_pressure.len() * std::mem::size_of::<f64>()
    }
}

/// Where a step starts and ends, and its last frame (the one at its end).
#[derive(Clone, Debug)]
pub struct StepSpan {
    pub name: String,
    pub start: f64,
    pub end: f64,
    pub last_frame: usize,
}

/// Stored history entries per contact before the store thins itself: 16 384 entries of a
/// time and a force, 256 KiB a contact, whatever the number of increments.
pub const HISTORY_ENTRIES: usize = 1 << 14;

/// The contact forces against time, bounded, and the energy terms at every output.
///
/// Every increment's forces are kept until `capacity` entries are stored; then neighbouring
/// entries merge by pairs, each contact keeping the larger force with its own time (the
/// earlier on a tie), and from then on each entry stands for twice as many increments.
/// So the store never holds more than `capacity` entries, every entry is the peak of a
/// window of increments with the time it happened, and the largest force of the whole
/// solve is kept exactly. (The summary's peak force and first and last contact come from
/// the contact itself, every increment, not from here.)
#[derive(Clone, Debug, Default)]
pub struct History {
    pub contact_count: usize,
    /// `contact_count` values per entry: each contact's time of the force below.
    pub times: Vec<f64>,
    /// `contact_count` values per entry: each contact's largest total normal force over
    /// the increments the entry stands for.
    pub contact_forces: Vec<f64>,
    pub energy_times: Vec<f64>,
    pub energies: Vec<EnergySummary>,
    /// Entries at which the store thins itself (even).
    pub(crate) capacity: usize,
    /// Increments each entry stands for: 1, doubled at each thinning.
    pub(crate) stride: u64,
    /// Increments gathered in the last entry so far.
    pub(crate) open: u64,
}

impl History {
    pub fn new(contact_count: usize) -> Self {
        Self::with_capacity(contact_count, HISTORY_ENTRIES)
    }

    pub(crate) fn with_capacity(contact_count: usize, capacity: usize) -> Self {
        History {
            contact_count,
            capacity: capacity.max(2) & !1,
            stride: 1,
            ..History::default()
        }
    }

    /// Stored entries (each holds one time and one force per contact).
    pub fn entries(&self) -> usize {
        self.contact_forces
            .len()
            .checked_div(self.contact_count)
            .unwrap_or(0)
    }

    pub fn push(&mut self, time: f64, contact_forces: &[f64]) {
        let cc = self.contact_count;
        if cc == 0 {
            return;
        }
        if self.open > 0 && self.open < self.stride {
            let last = self.contact_forces.len() - cc;
            for (c, &f) in contact_forces.iter().enumerate().take(cc) {
                if f > self.contact_forces[last + c] {
                    self.contact_forces[last + c] = f;
                    self.times[last + c] = time;
                }
            }
            self.open += 1;
        } else {
            self.times.extend(std::iter::repeat_n(time, cc));
            self.contact_forces.extend_from_slice(&contact_forces[..cc]);
            self.open = 1;
        }
        if self.open == self.stride && self.capacity > 0 && self.entries() >= self.capacity {
            self.thin();
        }
    }

    /// Merge entries by pairs, per contact the larger force and its time (the earlier on
    /// a tie, as the peak of a window is its first largest value).
    fn thin(&mut self) {
        let cc = self.contact_count;
        let pairs = self.entries() / 2;
        for k in 0..pairs {
            for c in 0..cc {
                let (a, b) = (2 * k * cc + c, (2 * k + 1) * cc + c);
                let keep = if self.contact_forces[b] > self.contact_forces[a] {
                    b
                } else {
                    a
                };
                self.contact_forces[k * cc + c] = self.contact_forces[keep];
                self.times[k * cc + c] = self.times[keep];
            }
        }
        self.contact_forces.truncate(pairs * cc);
        self.times.truncate(pairs * cc);
        self.stride *= 2;
    }

    pub fn push_energy(&mut self, time: f64, energy: &EnergySummary) {
        self.energy_times.push(time);
        self.energies.push(energy.clone());
    }
}

/// Everything a solve leaves behind; the server caches it and answers probes from it.
#[derive(Clone, Debug)]
pub struct Solution {
    summary: SolveSummary,
    // Shared with the snapshots a running solve hands out (crate::control).
    assembly: Arc<Assembly>,
    frames: Vec<Frame>,
    spans: Vec<StepSpan>,
    history: History,
    /// A particle solve's result; the summary and the probe answer from it.
    particles: Option<Box<ParticleSolution>>,
    /// The reference nodes binned for the probe's nearest-node search, built by the first
    /// probe by point and kept with the result.
    grid: OnceLock<NodeGrid>,
}

impl Solution {
    pub(crate) fn from_particles(p: ParticleSolution) -> Self {
        Solution {
            summary: p.solve_summary(),
            assembly: Arc::default(),
            frames: Vec::new(),
            spans: Vec::new(),
            history: History::default(),
            particles: Some(Box::new(p)),
            grid: OnceLock::new(),
        }
    }

    pub fn particles(&self) -> Option<&ParticleSolution> {
        self.particles.as_deref()
    }

    pub(crate) fn new(
        summary: SolveSummary,
        assembly: Assembly,
        frames: Vec<Frame>,
        spans: Vec<StepSpan>,
        history: History,
    ) -> Self {
        Solution {
            summary,
            assembly: Arc::new(assembly),
            frames,
            spans,
            history,
            particles: None,
            grid: OnceLock::new(),
        }
    }

    /// The state of an unfinished solve at one instant: one step, named `step`, that
    /// spans only that instant, so a probe without a time reads `frame`.
    pub(crate) fn snapshot(assembly: Arc<Assembly>, frame: Frame, step: &str) -> Self {
        let time = frame.time;
        let summary = SolveSummary {
            job: String::new(),
            energy: EnergySummary::default(),
            contacts: Vec::new(),
            steps: Vec::new(),
            nodes: assembly.reference.len(),
            elements: assembly.connectivity.len(),
            initial_increment: 0.0,
            element_updates: 0,
            wall_seconds: 0.0,
            particles: None,
        };
        Solution {
            summary,
            assembly,
            frames: vec![frame],
            spans: vec![StepSpan {
                name: step.to_owned(),
                start: time,
                end: time,
                last_frame: 0,
            }],
            history: History::default(),
            particles: None,
            grid: OnceLock::new(),
        }
    }

    /// The steps' spans over the frames.
    pub fn spans(&self) -> &[StepSpan] {
        &self.spans
    }

    /// The summary; `job` is empty, for the server to fill in.
    pub fn summary(&self) -> &SolveSummary {
        &self.summary
    }

    pub fn history(&self) -> &History {
        &self.history
    }

    /// The `solve.history` answer: the named contacts' (and walls') total normal force at
    /// the end of increments, and the energy terms at every output. Series longer than
    /// `max_points` are cut into that many runs, each giving its largest force, so peaks
    /// survive the thinning. Pointers in errors are into the params.
    pub fn history_result(
        &self,
        params: &impact_protocol::HistoryParams,
    ) -> Result<impact_protocol::HistoryResult, ProbeError> {
        let names: Vec<&str> = self
            .summary
            .contacts
            .iter()
            .map(|c| c.name.as_str())
            .collect();
        let wanted: Vec<usize> = match &params.contacts {
            None => (0..names.len()).collect(),
            Some(asked) => asked
                .iter()
                .enumerate()
                .map(|(i, name)| {
                    names.iter().position(|n| n == name).ok_or_else(|| {
                        ProbeError::Invalid(InvalidParams::new(
                            &Pointer::root().at("contacts").at(i),
                            format!(
                                "the job has no contact or wall named '{name}' (it has {names:?})"
                            ),
                        ))
                    })
                })
                .collect::<Result<_, _>>()?,
        };
        let max_points = params.max_points.unwrap_or(2000);
        if max_points == 0 {
            return Err(ProbeError::Invalid(InvalidParams::new(
                &Pointer::root().at("max_points"),
                "must be at least 1",
            )));
        }
        let h = &self.history;
        let count = h.entries();
        let run = count.div_ceil(max_points).max(1);
        let contacts = wanted
            .into_iter()
            .filter(|&c| c < h.contact_count)
            .map(|c| {
                let mut time = Vec::with_capacity(count / run + 1);
                let mut force = Vec::with_capacity(count / run + 1);
                for start in (0..count).step_by(run) {
                    let end = (start + run).min(count);
                    let (mut t, mut f) = (h.times[start * h.contact_count + c], f64::NEG_INFINITY);
                    for i in start..end {
                        let v = h.contact_forces[i * h.contact_count + c];
                        if v > f {
                            (t, f) = (h.times[i * h.contact_count + c], v);
                        }
                    }
                    time.push(t);
                    force.push(f);
                }
                impact_protocol::ContactHistory {
                    name: names[c].to_string(),
                    time,
                    force,
                }
            })
            .collect();
        let mut energy = impact_protocol::EnergyHistory::default();
        for (t, e) in h.energy_times.iter().zip(h.energies.iter()) {
            energy.time.push(*t);
            energy.kinetic.push(e.kinetic);
            energy.internal.push(e.internal);
            energy.hourglass.push(e.hourglass);
            energy.viscous.push(e.viscous);
            energy.contact.push(e.contact);
            energy.friction.push(e.friction);
            energy.contact_damping.push(e.contact_damping);
            energy.external_work.push(e.external_work);
            energy.balance_error.push(e.balance_error);
        }
        Ok(impact_protocol::HistoryResult { contacts, energy })
    }

    pub fn frames(&self) -> &[Frame] {
        &self.frames
    }

    /// The parts' meshes numbered one after another, as the frames are.
    pub fn assembly(&self) -> &Assembly {
        &self.assembly
    }

    /// Approximate bytes this solution holds, for a cache's weigher.
    pub fn approximate_bytes(&self) -> usize {
        let frames: usize = self.frames.iter().map(Frame::bytes).sum();
        let history = 8 * (self.history.times.len() + self.history.contact_forces.len())
            + self.history.energies.len() * std::mem::size_of::<EnergySummary>();
        // 64 a node for its coordinates and tables, 8 more for the probe's grid (built later).
        let asm = self.assembly.reference.len() * 72 + self.assembly.connectivity.len() * 40;
        let particles = self.particles.as_ref().map_or(0, |p| p.approximate_bytes());
        std::mem::size_of::<Self>() + frames + history + asm + particles
    }

    /// What `probe` with these params costs, in node visits of a scan of every node or
    /// sphere (`nearest::search_visits`, plus one a picked id): the searches, and the
    /// grid's build when no probe by point has made it yet. A server runs a probe that
    /// costs more than it lets a request hold its own threads on a blocking thread.
    pub fn probe_cost(&self, params: &ProbeParams) -> usize {
        let (built, bodies) = match &self.particles {
            Some(p) => (p.identity().grid_built(), p.identity().reference.len()),
            None => (self.grid.get().is_some(), self.assembly.reference.len()),
        };
        let ids = params.nodes.len().saturating_add(params.particles.len());
        crate::nearest::search_visits(built, bodies, params.at.len()).saturating_add(ids)
    }

    /// The nodes nearest the asked points (reference configuration) or the given node ids,
    /// at the end of a step or at a time within it. Pointers in errors are into the params.
    pub fn probe(&self, params: &ProbeParams) -> Result<ProbeResult, ProbeError> {
        if let Some(p) = &self.particles {
            return p.probe_params(params);
        }
        let root = Pointer::root();
        let span = match &params.step {
            Some(name) => self.spans.iter().find(|s| &s.name == name).ok_or_else(|| {
                ProbeError::UnknownStep {
                    step: name.clone(),
                    known: self.spans.iter().map(|s| s.name.clone()).collect(),
                }
            })?,
            None => self.spans.last().ok_or_else(|| ProbeError::UnknownStep {
                step: String::new(),
                known: Vec::new(),
            })?,
        };
        if params.at.is_empty() && params.nodes.is_empty() {
            return Err(ProbeError::Invalid(InvalidParams::new(
                &root.at("at"),
                "name points in 'at' or node ids in 'nodes'",
            )));
        }
        let frame_times: Vec<f64> = self.frames[..=span.last_frame]
            .iter()
            .map(|f| f.time)
            .collect();
        let (time, lo, hi, w) = bracket(
            &span.name,
            (span.start, span.end),
            &frame_times,
            params.time,
        )?;
        let fields = params.fields.clone().unwrap_or_else(|| {
            vec![
                ProbeField::Velocity,
                ProbeField::Displacement,
                ProbeField::Position,
            ]
        });
        let want = |f: ProbeField| fields.contains(&f);

        let mut picks: Vec<(u32, f64)> = Vec::with_capacity(params.at.len() + params.nodes.len());
        for (i, p) in params.at.iter().enumerate() {
            if p.iter().any(|c| !c.is_finite()) {
                return Err(ProbeError::Invalid(InvalidParams::new(
                    &root.at("at").at(i),
                    "a point needs three finite coordinates",
                )));
            }
            picks.push(self.nearest_node(*p));
        }
        let count = self.assembly.reference.len() as u64;
        for (i, &id) in params.nodes.iter().enumerate() {
            if u64::from(id) >= count {
                return Err(ProbeError::Invalid(InvalidParams::new(
                    &root.at("nodes").at(i),
                    format!("node {id} does not exist (the model has {count} nodes)"),
                )));
            }
            picks.push((id, 0.0));
        }

        let lerp = |a: [f64; 3], b: [f64; 3]| {
            [
                a[0] + w * (b[0] - a[0]),
                a[1] + w * (b[1] - a[1]),
                a[2] + w * (b[2] - a[2]),
            ]
        };
        let (f0, f1) = (&self.frames[lo], &self.frames[hi]);
        let nodes = picks
            .into_iter()
            .map(|(id, distance)| {
                let n = id as usize;
                let reference = self.assembly.reference[n];
                let (part, local) = self
                    .assembly
                    .locate_node(id)
                    .map(|(p, l)| (p.name.clone(), l))
                    .unwrap_or_default();
                let u = lerp(f0.displacement[n], f1.displacement[n]);
                ProbedNode {
                    id,
                    part,
                    local,
                    reference,
                    distance,
                    velocity: want(ProbeField::Velocity)
                        .then(|| lerp(f0.velocity[n], f1.velocity[n])),
                    displacement: want(ProbeField::Displacement).then_some(u),
                    position: want(ProbeField::Position).then(|| {
                        [
                            reference[0] + u[0],
                            reference[1] + u[1],
                            reference[2] + u[2],
                        ]
                    }),
                }
            })
            .collect();
        Ok(ProbeResult {
            step: span.name.clone(),
            time,
            nodes,
            particles: Vec::new(),
        })
    }

    /// The node nearest a point in the reference configuration (the lowest id on ties).
    fn nearest_node(&self, p: [f64; 3]) -> (u32, f64) {
        let nodes = &self.assembly.reference;
        self.grid
            .get_or_init(|| NodeGrid::new(nodes))
            .nearest(nodes, p)
            .unwrap_or((0, f64::INFINITY))
    }
}

/// The time a probe asks for (the step's end when absent), checked to lie within the step
/// `[start, end]`, and the two stored frames around it with the weight of the later one:
/// `(time, lo, hi, w)`. `frame_times` are the times of the frames up to the step's last.
/// Shared by the finite-element and the particle probes.
pub fn bracket(
    step: &str,
    (start, end): (f64, f64),
    frame_times: &[f64],
    asked: Option<f64>,
) -> Result<(f64, usize, usize, f64), ProbeError> {
    let last = frame_times.len().saturating_sub(1);
    let time = asked.unwrap_or(end);
    if !time.is_finite() || time < start || time > end {
        return Err(ProbeError::Invalid(InvalidParams::new(
            &Pointer::root().at("time"),
            format!("step '{step}' runs from t = {start} to t = {end}; {time} is outside it"),
        )));
    }
    if asked.is_none() {
        return Ok((time, last, last, 0.0));
    }
    let hi = frame_times.partition_point(|&t| t < time).min(last);
    let lo = hi.saturating_sub(1);
    let (t0, t1) = (frame_times[lo], frame_times[hi]);
    let w = if t1 > t0 {
        (time - t0) / (t1 - t0)
    } else {
        0.0
    };
    Ok(if w <= 0.0 {
        (time, hi, hi, 0.0)
    } else {
        (time, lo, hi, w)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two contacts' forces at increment i (time i / 10): a pulse each, at different
    /// increments, of heights known in advance, on a ramp that never reaches them.
    fn forces(i: u64) -> [f64; 2] {
        let ramp = (i % 1000) as f64 * 1e-3;
        [
            if i == 123_457 { 50.0 } else { ramp },
            if (400_000..400_003).contains(&i) {
                7.0
            } else {
                0.5 * ramp
            },
        ]
    }

    #[test]
    fn a_long_history_stays_bounded_and_keeps_each_peak_exactly() {
        let capacity = 64;
        let mut h = History::with_capacity(2, capacity);
        let total = 1_000_000u64;
        for i in 0..total {
            h.push(i as f64 / 10.0, &forces(i));
            assert!(h.entries() <= capacity);
        }
        // After thinning the store holds at least half its capacity.
        assert!(h.entries() >= capacity / 2, "{}", h.entries());
        let peak = |c: usize| {
            (0..h.entries())
                .map(|e| (h.contact_forces[e * 2 + c], h.times[e * 2 + c]))
                .fold(
                    (f64::NEG_INFINITY, 0.0),
                    |a, b| if b.0 > a.0 { b } else { a },
                )
        };
        // Each contact's peak with its own time; the second's is its first increment.
        assert_eq!(peak(0), (50.0, 12_345.7));
        assert_eq!(peak(1), (7.0, 40_000.0));
        // Every entry is the peak of its window: times ascend within a contact, and every
        // stored force is one that happened at the stored time.
        for c in 0..2 {
            for e in 0..h.entries() {
                let t = h.times[e * 2 + c];
                let i = (t * 10.0).round() as u64;
                assert_eq!(h.contact_forces[e * 2 + c], forces(i)[c]);
                if e > 0 {
                    assert!(t > h.times[(e - 1) * 2 + c]);
                }
            }
        }
    }

    #[test]
    fn a_short_history_keeps_every_increment() {
        let mut h = History::new(1);
        for i in 0..1000 {
            h.push(f64::from(i), &[f64::from(i % 7)]);
        }
        assert_eq!(h.entries(), 1000);
        assert_eq!(h.times[999], 999.0);
        assert_eq!(h.contact_forces[999], f64::from(999 % 7));
    }
}
