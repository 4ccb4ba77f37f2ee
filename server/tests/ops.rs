//! Observability and operations against the real binary (issue 6): `/metrics` in the
//! Prometheus text format, `server.info` with limits and capabilities, `rpc.discover`'s
//! OpenRPC document, settings from a config file and the environment, and a graceful stop
//! on SIGTERM (a running job is recorded as interrupted, a finished one survives).

mod common;

use common::{bars_params, call, probe_far_ends, raw_http, solve_and_probe_bars, DataDir, Server};
use serde_json::json;
use std::time::Duration;

#[tokio::test]
async fn metrics_count_jobs_probes_and_the_cache() {
    let server = Server::start(&[]);
    let http = server.http();
    let (job, _) = solve_and_probe_bars(&http).await;
    call(&http, "solve", bars_params()).await; // served from the cache
    probe_far_ends(&http, &job).await;
    let (status, text) = raw_http(server.addr, "GET", "/metrics", "").await;
    assert_eq!(status, 200);
    for line in [
        "impact_jobs{state=\"done\"} 1",
        "impact_jobs{state=\"running\"} 0",
        "impact_queue_depth 0",
        "impact_solves_served_from_cache_total 1",
        "impact_solve_seconds_count 1",
        "impact_probe_seconds_count 2",
        "impact_probe_seconds_bucket{le=\"+Inf\"} 2",
        "# TYPE impact_probe_seconds histogram",
    ] {
        assert!(
            text.lines().any(|l| l == line),
            "no line '{line}' in\n{text}"
        );
    }
    assert!(text
        .lines()
        .any(|l| l.starts_with("impact_cache_bytes ") && l != "impact_cache_bytes 0"));
}

#[tokio::test]
async fn server_info_lists_limits_and_capabilities_and_discover_has_every_method() {
    let server = Server::start(&["--max-nodes", "1234"]);
    let http = server.http();
    let info = call(&http, "server.info", json!({})).await;
    assert_eq!(info["limits"]["max_nodes"], 1234);
    assert_eq!(info["limits"]["max_connections"], 512);
    assert_eq!(info["auth"], false);
    let caps: Vec<&str> = info["capabilities"]
        .as_array()
        .expect("capabilities")
        .iter()
        .filter_map(|c| c.as_str())
        .collect();
    for c in [
        "jobs",
        "progress",
        "pause",
        "content-cache",
        "persistence",
        "metrics",
        "openrpc",
    ] {
        assert!(caps.contains(&c), "{caps:?}");
    }
    let doc = call(&http, "rpc.discover", json!({})).await;
    assert_eq!(doc["openrpc"], "1.3.2");
    let names: Vec<&str> = doc["methods"]
        .as_array()
        .expect("methods")
        .iter()
        .filter_map(|m| m["name"].as_str())
        .collect();
    for m in info["methods"].as_array().expect("methods") {
        let m = m.as_str().expect("a name");
        if m != "job.unsubscribe" {
            assert!(names.contains(&m), "rpc.discover lacks {m}: {names:?}");
        }
    }
    // The schemas come from the protocol's types: the model's materials are in them.
    let schemas = &doc["components"]["schemas"];
    assert!(
        schemas["Material"]["properties"]["rho"].is_object(),
        "{}",
        schemas["Material"]
    );
}

#[tokio::test]
async fn settings_come_from_a_config_file_and_the_environment() {
    let dir = DataDir::new();
    let config = dir.0.join("impact.toml");
    std::fs::write(&config, "max_nodes = 777\nmax_elements = 888\n").expect("config");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_impact-server"))
        .args(["--listen", "127.0.0.1:0", "--ephemeral", "--config"])
        .arg(&config)
        .env("IMPACT_MAX_ELEMENTS", "999")
        .env("RUST_LOG", "warn")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("start");
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.take().expect("stdout")),
        &mut line,
    )
    .expect("ready line");
    let addr = line
        .trim()
        .rsplit(' ')
        .next()
        .expect("an address")
        .to_owned();
    let http = jsonrpsee::http_client::HttpClientBuilder::default()
        .build(format!("http://{addr}"))
        .expect("client");
    let info = call(&http, "server.info", json!({})).await;
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(info["limits"]["max_nodes"], 777, "from the file");
    assert_eq!(
        info["limits"]["max_elements"], 999,
        "the environment wins over the file"
    );
    assert!(
        info.get("data_dir").is_none(),
        "--ephemeral keeps results in memory"
    );
}

#[tokio::test]
async fn sigterm_stops_gracefully_and_records_the_running_job_as_interrupted() {
    let dir = DataDir::new();
    let mut server = Server::start_in(&dir.0, &["--shutdown-grace-seconds", "0.2"]);
    let http = server.http();
    let (done, probe) = solve_and_probe_bars(&http).await;
    let mut long = bars_params();
    long["model"]["steps"][0]["duration"] = json!(100.0);
    let running = call(&http, "solve.submit", long).await["job"]
        .as_str()
        .expect("job")
        .to_owned();
    let status = std::process::Command::new("kill")
        .args(["-TERM", &server.pid().to_string()])
        .status()
        .expect("kill -TERM");
    assert!(status.success());
    let exit = server
        .wait_exit(Duration::from_secs(30))
        .expect("the server stops by itself after SIGTERM");
    assert!(exit.success(), "{exit:?}");
    drop(server);

    let server = Server::start_in(&dir.0, &[]);
    let http = server.http();
    assert_eq!(probe_far_ends(&http, &done).await, probe);
    let lost = call(&http, "job.status", json!({"job": running})).await;
    assert_eq!(lost["state"], "failed", "{lost}");
    let reason = lost["error"]["data"]["reason"].as_str().unwrap_or("");
    assert!(
        reason.contains("interrupted") && reason.contains("shut down"),
        "{lost}"
    );
}
