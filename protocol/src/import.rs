//! `mesh.import`: Gmsh .msh 4.1 (ASCII) and Abaqus .inp text into the mesh type that
//! `mesh.generate` builds, with node sets, element sets and element-face surfaces.
//!
//! The parsers live in the protocol, not the core: they translate one file format into
//! the protocol's own data (as `parse_params` translates JSON), need no solver, and a
//! client or the model's validation can run them without the core. Shape checks
//! (inverted elements) stay with the core, which knows the shape functions.
//!
//! Formats followed: the Gmsh reference manual, "MSH file format" (version 4.1: sections
//! $MeshFormat, $PhysicalNames, $Entities, $Nodes, $Elements; element type 5 is the
//! 8-node hexahedron, its nodes in the order of `HEX8_FACES`); the Abaqus Keywords
//! Reference (*NODE, *ELEMENT, *NSET, *ELSET with GENERATE, *SURFACE TYPE=ELEMENT with
//! faces S1..S6, which are `HEX8_FACES` in order). Nodes no hexahedron uses are left out
//! (they would carry no mass); ids are renumbered from 0 in the file's order.

use crate::mesh::{Mesh, MeshQuality, HEX8_FACES};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};

pub const METHOD_MESH_IMPORT: &str = "mesh.import";

/// The file formats `mesh.import` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MeshFormat {
    /// Gmsh .msh version 4.1, ASCII.
    Gmsh,
    /// Abaqus .inp (a flat input: one part, no instances).
    Abaqus,
}

/// `mesh.import` params, and what a part's `"mesh": {"import": {...}}` holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MeshImportParams {
    pub format: MeshFormat,
    /// The whole file's text.
    pub text: String,
}

/// What `mesh.import` answers: the mesh as `mesh.generate` gives it, and the element
/// sets (which a model does not use, but a client may).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MeshImportResult {
    pub mesh: Mesh,
    pub nodes: usize,
    pub elements: usize,
    /// Named element sets: lists of element indices.
    pub element_sets: BTreeMap<String, Vec<u32>>,
    pub quality: MeshQuality,
    /// Nodes of the file that no hexahedron uses, left out.
    pub dropped_nodes: usize,
}

/// A parsed file: the mesh, its element sets, and for each element the file line that
/// defines it (for errors the core finds later, such as an inverted element).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Imported {
    pub mesh: Mesh,
    pub element_sets: BTreeMap<String, Vec<u32>>,
    pub element_lines: Vec<usize>,
    pub dropped_nodes: usize,
}

/// Why a file cannot be imported, and the 1-based line where that shows.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {reason}")]
pub struct ImportError {
    pub line: usize,
    pub reason: String,
}

fn fail<T>(line: usize, reason: impl Into<String>) -> Result<T, ImportError> {
    Err(ImportError {
        line,
        reason: reason.into(),
    })
}

/// Parse `text` as `format`.
pub fn import(format: MeshFormat, text: &str) -> Result<Imported, ImportError> {
    match format {
        MeshFormat::Gmsh => gmsh(text),
        MeshFormat::Abaqus => abaqus(text),
    }
}

/// Elements by file id, nodes by file id, and sets by file ids, before renumbering.
#[derive(Default)]
struct Raw {
    /// (file id, coordinates, line)
    nodes: Vec<(u64, [f64; 3], usize)>,
    /// (file id, eight node file ids, line)
    elements: Vec<(u64, [u64; 8], usize)>,
    node_sets: BTreeMap<String, Vec<u64>>,
    element_sets: BTreeMap<String, Vec<u64>>,
    /// (element file id, local face, line)
    face_sets: BTreeMap<String, Vec<(u64, usize, usize)>>,
}

impl Raw {
    /// Renumber from 0 in file order, keep only nodes some element uses, and check every
    /// reference.
    fn finish(self) -> Result<Imported, ImportError> {
        let mut node_line: HashMap<u64, usize> = HashMap::with_capacity(self.nodes.len());
        for (id, _, line) in &self.nodes {
            if let Some(first) = node_line.insert(*id, *line) {
                return fail(
                    *line,
                    format!("node {id} is defined twice (first on line {first})"),
                );
            }
        }
        if self.elements.is_empty() {
            return fail(
                1,
                "the file holds no 8-node hexahedra (Gmsh type 5, Abaqus C3D8 or C3D8R)",
            );
        }
        let mut used: HashMap<u64, ()> = HashMap::new();
        for (id, conn, line) in &self.elements {
            for n in conn {
                if !node_line.contains_key(n) {
                    return fail(
                        *line,
                        format!("element {id} uses node {n}, which the file does not define"),
                    );
                }
                used.insert(*n, ());
            }
        }
        let mut index: HashMap<u64, u32> = HashMap::with_capacity(used.len());
        let mut nodes = Vec::with_capacity(used.len());
        for (id, x, _) in &self.nodes {
            if used.contains_key(id) {
                index.insert(*id, nodes.len() as u32);
                nodes.push(*x);
            }
        }
        let dropped_nodes = self.nodes.len() - nodes.len();
        let mut element_index: HashMap<u64, u32> = HashMap::with_capacity(self.elements.len());
        let mut elements = Vec::with_capacity(self.elements.len());
        let mut element_lines = Vec::with_capacity(self.elements.len());
        for (id, conn, line) in &self.elements {
            if element_index.insert(*id, elements.len() as u32).is_some() {
                return fail(*line, format!("element {id} is defined twice"));
            }
            elements.push(conn.map(|n| index[&n]));
            element_lines.push(*line);
        }
        let mut node_sets = BTreeMap::new();
        for (name, ids) in self.node_sets {
            // Nodes of the set that no element uses are left out with them.
            let mut set: Vec<u32> = ids.iter().filter_map(|n| index.get(n).copied()).collect();
            set.sort_unstable();
            set.dedup();
            node_sets.insert(name, set);
        }
        let mut element_sets = BTreeMap::new();
        for (name, ids) in self.element_sets {
            let mut set: Vec<u32> = ids
                .iter()
                .filter_map(|e| element_index.get(e).copied())
                .collect();
            set.sort_unstable();
            set.dedup();
            element_sets.insert(name, set);
        }
        let mut face_sets = BTreeMap::new();
        for (name, faces) in self.face_sets {
            let mut set = Vec::with_capacity(faces.len());
            for (e, face, line) in faces {
                let Some(&i) = element_index.get(&e) else {
                    return fail(line, format!("surface '{name}' names element {e}, which is not an 8-node hexahedron of the file"));
                };
                set.push([i, face as u32]);
            }
            set.sort_unstable();
            set.dedup();
            face_sets.insert(name, set);
        }
        Ok(Imported {
            mesh: Mesh {
                nodes,
                elements,
                node_sets,
                face_sets,
            },
            element_sets,
            element_lines,
            dropped_nodes,
        })
    }
}

fn number<T: std::str::FromStr>(token: &str, line: usize, what: &str) -> Result<T, ImportError> {
    token
        .trim()
        .parse()
        .or_else(|_| fail(line, format!("'{}' is not a valid {what}", token.trim())))
}

fn coordinate(token: &str, line: usize) -> Result<f64, ImportError> {
    let x: f64 = number(token, line, "coordinate")?;
    if x.is_finite() {
        Ok(x)
    } else {
        fail(line, format!("coordinate '{}' is not finite", token.trim()))
    }
}

// ---------------------------------------------------------------------------------------
// Gmsh .msh 4.1

/// Why Gmsh element types other than these are refused.
fn gmsh_unsupported(ty: u32) -> &'static str {
    match ty {
        4 => "4-node tetrahedra are not supported: mesh with hexahedra (Recombine and the transfinite or subdivision algorithms)",
        11 | 29 | 30 | 31 => "tetrahedra are not supported, nor second-order elements",
        6 | 7 => "prisms and pyramids are not supported: only 8-node hexahedra",
        12 | 17 | 92 | 93 => "second-order hexahedra are not supported: use first-order (Mesh.ElementOrder = 1)",
        8 | 9 | 10 | 16 | 21 | 26 => "second-order elements are not supported: use first-order (Mesh.ElementOrder = 1)",
        _ => "this element type is not supported: only 8-node hexahedra (type 5) and, in physical groups, quadrangles (3), lines (1) and points (15)",
    }
}

struct Lines<'a> {
    lines: std::iter::Peekable<std::iter::Enumerate<std::str::Lines<'a>>>,
    last: usize,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Self {
        Lines {
            lines: text.lines().enumerate().peekable(),
            last: 0,
        }
    }
    /// The next line that is not blank, with its 1-based number.
    fn next(&mut self) -> Option<(usize, &'a str)> {
        for (i, l) in self.lines.by_ref() {
            if !l.trim().is_empty() {
                self.last = i + 1;
                return Some((i + 1, l.trim()));
            }
        }
        None
    }
    fn need(&mut self, what: &str) -> Result<(usize, &'a str), ImportError> {
        let at = self.last + 1;
        self.next()
            .map_or_else(|| fail(at, format!("the file ends inside {what}")), Ok)
    }
    /// The next line's numbers, at least `n` of them.
    fn numbers<T: std::str::FromStr>(
        &mut self,
        n: usize,
        what: &str,
    ) -> Result<(usize, Vec<T>), ImportError> {
        let (line, text) = self.need(what)?;
        let values: Vec<T> = text
            .split_whitespace()
            .map(|t| number(t, line, "number"))
            .collect::<Result<_, _>>()?;
        if values.len() < n {
            return fail(
                line,
                format!("{what}: expected {n} numbers, found {}", values.len()),
            );
        }
        Ok((line, values))
    }
}

/// An element of a physical group: its Gmsh type, its tag then node tags, its line.
type GroupMember = (u32, Vec<u64>, usize);

/// An Abaqus keyword line's number, the keyword, and its data lines with their numbers.
type KeywordBlock = (usize, Keyword, Vec<(usize, String)>);

fn gmsh(text: &str) -> Result<Imported, ImportError> {
    let mut lines = Lines::new(text);
    let mut raw = Raw::default();
    let mut names: HashMap<(i32, i32), String> = HashMap::new();
    // (dim, entity tag) -> physical tags
    let mut physicals: HashMap<(i32, i32), Vec<i32>> = HashMap::new();
    // (dim, physical tag) -> element file ids of lower dimensions, and hexahedra
    let mut group_elements: BTreeMap<(i32, i32), Vec<GroupMember>> = BTreeMap::new();
    let mut seen_format = false;
    while let Some((line, head)) = lines.next() {
        match head {
            "$MeshFormat" => {
                let (l, body) = lines.need("$MeshFormat")?;
                let mut it = body.split_whitespace();
                let version = it.next().unwrap_or("");
                let file_type = it.next().unwrap_or("");
                if version != "4.1" {
                    return fail(l, format!("MSH version {version} is not supported: save as version 4.1 (Mesh.MshFileVersion = 4.1)"));
                }
                if file_type != "0" {
                    return fail(
                        l,
                        "binary MSH is not supported: save as ASCII (Mesh.Binary = 0)",
                    );
                }
                seen_format = true;
                expect_end(&mut lines, "$EndMeshFormat")?;
            }
            "$PhysicalNames" => {
                let (_, n) = lines.numbers::<usize>(1, "$PhysicalNames")?;
                for _ in 0..n[0] {
                    let (l, body) = lines.need("$PhysicalNames")?;
                    let mut it = body.splitn(3, char::is_whitespace);
                    let dim: i32 = number(it.next().unwrap_or(""), l, "dimension")?;
                    let tag: i32 = number(it.next().unwrap_or(""), l, "physical tag")?;
                    let name = it.next().unwrap_or("").trim().trim_matches('"').to_string();
                    if name.is_empty() {
                        return fail(l, "a physical name is empty");
                    }
                    names.insert((dim, tag), name);
                }
                expect_end(&mut lines, "$EndPhysicalNames")?;
            }
            "$Entities" => {
                let (_, counts) = lines.numbers::<usize>(4, "$Entities")?;
                for (dim, &count) in counts.iter().take(4).enumerate() {
                    for _ in 0..count {
                        let (l, body) = lines.need("$Entities")?;
                        let t: Vec<&str> = body.split_whitespace().collect();
                        // point: tag x y z nphys phys...; others: tag 6 bounds nphys phys...
                        let at = if dim == 0 { 4 } else { 7 };
                        if t.len() <= at {
                            return fail(l, "an entity line is too short");
                        }
                        let tag: i32 = number(t[0], l, "entity tag")?;
                        let n: usize = number(t[at], l, "count of physical tags")?;
                        if t.len() < at + 1 + n {
                            return fail(
                                l,
                                "an entity line lists fewer physical tags than it says",
                            );
                        }
                        let tags = t[at + 1..at + 1 + n]
                            .iter()
                            .map(|s| number::<i32>(s, l, "physical tag").map(i32::abs))
                            .collect::<Result<Vec<_>, _>>()?;
                        physicals.insert((dim as i32, tag), tags);
                    }
                }
                expect_end(&mut lines, "$EndEntities")?;
            }
            "$Nodes" => {
                if !seen_format {
                    return fail(line, "$Nodes before $MeshFormat: not an MSH 4.1 file");
                }
                let (_, head) = lines.numbers::<usize>(4, "$Nodes")?;
                for _ in 0..head[0] {
                    let (l, block) = lines.numbers::<i64>(4, "$Nodes")?;
                    let (parametric, n) = (block[2], block[3] as usize);
                    if parametric != 0 {
                        return fail(l, "parametric nodes are not supported: save without them (Mesh.SaveParametric = 0)");
                    }
                    let mut tags = Vec::with_capacity(n);
                    for _ in 0..n {
                        let (l, t) = lines.numbers::<u64>(1, "a node block's tags")?;
                        tags.push((t[0], l));
                    }
                    for (tag, _) in tags {
                        let (l, body) = lines.need("a node block's coordinates")?;
                        let c: Vec<&str> = body.split_whitespace().collect();
                        if c.len() < 3 {
                            return fail(l, format!("node {tag}: expected x y z"));
                        }
                        raw.nodes.push((
                            tag,
                            [
                                coordinate(c[0], l)?,
                                coordinate(c[1], l)?,
                                coordinate(c[2], l)?,
                            ],
                            l,
                        ));
                    }
                }
                expect_end(&mut lines, "$EndNodes")?;
            }
            "$Elements" => {
                let (_, head) = lines.numbers::<usize>(4, "$Elements")?;
                for _ in 0..head[0] {
                    let (l, block) = lines.numbers::<i64>(4, "$Elements")?;
                    let (dim, entity, ty, n) = (
                        block[0] as i32,
                        block[1] as i32,
                        block[2] as u32,
                        block[3] as usize,
                    );
                    let groups = physicals.get(&(dim, entity)).cloned().unwrap_or_default();
                    let nodes_per = match ty {
                        5 => 8,
                        3 => 4,
                        1 => 2,
                        15 => 1,
                        // Triangles only matter inside a physical group (as faces).
                        2 if groups.is_empty() => 3,
                        2 => return fail(l, "triangles in a physical surface group cannot be faces of hexahedra: recombine the surface mesh into quadrangles"),
                        _ => return fail(l, format!("element type {ty}: {}", gmsh_unsupported(ty))),
                    };
                    for _ in 0..n {
                        let (l, e) = lines.numbers::<u64>(1 + nodes_per, "an element block")?;
                        if e.len() != 1 + nodes_per {
                            return fail(l, format!("element {}: expected {nodes_per} node tags for type {ty}, found {}", e[0], e.len() - 1));
                        }
                        if ty == 5 {
                            let mut conn = [0u64; 8];
                            conn.copy_from_slice(&e[1..9]);
                            raw.elements.push((e[0], conn, l));
                        }
                        for &g in &groups {
                            group_elements
                                .entry((dim, g))
                                .or_default()
                                .push((ty, e.clone(), l));
                        }
                    }
                }
                expect_end(&mut lines, "$EndElements")?;
            }
            s if s.starts_with("$End") => return fail(line, format!("{s} without its section")),
            s if s.starts_with('$') => {
                // Sections this reader does not need ($NodeData, $Periodic, ...): skip.
                let end = format!("$End{}", &s[1..]);
                loop {
                    let (_, l) = lines.need(s)?;
                    if l == end {
                        break;
                    }
                }
            }
            _ => {
                return fail(
                    line,
                    format!("'{head}' is outside any section: not an MSH 4.1 file"),
                )
            }
        }
    }
    if !seen_format {
        return fail(1, "no $MeshFormat section: not an MSH file");
    }
    // Faces of hexahedra by their sorted node tags, to find each quadrangle's face.
    let mut faces: HashMap<[u64; 4], (u64, usize)> = HashMap::new();
    for (id, conn, _) in &raw.elements {
        for (k, f) in HEX8_FACES.iter().enumerate() {
            let mut key = f.map(|i| conn[i]);
            key.sort_unstable();
            faces.entry(key).or_insert((*id, k));
        }
    }
    for ((dim, tag), members) in group_elements {
        let name = names
            .get(&(dim, tag))
            .cloned()
            .unwrap_or_else(|| format!("physical_{dim}_{tag}"));
        let nodes = raw.node_sets.entry(name.clone()).or_default();
        for (_, e, _) in &members {
            nodes.extend_from_slice(&e[1..]);
        }
        if dim == 3 {
            raw.element_sets
                .entry(name.clone())
                .or_default()
                .extend(members.iter().filter(|m| m.0 == 5).map(|m| m.1[0]));
        }
        if dim == 2 {
            let set = raw.face_sets.entry(name.clone()).or_default();
            for (ty, e, l) in &members {
                if *ty != 3 {
                    continue;
                }
                let mut key = [e[1], e[2], e[3], e[4]];
                key.sort_unstable();
                let Some(&(element, face)) = faces.get(&key) else {
                    return fail(
                        *l,
                        format!(
                            "quadrangle {} of group '{name}' is not a face of any hexahedron",
                            e[0]
                        ),
                    );
                };
                set.push((element, face, *l));
            }
        }
    }
    raw.finish()
}

fn expect_end(lines: &mut Lines<'_>, end: &str) -> Result<(), ImportError> {
    let (l, text) = lines.need(end)?;
    if text == end {
        Ok(())
    } else {
        fail(l, format!("expected {end}, found '{text}'"))
    }
}

// ---------------------------------------------------------------------------------------
// Abaqus .inp

/// A keyword line: its name (upper case) and its parameters (names upper case).
struct Keyword {
    name: String,
    params: Vec<(String, String)>,
}

impl Keyword {
    fn parse(text: &str) -> Keyword {
        let mut parts = text.trim_start_matches('*').split(',');
        let name = parts.next().unwrap_or("").trim().to_ascii_uppercase();
        let params = parts
            .filter(|p| !p.trim().is_empty())
            .map(|p| match p.split_once('=') {
                Some((k, v)) => (k.trim().to_ascii_uppercase(), v.trim().to_string()),
                None => (p.trim().to_ascii_uppercase(), String::new()),
            })
            .collect();
        Keyword { name, params }
    }
    fn get(&self, key: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
    fn has(&self, key: &str) -> bool {
        self.params.iter().any(|(k, _)| k == key)
    }
}

/// Why an Abaqus element type is refused, or none for the 8-node bricks.
fn abaqus_unsupported(ty: &str) -> Option<String> {
    let t = ty.to_ascii_uppercase();
    // The formulation letters (R reduced, H hybrid, I incompatible modes) do not change
    // the geometry: every brick runs as Impact's one-point hex8.
    if matches!(
        t.as_str(),
        "C3D8" | "C3D8R" | "C3D8H" | "C3D8RH" | "C3D8I" | "C3D8IH"
    ) {
        return None;
    }
    Some(if t.starts_with("C3D4") || t.starts_with("C3D10") {
        format!("element type {ty}: tetrahedra are not supported; only 8-node bricks (C3D8, C3D8R)")
    } else if t.starts_with("C3D20") || t.starts_with("C3D27") {
        format!("element type {ty}: second-order bricks are not supported; use C3D8 or C3D8R")
    } else if t.starts_with("C3D6") || t.starts_with("C3D15") || t.starts_with("C3D5") {
        format!("element type {ty}: wedges and pyramids are not supported; only 8-node bricks (C3D8, C3D8R)")
    } else {
        format!("element type {ty} is not supported; only 8-node bricks (C3D8, C3D8R)")
    })
}

/// A set's entries: ids, or (without GENERATE) names of sets defined before.
fn set_entries(
    data: &[(usize, String)],
    generate: bool,
    known: &BTreeMap<String, Vec<u64>>,
    kind: &str,
) -> Result<Vec<u64>, ImportError> {
    let mut out = Vec::new();
    for (l, text) in data {
        let tokens: Vec<&str> = text
            .split(',')
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .collect();
        if generate {
            if tokens.len() < 2 || tokens.len() > 3 {
                return fail(*l, "GENERATE takes first, last[, increment]");
            }
            let first: u64 = number(tokens[0], *l, "id")?;
            let last: u64 = number(tokens[1], *l, "id")?;
            let step: u64 = match tokens.get(2) {
                Some(s) => number(s, *l, "increment")?,
                None => 1,
            };
            if step == 0 || last < first {
                return fail(
                    *l,
                    "GENERATE needs first <= last and an increment of at least 1",
                );
            }
            out.extend((first..=last).step_by(step as usize));
        } else {
            for t in tokens {
                match t.parse::<u64>() {
                    Ok(id) => out.push(id),
                    Err(_)
                        if t.chars()
                            .next()
                            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_') =>
                    {
                        match known.get(t) {
                            Some(ids) => out.extend_from_slice(ids),
                            None => {
                                return fail(
                                    *l,
                                    format!(
                                        "'{t}' is neither an id nor a {kind} set defined above"
                                    ),
                                )
                            }
                        }
                    }
                    Err(_) => return fail(*l, format!("'{t}' is not a valid id")),
                }
            }
        }
    }
    Ok(out)
}

fn abaqus(text: &str) -> Result<Imported, ImportError> {
    // Keyword blocks: the keyword line and its data lines, comments (**) left out.
    let mut blocks: Vec<KeywordBlock> = Vec::new();
    for (i, raw_line) in text.lines().enumerate() {
        let line = i + 1;
        let t = raw_line.trim();
        if t.is_empty() || t.starts_with("**") {
            continue;
        }
        if t.starts_with('*') {
            blocks.push((line, Keyword::parse(t), Vec::new()));
        } else {
            match blocks.last_mut() {
                Some((_, _, data)) => data.push((line, t.to_string())),
                None => {
                    return fail(
                        line,
                        "data before the first keyword: not an Abaqus input file",
                    )
                }
            }
        }
    }
    let mut raw = Raw::default();
    let mut parts = 0;
    for (line, kw, data) in &blocks {
        let line = *line;
        match kw.name.as_str() {
            "NODE" => {
                if let Some(system) = kw.get("SYSTEM") {
                    if !system.eq_ignore_ascii_case("R") {
                        return fail(line, format!("*NODE, SYSTEM={system}: only rectangular coordinates are supported"));
                    }
                }
                let mut ids = Vec::with_capacity(data.len());
                for (l, d) in data {
                    let t: Vec<&str> = d
                        .split(',')
                        .map(str::trim)
                        .filter(|s| !s.is_empty())
                        .collect();
                    if t.len() < 3 {
                        return fail(*l, "a node line holds: id, x, y[, z]");
                    }
                    let id: u64 = number(t[0], *l, "node id")?;
                    let z = match t.get(3) {
                        Some(z) => coordinate(z, *l)?,
                        None => 0.0,
                    };
                    raw.nodes
                        .push((id, [coordinate(t[1], *l)?, coordinate(t[2], *l)?, z], *l));
                    ids.push(id);
                }
                if let Some(set) = kw.get("NSET") {
                    raw.node_sets
                        .entry(set.to_string())
                        .or_default()
                        .extend(ids);
                }
            }
            "ELEMENT" => {
                let Some(ty) = kw.get("TYPE") else {
                    return fail(line, "*ELEMENT needs TYPE= (C3D8 or C3D8R)");
                };
                if let Some(reason) = abaqus_unsupported(ty) {
                    return fail(line, reason);
                }
                // An element's id and nodes may run over several lines: a line that ends
                // with a comma continues on the next.
                let mut pending: Vec<u64> = Vec::new();
                let mut start = 0;
                let mut ids = Vec::new();
                for (l, d) in data {
                    if pending.is_empty() {
                        start = *l;
                    }
                    for t in d.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                        pending.push(number(t, *l, "id")?);
                    }
                    if d.trim_end().ends_with(',') && pending.len() < 9 {
                        continue;
                    }
                    if pending.len() != 9 {
                        return fail(
                            start,
                            format!(
                                "an {ty} element lists an id and 8 nodes; found {} numbers",
                                pending.len()
                            ),
                        );
                    }
                    let mut conn = [0u64; 8];
                    conn.copy_from_slice(&pending[1..]);
                    raw.elements.push((pending[0], conn, start));
                    ids.push(pending[0]);
                    pending.clear();
                }
                if !pending.is_empty() {
                    return fail(start, "the last element's line is incomplete");
                }
                if let Some(set) = kw.get("ELSET") {
                    raw.element_sets
                        .entry(set.to_string())
                        .or_default()
                        .extend(ids);
                }
            }
            "NSET" => {
                let Some(name) = kw.get("NSET") else {
                    return fail(line, "*NSET needs NSET=name");
                };
                if let Some(elset) = kw.get("ELSET") {
                    // The nodes of an element set.
                    let Some(elements) = raw.element_sets.get(elset) else {
                        return fail(line, format!("element set '{elset}' is not defined above"));
                    };
                    let wanted: std::collections::HashSet<u64> = elements.iter().copied().collect();
                    let nodes: Vec<u64> = raw
                        .elements
                        .iter()
                        .filter(|(id, _, _)| wanted.contains(id))
                        .flat_map(|(_, c, _)| c.iter().copied())
                        .collect();
                    raw.node_sets
                        .entry(name.to_string())
                        .or_default()
                        .extend(nodes);
                    continue;
                }
                let ids = set_entries(data, kw.has("GENERATE"), &raw.node_sets, "node")?;
                raw.node_sets
                    .entry(name.to_string())
                    .or_default()
                    .extend(ids);
            }
            "ELSET" => {
                let Some(name) = kw.get("ELSET") else {
                    return fail(line, "*ELSET needs ELSET=name");
                };
                let ids = set_entries(data, kw.has("GENERATE"), &raw.element_sets, "element")?;
                raw.element_sets
                    .entry(name.to_string())
                    .or_default()
                    .extend(ids);
            }
            "SURFACE" => {
                let Some(name) = kw.get("NAME") else {
                    return fail(line, "*SURFACE needs NAME=name");
                };
                if let Some(ty) = kw.get("TYPE") {
                    if !ty.eq_ignore_ascii_case("ELEMENT") {
                        return fail(line, format!("*SURFACE, TYPE={ty} is not supported: only element-based surfaces (faces S1..S6)"));
                    }
                }
                let mut faces = Vec::new();
                for (l, d) in data {
                    let t: Vec<&str> = d
                        .split(',')
                        .map(str::trim)
                        .filter(|s| !s.is_empty())
                        .collect();
                    if t.len() != 2 {
                        return fail(
                            *l,
                            "a surface line holds: element or element set, face (S1..S6)",
                        );
                    }
                    let face = match t[1].to_ascii_uppercase().as_str() {
                        "S1" => 0,
                        "S2" => 1,
                        "S3" => 2,
                        "S4" => 3,
                        "S5" => 4,
                        "S6" => 5,
                        other => {
                            return fail(
                                *l,
                                format!("face '{other}' is not one of a brick's S1..S6"),
                            )
                        }
                    };
                    match t[0].parse::<u64>() {
                        Ok(e) => faces.push((e, face, *l)),
                        Err(_) => match raw.element_sets.get(t[0]) {
                            Some(ids) => faces.extend(ids.iter().map(|&e| (e, face, *l))),
                            None => return fail(*l, format!("'{}' is neither an element id nor an element set defined above", t[0])),
                        },
                    }
                }
                raw.face_sets
                    .entry(name.to_string())
                    .or_default()
                    .extend(faces);
            }
            "PART" => {
                parts += 1;
                if parts > 1 {
                    return fail(
                        line,
                        "a second *PART: import one part per call (a flat input, or one part)",
                    );
                }
            }
            "INSTANCE" if !data.is_empty() => {
                return fail(line, "an *INSTANCE with a translation or rotation is not supported: import the part's own input");
            }
            "INCLUDE" => {
                return fail(
                    line,
                    "*INCLUDE is not supported: paste the included file's text in its place",
                )
            }
            // Everything else (*HEADING, *MATERIAL, *STEP, *END PART, ...) does not shape the
            // mesh: left out, with its data lines.
            _ => {}
        }
    }
    raw.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    // A one-element cube as the Abaqus Keywords Reference writes inputs: nodes 1..8 at
    // the unit cube's corners, bottom counter-clockwise seen from +z, then the top.
    const CUBE: &str = "*HEADING\nunit cube\n*NODE\n1, 0., 0., 0.\n2, 1., 0., 0.\n3, 1., 1., 0.\n4, 0., 1., 0.\n5, 0., 0., 1.\n6, 1., 0., 1.\n7, 1., 1., 1.\n8, 0., 1., 1.\n*ELEMENT, TYPE=C3D8R, ELSET=ALL\n1, 1, 2, 3, 4, 5, 6, 7, 8\n*NSET, NSET=BOTTOM, GENERATE\n1, 4, 1\n*SURFACE, NAME=TOP\nALL, S2\n";

    #[test]
    fn a_cube_from_the_keywords_reference() {
        let m = import(MeshFormat::Abaqus, CUBE).expect("imports");
        assert_eq!(m.mesh.nodes.len(), 8);
        assert_eq!(m.mesh.elements, vec![[0, 1, 2, 3, 4, 5, 6, 7]]);
        assert_eq!(m.mesh.node_sets["BOTTOM"], vec![0, 1, 2, 3]);
        // S2 is the face at z = 1 (Abaqus: face 2 is nodes 5-8).
        assert_eq!(m.mesh.face_sets["TOP"], vec![[0, 1]]);
        assert_eq!(m.element_sets["ALL"], vec![0]);
        assert_eq!(m.element_lines, vec![13]);
    }

    fn error(format: MeshFormat, text: &str) -> ImportError {
        import(format, text).expect_err("refused")
    }

    #[test]
    fn abaqus_errors_name_the_line_and_the_reason() {
        let tet = CUBE.replace("TYPE=C3D8R", "TYPE=C3D4");
        let e = error(MeshFormat::Abaqus, &tet);
        assert_eq!(e.line, 12);
        assert!(e.reason.contains("tetrahedra"), "{e}");
        let quadratic = CUBE.replace("TYPE=C3D8R", "TYPE=C3D20R");
        assert!(error(MeshFormat::Abaqus, &quadratic)
            .reason
            .contains("second-order"));
        let missing = CUBE.replace("1, 1, 2, 3, 4, 5, 6, 7, 8", "1, 1, 2, 3, 4, 5, 6, 7, 9");
        let e = error(MeshFormat::Abaqus, &missing);
        assert_eq!(e.line, 13);
        assert!(e.reason.contains("node 9"), "{e}");
        let bad = CUBE.replace("3, 1., 1., 0.", "3, 1., 1x, 0.");
        let e = error(MeshFormat::Abaqus, &bad);
        assert_eq!((e.line, e.reason.contains("'1x'")), (6, true), "{e}");
        let face = CUBE.replace("ALL, S2", "ALL, S7");
        assert_eq!(error(MeshFormat::Abaqus, &face).line, 17);
        let nodal = CUBE.replace("NAME=TOP", "NAME=TOP, TYPE=NODE");
        assert_eq!(error(MeshFormat::Abaqus, &nodal).line, 16);
        let short = CUBE.replace("1, 1, 2, 3, 4, 5, 6, 7, 8", "1, 1, 2, 3, 4, 5, 6, 7");
        assert_eq!(error(MeshFormat::Abaqus, &short).line, 13);
    }

    // The same cube as MSH 4.1 by the Gmsh reference manual's format: a volume entity in
    // physical group 1 "solid" and a surface entity (the x = 1 side, a quadrangle) in
    // physical group 2 "right"; point 9 is a geometry point no element uses.
    const CUBE_MSH: &str = "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$PhysicalNames\n2\n2 2 \"right\"\n3 1 \"solid\"\n$EndPhysicalNames\n$Entities\n0 0 1 1\n1 1 0 0 1 1 1 1 2 0\n1 0 0 0 1 1 1 1 1 0\n$EndEntities\n$Nodes\n1 9 1 9\n3 1 0 9\n1\n2\n3\n4\n5\n6\n7\n8\n9\n0 0 0\n1 0 0\n1 1 0\n0 1 0\n0 0 1\n1 0 1\n1 1 1\n0 1 1\n5 5 5\n$EndNodes\n$Elements\n2 2 1 2\n3 1 5 1\n1 1 2 3 4 5 6 7 8\n2 1 3 1\n2 2 3 7 6\n$EndElements\n";

    /// The unit normal of face `k` of element `e` by `HEX8_FACES`' corner order.
    fn normal(m: &Mesh, e: usize, k: usize) -> [f64; 3] {
        let x = HEX8_FACES[k].map(|i| m.nodes[m.elements[e][i] as usize]);
        let d = |a: [f64; 3], b: [f64; 3]| [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
        let (p, q) = (d(x[0], x[2]), d(x[1], x[3]));
        let n = [
            p[1] * q[2] - p[2] * q[1],
            p[2] * q[0] - p[0] * q[2],
            p[0] * q[1] - p[1] * q[0],
        ];
        let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
        n.map(|c| c / len)
    }

    #[test]
    fn gmsh_groups_become_sets_and_quadrangles_outward_faces() {
        let m = import(MeshFormat::Gmsh, CUBE_MSH).expect("imports");
        assert_eq!((m.mesh.nodes.len(), m.dropped_nodes), (8, 1));
        assert_eq!(m.mesh.elements, vec![[0, 1, 2, 3, 4, 5, 6, 7]]);
        assert_eq!(m.element_sets["solid"], vec![0]);
        assert_eq!(m.mesh.node_sets["right"], vec![1, 2, 5, 6]);
        // The quadrangle 2-3-7-6 is the x = 1 side: Abaqus S4, local face 3, whose
        // normal points out of the cube along +x.
        assert_eq!(m.mesh.face_sets["right"], vec![[0, 3]]);
        assert_eq!(normal(&m.mesh, 0, 3), [1.0, 0.0, 0.0]);
    }

    #[test]
    fn abaqus_faces_s1_to_s6_point_out_of_the_cube() {
        // The Keywords Reference's sides of a brick: S1 z-, S2 z+, S3 y-, S4 x+, S5 y+,
        // S6 x- (for the node order of CUBE).
        let out = [
            [0., 0., -1.],
            [0., 0., 1.],
            [0., -1., 0.],
            [1., 0., 0.],
            [0., 1., 0.],
            [-1., 0., 0.],
        ];
        let mut text = CUBE.to_string();
        for k in 1..=6 {
            text.push_str(&format!("*SURFACE, NAME=F{k}\n1, S{k}\n"));
        }
        let m = import(MeshFormat::Abaqus, &text).expect("imports");
        for (k, outward) in out.iter().enumerate() {
            let faces = &m.mesh.face_sets[&format!("F{}", k + 1)];
            assert_eq!(faces, &vec![[0, k as u32]]);
            assert_eq!(&normal(&m.mesh, 0, k), outward, "S{}", k + 1);
        }
    }

    #[test]
    fn gmsh_errors_name_the_line_and_the_reason() {
        let tri = CUBE_MSH.replace("2 1 3 1\n2 2 3 7 6", "2 1 2 1\n2 2 3 7");
        let e = error(MeshFormat::Gmsh, &tri);
        assert_eq!(e.line, 40);
        assert!(e.reason.contains("triangles"), "{e}");
        let stray = CUBE_MSH.replace("2 2 3 7 6", "2 1 3 8 6");
        assert!(error(MeshFormat::Gmsh, &stray)
            .reason
            .contains("not a face"));
        let short = CUBE_MSH.replace("1 1 2 3 4 5 6 7 8", "1 1 2 3 4 5 6 7");
        assert_eq!(error(MeshFormat::Gmsh, &short).line, 39);
        assert_eq!(error(MeshFormat::Gmsh, "hello").line, 1);
    }

    #[test]
    fn an_element_may_continue_on_the_next_line() {
        let split = CUBE.replace("1, 1, 2, 3, 4, 5, 6, 7, 8", "1, 1, 2, 3, 4,\n5, 6, 7, 8");
        let m = import(MeshFormat::Abaqus, &split).expect("imports");
        assert_eq!(m.mesh.elements, vec![[0, 1, 2, 3, 4, 5, 6, 7]]);
    }
}
