//! A panic inside a solve, against the real binary (issue 6): with the test-only fault
//! injection (`--fault-panic-title`), a job whose model carries that title panics from
//! inside the core's integration loop on a worker of the solve pool. That job must end
//! failed with the panic's message, a job solving beside it must finish with the right
//! answer, and the server must go on serving (info, new solves, probes) and count the
//! failure in `/metrics`.

mod common;

use common::{
    bars_params, call, call_err, check_bars_summary, check_far_ends, probe_far_ends, raw_http,
    Server,
};
use serde_json::{json, Value};

const FAULTY: &str = "this model's solve panics";

/// The bars model under another title: the same physics, a different content key.
fn bars_titled(title: &str) -> Value {
    let mut p = bars_params();
    p["model"]["title"] = json!(title);
    p
}

fn metric(text: &str, name: &str) -> f64 {
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
        .unwrap_or_else(|| panic!("no metric '{name}' in\n{text}"))
}

#[tokio::test]
async fn a_panic_inside_a_solve_fails_only_its_job_and_the_server_goes_on() {
    // Two solves at a time on two threads: the faulting job and the good one share the
    // pool, so the panic unwinds on a worker the other solve's loops also use.
    let server = Server::start(&[
        "--threads",
        "2",
        "--max-concurrent-solves",
        "2",
        "--fault-panic-title",
        FAULTY,
    ]);
    let http = server.http();
    let good = call(&http, "solve.submit", bars_params()).await["job"]
        .as_str()
        .expect("a job id")
        .to_owned();
    let bad = call(&http, "solve.submit", bars_titled(FAULTY)).await["job"]
        .as_str()
        .expect("a job id")
        .to_owned();

    let failed = call(&http, "job.wait", json!({"job": bad, "timeout": 120})).await;
    assert_eq!(failed["state"], "failed", "{failed}");
    assert_eq!(failed["error"]["code"], -32003, "{failed}");
    assert_eq!(failed["error"]["data"]["job"], bad.as_str());
    let reason = failed["error"]["data"]["reason"]
        .as_str()
        .expect("a reason");
    // The scheduler's wording around the observer's panic message, which names the job and
    // the increment (the first progress report, after increment 1).
    assert!(
        reason.starts_with("the solver panicked: injected fault (fault_panic_title): job ")
            && reason.contains(&format!("job {bad} panics at increment 1,")),
        "{reason}"
    );

    let done = call(&http, "job.wait", json!({"job": good, "timeout": 120})).await;
    assert_eq!(done["state"], "done", "{done}");
    check_bars_summary(&done["summary"]);
    let good_probe = probe_far_ends(&http, &good).await;
    check_far_ends(&good_probe);

    // The server goes on: it answers, solves anew (a model it has not seen, so the pool
    // really runs it) and probes the good job's result to the same bits.
    // (A panic that escaped the job would have aborted the process.)
    let (status, body) = raw_http(server.addr, "GET", "/healthz", "").await;
    assert_eq!((status, body.as_str()), (200, "ok"));
    let info = call(&http, "server.info", json!({})).await;
    assert_eq!(info["name"], "impact-server");
    let fresh = call(&http, "solve", bars_titled("after the panic")).await;
    assert_eq!(fresh["cached"], false, "{fresh}");
    check_bars_summary(&fresh);
    assert_eq!(probe_far_ends(&http, &good).await, good_probe);
    // The failed job answers its error to a probe, every time; its model is not cached.
    let e = call_err(&http, "solve.probe", json!({"job": bad, "at": [[0, 0, 0]]})).await;
    assert_eq!(e.code(), -32003);
    let list = call(&http, "job.list", json!({"state": "failed"})).await;
    assert_eq!(list["jobs"].as_array().map(Vec::len), Some(1), "{list}");
    assert_eq!(list["jobs"][0]["job"], bad.as_str());

    let (status, text) = raw_http(server.addr, "GET", "/metrics", "").await;
    assert_eq!(status, 200);
    assert_eq!(metric(&text, "impact_jobs_failed_total"), 1.0, "{text}");
    assert_eq!(metric(&text, "impact_jobs_finished_total"), 2.0, "{text}");
    assert_eq!(
        metric(&text, "impact_jobs{state=\"failed\"}"),
        1.0,
        "{text}"
    );
    assert_eq!(metric(&text, "impact_jobs{state=\"done\"}"), 2.0, "{text}");
}

#[tokio::test]
async fn without_the_setting_the_same_title_solves_normally() {
    // The hook is off by default: the title alone does nothing.
    let server = Server::start(&[]);
    let http = server.http();
    let s = call(&http, "solve", bars_titled(FAULTY)).await;
    check_bars_summary(&s);
}
