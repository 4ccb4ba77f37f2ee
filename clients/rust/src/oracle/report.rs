//! The harness's output: one row per quantity (case, id, measured, expected, tolerance,
//! ratio, pass), a note when a number could not be had, and the closing tally
//! `N passed, M failed, K pending`; cases that cannot be read are named with their file.

use super::case::{self, CaseError, Tolerance};
use super::evaluate::{run_case, Measurer, Row, Verdict};
use std::io::{self, Write};
use std::path::PathBuf;

/// Everything a run found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Report {
    pub rows: Vec<Row>,
    pub unreadable: Vec<CaseError>,
}

impl Report {
    pub fn passed(&self) -> usize {
        self.count(|v| matches!(v, Verdict::Pass))
    }

    pub fn failed(&self) -> usize {
        self.count(|v| matches!(v, Verdict::Fail(_)))
    }

    pub fn pending(&self) -> usize {
        self.count(|v| matches!(v, Verdict::Pending))
    }

    /// True when nothing failed and every case could be read.
    pub fn success(&self) -> bool {
        self.failed() == 0 && self.unreadable.is_empty()
    }

    /// `N passed, M failed, K pending`.
    pub fn tally(&self) -> String {
        format!(
            "{} passed, {} failed, {} pending",
            self.passed(),
            self.failed(),
            self.pending()
        )
    }

    fn count(&self, f: impl Fn(&Verdict) -> bool) -> usize {
        self.rows.iter().filter(|r| f(&r.verdict)).count()
    }
}

/// Run every case the paths name, printing rows to `out` as each case finishes (a solve
/// can take a while) and unreadable cases to `err`, then the tally to `out`.
pub fn run(
    paths: &[PathBuf],
    measurer: &mut dyn Measurer,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<Report> {
    let mut report = Report::default();
    let mut cases = Vec::new();
    for path in paths {
        for dir in case::discover(path) {
            match dir.and_then(|d| case::load(&d)) {
                Ok(c) => cases.push(c),
                Err(e) => {
                    writeln!(err, "cannot read {e}")?;
                    report.unreadable.push(e);
                }
            }
        }
    }
    // Widths known before anything runs, so rows can stream out aligned.
    let case_w = cases
        .iter()
        .map(|c| c.name.chars().count())
        .max()
        .unwrap_or(0)
        .max(4);
    let id_w = cases
        .iter()
        .flat_map(|c| c.quantities.iter().map(|q| q.id.chars().count()))
        .max()
        .unwrap_or(0)
        .max(2);
    if !cases.is_empty() {
        writeln!(
            out,
            "{:<case_w$}  {:<id_w$}  {:>12}  {:>12}  {:>10}  {:>12}  pass",
            "case", "id", "measured", "expected", "tolerance", "ratio"
        )?;
    }
    for c in &cases {
        let rows = run_case(c, measurer);
        for (i, row) in rows.iter().enumerate() {
            let note = match &row.verdict {
                Verdict::Fail(Some(why)) => format!("  {why}"),
                Verdict::Pending if i == 0 => {
                    format!("  requires {}", c.pending.as_deref().unwrap_or(""))
                }
                _ => String::new(),
            };
            writeln!(
                out,
                "{:<case_w$}  {:<id_w$}  {:>12}  {:>12}  {:>10}  {:>12}  {}{note}",
                row.case,
                row.id,
                row.measured.map_or("-".into(), number),
                number(row.expected),
                row.tolerance.map_or("-".into(), tolerance),
                ratio(row),
                verdict(&row.verdict),
            )?;
        }
        out.flush()?;
        report.rows.extend(rows);
    }
    writeln!(out, "{}", report.tally())?;
    Ok(report)
}

fn verdict(v: &Verdict) -> &'static str {
    match v {
        Verdict::Pass => "PASS",
        Verdict::Fail(_) => "FAIL",
        Verdict::Pending => "PENDING",
    }
}

fn ratio(row: &Row) -> String {
    match row.ratio() {
        None => "-".into(),
        Some(r) if row.expected == 0.0 => {
            format!("Δ{}{}", if r < 0.0 { "" } else { "+" }, number(r))
        }
        Some(r) => number(r),
    }
}

fn tolerance(t: Tolerance) -> String {
    match t {
        Tolerance::Relative(r) => format!("±{}%", number(r * 100.0)),
        Tolerance::Absolute(a) => format!("±{}", number(a)),
    }
}

/// Up to six significant digits, plain between 1e-3 and 1e6, in exponent form beyond;
/// trailing zeros dropped.
pub fn number(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let magnitude = x.abs().log10().floor() as i32;
    if (-3..6).contains(&magnitude) {
        let decimals = (5 - magnitude).max(0) as usize;
        let s = format!("{x:.decimals$}");
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    } else {
        let s = format!("{x:.5e}");
        match s.split_once('e') {
            Some((mantissa, exponent)) if mantissa.contains('.') => format!(
                "{}e{exponent}",
                mantissa.trim_end_matches('0').trim_end_matches('.')
            ),
            _ => s,
        }
    }
}
