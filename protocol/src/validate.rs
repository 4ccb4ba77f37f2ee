//! Checking requests before anything runs: parsing with the JSON pointer of the first
//! offending value, and the model's own rules (positive densities, known names, indices in
//! range). Geometry (inverted elements) is the core's to check; it knows the shape functions.

use crate::mesh::{BlockSpec, GenerateSpec, SphereSpec};
use crate::model::{
    Contact, ContactKind, Friction, MeshSource, Model, Part, MAX_SUBCYCLING_LEVELS,
};
use crate::pointer::Pointer;
use serde::de::DeserializeOwned;
use std::collections::BTreeSet;

/// Bad params: where (a JSON pointer into the params) and what.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{pointer}: {reason}")]
pub struct InvalidParams {
    pub pointer: String,
    pub reason: String,
}

impl InvalidParams {
    pub fn new(pointer: &Pointer, reason: impl Into<String>) -> Self {
        InvalidParams {
            pointer: pointer.to_string(),
            reason: reason.into(),
        }
    }
}

/// Parse params into `T`; a wrong type or a missing field names its JSON pointer.
pub fn parse_params<T: DeserializeOwned>(params: &str) -> Result<T, InvalidParams> {
    let de = &mut serde_json::Deserializer::from_str(params);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let pointer = extend(Pointer::root(), e.path());
        within_generate_spec(params, &pointer).unwrap_or_else(|| InvalidParams {
            pointer: pointer.to_string(),
            reason: e.inner().to_string(),
        })
    })
}

fn extend(mut pointer: Pointer, path: &serde_path_to_error::Path) -> Pointer {
    for seg in path.iter() {
        use serde_path_to_error::Segment;
        pointer = match seg {
            Segment::Seq { index } => pointer.at(index),
            Segment::Map { key } => pointer.at(key),
            Segment::Enum { variant } => pointer.at(variant),
            Segment::Unknown => pointer,
        };
    }
    pointer
}

/// serde buffers an internally tagged enum's fields before it picks the variant, so an
/// error inside a `generate` spec (a `mesh.generate` request, or a part's
/// `mesh.generate`) stops its path at the spec. Parse that spec again as the variant its
/// `kind` names to reach the offending field.
fn within_generate_spec(params: &str, at: &Pointer) -> Option<InvalidParams> {
    if !(at.as_str().is_empty() || at.as_str().ends_with("/generate")) {
        return None;
    }
    let value: serde_json::Value = serde_json::from_str(params).ok()?;
    let mut fields = value.pointer(at.as_str())?.as_object()?.clone();
    let kind = fields.remove("kind")?;
    let fields = serde_json::Value::Object(fields);
    let e = match kind.as_str()? {
        "block" => serde_path_to_error::deserialize::<_, BlockSpec>(fields).err()?,
        "sphere" => serde_path_to_error::deserialize::<_, SphereSpec>(fields).err()?,
        _ => return None,
    };
    Some(InvalidParams {
        pointer: extend(at.clone(), e.path()).to_string(),
        reason: e.inner().to_string(),
    })
}

pub(crate) fn finite(p: &Pointer, v: f64) -> Result<(), InvalidParams> {
    if v.is_finite() {
        Ok(())
    } else {
        Err(InvalidParams::new(p, format!("{v} is not a finite number")))
    }
}

pub(crate) fn positive(p: &Pointer, v: f64, what: &str) -> Result<(), InvalidParams> {
    finite(p, v)?;
    if v > 0.0 {
        Ok(())
    } else {
        Err(InvalidParams::new(
            p,
            format!("{what} must be positive, got {v}"),
        ))
    }
}

fn unique<'a>(
    base: &Pointer,
    names: impl Iterator<Item = &'a str>,
    what: &str,
) -> Result<(), InvalidParams> {
    let mut seen = BTreeSet::new();
    for (i, name) in names.enumerate() {
        let p = base.at(i).at("name");
        if name.is_empty() {
            return Err(InvalidParams::new(&p, format!("a {what} needs a name")));
        }
        if !seen.insert(name) {
            return Err(InvalidParams::new(
                &p,
                format!("the {what} name '{name}' is used twice"),
            ));
        }
    }
    Ok(())
}

/// Check a model whose params pointer is `base` (e.g. `/model`).
pub fn validate_model(model: &Model, base: &Pointer) -> Result<(), InvalidParams> {
    let parts = base.at("parts");
    if let Some(particles) = &model.particles {
        if !model.parts.is_empty() {
            return Err(InvalidParams::new(
                &base.at("particles"),
                "a model holds finite-element parts or particles, not both",
            ));
        }
        crate::particles::validate_particles(particles, &base.at("particles"))?;
    } else if model.parts.is_empty() {
        return Err(InvalidParams::new(
            &parts,
            "a model needs at least one part (or a particle section)",
        ));
    }
    let mats = base.at("materials");
    if model.materials.is_empty() && !model.parts.is_empty() {
        return Err(InvalidParams::new(
            &mats,
            "a model with parts needs at least one material",
        ));
    }
    unique(
        &mats,
        model.materials.iter().map(|m| m.name.as_str()),
        "material",
    )?;
    for (i, m) in model.materials.iter().enumerate() {
        let p = mats.at(i);
        positive(&p.at("E"), m.youngs_modulus, "Young's modulus")?;
        positive(&p.at("rho"), m.rho, "the density")?;
        finite(&p.at("nu"), m.nu)?;
        if !(m.nu > -1.0 && m.nu < 0.5) {
            return Err(InvalidParams::new(
                &p.at("nu"),
                format!("Poisson's ratio must lie in (-1, 0.5), got {}", m.nu),
            ));
        }
    }

    unique(&parts, model.parts.iter().map(|p| p.name.as_str()), "part")?;
    for (i, part) in model.parts.iter().enumerate() {
        let p = parts.at(i);
        if !model.materials.iter().any(|m| m.name == part.material) {
            return Err(InvalidParams::new(
                &p.at("material"),
                format!("no material is named '{}'", part.material),
            ));
        }
        validate_mesh_source(&part.mesh, &p.at("mesh"))?;
    }

    let find_part = |p: &Pointer, name: &str| -> Result<&Part, InvalidParams> {
        model
            .parts
            .iter()
            .find(|part| part.name == name)
            .ok_or_else(|| InvalidParams::new(p, format!("no part is named '{name}'")))
    };

    for (i, iv) in model.initial_velocities.iter().enumerate() {
        let p = base.at("initial_velocities").at(i);
        let part = find_part(&p.at("part"), &iv.part)?;
        if let Some(set) = &iv.set {
            check_node_set(part, set, &p.at("set"))?;
        }
        for (k, v) in iv.velocity.iter().enumerate() {
            finite(&p.at("velocity").at(k), *v)?;
        }
    }

    for (i, bc) in model.boundary_conditions.iter().enumerate() {
        let p = base.at("boundary_conditions").at(i);
        let part = find_part(&p.at("part"), &bc.part)?;
        check_node_set(part, &bc.set, &p.at("set"))?;
        if bc.fixed.is_empty() {
            return Err(InvalidParams::new(
                &p.at("fixed"),
                "name at least one degree of freedom (x, y, z)",
            ));
        }
    }

    let contacts = base.at("contacts");
    unique(
        &contacts,
        model.contacts.iter().map(|c| c.name.as_str()),
        "contact",
    )?;
    for (i, c) in model.contacts.iter().enumerate() {
        let p = contacts.at(i);
        validate_contact(c, &p, &model.parts)?;
    }
    unique(
        &base.at("walls"),
        model.walls.iter().map(|w| w.name.as_str()),
        "wall",
    )?;
    for (i, w) in model.walls.iter().enumerate() {
        let p = base.at("walls").at(i);
        for k in 0..3 {
            finite(&p.at("point").at(k), w.point[k])?;
            finite(&p.at("normal").at(k), w.normal[k])?;
            finite(&p.at("velocity").at(k), w.velocity[k])?;
        }
        // Finite (checked above), so the sum of squares is a number.
        if w.normal.iter().map(|c| c * c).sum::<f64>() <= 0.0 {
            return Err(InvalidParams::new(
                &p.at("normal"),
                "a wall's normal cannot be the zero vector",
            ));
        }
        for (k, name) in w.parts.iter().enumerate() {
            find_part(&p.at("parts").at(k), name)?;
        }
        if let Some(f) = &w.friction {
            validate_friction(f, &p.at("friction"))?;
        }
    }
    if let Some(g) = &model.gravity {
        for (k, v) in g.iter().enumerate() {
            finite(&base.at("gravity").at(k), *v)?;
        }
    }

    let steps = base.at("steps");
    if model.steps.is_empty() {
        return Err(InvalidParams::new(
            &steps,
            "a model needs at least one step",
        ));
    }
    unique(&steps, model.steps.iter().map(|s| s.name.as_str()), "step")?;
    for (i, s) in model.steps.iter().enumerate() {
        let p = steps.at(i);
        positive(&p.at("duration"), s.duration, "a step's duration")?;
        positive(
            &p.at("output_interval"),
            s.output_interval,
            "the output interval",
        )?;
    }

    let c = &model.controls;
    let p = base.at("controls");
    positive(
        &p.at("time_step_scale"),
        c.time_step_scale,
        "the time-step scale",
    )?;
    if c.time_step_scale > 1.0 {
        return Err(InvalidParams::new(
            &p.at("time_step_scale"),
            format!(
                "the time-step scale must not exceed 1 (the stability limit), got {}",
                c.time_step_scale
            ),
        ));
    }
    for (key, v) in [
        ("linear", c.bulk_viscosity.linear),
        ("quadratic", c.bulk_viscosity.quadratic),
    ] {
        let q = p.at("bulk_viscosity").at(key);
        finite(&q, v)?;
        if v < 0.0 {
            return Err(InvalidParams::new(
                &q,
                "a bulk viscosity coefficient cannot be negative",
            ));
        }
    }
    let hg = p.at("hourglass").at("coefficient");
    finite(&hg, c.hourglass.coefficient)?;
    if c.hourglass.coefficient < 0.0 {
        return Err(InvalidParams::new(
            &hg,
            "the hourglass coefficient cannot be negative",
        ));
    }
    if c.max_increments == 0 {
        return Err(InvalidParams::new(
            &p.at("max_increments"),
            "must be at least 1",
        ));
    }
    if c.max_contact_faces == 0 {
        return Err(InvalidParams::new(
            &p.at("max_contact_faces"),
            "must be at least 1",
        ));
    }
    if c.subcycling_levels > MAX_SUBCYCLING_LEVELS {
        return Err(InvalidParams::new(
            &p.at("subcycling_levels"),
            format!(
                "at most {MAX_SUBCYCLING_LEVELS} subcycling levels (a step ratio of {}), got {}",
                1u32 << MAX_SUBCYCLING_LEVELS,
                c.subcycling_levels
            ),
        ));
    }
    Ok(())
}

fn validate_contact(c: &Contact, p: &Pointer, parts: &[Part]) -> Result<(), InvalidParams> {
    let find_part = |q: &Pointer, name: &str| -> Result<(), InvalidParams> {
        parts
            .iter()
            .any(|part| part.name == name)
            .then_some(())
            .ok_or_else(|| InvalidParams::new(q, format!("no part is named '{name}'")))
    };
    match c.kind {
        ContactKind::SurfaceToSurface => {
            for (key, r) in [("secondary", &c.secondary), ("main", &c.main)] {
                let r = r.as_ref().ok_or_else(|| {
                    InvalidParams::new(
                        &p.at(key),
                        format!(
                            "a surface_to_surface contact needs '{key}': {{\"part\", \"set\"}}"
                        ),
                    )
                })?;
                find_part(&p.at(key).at("part"), &r.part)?;
                if let Some(part) = parts.iter().find(|part| part.name == r.part) {
                    check_face_set(part, &r.set, &p.at(key).at("set"))?;
                }
            }
            if !c.parts.is_empty() {
                return Err(InvalidParams::new(
                    &p.at("parts"),
                    "'parts' belongs to general and self contact; a surface_to_surface contact names 'secondary' and 'main'",
                ));
            }
        }
        ContactKind::General | ContactKind::SelfContact => {
            for key in ["secondary", "main"] {
                let given = if key == "secondary" {
                    c.secondary.is_some()
                } else {
                    c.main.is_some()
                };
                if given {
                    return Err(InvalidParams::new(
                        &p.at(key),
                        format!("general and self contact take 'parts', not '{key}'"),
                    ));
                }
            }
            if c.parts.is_empty() {
                return Err(InvalidParams::new(
                    &p.at("parts"),
                    "name the parts whose exterior faces are in contact",
                ));
            }
            if c.kind == ContactKind::SelfContact && c.parts.len() != 1 {
                return Err(InvalidParams::new(
                    &p.at("parts"),
                    format!("self contact takes exactly one part, got {}", c.parts.len()),
                ));
            }
            let mut seen = BTreeSet::new();
            for (k, name) in c.parts.iter().enumerate() {
                find_part(&p.at("parts").at(k), name)?;
                if !seen.insert(name.as_str()) {
                    return Err(InvalidParams::new(
                        &p.at("parts").at(k),
                        format!("the part '{name}' is named twice"),
                    ));
                }
            }
        }
    }
    positive(&p.at("penalty_scale"), c.penalty_scale, "the penalty scale")?;
    if let Some(f) = &c.friction {
        validate_friction(f, &p.at("friction"))?;
    }
    finite(&p.at("damping"), c.damping)?;
    if !(0.0..=1.0).contains(&c.damping) {
        return Err(InvalidParams::new(
            &p.at("damping"),
            format!(
                "the contact damping is a fraction of critical in [0, 1], got {}",
                c.damping
            ),
        ));
    }
    Ok(())
}

fn validate_friction(f: &Friction, p: &Pointer) -> Result<(), InvalidParams> {
    let non_negative = |q: &Pointer, v: f64, what: &str| -> Result<(), InvalidParams> {
        finite(q, v)?;
        if v < 0.0 {
            return Err(InvalidParams::new(
                q,
                format!("{what} cannot be negative, got {v}"),
            ));
        }
        Ok(())
    };
    non_negative(
        &p.at("static"),
        f.static_coefficient,
        "a friction coefficient",
    )?;
    if let Some(d) = f.dynamic_coefficient {
        non_negative(&p.at("dynamic"), d, "a friction coefficient")?;
        if d > f.static_coefficient {
            return Err(InvalidParams::new(
                &p.at("dynamic"),
                format!(
                    "the dynamic coefficient ({d}) cannot exceed the static one ({})",
                    f.static_coefficient
                ),
            ));
        }
    }
    non_negative(&p.at("decay"), f.decay, "the friction decay")
}

/// Check the parameters of a generator.
pub fn validate_generate(spec: &GenerateSpec, p: &Pointer) -> Result<(), InvalidParams> {
    match spec {
        GenerateSpec::Block(b) => {
            for k in 0..3 {
                finite(&p.at("origin").at(k), b.origin[k])?;
                positive(&p.at("size").at(k), b.size[k], "a block's edge length")?;
            }
            for (key, n) in [("nx", b.nx), ("ny", b.ny), ("nz", b.nz)] {
                if n == 0 {
                    return Err(InvalidParams::new(&p.at(key), "must be at least 1"));
                }
            }
            for k in 0..3 {
                positive(&p.at("grading").at(k), b.grading[k], "a grading ratio")?;
            }
            let count = u64::from(b.nx) * u64::from(b.ny) * u64::from(b.nz);
            within_generator_cap(p, count)
        }
        GenerateSpec::Sphere(s) => validate_sphere(s, p),
    }
}

fn within_generator_cap(p: &Pointer, count: u64) -> Result<(), InvalidParams> {
    if count > MAX_GENERATED_ELEMENTS {
        return Err(InvalidParams::new(
            p,
            format!(
                "{count} elements is more than the {MAX_GENERATED_ELEMENTS} a generator builds"
            ),
        ));
    }
    Ok(())
}

/// The steepest growth a sphere takes: beyond it neighbours differ too much in size for
/// the elements between the pole and the cube to keep their shape.
pub const MAX_SPHERE_GROWTH: f64 = 2.0;

fn validate_sphere(s: &crate::mesh::SphereSpec, p: &Pointer) -> Result<(), InvalidParams> {
    for k in 0..3 {
        finite(&p.at("centre").at(k), s.centre[k])?;
        finite(&p.at("pole").at(k), s.pole[k])?;
    }
    positive(&p.at("radius"), s.radius, "a sphere's radius")?;
    let norm = s.pole.iter().map(|c| c * c).sum::<f64>().sqrt();
    if norm <= 0.0 {
        return Err(InvalidParams::new(
            &p.at("pole"),
            "the pole is a direction from the centre and cannot be the zero vector",
        ));
    }
    let mut cut = [false; 3];
    for (i, h) in s.keep.iter().enumerate() {
        let (axis, side) = h.axis_and_side();
        let q = p.at("keep").at(i);
        if std::mem::replace(&mut cut[axis], true) {
            return Err(InvalidParams::new(
                &q,
                format!(
                    "the {} axis is cut twice: keep one half-space per axis",
                    ["x", "y", "z"][axis]
                ),
            ));
        }
        if s.pole[axis] * side < 0.0 {
            return Err(InvalidParams::new(
                &p.at("pole"),
                format!(
                    "the pole {:?} points out of the kept half-space (keep[{i}]); it must lie on the mesh",
                    s.pole
                ),
            ));
        }
    }
    positive(
        &p.at("smallest_size"),
        s.smallest_size,
        "the smallest element size",
    )?;
    if s.smallest_size > 0.25 * s.radius {
        return Err(InvalidParams::new(
            &p.at("smallest_size"),
            format!(
                "the smallest element size ({}) must be at most a quarter of the radius ({})",
                s.smallest_size, s.radius
            ),
        ));
    }
    finite(&p.at("growth"), s.growth)?;
    if !(1.0..=MAX_SPHERE_GROWTH).contains(&s.growth) {
        return Err(InvalidParams::new(
            &p.at("growth"),
            format!(
                "the growth ratio must lie in [1, {MAX_SPHERE_GROWTH}], got {}",
                s.growth
            ),
        ));
    }
    if let Some(cap) = s.largest_size {
        finite(&p.at("largest_size"), cap)?;
        if cap < s.smallest_size {
            return Err(InvalidParams::new(
                &p.at("largest_size"),
                format!(
                    "the largest size ({cap}) cannot be below the smallest ({})",
                    s.smallest_size
                ),
            ));
        }
    }
    within_generator_cap(p, crate::grading::SphereLayout::counts(s).elements)
}

/// The most elements one generator call builds (about 1 GiB of solve state).
pub const MAX_GENERATED_ELEMENTS: u64 = 2_000_000;

fn validate_mesh_source(mesh: &MeshSource, p: &Pointer) -> Result<(), InvalidParams> {
    if let Some(spec) = &mesh.generate {
        if mesh.nodes.is_some() || mesh.elements.is_some() {
            return Err(InvalidParams::new(
                p,
                "give either 'generate' or 'nodes' and 'elements', not both",
            ));
        }
        if !mesh.node_sets.is_empty() || !mesh.face_sets.is_empty() {
            return Err(InvalidParams::new(
                p,
                "a generated mesh names its own sets; drop 'node_sets' and 'face_sets'",
            ));
        }
        return validate_generate(spec, &p.at("generate"));
    }
    let nodes = mesh.nodes.as_ref().ok_or_else(|| {
        InvalidParams::new(&p.at("nodes"), "a mesh needs 'nodes' (or 'generate')")
    })?;
    let elements = mesh.elements.as_ref().ok_or_else(|| {
        InvalidParams::new(&p.at("elements"), "a mesh needs 'elements' (or 'generate')")
    })?;
    if nodes.is_empty() {
        return Err(InvalidParams::new(
            &p.at("nodes"),
            "a mesh needs at least one node",
        ));
    }
    if elements.is_empty() {
        return Err(InvalidParams::new(
            &p.at("elements"),
            "a mesh needs at least one element",
        ));
    }
    for (i, x) in nodes.iter().enumerate() {
        for (k, v) in x.iter().enumerate() {
            finite(&p.at("nodes").at(i).at(k), *v)?;
        }
    }
    let n = nodes.len() as u64;
    for (e, conn) in elements.iter().enumerate() {
        for (k, &id) in conn.iter().enumerate() {
            if u64::from(id) >= n {
                return Err(InvalidParams::new(
                    &p.at("elements").at(e).at(k),
                    format!("node {id} does not exist (the mesh has {n} nodes)"),
                ));
            }
        }
        let distinct: BTreeSet<u32> = conn.iter().copied().collect();
        if distinct.len() != 8 {
            return Err(InvalidParams::new(
                &p.at("elements").at(e),
                "a hex8 needs eight distinct nodes (degenerate element)",
            ));
        }
    }
    for (name, ids) in &mesh.node_sets {
        let q = p.at("node_sets").at(name);
        if ids.is_empty() {
            return Err(InvalidParams::new(&q, "a node set cannot be empty"));
        }
        for (i, &id) in ids.iter().enumerate() {
            if u64::from(id) >= n {
                return Err(InvalidParams::new(
                    &q.at(i),
                    format!("node {id} does not exist (the mesh has {n} nodes)"),
                ));
            }
        }
    }
    let ne = elements.len() as u64;
    for (name, faces) in &mesh.face_sets {
        let q = p.at("face_sets").at(name);
        if faces.is_empty() {
            return Err(InvalidParams::new(&q, "a face set cannot be empty"));
        }
        for (i, &[e, f]) in faces.iter().enumerate() {
            if u64::from(e) >= ne {
                return Err(InvalidParams::new(
                    &q.at(i).at(0),
                    format!("element {e} does not exist (the mesh has {ne} elements)"),
                ));
            }
            if f >= 6 {
                return Err(InvalidParams::new(
                    &q.at(i).at(1),
                    format!("a hex8 has faces 0 to 5, got {f}"),
                ));
            }
        }
    }
    Ok(())
}

fn check_node_set(part: &Part, set: &str, p: &Pointer) -> Result<(), InvalidParams> {
    let known = match &part.mesh.generate {
        Some(spec) => spec.node_set_names().contains(&set),
        None => part.mesh.node_sets.contains_key(set),
    };
    if known {
        Ok(())
    } else {
        Err(InvalidParams::new(
            p,
            format!("part '{}' has no node set '{set}'", part.name),
        ))
    }
}

fn check_face_set(part: &Part, set: &str, p: &Pointer) -> Result<(), InvalidParams> {
    let known = match &part.mesh.generate {
        Some(spec) => spec.face_set_names().contains(&set),
        None => part.mesh.face_sets.contains_key(set),
    };
    if known {
        Ok(())
    } else {
        Err(InvalidParams::new(
            p,
            format!("part '{}' has no face set '{set}'", part.name),
        ))
    }
}
