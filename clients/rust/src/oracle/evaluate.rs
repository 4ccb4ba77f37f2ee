//! Measuring a case: one solve, each quantity's number read by JSON pointer from the
//! summary or from a command's answer, scaled, divided by a number or by another
//! quantity's measurement (in dependency order), and judged against its tolerance.

use super::case::{Case, Measure, Over, Source, Tolerance};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// Why a number could not be had: a failed call, in words.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct MeasureError(pub String);

/// What the harness measures with: a server, the in-process core, or a fake in tests.
pub trait Measurer {
    /// Run `solve` with these params; the answer is the summary, which carries `/job`.
    fn solve(&mut self, params: &Value) -> Result<Value, MeasureError>;
    /// Call `method` with these params (the job already added) and return its answer.
    fn call(&mut self, method: &str, params: Value) -> Result<Value, MeasureError>;
}

#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    Pass,
    /// Outside the tolerance (`None`), or not measured at all (the reason).
    Fail(Option<String>),
    /// The case is pending: nothing was measured, nothing passed.
    Pending,
}

/// One line of the report.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub case: String,
    pub id: String,
    pub measured: Option<f64>,
    pub expected: f64,
    pub tolerance: Option<Tolerance>,
    pub verdict: Verdict,
}

impl Row {
    /// measured / expected, or the deviation measured - expected when expected is 0
    /// (where a ratio means nothing).
    pub fn ratio(&self) -> Option<f64> {
        let m = self.measured?;
        Some(if self.expected == 0.0 {
            m - self.expected
        } else {
            m / self.expected
        })
    }
}

/// Measure every quantity of a case and judge it. A pending case is not run.
pub fn run_case(case: &Case, measurer: &mut dyn Measurer) -> Vec<Row> {
    let row = |q: &super::case::Quantity, measured: Option<f64>, verdict| Row {
        case: case.name.clone(),
        id: q.id.clone(),
        measured,
        expected: q.value,
        tolerance: q.tolerance,
        verdict,
    };
    if case.pending.is_some() {
        return case
            .quantities
            .iter()
            .map(|q| row(q, None, Verdict::Pending))
            .collect();
    }
    let summary = match &case.model {
        Some(model) => measurer
            .solve(model)
            .map_err(|e| format!("solve failed: {e}")),
        None => Err(format!("{} has no model to solve", case.name)),
    };
    let mut raw = BTreeMap::new();
    for q in &case.quantities {
        let number = match (&q.measure, &summary) {
            (None, _) => Err("no measure".to_string()),
            (Some(_), Err(e)) => Err(e.clone()),
            (Some(m), Ok(summary)) => read_raw(m, summary, measurer),
        };
        raw.insert(q.id.as_str(), number);
    }
    let mut resolver = Resolver {
        case,
        raw: &raw,
        done: BTreeMap::new(),
        visiting: BTreeSet::new(),
    };
    case.quantities
        .iter()
        .map(|q| match (resolver.measured(&q.id), q.tolerance) {
            (Ok(x), Some(tol)) => {
                let verdict = if tol.admits(x, q.value) {
                    Verdict::Pass
                } else {
                    Verdict::Fail(None)
                };
                row(q, Some(x), verdict)
            }
            (Ok(x), None) => row(q, Some(x), Verdict::Fail(Some("no tolerance".into()))),
            (Err(e), _) => row(q, None, Verdict::Fail(Some(e))),
        })
        .collect()
}

/// The number at the measure's pointer, before scale and over.
fn read_raw(m: &Measure, summary: &Value, measurer: &mut dyn Measurer) -> Result<f64, String> {
    match &m.source {
        Source::Solve => number_at(summary, &m.pointer, &m.source),
        Source::Command { method, params } => {
            let job = summary
                .pointer("/job")
                .and_then(Value::as_str)
                .ok_or_else(|| format!("the solve summary has no /job to call {method} with"))?;
            let mut params = params.clone();
            params.insert("job".into(), Value::String(job.to_string()));
            let answer = measurer
                .call(method, Value::Object(params))
                .map_err(|e| format!("{method} failed: {e}"))?;
            number_at(&answer, &m.pointer, &m.source)
        }
    }
}

fn number_at(doc: &Value, pointer: &str, source: &Source) -> Result<f64, String> {
    let v = doc
        .pointer(pointer)
        .ok_or_else(|| format!("no value at {pointer} in {source}"))?;
    v.as_f64().ok_or_else(|| {
        let what = match v {
            Value::Null => "null".to_string(),
            Value::Bool(b) => b.to_string(),
            Value::String(s) => format!("the string \"{s}\""),
            Value::Array(_) => "an array".to_string(),
            Value::Object(_) => "an object".to_string(),
            Value::Number(n) => n.to_string(),
        };
        format!("the value at {pointer} in {source} is {what}, not a number")
    })
}

/// Final measurements (after scale and over), each computed once, divisors first.
struct Resolver<'a> {
    case: &'a Case,
    raw: &'a BTreeMap<&'a str, Result<f64, String>>,
    done: BTreeMap<String, Result<f64, String>>,
    visiting: BTreeSet<String>,
}

impl Resolver<'_> {
    fn measured(&mut self, id: &str) -> Result<f64, String> {
        if let Some(r) = self.done.get(id) {
            return r.clone();
        }
        // Loading rejects cycles; this guards cases built in code.
        if !self.visiting.insert(id.to_string()) {
            return Err(format!("'{id}' is measured over itself through a cycle"));
        }
        let result = self.compute(id);
        self.visiting.remove(id);
        self.done.insert(id.to_string(), result.clone());
        result
    }

    fn compute(&mut self, id: &str) -> Result<f64, String> {
        let q = self
            .case
            .quantities
            .iter()
            .find(|q| q.id == id)
            .ok_or_else(|| format!("no quantity '{id}' in this case"))?;
        let m = q.measure.as_ref().ok_or("no measure")?;
        let raw = self
            .raw
            .get(id)
            .cloned()
            .unwrap_or_else(|| Err("not measured".into()))?;
        let scaled = raw * m.scale;
        match &m.over {
            None => Ok(scaled),
            Some(Over::Number(x)) => Ok(scaled / x),
            Some(Over::Quantity(other)) => {
                let divisor = self
                    .measured(other)
                    .map_err(|e| format!("over '{other}', which was not measured: {e}"))?;
                if divisor == 0.0 {
                    Err(format!("over '{other}', which measured 0"))
                } else {
                    Ok(scaled / divisor)
                }
            }
        }
    }
}
