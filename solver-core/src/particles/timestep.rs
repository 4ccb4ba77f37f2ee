//! The time step: the user's dt, or the elastic contact time of the stiffest pair divided
//! by the steps per contact asked for (or `AUTOMATIC_STEPS_PER_CONTACT`). The contact time
//! is taken at the fastest approach the start allows: the fastest sphere, sped up by a
//! fall across the whole model under gravity, twice that for two spheres meeting, and the
//! speed the energy of any initial overlap can give.

use super::contact::Contact;
use super::laws::{elastic_contact_time, elastic_energy};
use super::setup::Setup;
use impact_protocol::particles::{TimeStep, AUTOMATIC_STEPS_PER_CONTACT};
use impact_protocol::Step;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Choice {
    /// The largest increment; each step takes equal increments of at most this.
    pub dt: f64,
    pub reference_contact_time: Option<f64>,
    pub reference_speed: f64,
}

/// The speed a sphere can reach: its own, plus a fall across the extent of the spheres
/// and their projections on the walls.
fn fall_speed(setup: &Setup) -> f64 {
    let v_max2 = setup
        .velocity
        .iter()
        .map(|v| v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
        .fold(0.0, f64::max);
    let g = setup.gravity;
    let g_norm = (g[0] * g[0] + g[1] * g[1] + g[2] * g[2]).sqrt();
    if g_norm == 0.0 {
        return v_max2.sqrt();
    }
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    let mut grow = |p: [f64; 3]| {
        for k in 0..3 {
            lo[k] = lo[k].min(p[k]);
            hi[k] = hi[k].max(p[k]);
        }
    };
    for x in &setup.position {
        grow(*x);
        for w in &setup.walls {
            let n = w.normal;
            let s = (x[0] - w.point[0]) * n[0]
                + (x[1] - w.point[1]) * n[1]
                + (x[2] - w.point[2]) * n[2];
            grow([x[0] - s * n[0], x[1] - s * n[1], x[2] - s * n[2]]);
        }
    }
    let extent =
        ((hi[0] - lo[0]).powi(2) + (hi[1] - lo[1]).powi(2) + (hi[2] - lo[2]).powi(2)).sqrt();
    (v_max2 + 2.0 * g_norm * extent).sqrt()
}

/// The speed the largest initial overlap would give its reduced mass.
fn overlap_speed(setup: &Setup, initial: &[&Contact]) -> f64 {
    initial
        .iter()
        .filter(|c| c.overlap > 0.0)
        .map(|c| {
            let i = c.particle as usize;
            let inv = setup.inverse_mass[i]
                + match c.other {
                    super::contact::Other::Sphere(j) => setup.inverse_mass[j as usize],
                    super::contact::Other::Wall(_) => 0.0,
                };
            let n = setup.interactions[c.interaction as usize].law.n;
            (2.0 * elastic_energy(c.c, n, c.overlap) * inv).sqrt()
        })
        .fold(0.0, f64::max)
}

/// The shortest elastic contact time over the interactions, and the speed it was taken at.
fn stiffest(setup: &Setup, initial: &[&Contact]) -> (Option<f64>, f64) {
    let ng = setup.group_names.len();
    let mut m_min = vec![f64::INFINITY; ng];
    let mut r_max = vec![0.0f64; ng];
    let mut count = vec![0usize; ng];
    let mut first = vec![None; ng];
    for i in 0..setup.len() {
        let g = setup.group[i] as usize;
        first[g] = first[g].or(Some(i));
        m_min[g] = m_min[g].min(setup.mass[i]);
        r_max[g] = r_max[g].max(setup.radius[i]);
        count[g] += 1;
    }
    let v_fall = fall_speed(setup);
    let v_overlap = overlap_speed(setup, initial);
    let v_wall = v_fall + v_overlap;
    let v_pair = 2.0 * v_fall + v_overlap;
    let mut best: (Option<f64>, f64) = (None, v_pair);
    let mut consider = |t: Option<f64>, v: f64| {
        if let Some(t) = t {
            if best.0.is_none_or(|b| t < b) {
                best = (Some(t), v);
            }
        }
    };
    for a in 0..ng {
        for b in a..ng {
            if a == b && count[a] < 2 {
                continue;
            }
            // The law of two groups is that of their first spheres.
            let (Some(ia), Some(ib)) = (first[a], first[b]) else {
                continue;
            };
            let Some(x) = setup.pair_interaction(ia, ib) else {
                continue;
            };
            let law = &setup.interactions[x as usize].law;
            let mu = m_min[a] * m_min[b] / (m_min[a] + m_min[b]);
            let c = law.stiffness(r_max[a] * r_max[b] / (r_max[a] + r_max[b]));
            consider(elastic_contact_time(c, law.n, mu, v_pair), v_pair);
        }
        for w in 0..setup.walls.len() {
            let Some(ia) = first[a] else {
                continue;
            };
            let x = setup.wall_interaction(ia, w);
            let law = &setup.interactions[x as usize].law;
            let c = law.stiffness(r_max[a]);
            consider(elastic_contact_time(c, law.n, m_min[a], v_wall), v_wall);
        }
    }
    best
}

/// The increment the model asks for.
pub fn choose(setup: &Setup, time_step: &TimeStep, steps: &[Step], initial: &[&Contact]) -> Choice {
    let (contact_time, speed) = stiffest(setup, initial);
    let shortest_output = steps
        .iter()
        .map(|s| s.output_interval.min(s.duration))
        .fold(f64::INFINITY, f64::min);
    let dt = match (time_step.dt, time_step.steps_per_contact, contact_time) {
        (Some(dt), _, _) => dt,
        (None, Some(n), Some(t)) => t / n,
        (None, None, Some(t)) => (t / AUTOMATIC_STEPS_PER_CONTACT).min(shortest_output),
        // Nothing can collide (or nothing moves): velocity Verlet is exact in free flight
        // under constant gravity, so the outputs set the pace.
        (None, _, None) => shortest_output,
    };
    Choice {
        dt,
        reference_contact_time: contact_time,
        reference_speed: speed,
    }
}

/// The increments of a step of `duration` at most `dt` long: equal ones that end the step
/// exactly. A ratio within 1e-9 of a whole number is taken as that number.
pub fn increments(duration: f64, dt: f64) -> u64 {
    let ratio = duration / dt;
    let whole = ratio.round();
    let k = if (ratio - whole).abs() <= 1e-9 * whole.max(1.0) {
        whole
    } else {
        ratio.ceil()
    };
    k.max(1.0) as u64
}
