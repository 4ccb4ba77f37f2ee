//! The cache that loses nothing, against the real binary (issue 6): results survive a
//! kill -9 and probe to the same bits after the restart, job ids go on, a job that was
//! running comes back failed (interrupted) rather than missing, and a result pushed out
//! of the memory bound is read back from the data directory.

mod common;

use common::{
    bars_params, call, call_err, probe_far_ends, raw_http, solve_and_probe_bars, DataDir, Server,
};
use serde_json::{json, Value};

fn metric(text: &str, name: &str) -> f64 {
    text.lines()
        .find_map(|l| l.strip_prefix(name).and_then(|v| v.strip_prefix(' ')))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no metric {name} in\n{text}"))
}

#[tokio::test]
async fn a_killed_server_loses_no_finished_result_and_reports_the_running_job() {
    let dir = DataDir::new();
    let server = Server::start_in(&dir.0, &[]);
    let http = server.http();
    let (job, probe) = solve_and_probe_bars(&http).await;
    let mut long = bars_params();
    long["model"]["steps"][0]["duration"] = json!(100.0);
    let running = call(&http, "solve.submit", long.clone()).await["job"]
        .as_str()
        .expect("job")
        .to_owned();
    loop {
        let s = call(&http, "job.status", json!({"job": running})).await;
        if s["state"] == "running" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    server.kill();

    let server = Server::start_in(&dir.0, &[]);
    let http = server.http();
    // The finished result reads back from disk to the same bits.
    assert_eq!(probe_far_ends(&http, &job).await, probe);
    let status = call(&http, "job.status", json!({"job": job})).await;
    assert_eq!(status["state"], "done");
    assert_eq!(status["summary"]["job"], job.as_str());
    // The running job is failed, interrupted, not missing.
    let lost = call(&http, "job.status", json!({"job": running})).await;
    assert_eq!(lost["state"], "failed", "{lost}");
    assert!(
        lost["error"]["data"]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("interrupted")),
        "{lost}"
    );
    let e = call_err(
        &http,
        "solve.probe",
        json!({"job": running, "at": [[0, 0, 0]]}),
    )
    .await;
    assert_eq!(e.code(), -32003);
    // Ids go on after the restart; the same model is still served from the cache.
    let again = call(&http, "solve", bars_params()).await;
    assert_eq!(
        (again["job"].as_str(), again["cached"].as_bool()),
        (Some(job.as_str()), Some(true))
    );
    let fresh = call(&http, "solve.submit", long).await;
    assert_eq!(fresh["job"], "j-3", "ids after j-1 and j-2: {fresh}");
    call(&http, "job.cancel", json!({"job": fresh["job"]})).await;
}

#[tokio::test]
async fn a_result_beyond_the_memory_bound_is_read_back_from_disk() {
    // One byte of memory: each new result pushes the previous one out.
    let server = Server::start(&["--cache-bytes", "1"]);
    let http = server.http();
    let (first, probe) = solve_and_probe_bars(&http).await;
    let mut other = bars_params();
    other["model"]["steps"][0]["duration"] = json!(0.25);
    let second: Value = call(&http, "solve", other).await;
    assert_ne!(second["job"], first.as_str());
    let (_, before) = raw_http(server.addr, "GET", "/metrics", "").await;
    assert!(
        metric(&before, "impact_cache_evictions_total") >= 1.0,
        "{before}"
    );
    assert_eq!(metric(&before, "impact_cache_entries"), 1.0);
    // The first job's result left memory; its probe reads it back, to the same bits.
    assert_eq!(probe_far_ends(&http, &first).await, probe);
    let (_, after) = raw_http(server.addr, "GET", "/metrics", "").await;
    assert!(
        metric(&after, "impact_cache_misses_total") > metric(&before, "impact_cache_misses_total"),
        "{after}"
    );
    assert!(metric(&after, "impact_stored_bytes") > 0.0);
}

#[tokio::test]
async fn a_second_server_on_the_same_data_directory_is_refused() {
    let dir = DataDir::new();
    let _first = Server::start_in(&dir.0, &[]);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_impact-server"))
        .args(["--listen", "127.0.0.1:0", "--data-dir"])
        .arg(&dir.0)
        .env("RUST_LOG", "off")
        .output()
        .expect("run a second server");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("in use by another impact-server"), "{err}");
}

#[tokio::test]
async fn a_second_server_on_the_default_data_directory_runs_in_memory() {
    let home = DataDir::new();
    let start = || {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_impact-server"))
            .args(["--listen", "127.0.0.1:0"])
            .env("XDG_DATA_HOME", &home.0)
            .env("RUST_LOG", "off")
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("start");
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(child.stdout.take().expect("stdout")),
            &mut line,
        )
        .expect("a ready line");
        (
            child,
            line.trim().rsplit(' ').next().unwrap_or("").to_owned(),
        )
    };
    let (mut first, a) = start();
    let (mut second, b) = start();
    let info = |addr: String| async move {
        let http = jsonrpsee::http_client::HttpClientBuilder::default()
            .build(format!("http://{addr}"))
            .expect("client");
        call(&http, "server.info", json!({})).await
    };
    let (ia, ib) = (info(a).await, info(b).await);
    for c in [&mut first, &mut second] {
        let _ = c.kill();
        let _ = c.wait();
    }
    let dir = home.0.join("impact");
    assert_eq!(ia["data_dir"], dir.display().to_string());
    assert!(ib.get("data_dir").is_none(), "{ib}");
}
