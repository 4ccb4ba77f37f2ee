//! Stored frames (every sphere's centre and velocity at the output times and at each
//! step's end) and the probe that reads them: spheres by id or nearest a point at t = 0,
//! at a step's end or at a time within it (linear between frames). It never re-solves.

use crate::error::ProbeError;
use crate::nearest::NodeGrid;
use impact_protocol::particles::ProbedParticle;
use impact_protocol::{InvalidParams, Pointer, ProbeField};
use std::sync::OnceLock;

#[derive(Clone, Debug)]
pub struct Frame {
    pub time: f64,
    pub position: Vec<[f64; 3]>,
    pub velocity: Vec<[f64; 3]>,
}

/// Where a step starts and ends, and the index of the frame at its end.
#[derive(Clone, Debug)]
pub struct Span {
    pub name: String,
    pub start: f64,
    pub end: f64,
    pub last_frame: usize,
}

/// What identifies a sphere in a probe's answer.
#[derive(Clone, Debug)]
pub struct Identity {
    pub reference: Vec<[f64; 3]>,
    pub radius: Vec<f64>,
    pub mass: Vec<f64>,
    pub group: Vec<u32>,
    pub local: Vec<u32>,
    pub group_names: Vec<String>,
    /// The centres at t = 0 binned for the probe's nearest-sphere search, built by the
    /// first probe by point and shared with every snapshot of the same solve.
    grid: OnceLock<NodeGrid>,
}

impl Identity {
    /// The identities of a set-up's spheres.
    pub fn of(setup: &super::setup::Setup) -> Self {
        Identity {
            reference: setup.position.clone(),
            radius: setup.radius.clone(),
            mass: setup.mass.clone(),
            group: setup.group.clone(),
            local: setup.local.clone(),
            group_names: setup.group_names.clone(),
            grid: OnceLock::new(),
        }
    }

    /// The sphere whose centre at t = 0 is nearest a point, and its distance: the least
    /// squared distance, the lowest id on ties, as a scan of every sphere finds it.
    fn nearest(&self, p: [f64; 3]) -> (u32, f64) {
        let centres = &self.reference;
        self.grid
            .get_or_init(|| NodeGrid::new(centres))
            .nearest(centres, p)
            .unwrap_or((0, f64::INFINITY))
    }

    /// Whether a probe by point has binned the centres yet (what the next one costs).
    pub fn grid_built(&self) -> bool {
        self.grid.get().is_some()
    }
}

/// A probe's question about particles.
#[derive(Clone, Copy, Debug)]
pub struct Query<'a> {
    pub step: Option<&'a str>,
    pub time: Option<f64>,
    pub at: &'a [[f64; 3]],
    pub ids: &'a [u32],
    pub fields: Option<&'a [ProbeField]>,
}

/// The answer: the step, the time and the spheres.
pub type Answer = (String, f64, Vec<ProbedParticle>);

#[derive(Clone, Debug, Default)]
pub struct Frames {
    pub frames: Vec<Frame>,
    pub spans: Vec<Span>,
}

impl Frames {
    pub fn push(&mut self, time: f64, x: &[[f64; 3]], v: &[[f64; 3]]) {
        self.frames.push(Frame {
            time,
            position: x.to_vec(),
            velocity: v.to_vec(),
        });
    }

    pub fn bytes(&self) -> usize {
        self.frames
            .iter()
            .map(|f| (f.position.len() + f.velocity.len()) * std::mem::size_of::<[f64; 3]>())
            .sum()
    }

    /// Answer a probe; `ids_key` names the params member holding particle ids.
    pub fn probe(&self, who: &Identity, q: &Query, ids_key: &str) -> Result<Answer, ProbeError> {
        let root = Pointer::root();
        let known = || {
            self.spans
                .iter()
                .map(|s| s.name.clone())
                .collect::<Vec<_>>()
        };
        let span = match q.step {
            Some(name) => self.spans.iter().find(|s| s.name == name).ok_or_else(|| {
                ProbeError::UnknownStep {
                    step: name.to_string(),
                    known: known(),
                }
            })?,
            None => self.spans.last().ok_or_else(|| ProbeError::UnknownStep {
                step: String::new(),
                known: known(),
            })?,
        };
        if q.at.is_empty() && q.ids.is_empty() {
            return Err(ProbeError::Invalid(InvalidParams::new(
                &root.at("at"),
                format!("name points in 'at' or particle ids in '{ids_key}'"),
            )));
        }
        let frame_times: Vec<f64> = self.frames[..=span.last_frame]
            .iter()
            .map(|f| f.time)
            .collect();
        let (time, lo, hi, w) =
            crate::solution::bracket(&span.name, (span.start, span.end), &frame_times, q.time)?;
        let mut picks: Vec<(u32, f64)> = Vec::with_capacity(q.at.len() + q.ids.len());
        for (i, p) in q.at.iter().enumerate() {
            if p.iter().any(|c| !c.is_finite()) {
                return Err(ProbeError::Invalid(InvalidParams::new(
                    &root.at("at").at(i),
                    "a point needs three finite coordinates",
                )));
            }
            picks.push(who.nearest(*p));
        }
        let count = who.reference.len() as u64;
        for (i, &id) in q.ids.iter().enumerate() {
            if u64::from(id) >= count {
                return Err(ProbeError::Invalid(InvalidParams::new(
                    &root.at(ids_key).at(i),
                    format!("particle {id} does not exist (the model has {count} spheres)"),
                )));
            }
            picks.push((id, 0.0));
        }
        let all = [
            ProbeField::Velocity,
            ProbeField::Displacement,
            ProbeField::Position,
        ];
        let fields = q.fields.unwrap_or(&all);
        let want = |f: ProbeField| fields.contains(&f);
        let lerp = |a: [f64; 3], b: [f64; 3]| {
            [
                a[0] + w * (b[0] - a[0]),
                a[1] + w * (b[1] - a[1]),
                a[2] + w * (b[2] - a[2]),
            ]
        };
        let (f0, f1) = (&self.frames[lo], &self.frames[hi]);
        let particles = picks
            .into_iter()
            .map(|(id, distance)| {
                let n = id as usize;
                let reference = who.reference[n];
                let x = lerp(f0.position[n], f1.position[n]);
                ProbedParticle {
                    id,
                    group: who.group_names[who.group[n] as usize].clone(),
                    local: who.local[n],
                    radius: who.radius[n],
                    mass: who.mass[n],
                    reference,
                    distance,
                    velocity: want(ProbeField::Velocity)
                        .then(|| lerp(f0.velocity[n], f1.velocity[n])),
                    displacement: want(ProbeField::Displacement).then(|| {
                        [
                            x[0] - reference[0],
                            x[1] - reference[1],
                            x[2] - reference[2],
                        ]
                    }),
                    position: want(ProbeField::Position).then_some(x),
                }
            })
            .collect();
        Ok((span.name.clone(), time, particles))
    }
}
