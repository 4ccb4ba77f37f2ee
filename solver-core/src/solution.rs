//! A finished solve: its summary, the stored frames and histories, and the probe that
//! reads them. Nothing here re-solves: a probe interpolates between stored frames.

use crate::assembly::Assembly;
use crate::error::ProbeError;
use crate::particles::ParticleSolution;
use impact_protocol::{
    EnergySummary, InvalidParams, Pointer, ProbeField, ProbeParams, ProbeResult, ProbedNode,
    SolveSummary,
};
use std::sync::Arc;

/// The nodal fields at one instant.
#[derive(Clone, Debug)]
pub struct Frame {
    pub time: f64,
    pub displacement: Vec<[f64; 3]>,
    pub velocity: Vec<[f64; 3]>,
}

impl Frame {
    pub fn capture(time: f64, x: &[[f64; 3]], reference: &[[f64; 3]], v: &[[f64; 3]]) -> Self {
        Frame {
            time,
            displacement: x
                .iter()
                .zip(reference.iter())
                .map(|(x, r)| [x[0] - r[0], x[1] - r[1], x[2] - r[2]])
                .collect(),
            velocity: v.to_vec(),
        }
    }

    fn bytes(&self) -> usize {
        (self.displacement.len() + self.velocity.len()) * std::mem::size_of::<[f64; 3]>()
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

/// Every increment's contact forces, and the energy terms at every output.
#[derive(Clone, Debug, Default)]
pub struct History {
    pub contact_count: usize,
    pub times: Vec<f64>,
    /// `contact_count` values per entry of `times`.
    pub contact_forces: Vec<f64>,
    pub energy_times: Vec<f64>,
    pub energies: Vec<EnergySummary>,
}

impl History {
    pub fn new(contact_count: usize) -> Self {
        History {
            contact_count,
            ..History::default()
        }
    }

    pub fn push(&mut self, time: f64, contact_forces: &[f64]) {
        if self.contact_count > 0 {
            self.times.push(time);
            self.contact_forces.extend_from_slice(contact_forces);
        }
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
        let count = h.times.len();
        let run = count.div_ceil(max_points).max(1);
        let contacts = wanted
            .into_iter()
            .filter(|&c| c < h.contact_count)
            .map(|c| {
                let mut time = Vec::with_capacity(count / run + 1);
                let mut force = Vec::with_capacity(count / run + 1);
                for start in (0..count).step_by(run) {
                    let end = (start + run).min(count);
                    let (mut t, mut f) = (h.times[start], f64::NEG_INFINITY);
                    for i in start..end {
                        let v = h.contact_forces[i * h.contact_count + c];
                        if v > f {
                            (t, f) = (h.times[i], v);
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

    /// Approximate bytes this solution holds, for a cache's weigher.
    pub fn approximate_bytes(&self) -> usize {
        let frames: usize = self.frames.iter().map(Frame::bytes).sum();
        let history = 8 * (self.history.times.len() + self.history.contact_forces.len())
            + self.history.energies.len() * std::mem::size_of::<EnergySummary>();
        let asm = self.assembly.reference.len() * 64 + self.assembly.connectivity.len() * 40;
        let particles = self.particles.as_ref().map_or(0, |p| p.approximate_bytes());
        std::mem::size_of::<Self>() + frames + history + asm + particles
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
        let mut best = (0u32, f64::INFINITY);
        for (i, r) in self.assembly.reference.iter().enumerate() {
            let d = (r[0] - p[0]).powi(2) + (r[1] - p[1]).powi(2) + (r[2] - p[2]).powi(2);
            if d < best.1 {
                best = (i as u32, d);
            }
        }
        (best.0, best.1.sqrt())
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
