//! A finished result as files ParaView opens: VTK XML UnstructuredGrid (.vtu) per stored
//! frame of a finite-element solve, PolyData (.vtp) per frame of a particle solve, and a
//! ParaView Data (.pvd) collection that lists them against time. Text only, no I/O: the
//! caller decides where the files go.
//!
//! Written by hand as ASCII XML rather than with vtkio: its XML writer exists only in a
//! pre-release (0.7.0-rc2) whose default features pull in C compression libraries, and
//! the subset used here (points, hexahedra, point and cell arrays) is a few elements of
//! the VTK file format document ("VTK File Formats", VTK User's Guide, XML formats).
//! Numbers are written with Rust's shortest round-trip form, so a reader gets the bits.

use crate::solution::Solution;
use std::fmt::Write;

/// The name of the time series in every export.
pub const SERIES: &str = "result.pvd";
/// VTK's cell type number for the linear hexahedron (VTK_HEXAHEDRON).
const VTK_HEXAHEDRON: u8 = 12;
/// What an export holds: one file per stored frame and the series.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub name: String,
    /// The frame's time; none for the series.
    pub time: Option<f64>,
    /// The step the frame belongs to; none for the series.
    pub step: Option<String>,
}

/// Which arrays the files carry, and what the result does not hold.
#[derive(Clone, Debug, PartialEq)]
pub struct Contents {
    /// "unstructured_grid" (.vtu) or "poly_data" (.vtp).
    pub kind: &'static str,
    pub point_data: Vec<&'static str>,
    pub cell_data: Vec<&'static str>,
    /// Fields asked of an export that this result does not keep per frame, with why.
    pub not_exported: Vec<&'static str>,
    /// Part (or particle group) names by the id the files carry.
    pub parts: Vec<String>,
}

/// What `solution`'s export holds.
pub fn contents(solution: &Solution) -> Contents {
    match solution.particles() {
        Some(p) => Contents {
            kind: "poly_data",
            point_data: vec!["velocity", "radius", "group_id"],
            cell_data: Vec::new(),
            not_exported: vec![
                "contact forces: a particle solve keeps per-collision reports in its summary, not forces per sphere per frame",
            ],
            parts: p.identity().group_names.clone(),
        },
        None => Contents {
            kind: "unstructured_grid",
            point_data: vec![
                "displacement",
                "velocity",
                "contact_force",
                "contact_pressure",
            ],
            cell_data: vec!["stress", "part_id"],
            not_exported: vec![
                "rigid walls' contact forces per node: a wall acts by impulses on the nodes it stops; its total force per increment is in solve.history",
            ],
            parts: solution
                .assembly()
                .parts
                .iter()
                .map(|p| p.name.clone())
                .collect(),
        },
    }
}

/// The frames' times and their steps, in order.
fn frame_times(solution: &Solution) -> Vec<(f64, String)> {
    let (times, spans): (Vec<f64>, Vec<(String, usize)>) = match solution.particles() {
        Some(p) => (
            p.frames().iter().map(|f| f.time).collect(),
            p.stored_frames()
                .spans
                .iter()
                .map(|s| (s.name.clone(), s.last_frame))
                .collect(),
        ),
        None => (
            solution.frames().iter().map(|f| f.time).collect(),
            solution
                .spans()
                .iter()
                .map(|s| (s.name.clone(), s.last_frame))
                .collect(),
        ),
    };
    let mut out = Vec::with_capacity(times.len());
    for (i, t) in times.into_iter().enumerate() {
        // A frame belongs to the first step whose last frame is at or after it.
        let step = spans
            .iter()
            .find(|(_, last)| *last >= i)
            .or(spans.last())
            .map(|(name, _)| name.clone())
            .unwrap_or_default();
        out.push((t, step));
    }
    out
}

fn frame_name(i: usize, particles: bool) -> String {
    format!("frame_{i:05}.{}", if particles { "vtp" } else { "vtu" })
}

/// Every file of the export: the frames in time order, then the series.
pub fn entries(solution: &Solution) -> Vec<Entry> {
    let particles = solution.particles().is_some();
    let mut out: Vec<Entry> = frame_times(solution)
        .into_iter()
        .enumerate()
        .map(|(i, (time, step))| Entry {
            name: frame_name(i, particles),
            time: Some(time),
            step: Some(step),
        })
        .collect();
    out.push(Entry {
        name: SERIES.into(),
        time: None,
        step: None,
    });
    out
}

/// The text of the export's file `name`, or none when the export has no such file.
pub fn render(solution: &Solution, name: &str) -> Option<String> {
    if name == SERIES {
        return Some(series(solution));
    }
    let particles = solution.particles().is_some();
    let index: usize = name
        .strip_prefix("frame_")?
        .strip_suffix(if particles { ".vtp" } else { ".vtu" })?
        .parse()
        .ok()?;
    // Only the canonical spelling names a file (frame_7.vtu is not frame_00007.vtu).
    if frame_name(index, particles) != name {
        return None;
    }
    match solution.particles() {
        Some(_) => poly_data(solution, index),
        None => unstructured_grid(solution, index),
    }
}

fn series(solution: &Solution) -> String {
    let mut s = String::new();
    s.push_str("<?xml version=\"1.0\"?>\n");
    s.push_str("<VTKFile type=\"Collection\" version=\"1.0\" byte_order=\"LittleEndian\">\n");
    s.push_str("  <Collection>\n");
    for e in entries(solution) {
        if let Some(t) = e.time {
            let _ = writeln!(
                s,
                "    <DataSet timestep=\"{}\" group=\"\" part=\"0\" file=\"{}\"/>",
                number(t),
                e.name
            );
        }
    }
    s.push_str("  </Collection>\n</VTKFile>\n");
    s
}

/// A finite f64 in its shortest round-trip form; VTK's readers take "nan" and "inf" too,
/// but a stored frame holds no such value (the solve fails first).
fn number(x: f64) -> String {
    // Display never uses an exponent (1e-300 would be 300 digits): take the exponent
    // form outside the range where plain digits are the shorter.
    let a = x.abs();
    if a == 0.0 || (1e-4..1e15).contains(&a) {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

fn open_array(s: &mut String, ty: &str, name: &str, components: usize) {
    let _ = write!(s, "        <DataArray type=\"{ty}\"");
    if !name.is_empty() {
        let _ = write!(s, " Name=\"{name}\"");
    }
    let _ = writeln!(s, " NumberOfComponents=\"{components}\" format=\"ascii\">");
}

fn close_array(s: &mut String) {
    s.push_str("\n        </DataArray>\n");
}

/// A Float64 array of N components a tuple, named (or unnamed for the points).
fn float_array<const N: usize>(s: &mut String, name: &str, values: impl Iterator<Item = [f64; N]>) {
    open_array(s, "Float64", name, N);
    rows(s, values);
    close_array(s);
}

fn rows<const N: usize>(s: &mut String, values: impl Iterator<Item = [f64; N]>) {
    for (i, v) in values.enumerate() {
        if i > 0 {
            s.push('\n');
        }
        s.push_str("          ");
        for (k, x) in v.iter().enumerate() {
            if k > 0 {
                s.push(' ');
            }
            s.push_str(&number(*x));
        }
    }
}

fn integers(s: &mut String, values: impl Iterator<Item = u64>) {
    s.push_str("          ");
    for (i, v) in values.enumerate() {
        if i > 0 {
            s.push(if i % 16 == 0 { '\n' } else { ' ' });
        }
        let _ = write!(s, "{v}");
    }
}

fn header(s: &mut String, kind: &str, time: f64, comment: &str) {
    s.push_str("<?xml version=\"1.0\"?>\n");
    let _ = writeln!(s, "<!-- {comment} -->");
    let _ = writeln!(
        s,
        "<VTKFile type=\"{kind}\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">"
    );
    let _ = writeln!(s, "  <{kind}>");
    // TimeValue is the field ParaView reads a dataset's time from.
    s.push_str("    <FieldData>\n");
    s.push_str(
        "        <DataArray type=\"Float64\" Name=\"TimeValue\" NumberOfTuples=\"1\" format=\"ascii\">\n",
    );
    let _ = write!(s, "          {}", number(time));
    close_array(s);
    s.push_str("    </FieldData>\n");
}

/// Names safe inside an XML comment (no "--").
fn comment_safe(name: &str) -> String {
    name.replace("--", "- -")
}

fn unstructured_grid(solution: &Solution, index: usize) -> Option<String> {
    let frame = solution.frames().get(index)?;
    let asm = solution.assembly();
    let n = asm.reference.len();
    let m = asm.connectivity.len();
    let parts: Vec<String> = asm
        .parts
        .iter()
        .enumerate()
        .map(|(i, p)| format!("{i} = {}", comment_safe(&p.name)))
        .collect();
    let mut s = String::with_capacity(200 * n + 200 * m + 2048);
    header(
        &mut s,
        "UnstructuredGrid",
        frame.time,
        &format!(
            "Impact: points at their positions at t = {}; part_id: {}; stress: Cauchy, xx yy zz xy yz xz; contact_force: the contacts' force on each node in this increment; contact_pressure: its normal part's magnitude over the node's tributary contact area",
            number(frame.time),
            parts.join(", ")
        ),
    );
    let _ = writeln!(
        s,
        "    <Piece NumberOfPoints=\"{n}\" NumberOfCells=\"{m}\">"
    );
    s.push_str("      <PointData Vectors=\"velocity\">\n");
    float_array(&mut s, "displacement", frame.displacement.iter().copied());
    float_array(&mut s, "velocity", frame.velocity.iter().copied());
    float_array(&mut s, "contact_force", frame.contact_force.iter().copied());
    float_array(
        &mut s,
        "contact_pressure",
        frame.contact_pressure.iter().map(|&p| [p]),
    );
    s.push_str("      </PointData>\n");
    // Six components in ParaView's symmetric tensor order (XX, YY, ZZ, XY, YZ, XZ), which
    // is the core's Voigt order.
    s.push_str("      <CellData Tensors=\"stress\" Scalars=\"part_id\">\n");
    float_array(&mut s, "stress", frame.stress.iter().copied());
    open_array(&mut s, "Int32", "part_id", 1);
    let part_of = asm
        .parts
        .iter()
        .enumerate()
        .flat_map(|(i, p)| std::iter::repeat_n(i as u64, p.element_count as usize));
    integers(&mut s, part_of);
    close_array(&mut s);
    s.push_str("      </CellData>\n");
    s.push_str("      <Points>\n");
    float_array(
        &mut s,
        "",
        asm.reference
            .iter()
            .zip(frame.displacement.iter())
            .map(|(r, u)| [r[0] + u[0], r[1] + u[1], r[2] + u[2]]),
    );
    s.push_str("      </Points>\n");
    s.push_str("      <Cells>\n");
    open_array(&mut s, "Int64", "connectivity", 1);
    // The core's hex8 node order (four counter-clockwise at the bottom, then the four
    // above them) is VTK_HEXAHEDRON's.
    integers(
        &mut s,
        asm.connectivity.iter().flatten().map(|&i| u64::from(i)),
    );
    close_array(&mut s);
    open_array(&mut s, "Int64", "offsets", 1);
    integers(&mut s, (1..=m as u64).map(|e| 8 * e));
    close_array(&mut s);
    open_array(&mut s, "UInt8", "types", 1);
    integers(&mut s, std::iter::repeat_n(u64::from(VTK_HEXAHEDRON), m));
    close_array(&mut s);
    s.push_str("      </Cells>\n");
    s.push_str("    </Piece>\n  </UnstructuredGrid>\n</VTKFile>\n");
    Some(s)
}

fn poly_data(solution: &Solution, index: usize) -> Option<String> {
    let p = solution.particles()?;
    let frame = p.frames().get(index)?;
    let who = p.identity();
    let n = frame.position.len();
    let groups: Vec<String> = who
        .group_names
        .iter()
        .enumerate()
        .map(|(i, g)| format!("{i} = {}", comment_safe(g)))
        .collect();
    let mut s = String::with_capacity(140 * n + 2048);
    header(
        &mut s,
        "PolyData",
        frame.time,
        &format!(
            "Impact: sphere centres at t = {}; group_id: {}",
            number(frame.time),
            groups.join(", ")
        ),
    );
    let _ = writeln!(
        s,
        "    <Piece NumberOfPoints=\"{n}\" NumberOfVerts=\"{n}\" NumberOfLines=\"0\" NumberOfStrips=\"0\" NumberOfPolys=\"0\">"
    );
    s.push_str("      <PointData Vectors=\"velocity\" Scalars=\"radius\">\n");
    float_array(&mut s, "velocity", frame.velocity.iter().copied());
    float_array(&mut s, "radius", who.radius.iter().map(|&r| [r]));
    open_array(&mut s, "Int32", "group_id", 1);
    integers(&mut s, who.group.iter().map(|&g| u64::from(g)));
    close_array(&mut s);
    s.push_str("      </PointData>\n");
    s.push_str("      <Points>\n");
    float_array(&mut s, "", frame.position.iter().copied());
    s.push_str("      </Points>\n");
    // One vertex cell per sphere, so ParaView draws them (a Glyph filter scaled by
    // `radius` shows the spheres).
    s.push_str("      <Verts>\n");
    open_array(&mut s, "Int64", "connectivity", 1);
    integers(&mut s, 0..n as u64);
    close_array(&mut s);
    open_array(&mut s, "Int64", "offsets", 1);
    integers(&mut s, 1..=n as u64);
    close_array(&mut s);
    s.push_str("      </Verts>\n");
    s.push_str("    </Piece>\n  </PolyData>\n</VTKFile>\n");
    Some(s)
}
