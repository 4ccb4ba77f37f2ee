//! The particle mode: discrete spheres with pair contact laws (Hooke, Hertz and the
//! generalised Hertz-Hunt-Crossley law of Borovin and Lapshin 2018), fixed planar walls
//! and gravity, integrated by velocity Verlet with a cell-list neighbour search.
//!
//! `run` solves a model's particle section; the result answers probes from its frames and
//! reports every collision (peak force, duration, deepest overlap, restitution) and the
//! energies (kinetic, contact, dissipated by the viscous and by the dry term).

mod cells;
pub mod collisions;
pub mod contact;
pub mod energy;
pub mod frames;
pub mod gather;
pub mod laws;
pub mod pairs;
pub mod run;
pub mod search;
pub mod setup;
pub mod timestep;
pub mod verlet;
pub mod walls;

pub use frames::{Answer, Frame, Query};

/// The fewest spheres or contacts a parallel task takes: below it, the task costs more
/// than its work (a few hundred nanoseconds against a few nanoseconds per item).
const MIN_PER_TASK: usize = 1024;
pub use run::run;

use crate::error::ProbeError;
use frames::{Frames, Identity, Span};
use impact_protocol::particles::ParticleSummary;
use impact_protocol::{
    ContactReport, EnergySummary, InvalidParams, Pointer, ProbeParams, ProbeResult, SolveSummary,
    StepReport,
};
use std::sync::Arc;

/// A finished particle solve.
#[derive(Clone, Debug)]
pub struct ParticleSolution {
    pub summary: ParticleSummary,
    /// The energies in the finite-element summary's columns.
    pub energy: EnergySummary,
    /// One report per interaction, in the finite-element summary's form.
    pub contacts: Vec<ContactReport>,
    pub steps: Vec<StepReport>,
    /// The increment chosen before the steps cut it to fit their durations.
    pub initial_increment: f64,
    frames: Frames,
    /// Shared with the snapshots a running solve hands out (`snapshot`).
    identity: Arc<Identity>,
    pub wall_seconds: f64,
}

impl ParticleSolution {
    pub fn frames(&self) -> &[Frame] {
        &self.frames.frames
    }

    /// Spheres by id (`ids`) or nearest points at t = 0 (`at`), at a step's end or at a
    /// time within it. `ids_key` names the params member of the ids, for error pointers.
    pub fn probe(&self, query: &Query, ids_key: &str) -> Result<Answer, ProbeError> {
        self.frames.probe(&self.identity, query, ids_key)
    }

    /// Each sphere's radius, group and group names, for an export.
    pub fn identity(&self) -> &Identity {
        &self.identity
    }

    /// The stored frames and step spans, for `crate::persist`.
    pub fn stored_frames(&self) -> &Frames {
        &self.frames
    }

    /// A solution read back from storage: the identities are rebuilt from the model's
    /// particle section, the rest comes from the stored summary and frames.
    pub(crate) fn restore(
        model: &impact_protocol::Model,
        stored: &SolveSummary,
        frames: Frames,
    ) -> Result<Self, crate::error::SolveError> {
        let section = model.particles.as_ref().ok_or_else(|| {
            crate::error::SolveError::Invalid(InvalidParams::new(
                &Pointer::root().at("particles"),
                "the stored model has no particle section",
            ))
        })?;
        let summary = stored.particles.clone().ok_or_else(|| {
            crate::error::SolveError::Invalid(InvalidParams::new(
                &Pointer::root().at("particles"),
                "the stored summary has no particle section",
            ))
        })?;
        let setup = setup::Setup::new(section)?;
        Ok(ParticleSolution {
            summary,
            energy: stored.energy.clone(),
            contacts: stored.contacts.clone(),
            steps: stored.steps.clone(),
            initial_increment: stored.initial_increment,
            frames,
            identity: Arc::new(Identity::of(&setup)),
            wall_seconds: stored.wall_seconds,
        })
    }

    /// The state of an unfinished solve at one instant (`time`, in step `step`), the
    /// particle twin of `Solution::snapshot`: one frame and one step spanning only that
    /// instant, so a probe without a time reads it. The summary holds only the count of
    /// spheres (what the server sizes a probe by); nothing else is known before the end.
    pub(crate) fn snapshot(identity: Arc<Identity>, frame: Frame, step: &str) -> Self {
        let time = frame.time;
        ParticleSolution {
            summary: ParticleSummary {
                particles: identity.reference.len(),
                ..ParticleSummary::default()
            },
            energy: EnergySummary::default(),
            contacts: Vec::new(),
            steps: Vec::new(),
            initial_increment: 0.0,
            frames: Frames {
                frames: vec![frame],
                spans: vec![Span {
                    name: step.to_owned(),
                    start: time,
                    end: time,
                    last_frame: 0,
                }],
            },
            identity,
            wall_seconds: 0.0,
        }
    }

    /// Approximate bytes held, for a cache's weigher.
    pub fn approximate_bytes(&self) -> usize {
        std::mem::size_of::<Self>()
            + self.frames.bytes()
            // 48 a sphere for its identity, 8 more for the probe's grid (built later).
            + self.identity.reference.len() * 56
            + self.summary.collisions.len() * 160
    }
}

impl ParticleSolution {
    /// The summary in the finite-element form, with the particle section inside.
    pub fn solve_summary(&self) -> SolveSummary {
        SolveSummary {
            job: String::new(),
            energy: self.energy.clone(),
            contacts: self.contacts.clone(),
            steps: self.steps.clone(),
            nodes: 0,
            elements: 0,
            initial_increment: self.initial_increment,
            element_updates: 0,
            wall_seconds: self.wall_seconds,
            particles: Some(self.summary.clone()),
        }
    }

    /// Answer `solve.probe` params: spheres by `particles` ids or nearest `at` points.
    pub fn probe_params(&self, params: &ProbeParams) -> Result<ProbeResult, ProbeError> {
        if !params.nodes.is_empty() {
            return Err(ProbeError::Invalid(InvalidParams::new(
                &Pointer::root().at("nodes"),
                "this model has particles, not nodes: give particle ids in 'particles'",
            )));
        }
        let query = Query {
            step: params.step.as_deref(),
            time: params.time,
            at: &params.at,
            ids: &params.particles,
            fields: params.fields.as_deref(),
        };
        let (step, time, particles) = self.probe(&query, "particles")?;
        Ok(ProbeResult {
            step,
            time,
            nodes: Vec::new(),
            particles,
        })
    }
}
