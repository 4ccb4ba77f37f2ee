//! `impact solve --server URL` follows its job: over a WebSocket through the `job.subscribe`
//! stream, over HTTP through `job.wait`, printing a line per status on stderr when stderr
//! is not a terminal (a bar when it is), and the summary on stdout as before.

use impact_e2e::{binaries, run_with_deadline, start_server, workspace_root};
use std::process::Command;
use std::time::Duration;

fn solve_bars(url: &str) -> (serde_json::Value, String) {
    let (impact, _) = binaries();
    let model = workspace_root().join("tests/oracle/explicit-bars/model.json");
    let run = run_with_deadline(
        Command::new(impact)
            .args(["solve", "--server", url])
            .arg(&model),
        Duration::from_secs(120),
    );
    assert!(run.status.success(), "impact solve failed: {}", run.stderr);
    let summary: serde_json::Value =
        serde_json::from_str(&run.stdout).expect("the summary is JSON on stdout");
    (summary, run.stderr)
}

fn check(summary: &serde_json::Value, stderr: &str) {
    let job = summary["job"].as_str().expect("a job id");
    // The interface force of the bars: rho c A v0 / 2 = 0.05 (Graff), within the oracle's 4%.
    let peak = summary["contacts"][0]["peak_force"]
        .as_f64()
        .expect("a peak force");
    assert!((peak - 0.05).abs() <= 0.04 * 0.05, "peak force {peak}");
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("impact: "))
        .collect();
    assert!(
        lines.iter().any(|l| l.contains(job) && l.contains(" done")),
        "no line says the job is done:\n{stderr}"
    );
    assert!(
        lines.iter().all(|l| l.contains(job)),
        "every progress line names the job:\n{stderr}"
    );
}

#[test]
fn a_solve_over_websocket_shows_its_progress() {
    let server = start_server();
    let (summary, stderr) = solve_bars(&server.ws_url());
    check(&summary, &stderr);
}

#[test]
fn a_solve_over_http_shows_its_progress() {
    let server = start_server();
    let (summary, stderr) = solve_bars(&server.http_url());
    check(&summary, &stderr);
}
