//! The mechanical state of the particles as sums: kinetic energy, the elastic energy the
//! overlaps hold, the work of gravity, momentum and centre of mass. Sums run serially in
//! particle order, so they are the same bits on any number of threads. An empty sum is
//! +0 (Rust's float sum of nothing is -0, which a summary would print as "-0.0").

use super::contact::Contact;
use super::laws::elastic_energy;
use super::setup::Setup;

pub fn kinetic(setup: &Setup, v: &[[f64; 3]]) -> f64 {
    setup
        .mass
        .iter()
        .zip(v)
        .map(|(m, v)| 0.5 * m * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]))
        .sum::<f64>()
        + 0.0
}

/// The elastic energy of every overlapping contact: c x^(n+1) / (n+1).
pub fn contact<'a>(setup: &Setup, contacts: impl Iterator<Item = &'a Contact>) -> f64 {
    contacts
        .filter(|c| c.overlap > 0.0)
        .map(|c| {
            let n = setup.interactions[c.interaction as usize].law.n;
            elastic_energy(c.c, n, c.overlap)
        })
        .sum::<f64>()
        + 0.0
}

/// The work gravity has done since the start: Σ m g·(x - x0).
pub fn gravity_work(setup: &Setup, x: &[[f64; 3]]) -> f64 {
    let g = setup.gravity;
    if g == [0.0; 3] {
        return 0.0;
    }
    setup
        .mass
        .iter()
        .zip(x.iter().zip(&setup.position))
        .map(|(m, (x, x0))| {
            m * (g[0] * (x[0] - x0[0]) + g[1] * (x[1] - x0[1]) + g[2] * (x[2] - x0[2]))
        })
        .sum::<f64>()
        + 0.0
}

pub fn momentum(setup: &Setup, v: &[[f64; 3]]) -> [f64; 3] {
    let mut p = [0.0; 3];
    for (m, v) in setup.mass.iter().zip(v) {
        for k in 0..3 {
            p[k] += m * v[k];
        }
    }
    p
}

pub fn total_mass(setup: &Setup) -> f64 {
    setup.mass.iter().sum()
}

pub fn centre_of_mass(setup: &Setup, x: &[[f64; 3]]) -> [f64; 3] {
    let mut s = [0.0; 3];
    for (m, x) in setup.mass.iter().zip(x) {
        for k in 0..3 {
            s[k] += m * x[k];
        }
    }
    let total = total_mass(setup);
    [s[0] / total, s[1] / total, s[2] / total]
}
