//! The oracle format read from disk: `case.json` (title, kind, source, optional
//! `status: "pending"` with `requires`, quantities with their measure and tolerance) and
//! `model.json` (the `solve` params) beside it, checked whole before anything runs so
//! that a bad case names its file and the JSON pointer of the fault.

use impact_protocol::Pointer;
use serde::Deserialize;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

pub const CASE_FILE: &str = "case.json";
pub const MODEL_FILE: &str = "model.json";

/// A case that cannot be read: which file, and why.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{}: {reason}", .file.display())]
pub struct CaseError {
    pub file: PathBuf,
    pub reason: String,
}

impl CaseError {
    fn new(file: &Path, reason: impl Into<String>) -> Self {
        CaseError {
            file: file.to_path_buf(),
            reason: reason.into(),
        }
    }
}

/// Where a case's numbers come from (DESIGN.md: theory, experiment, peer).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Theory,
    Experiment,
    Peer,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Status {
    Pending,
}

/// How far a measurement may lie from the expected value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Tolerance {
    /// Passes when |measured - value| <= relative * |value|.
    Relative(f64),
    /// Passes when |measured - value| <= absolute.
    Absolute(f64),
}

impl Tolerance {
    pub fn admits(&self, measured: f64, value: f64) -> bool {
        let deviation = (measured - value).abs();
        match *self {
            Tolerance::Relative(r) => deviation <= r * value.abs(),
            Tolerance::Absolute(a) => deviation <= a,
        }
    }
}

/// The divisor of a measurement: a number, or another quantity's measured value.
#[derive(Clone, Debug, PartialEq)]
pub enum Over {
    Number(f64),
    Quantity(String),
}

/// Where the raw number is read.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    /// The `solve` summary.
    Solve,
    /// The answer of `method` called with `params` plus `"job"`.
    Command {
        method: String,
        params: Map<String, Value>,
    },
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Solve => f.write_str("the solve summary"),
            Source::Command { method, .. } => write!(f, "the answer of {method}"),
        }
    }
}

/// measured = (number at `pointer` in `source`) × scale ÷ over.
#[derive(Clone, Debug, PartialEq)]
pub struct Measure {
    pub source: Source,
    pub pointer: String,
    pub scale: f64,
    pub over: Option<Over>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Quantity {
    pub id: String,
    /// What is measured, in words.
    pub quantity: String,
    pub value: f64,
    /// Absent only in pending cases.
    pub tolerance: Option<Tolerance>,
    pub reason: Option<String>,
    /// Absent only in pending cases.
    pub measure: Option<Measure>,
}

/// One oracle case, read and checked.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    /// The case folder's name: what the report calls it.
    pub name: String,
    pub dir: PathBuf,
    pub title: String,
    pub kind: Kind,
    pub source: String,
    /// `Some(what is missing)` for a pending case: reported, never run.
    pub pending: Option<String>,
    pub quantities: Vec<Quantity>,
    /// The `solve` params; `None` for a pending case without a model.
    pub model: Option<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCase {
    title: String,
    kind: Kind,
    source: String,
    #[serde(default)]
    status: Option<Status>,
    #[serde(default)]
    requires: Option<String>,
    quantities: Vec<RawQuantity>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawQuantity {
    id: String,
    quantity: String,
    value: f64,
    #[serde(default)]
    tolerance: Option<RawTolerance>,
    #[serde(default)]
    reason: Option<String>,
    #[serde(default)]
    measure: Option<RawMeasure>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTolerance {
    #[serde(default)]
    relative: Option<f64>,
    #[serde(default)]
    absolute: Option<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMeasure {
    #[serde(default)]
    from: Option<String>,
    #[serde(default)]
    command: Option<String>,
    #[serde(default)]
    params: Option<Value>,
    pointer: String,
    #[serde(default)]
    scale: Option<f64>,
    #[serde(default)]
    over: Option<RawOver>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum RawOver {
    Number(f64),
    Id(String),
}

/// The case folders a path names: the folder itself when it holds a `case.json` (or the
/// path is that file), else every sub-folder in name order. A sub-folder without a
/// `case.json` is an error, not silently skipped: a case that vanishes proves nothing.
pub fn discover(path: &Path) -> Vec<Result<PathBuf, CaseError>> {
    if path.is_file() {
        return match path.file_name().and_then(|n| n.to_str()) {
            Some(CASE_FILE) => vec![Ok(path.parent().unwrap_or(Path::new(".")).to_path_buf())],
            _ => vec![Err(CaseError::new(
                path,
                format!(
                    "not a case: give a case folder, a folder of case folders or a {CASE_FILE}"
                ),
            ))],
        };
    }
    if path.join(CASE_FILE).is_file() {
        return vec![Ok(path.to_path_buf())];
    }
    let entries = match std::fs::read_dir(path) {
        Ok(entries) => entries,
        Err(e) => return vec![Err(CaseError::new(path, e.to_string()))],
    };
    let mut dirs: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .filter(|p| {
            !p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with('.'))
        })
        .collect();
    dirs.sort();
    if dirs.is_empty() {
        return vec![Err(CaseError::new(
            path,
            format!("holds neither a {CASE_FILE} nor case folders"),
        ))];
    }
    dirs.into_iter()
        .map(|d| {
            if d.join(CASE_FILE).is_file() {
                Ok(d)
            } else {
                Err(CaseError::new(
                    &d.join(CASE_FILE),
                    "missing: every case folder needs one",
                ))
            }
        })
        .collect()
}

/// Read and check the case in `dir` (its `case.json`, and its `model.json` unless it is
/// pending).
pub fn load(dir: &Path) -> Result<Case, CaseError> {
    let case_file = dir.join(CASE_FILE);
    let text = std::fs::read_to_string(&case_file)
        .map_err(|e| CaseError::new(&case_file, e.to_string()))?;
    let name = dir
        .file_name()
        .and_then(|n| n.to_str())
        .map(str::to_string)
        .unwrap_or_else(|| dir.display().to_string());
    let mut case = parse(&text, &name, dir).map_err(|reason| CaseError::new(&case_file, reason))?;
    let model_file = dir.join(MODEL_FILE);
    if case.pending.is_none() || model_file.exists() {
        let text = std::fs::read_to_string(&model_file)
            .map_err(|e| CaseError::new(&model_file, e.to_string()))?;
        let model: Value =
            serde_json::from_str(&text).map_err(|e| CaseError::new(&model_file, e.to_string()))?;
        if !model.get("model").is_some_and(Value::is_object) {
            return Err(CaseError::new(
                &model_file,
                "must be the solve params, an object {\"model\": {...}}",
            ));
        }
        case.model = Some(model);
    }
    Ok(case)
}

/// Parse and check a `case.json` text; the error names the JSON pointer of the fault.
pub fn parse(text: &str, name: &str, dir: &Path) -> Result<Case, String> {
    let de = &mut serde_json::Deserializer::from_str(text);
    let raw: RawCase = serde_path_to_error::deserialize(de).map_err(|e| {
        let mut pointer = Pointer::root();
        for seg in e.path().iter() {
            use serde_path_to_error::Segment;
            pointer = match seg {
                Segment::Seq { index } => pointer.at(index),
                Segment::Map { key } => pointer.at(key),
                Segment::Enum { variant } => pointer.at(variant),
                Segment::Unknown => pointer,
            };
        }
        if pointer.as_str().is_empty() {
            e.inner().to_string()
        } else {
            format!("{pointer}: {}", e.inner())
        }
    })?;
    let pending = match (raw.status, raw.requires) {
        (Some(Status::Pending), Some(r)) if !r.trim().is_empty() => Some(r),
        (Some(Status::Pending), _) => {
            return Err("/requires: a pending case must say what it requires".into())
        }
        (None, Some(_)) => {
            return Err("/requires: only a case with status \"pending\" requires something".into())
        }
        (None, None) => None,
    };
    if raw.quantities.is_empty() {
        return Err("/quantities: a case needs at least one quantity".into());
    }
    let ids: BTreeSet<&str> = raw.quantities.iter().map(|q| q.id.as_str()).collect();
    let mut seen = BTreeSet::new();
    let mut quantities = Vec::with_capacity(raw.quantities.len());
    for (i, q) in raw.quantities.iter().enumerate() {
        let at = format!("/quantities/{i}");
        if q.id.is_empty() {
            return Err(format!("{at}/id: a quantity needs an id"));
        }
        if !seen.insert(q.id.as_str()) {
            return Err(format!("{at}/id: '{}' is used twice", q.id));
        }
        if !q.value.is_finite() {
            return Err(format!("{at}/value: must be a finite number"));
        }
        let tolerance = q
            .tolerance
            .as_ref()
            .map(|t| tolerance(t, &at))
            .transpose()?;
        let measure = q
            .measure
            .as_ref()
            .map(|m| measure(m, &at, &q.id, &ids))
            .transpose()?;
        if pending.is_none() {
            if measure.is_none() {
                return Err(format!(
                    "{at}/measure: missing (only a pending case may leave it out)"
                ));
            }
            if tolerance.is_none() {
                return Err(format!(
                    "{at}/tolerance: missing (only a pending case may leave it out)"
                ));
            }
        }
        if tolerance.is_some() && q.reason.as_deref().is_none_or(|r| r.trim().is_empty()) {
            return Err(format!("{at}/reason: a tolerance needs its reason"));
        }
        quantities.push(Quantity {
            id: q.id.clone(),
            quantity: q.quantity.clone(),
            value: q.value,
            tolerance,
            reason: q.reason.clone(),
            measure,
        });
    }
    reject_cycles(&quantities)?;
    Ok(Case {
        name: name.to_string(),
        dir: dir.to_path_buf(),
        title: raw.title,
        kind: raw.kind,
        source: raw.source,
        pending,
        quantities,
        model: None,
    })
}

fn tolerance(t: &RawTolerance, at: &str) -> Result<Tolerance, String> {
    let (tol, key) = match (t.relative, t.absolute) {
        (Some(r), None) => (Tolerance::Relative(r), "relative"),
        (None, Some(a)) => (Tolerance::Absolute(a), "absolute"),
        _ => {
            return Err(format!(
                "{at}/tolerance: give exactly one of \"relative\" and \"absolute\""
            ))
        }
    };
    let x = t.relative.or(t.absolute).unwrap_or(f64::NAN);
    if !(x.is_finite() && x >= 0.0) {
        return Err(format!(
            "{at}/tolerance/{key}: must be a finite number >= 0"
        ));
    }
    Ok(tol)
}

fn measure(
    m: &RawMeasure,
    at: &str,
    own_id: &str,
    ids: &BTreeSet<&str>,
) -> Result<Measure, String> {
    let at = format!("{at}/measure");
    let source = match (&m.from, &m.command) {
        (Some(from), None) if from == "solve" => {
            if m.params.is_some() {
                return Err(format!("{at}/params: only a command takes params"));
            }
            Source::Solve
        }
        (Some(from), None) => {
            return Err(format!(
                "{at}/from: '{from}' is not a source (the one source is \"solve\")"
            ))
        }
        (None, Some(method)) if !method.is_empty() => {
            let params = match &m.params {
                None => Map::new(),
                Some(Value::Object(p)) => p.clone(),
                Some(_) => return Err(format!("{at}/params: must be an object")),
            };
            if params.contains_key("job") {
                return Err(format!(
                    "{at}/params/job: leave the job out; the harness adds the job it solved"
                ));
            }
            Source::Command {
                method: method.clone(),
                params,
            }
        }
        (None, Some(_)) => return Err(format!("{at}/command: empty method name")),
        _ => {
            return Err(format!(
                "{at}: give exactly one of \"from\": \"solve\" and \"command\""
            ))
        }
    };
    if !(m.pointer.is_empty() || m.pointer.starts_with('/')) {
        return Err(format!(
            "{at}/pointer: '{}' is not a JSON pointer (it starts with '/')",
            m.pointer
        ));
    }
    let scale = m.scale.unwrap_or(1.0);
    if !(scale.is_finite() && scale != 0.0) {
        return Err(format!("{at}/scale: must be a finite non-zero number"));
    }
    let over = match &m.over {
        None => None,
        Some(RawOver::Number(x)) => {
            if !(x.is_finite() && *x != 0.0) {
                return Err(format!(
                    "{at}/over: must be a finite non-zero number or a quantity id"
                ));
            }
            Some(Over::Number(*x))
        }
        Some(RawOver::Id(id)) => {
            if id == own_id {
                return Err(format!(
                    "{at}/over: a quantity cannot be measured over itself"
                ));
            }
            if !ids.contains(id.as_str()) {
                return Err(format!("{at}/over: no quantity '{id}' in this case"));
            }
            Some(Over::Quantity(id.clone()))
        }
    };
    Ok(Measure {
        source,
        pointer: m.pointer.clone(),
        scale,
        over,
    })
}

/// Each quantity divides by at most one other, so following `over` from each quantity
/// either ends or comes back: the latter is a cycle, named in full.
fn reject_cycles(quantities: &[Quantity]) -> Result<(), String> {
    let over: BTreeMap<&str, &str> = quantities
        .iter()
        .filter_map(|q| match q.measure.as_ref()?.over.as_ref()? {
            Over::Quantity(id) => Some((q.id.as_str(), id.as_str())),
            Over::Number(_) => None,
        })
        .collect();
    for (i, q) in quantities.iter().enumerate() {
        let mut chain = vec![q.id.as_str()];
        let mut at = q.id.as_str();
        while let Some(&next) = over.get(at) {
            if let Some(start) = chain.iter().position(|&c| c == next) {
                let mut cycle = chain[start..].to_vec();
                cycle.push(next);
                return Err(format!(
                    "/quantities/{i}/measure/over: the quantities divide by each other in a cycle: {}",
                    cycle.join(" -> ")
                ));
            }
            chain.push(next);
            at = next;
        }
    }
    Ok(())
}
