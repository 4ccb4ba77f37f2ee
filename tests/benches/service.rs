//! Benchmarks through a real server: the colliding bars solved over HTTP (the round trip a
//! client sees), a probe of one point on the cached result (the latency of a follow-up
//! question) beside `server.info` (the round trip's floor), and a probe of 100 points on a
//! cached result of about 1e5 nodes (bench/models/probe-cube.json; the core's share of it
//! is solver-core/benches/probe.rs). The server is the release binary, started on a free
//! loopback port.

use criterion::{criterion_group, criterion_main, Criterion};
use impact_client::client::Client;
use impact_e2e::{start_server, workspace_root};
use impact_protocol::{ProbeParams, SolveParams};

fn bars() -> SolveParams {
    let path = workspace_root().join("tests/oracle/explicit-bars/model.json");
    let text = std::fs::read_to_string(path).expect("the bars model is in the repo");
    serde_json::from_str(&text).expect("the bars model parses")
}

fn cube() -> SolveParams {
    let path = workspace_root().join("bench/models/probe-cube.json");
    let text = std::fs::read_to_string(path).expect("the probe cube is in the repo");
    serde_json::from_str(&text).expect("the probe cube parses")
}

/// The in-process benchmark's 100 points (solver-core/benches/probe.rs): the golden
/// ratio's multiples per axis, spread through the unit cube.
fn hundred_points() -> Vec<[f64; 3]> {
    let g = [0.618_033_988_75, 0.754_877_666_25, 0.569_840_290_99];
    (1..=100)
        .map(|i| g.map(|a| (f64::from(i) * a).fract()))
        .collect()
}

fn bench(c: &mut Criterion) {
    let server = start_server();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime");
    let client = rt
        .block_on(Client::connect(&server.http_url()))
        .expect("the server answers");
    let params = bars();

    let mut g = c.benchmark_group("server");
    g.sample_size(20);
    // Each solve of the same model is a new job: the cache is per job, so this is a real
    // solve every time (content addressing, where the server has it, is bypassed by the
    // model's title carrying the iteration).
    let mut n = 0u64;
    g.bench_function("bars_solve_round_trip", |b| {
        b.iter(|| {
            n += 1;
            let mut p = params.clone();
            p.model.title = Some(format!("bars {n}"));
            rt.block_on(client.solve(&p)).expect("bars solve")
        })
    });
    let job = rt.block_on(client.solve(&params)).expect("bars solve").job;
    let probe = ProbeParams {
        job,
        step: Some("Impact".into()),
        at: vec![[20.0, 0.0, 0.0]],
        nodes: vec![],
        particles: vec![],
        time: None,
        fields: None,
    };
    g.sample_size(200);
    g.bench_function("probe_one_point_cached", |b| {
        b.iter(|| rt.block_on(client.probe(&probe)).expect("probe"))
    });
    // The floor under any call: a method that reads nothing of a job, through the same
    // client, HTTP connection and runtime. The one-point probe less this is its own work.
    g.bench_function("server_info_round_trip", |b| {
        b.iter(|| rt.block_on(client.server_info()).expect("server.info"))
    });
    g.finish();

    let job = rt.block_on(client.solve(&cube())).expect("cube solve").job;
    let probe = ProbeParams {
        job,
        step: None,
        at: hundred_points(),
        nodes: vec![],
        particles: vec![],
        time: Some(0.04),
        fields: None,
    };
    let mut g = c.benchmark_group("server_probe_1e5_nodes");
    g.sample_size(50);
    g.bench_function("100_points_cached", |b| {
        b.iter(|| rt.block_on(client.probe(&probe)).expect("probe"))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
