//! The penalty stiffness: one place owns it. Each direction of a contact presses with a
//! pressure p = -eps g per unit area, eps = s gamma min(m/A) / dt^2: s the contact's
//! penalty scale, gamma = 1/2 because every contact acts both ways at half the penalty,
//! m/A a node's lumped mass over its tributary ("directional") area on the contact
//! surface, dt the stable increment at the start. Gershgorin's row sums bound it, so that
//! contact never shortens the increment. A contact integrated on the mid-plane takes each
//! pair of faces once for both directions together: at eps / gamma.

/// Each direction's share of the penalty: both ways at half.
pub const GAMMA: f64 = 0.5;

/// The penalty per area of one direction at a node of mass `m` and tributary area `a`:
/// `dt` the stable increment at the start, `widest` the longest increment the elements
/// may take (`widest_increment`), where the room is narrowest.
pub fn per_area(scale: f64, m_over_a: f64, dt: f64, widest: f64, time_step_scale: f64) -> f64 {
    (scale * GAMMA * m_over_a / (dt * dt)).min(room(m_over_a, widest, time_step_scale))
}

/// The longest increment the elements allow, given `dt` at rest: the increment at rest
/// counts the linear bulk viscosity `b1` (a factor b1 + sqrt(1 + b1^2) shorter), which
/// switches off in every element that expands. The stable increment then moves by that
/// factor from one increment to the next as the elements near a contact ring, and a
/// penalty capped at the room of the current increment would jump with it: capped once
/// at this increment's room, it stays put.
pub fn widest_increment(dt: f64, bulk_linear: f64) -> f64 {
    dt * (bulk_linear + (1.0 + bulk_linear * bulk_linear).sqrt())
}

/// The largest penalty per area one direction may use at the increment `dt`.
///
/// The increment is `time_step_scale` (alpha) times the elements' critical one, so their
/// rows of M^-1 K reach at most (2 alpha / dt)^2, and stability asks for (2 / dt)^2 in
/// all. The penalty matrix of one direction, eps * integral of N_a N_b, has row sums
/// 2 eps A_a at a node (its own face's shape functions and the partner face's both sum to
/// one), so the two directions add 4 eps A / m to a row: eps <= (1 - alpha^2) m / (A dt^2).
pub fn room(m_over_a: f64, dt: f64, time_step_scale: f64) -> f64 {
    (1.0 - time_step_scale * time_step_scale) * m_over_a / (dt * dt)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_directions_together_stay_within_the_stability_room() {
        let (m_over_a, dt, alpha) = (2.0, 1e-3, 0.9);
        let eps = per_area(10.0, m_over_a, dt, dt, alpha);
        // Row sum of both directions, 4 eps A / m, plus the elements' (2 alpha / dt)^2.
        let row = 4.0 * eps / m_over_a;
        let elements = (2.0 * alpha / dt).powi(2);
        assert!(row + elements <= (2.0 / dt).powi(2) * (1.0 + 1e-12));
    }

    #[test]
    fn small_scales_are_taken_as_given() {
        assert_eq!(per_area(0.1, 1.0, 1.0, 1.0, 0.9), 0.05);
    }
}
