//! Tests of the harness on synthetic cases with a fake measurer: scale, over by number
//! and by id, both tolerance kinds, pending cases, commands with the job added, missing
//! pointers, bad files. Expected numbers are worked by hand from the definitions in
//! DESIGN.md's oracle format.

use super::case::{self, parse, Case};
use super::evaluate::{run_case, MeasureError, Measurer, Verdict};
use super::report::{number, run};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Answers `solve` with a fixed summary and commands with fixed answers, and remembers
/// every call so tests can check what the harness asked.
struct Fake {
    summary: Result<Value, String>,
    answers: Vec<(String, Value)>,
    calls: Vec<(String, Value)>,
}

impl Fake {
    fn new(summary: Value) -> Self {
        Fake {
            summary: Ok(summary),
            answers: Vec::new(),
            calls: Vec::new(),
        }
    }

    fn answering(mut self, method: &str, answer: Value) -> Self {
        self.answers.push((method.into(), answer));
        self
    }
}

impl Measurer for Fake {
    fn solve(&mut self, params: &Value) -> Result<Value, MeasureError> {
        self.calls.push(("solve".into(), params.clone()));
        self.summary.clone().map_err(MeasureError)
    }

    fn call(&mut self, method: &str, params: Value) -> Result<Value, MeasureError> {
        self.calls.push((method.into(), params));
        self.answers
            .iter()
            .find(|(m, _)| m == method)
            .map(|(_, a)| a.clone())
            .ok_or_else(|| MeasureError(format!("no method '{method}'")))
    }
}

fn case_of(case_json: Value) -> Case {
    let mut c = parse(&case_json.to_string(), "synthetic", Path::new("synthetic"))
        .unwrap_or_else(|e| panic!("the synthetic case should parse: {e}"));
    c.model = Some(json!({"model": {}}));
    c
}

fn active(quantities: Value) -> Value {
    json!({"title": "t", "kind": "theory", "source": "s", "quantities": quantities})
}

fn q(id: &str, value: f64, tolerance: Value, measure: Value) -> Value {
    json!({"id": id, "quantity": id, "value": value, "tolerance": tolerance,
           "reason": "stated", "measure": measure})
}

fn solve_at(pointer: &str) -> Value {
    json!({"from": "solve", "pointer": pointer})
}

/// Relative agreement of two computed doubles: a handful of roundings in a product and
/// a quotient stay far below 1e-12.
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * b.abs().max(1.0)
}

#[test]
fn scale_multiplies_the_measured_number() {
    // ½mv² of the bars is 0.0005; scaled by 2000 it reads 1.
    let c = case_of(active(json!([q(
        "ke",
        1.0,
        json!({"relative": 0.01}),
        json!({"from": "solve", "pointer": "/energy/kinetic", "scale": 2000.0})
    )])));
    let mut fake = Fake::new(json!({"job": "j", "energy": {"kinetic": 0.0005}}));
    let rows = run_case(&c, &mut fake);
    assert!(close(rows[0].measured.unwrap(), 1.0));
    assert_eq!(rows[0].verdict, Verdict::Pass);
}

#[test]
fn over_a_number_divides() {
    // 0.3 / 0.2 = 1.5; 1.4 lies 6.7% off, outside a 5% band.
    let measure = json!({"from": "solve", "pointer": "/x", "over": 0.2});
    let c = case_of(active(json!([
        q("hit", 1.5, json!({"relative": 0.05}), measure.clone()),
        q("miss", 1.4, json!({"relative": 0.05}), measure)
    ])));
    let rows = run_case(&c, &mut Fake::new(json!({"job": "j", "x": 0.3})));
    assert!(close(rows[0].measured.unwrap(), 1.5));
    assert_eq!(rows[0].verdict, Verdict::Pass);
    assert_eq!(rows[1].verdict, Verdict::Fail(None));
}

#[test]
fn over_an_id_divides_by_that_quantity_measured_whatever_the_order() {
    // `ratio` comes first and divides by `base`, measured after it: 3 / (4 × 0.5) = 1.5.
    let c = case_of(active(json!([
        q(
            "ratio",
            1.5,
            json!({"relative": 1e-9}),
            json!({"from": "solve", "pointer": "/a", "over": "base"})
        ),
        q(
            "base",
            2.0,
            json!({"relative": 1e-9}),
            json!({"from": "solve", "pointer": "/b", "scale": 0.5})
        )
    ])));
    let rows = run_case(&c, &mut Fake::new(json!({"job": "j", "a": 3.0, "b": 4.0})));
    assert!(close(rows[0].measured.unwrap(), 1.5));
    assert!(close(rows[1].measured.unwrap(), 2.0));
    assert!(rows.iter().all(|r| r.verdict == Verdict::Pass));
}

#[test]
fn over_a_quantity_that_failed_or_measured_zero_fails_naming_it() {
    let c = case_of(active(json!([
        q(
            "r1",
            1.0,
            json!({"relative": 0.1}),
            json!({"from": "solve", "pointer": "/a", "over": "gone"})
        ),
        q("gone", 1.0, json!({"relative": 0.1}), solve_at("/nowhere")),
        q(
            "r2",
            1.0,
            json!({"relative": 0.1}),
            json!({"from": "solve", "pointer": "/a", "over": "zero"})
        ),
        q("zero", 0.0, json!({"absolute": 0.1}), solve_at("/z"))
    ])));
    let rows = run_case(&c, &mut Fake::new(json!({"job": "j", "a": 1.0, "z": 0.0})));
    match &rows[0].verdict {
        Verdict::Fail(Some(why)) => {
            assert!(why.contains("'gone'") && why.contains("/nowhere"), "{why}")
        }
        v => panic!("expected a failure, got {v:?}"),
    }
    match &rows[2].verdict {
        Verdict::Fail(Some(why)) => assert!(
            why.contains("'zero'") && why.contains("measured 0"),
            "{why}"
        ),
        v => panic!("expected a failure, got {v:?}"),
    }
}

#[test]
fn relative_tolerance_is_a_band_around_the_value() {
    // 0.05 ± 4% is [0.048, 0.052].
    let tol = json!({"relative": 0.04});
    let c = case_of(active(json!([
        q("in_high", 0.05, tol.clone(), solve_at("/a")),
        q("in_low", 0.05, tol.clone(), solve_at("/b")),
        q("out_high", 0.05, tol.clone(), solve_at("/c")),
        q("out_low", 0.05, tol, solve_at("/d"))
    ])));
    let summary = json!({"job": "j", "a": 0.0519, "b": 0.0481, "c": 0.0521, "d": 0.0479});
    let verdicts: Vec<_> = run_case(&c, &mut Fake::new(summary))
        .into_iter()
        .map(|r| r.verdict)
        .collect();
    assert_eq!(
        verdicts,
        [
            Verdict::Pass,
            Verdict::Pass,
            Verdict::Fail(None),
            Verdict::Fail(None)
        ]
    );
}

#[test]
fn absolute_tolerance_and_the_deviation_for_a_zero_value() {
    let tol = json!({"absolute": 0.005});
    let c = case_of(active(json!([
        q("in", 0.0, tol.clone(), solve_at("/a")),
        q("out", 0.0, tol, solve_at("/b"))
    ])));
    let rows = run_case(
        &c,
        &mut Fake::new(json!({"job": "j", "a": 0.004, "b": -0.006})),
    );
    assert_eq!(rows[0].verdict, Verdict::Pass);
    assert_eq!(rows[1].verdict, Verdict::Fail(None));
    // For a value of 0 the ratio column carries the deviation itself.
    assert_eq!(rows[1].ratio(), Some(-0.006));
}

#[test]
fn a_command_gets_its_params_plus_the_job() {
    let c = case_of(active(json!([q(
        "v_b",
        0.1,
        json!({"relative": 0.05}),
        json!({"command": "solve.probe", "params": {"step": "Impact", "at": [[20.0, 0, 0]]},
               "pointer": "/nodes/0/velocity/0"})
    )])));
    let mut fake = Fake::new(json!({"job": "job-7"})).answering(
        "solve.probe",
        json!({"nodes": [{"velocity": [0.1, 0.0, 0.0]}]}),
    );
    let rows = run_case(&c, &mut fake);
    assert_eq!(rows[0].verdict, Verdict::Pass);
    let (method, params) = &fake.calls[1];
    assert_eq!(method, "solve.probe");
    assert_eq!(
        params,
        &json!({"job": "job-7", "step": "Impact", "at": [[20.0, 0, 0]]})
    );
}

#[test]
fn a_pending_case_is_reported_pending_and_never_run() {
    // As the spheres case: quantities without measure or tolerance.
    let c = case_of(json!({
        "title": "spheres", "kind": "theory", "source": "Hertz 1882", "status": "pending",
        "requires": "a graded sphere mesh",
        "quantities": [{"id": "force", "quantity": "peak", "value": 1005.38},
                       {"id": "duration", "quantity": "contact time", "value": 6.0163e-05}]
    }));
    let mut fake = Fake::new(json!({"job": "j"}));
    let rows = run_case(&c, &mut fake);
    assert!(fake.calls.is_empty(), "a pending case must not be solved");
    assert!(rows
        .iter()
        .all(|r| r.verdict == Verdict::Pending && r.measured.is_none()));
}

#[test]
fn a_missing_pointer_fails_naming_the_pointer() {
    let c = case_of(active(json!([
        q(
            "f",
            0.05,
            json!({"relative": 0.04}),
            solve_at("/contacts/3/peak_force")
        ),
        q(
            "t",
            0.2,
            json!({"relative": 0.02}),
            solve_at("/contacts/0/last_contact")
        )
    ])));
    let summary = json!({"job": "j", "contacts": [{"last_contact": null}]});
    let rows = run_case(&c, &mut Fake::new(summary));
    match &rows[0].verdict {
        Verdict::Fail(Some(why)) => assert!(why.contains("/contacts/3/peak_force"), "{why}"),
        v => panic!("expected a failure naming the pointer, got {v:?}"),
    }
    match &rows[1].verdict {
        Verdict::Fail(Some(why)) => assert!(
            why.contains("/contacts/0/last_contact") && why.contains("null"),
            "{why}"
        ),
        v => panic!("expected a failure for null, got {v:?}"),
    }
}

#[test]
fn a_failed_solve_fails_every_quantity_with_its_reason() {
    let c = case_of(active(json!([q(
        "a",
        1.0,
        json!({"relative": 0.1}),
        solve_at("/a")
    )])));
    let mut fake = Fake::new(Value::Null);
    fake.summary = Err("error -32003: the solver is being written".into());
    let rows = run_case(&c, &mut fake);
    match &rows[0].verdict {
        Verdict::Fail(Some(why)) => assert!(why.contains("the solver is being written"), "{why}"),
        v => panic!("expected a failure, got {v:?}"),
    }
}

fn parse_err(case_json: Value) -> String {
    match parse(&case_json.to_string(), "bad", Path::new("bad")) {
        Ok(_) => panic!("the case should be refused: {case_json}"),
        Err(e) => e,
    }
}

#[test]
fn cases_that_cannot_be_measured_are_refused_with_a_pointer() {
    let over = |id: &str, other: &str| {
        q(
            id,
            1.0,
            json!({"relative": 0.1}),
            json!({"from": "solve", "pointer": "/a", "over": other}),
        )
    };
    let e = parse_err(active(json!([
        over("a", "b"),
        over("b", "c"),
        over("c", "a")
    ])));
    assert!(e.contains("cycle") && e.contains("a -> b -> c -> a"), "{e}");
    let e = parse_err(active(json!([over("a", "nobody")])));
    assert!(
        e.contains("/quantities/0/measure/over") && e.contains("nobody"),
        "{e}"
    );
    let e = parse_err(active(json!([q(
        "a",
        1.0,
        json!({"relative": 0.1, "absolute": 0.1}),
        solve_at("/a")
    )])));
    assert!(e.contains("/quantities/0/tolerance"), "{e}");
    let e = parse_err(active(json!([q(
        "a",
        1.0,
        json!({"relative": 0.1}),
        json!({"from": "solve", "pointer": "/a", "scael": 2})
    )])));
    assert!(
        e.contains("/quantities/0/measure") && e.contains("scael"),
        "{e}"
    );
    let e = parse_err(active(
        json!([{"id": "a", "quantity": "a", "value": 1.0, "measure": solve_at("/a")}]),
    ));
    assert!(e.contains("/quantities/0/tolerance"), "{e}");
    let e = parse_err(active(json!([q(
        "a",
        1.0,
        json!({"relative": 0.1}),
        json!({"command": "solve.probe", "params": {"job": "x"}, "pointer": "/a"})
    )])));
    assert!(e.contains("/quantities/0/measure/params/job"), "{e}");
    let e = parse_err(
        json!({"title": "t", "kind": "theory", "source": "s", "status": "pending",
                             "quantities": [{"id": "a", "quantity": "a", "value": 1.0}]}),
    );
    assert!(e.contains("/requires"), "{e}");
    let e = parse_err(json!({"title": "t", "kind": "guess", "source": "s", "quantities": []}));
    assert!(e.contains("/kind"), "{e}");
}

static SCRATCH: AtomicUsize = AtomicUsize::new(0);

/// A fresh folder under the system's temporary directory, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Self {
        let n = SCRATCH.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("impact-oracle-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn case(&self, name: &str, case_json: &str, model_json: Option<&str>) -> PathBuf {
        let dir = self.0.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("case.json"), case_json).unwrap();
        if let Some(m) = model_json {
            std::fs::write(dir.join("model.json"), m).unwrap();
        }
        dir
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn a_folder_of_cases_runs_them_all_and_names_the_bad_files() {
    let s = Scratch::new();
    let good = active(json!([
        q("ok", 2.0, json!({"relative": 0.01}), solve_at("/a")),
        q("off", 1.0, json!({"absolute": 0.1}), solve_at("/a"))
    ]));
    s.case("a-good", &good.to_string(), Some(r#"{"model": {}}"#));
    s.case("b-broken", "{\"title\": ", Some(r#"{"model": {}}"#));
    s.case("c-no-model", &good.to_string(), None);
    s.case(
        "d-pending",
        &json!({"title": "t", "kind": "peer", "source": "s", "status": "pending", "requires": "a mesher",
                "quantities": [{"id": "p", "quantity": "p", "value": 3.0}]})
        .to_string(),
        None,
    );
    std::fs::create_dir_all(s.0.join("e-empty")).unwrap();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let report = run(
        std::slice::from_ref(&s.0),
        &mut Fake::new(json!({"job": "j", "a": 2.0})),
        &mut out,
        &mut err,
    )
    .unwrap();
    let (out, err) = (
        String::from_utf8(out).unwrap(),
        String::from_utf8(err).unwrap(),
    );
    assert_eq!(report.tally(), "1 passed, 1 failed, 1 pending");
    assert!(!report.success());
    assert!(
        out.trim_end().ends_with("1 passed, 1 failed, 1 pending"),
        "{out}"
    );
    let unreadable: Vec<String> = report
        .unreadable
        .iter()
        .map(|e| e.file.display().to_string())
        .collect();
    assert_eq!(unreadable.len(), 3, "{err}");
    assert!(unreadable[0].ends_with(&format!("b-broken{}case.json", std::path::MAIN_SEPARATOR)));
    assert!(unreadable[1].ends_with(&format!(
        "c-no-model{}model.json",
        std::path::MAIN_SEPARATOR
    )));
    assert!(unreadable[2].ends_with(&format!("e-empty{}case.json", std::path::MAIN_SEPARATOR)));
    assert!(err.contains("b-broken") && err.contains("EOF"), "{err}");
    let rows: Vec<&str> = out.lines().filter(|l| l.starts_with("a-good")).collect();
    assert!(
        rows[0].contains(" ok ") && rows[0].ends_with("PASS"),
        "{out}"
    );
    assert!(
        rows[1].contains(" off ") && rows[1].ends_with("FAIL"),
        "{out}"
    );
    assert!(
        out.lines()
            .any(|l| l.starts_with("d-pending") && l.contains("PENDING")),
        "{out}"
    );
}

#[test]
fn one_case_folder_or_its_case_file_names_that_case_alone() {
    let s = Scratch::new();
    let dir = s.case(
        "only",
        &active(json!([q(
            "x",
            1.0,
            json!({"relative": 0.1}),
            solve_at("/x")
        )]))
        .to_string(),
        Some(r#"{"model": {}}"#),
    );
    assert_eq!(case::discover(&dir), vec![Ok(dir.clone())]);
    assert_eq!(
        case::discover(&dir.join("case.json")),
        vec![Ok(dir.clone())]
    );
    assert!(case::discover(&s.0.join("absent"))[0].is_err());
}

#[test]
fn the_bars_case_of_the_repository_reads() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/oracle/explicit-bars");
    let c = case::load(&dir).unwrap_or_else(|e| panic!("{e}"));
    let ids: Vec<&str> = c.quantities.iter().map(|q| q.id.as_str()).collect();
    assert_eq!(
        ids,
        ["duration", "force", "v_a", "v_b", "ke", "contact_energy"]
    );
    assert!(c.pending.is_none() && c.model.is_some());
}

#[test]
fn numbers_print_with_six_significant_digits() {
    assert_eq!(number(0.2004), "0.2004");
    assert_eq!(number(1005.38), "1005.38");
    assert_eq!(number(1.0 / 3.0), "0.333333");
    assert_eq!(number(6.0163e-05), "6.0163e-5");
    assert_eq!(number(1e-4), "1e-4");
    assert_eq!(number(-2.5e7), "-2.5e7");
    assert_eq!(number(-0.006), "-0.006");
    assert_eq!(number(0.0), "0");
}
