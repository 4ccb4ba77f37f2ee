//! Initial penetrations: before the first increment every contact node is projected onto
//! the faces it may touch; a node found inside a face (deeper than rounding, shallower
//! than the depth limit) is either moved back onto the face along its normal, by changing
//! its reference coordinates so no strain arises, or refused with the node, the face and
//! the depth, as the contact's `initial_penetration` says.

use super::node_to_face::project;
use super::search::Grid;
use super::surface::ContactPair;
use crate::assembly::Assembly;
use crate::error::SolveError;
use impact_protocol::{AdjustedNode, ContactKind, InitialPenetration, InvalidParams, Pointer};

/// Gaps smaller than this fraction of a face's size are rounding, not penetration.
const ROUNDING: f64 = 1e-9;

/// Settle every contact's initial penetrations in `asm.reference`; the nodes moved, per
/// contact. A contact that refuses them gives the error of its first one.
pub fn settle(asm: &mut Assembly) -> Result<Vec<Vec<AdjustedNode>>, SolveError> {
    let mut out = Vec::with_capacity(asm.contacts.len());
    for ci in 0..asm.contacts.len() {
        let pair = &asm.contacts[ci];
        let found = penetrations(pair, &mut asm.reference);
        if pair.initial_penetration == InitialPenetration::Refuse {
            if let Some(first) = found.first() {
                let (part, local) = asm
                    .locate_node(first.node)
                    .map(|(p, l)| (p.name.clone(), l))
                    .unwrap_or_default();
                return Err(SolveError::Invalid(InvalidParams::new(
                    &Pointer::root().at("contacts").at(ci),
                    format!(
                        "contact '{}' refuses initial penetrations: node {} (part '{part}', local node {local}) lies {:e} inside face [{}, {}] (element {}, local face {}) at t = 0, and {} node(s) in all; move the surfaces apart or set initial_penetration to \"adjust\"",
                        pair.name,
                        first.node,
                        first.depth,
                        first.face[0],
                        first.face[1],
                        first.face[0],
                        first.face[1],
                        found.len()
                    ),
                )));
            }
        }
        out.push(found);
    }
    Ok(out)
}

/// Find the penetrating nodes of one contact, moving each onto its face in `x` as it goes
/// (for `refuse` the moves are never used: the solve stops).
fn penetrations(pair: &ContactPair, x: &mut [[f64; 3]]) -> Vec<AdjustedNode> {
    let mut found = Vec::new();
    if pair.faces.is_empty() {
        return found;
    }
    // Faces at each node, to exclude a node's own faces and their neighbours.
    let mut incidence: Vec<(u32, u32)> = pair
        .faces
        .iter()
        .enumerate()
        .flat_map(|(f, nodes)| nodes.iter().map(move |&n| (n, f as u32)))
        .collect();
    incidence.sort_unstable();
    let faces_at = |n: u32| {
        let lo = incidence.partition_point(|&(m, _)| m < n);
        let hi = incidence.partition_point(|&(m, _)| m <= n);
        incidence[lo..hi].iter().map(|&(_, f)| f as usize)
    };
    let boxes = pair
        .faces
        .iter()
        .zip(pair.depth_limit.iter())
        .map(|(f, &d)| {
            let g = super::segment::FaceGeometry::new(f.map(|n| x[n as usize]));
            super::search::prism_box(&g.corners, g.normal, d)
        })
        .collect();
    let grid = Grid::build(boxes);
    let directions: &[(u8, u8)] = if pair.kind == ContactKind::SurfaceToSurface {
        &[(0, 1), (1, 0)]
    } else {
        &[(0, 0)]
    };
    let mut candidates = Vec::new();
    let mut ring: Vec<u32> = Vec::new();
    for &(node_side, face_side) in directions {
        for &node in &pair.nodes {
            if !faces_at(node).any(|f| pair.side[f] == node_side) {
                continue;
            }
            ring.clear();
            for f in faces_at(node) {
                ring.extend_from_slice(&pair.faces[f]);
            }
            let p = x[node as usize];
            grid.query(&(p, p), &mut candidates);
            // The shallowest penetration: the surface the node has just crossed.
            let mut best: Option<(f64, usize, [f64; 3])> = None;
            for &j in &candidates {
                let j = j as usize;
                if pair.side[j] != face_side || pair.faces[j].iter().any(|n| ring.contains(n)) {
                    continue;
                }
                let c = pair.faces[j].map(|n| x[n as usize]);
                let Some((gap, _, normal)) = project(p, &c) else {
                    continue;
                };
                let size = (0.5
                    * crate::hex8::norm(crate::hex8::cross(
                        crate::hex8::sub(c[2], c[0]),
                        crate::hex8::sub(c[3], c[1]),
                    )))
                .sqrt();
                if gap < -ROUNDING * size
                    && -gap <= pair.depth_limit[j]
                    && best.is_none_or(|b| gap > b.0)
                {
                    best = Some((gap, j, normal));
                }
            }
            if let Some((gap, j, normal)) = best {
                for k in 0..3 {
                    x[node as usize][k] -= gap * normal[k];
                }
                found.push(AdjustedNode {
                    node,
                    face: pair.face_ids[j],
                    depth: -gap,
                });
            }
        }
    }
    found
}
