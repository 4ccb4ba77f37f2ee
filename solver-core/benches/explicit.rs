//! Benchmarks of the explicit core: the colliding bars solved in process, and the hex8
//! element update (element-cycles per second) on one and two threads.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use impact_core::hex8::{self, ElementControls, NODE_SIGNS};
use impact_core::lanes::{per_lane, Batch, Lane};
use impact_core::material::Elastic;
use impact_core::{solve, SolveOptions};
use impact_protocol::{validate_model, Material, Model, Pointer, SolveParams};
use std::hint::black_box;

fn bars() -> Model {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/oracle/explicit-bars/model.json"
    ))
    .expect("the bars model is in the repo");
    let p: SolveParams = serde_json::from_str(&text).expect("the bars model parses");
    validate_model(&p.model, &Pointer::root().at("model")).expect("valid");
    p.model
}

/// A 40 x 40 x 20 block (32 000 hex8) squeezed from its sides and left to ring: no contact,
/// so the time is the element loop, the assembly and the node update.
fn block(increments: u32) -> Model {
    // c = sqrt((lambda + 2 mu) / rho) = 1 for E = 0.742857, nu = 0.3, rho = 1; h = 0.025:
    // dt = 0.9 * h / (Q + sqrt(Q^2 + c^2)), so the duration asks for `increments` of them.
    let json = serde_json::json!({
        "model": {
            "materials": [{ "name": "m", "E": 0.742857142857, "nu": 0.3, "rho": 1.0 }],
            "parts": [{ "name": "block", "material": "m", "mesh": { "generate": {
                "kind": "block", "size": [1.0, 1.0, 0.5], "nx": 40, "ny": 40, "nz": 20 } } }],
            "initial_velocities": [{ "part": "block", "set": "xmax", "velocity": [-0.01, 0.0, 0.0] }],
            "steps": [{ "name": "ring", "duration": 1.0, "output_interval": 1.0 }],
            "controls": { "max_increments": increments }
        }
    });
    let p: SolveParams = serde_json::from_value(json).expect("the block model parses");
    p.model
}

/// One element update alone: the kernel's cost without gathers, assembly or the node loop.
fn kernel(c: &mut Criterion) {
    let mat = Elastic::new(&Material {
        name: "steel".into(),
        kind: Default::default(),
        youngs_modulus: 210e9,
        nu: 0.3,
        rho: 7850.0,
    });
    let ctl = ElementControls {
        bulk_linear: 0.06,
        bulk_quadratic: 1.5,
        hourglass: 0.1,
    };
    let x = NODE_SIGNS.map(|s| {
        [
            0.5 + 0.5 * s[0],
            0.5 + 0.5 * s[1] + 0.01 * s[0],
            0.5 + 0.5 * s[2],
        ]
    });
    let v = NODE_SIGNS.map(|s| [-0.1 * s[0], 0.02 * s[1] * s[2], 0.01]);
    let mut g = c.benchmark_group("hex8_update");
    g.throughput(Throughput::Elements(1));
    g.bench_function("one_element", |b| {
        b.iter(|| {
            hex8::update(
                black_box(&x),
                black_box(&v),
                &[1e6, 0.0, 0.0, 0.0, 0.0, 0.0],
                &mat,
                &ctl,
                1e-7,
            )
        })
    });
    // The solver's path: a batch of elements side by side, one per lane (here copies of
    // the one element; the cost does not depend on the values): four lanes, or eight where
    // the build has AVX-512 (`lanes::Batch`).
    let lanes = Batch::splat;
    let (xl, vl) = (x.map(|p| p.map(lanes)), v.map(|p| p.map(lanes)));
    let stress = [1e6, 0.0, 0.0, 0.0, 0.0, 0.0].map(lanes);
    let mat_lanes = Elastic::lanes(per_lane(|_| &mat));
    g.throughput(Throughput::Elements(hex8::LANES as u64));
    g.bench_function("batch", |b| {
        b.iter(|| {
            hex8::update_batch(
                black_box(&xl),
                black_box(&vl),
                &stress,
                &mat_lanes,
                &ctl,
                Batch::splat(1e-7),
            )
        })
    });
    g.finish();
}

fn bench(c: &mut Criterion) {
    let model = bars();
    let mut g = c.benchmark_group("bars");
    g.sample_size(20);
    g.bench_function("solve", |b| {
        b.iter(|| solve(black_box(&model), &SolveOptions::default()).expect("bars"))
    });
    g.finish();

    // The block runs until its increment cap; the cap's error is the expected end.
    let increments = 50u32;
    let model = block(increments);
    let elements = 40 * 40 * 20u64;
    let mut g = c.benchmark_group("hex8_element_cycles");
    g.sample_size(10);
    g.throughput(Throughput::Elements(elements * u64::from(increments)));
    for threads in [1usize, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("pool");
        g.bench_function(format!("{threads}_threads"), |b| {
            b.iter(|| pool.install(|| solve(black_box(&model), &SolveOptions::default()).err()))
        });
    }
    g.finish();
}

criterion_group!(benches, kernel, bench);
criterion_main!(benches);
