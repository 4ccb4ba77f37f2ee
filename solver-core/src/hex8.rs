//! The one-point hex8: uniform-strain gradient at the centre, the stress update, bulk
//! viscosity, Flanagan-Belytschko viscous hourglass control, and the element's critical
//! increment. One call per element per increment; no allocation.

use crate::material::{voigt_to_matrix, Elastic};
use impact_protocol::HEX8_FACES;

/// Natural coordinates (xi, eta, zeta) of the eight nodes.
pub const NODE_SIGNS: [[f64; 3]; 8] = [
    [-1.0, -1.0, -1.0],
    [1.0, -1.0, -1.0],
    [1.0, 1.0, -1.0],
    [-1.0, 1.0, -1.0],
    [-1.0, -1.0, 1.0],
    [1.0, -1.0, 1.0],
    [1.0, 1.0, 1.0],
    [-1.0, 1.0, 1.0],
];

/// Hourglass base vectors: eta zeta, xi zeta, xi eta, xi eta zeta at the nodes.
const HOURGLASS: [[f64; 8]; 4] = [
    [1.0, 1.0, -1.0, -1.0, -1.0, -1.0, 1.0, 1.0],
    [1.0, -1.0, -1.0, 1.0, -1.0, 1.0, 1.0, -1.0],
    [1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0],
    [-1.0, 1.0, -1.0, 1.0, 1.0, -1.0, 1.0, -1.0],
];

/// The numbers of the integrator that every element shares.
#[derive(Clone, Copy, Debug)]
pub struct ElementControls {
    pub bulk_linear: f64,
    pub bulk_quadratic: f64,
    pub hourglass: f64,
}

/// What one element update gives back.
#[derive(Clone, Copy, Debug, Default)]
pub struct ElementUpdate {
    /// Internal, viscous and hourglass forces on the eight nodes (minus the divergence).
    pub forces: [[f64; 3]; 8],
    pub stress: [f64; 6],
    pub internal_work: f64,
    pub viscous_work: f64,
    pub hourglass_work: f64,
    /// The element's critical increment with bulk viscosity (before the user's scale).
    pub critical_increment: f64,
    pub volume: f64,
}

/// Jacobian of the map from natural to physical coordinates at the centre (rows: x, y, z;
/// columns: d/dxi, d/deta, d/dzeta).
pub fn centre_jacobian(x: &[[f64; 3]; 8]) -> [[f64; 3]; 3] {
    let mut j = [[0.0; 3]; 3];
    for (xi, s) in x.iter().zip(NODE_SIGNS.iter()) {
        for r in 0..3 {
            for c in 0..3 {
                j[r][c] += xi[r] * s[c] * 0.125;
            }
        }
    }
    j
}

/// det J at a natural point (for the shape checks at the corners).
pub fn jacobian_det_at(x: &[[f64; 3]; 8], p: [f64; 3]) -> f64 {
    let mut j = [[0.0; 3]; 3];
    for (xi, s) in x.iter().zip(NODE_SIGNS.iter()) {
        let f = [1.0 + s[0] * p[0], 1.0 + s[1] * p[1], 1.0 + s[2] * p[2]];
        let dn = [s[0] * f[1] * f[2], f[0] * s[1] * f[2], f[0] * f[1] * s[2]];
        for r in 0..3 {
            for c in 0..3 {
                j[r][c] += xi[r] * dn[c] * 0.125;
            }
        }
    }
    det3(&j)
}

pub fn det3(m: &[[f64; 3]; 3]) -> f64 {
    m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
        - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
        + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
}

fn inverse3(m: &[[f64; 3]; 3], det: f64) -> [[f64; 3]; 3] {
    let inv = 1.0 / det;
    [
        [
            (m[1][1] * m[2][2] - m[1][2] * m[2][1]) * inv,
            (m[0][2] * m[2][1] - m[0][1] * m[2][2]) * inv,
            (m[0][1] * m[1][2] - m[0][2] * m[1][1]) * inv,
        ],
        [
            (m[1][2] * m[2][0] - m[1][0] * m[2][2]) * inv,
            (m[0][0] * m[2][2] - m[0][2] * m[2][0]) * inv,
            (m[0][2] * m[1][0] - m[0][0] * m[1][2]) * inv,
        ],
        [
            (m[1][0] * m[2][1] - m[1][1] * m[2][0]) * inv,
            (m[0][1] * m[2][0] - m[0][0] * m[2][1]) * inv,
            (m[0][0] * m[1][1] - m[0][1] * m[1][0]) * inv,
        ],
    ]
}

/// Volume (one-point rule) and the characteristic length V / (largest face area).
pub fn volume_and_length(x: &[[f64; 3]; 8]) -> (f64, f64) {
    let volume = 8.0 * det3(&centre_jacobian(x));
    (volume, characteristic_length(x, volume))
}

/// V / (largest face area), the length LS-DYNA's solids take for the stable increment.
pub fn characteristic_length(x: &[[f64; 3]; 8], volume: f64) -> f64 {
    // Compare squared areas; one square root for the largest.
    let mut largest_sq: f64 = 0.0;
    for f in HEX8_FACES.iter() {
        let d1 = sub(x[f[2]], x[f[0]]);
        let d2 = sub(x[f[3]], x[f[1]]);
        let n = cross(d1, d2);
        largest_sq = largest_sq.max(dot(n, n));
    }
    volume / (0.5 * largest_sq.sqrt())
}

/// Update one element over the increment `dt`: `x` are the nodes' positions at the end of
/// the increment, `v` their velocities over it.
pub fn update(
    x: &[[f64; 3]; 8],
    v: &[[f64; 3]; 8],
    stress: &[f64; 6],
    mat: &Elastic,
    ctl: &ElementControls,
    dt: f64,
) -> ElementUpdate {
    let jac = centre_jacobian(x);
    let det = det3(&jac);
    let volume = 8.0 * det;
    if det <= 0.0 || !det.is_finite() {
        return ElementUpdate {
            volume,
            ..ElementUpdate::default()
        };
    }
    let b = gradient(&jac, det);
    let mut l = [[0.0; 3]; 3];
    for (vi, bi) in v.iter().zip(b.iter()) {
        for r in 0..3 {
            for c in 0..3 {
                l[r][c] += vi[r] * bi[c];
            }
        }
    }
    let mut d = [[0.0; 3]; 3];
    let mut w = [[0.0; 3]; 3];
    for r in 0..3 {
        for c in 0..3 {
            d[r][c] = 0.5 * (l[r][c] + l[c][r]);
            w[r][c] = 0.5 * (l[r][c] - l[c][r]);
        }
    }
    let new_stress = mat.update(stress, &d, &w, dt);

    let length = characteristic_length(x, volume);
    let c = mat.wave_speed;
    let volumetric_rate = d[0][0] + d[1][1] + d[2][2];
    let q = if volumetric_rate < 0.0 {
        mat.rho
            * length
            * (ctl.bulk_quadratic * length * volumetric_rate * volumetric_rate
                - ctl.bulk_linear * c * volumetric_rate)
    } else {
        0.0
    };
    let stable = stable_length(&b, mat);
    let q_speed = if volumetric_rate < 0.0 {
        ctl.bulk_linear * c + ctl.bulk_quadratic * stable * volumetric_rate.abs()
    } else {
        0.0
    };
    let critical_increment = stable / (q_speed + (q_speed * q_speed + c * c).sqrt());

    let s_old = voigt_to_matrix(stress);
    let s_new = voigt_to_matrix(&new_stress);
    let mut internal_power = 0.0;
    for r in 0..3 {
        for cc in 0..3 {
            internal_power += 0.5 * (s_old[r][cc] + s_new[r][cc]) * d[r][cc];
        }
    }
    let mut forces = [[0.0; 3]; 8];
    for (f, bi) in forces.iter_mut().zip(b.iter()) {
        for r in 0..3 {
            let mut t = -q * bi[r];
            for cc in 0..3 {
                t += s_new[r][cc] * bi[cc];
            }
            f[r] = -volume * t;
        }
    }

    // Flanagan-Belytschko: project the velocities on the hourglass vectors made orthogonal
    // to every linear field, and resist those modes with a viscous force.
    let mut hourglass_work = 0.0;
    if ctl.hourglass > 0.0 {
        let cube_root = volume.cbrt();
        let a_h = ctl.hourglass * mat.rho * c * cube_root * cube_root / 4.0;
        for h in HOURGLASS.iter() {
            let mut hx = [0.0; 3];
            for (hi, xi) in h.iter().zip(x.iter()) {
                for r in 0..3 {
                    hx[r] += hi * xi[r];
                }
            }
            let mut gamma = [0.0; 8];
            for i in 0..8 {
                gamma[i] = h[i] - (hx[0] * b[i][0] + hx[1] * b[i][1] + hx[2] * b[i][2]);
            }
            let mut qv = [0.0; 3];
            for (g, vi) in gamma.iter().zip(v.iter()) {
                for r in 0..3 {
                    qv[r] += g * vi[r];
                }
            }
            for (f, g) in forces.iter_mut().zip(gamma.iter()) {
                for r in 0..3 {
                    f[r] -= a_h * qv[r] * g;
                }
            }
            hourglass_work += a_h * (qv[0] * qv[0] + qv[1] * qv[1] + qv[2] * qv[2]) * dt;
        }
    }

    ElementUpdate {
        forces,
        stress: new_stress,
        internal_work: volume * internal_power * dt,
        viscous_work: -q * volumetric_rate * volume * dt,
        hourglass_work,
        critical_increment,
        volume,
    }
}

/// The critical increment of an element at rest (no bulk viscosity term), for the first one.
pub fn critical_increment_at_rest(x: &[[f64; 3]; 8], mat: &Elastic, ctl: &ElementControls) -> f64 {
    let jac = centre_jacobian(x);
    let det = det3(&jac);
    if det.is_nan() || det <= 0.0 {
        return f64::INFINITY;
    }
    let stable = stable_length(&gradient(&jac, det), mat);
    let q = ctl.bulk_linear * mat.wave_speed;
    stable / (q + (q * q + mat.wave_speed * mat.wave_speed).sqrt())
}

/// The shape functions' gradients at the centre: b[I][i] = dN_I/dx_i
/// = sum_j Jinv[j][i] dN_I/dxi_j, with dN_I/dxi_j = sign / 8 there.
fn gradient(jac: &[[f64; 3]; 3], det: f64) -> [[f64; 3]; 8] {
    let jinv = inverse3(jac, det);
    let mut b = [[0.0; 3]; 8];
    for (bi, s) in b.iter_mut().zip(NODE_SIGNS.iter()) {
        for i in 0..3 {
            bi[i] = 0.125 * (jinv[0][i] * s[0] + jinv[1][i] * s[1] + jinv[2][i] * s[2]);
        }
    }
    b
}

/// The length L = 2 c / omega_max that gives the element's critical increment L / c, from
/// a bound on its highest frequency with lumped masses rho V / 8:
/// omega^2 <= (8 / rho) (lambda sum_I |b_I|^2 + 2 mu g), g the largest Gershgorin row sum
/// of G = sum_I b_I b_I^T (Cauchy-Schwarz on the trace and on the gradient). It is exact for
/// a free cube's breathing mode, where V / (largest face area) overestimates the increment
/// by sqrt((3 lambda + 2 mu) / (lambda + 2 mu)) and a one-element-thick body with nu > 0
/// goes unstable; for a slender element in uniaxial strain it equals V / (largest face).
pub fn stable_length(b: &[[f64; 3]; 8], mat: &Elastic) -> f64 {
    let mut g = [[0.0; 3]; 3];
    let mut sum = 0.0;
    for bi in b {
        for r in 0..3 {
            for c in 0..3 {
                g[r][c] += bi[r] * bi[c];
            }
        }
        sum += dot(*bi, *bi);
    }
    let row = |r: usize| g[r][0].abs() + g[r][1].abs() + g[r][2].abs();
    let gershgorin = row(0).max(row(1)).max(row(2));
    ((mat.lambda + 2.0 * mat.mu) / (2.0 * (mat.lambda * sum + 2.0 * mat.mu * gershgorin))).sqrt()
}

pub fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

pub fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

pub fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

pub fn norm(a: [f64; 3]) -> f64 {
    dot(a, a).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use impact_protocol::Material;

    fn cube(scale: [f64; 3]) -> [[f64; 3]; 8] {
        NODE_SIGNS.map(|s| {
            [
                0.5 * (s[0] + 1.0) * scale[0],
                0.5 * (s[1] + 1.0) * scale[1],
                0.5 * (s[2] + 1.0) * scale[2],
            ]
        })
    }

    fn mat(nu: f64) -> Elastic {
        Elastic::new(&Material {
            name: "m".into(),
            kind: Default::default(),
            youngs_modulus: 100.0,
            nu,
            rho: 0.01,
        })
    }

    fn ctl() -> ElementControls {
        ElementControls {
            bulk_linear: 0.0,
            bulk_quadratic: 0.0,
            hourglass: 0.1,
        }
    }

    #[test]
    fn volume_and_length_of_a_box() {
        let (v, l) = volume_and_length(&cube([0.05, 1.0, 1.0]));
        assert!((v - 0.05).abs() < 1e-15);
        assert!((l - 0.05).abs() < 1e-15);
    }

    #[test]
    fn rigid_translation_and_rotation_give_no_force() {
        let x = cube([1.0, 2.0, 0.5]);
        // A rigid spin about z (v = omega x r) plus a translation.
        let v = x.map(|p| [0.3 - 0.7 * p[1], 0.1 + 0.7 * p[0], -0.2]);
        let u = update(&x, &v, &[0.0; 6], &mat(0.3), &ctl(), 1e-3);
        for f in u.forces {
            for c in f {
                assert!(c.abs() < 1e-12, "{c}");
            }
        }
        assert!(u.hourglass_work.abs() < 1e-20);
    }

    #[test]
    fn uniform_stretch_gives_the_traction_on_each_face() {
        // Stretch along x at rate r: sigma_xx = (lambda + 2 mu) r dt; the x+ face's four nodes
        // each carry a quarter of sigma_xx times the face area.
        let x = cube([2.0, 1.0, 1.0]);
        let rate = 1e-2;
        let v = x.map(|p| [rate * p[0], 0.0, 0.0]);
        let m = mat(0.25);
        let dt = 1e-3;
        let u = update(&x, &v, &[0.0; 6], &m, &ctl(), dt);
        let sxx = (m.lambda + 2.0 * m.mu) * rate * dt;
        assert!((u.stress[0] - sxx).abs() < 1e-12 * sxx.abs().max(1.0));
        for (i, s) in NODE_SIGNS.iter().enumerate() {
            let expected = s[0] * sxx * 1.0 / 4.0;
            assert!(
                (u.forces[i][0] - -expected).abs() < 1e-12,
                "node {i}: {}",
                u.forces[i][0]
            );
        }
    }

    #[test]
    fn hourglass_mode_is_resisted_and_dissipates() {
        let x = cube([1.0, 1.0, 1.0]);
        let v = HOURGLASS[2].map(|h| [h * 1e-3, 0.0, 0.0]);
        let u = update(&x, &v, &[0.0; 6], &mat(0.3), &ctl(), 1e-3);
        // The element's strain rate misses the mode: no stress...
        assert!(u.stress.iter().all(|s| s.abs() < 1e-15));
        // ...but the hourglass force opposes it and takes energy.
        let power: f64 = u
            .forces
            .iter()
            .zip(v.iter())
            .map(|(f, vv)| dot(*f, *vv))
            .sum();
        assert!(power < 0.0);
        assert!(u.hourglass_work > 0.0);
    }

    #[test]
    fn critical_increment_of_a_bar_element() {
        // Le = 0.05, c = 100 (E = 100, rho = 0.01, nu = 0): Le / c without viscosity.
        let x = cube([0.05, 1.0, 1.0]);
        let c = ElementControls {
            bulk_linear: 0.0,
            bulk_quadratic: 0.0,
            hourglass: 0.0,
        };
        assert!((critical_increment_at_rest(&x, &mat(0.0), &c) - 5e-4).abs() < 1e-15);
    }

    #[test]
    fn stable_length_of_a_cube_is_its_breathing_mode() {
        // A free cube of side h with masses rho h^3 / 8: the breathing mode u = e x has
        // omega^2 = 4 (3 lambda + 2 mu) / (rho h^2), so L = h sqrt((lambda + 2 mu) / (3 lambda + 2 mu)).
        let m = mat(0.3);
        let h = 2.0;
        let x = cube([h, h, h]);
        let jac = centre_jacobian(&x);
        let l = stable_length(&gradient(&jac, det3(&jac)), &m);
        let expect = h * ((m.lambda + 2.0 * m.mu) / (3.0 * m.lambda + 2.0 * m.mu)).sqrt();
        assert!((l - expect).abs() < 1e-12 * expect, "{l} {expect}");
    }

    #[test]
    fn a_free_cube_with_poisson_stays_bounded_at_the_stable_increment() {
        // Start the breathing mode and integrate with central differences at 0.99 of the
        // critical increment: a stable scheme keeps the energy bounded.
        let m = mat(0.45);
        let ctl = ElementControls {
            bulk_linear: 0.0,
            bulk_quadratic: 0.0,
            hourglass: 0.0,
        };
        let mut x = cube([1.0, 1.0, 1.0]);
        let mass = m.rho / 8.0;
        let mut v = x.map(|p| {
            [
                1e-3 * (p[0] - 0.5),
                1e-3 * (p[1] - 0.5),
                1e-3 * (p[2] - 0.5),
            ]
        });
        let dt = 0.99 * critical_increment_at_rest(&x, &m, &ctl);
        let mut stress = [0.0; 6];
        let mut a = [[0.0; 3]; 8];
        let energy0: f64 = v.iter().map(|vi| 0.5 * mass * dot(*vi, *vi)).sum();
        let mut largest: f64 = 0.0;
        for _ in 0..2000 {
            for i in 0..8 {
                for k in 0..3 {
                    v[i][k] += 0.5 * dt * a[i][k];
                    x[i][k] += dt * v[i][k];
                }
            }
            let u = update(&x, &v, &stress, &m, &ctl, dt);
            stress = u.stress;
            for i in 0..8 {
                for k in 0..3 {
                    a[i][k] = u.forces[i][k] / mass;
                    v[i][k] += 0.5 * dt * a[i][k];
                }
            }
            let kinetic: f64 = v.iter().map(|vi| 0.5 * mass * dot(*vi, *vi)).sum();
            largest = largest.max(kinetic);
        }
        assert!(
            largest <= 1.5 * energy0,
            "kinetic energy grew to {} of the start's",
            largest / energy0
        );
    }

    #[test]
    fn inverted_element_reports_negative_volume() {
        let mut x = cube([1.0, 1.0, 1.0]);
        x.swap(0, 4);
        x.swap(1, 5);
        x.swap(2, 6);
        x.swap(3, 7);
        assert!(jacobian_det_at(&x, [0.0; 3]) < 0.0);
    }
}
