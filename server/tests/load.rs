//! A bounded load test against the real binary on 127.0.0.1 (issue 6): N clients, each
//! sending a fixed number of requests (probes of a solved job, cached solves, status
//! and list calls, now and then a fresh solve), every answer checked; it prints requests
//! per second and the probe latency's p50 and p99. Small by default so the test suite
//! stays fast; the figures in docs/performance.md come from
//! `IMPACT_LOAD_CLIENTS=16 IMPACT_LOAD_REQUESTS=500 cargo test --release -p impact-server --test load -- --nocapture`.

mod common;

use common::{bars_params, call, probe_far_ends, solve_and_probe_bars, Server};
use serde_json::json;
use std::time::{Duration, Instant};

fn setting(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[derive(Default)]
struct Tally {
    requests: usize,
    errors: Vec<String>,
    probe_seconds: Vec<f64>,
}

fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() - 1) as f64 * q).round() as usize;
    sorted[i]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clients_mixing_solves_and_probes_get_every_answer_right() {
    let clients = setting("IMPACT_LOAD_CLIENTS", 4);
    let requests = setting("IMPACT_LOAD_REQUESTS", 40);
    let server = Server::start(&["--max-queued", "1024"]);
    let (job, probe) = solve_and_probe_bars(&server.http()).await;

    let started = Instant::now();
    let mut tasks = Vec::new();
    for c in 0..clients {
        let http = server.http();
        let (job, probe) = (job.clone(), probe.clone());
        tasks.push(tokio::spawn(async move {
            let mut t = Tally::default();
            for r in 0..requests {
                t.requests += 1;
                match r % 20 {
                    // A solve of a model of its own: a new job, and the theory holds.
                    19 if r / 20 % 4 == 0 => {
                        let mut p = bars_params();
                        p["model"]["steps"][0]["output_interval"] =
                            json!(0.01 + 1e-4 * (c * requests + r) as f64);
                        let s = call(&http, "solve", p).await;
                        if s["cached"] != false || s["steps"][0]["end_time"] != 0.3 {
                            t.errors.push(format!("fresh solve: {s}"));
                        }
                    }
                    // The solved model again: the cache answers with the same job.
                    7 => {
                        let s = call(&http, "solve", bars_params()).await;
                        if s["cached"] != true || s["job"] != job.as_str() {
                            t.errors.push(format!("cached solve: {s}"));
                        }
                    }
                    11 => {
                        let s = call(&http, "job.status", json!({"job": job})).await;
                        if s["state"] != "done" {
                            t.errors.push(format!("status: {s}"));
                        }
                    }
                    13 => {
                        let l = call(&http, "job.list", json!({})).await;
                        if l["jobs"].as_array().is_none_or(|j| j.is_empty()) {
                            t.errors.push(format!("list: {l}"));
                        }
                    }
                    _ => {
                        let t0 = Instant::now();
                        let p = probe_far_ends(&http, &job).await;
                        t.probe_seconds.push(t0.elapsed().as_secs_f64());
                        if p != probe {
                            t.errors.push(format!("probe changed: {p}"));
                        }
                    }
                }
            }
            t
        }));
    }
    let mut all = Tally::default();
    for task in tasks {
        let t = tokio::time::timeout(Duration::from_secs(600), task)
            .await
            .expect("the load test ends in time")
            .expect("a client task");
        all.requests += t.requests;
        all.errors.extend(t.errors);
        all.probe_seconds.extend(t.probe_seconds);
    }
    let elapsed = started.elapsed().as_secs_f64();
    all.probe_seconds.sort_by(f64::total_cmp);
    println!(
        "load: {clients} clients x {requests} requests = {} in {elapsed:.2} s: {:.0} requests/s; probes {}: p50 {:.2} ms, p99 {:.2} ms; errors {}",
        all.requests,
        all.requests as f64 / elapsed,
        all.probe_seconds.len(),
        1e3 * quantile(&all.probe_seconds, 0.5),
        1e3 * quantile(&all.probe_seconds, 0.99),
        all.errors.len()
    );
    assert!(
        all.errors.is_empty(),
        "{:#?}",
        &all.errors[..all.errors.len().min(5)]
    );
    assert_eq!(all.requests, clients * requests);
}
