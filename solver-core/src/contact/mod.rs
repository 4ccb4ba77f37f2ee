//! Penalty contact: the boundary the integrator calls once per increment. It adds the
//! contact forces of every contact pair into the nodal forces, keeps the work the contact
//! springs hold, and the per-contact report (peak force, first and last contact, deepest
//! penetration). The kernel that finds and integrates the gaps sits behind this boundary
//! (today node-to-face in `node_to_face`); replacing it does not touch the integrator.

mod node_to_face;
pub mod penalty;

use crate::assembly::ContactPair;
use impact_protocol::ContactReport;

/// One secondary node pressed into one main face in one increment.
#[derive(Clone, Copy, Debug)]
pub struct Engagement {
    pub node: u32,
    pub face: usize,
    /// Negative: penetration depth along the main face's outward normal.
    pub gap: f64,
    /// The force on the secondary node (the face's nodes take the opposite, shared).
    pub force: [f64; 3],
    pub shape: [f64; 4],
}

/// The running record of one contact pair.
#[derive(Clone, Debug)]
struct Record {
    peak_force: f64,
    first_contact: Option<f64>,
    last_contact: Option<f64>,
    max_penetration: f64,
}

/// Every contact pair of the model, with the state it keeps between increments.
#[derive(Clone, Debug)]
pub struct Contacts {
    pairs: Vec<ContactPair>,
    records: Vec<Record>,
    /// Nodes of any contact surface, ascending, with their contact force of the last increment.
    nodes: Vec<u32>,
    previous: Vec<[f64; 3]>,
    current: Vec<[f64; 3]>,
    /// Position of each global node in `nodes` (u32::MAX when not a contact node).
    slot: Vec<u32>,
    /// Energy the springs hold: minus the work of the contact forces so far.
    stored_energy: f64,
    time_step_scale: f64,
    /// The net force across each pair's interface in the last increment, for histories.
    last_forces: Vec<f64>,
    scratch: Vec<Engagement>,
}

impl Contacts {
    pub fn new(pairs: Vec<ContactPair>, node_count: usize, time_step_scale: f64) -> Self {
        let mut nodes: Vec<u32> = pairs
            .iter()
            .flat_map(|p| p.secondary.nodes.iter().chain(p.main.nodes.iter()).copied())
            .collect();
        nodes.sort_unstable();
        nodes.dedup();
        let mut slot = vec![u32::MAX; if nodes.is_empty() { 0 } else { node_count }];
        for (i, &n) in nodes.iter().enumerate() {
            slot[n as usize] = i as u32;
        }
        let records = pairs
            .iter()
            .map(|_| Record {
                peak_force: 0.0,
                first_contact: None,
                last_contact: None,
                max_penetration: 0.0,
            })
            .collect();
        Contacts {
            last_forces: vec![0.0; pairs.len()],
            pairs,
            records,
            previous: vec![[0.0; 3]; nodes.len()],
            current: vec![[0.0; 3]; nodes.len()],
            nodes,
            slot,
            stored_energy: 0.0,
            time_step_scale,
            scratch: Vec::new(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// Add the contact forces at positions `x` (end of the increment) into `forces`, and
    /// the work done over the increment whose displacement was `dt * v`.
    pub fn apply(
        &mut self,
        x: &[[f64; 3]],
        v: &[[f64; 3]],
        mass: &[f64],
        dt: f64,
        time: f64,
        forces: &mut [[f64; 3]],
    ) {
        if self.pairs.is_empty() {
            return;
        }
        std::mem::swap(&mut self.previous, &mut self.current);
        self.current.iter_mut().for_each(|f| *f = [0.0; 3]);
        for (pi, pair) in self.pairs.iter().enumerate() {
            // Both ways at half the penalty, so neither surface is favoured.
            let mut net = [0.0; 3];
            let mut deepest: f64 = 0.0;
            for (from_secondary, (sec, main)) in [
                (true, (&pair.secondary, &pair.main)),
                (false, (&pair.main, &pair.secondary)),
            ] {
                self.scratch.clear();
                node_to_face::engage(
                    sec,
                    main,
                    x,
                    mass,
                    dt,
                    self.time_step_scale,
                    pair.penalty_scale,
                    &mut self.scratch,
                );
                for e in &self.scratch {
                    deepest = deepest.max(-e.gap);
                    let s = self.slot[e.node as usize] as usize;
                    add(&mut self.current[s], e.force, 1.0);
                    // The net force on the pair's secondary surface.
                    add(&mut net, e.force, if from_secondary { 1.0 } else { -1.0 });
                    for (k, &m) in main.faces[e.face].iter().enumerate() {
                        let s = self.slot[m as usize] as usize;
                        add(&mut self.current[s], e.force, -e.shape[k]);
                    }
                }
            }
            let magnitude = (net[0] * net[0] + net[1] * net[1] + net[2] * net[2]).sqrt();
            self.last_forces[pi] = magnitude;
            let r = &mut self.records[pi];
            if magnitude > 0.0 {
                r.peak_force = r.peak_force.max(magnitude);
                r.first_contact.get_or_insert(time);
                r.last_contact = Some(time);
            }
            r.max_penetration = r.max_penetration.max(deepest);
        }
        // Trapezoidal work of the contact forces over the increment; the springs hold minus it.
        let mut work = 0.0;
        for (i, &n) in self.nodes.iter().enumerate() {
            let n = n as usize;
            let (a, b) = (self.previous[i], self.current[i]);
            for k in 0..3 {
                work += 0.5 * (a[k] + b[k]) * v[n][k] * dt;
            }
            add(&mut forces[n], b, 1.0);
        }
        self.stored_energy -= work;
    }

    /// What the contact springs hold now.
    pub fn stored_energy(&self) -> f64 {
        self.stored_energy
    }

    /// The net interface force of each pair in the last increment.
    pub fn last_forces(&self) -> &[f64] {
        &self.last_forces
    }

    pub fn reports(&self) -> Vec<ContactReport> {
        self.pairs
            .iter()
            .zip(self.records.iter())
            .map(|(p, r)| ContactReport {
                name: p.name.clone(),
                peak_force: r.peak_force,
                first_contact: r.first_contact,
                last_contact: r.last_contact,
                max_penetration: r.max_penetration,
                friction_dissipation: 0.0,
                adjusted_nodes: Vec::new(),
            })
            .collect()
    }
}

fn add(a: &mut [f64; 3], b: [f64; 3], s: f64) {
    a[0] += s * b[0];
    a[1] += s * b[1];
    a[2] += s * b[2];
}
