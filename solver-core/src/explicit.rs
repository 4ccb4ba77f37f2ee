//! Central-difference time integration (in its velocity-Verlet form, so full-step
//! velocities come out for output): the stable increment, the element loop in parallel
//! into private buffers, the node-ordered assembly, contact, the steps, frames and the
//! energy balance. Same bits on any thread count: every sum runs in a fixed order.

use crate::assembly::{assemble, Assembly};
use crate::contact::{settle_initial_penetrations, Contacts};
use crate::control::Live;
use crate::error::SolveError;
use crate::hex8::{self, ElementControls, LANES};
use crate::lanes::{per_lane, Batch as Lanes, Lane};
use crate::loads::Gravity;
use crate::material::Elastic;
use crate::solution::{Frame, History, Solution, StepSpan};
use crate::subcycle::{per_increment, Levels, Substep, STEP_MULTIPLE};
use crate::SolveOptions;
use impact_protocol::{EnergySummary, Model, SolveSummary, StepReport};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

mod node_pass;
use node_pass::{finish_nodes, NodeFinish};

/// Below these counts a parallel loop's task costs more than the work it carries.
const MIN_ELEMENTS_PER_TASK: usize = 512;
const MIN_NODES_PER_TASK: usize = 2048;
/// The first node pass hands rayon runs of this many nodes, each a plain loop (the second
/// halves its nodes itself, `node_pass`): handed single nodes, whether LLVM inlined the
/// per-node closure into rayon's loop moved with edits elsewhere in the crate (a call per
/// node, 2.3 M instructions an increment of the block on the plate, after a change to the
/// contact alone).
const NODES_PER_CHUNK: usize = 256;
/// A stable increment below this fraction of the initial one means an element has been
/// crushed: a length a million times shorter than at the start is no longer a mesh.
const COLLAPSED_INCREMENT_FRACTION: f64 = 1e-6;

/// Per-element state, one array per field, in level order (`subcycle::Levels`): the
/// model's order unless subcycling puts each level's elements together.
struct Elements {
    stress: Vec<[f64; 6]>,
    internal: Vec<f64>,
    viscous: Vec<f64>,
    hourglass: Vec<f64>,
    /// Each element corner's force, at its slot in node order (`Assembly::corner_slot`).
    /// Every slot has one writer, the element of its corner, so relaxed atomic stores
    /// (plain stores on x86-64) let the element tasks write them side by side in safe code.
    corner_forces: Vec<[AtomicU64; 3]>,
    /// The connectivity, corner slots and materials in level order when it is not the
    /// model's (the assembly's serve otherwise).
    reordered: Option<Topology>,
}

struct Topology {
    connectivity: Vec<[u32; 8]>,
    corner_slot: Vec<[u32; 8]>,
    material: Vec<u32>,
}

impl Elements {
    /// The stresses in the model's element order, for a frame.
    fn stress_by_model(&self, levels: &Levels) -> std::borrow::Cow<'_, [[f64; 6]]> {
        match levels.order() {
            Some(_) => levels.to_model_order(&self.stress).into(),
            None => self.stress.as_slice().into(),
        }
    }
}

/// Per-node state, one array per field.
struct Nodes {
    x: Vec<[f64; 3]>,
    v: Vec<[f64; 3]>,
    a: Vec<[f64; 3]>,
}

pub fn run(model: &Model, options: &SolveOptions) -> Result<Solution, SolveError> {
    let started = Instant::now();
    let mut asm = assemble(model)?;
    let adjusted = settle_initial_penetrations(&mut asm)?;
    let ctl = ElementControls {
        bulk_linear: model.controls.bulk_viscosity.linear,
        bulk_quadratic: model.controls.bulk_viscosity.quadratic,
        hourglass: model.controls.hourglass.coefficient,
    };
    let scale = model.controls.time_step_scale;
    let ne = asm.connectivity.len();
    let nn = asm.reference.len();
    let mut at_rest = vec![0.0; ne];
    at_rest
        .par_iter_mut()
        .zip(asm.connectivity.par_iter())
        .zip(asm.element_material.par_iter())
        .for_each(|((c, conn), &m)| {
            let x = conn.map(|i| asm.reference[i as usize]);
            *c = hex8::critical_increment_at_rest(&x, &asm.materials[m as usize], &ctl);
        });
    let smallest = at_rest.iter().copied().fold(f64::INFINITY, f64::min);
    let initial_increment = scale * smallest;
    let mut contacts = Contacts::new(model, &asm, initial_increment, scale, adjusted);
    let mut gravity = Gravity::new(model.gravity);
    let levels = Levels::assign(
        &at_rest,
        &asm.connectivity,
        nn,
        model.controls.subcycling_levels,
        contacts.acted_on(),
    );
    // Without levels every node and element steps every increment: the plain increment is
    // compiled apart, without the levels' bookkeeping.
    let advance = if levels.deepest > 0 {
        advance::<true>
    } else {
        advance::<false>
    };
    let mut el = Elements {
        stress: vec![[0.0; 6]; ne],
        internal: vec![0.0; ne],
        viscous: vec![0.0; ne],
        hourglass: vec![0.0; ne],
        corner_forces: (0..8 * ne).map(|_| Default::default()).collect(),
        reordered: levels.order().map(|_| Topology {
            connectivity: levels.to_level_order(&asm.connectivity),
            corner_slot: levels.to_level_order(&asm.corner_slot),
            material: levels.to_level_order(&asm.element_material),
        }),
    };
    drop(at_rest);
    // Also the smallest of the elements' critical increments over 2^(their reach): the
    // smallest element's nodes are all at level 0 (its reach is 0), and every other
    // element's critical increment over 2^reach is at least the smallest, or it would not
    // have reached that level.
    let mut critical = smallest;
    let mut nodes = Nodes {
        x: asm.reference.clone(),
        v: asm.initial_velocity.clone(),
        a: vec![[0.0; 3]; nn],
    };

    let kinetic = |v: &[[f64; 3]]| -> f64 {
        v.iter()
            .zip(asm.mass.iter())
            .map(|(v, m)| 0.5 * m * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]))
            .sum()
    };
    let initial_energy = kinetic(&nodes.v);

    let mut frames = vec![Frame::capture(
        0.0,
        &nodes.x,
        &asm.reference,
        &nodes.v,
        &el.stress_by_model(&levels),
        &contacts,
    )];
    let mut history = History::new(contacts.count());
    let mut spans = Vec::new();
    let mut step_reports = Vec::new();
    let mut time = 0.0_f64;
    let mut total_increments = 0u64;
    let mut element_updates = 0u64;
    let end_time: f64 = model.steps.iter().map(|s| s.duration).sum();
    let mut live = Live::new(options, end_time).with_assembly(&asm);

    for step in &model.steps {
        let start = time;
        let end = start + step.duration;
        let mut next_output = start + step.output_interval;
        let mut increments = 0u64;
        while time < end {
            live.checkpoint(&step.name, time, total_increments, || {
                Some(Frame::capture(
                    time,
                    &nodes.x,
                    &asm.reference,
                    &nodes.v,
                    &el.stress_by_model(&levels),
                    &contacts,
                ))
            })?;
            let mut dt = scale * critical;
            // A cycle of 2^cycle increments brings every node to the same time, where the
            // increment is set anew and frames are taken. The step's last stretch runs
            // without subcycling, to land on its end.
            let mut cycle = levels.deepest;
            if time + 1.5 * STEP_MULTIPLE[cycle as usize] * dt >= end {
                cycle = 0;
            }
            // Land on the step's end exactly, and never leave a sliver of an increment.
            if cycle == 0 && time + 1.5 * dt >= end {
                dt = if time + dt >= end {
                    end - time
                } else {
                    0.5 * (end - time)
                };
            }
            let mut scan = ElementScan::NONE;
            for index in 0..1u32 << cycle {
                if total_increments >= model.controls.max_increments {
                    return Err(SolveError::Failed {
                        element: None,
                        time,
                        reason: format!(
                            "the solve reached its cap of {} increments (controls.max_increments) before the end of step '{}'",
                            model.controls.max_increments, step.name
                        ),
                    });
                }
                scan = advance(
                    &asm,
                    &ctl,
                    &levels,
                    Substep { index, cycle },
                    &mut el,
                    &mut nodes,
                    &mut contacts,
                    &mut gravity,
                    dt,
                    time + dt,
                );
                time = if dt == end - time { end } else { time + dt };
                increments += 1;
                total_increments += 1;
                element_updates += levels.updated(index, cycle) as u64;
                history.push(time, contacts.last_forces());
                live.tick(&step.name, time, total_increments, dt);

                if let Some(e) = scan.inverted {
                    return Err(SolveError::Failed {
                        element: Some(levels.model_element(e) as u32),
                        time,
                        reason: "negative volume: the element inverted; likely causes: a penalty or a load too large for the mesh, excessive hourglassing, or a time-step scale too large".into(),
                    });
                }
            }
            // The cycle's last increment updated every element.
            let (c, worst) = scan.smallest_critical;
            critical = c;
            // An element crushed nearly flat keeps a positive volume but drives the
            // stable increment towards zero: the solve would crawl forever.
            if scale * c < COLLAPSED_INCREMENT_FRACTION * initial_increment {
                return Err(SolveError::Failed {
                    element: Some(levels.model_element(worst) as u32),
                    time,
                    reason: format!(
                        "the stable increment collapsed to {:e} (from {initial_increment:e} at the start): the element is crushed nearly flat; likely causes: a load or a velocity too large for the mesh, or a material too soft for it",
                        scale * c
                    ),
                });
            }
            if time >= next_output || time >= end {
                frames.push(Frame::capture(
                    time,
                    &nodes.x,
                    &asm.reference,
                    &nodes.v,
                    &el.stress_by_model(&levels),
                    &contacts,
                ));
                while next_output <= time {
                    next_output += step.output_interval;
                }
                let energy =
                    energy_summary(&el, &nodes, &contacts, &gravity, initial_energy, &kinetic);
                if !energy.balance_error.is_finite()
                    || (initial_energy > 0.0 && energy.balance_error.abs() > 1.0)
                {
                    let (_, e) = largest_internal(&el);
                    return Err(SolveError::Failed {
                        element: Some(levels.model_element(e) as u32),
                        time,
                        reason: format!(
                            "energy blow-up (balance error {:e}); likely causes: a time-step scale too large, a penalty too stiff, or a distorted element",
                            energy.balance_error
                        ),
                    });
                }
                history.push_energy(time, &energy);
                live.output(
                    &step.name,
                    &frames[frames.len() - 1],
                    Some(energy.balance_error),
                );
            }
        }
        spans.push(StepSpan {
            name: step.name.clone(),
            start,
            end: time,
            last_frame: frames.len() - 1,
        });
        step_reports.push(StepReport {
            name: step.name.clone(),
            end_time: time,
            increments,
        });
    }

    let energy = energy_summary(&el, &nodes, &contacts, &gravity, initial_energy, &kinetic);
    let summary = SolveSummary {
        job: String::new(),
        energy,
        contacts: contacts.reports(),
        steps: step_reports,
        nodes: nn,
        elements: ne,
        initial_increment,
        element_updates,
        wall_seconds: started.elapsed().as_secs_f64(),
        particles: None,
    };
    Ok(Solution::new(summary, asm, frames, spans, history))
}

/// One increment of length `dt`, ending at `time`, the `substep` of a subcycling cycle;
/// returns the scan (the first inverted element, the smallest critical increment) of the
/// elements it updated, from the element loop's reduction. `SUBCYCLED` false: every level
/// is 0 (`levels.deepest` is 0), so every node starts and ends its step every increment,
/// every step is `dt` and every reach 0; the same arithmetic, known at compile time.
#[allow(clippy::too_many_arguments)]
fn advance<const SUBCYCLED: bool>(
    asm: &Assembly,
    ctl: &ElementControls,
    levels: &Levels,
    substep: Substep,
    el: &mut Elements,
    nodes: &mut Nodes,
    contacts: &mut Contacts,
    gravity: &mut Gravity,
    dt: f64,
    time: f64,
) -> ElementScan {
    let substep = if SUBCYCLED { substep } else { Substep::WHOLE };
    // A node starting its step h: v(n+1/2) = v(n) + h/2 a(n). Every node drifts,
    // x += dt v(n+1/2): a node between its kicks moves on a straight line.
    nodes
        .v
        .par_chunks_mut(NODES_PER_CHUNK)
        .zip(nodes.x.par_chunks_mut(NODES_PER_CHUNK))
        .zip(nodes.a.par_chunks(NODES_PER_CHUNK))
        .zip(asm.fixed.par_chunks(NODES_PER_CHUNK))
        .zip(levels.node.par_chunks(NODES_PER_CHUNK))
        .with_min_len(MIN_NODES_PER_TASK / NODES_PER_CHUNK)
        .for_each(|((((v, x), a), fixed), level)| {
            let chunk = v.iter_mut().zip(x).zip(a).zip(fixed).zip(level);
            for ((((v, x), a), fixed), &level) in chunk {
                let kick = substep.starts(level);
                let h = substep.step(level, dt);
                for k in 0..3 {
                    if kick {
                        v[k] = if fixed[k] { 0.0 } else { v[k] + 0.5 * h * a[k] };
                    }
                    x[k] += dt * v[k];
                }
            }
        });

    // Rigid walls put the nodes that crossed them back before the elements see them.
    contacts.hold_at_walls(
        &mut nodes.x,
        &mut nodes.v,
        &nodes.a,
        &asm.mass,
        &asm.fixed,
        dt,
        time,
    );

    // The elements whose steps end now: a prefix of the level order.
    let updated = levels.updated(substep.index, substep.cycle);
    let Elements {
        stress,
        internal,
        viscous,
        hourglass,
        corner_forces,
        reordered,
    } = el;
    let (connectivity, corner_slot, material) = match reordered {
        Some(t) => (&t.connectivity[..], &t.corner_slot[..], &t.material[..]),
        None => (
            &asm.connectivity[..],
            &asm.corner_slot[..],
            &asm.element_material[..],
        ),
    };
    // The velocities cut to the positions' length: one bound check a node, not two.
    let (x, corner_forces) = (&nodes.x[..], &corner_forces[..]);
    let v = &nodes.v[..x.len()];
    // Whole batches go to rayon as exact chunks (no bound to take for each of the ten
    // slices a batch); the short last batch, if any, is updated after them.
    let full = updated - updated % LANES;
    let (stress, stress_tail) = stress[..updated].split_at_mut(full);
    let (internal, internal_tail) = internal[..updated].split_at_mut(full);
    let (viscous, viscous_tail) = viscous[..updated].split_at_mut(full);
    let (hourglass, hourglass_tail) = hourglass[..updated].split_at_mut(full);
    let (corner_slot, corner_slot_tail) = corner_slot[..updated].split_at(full);
    let (connectivity, connectivity_tail) = connectivity[..updated].split_at(full);
    let (material, material_tail) = material[..updated].split_at(full);
    let (element_levels, element_levels_tail) = levels.element[..updated].split_at(full);
    // One gather buffer a task, not a zeroed one a batch (that memset was 5% of the
    // increment): every batch overwrites all of its lanes.
    let gather_buffers = || -> GatherBuffers {
        (
            [[Lanes::default(); 3]; 8],
            [[Lanes::default(); 3]; 8],
            [Lanes::default(); 6],
        )
    };
    let update = |buffers: &mut GatherBuffers, (batch, slices): (usize, Batch<'_>)| {
        let (xe, ve, se) = buffers;
        let (stress, internal, viscous, hourglass, slots, conn, mats, element_levels) = slices;
        // A short last batch fills its empty lanes with its first element again;
        // their results are dropped.
        let e = per_lane(|lane| if lane < conn.len() { lane } else { 0 });
        // The slice in registers: read through the closure's captures, its start
        // and length were loaded again after every atomic store.
        let corner_forces: &[[AtomicU64; 3]] = corner_forces;
        let rows = per_lane(|l| &conn[e[l]]);
        // Each lane vector is built whole and stored once: scalar stores into one
        // vector stall the kernel's wide load of it (no store forwarding).
        for k in 0..8 {
            let n = per_lane(|l| rows[l][k] as usize);
            let p = per_lane(|l| x[n[l]]);
            let u = per_lane(|l| v[n[l]]);
            for r in 0..3 {
                xe[k][r] = Lanes::from_fn(|l| p[l][r]);
                ve[k][r] = Lanes::from_fn(|l| u[l][r]);
            }
        }
        // The rows copied whole, then transposed: read through references, the
        // native build gathered the components with `vgatherqpd`.
        let s = per_lane(|l| stress[e[l]]);
        for (c, component) in se.iter_mut().enumerate() {
            *component = Lanes::from_fn(|l| s[l][c]);
        }
        let mat = Elastic::lanes(per_lane(|l| &asm.materials[mats[e[l]] as usize]));
        // Each element over its own step: the smallest of its nodes'.
        let step = if SUBCYCLED {
            Lanes::from_fn(|l| substep.step(element_levels[e[l]][0], dt))
        } else {
            Lanes::splat(dt)
        };
        let u = hex8::update_batch(xe, ve, se, &mat, ctl, step);
        // The batch's volumes and critical increments (each over 2^(its reach)), for the
        // scan: the only reader of either, so they are not kept.
        let mut volume = [0.0; LANES];
        let mut critical = [f64::INFINITY; LANES];
        for lane in 0..conn.len() {
            volume[lane] = u.volume.lane(lane);
            let sound = hex8::sound(volume[lane]);
            for (&slot, lanes) in slots[lane].iter().zip(u.forces.iter()) {
                for (atom, f) in corner_forces[slot as usize].iter().zip(lanes) {
                    let f = if sound { f.lane(lane) } else { 0.0 };
                    atom.store(f.to_bits(), Ordering::Relaxed);
                }
            }
            if !sound {
                // Inverted: the solve stops after this increment, on the volume.
                stress[lane] = [0.0; 6];
                continue;
            }
            // Lane by lane from the result: `map` copied all six vectors to the
            // stack for each lane.
            for (c, component) in stress[lane].iter_mut().enumerate() {
                *component = u.stress[c].lane(lane);
            }
            internal[lane] += u.internal_work.lane(lane);
            viscous[lane] += u.viscous_work.lane(lane);
            hourglass[lane] += u.hourglass_work.lane(lane);
            let c = u.critical_increment.lane(lane);
            // Reach 0 divides by 1: the same bits.
            critical[lane] = if SUBCYCLED {
                per_increment(c, element_levels[lane][1])
            } else {
                c
            };
        }
        let run = conn.len();
        ElementScan::of_run(batch * LANES, &volume[..run], &critical[..run])
    };
    let elements = || {
        (
            stress.par_chunks_exact_mut(LANES),
            internal.par_chunks_exact_mut(LANES),
            viscous.par_chunks_exact_mut(LANES),
            hourglass.par_chunks_exact_mut(LANES),
            corner_slot.par_chunks_exact(LANES),
            connectivity.par_chunks_exact(LANES),
            material.par_chunks_exact(LANES),
            element_levels.par_chunks_exact(LANES),
        )
            .into_par_iter()
            .enumerate()
            .with_min_len(MIN_ELEMENTS_PER_TASK / LANES)
            .map_init(gather_buffers, update)
            .reduce(|| ElementScan::NONE, ElementScan::join)
    };
    // The contacts read the same drifted positions and velocities as the elements and write
    // only their own forces, so the two run side by side: the threads that run out of
    // contact work (its serial passes, its chunks' ragged end) take element batches, not a
    // wait. Each sums into its own buffers in a fixed order: the same bits either way.
    let (scan, ()) = rayon::join(elements, || contacts.apply(x, v, dt, time));
    let scan = if full < updated {
        let tail = (
            stress_tail,
            internal_tail,
            viscous_tail,
            hourglass_tail,
            corner_slot_tail,
            connectivity_tail,
            material_tail,
            element_levels_tail,
        );
        scan.join(update(&mut gather_buffers(), (full / LANES, tail)))
    } else {
        scan
    };

    gravity.account_work(&nodes.v, &asm.mass, &asm.fixed, dt);

    // Node by node, in one pass, for the nodes whose steps end now (every element they
    // belong to was just updated): f = the element corners' forces (in slot order), then
    // each contact's, then gravity; a(n+1) = f / m; v(n+1) = v(n+1/2) + h/2 a(n+1).
    let pass = NodeFinish {
        asm,
        levels,
        contacts,
        gravity,
        substep,
        dt,
    };
    finish_nodes(&pass, 0, &mut nodes.a, &mut nodes.v, &mut el.corner_forces);
    scan
}

/// One batch's share of the element state and topology, in the element loop's order:
/// stress, internal, viscous and hourglass work, corner slots, connectivity, material,
/// levels.
type Batch<'a> = (
    &'a mut [[f64; 6]],
    &'a mut [f64],
    &'a mut [f64],
    &'a mut [f64],
    &'a [[u32; 8]],
    &'a [[u32; 8]],
    &'a [u32],
    &'a [[u8; 2]],
);

/// A task's gather buffers: the batch's positions, velocities and stresses in lanes.
type GatherBuffers = ([[Lanes; 3]; 8], [[Lanes; 3]; 8], [Lanes; 6]);

/// What the end of an increment needs from every element.
#[derive(Clone, Copy, Debug, PartialEq)]
struct ElementScan {
    /// The first element with a volume that is not positive (or NaN).
    inverted: Option<usize>,
    /// The smallest critical increment and its element (the lowest index on ties).
    smallest_critical: (f64, usize),
}

impl ElementScan {
    const NONE: ElementScan = ElementScan {
        inverted: None,
        smallest_critical: (f64::INFINITY, usize::MAX),
    };

    /// The scan of a run of elements, the first of them element `base`.
    fn of_run(base: usize, volume: &[f64], critical: &[f64]) -> ElementScan {
        let mut scan = ElementScan {
            inverted: volume
                .iter()
                .position(|&v| v.is_nan() || v <= 0.0)
                .map(|i| base + i),
            ..ElementScan::NONE
        };
        for (i, &c) in critical.iter().enumerate() {
            if c < scan.smallest_critical.0 {
                scan.smallest_critical = (c, base + i);
            }
        }
        scan
    }

    /// The scan of two neighbouring runs, `self` the earlier: exact comparisons only, so
    /// any split of the elements into runs gives the same answer.
    fn join(self, later: ElementScan) -> ElementScan {
        ElementScan {
            inverted: self.inverted.or(later.inverted),
            smallest_critical: if later.smallest_critical.0 < self.smallest_critical.0 {
                later.smallest_critical
            } else {
                self.smallest_critical
            },
        }
    }
}

fn largest_internal(el: &Elements) -> (f64, usize) {
    el.internal.iter().enumerate().fold(
        (f64::NEG_INFINITY, 0),
        |a, (i, &v)| if v > a.0 { (v, i) } else { a },
    )
}

fn energy_summary(
    el: &Elements,
    nodes: &Nodes,
    contacts: &Contacts,
    gravity: &Gravity,
    initial: f64,
    kinetic: &dyn Fn(&[[f64; 3]]) -> f64,
) -> EnergySummary {
    // Serial sums in element order: the same bits on any thread count.
    let internal: f64 = el.internal.iter().sum();
    let viscous: f64 = el.viscous.iter().sum();
    let hourglass: f64 = el.hourglass.iter().sum();
    let kinetic = kinetic(&nodes.v);
    let contact = contacts.stored_energy();
    let friction = contacts.friction_dissipation();
    let contact_damping = contacts.damping_dissipation();
    let external_work = gravity.work() + contacts.wall_work();
    let total = kinetic + internal + hourglass + viscous + contact + friction + contact_damping;
    let reference = initial + external_work;
    EnergySummary {
        kinetic,
        internal,
        hourglass,
        viscous,
        contact,
        friction,
        contact_damping,
        external_work,
        initial,
        balance_error: if reference != 0.0 {
            total / reference - 1.0
        } else {
            total
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs of several tasks in the tests below.
    const ELEMENTS_PER_SCAN_TASK: usize = 8 * MIN_ELEMENTS_PER_TASK;

    /// The element loop's reduction over any split: `of_run` per run of `run` elements,
    /// `join` in run order, in parallel.
    fn scan_in_runs(volume: &[f64], critical: &[f64], run: usize) -> ElementScan {
        volume
            .par_chunks(run)
            .zip(critical.par_chunks(run))
            .enumerate()
            .map(|(r, (vs, cs))| ElementScan::of_run(r * run, vs, cs))
            .reduce(|| ElementScan::NONE, ElementScan::join)
    }

    fn scan_elements(volume: &[f64], critical: &[f64]) -> ElementScan {
        scan_in_runs(volume, critical, ELEMENTS_PER_SCAN_TASK)
    }

    /// Element by element, in order: what the scan must find.
    fn serial(volume: &[f64], critical: &[f64]) -> ElementScan {
        let mut smallest = (f64::INFINITY, usize::MAX);
        for (i, &c) in critical.iter().enumerate() {
            if c < smallest.0 {
                smallest = (c, i);
            }
        }
        ElementScan {
            inverted: volume.iter().position(|&v| v.is_nan() || v <= 0.0),
            smallest_critical: smallest,
        }
    }

    /// Runs of several tasks, ties for the smallest increment across runs, an inverted
    /// element after a NaN one, and none: the first and the lowest index on any threads.
    #[test]
    fn the_scan_finds_the_first_inverted_element_and_the_lowest_smallest_increment() {
        let n = 5 * ELEMENTS_PER_SCAN_TASK + 17;
        let critical: Vec<f64> = (0..n).map(|i| 1.0 + ((i * 7919) % 1000) as f64).collect();
        let mut tied = critical.clone();
        for i in [
            3 * ELEMENTS_PER_SCAN_TASK + 5,
            ELEMENTS_PER_SCAN_TASK + 2,
            n - 1,
        ] {
            tied[i] = 0.5;
        }
        let sound = vec![1.0; n];
        let mut broken = sound.clone();
        broken[4 * ELEMENTS_PER_SCAN_TASK + 1] = -1.0;
        broken[2 * ELEMENTS_PER_SCAN_TASK + 9] = f64::NAN;
        for threads in [1, 2, 3] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("a pool");
            for (v, c) in [(&sound, &critical), (&broken, &tied), (&sound, &tied)] {
                assert_eq!(pool.install(|| scan_elements(v, c)), serial(v, c));
                // The element loop's reduction: a run per batch, the last one short.
                assert_eq!(pool.install(|| scan_in_runs(v, c, LANES)), serial(v, c));
            }
        }
        let found = scan_elements(&broken, &tied);
        assert_eq!(found.inverted, Some(2 * ELEMENTS_PER_SCAN_TASK + 9));
        assert_eq!(found.smallest_critical, (0.5, ELEMENTS_PER_SCAN_TASK + 2));
    }

    /// A row of nine unit cubes (c = 1: E = 0.742857, nu = 0.3, rho = 1), one end face
    /// driven into the row at 40 times the wave speed: in the first increment (some 0.5 to
    /// 0.9 of the element's transit time) that face passes the far face of its element,
    /// and no other node has moved.
    fn crushed_row(face: &str, speed: f64) -> Model {
        let json = serde_json::json!({
            "model": {
                "materials": [{ "name": "m", "E": 0.742857142857, "nu": 0.3, "rho": 1.0 }],
                "parts": [{ "name": "row", "material": "m", "mesh": { "generate": {
                    "kind": "block", "size": [9.0, 1.0, 1.0], "nx": 9, "ny": 1, "nz": 1 } } }],
                "initial_velocities": [{ "part": "row", "set": face, "velocity": [speed, 0.0, 0.0] }],
                "steps": [{ "name": "crush", "duration": 1.0, "output_interval": 1.0 }]
            }
        });
        let p: impact_protocol::SolveParams =
            serde_json::from_value(json).expect("the row model parses");
        p.model
    }

    #[test]
    fn the_element_that_inverts_stops_the_solve_and_is_named() {
        // Element 8 is the last batch's only element (a short batch on four or eight
        // lanes); element 0 is the first lane of a whole batch.
        for (face, speed, element) in [("xmax", -40.0, 8), ("xmin", 40.0, 0)] {
            match crate::solve(&crushed_row(face, speed), &crate::SolveOptions::default()) {
                Err(SolveError::Failed {
                    element: Some(e),
                    time,
                    reason,
                }) => {
                    assert_eq!(e, element, "{face}");
                    assert!(reason.contains("negative volume"), "{face}: {reason}");
                    assert!(time > 0.0 && time < 1.0, "{face}: {time}");
                }
                Err(other) => panic!("{face}: {other}"),
                Ok(_) => panic!("{face}: the crushed row solved"),
            }
        }
    }
}
