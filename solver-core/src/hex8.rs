//! The one-point hex8: uniform-strain gradient at the centre, the stress update, bulk
//! viscosity, Flanagan-Belytschko viscous hourglass control, and the element's critical
//! increment. One body (`update_lanes`) for one element and for a batch side by side in the
//! lanes of `lanes::Batch` (`update_batch`, the solver's path); no allocation.

use crate::lanes::{Batch, Lane};
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
pub const HOURGLASS: [[f64; 8]; 4] = [
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
pub struct ElementUpdate<T = f64> {
    /// Internal, viscous and hourglass forces on the eight nodes (minus the divergence).
    pub forces: [[T; 3]; 8],
    pub stress: [T; 6],
    pub internal_work: T,
    pub viscous_work: T,
    pub hourglass_work: T,
    /// The element's critical increment with bulk viscosity (before the user's scale).
    pub critical_increment: T,
    pub volume: T,
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

#[inline(always)]
pub fn det3<T: Lane>(m: &[[T; 3]; 3]) -> T {
    m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
        - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
        + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
}

#[inline(always)]
fn inverse3<T: Lane>(m: &[[T; 3]; 3], det: T) -> [[T; 3]; 3] {
    let inv = T::splat(1.0) / det;
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
#[inline(always)]
pub fn characteristic_length<T: Lane>(x: &[[T; 3]; 8], volume: T) -> T {
    // Compare squared areas; one square root for the largest.
    let mut largest_sq = T::splat(0.0);
    for f in HEX8_FACES.iter() {
        let d1 = sub(x[f[2]], x[f[0]]);
        let d2 = sub(x[f[3]], x[f[1]]);
        let n = cross(d1, d2);
        largest_sq = largest_sq.max(dot(n, n));
    }
    volume / (T::splat(0.5) * largest_sq.sqrt())
}

/// The 8-point Walsh transform of nodal vectors: `out[k] = sum_I basis_k[I] y[I]` over the
/// basis 1, xi, eta, zeta (the node signs) and eta zeta, xi zeta, xi eta, xi eta zeta (the
/// hourglass vectors), in that order. The eight are orthogonal with norm^2 8, so this is
/// the one-point hex8's whole kinematics: out[1..4] are 8 times the columns of the centre
/// Jacobian (or of the velocity's natural derivatives), out[4..8] the hourglass modes.
/// Three butterfly stages (xi, eta, zeta): 72 additions where the sums one by one take 168
/// multiply-adds.
#[inline(always)]
pub fn walsh<T: Lane>(y: &[[T; 3]; 8]) -> [[T; 3]; 8] {
    // Pairs along xi (the xi+ node minus the xi- one), at (eta, zeta) = (-,-), (+,-), (-,+), (+,+).
    let (s00, d00) = (add(y[1], y[0]), sub(y[1], y[0]));
    let (s10, d10) = (add(y[2], y[3]), sub(y[2], y[3]));
    let (s01, d01) = (add(y[5], y[4]), sub(y[5], y[4]));
    let (s11, d11) = (add(y[6], y[7]), sub(y[6], y[7]));
    // Along eta, at zeta = - (0) and + (1): sums over xi and eta (1), eta, xi, xi eta.
    let (one0, eta0, xi0, xieta0) = (add(s10, s00), sub(s10, s00), add(d10, d00), sub(d10, d00));
    let (one1, eta1, xi1, xieta1) = (add(s11, s01), sub(s11, s01), add(d11, d01), sub(d11, d01));
    // Along zeta.
    [
        add(one1, one0),
        add(xi1, xi0),
        add(eta1, eta0),
        sub(one1, one0),
        sub(eta1, eta0),
        sub(xi1, xi0),
        add(xieta1, xieta0),
        sub(xieta1, xieta0),
    ]
}

/// The transpose of `walsh`: nodal vectors `y[I] = sum_k basis_k[I] c[k]` from coefficients
/// in `walsh`'s order (the butterflies run backwards, without the halving of an inverse).
#[inline(always)]
pub fn walsh_expand<T: Lane>(c: &[[T; 3]; 8]) -> [[T; 3]; 8] {
    let (one1, one0) = (add(c[0], c[3]), sub(c[0], c[3]));
    let (xi1, xi0) = (add(c[1], c[5]), sub(c[1], c[5]));
    let (eta1, eta0) = (add(c[2], c[4]), sub(c[2], c[4]));
    let (xieta1, xieta0) = (add(c[6], c[7]), sub(c[6], c[7]));
    let (s10, s00) = (add(one0, eta0), sub(one0, eta0));
    let (d10, d00) = (add(xi0, xieta0), sub(xi0, xieta0));
    let (s11, s01) = (add(one1, eta1), sub(one1, eta1));
    let (d11, d01) = (add(xi1, xieta1), sub(xi1, xieta1));
    [
        sub(s00, d00),
        add(s00, d00),
        add(s10, d10),
        sub(s10, d10),
        sub(s01, d01),
        add(s01, d01),
        add(s11, d11),
        sub(s11, d11),
    ]
}

/// The centre gradient in natural directions: `g[j][i] = Jinv[j][i] / 8`, so that the
/// shape functions' gradients are b[I] = sum_j sign_j(I) g[j].
#[inline(always)]
fn natural_gradient<T: Lane>(jac: &[[T; 3]; 3], det: T) -> [[T; 3]; 3] {
    let e = T::splat(0.125);
    let i = inverse3(jac, det);
    // Written out: `array::map` here compiled to calls and copies.
    [
        [e * i[0][0], e * i[0][1], e * i[0][2]],
        [e * i[1][0], e * i[1][1], e * i[1][2]],
        [e * i[2][0], e * i[2][1], e * i[2][2]],
    ]
}

/// The stress's force coefficient on the node signs s_j: t_j = -V (sigma - q 1) g_j, in
/// the order of the sums the node-by-node form makes.
#[inline(always)]
fn stress_traction<T: Lane>(s: &[[T; 3]; 3], q: T, volume: T, g: [T; 3]) -> [T; 3] {
    let row = |r: usize| -volume * (-q * g[r] + s[r][0] * g[0] + s[r][1] * g[1] + s[r][2] * g[2]);
    [row(0), row(1), row(2)]
}

/// Update one element over the increment `dt`: `x` are the nodes' positions at the end of
/// the increment, `v` their velocities over it. See `update_lanes`.
pub fn update(
    x: &[[f64; 3]; 8],
    v: &[[f64; 3]; 8],
    stress: &[f64; 6],
    mat: &Elastic,
    ctl: &ElementControls,
    dt: f64,
) -> ElementUpdate {
    let u = update_lanes(x, v, stress, mat, ctl, dt);
    if sound(u.volume) {
        u
    } else {
        ElementUpdate {
            volume: u.volume,
            ..ElementUpdate::default()
        }
    }
}

/// Whether an element of this volume can be updated: positive and finite.
pub fn sound(volume: f64) -> bool {
    volume > 0.0 && volume.is_finite()
}

/// How many elements one batch updates side by side: eight where the build has AVX-512,
/// four elsewhere (`lanes::Batch`).
pub const LANES: usize = Batch::LANES;

/// Update a batch of elements side by side, one in each lane (see `update_lanes`): the
/// same bits as `update` element by element. The lanes are one 512-bit register where the
/// build has AVX-512, one 256-bit register where it has AVX, two SSE2 ones on baseline
/// x86-64. Each lane has its own increment: with subcycling, a batch may hold elements of
/// two levels.
pub fn update_batch(
    x: &[[Batch; 3]; 8],
    v: &[[Batch; 3]; 8],
    stress: &[Batch; 6],
    mat: &Elastic<Batch>,
    ctl: &ElementControls,
    dt: Batch,
) -> ElementUpdate<Batch> {
    update_lanes(x, v, stress, mat, ctl, dt)
}

/// Update elements over the increment `dt`, one per lane of `T`: `x` are the nodes'
/// positions at the end of the increment, `v` their velocities over it.
///
/// Everything runs on the Walsh coefficients of `x` and `v` (see `walsh`): with
/// b[I] = sum_j s_j(I) g[j] and the basis orthogonal, the velocity gradient is
/// L = sum_j wv[j] g[j]^T, the stress forces are the expansion of three vectors, and the
/// Flanagan-Belytschko projection gamma_a = h_a - sum_j (hx_a . g[j]) s_j needs only the
/// twelve numbers hx_a . g[j]. The same algebra as summing over the nodes, in about a
/// third of the operations.
///
/// No branch depends on a lane's values (lanes go their own ways by `select_lt`). An
/// inverted or degenerate element (`volume` not positive and finite) gets meaningless
/// numbers in the other fields: `update` and the solver's element loop drop them.
#[inline(always)]
pub fn update_lanes<T: Lane>(
    x: &[[T; 3]; 8],
    v: &[[T; 3]; 8],
    stress: &[T; 6],
    mat: &Elastic<T>,
    ctl: &ElementControls,
    dt: T,
) -> ElementUpdate<T> {
    let zero = T::splat(0.0);
    let wx = walsh(x);
    // J[r][c] = sum_I x_I[r] s_c(I) / 8.
    let e = T::splat(0.125);
    let jac = [
        [e * wx[1][0], e * wx[2][0], e * wx[3][0]],
        [e * wx[1][1], e * wx[2][1], e * wx[3][1]],
        [e * wx[1][2], e * wx[2][2], e * wx[3][2]],
    ];
    let det = det3(&jac);
    let volume = T::splat(8.0) * det;
    let g = natural_gradient(&jac, det);
    let wv = walsh(v);
    // L[r][c] = sum_I v_I[r] b_I[c] = sum_j wv[1 + j][r] g[j][c].
    let mut l = [[zero; 3]; 3];
    for r in 0..3 {
        for c in 0..3 {
            l[r][c] = wv[1][r] * g[0][c] + wv[2][r] * g[1][c] + wv[3][r] * g[2][c];
        }
    }
    let half = T::splat(0.5);
    let mut d = [[zero; 3]; 3];
    let mut w = [[zero; 3]; 3];
    for r in 0..3 {
        for c in 0..3 {
            d[r][c] = half * (l[r][c] + l[c][r]);
            w[r][c] = half * (l[r][c] - l[c][r]);
        }
    }
    let new_stress = mat.update(stress, &d, &w, dt);

    let c = mat.wave_speed;
    let (bulk_linear, bulk_quadratic) = (T::splat(ctl.bulk_linear), T::splat(ctl.bulk_quadratic));
    let volumetric_rate = d[0][0] + d[1][1] + d[2][2];
    // Bulk viscosity acts on compressing elements only (volumetric rate below zero).
    let compressing = |value: T| T::select_lt(volumetric_rate, zero, value, zero);
    let length = characteristic_length(x, volume);
    let q = compressing(
        mat.rho
            * length
            * (bulk_quadratic * length * volumetric_rate * volumetric_rate
                - bulk_linear * c * volumetric_rate),
    );
    let stable = stable_length(&g, mat);
    let q_speed = compressing(bulk_linear * c + bulk_quadratic * stable * volumetric_rate.abs());
    let critical_increment = stable / (q_speed + (q_speed * q_speed + c * c).sqrt());

    let s_old = voigt_to_matrix(stress);
    let s_new = voigt_to_matrix(&new_stress);
    let mut internal_power = zero;
    for r in 0..3 {
        for cc in 0..3 {
            internal_power = internal_power + half * (s_old[r][cc] + s_new[r][cc]) * d[r][cc];
        }
    }
    // The forces' Walsh coefficients: f_I = sum_k basis_k(I) coef[k]. The stress gives
    // f_I = -V (sigma - q 1) b_I = sum_j s_j(I) t_j with t_j = -V (sigma - q 1) g[j].
    // The coefficients on s_j (here the stress's, below the hourglass modes' too) and on
    // h_a are values written out, not arrays filled in loops: a zeroed array filled in
    // place was a 768-byte memset a batch, and loops over its 3 x 3 entries became
    // AVX-512 masked gathers and scatters through the stack, 24 a batch.
    let mut linear_coef = [
        stress_traction(&s_new, q, volume, g[0]),
        stress_traction(&s_new, q, volume, g[1]),
        stress_traction(&s_new, q, volume, g[2]),
    ];

    // Flanagan-Belytschko: project the velocities on the hourglass vectors made orthogonal
    // to every linear field, gamma_a = h_a - sum_j (hx_a . g[j]) s_j, and resist those
    // modes with a viscous force -a_h (gamma_a . v) gamma_a. With the basis orthogonal,
    // gamma_a . v = wv[4 + a] - sum_j (hx_a . g[j]) wv[1 + j], and the force's
    // coefficients are -a_h qv_a on h_a and +a_h sum_a (hx_a . g[j]) qv_a on s_j.
    let mut hourglass_coef = [[zero; 3]; 4];
    let mut hourglass_work = zero;
    if ctl.hourglass > 0.0 {
        let cube_root = volume.cube_root();
        let a_h = T::splat(ctl.hourglass) * mat.rho * c * cube_root * cube_root / T::splat(4.0);
        for (a, coef) in hourglass_coef.iter_mut().enumerate() {
            let hx = wx[4 + a];
            let proj = [dot(hx, g[0]), dot(hx, g[1]), dot(hx, g[2])];
            let linear_part =
                |r: usize| proj[0] * wv[1][r] + proj[1] * wv[2][r] + proj[2] * wv[3][r];
            let qv = sub(wv[4 + a], [linear_part(0), linear_part(1), linear_part(2)]);
            let f = [a_h * qv[0], a_h * qv[1], a_h * qv[2]];
            *coef = [-f[0], -f[1], -f[2]];
            linear_coef = [
                add(linear_coef[0], scale(f, proj[0])),
                add(linear_coef[1], scale(f, proj[1])),
                add(linear_coef[2], scale(f, proj[2])),
            ];
            hourglass_work = hourglass_work + a_h * dot(qv, qv) * dt;
        }
    }
    let [l1, l2, l3] = linear_coef;
    let [h1, h2, h3, h4] = hourglass_coef;
    let coef = [[zero; 3], l1, l2, l3, h1, h2, h3, h4];

    ElementUpdate {
        forces: walsh_expand(&coef),
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
    let stable = stable_length(&natural_gradient(&jac, det), mat);
    let q = ctl.bulk_linear * mat.wave_speed;
    stable / (q + (q * q + mat.wave_speed * mat.wave_speed).sqrt())
}

/// The shape functions' gradients at the centre: b[I][i] = dN_I/dx_i
/// = sum_j Jinv[j][i] dN_I/dxi_j, with dN_I/dxi_j = sign / 8 there.
#[cfg(test)]
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
///
/// Takes the natural gradient `ng` (b_I = sum_j s_j(I) ng[j]): the node signs are
/// orthogonal with sum_I s_j(I) s_k(I) = 8 delta_jk, so G = 8 sum_j ng[j] ng[j]^T.
#[inline(always)]
pub fn stable_length<T: Lane>(ng: &[[T; 3]; 3], mat: &Elastic<T>) -> T {
    let eight = T::splat(8.0);
    let mut g = [[T::splat(0.0); 3]; 3];
    for r in 0..3 {
        for c in 0..3 {
            g[r][c] = eight * (ng[0][r] * ng[0][c] + ng[1][r] * ng[1][c] + ng[2][r] * ng[2][c]);
        }
    }
    let sum = g[0][0] + g[1][1] + g[2][2];
    let row = |r: usize| g[r][0].abs() + g[r][1].abs() + g[r][2].abs();
    let gershgorin = row(0).max(row(1)).max(row(2));
    let two = T::splat(2.0);
    ((mat.lambda + two * mat.mu) / (two * (mat.lambda * sum + two * mat.mu * gershgorin))).sqrt()
}

#[inline(always)]
fn add<T: Lane>(a: [T; 3], b: [T; 3]) -> [T; 3] {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

#[inline(always)]
fn scale<T: Lane>(a: [T; 3], s: T) -> [T; 3] {
    [a[0] * s, a[1] * s, a[2] * s]
}

#[inline(always)]
pub fn sub<T: Lane>(a: [T; 3], b: [T; 3]) -> [T; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

#[inline(always)]
pub fn cross<T: Lane>(a: [T; 3], b: [T; 3]) -> [T; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

#[inline(always)]
pub fn dot<T: Lane>(a: [T; 3], b: [T; 3]) -> T {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

#[inline(always)]
pub fn norm<T: Lane>(a: [T; 3]) -> T {
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

    /// The Walsh basis in `walsh`'s order, written out from its definition.
    fn basis() -> [[f64; 8]; 8] {
        let mut b = [[0.0; 8]; 8];
        for (i, s) in NODE_SIGNS.iter().enumerate() {
            b[0][i] = 1.0;
            b[1][i] = s[0];
            b[2][i] = s[1];
            b[3][i] = s[2];
            for a in 0..4 {
                b[4 + a][i] = HOURGLASS[a][i];
            }
        }
        b
    }

    /// A distorted element (no two faces parallel) and velocities with every mode in them.
    fn distorted() -> ([[f64; 3]; 8], [[f64; 3]; 8]) {
        let x = NODE_SIGNS.map(|s| {
            [
                0.5 + 0.5 * s[0] + 0.07 * s[1] * s[2],
                0.3 + 0.6 * s[1] + 0.05 * s[0] + 0.04 * s[0] * s[1] * s[2],
                0.4 * s[2] - 0.06 * s[0] * s[1] + 0.03 * s[1],
            ]
        });
        let v = NODE_SIGNS.map(|s| {
            [
                -0.1 * s[0] + 0.03 * s[1] * s[2] + 0.01,
                0.02 * s[1] * s[2] - 0.04 * s[0] * s[1] * s[2],
                0.05 * s[2] + 0.02 * s[0] * s[2] - 0.03 * s[0] * s[1],
            ]
        });
        (x, v)
    }

    #[test]
    fn walsh_is_the_sum_against_each_basis_vector_and_expand_its_transpose() {
        let (x, _) = distorted();
        let w = walsh(&x);
        let b = basis();
        for k in 0..8 {
            for r in 0..3 {
                let direct: f64 = (0..8).map(|i| b[k][i] * x[i][r]).sum();
                // Sums of eight numbers of order 1 in two orders: a few ulps apart.
                assert!((w[k][r] - direct).abs() < 1e-14, "{k} {r}");
            }
        }
        // <walsh(y), c> = <y, expand(c)> for any y and c: the transpose.
        let c = x.map(|p| [p[1] - p[2], 2.0 * p[0], p[2] + 0.3]);
        let e = walsh_expand(&c);
        for i in 0..8 {
            for r in 0..3 {
                let direct: f64 = (0..8).map(|k| b[k][i] * c[k][r]).sum();
                assert!((e[i][r] - direct).abs() < 1e-14, "{i} {r}");
            }
        }
        // The basis is orthogonal with norm^2 8: expand after walsh is 8 times the identity.
        let back = walsh_expand(&w);
        for i in 0..8 {
            for r in 0..3 {
                assert!((back[i][r] - 8.0 * x[i][r]).abs() < 1e-13);
            }
        }
    }

    /// The one-point hex8 of Flanagan and Belytschko (1981) written node by node, as in the
    /// paper: b_I from the inverse Jacobian, L = sum v_I b_I^T, f_I = -V sigma b_I, and
    /// gamma_a = h_a - (h_a . x_i) b_i for the hourglass; the reference for `update`.
    fn update_by_nodes(
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
        let rate = d[0][0] + d[1][1] + d[2][2];
        let q = if rate < 0.0 {
            mat.rho
                * length
                * (ctl.bulk_quadratic * length * rate * rate - ctl.bulk_linear * c * rate)
        } else {
            0.0
        };
        // sum_I b_I b_I^T and its trace, node by node.
        let mut gg = [[0.0; 3]; 3];
        let mut sum = 0.0;
        for bi in &b {
            for r in 0..3 {
                for cc in 0..3 {
                    gg[r][cc] += bi[r] * bi[cc];
                }
            }
            sum += dot(*bi, *bi);
        }
        let row = |r: usize| gg[r][0].abs() + gg[r][1].abs() + gg[r][2].abs();
        let gersh = row(0).max(row(1)).max(row(2));
        let stable = ((mat.lambda + 2.0 * mat.mu)
            / (2.0 * (mat.lambda * sum + 2.0 * mat.mu * gersh)))
            .sqrt();
        let q_speed = if rate < 0.0 {
            ctl.bulk_linear * c + ctl.bulk_quadratic * stable * rate.abs()
        } else {
            0.0
        };
        let s_new = voigt_to_matrix(&new_stress);
        let s_old = voigt_to_matrix(stress);
        let mut power = 0.0;
        for r in 0..3 {
            for cc in 0..3 {
                power += 0.5 * (s_old[r][cc] + s_new[r][cc]) * d[r][cc];
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
        let cube_root = volume.cube_root();
        let a_h = ctl.hourglass * mat.rho * c * cube_root * cube_root / 4.0;
        let mut hourglass_work = 0.0;
        for h in HOURGLASS.iter() {
            let mut hx = [0.0; 3];
            for (hi, xi) in h.iter().zip(x.iter()) {
                for r in 0..3 {
                    hx[r] += hi * xi[r];
                }
            }
            let gamma: Vec<f64> = (0..8).map(|i| h[i] - dot(hx, b[i])).collect();
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
            hourglass_work += a_h * dot(qv, qv) * dt;
        }
        ElementUpdate {
            forces,
            stress: new_stress,
            internal_work: volume * power * dt,
            viscous_work: -q * rate * volume * dt,
            hourglass_work,
            critical_increment: stable / (q_speed + (q_speed * q_speed + c * c).sqrt()),
            volume,
        }
    }

    #[test]
    fn update_agrees_with_the_node_by_node_formulation() {
        let (x, v) = distorted();
        let m = mat(0.3);
        let ctl = ElementControls {
            bulk_linear: 0.06,
            bulk_quadratic: 1.5,
            hourglass: 0.1,
        };
        let stress = [0.3, -0.2, 0.1, 0.05, -0.04, 0.02];
        let dt = 1e-3;
        let fast = update(&x, &v, &stress, &m, &ctl, dt);
        let slow = update_by_nodes(&x, &v, &stress, &m, &ctl, dt);
        // The same algebra summed in other orders: agreement to rounding, a few ulps of the
        // largest term (the terms here are of order 1e-1 to 1e2).
        let close = |a: f64, b: f64, what: &str| {
            assert!(
                (a - b).abs() <= 1e-13 * (1.0 + b.abs()),
                "{what}: {a} against {b}"
            );
        };
        assert!(fast.hourglass_work > 0.0 && fast.viscous_work > 0.0);
        for i in 0..8 {
            for r in 0..3 {
                close(fast.forces[i][r], slow.forces[i][r], "force");
            }
        }
        for k in 0..6 {
            close(fast.stress[k], slow.stress[k], "stress");
        }
        close(fast.internal_work, slow.internal_work, "internal work");
        close(fast.viscous_work, slow.viscous_work, "viscous work");
        close(fast.hourglass_work, slow.hourglass_work, "hourglass work");
        close(
            fast.critical_increment,
            slow.critical_increment,
            "critical increment",
        );
        close(fast.volume, slow.volume, "volume");
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
        let l = stable_length(&natural_gradient(&jac, det3(&jac)), &m);
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
    fn a_batch_gives_each_lane_the_bits_of_the_element_alone() {
        // Four different elements in the lanes (repeated in a batch of eight, each copy
        // with its own increment): distorted, compressing and expanding, two materials,
        // one inverted element that must not disturb its neighbours, and two increments
        // (subcycling's levels share batches).
        let (x0, v0) = distorted();
        let stretch = |f: f64| x0.map(|p| [f * p[0], p[1] + 0.1 * p[0], p[2]]);
        let mut inverted = cube([1.0, 1.0, 1.0]);
        inverted.swap(0, 4);
        inverted.swap(2, 6);
        let xs = [x0, stretch(1.3), inverted, stretch(0.7)];
        let vs = [
            v0,
            v0.map(|u| u.map(|c| -c)),
            v0,
            v0.map(|u| [u[1], u[2], u[0]]),
        ];
        let stresses = [
            [0.3, -0.2, 0.1, 0.05, -0.04, 0.02],
            [0.0; 6],
            [1.0; 6],
            [-0.5, 0.2, 0.0, 0.0, 0.1, -0.3],
        ];
        let mats = [mat(0.3), mat(0.45), mat(0.3), mat(0.2)];
        let ctl = ElementControls {
            bulk_linear: 0.06,
            bulk_quadratic: 1.5,
            hourglass: 0.1,
        };
        let dts = [1e-3, 2e-3, 1e-3, 2e-3, 3e-3, 1e-3, 5e-4, 2e-3];
        let x: [[Batch; 3]; 8] =
            std::array::from_fn(|k| std::array::from_fn(|r| Batch::from_fn(|l| xs[l % 4][k][r])));
        let v: [[Batch; 3]; 8] =
            std::array::from_fn(|k| std::array::from_fn(|r| Batch::from_fn(|l| vs[l % 4][k][r])));
        let stress: [Batch; 6] = std::array::from_fn(|c| Batch::from_fn(|l| stresses[l % 4][c]));
        let m = Elastic::lanes(crate::lanes::per_lane(|l| &mats[l % 4]));
        let batch = update_batch(&x, &v, &stress, &m, &ctl, Batch::from_fn(|l| dts[l]));
        for (l, &dt) in dts.iter().enumerate().take(LANES) {
            let e = l % 4;
            let alone = update(&xs[e], &vs[e], &stresses[e], &mats[e], &ctl, dt);
            assert_eq!(
                batch.volume.lane(l).to_bits(),
                alone.volume.to_bits(),
                "lane {l}"
            );
            if !sound(alone.volume) {
                assert_eq!(e, 2);
                continue;
            }
            let same = |a: f64, b: f64, what: &str| {
                assert_eq!(a.to_bits(), b.to_bits(), "lane {l} {what}: {a} against {b}")
            };
            for k in 0..8 {
                for r in 0..3 {
                    same(batch.forces[k][r].lane(l), alone.forces[k][r], "force");
                }
            }
            for c in 0..6 {
                same(batch.stress[c].lane(l), alone.stress[c], "stress");
            }
            same(
                batch.internal_work.lane(l),
                alone.internal_work,
                "internal work",
            );
            same(
                batch.viscous_work.lane(l),
                alone.viscous_work,
                "viscous work",
            );
            same(
                batch.hourglass_work.lane(l),
                alone.hourglass_work,
                "hourglass work",
            );
            same(
                batch.critical_increment.lane(l),
                alone.critical_increment,
                "increment",
            );
        }
        // The lanes cover both branches of the bulk viscosity.
        let work: Vec<f64> = [0, 1, 3]
            .iter()
            .map(|&l| batch.viscous_work.lane(l))
            .collect();
        assert!(
            work.iter().any(|&w| w > 0.0) && work.contains(&0.0),
            "{work:?}"
        );
    }

    #[test]
    fn an_inverted_element_gives_no_force() {
        let mut x = cube([1.0, 1.0, 1.0]);
        x.swap(0, 4);
        x.swap(2, 6);
        let (_, v) = distorted();
        let u = update(&x, &v, &[1.0; 6], &mat(0.3), &ctl(), 1e-3);
        assert!(!sound(u.volume));
        assert_eq!(u.forces, [[0.0; 3]; 8]);
        assert_eq!(u.stress, [0.0; 6]);
        assert_eq!(u.critical_increment, 0.0);
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
