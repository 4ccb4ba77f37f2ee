//! The probe of 100 points on a finished result of about 1e5 nodes, in process: the part of
//! a `solve.probe` answer that is the core's (finding each point's nearest node, reading
//! and interpolating its fields), without JSON or HTTP. The server's round trip on the
//! same result is in tests/benches/service.rs. Beside it: the same probe on a particle
//! result of about 1e5 spheres, and what `nearest::SEARCH_VISITS` and
//! `BUILD_VISITS_PER_NODE` are calibrated from (the node grid's build, a search, and a scan
//! of every node, on lattices of 1e5 and 1e6 nodes).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use impact_core::nearest::{scan, NodeGrid};
use impact_core::{solve, Solution, SolveOptions};
use impact_protocol::{parse_params, validate_model, Model, Pointer, ProbeParams, SolveParams};
use serde_json::json;
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

/// A probe of the points `at`, at the last step's end.
fn probe_at(at: Vec<[f64; 3]>) -> ProbeParams {
    ProbeParams {
        job: "bench".into(),
        step: None,
        at,
        nodes: vec![],
        particles: vec![],
        time: None,
        fields: None,
    }
}

/// An n x n x n lattice of nodes 0.01 apart.
fn lattice(n: usize) -> Vec<[f64; 3]> {
    let mut nodes = Vec::with_capacity(n * n * n);
    for k in 0..n {
        for j in 0..n {
            for i in 0..n {
                nodes.push([i, j, k].map(|c| 0.01 * c as f64));
            }
        }
    }
    nodes
}

/// 46 x 46 x 46 spheres (97 336) 0.1 apart, too small to touch (radius 0.01), solved for
/// two increments: a particle result the size of the cube's.
fn sphere_lattice() -> Solution {
    let n = 46;
    let mut spheres = Vec::with_capacity(n * n * n);
    for k in 0..n {
        for j in 0..n {
            for i in 0..n {
                spheres
                    .push(json!({ "position": [0.1 * i as f64, 0.1 * j as f64, 0.1 * k as f64] }));
            }
        }
    }
    let params: SolveParams = parse_params(
        &json!({ "model": {
            "steps": [{ "name": "drift", "duration": 2e-5, "output_interval": 2e-5 }],
            "particles": { "dimension": 3, "gravity": [0, 0, 0],
                "groups": [{ "name": "lattice", "radius": 0.01, "density": 2500.0, "spheres": spheres }],
                "law": { "kind": "hertz", "E": 1e8, "nu": 0.3 }, "time_step": { "dt": 1e-5 } } }})
        .to_string(),
    )
    .expect("the lattice parses");
    solve(&params.model, &SolveOptions::default()).expect("the lattice solves")
}

/// The probe of `params` (100 points) on `solution`, as `GROUP/100_points_in_process`.
fn bench_probe(c: &mut Criterion, group: &str, solution: &Solution, params: &ProbeParams) {
    let mut g = c.benchmark_group(group);
    g.throughput(Throughput::Elements(100));
    g.bench_function("100_points_in_process", |b| {
        b.iter(|| {
            solution
                .probe(black_box(params))
                .expect("the probe answers")
        })
    });
    g.finish();
}

fn probe(c: &mut Criterion) {
    let model = cube();
    let solution = solve(&model, &SolveOptions::default()).expect("the cube solves");
    assert_eq!(solution.summary().nodes, 47 * 47 * 47);
    let params = ProbeParams {
        time: Some(0.04),
        ..probe_at(hundred_points())
    };
    bench_probe(c, "probe_1e5_nodes", &solution, &params);

    // The costs the server's rule counts in, on lattices of 1e5 and 1e6 nodes (the second's
    // cells out of cache): a scan's node visit is the unit.
    for n in [46usize, 100] {
        let nodes = lattice(n);
        // 1e5 points spread through the lattice, each searched once an iteration: what a
        // server's probe meets, cells not left in cache by the search before.
        let golden = [0.618_033_988_75, 0.754_877_666_25, 0.569_840_290_99];
        let points: Vec<[f64; 3]> = (1..=100_000)
            .map(|i| golden.map(|a| (f64::from(i) * a).fract() * 0.01 * (n - 1) as f64))
            .collect();
        let mut g = c.benchmark_group(format!("nearest_lattice_{}_nodes", nodes.len()));
        g.bench_function("grid_build", |b| {
            b.iter(|| NodeGrid::new(black_box(&nodes)))
        });
        let grid = NodeGrid::new(&nodes);
        g.throughput(Throughput::Elements(points.len() as u64));
        g.bench_function("searches", |b| {
            b.iter(|| {
                for p in &points {
                    black_box(grid.nearest(&nodes, *p));
                }
            })
        });
        // The definition a search answers as, and the cost's unit.
        g.throughput(Throughput::Elements(nodes.len() as u64));
        g.bench_function("one_scan_of_every_node", |b| {
            b.iter(|| scan(black_box(&nodes), black_box(points[0])))
        });
        g.finish();
    }

    let spheres = sphere_lattice();
    // The lattice spans 4.5 a side: the cube's points, scaled to it.
    let params = probe_at(
        hundred_points()
            .iter()
            .map(|p| p.map(|c| 4.5 * c))
            .collect(),
    );
    bench_probe(c, "probe_1e5_spheres", &spheres, &params);
}

criterion_group!(benches, probe);
criterion_main!(benches);
