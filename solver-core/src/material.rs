//! Material laws at an integration point. Today: isotropic linear elasticity as a
//! hypoelastic law on the Jaumann rate, so a rigid rotation leaves the stress unchanged.

use impact_protocol::Material;

/// Lamé constants, density and the dilatational wave speed of an elastic material.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Elastic {
    pub lambda: f64,
    pub mu: f64,
    pub rho: f64,
    /// sqrt((lambda + 2 mu) / rho): the speed that bounds the stable increment.
    pub wave_speed: f64,
}

impl Elastic {
    pub fn new(m: &Material) -> Self {
        let (e, nu, rho) = (m.youngs_modulus, m.nu, m.rho);
        let lambda = e * nu / ((1.0 + nu) * (1.0 - 2.0 * nu));
        let mu = e / (2.0 * (1.0 + nu));
        Elastic {
            lambda,
            mu,
            rho,
            wave_speed: ((lambda + 2.0 * mu) / rho).sqrt(),
        }
    }

    /// Advance the Cauchy stress (Voigt order xx, yy, zz, xy, yz, zx) over `dt` with the
    /// rate of deformation `d` and the spin `w` (both 3x3, row-major).
    pub fn update(
        &self,
        stress: &[f64; 6],
        d: &[[f64; 3]; 3],
        w: &[[f64; 3]; 3],
        dt: f64,
    ) -> [f64; 6] {
        let s = voigt_to_matrix(stress);
        let tr = d[0][0] + d[1][1] + d[2][2];
        // The six Voigt components only: the rate of a symmetric stress is symmetric.
        let component = |i: usize, j: usize| {
            // Jaumann: sigma_dot = C:D + W sigma - sigma W.
            let mut rot = 0.0;
            for k in 0..3 {
                rot += w[i][k] * s[k][j] - s[i][k] * w[k][j];
            }
            let elastic = 2.0 * self.mu * d[i][j] + if i == j { self.lambda * tr } else { 0.0 };
            s[i][j] + dt * (elastic + rot)
        };
        [
            component(0, 0),
            component(1, 1),
            component(2, 2),
            component(0, 1),
            component(1, 2),
            component(2, 0),
        ]
    }
}

pub fn voigt_to_matrix(s: &[f64; 6]) -> [[f64; 3]; 3] {
    [[s[0], s[3], s[5]], [s[3], s[1], s[4]], [s[5], s[4], s[2]]]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steel() -> Elastic {
        Elastic::new(&Material {
            name: "steel".into(),
            kind: Default::default(),
            youngs_modulus: 210e9,
            nu: 0.3,
            rho: 7850.0,
        })
    }

    #[test]
    fn uniaxial_strain_rate_gives_lame_stresses() {
        let m = steel();
        let d = [[1e-3, 0.0, 0.0], [0.0; 3], [0.0; 3]];
        let s = m.update(&[0.0; 6], &d, &[[0.0; 3]; 3], 1.0);
        assert!((s[0] - (m.lambda + 2.0 * m.mu) * 1e-3).abs() < 1e-6 * s[0]);
        assert!((s[1] - m.lambda * 1e-3).abs() < 1e-6 * s[1]);
        // Hand value: lambda + 2 mu = E (1 - nu) / ((1 + nu)(1 - 2 nu)) for E = 210e9, nu = 0.3.
        assert!((m.lambda + 2.0 * m.mu - 282.6923076923e9).abs() < 1e3);
        assert!((m.wave_speed - 6001.0).abs() < 1.0);
    }

    #[test]
    fn pure_spin_keeps_the_invariants() {
        // A spin rotates the stress; its trace (a rotation invariant) must not change.
        let m = steel();
        let s0 = [3.0, -1.0, 2.0, 0.5, 0.0, 0.0];
        let w = [[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0; 3]];
        let s1 = m.update(&s0, &[[0.0; 3]; 3], &w, 1e-3);
        assert_eq!(s1[0] + s1[1] + s1[2], s0[0] + s0[1] + s0[2]);
        assert_ne!(s1, s0);
    }
}
