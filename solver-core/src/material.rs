//! Material laws at an integration point. Today: isotropic linear elasticity as a
//! hypoelastic law on the Jaumann rate, so a rigid rotation leaves the stress unchanged.

use crate::lanes::{Batch, Lane};
use impact_protocol::Material;

/// Lamé constants, density and the dilatational wave speed of an elastic material: in
/// `f64` for one element, or in lanes (`Elastic<Batch>`) for a batch of elements side by side.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Elastic<T = f64> {
    pub lambda: T,
    pub mu: T,
    pub rho: T,
    /// sqrt((lambda + 2 mu) / rho): the speed that bounds the stable increment.
    pub wave_speed: T,
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
}

impl Elastic<Batch> {
    /// The materials of a batch's elements, lane by lane.
    #[inline(always)]
    pub fn lanes(m: [&Elastic; Batch::LANES]) -> Self {
        let field = |f: fn(&Elastic) -> f64| Batch::from_fn(|l| f(m[l]));
        Elastic {
            lambda: field(|e| e.lambda),
            mu: field(|e| e.mu),
            rho: field(|e| e.rho),
            wave_speed: field(|e| e.wave_speed),
        }
    }
}

impl<T: Lane> Elastic<T> {
    /// Advance the Cauchy stress (Voigt order xx, yy, zz, xy, yz, zx) over `dt` with the
    /// rate of deformation `d` and the spin `w` (both 3x3, row-major).
    #[inline(always)]
    pub fn update(&self, stress: &[T; 6], d: &[[T; 3]; 3], w: &[[T; 3]; 3], dt: T) -> [T; 6] {
        let s = voigt_to_matrix(stress);
        let tr = d[0][0] + d[1][1] + d[2][2];
        let two_mu = T::splat(2.0) * self.mu;
        // The six Voigt components only: the rate of a symmetric stress is symmetric.
        // Jaumann: sigma_dot = C:D + W sigma - sigma W. (Functions, not closures: the
        // closures compiled to calls in the element batch.)
        let lambda_tr = self.lambda * tr;
        [
            normal(&s, d, w, two_mu, lambda_tr, dt, 0),
            normal(&s, d, w, two_mu, lambda_tr, dt, 1),
            normal(&s, d, w, two_mu, lambda_tr, dt, 2),
            shear(&s, d, w, two_mu, dt, 0, 1),
            shear(&s, d, w, two_mu, dt, 1, 2),
            shear(&s, d, w, two_mu, dt, 2, 0),
        ]
    }
}

/// (W sigma - sigma W)[i][j].
#[inline(always)]
fn jaumann_rotation<T: Lane>(s: &[[T; 3]; 3], w: &[[T; 3]; 3], i: usize, j: usize) -> T {
    let mut rot = T::splat(0.0);
    for k in 0..3 {
        rot = rot + (w[i][k] * s[k][j] - s[i][k] * w[k][j]);
    }
    rot
}

/// A diagonal component of the updated stress.
#[inline(always)]
fn normal<T: Lane>(
    s: &[[T; 3]; 3],
    d: &[[T; 3]; 3],
    w: &[[T; 3]; 3],
    two_mu: T,
    lambda_tr: T,
    dt: T,
    i: usize,
) -> T {
    s[i][i] + dt * ((two_mu * d[i][i] + lambda_tr) + jaumann_rotation(s, w, i, i))
}

/// An off-diagonal component of the updated stress.
#[inline(always)]
fn shear<T: Lane>(
    s: &[[T; 3]; 3],
    d: &[[T; 3]; 3],
    w: &[[T; 3]; 3],
    two_mu: T,
    dt: T,
    i: usize,
    j: usize,
) -> T {
    s[i][j] + dt * (two_mu * d[i][j] + jaumann_rotation(s, w, i, j))
}

pub fn voigt_to_matrix<T: Copy>(s: &[T; 6]) -> [[T; 3]; 3] {
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
