//! The projection of a node onto a bilinear face by Gauss-Newton: the signed gap along the
//! face's normal and the shape functions at the closest point. The initial-penetration
//! check uses it, node by node, before the first increment.

use crate::hex8::{cross, dot, norm, sub};

const CORNERS: [[f64; 2]; 4] = [[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]];
/// Projections this far outside a face's edge still count as on it (shared edges).
const EDGE_TOLERANCE: f64 = 1e-6;

/// The closest point of the bilinear face `c` to `p`: (signed gap along the outward unit
/// normal, shape functions there, the normal), or None when `p` projects outside the face.
pub fn project(p: [f64; 3], c: &[[f64; 3]; 4]) -> Option<(f64, [f64; 4], [f64; 3])> {
    let (mut xi, mut eta) = (0.0, 0.0);
    let mut t1 = [0.0; 3];
    let mut t2 = [0.0; 3];
    for _ in 0..6 {
        let mut at = [0.0; 3];
        t1 = [0.0; 3];
        t2 = [0.0; 3];
        for (ci, s) in c.iter().zip(CORNERS.iter()) {
            let n = 0.25 * (1.0 + s[0] * xi) * (1.0 + s[1] * eta);
            let dxi = 0.25 * s[0] * (1.0 + s[1] * eta);
            let deta = 0.25 * s[1] * (1.0 + s[0] * xi);
            for k in 0..3 {
                at[k] += n * ci[k];
                t1[k] += dxi * ci[k];
                t2[k] += deta * ci[k];
            }
        }
        let r = sub(at, p);
        let (a, b, d) = (dot(t1, t1), dot(t1, t2), dot(t2, t2));
        let det = a * d - b * b;
        if det.is_nan() || det <= 0.0 {
            return None;
        }
        let (g1, g2) = (dot(t1, r), dot(t2, r));
        let dxi = -(d * g1 - b * g2) / det;
        let deta = -(a * g2 - b * g1) / det;
        xi += dxi;
        eta += deta;
        if dxi.abs() + deta.abs() < 1e-14 {
            break;
        }
    }
    if xi.abs() > 1.0 + EDGE_TOLERANCE || eta.abs() > 1.0 + EDGE_TOLERANCE {
        return None;
    }
    let (xi, eta) = (xi.clamp(-1.0, 1.0), eta.clamp(-1.0, 1.0));
    let shape = CORNERS.map(|s| 0.25 * (1.0 + s[0] * xi) * (1.0 + s[1] * eta));
    let mut at = [0.0; 3];
    for (ci, n) in c.iter().zip(shape.iter()) {
        for k in 0..3 {
            at[k] += n * ci[k];
        }
    }
    let nrm = cross(t1, t2);
    let len = norm(nrm);
    if len.is_nan() || len <= 0.0 {
        return None;
    }
    let normal = [nrm[0] / len, nrm[1] / len, nrm[2] / len];
    Some((dot(sub(p, at), normal), shape, normal))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit_face() -> [[f64; 3]; 4] {
        [
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [1.0, 1.0, 0.0],
            [0.0, 1.0, 0.0],
        ]
    }

    #[test]
    fn projection_gives_gap_and_shape_functions() {
        let (gap, shape, normal) = project([0.25, 0.5, -0.1], &unit_face()).expect("inside");
        assert!((gap + 0.1).abs() < 1e-14);
        assert_eq!(normal, [0.0, 0.0, 1.0]);
        // xi = -0.5, eta = 0: N = (1 -+ 0.5)/4 ...
        let expect = [0.375, 0.125, 0.125, 0.375];
        for (a, b) in shape.iter().zip(expect.iter()) {
            assert!((a - b).abs() < 1e-14);
        }
    }

    #[test]
    fn outside_the_face_is_not_engaged() {
        assert!(project([1.5, 0.5, -0.1], &unit_face()).is_none());
    }
}
