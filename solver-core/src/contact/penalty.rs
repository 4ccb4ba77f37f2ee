//! The penalty stiffness: one place owns it. A node pressed into a face gets a spring
//! k = s m_min / dt^2 (s the contact's penalty scale, m_min the smaller of the node's and
//! the face's lumped masses, dt the stable increment), capped by Gershgorin's row sums so
//! that contact never shortens the increment, and halved because every contact runs both
//! ways.

/// The spring of one node-face engagement in one direction of a contact.
pub fn node_stiffness(scale: f64, m_min: f64, dt: f64, time_step_scale: f64) -> f64 {
    // The increment is time_step_scale times the elements' critical one, so their rows of
    // M^-1 K sum to at most (2 time_step_scale / dt)^2; a spring k between two nodes adds
    // 2 k / m to a row, and stability asks for at most (2 / dt)^2 in all.
    let room = 2.0 * (1.0 - time_step_scale * time_step_scale) * m_min / (dt * dt);
    0.5 * (scale * m_min / (dt * dt)).min(room)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_directions_together_stay_within_the_stability_room() {
        let (m, dt, alpha) = (2.0, 1e-3, 0.9);
        let k = node_stiffness(10.0, m, dt, alpha);
        // Both directions of a contact together: a spring of 2k between the two nodes.
        let row = 2.0 * (2.0 * k) / m;
        let elements = (2.0 * alpha / dt).powi(2);
        assert!(row + elements <= (2.0 / dt).powi(2) * (1.0 + 1e-12));
    }

    #[test]
    fn small_scales_are_taken_as_given() {
        assert_eq!(node_stiffness(0.1, 1.0, 1.0, 0.9), 0.05);
    }
}
