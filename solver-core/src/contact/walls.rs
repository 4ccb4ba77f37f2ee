//! Rigid planar walls, optionally moving at a constant velocity. After the position update
//! of an increment, a node found behind a wall takes an impulse that puts it back on the
//! plane (its normal velocity becomes the wall's), and a Coulomb impulse along the wall of
//! at most mu times the normal one. The impulses' work is kept in two parts: the wall's
//! (external work: a stationary wall takes the normal kinetic energy of the nodes it
//! stops) and friction's (dissipation, measured in the wall's frame). The work is the one
//! the central-difference energy balance sees: with v(n) = v(n+1/2) - dt/2 a(n) the
//! velocity at the increment's start and dv the impulse per mass, m dv . (v(n) + dv/2);
//! the plain m dv . (mean of the half-step velocities) would book a node resting on the
//! wall under a steady load as losing m (a dt)^2 / 2 every increment.

use super::friction::coefficient;
use crate::assembly::Assembly;
use crate::hex8::{dot, norm};
use impact_protocol::{ContactReport, Friction, Model, RigidWall};

#[derive(Clone, Debug)]
struct Wall {
    name: String,
    point: [f64; 3],
    normal: [f64; 3],
    velocity: [f64; 3],
    friction: Option<Friction>,
    nodes: Vec<u32>,
    peak_force: f64,
    first_contact: Option<f64>,
    last_contact: Option<f64>,
    max_penetration: f64,
    friction_dissipation: f64,
    external_work: f64,
    last_force: f64,
}

/// Every rigid wall of the model.
#[derive(Clone, Debug, Default)]
pub struct Walls {
    walls: Vec<Wall>,
}

impl Walls {
    pub fn new(model: &Model, asm: &Assembly) -> Self {
        let walls = model
            .walls
            .iter()
            .map(|w: &RigidWall| {
                let len = norm(w.normal);
                let nodes = asm
                    .parts
                    .iter()
                    .filter(|p| w.parts.is_empty() || w.parts.contains(&p.name))
                    .flat_map(|p| p.node_offset..p.node_offset + p.node_count)
                    .collect();
                Wall {
                    name: w.name.clone(),
                    point: w.point,
                    normal: w.normal.map(|v| v / len),
                    velocity: w.velocity,
                    friction: w.friction,
                    nodes,
                    peak_force: 0.0,
                    first_contact: None,
                    last_contact: None,
                    max_penetration: 0.0,
                    friction_dissipation: 0.0,
                    external_work: 0.0,
                    last_force: 0.0,
                }
            })
            .collect();
        Walls { walls }
    }

    pub fn len(&self) -> usize {
        self.walls.len()
    }

    pub fn is_empty(&self) -> bool {
        self.walls.is_empty()
    }

    /// The nodes each wall holds (with repeats across walls).
    pub fn nodes(&self) -> impl Iterator<Item = u32> + '_ {
        self.walls.iter().flat_map(|w| w.nodes.iter().copied())
    }

    /// Hold the nodes in front of the walls: `x` the positions at `time` (the end of the
    /// increment), `v` the velocities over it (both corrected in place), `a` the
    /// accelerations at its start.
    #[allow(clippy::too_many_arguments)]
    pub fn apply(
        &mut self,
        x: &mut [[f64; 3]],
        v: &mut [[f64; 3]],
        a: &[[f64; 3]],
        mass: &[f64],
        fixed: &[[bool; 3]],
        dt: f64,
        time: f64,
    ) {
        for w in &mut self.walls {
            let n = w.normal;
            let plane = [
                w.point[0] + w.velocity[0] * time,
                w.point[1] + w.velocity[1] * time,
                w.point[2] + w.velocity[2] * time,
            ];
            let mut impulse = 0.0;
            for &node in &w.nodes {
                let i = node as usize;
                let gap = dot(
                    [x[i][0] - plane[0], x[i][1] - plane[1], x[i][2] - plane[2]],
                    n,
                );
                if gap.is_nan() || gap >= 0.0 || fixed[i].iter().all(|&f| f) {
                    continue;
                }
                w.max_penetration = w.max_penetration.max(-gap);
                let before = v[i];
                // Back onto the plane over this increment.
                let dvn = -gap / dt;
                let mut dv = n.map(|c| c * dvn);
                if let Some(law) = &w.friction {
                    let rel = [
                        before[0] - w.velocity[0],
                        before[1] - w.velocity[1],
                        before[2] - w.velocity[2],
                    ];
                    let rn = dot(rel, n);
                    let vt = [rel[0] - rn * n[0], rel[1] - rn * n[1], rel[2] - rn * n[2]];
                    let speed = norm(vt);
                    if speed > 0.0 {
                        let most = coefficient(law, speed) * dvn;
                        let s = if speed <= most { 1.0 } else { most / speed };
                        for k in 0..3 {
                            dv[k] -= s * vt[k];
                        }
                    }
                }
                for k in 0..3 {
                    if fixed[i][k] {
                        dv[k] = 0.0;
                    }
                }
                let m = mass[i];
                let mut normal_work = 0.0;
                let mut tangential_work_wall = 0.0;
                let mut dissipated = 0.0;
                let dn = dot(dv, n);
                for k in 0..3 {
                    let after = before[k] + dv[k];
                    let mean = before[k] - 0.5 * dt * a[i][k] + 0.5 * dv[k];
                    let dvt = dv[k] - dn * n[k];
                    normal_work += m * dn * n[k] * mean;
                    tangential_work_wall += m * dvt * w.velocity[k];
                    dissipated -= m * dvt * (mean - w.velocity[k]);
                    v[i][k] = after;
                    x[i][k] += dt * dv[k];
                }
                w.external_work += normal_work + tangential_work_wall;
                w.friction_dissipation += dissipated;
                impulse += m * dn;
            }
            let force = impulse / dt;
            w.last_force = force;
            if force > 0.0 {
                w.peak_force = w.peak_force.max(force);
                w.first_contact.get_or_insert(time);
                w.last_contact = Some(time);
            }
        }
    }

    /// The work the walls did on the parts (negative when they stop nodes).
    pub fn external_work(&self) -> f64 {
        self.walls.iter().map(|w| w.external_work).sum()
    }

    pub fn friction_dissipation(&self) -> f64 {
        self.walls.iter().map(|w| w.friction_dissipation).sum()
    }

    /// The normal force of each wall in the last increment (impulse over the increment).
    pub fn last_forces(&self) -> impl Iterator<Item = f64> + '_ {
        self.walls.iter().map(|w| w.last_force)
    }

    pub fn reports(&self) -> impl Iterator<Item = ContactReport> + '_ {
        self.walls.iter().map(|w| ContactReport {
            name: w.name.clone(),
            peak_force: w.peak_force,
            first_contact: w.first_contact,
            last_contact: w.last_contact,
            max_penetration: w.max_penetration,
            friction_dissipation: w.friction_dissipation,
            adjusted_nodes: Vec::new(),
        })
    }
}
