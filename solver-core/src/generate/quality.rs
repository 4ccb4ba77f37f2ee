//! The quality of a hex8 mesh: element sizes (edge lengths), aspect ratios and the ratio
//! of the smallest to the largest corner Jacobian, the numbers a mesher reports so a user
//! sees a bad mesh before a solve fails on it.

use crate::hex8::{jacobian_det_at, NODE_SIGNS};
use impact_protocol::{Mesh, MeshQuality};

/// The twelve edges of a hex8 as local node pairs.
pub const HEX8_EDGES: [[usize; 2]; 12] = [
    [0, 1],
    [1, 2],
    [2, 3],
    [3, 0],
    [4, 5],
    [5, 6],
    [6, 7],
    [7, 4],
    [0, 4],
    [1, 5],
    [2, 6],
    [3, 7],
];

/// The shortest and longest edge of an element.
pub fn edge_range(x: &[[f64; 3]; 8]) -> (f64, f64) {
    HEX8_EDGES
        .iter()
        .fold((f64::INFINITY, 0.0_f64), |(lo, hi), &[a, b]| {
            let d = ((x[a][0] - x[b][0]).powi(2)
                + (x[a][1] - x[b][1]).powi(2)
                + (x[a][2] - x[b][2]).powi(2))
            .sqrt();
            (lo.min(d), hi.max(d))
        })
}

/// The least over the largest of the eight corner Jacobian determinants.
pub fn jacobian_ratio(x: &[[f64; 3]; 8]) -> f64 {
    let (lo, hi) = NODE_SIGNS
        .iter()
        .map(|s| jacobian_det_at(x, *s))
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), d| {
            (lo.min(d), hi.max(d))
        });
    if hi > 0.0 {
        lo / hi
    } else {
        f64::NEG_INFINITY
    }
}

/// The quality of a mesh, in element order (the first element wins a tie).
pub fn quality(mesh: &Mesh) -> MeshQuality {
    let mut q = MeshQuality {
        min_size: f64::INFINITY,
        max_size: 0.0,
        max_aspect_ratio: 0.0,
        min_jacobian_ratio: f64::INFINITY,
        worst_aspect_element: 0,
        worst_jacobian_element: 0,
    };
    for (e, conn) in mesh.elements.iter().enumerate() {
        let x = conn.map(|n| mesh.nodes[n as usize]);
        let (lo, hi) = edge_range(&x);
        q.min_size = q.min_size.min(lo);
        q.max_size = q.max_size.max(hi);
        let aspect = hi / lo;
        if aspect > q.max_aspect_ratio {
            q.max_aspect_ratio = aspect;
            q.worst_aspect_element = e as u32;
        }
        let ratio = jacobian_ratio(&x);
        if ratio < q.min_jacobian_ratio {
            q.min_jacobian_ratio = ratio;
            q.worst_jacobian_element = e as u32;
        }
    }
    if mesh.elements.is_empty() {
        q.min_size = 0.0;
        q.min_jacobian_ratio = 0.0;
    }
    q
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_box_is_perfect_and_a_sheared_one_is_not() {
        let unit = NODE_SIGNS.map(|s| [0.5 * (s[0] + 1.0), 2.0 * (s[1] + 1.0), s[2] + 1.0]);
        assert_eq!(edge_range(&unit), (1.0, 4.0));
        assert_eq!(jacobian_ratio(&unit), 1.0);
        // Pull one corner outward along the diagonal: the corner grows, the far one not.
        let mut pulled = unit;
        pulled[6] = [1.5, 6.0, 3.0];
        let r = jacobian_ratio(&pulled);
        assert!(r > 0.0 && r < 1.0, "{r}");
        // Push it through the opposite face: inverted at that corner.
        pulled[6] = [-1.0, -1.0, -1.0];
        assert!(jacobian_ratio(&pulled) < 0.0);
        let mesh = Mesh {
            nodes: unit.to_vec(),
            elements: vec![[0, 1, 2, 3, 4, 5, 6, 7]],
            ..Mesh::default()
        };
        let q = quality(&mesh);
        assert_eq!(
            (q.min_size, q.max_size, q.max_aspect_ratio),
            (1.0, 4.0, 4.0)
        );
    }
}
