//! The server's caps on one model: nodes, elements and spheres are counted before
//! anything runs (an answer of LIMIT_EXCEEDED with the pointer of what is too large);
//! the increment and contact-face caps tighten the model's own controls, which the core
//! enforces where it counts them exactly.

use crate::config::ModelLimits;
use crate::errors::RpcError;
use impact_protocol::grading::SphereLayout;
use impact_protocol::{GenerateSpec, Model, Pointer};

/// Nodes and elements of one part's mesh. Generated spheres count their elements
/// exactly and their nodes as one per element (a hex mesh has about as many).
fn mesh_counts(mesh: &impact_protocol::MeshSource) -> (u64, u64) {
    match &mesh.generate {
        Some(GenerateSpec::Block(b)) => {
            let (x, y, z) = (u64::from(b.nx), u64::from(b.ny), u64::from(b.nz));
            (
                (x + 1).saturating_mul(y + 1).saturating_mul(z + 1),
                x.saturating_mul(y).saturating_mul(z),
            )
        }
        Some(GenerateSpec::Sphere(s)) => {
            let e = SphereLayout::counts(s).elements;
            (e, e)
        }
        None => (
            mesh.nodes.as_ref().map_or(0, |n| n.len() as u64),
            mesh.elements.as_ref().map_or(0, |e| e.len() as u64),
        ),
    }
}

fn exceeded(pointer: &Pointer, what: &str, count: u64, cap: u64) -> RpcError {
    RpcError::limit_exceeded(
        pointer,
        format!("the model has {count} {what}, more than this server's cap of {cap}"),
    )
}

/// Check a validated model (params pointer `/model`) against the caps, and tighten its
/// increment and contact-face caps to the server's.
pub fn apply(model: &mut Model, limits: &ModelLimits) -> Result<(), RpcError> {
    let base = Pointer::root().at("model");
    let (mut nodes, mut elements) = (0u64, 0u64);
    for (i, part) in model.parts.iter().enumerate() {
        let (n, e) = mesh_counts(&part.mesh);
        nodes = nodes.saturating_add(n);
        elements = elements.saturating_add(e);
        let at = base.at("parts").at(i).at("mesh");
        if let Some(cap) = limits.max_nodes.filter(|&c| nodes > c) {
            return Err(exceeded(&at, "nodes", nodes, cap));
        }
        if let Some(cap) = limits.max_elements.filter(|&c| elements > c) {
            return Err(exceeded(&at, "elements", elements, cap));
        }
    }
    if let Some(p) = &model.particles {
        let count = p.count() as u64;
        if let Some(cap) = limits.max_particles.filter(|&c| count > c) {
            return Err(exceeded(
                &base.at("particles").at("groups"),
                "spheres",
                count,
                cap,
            ));
        }
    }
    if let Some(cap) = limits.max_increments {
        model.controls.max_increments = model.controls.max_increments.min(cap);
    }
    if let Some(cap) = limits.max_contact_faces {
        model.controls.max_contact_faces = model.controls.max_contact_faces.min(cap);
    }
    Ok(())
}
