//! The particle solve from start to end: set-up, the time step, the named steps cut into
//! equal increments, frames at the output times, cancellation, the pause and the live
//! snapshots an observer is handed (at every output and where a pause holds), and the
//! summary with the energy balance.

use super::energy;
use super::frames::{Frame, Frames, Identity, Span};
use super::setup::Setup;
use super::timestep;
use super::verlet::Integrator;
use super::ParticleSolution;
use crate::control::Live;
use crate::error::SolveError;
use crate::solution::Solution;
use crate::SolveOptions;
use impact_protocol::particles::{ParticleEnergy, ParticleSummary};
use impact_protocol::{
    AdjustedNode, ContactReport, EnergySummary, InvalidParams, Model, Pointer, StepReport,
};
use std::sync::Arc;
use std::time::Instant;

/// What probes of the running solve read: the spheres' state now, as a one-instant result.
fn snapshot(identity: &Arc<Identity>, step: &str, time: f64, it: &Integrator) -> Solution {
    let frame = Frame {
        time,
        position: it.x.clone(),
        velocity: it.v.clone(),
    };
    Solution::from_particles(ParticleSolution::snapshot(
        Arc::clone(identity),
        frame,
        step,
    ))
}

/// Run the particle section of a validated model on the current rayon pool.
pub fn run(model: &Model, options: &SolveOptions) -> Result<ParticleSolution, SolveError> {
    // The whole solve runs on a worker of the pool, so its parallel loops need no hop
    // from an outside thread into the pool at every increment.
    rayon::scope(|_| run_on_worker(model, options))
}

fn run_on_worker(model: &Model, options: &SolveOptions) -> Result<ParticleSolution, SolveError> {
    let clock = Instant::now();
    let parts = model.particles.as_ref().ok_or_else(|| {
        SolveError::Invalid(InvalidParams::new(
            &Pointer::root().at("particles"),
            "the model has no particle section",
        ))
    })?;
    let setup = Setup::new(parts)?;
    // Built once and shared by the result and every snapshot.
    let identity = Arc::new(Identity::of(&setup));
    let mut it = Integrator::new(&setup, parts.listed_collisions);
    let initial: Vec<_> = it.contacts().collect();
    let choice = timestep::choose(&setup, &parts.time_step, &model.steps, &initial);
    let initial_energy = energy::kinetic(&setup, &it.v) + energy::contact(&setup, it.contacts());
    let initial_momentum = energy::momentum(&setup, &it.v);
    let initial_centre = energy::centre_of_mass(&setup, &it.x);

    let plan: Vec<u64> = model
        .steps
        .iter()
        .map(|s| timestep::increments(s.duration, choice.dt))
        .collect();
    let planned: u64 = plan.iter().sum();
    if planned > model.controls.max_increments {
        return Err(SolveError::Failed {
            element: None,
            time: 0.0,
            reason: format!(
                "the steps need {planned} increments of at most {:e} s, more than controls.max_increments = {}",
                choice.dt, model.controls.max_increments
            ),
        });
    }

    let mut frames = Frames::default();
    frames.push(0.0, &it.x, &it.v);
    let mut steps = Vec::with_capacity(model.steps.len());
    let mut t = 0.0;
    let mut done: u64 = 0;
    let mut largest_dt: f64 = 0.0;
    let mut first_dt = None;
    let end_time: f64 = model.steps.iter().map(|s| s.duration).sum();
    let mut live = Live::new(options, end_time);
    for (step, &k) in model.steps.iter().zip(&plan) {
        let start = t;
        let dt = step.duration / k as f64;
        largest_dt = largest_dt.max(dt);
        first_dt = first_dt.or(Some(dt));
        let mut last_output = 0u64;
        for inc in 1..=k {
            let t_end = if inc == k {
                start + step.duration
            } else {
                start + inc as f64 * dt
            };
            it.increment(t_end, dt)?;
            done += 1;
            live.hold_point(&step.name, t_end, done, || {
                Some(snapshot(&identity, &step.name, t_end, &it))
            })?;
            live.tick(&step.name, t_end, done, dt);
            // Output j falls at start + j interval; a frame is stored at the first
            // increment that reaches it (the step's end is stored below).
            let reached = ((t_end - start) / step.output_interval + 1e-9).floor() as u64;
            if inc < k && reached > last_output {
                frames.push(t_end, &it.x, &it.v);
                last_output = reached;
                // As the finite-element solve does at its outputs: one copy of the
                // state per output, and only when someone observes.
                if live.observed() {
                    live.publish(snapshot(&identity, &step.name, t_end, &it));
                }
            }
        }
        t = start + step.duration;
        frames.push(t, &it.x, &it.v);
        if live.observed() {
            live.publish(snapshot(&identity, &step.name, t, &it));
        }
        frames.spans.push(Span {
            name: step.name.clone(),
            start,
            end: t,
            last_frame: frames.frames.len() - 1,
        });
        steps.push(StepReport {
            name: step.name.clone(),
            end_time: t,
            increments: k,
        });
    }

    let (collisions, interactions, open) = it.log.finish(it.contacts(), &setup, t);
    let kinetic = energy::kinetic(&setup, &it.v);
    let stored = energy::contact(&setup, it.contacts());
    let external_work = energy::gravity_work(&setup, &it.x);
    let dissipated_viscous = interactions
        .iter()
        .map(|x| x.dissipated_viscous)
        .sum::<f64>()
        + 0.0;
    let dissipated_dry = interactions.iter().map(|x| x.dissipated_dry).sum::<f64>() + 0.0;
    let budget = initial_energy + external_work;
    let held = kinetic + stored + dissipated_viscous + dissipated_dry;
    let balance_error = if budget != 0.0 {
        held / budget - 1.0
    } else {
        held
    };
    let total = it.log.total();
    let summary = ParticleSummary {
        particles: setup.len(),
        dimension: setup.dimension,
        time_step: largest_dt,
        reference_contact_time: choice.reference_contact_time,
        reference_speed: choice.reference_speed,
        steps_per_contact: choice
            .reference_contact_time
            .filter(|_| largest_dt > 0.0)
            .map(|tc| tc / largest_dt),
        energy: ParticleEnergy {
            kinetic,
            contact: stored,
            dissipated_viscous,
            dissipated_dry,
            external_work,
            initial: initial_energy,
            balance_error,
        },
        mass: energy::total_mass(&setup),
        momentum: energy::momentum(&setup, &it.v),
        initial_momentum,
        centre_of_mass: energy::centre_of_mass(&setup, &it.x),
        initial_centre_of_mass: initial_centre,
        collisions_total: total,
        collisions_open: open,
        collisions_truncated: (collisions.len() as u64) < total,
        collisions,
        interactions,
        neighbour_rebuilds: it.pairs.rebuilds,
    };
    // The finite-element shaped summary: the viscous term's work is the bulk viscosity's
    // column, the dry term's the friction column.
    let fe_energy = EnergySummary {
        kinetic,
        internal: 0.0,
        hourglass: 0.0,
        viscous: dissipated_viscous,
        contact: stored,
        friction: dissipated_dry,
        contact_damping: 0.0,
        external_work,
        initial: initial_energy,
        balance_error,
    };
    let contacts = summary
        .interactions
        .iter()
        .map(|x| ContactReport {
            name: x.name.clone(),
            peak_force: x.peak_force,
            first_contact: x.first_contact,
            last_contact: x.last_contact,
            max_penetration: x.max_overlap,
            friction_dissipation: x.dissipated_dry,
            adjusted_nodes: Vec::<AdjustedNode>::new(),
        })
        .collect();
    Ok(ParticleSolution {
        summary,
        energy: fe_energy,
        contacts,
        steps,
        initial_increment: first_dt.unwrap_or(choice.dt),
        frames,
        identity,
        wall_seconds: clock.elapsed().as_secs_f64(),
    })
}
