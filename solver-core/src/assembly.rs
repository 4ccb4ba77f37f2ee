//! From the model to the solver's arrays: parts' meshes (inline or generated) numbered one
//! after another, lumped masses, initial velocities, fixed degrees of freedom, contact
//! surfaces, and the node-to-element table that makes the force assembly deterministic.
//! Shape checks (inverted or degenerate elements) happen here, with the model's pointer.

use crate::generate::generate;
use crate::hex8::{jacobian_det_at, NODE_SIGNS};
use crate::material::Elastic;
use impact_protocol::{InvalidParams, Mesh, Model, Pointer};

/// Where a part's nodes and elements sit in the global arrays.
#[derive(Clone, Debug)]
pub struct PartRange {
    pub name: String,
    pub node_offset: u32,
    pub node_count: u32,
    pub element_offset: u32,
    pub element_count: u32,
}

pub use crate::contact::ContactPair;

/// The model as flat arrays, ready for the integrator.
#[derive(Clone, Debug, Default)]
pub struct Assembly {
    pub parts: Vec<PartRange>,
    pub reference: Vec<[f64; 3]>,
    pub connectivity: Vec<[u32; 8]>,
    pub element_material: Vec<u32>,
    pub materials: Vec<Elastic>,
    pub mass: Vec<f64>,
    pub fixed: Vec<[bool; 3]>,
    pub initial_velocity: Vec<[f64; 3]>,
    /// The element corners in node order: node n's are the slots
    /// `node_slot_start[n]..node_slot_start[n + 1]`, ascending by element and corner, and
    /// `corner_slot[e][l]` is the slot of element e's corner l. The element loop writes
    /// each corner's force into its slot, so the assembly reads a node's forces in one
    /// run, in a fixed order.
    pub node_slot_start: Vec<u32>,
    pub corner_slot: Vec<[u32; 8]>,
    pub contacts: Vec<ContactPair>,
}

impl Assembly {
    /// The part that owns a global node, and the node's index within it.
    pub fn locate_node(&self, node: u32) -> Option<(&PartRange, u32)> {
        self.parts
            .iter()
            .find(|p| node >= p.node_offset && node < p.node_offset + p.node_count)
            .map(|p| (p, node - p.node_offset))
    }
}

/// Build the assembly of a validated model. Errors point into the model (`/parts/0/...`).
/// Why an element with corners `x` cannot be solved (inverted, degenerate or too
/// distorted, by the signs of its Jacobian at the centre and the corners), or none. The
/// same test as `assemble` makes, for meshes that do not come from a model (mesh.import).
pub fn shape_fault(x: &[[f64; 3]; 8]) -> Option<String> {
    let centre = jacobian_det_at(x, [0.0; 3]);
    if centre.is_nan() || centre <= 0.0 {
        return Some(format!(
            "inverted or degenerate (det J = {centre:e} at its centre): number its nodes counter-clockwise at the bottom, then the top"
        ));
    }
    NODE_SIGNS.iter().enumerate().find_map(|(k, s)| {
        let det = jacobian_det_at(x, *s);
        (det.is_nan() || det <= 0.0)
            .then(|| format!("too distorted: det J = {det:e} at its corner {k}"))
    })
}

pub fn assemble(model: &Model) -> Result<Assembly, InvalidParams> {
    let root = Pointer::root();
    let meshes: Vec<Mesh> = model
        .parts
        .iter()
        .map(|p| match &p.mesh.generate {
            Some(spec) => generate(spec),
            None => p.mesh.inline().unwrap_or_default(),
        })
        .collect();

    let materials: Vec<Elastic> = model.materials.iter().map(Elastic::new).collect();
    let mut asm = Assembly {
        parts: Vec::new(),
        reference: Vec::new(),
        connectivity: Vec::new(),
        element_material: Vec::new(),
        materials,
        mass: Vec::new(),
        fixed: Vec::new(),
        initial_velocity: Vec::new(),
        node_slot_start: Vec::new(),
        corner_slot: Vec::new(),
        contacts: Vec::new(),
    };

    for (pi, (part, mesh)) in model.parts.iter().zip(meshes.iter()).enumerate() {
        let node_offset = asm.reference.len() as u32;
        let element_offset = asm.connectivity.len() as u32;
        let mat = model
            .materials
            .iter()
            .position(|m| m.name == part.material)
            .ok_or_else(|| {
                InvalidParams::new(&root.at("parts").at(pi).at("material"), "unknown material")
            })?;
        asm.reference.extend_from_slice(&mesh.nodes);
        for (e, conn) in mesh.elements.iter().enumerate() {
            let x = conn.map(|n| mesh.nodes[n as usize]);
            // Built only for an error: formatting a pointer for each of 50k elements took
            // a third of a billion instructions of a solve's set-up.
            let where_ = || match &part.mesh.generate {
                Some(_) => root.at("parts").at(pi).at("mesh").at("generate"),
                None => root.at("parts").at(pi).at("mesh").at("elements").at(e),
            };
            let centre = jacobian_det_at(&x, [0.0; 3]);
            if centre.is_nan() || centre <= 0.0 {
                return Err(InvalidParams::new(
                    &where_(),
                    format!(
                        "element {e} of part '{}' is inverted or degenerate (det J = {centre:e} at its centre): number its nodes counter-clockwise at the bottom, then the top",
                        part.name
                    ),
                ));
            }
            for (k, s) in NODE_SIGNS.iter().enumerate() {
                let det = jacobian_det_at(&x, *s);
                if det.is_nan() || det <= 0.0 {
                    return Err(InvalidParams::new(
                        &where_(),
                        format!(
                            "element {e} of part '{}' is too distorted: det J = {det:e} at its corner {k}",
                            part.name
                        ),
                    ));
                }
            }
            asm.connectivity.push(conn.map(|n| n + node_offset));
            asm.element_material.push(mat as u32);
        }
        asm.parts.push(PartRange {
            name: part.name.clone(),
            node_offset,
            node_count: mesh.nodes.len() as u32,
            element_offset,
            element_count: mesh.elements.len() as u32,
        });
    }

    let n = asm.reference.len();
    asm.mass = vec![0.0; n];
    asm.fixed = vec![[false; 3]; n];
    asm.initial_velocity = vec![[0.0; 3]; n];
    for (e, conn) in asm.connectivity.iter().enumerate() {
        let x = conn.map(|i| asm.reference[i as usize]);
        let volume = 8.0 * jacobian_det_at(&x, [0.0; 3]);
        let rho = asm.materials[asm.element_material[e] as usize].rho;
        for &i in conn {
            asm.mass[i as usize] += rho * volume / 8.0;
        }
    }

    // Node-to-corner table, built by counting so each node's slots come out ascending.
    let mut count = vec![0u32; n + 1];
    for conn in &asm.connectivity {
        for &i in conn {
            count[i as usize + 1] += 1;
        }
    }
    for i in 0..n {
        count[i + 1] += count[i];
    }
    let mut fill = count.clone();
    asm.corner_slot = asm
        .connectivity
        .iter()
        .map(|conn| {
            conn.map(|i| {
                let slot = fill[i as usize];
                fill[i as usize] += 1;
                slot
            })
        })
        .collect();
    asm.node_slot_start = count;

    let node_set = |part: usize, set: &str| -> Vec<u32> {
        let offset = asm.parts[part].node_offset;
        meshes[part]
            .node_sets
            .get(set)
            .map(|ids| ids.iter().map(|&i| i + offset).collect())
            .unwrap_or_default()
    };
    let part_index = |name: &str| model.parts.iter().position(|p| p.name == name);

    for (i, iv) in model.initial_velocities.iter().enumerate() {
        let pi = part_index(&iv.part).ok_or_else(|| {
            InvalidParams::new(
                &root.at("initial_velocities").at(i).at("part"),
                "unknown part",
            )
        })?;
        let nodes: Vec<u32> = match &iv.set {
            Some(set) => node_set(pi, set),
            None => {
                let p = &asm.parts[pi];
                (p.node_offset..p.node_offset + p.node_count).collect()
            }
        };
        for node in nodes {
            asm.initial_velocity[node as usize] = iv.velocity;
        }
    }
    for (i, bc) in model.boundary_conditions.iter().enumerate() {
        let pi = part_index(&bc.part).ok_or_else(|| {
            InvalidParams::new(
                &root.at("boundary_conditions").at(i).at("part"),
                "unknown part",
            )
        })?;
        for node in node_set(pi, &bc.set) {
            for dof in &bc.fixed {
                asm.fixed[node as usize][dof.index()] = true;
                asm.initial_velocity[node as usize][dof.index()] = 0.0;
            }
        }
    }

    let part_meshes: Vec<crate::contact::surface::PartMesh<'_>> = asm
        .parts
        .iter()
        .zip(meshes.iter())
        .map(|(p, mesh)| crate::contact::surface::PartMesh {
            name: &p.name,
            mesh,
            node_offset: p.node_offset,
            element_offset: p.element_offset,
        })
        .collect();
    asm.contacts = crate::contact::surface::build(model, &part_meshes, &asm.reference)?;
    if !model.contacts.is_empty() && model.controls.time_step_scale > 0.95 {
        return Err(InvalidParams::new(
            &root.at("controls").at("time_step_scale"),
            "contact needs room below the stability limit for its penalty: use a time-step scale of at most 0.95",
        ));
    }
    Ok(asm)
}

#[cfg(test)]
mod tests {
    use super::*;
    use impact_protocol::SolveParams;

    /// Two unit cubes side by side, inline; the second one's top and bottom swapped.
    fn two_cubes(invert_second: bool) -> Model {
        let mut second = [1, 8, 9, 2, 4, 10, 11, 7];
        if invert_second {
            second = [4, 10, 11, 7, 1, 8, 9, 2];
        }
        let json = serde_json::json!({ "model": {
            "materials": [{ "name": "m", "E": 1.0, "nu": 0.3, "rho": 1.0 }],
            "parts": [{ "name": "p", "material": "m", "mesh": {
                "nodes": [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0],
                          [1, 0, 1], [0, 0, 1], [0, 1, 1], [1, 1, 1],
                          [2, 0, 0], [2, 1, 0], [2, 0, 1], [2, 1, 1]],
                "elements": [[0, 1, 2, 3, 5, 4, 7, 6], second] } }],
            "steps": [{ "name": "s", "duration": 1.0, "output_interval": 1.0 }]
        }});
        let p: SolveParams = serde_json::from_value(json).expect("the test model parses");
        p.model
    }

    #[test]
    fn an_inverted_element_is_named_with_its_pointer() {
        assert!(assemble(&two_cubes(false)).is_ok());
        let err = assemble(&two_cubes(true)).expect_err("an inverted element");
        assert_eq!(err.pointer, "/parts/0/mesh/elements/1");
        assert!(
            err.reason.contains("element 1 of part 'p' is inverted"),
            "{}",
            err.reason
        );
    }
}
