//! The block generator: a box of hex8s, equal or graded per axis (a geometric
//! progression, `impact_protocol::grading::progression`), with its sides as sets.

use impact_protocol::{grading::block_lines, mesh::BLOCK_SIDES, BlockSpec, Mesh};

/// A box of hex8s. Nodes run x fastest, then y, then z; elements likewise.
pub fn block(b: &BlockSpec) -> Mesh {
    let (nx, ny, nz) = (b.nx as usize, b.ny as usize, b.nz as usize);
    let node = |i: usize, j: usize, k: usize| (i + (nx + 1) * (j + (ny + 1) * k)) as u32;
    let [xs, ys, zs] = block_lines(b);
    let mut nodes = Vec::with_capacity((nx + 1) * (ny + 1) * (nz + 1));
    for z in &zs {
        for y in &ys {
            for x in &xs {
                nodes.push([*x, *y, *z]);
            }
        }
    }
    let mut elements = Vec::with_capacity(nx * ny * nz);
    for k in 0..nz {
        for j in 0..ny {
            for i in 0..nx {
                elements.push([
                    node(i, j, k),
                    node(i + 1, j, k),
                    node(i + 1, j + 1, k),
                    node(i, j + 1, k),
                    node(i, j, k + 1),
                    node(i + 1, j, k + 1),
                    node(i + 1, j + 1, k + 1),
                    node(i, j + 1, k + 1),
                ]);
            }
        }
    }
    let element = |i: usize, j: usize, k: usize| (i + nx * (j + ny * k)) as u32;

    let mut mesh = Mesh {
        nodes,
        elements,
        ..Mesh::default()
    };
    // Side s: its axis, whether it is the far side, and the hex8 face on it (HEX8_FACES).
    let sides: [(usize, bool, u32); 6] = [
        (0, false, 5),
        (0, true, 3),
        (1, false, 2),
        (1, true, 4),
        (2, false, 0),
        (2, true, 1),
    ];
    let counts = [nx, ny, nz];
    for (name, &(axis, far, face)) in BLOCK_SIDES.iter().zip(sides.iter()) {
        let mut node_ids = Vec::new();
        for k in 0..=nz {
            for j in 0..=ny {
                for i in 0..=nx {
                    let ijk = [i, j, k];
                    if ijk[axis] == if far { counts[axis] } else { 0 } {
                        node_ids.push(node(i, j, k));
                    }
                }
            }
        }
        let mut faces = Vec::new();
        for k in 0..nz {
            for j in 0..ny {
                for i in 0..nx {
                    let ijk = [i, j, k];
                    if ijk[axis] == if far { counts[axis] - 1 } else { 0 } {
                        faces.push([element(i, j, k), face]);
                    }
                }
            }
        }
        mesh.node_sets.insert((*name).to_string(), node_ids);
        mesh.face_sets.insert((*name).to_string(), faces);
    }
    mesh.node_sets
        .insert("all".to_string(), (0..mesh.nodes.len() as u32).collect());
    mesh
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{generate, quality};
    use impact_protocol::{GenerateSpec, HEX8_FACES};

    fn spec() -> GenerateSpec {
        GenerateSpec::Block(BlockSpec {
            origin: [1.0, 2.0, 3.0],
            size: [2.0, 1.0, 0.5],
            nx: 4,
            ny: 2,
            nz: 3,
            grading: [1.0; 3],
        })
    }

    #[test]
    fn grading_refines_towards_the_asked_side_and_keeps_the_extent() {
        // A plate under a sphere's pole at (0, 0, 0.5): finer towards x = 0 and z = 0.5.
        let m = generate(&GenerateSpec::Block(BlockSpec {
            origin: [0.0; 3],
            size: [1.0, 1.0, 0.5],
            nx: 10,
            ny: 1,
            nz: 5,
            grading: [8.0, 1.0, 0.25],
        }));
        let xs: Vec<f64> = (0..=10).map(|i| m.nodes[i][0]).collect();
        assert_eq!(xs[0], 0.0);
        assert_eq!(xs[10], 1.0);
        // The last interval over the first is the grading: 8 along x.
        let ratio = (xs[10] - xs[9]) / (xs[1] - xs[0]);
        assert!((ratio - 8.0).abs() < 1e-9, "x grading {ratio}");
        // Geometric: every step grows by 8^(1/9).
        for w in xs.windows(3) {
            let q = (w[2] - w[1]) / (w[1] - w[0]);
            assert!((q - 8f64.powf(1.0 / 9.0)).abs() < 1e-9);
        }
        let zs: Vec<f64> = (0..=5).map(|k| m.nodes[k * 11 * 2][2]).collect();
        assert_eq!(zs[5], 0.5);
        let ratio = (zs[5] - zs[4]) / (zs[1] - zs[0]);
        assert!((ratio - 0.25).abs() < 1e-9, "z grading {ratio}");
        let q = quality(&m);
        assert!(
            q.min_jacobian_ratio > 0.999,
            "a graded box is made of boxes"
        );
        // The longest edge is the single interval across y.
        assert_eq!(q.max_size, 1.0);
        let first_x = xs[1] - xs[0];
        let finest_z = zs[5] - zs[4];
        assert_eq!(q.min_size, first_x.min(finest_z));
    }

    #[test]
    fn counts_and_extent() {
        let m = generate(&spec());
        assert_eq!(m.nodes.len(), 5 * 3 * 4);
        assert_eq!(m.elements.len(), 4 * 2 * 3);
        let max = m.nodes.iter().fold([f64::MIN; 3], |a, x| {
            [a[0].max(x[0]), a[1].max(x[1]), a[2].max(x[2])]
        });
        assert_eq!(max, [3.0, 3.0, 3.5]);
        assert_eq!(m.face_sets["xmax"].len(), 2 * 3);
        assert_eq!(m.node_sets["zmin"].len(), 5 * 3);
    }

    #[test]
    fn side_faces_lie_on_their_side_and_point_out() {
        let m = generate(&spec());
        let expect = [
            ("xmin", 0, 1.0, -1.0),
            ("xmax", 0, 3.0, 1.0),
            ("ymin", 1, 2.0, -1.0),
            ("ymax", 1, 3.0, 1.0),
            ("zmin", 2, 3.0, -1.0),
            ("zmax", 2, 3.5, 1.0),
        ];
        for (name, axis, coord, sign) in expect {
            for &[e, f] in &m.face_sets[name] {
                let ids = HEX8_FACES[f as usize].map(|l| m.elements[e as usize][l] as usize);
                let p = ids.map(|n| m.nodes[n]);
                for x in &p {
                    assert_eq!(x[axis], coord, "{name}");
                }
                // Right-hand normal of the quad from its diagonals.
                let d1 = [p[2][0] - p[0][0], p[2][1] - p[0][1], p[2][2] - p[0][2]];
                let d2 = [p[3][0] - p[1][0], p[3][1] - p[1][1], p[3][2] - p[1][2]];
                let n = [
                    d1[1] * d2[2] - d1[2] * d2[1],
                    d1[2] * d2[0] - d1[0] * d2[2],
                    d1[0] * d2[1] - d1[1] * d2[0],
                ];
                assert!(n[axis] * sign > 0.0, "{name} face points inwards");
            }
        }
    }
}
