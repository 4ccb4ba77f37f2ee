//! The probe of 100 points on a finished result of about 1e5 nodes, in process: the part of
//! a `solve.probe` answer that is the core's (finding each point's nearest node, reading
//! and interpolating its fields), without JSON or HTTP. The server's round trip on the
//! same result is in tests/benches/service.rs.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use impact_core::{solve, SolveOptions};
use impact_protocol::{validate_model, Model, Pointer, ProbeParams, SolveParams};
use std::hint::black_box;

/// bench/models/probe-cube.json: a 46 x 46 x 46 block (103 823 nodes, 97 336 hex8) pushed
/// on one face for a few increments, with three stored frames, so a probe interpolates
/// between two of them. The server's benchmark solves the same file.
fn cube() -> Model {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../bench/models/probe-cube.json"
    ))
    .expect("the probe cube is in the repo");
    let p: SolveParams = serde_json::from_str(&text).expect("the cube parses");
    validate_model(&p.model, &Pointer::root().at("model")).expect("the cube is valid");
    p.model
}

/// 100 points spread through the cube (a fixed low-discrepancy walk: the golden ratio's
/// multiples per axis), between nodes, at a time between two frames.
fn hundred_points() -> Vec<[f64; 3]> {
    let g = [0.618_033_988_75, 0.754_877_666_25, 0.569_840_290_99];
    (1..=100)
        .map(|i| g.map(|a| (f64::from(i) * a).fract()))
        .collect()
}

fn probe(c: &mut Criterion) {
    let model = cube();
    let solution = solve(&model, &SolveOptions::default()).expect("the cube solves");
    assert_eq!(solution.summary().nodes, 47 * 47 * 47);
    let params = ProbeParams {
        job: "bench".into(),
        step: None,
        at: hundred_points(),
        nodes: vec![],
        particles: vec![],
        time: Some(0.04),
        fields: None,
    };
    let mut g = c.benchmark_group("probe_1e5_nodes");
    g.throughput(Throughput::Elements(100));
    g.bench_function("100_points_in_process", |b| {
        b.iter(|| {
            solution
                .probe(black_box(&params))
                .expect("the probe answers")
        })
    });
    g.finish();
}

criterion_group!(benches, probe);
criterion_main!(benches);
