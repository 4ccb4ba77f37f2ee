//! Coulomb friction with an exponential decay between the static and the dynamic
//! coefficient, mu = mu_d + (mu_s - mu_d) exp(-decay |v_slip|), applied by a regularised
//! return map: an elastic tangential spring (the trial force) that slides once it reaches
//! mu times the normal force.

use crate::hex8::{dot, norm};
use impact_protocol::Friction;

/// The coefficient at a slip speed.
pub fn coefficient(law: &Friction, slip_speed: f64) -> f64 {
    let mu_s = law.static_coefficient;
    let mu_d = law.dynamic_coefficient.unwrap_or(mu_s);
    mu_d + (mu_s - mu_d) * (-law.decay * slip_speed).exp()
}

/// One return-map step at a node: `previous` the tangential force of the last increment,
/// `normal` the unit normal now, `slip` the relative tangential displacement over the
/// increment (any normal part is dropped), `stiffness` the tangential spring, `limit_normal`
/// the normal force. Returns the new tangential force on the node.
pub fn return_map(
    law: &Friction,
    previous: [f64; 3],
    normal: [f64; 3],
    slip: [f64; 3],
    dt: f64,
    stiffness: f64,
    normal_force: f64,
) -> [f64; 3] {
    let tangential = |v: [f64; 3]| {
        let d = dot(v, normal);
        [
            v[0] - d * normal[0],
            v[1] - d * normal[1],
            v[2] - d * normal[2],
        ]
    };
    // The old force turned into today's tangent plane, its size kept.
    let old = tangential(previous);
    let (size_prev, size_old) = (norm(previous), norm(old));
    let old = if size_old > 0.0 {
        old.map(|v| v * size_prev / size_old)
    } else {
        old
    };
    let du = tangential(slip);
    let trial = [
        old[0] - stiffness * du[0],
        old[1] - stiffness * du[1],
        old[2] - stiffness * du[2],
    ];
    let slip_speed = if dt > 0.0 { norm(du) / dt } else { 0.0 };
    let limit = coefficient(law, slip_speed) * normal_force;
    let size = norm(trial);
    if size > limit && size > 0.0 {
        trial.map(|v| v * limit / size)
    } else {
        trial
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn law() -> Friction {
        Friction {
            static_coefficient: 0.5,
            dynamic_coefficient: Some(0.2),
            decay: 2.0,
        }
    }

    #[test]
    fn the_coefficient_decays_from_static_to_dynamic() {
        let l = law();
        assert_eq!(coefficient(&l, 0.0), 0.5);
        assert!((coefficient(&l, 1.0) - (0.2 + 0.3 * (-2.0f64).exp())).abs() < 1e-15);
        assert!((coefficient(&l, 1e3) - 0.2).abs() < 1e-15);
    }

    #[test]
    fn sticks_below_the_limit_and_slides_at_it() {
        let l = law();
        let n = [0.0, 0.0, 1.0];
        // A small slip: the spring's force, opposite the slip.
        let f = return_map(&l, [0.0; 3], n, [1e-6, 0.0, 0.0], 1.0, 100.0, 10.0);
        assert!((f[0] + 1e-4).abs() < 1e-18 && f[1] == 0.0 && f[2] == 0.0);
        // A large one: mu(v) N against the slip; the normal part of the slip is dropped.
        let f = return_map(&l, [0.0; 3], n, [1.0, 0.0, 5.0], 1.0, 100.0, 10.0);
        let mu = coefficient(&l, 1.0);
        assert!((f[0] + mu * 10.0).abs() < 1e-12, "{f:?}");
        assert!(f[2].abs() < 1e-15);
    }
}
