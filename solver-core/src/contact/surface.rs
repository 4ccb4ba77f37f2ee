//! Contact surfaces from the model: the faces a contact holds (two face sets, or the
//! exterior faces of parts), their nodes, the depth below which a penetration is not
//! contact, and the rule of which face pairs may touch. The cap on contact faces lives
//! here, where the faces are counted before anything large is allocated.

use crate::hex8::{cross, norm, sub, volume_and_length};
use impact_protocol::{
    ContactKind, Friction, InitialPenetration, InvalidParams, Mesh, Model, PairIntegration,
    Pointer, HEX8_FACES,
};

/// One contact of the model, ready to run: every face of it, in one list.
#[derive(Clone, Debug)]
pub struct ContactPair {
    pub name: String,
    pub kind: ContactKind,
    pub integration: PairIntegration,
    /// Global node ids of each face, ordered so the right-hand normal points out.
    pub faces: Vec<[u32; 4]>,
    /// `[global element, local face]` of each face, for reports and errors.
    pub face_ids: Vec<[u32; 2]>,
    /// 0 for the secondary set, 1 for the main set; 0 for every face of general and self
    /// contact, where any face may meet any other.
    pub side: Vec<u8>,
    /// Half the thickness of the element behind each face (reference configuration): a
    /// point deeper than this behind a face has come from the far side, not through it.
    pub depth_limit: Vec<f64>,
    /// The contact's nodes, ascending.
    pub nodes: Vec<u32>,
    pub penalty_scale: f64,
    pub friction: Option<Friction>,
    pub damping: f64,
    pub initial_penetration: InitialPenetration,
}

impl ContactPair {
    /// Whether face `i` (as secondary) and face `j` (as main) may touch: distinct faces,
    /// on different sides for two face sets, and not neighbours (no node in common).
    pub fn may_touch(&self, i: usize, j: usize) -> bool {
        if i == j {
            return false;
        }
        if self.kind == ContactKind::SurfaceToSurface && self.side[i] == self.side[j] {
            return false;
        }
        let (a, b) = (&self.faces[i], &self.faces[j]);
        !a.iter().any(|n| b.contains(n))
    }

    /// Whether the pair of faces `i` and `j` is integrated from face `i`. Both ways, every
    /// pair that may touch is, from each of its faces. On the plane between the faces,
    /// each pair once: from the secondary set's face for two face sets, from the
    /// lower-numbered face for general and self contact.
    pub fn integrates(&self, i: usize, j: usize) -> bool {
        self.listed(i, j) && self.may_touch(i, j)
    }

    /// `integrates` without the topology: the cheap part, which the search asks of every
    /// face the grid finds.
    pub fn listed(&self, i: usize, j: usize) -> bool {
        match (self.integration, self.kind) {
            (PairIntegration::BothWays, ContactKind::SurfaceToSurface) => {
                self.side[i] != self.side[j]
            }
            (PairIntegration::BothWays, _) => i != j,
            (PairIntegration::MidPlane, ContactKind::SurfaceToSurface) => {
                self.side[i] == 0 && self.side[j] != 0
            }
            (PairIntegration::MidPlane, _) => i < j,
        }
    }

    /// How many faces, from the first, integrate pairs: on the plane between the faces,
    /// only the secondary set (listed before the main set) for two face sets; every face
    /// otherwise.
    pub fn integrating_faces(&self) -> usize {
        match (self.integration, self.kind) {
            (PairIntegration::MidPlane, ContactKind::SurfaceToSurface) => {
                self.side.iter().take_while(|&&s| s == 0).count()
            }
            _ => self.faces.len(),
        }
    }
}

/// A part's place in the global numbering and its mesh, as the assembly built them.
pub struct PartMesh<'a> {
    pub name: &'a str,
    pub mesh: &'a Mesh,
    pub node_offset: u32,
    pub element_offset: u32,
}

/// Build every contact of the model. Errors point into the model (`/contacts/3/...`).
pub fn build(
    model: &Model,
    parts: &[PartMesh<'_>],
    reference: &[[f64; 3]],
) -> Result<Vec<ContactPair>, InvalidParams> {
    let root = Pointer::root();
    let cap = model.controls.max_contact_faces;
    let mut total: u64 = 0;
    let mut pairs = Vec::with_capacity(model.contacts.len());
    for (ci, c) in model.contacts.iter().enumerate() {
        let p = root.at("contacts").at(ci);
        let find = |q: &Pointer, name: &str| -> Result<&PartMesh<'_>, InvalidParams> {
            parts
                .iter()
                .find(|pm| pm.name == name)
                .ok_or_else(|| InvalidParams::new(q, format!("no part is named '{name}'")))
        };
        let mut faces: Vec<(u32, u32, [u32; 4], u8)> = Vec::new();
        match c.kind {
            ContactKind::SurfaceToSurface => {
                for (side, key, r) in [(0u8, "secondary", &c.secondary), (1u8, "main", &c.main)] {
                    let r = r.as_ref().ok_or_else(|| {
                        InvalidParams::new(&p.at(key), "a surface_to_surface contact needs it")
                    })?;
                    let pm = find(&p.at(key).at("part"), &r.part)?;
                    let set = pm.mesh.face_sets.get(&r.set).ok_or_else(|| {
                        InvalidParams::new(&p.at(key).at("set"), "unknown face set")
                    })?;
                    count(&mut total, set.len(), cap, &p, &c.name)?;
                    for &[e, f] in set {
                        let conn = &pm.mesh.elements[e as usize];
                        let nodes = HEX8_FACES[f as usize].map(|l| conn[l] + pm.node_offset);
                        faces.push((e + pm.element_offset, f, nodes, side));
                    }
                }
            }
            ContactKind::General | ContactKind::SelfContact => {
                for (k, name) in c.parts.iter().enumerate() {
                    let pm = find(&p.at("parts").at(k), name)?;
                    let exterior = exterior_faces(pm.mesh);
                    count(&mut total, exterior.len(), cap, &p, &c.name)?;
                    for (e, f) in exterior {
                        let conn = &pm.mesh.elements[e as usize];
                        let nodes = HEX8_FACES[f as usize].map(|l| conn[l] + pm.node_offset);
                        faces.push((e + pm.element_offset, f, nodes, 0));
                    }
                }
            }
        }
        let mut pair = ContactPair {
            name: c.name.clone(),
            kind: c.kind,
            integration: c.integration,
            faces: Vec::with_capacity(faces.len()),
            face_ids: Vec::with_capacity(faces.len()),
            side: Vec::with_capacity(faces.len()),
            depth_limit: Vec::with_capacity(faces.len()),
            nodes: Vec::new(),
            penalty_scale: c.penalty_scale,
            friction: c.friction,
            damping: c.damping,
            initial_penetration: c.initial_penetration,
        };
        for (e, f, nodes, side) in faces {
            pair.depth_limit
                .push(half_thickness(parts, reference, e, f, &nodes));
            pair.faces.push(nodes);
            pair.face_ids.push([e, f]);
            pair.side.push(side);
        }
        pair.nodes = pair.faces.iter().flatten().copied().collect();
        pair.nodes.sort_unstable();
        pair.nodes.dedup();
        pairs.push(pair);
    }
    Ok(pairs)
}

fn count(
    total: &mut u64,
    more: usize,
    cap: u64,
    p: &Pointer,
    name: &str,
) -> Result<(), InvalidParams> {
    *total += more as u64;
    if *total > cap {
        return Err(InvalidParams::new(
            p,
            format!(
                "contact '{name}' brings the contact faces to {total}, more than controls.max_contact_faces = {cap}; raise the cap or use smaller face sets"
            ),
        ));
    }
    Ok(())
}

/// The faces of exactly one element (a face shared by two elements is interior), as
/// `(local element, local face)` in element order.
pub fn exterior_faces(mesh: &Mesh) -> Vec<(u32, u32)> {
    let mut keyed: Vec<([u32; 4], u32, u32)> = Vec::with_capacity(6 * mesh.elements.len());
    for (e, conn) in mesh.elements.iter().enumerate() {
        for (f, local) in HEX8_FACES.iter().enumerate() {
            let mut key = local.map(|l| conn[l]);
            key.sort_unstable();
            keyed.push((key, e as u32, f as u32));
        }
    }
    keyed.sort_unstable();
    let mut out = Vec::new();
    let mut i = 0;
    while i < keyed.len() {
        let mut j = i + 1;
        while j < keyed.len() && keyed[j].0 == keyed[i].0 {
            j += 1;
        }
        if j == i + 1 {
            out.push((keyed[i].1, keyed[i].2));
        }
        i = j;
    }
    out.sort_unstable();
    out
}

/// Half the element's volume over the face's area: half the thickness behind the face.
fn half_thickness(
    parts: &[PartMesh<'_>],
    reference: &[[f64; 3]],
    element: u32,
    _face: u32,
    nodes: &[u32; 4],
) -> f64 {
    let Some(pm) = parts.iter().find(|pm| {
        element >= pm.element_offset && element < pm.element_offset + pm.mesh.elements.len() as u32
    }) else {
        return 0.0;
    };
    let conn = pm.mesh.elements[(element - pm.element_offset) as usize];
    let x = conn.map(|n| reference[(n + pm.node_offset) as usize]);
    let (volume, _) = volume_and_length(&x);
    let c = nodes.map(|n| reference[n as usize]);
    let area = 0.5 * norm(cross(sub(c[2], c[0]), sub(c[3], c[1])));
    if area > 0.0 {
        0.5 * volume / area
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::generate;
    use impact_protocol::{BlockSpec, GenerateSpec};

    #[test]
    fn a_block_has_its_sides_as_exterior_faces() {
        let m = generate(&GenerateSpec::Block(BlockSpec {
            origin: [0.0; 3],
            size: [3.0, 2.0, 1.0],
            nx: 3,
            ny: 2,
            nz: 2,
            grading: [1.0; 3],
        }));
        // 2 (nx ny + ny nz + nz nx) faces on the surface of an nx x ny x nz block.
        assert_eq!(exterior_faces(&m).len(), 2 * (6 + 4 + 6));
        let mut sides: Vec<(u32, u32)> = m
            .face_sets
            .values()
            .flatten()
            .map(|&[e, f]| (e, f))
            .collect();
        sides.sort_unstable();
        assert_eq!(exterior_faces(&m), sides);
    }
}
