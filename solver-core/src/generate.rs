//! Mesh generators behind `mesh.generate` and a part's `{"generate": ...}`.

use impact_protocol::{mesh::BLOCK_SIDES, BlockSpec, GenerateSpec, Mesh};

/// Build the mesh a validated spec describes.
pub fn generate(spec: &GenerateSpec) -> Mesh {
    match spec {
        GenerateSpec::Block(b) => block(b),
    }
}

/// A box of equal hex8s. Nodes run x fastest, then y, then z; elements likewise.
fn block(b: &BlockSpec) -> Mesh {
    let (nx, ny, nz) = (b.nx as usize, b.ny as usize, b.nz as usize);
    let node = |i: usize, j: usize, k: usize| (i + (nx + 1) * (j + (ny + 1) * k)) as u32;
    let mut nodes = Vec::with_capacity((nx + 1) * (ny + 1) * (nz + 1));
    for k in 0..=nz {
        for j in 0..=ny {
            for i in 0..=nx {
                // Multiply then divide so the far side lands exactly on origin + size.
                nodes.push([
                    b.origin[0] + b.size[0] * i as f64 / nx as f64,
                    b.origin[1] + b.size[1] * j as f64 / ny as f64,
                    b.origin[2] + b.size[2] * k as f64 / nz as f64,
                ]);
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
    use impact_protocol::HEX8_FACES;

    fn spec() -> GenerateSpec {
        GenerateSpec::Block(BlockSpec {
            origin: [1.0, 2.0, 3.0],
            size: [2.0, 1.0, 0.5],
            nx: 4,
            ny: 2,
            nz: 3,
        })
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
