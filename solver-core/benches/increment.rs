//! The cost of one full increment of a 50k-hex8 block impact, with and without its
//! contact, on one and two threads: element update, assembly, contact, node update and
//! bookkeeping, without the set-up. The model is the side-by-side's block on a plate
//! (bench/peers/gen.py, BLOCK): a 25 x 25 x 40 steel block on a 50 x 50 x 10 plate, 2 mm
//! elements, its base held, the block at 10 m/s.
//!
//! A solve cannot be entered between increments from outside, so each measurement is the
//! difference of two solves of the same model capped at `SHORT` and `LONG` increments:
//! what the extra increments cost. Criterion's figure is the time of those `LONG - SHORT`
//! increments; its throughput is element-cycles per second.

use criterion::{criterion_group, criterion_main, Criterion, SamplingMode, Throughput};
use impact_core::{solve, SolveOptions};
use impact_protocol::{validate_model, Model, Pointer, SolveParams};
use serde_json::json;
use std::hint::black_box;
use std::time::{Duration, Instant};

const SHORT: u32 = 10;
const LONG: u32 = 30;
const ELEMENTS: u64 = 50 * 50 * 10 + 25 * 25 * 40;

/// The block on the plate, stopped by the increment cap after `increments`.
fn block(increments: u32, contact: bool) -> Model {
    let contacts = if contact {
        json!([{"name": "impact", "secondary": {"part": "block", "set": "zmin"},
                "main": {"part": "plate", "set": "zmax"}}])
    } else {
        json!([])
    };
    let p: SolveParams = serde_json::from_value(json!({"model": {
        "materials": [{"name": "steel", "E": 210e9, "nu": 0.3, "rho": 7850.0}],
        "parts": [
            {"name": "plate", "material": "steel", "mesh": {"generate": {"kind": "block",
                "origin": [0, 0, 0], "size": [0.1, 0.1, 0.02], "nx": 50, "ny": 50, "nz": 10}}},
            {"name": "block", "material": "steel", "mesh": {"generate": {"kind": "block",
                "origin": [0.025, 0.025, 0.02], "size": [0.05, 0.05, 0.08], "nx": 25, "ny": 25, "nz": 40}}}
        ],
        "initial_velocities": [{"part": "block", "velocity": [0, 0, -10.0]}],
        "boundary_conditions": [{"part": "plate", "set": "zmin", "fixed": ["x", "y", "z"]}],
        "contacts": contacts,
        // Far longer than the cap allows: the cap ends every solve.
        "steps": [{"name": "Impact", "duration": 1.0, "output_interval": 1.0}],
        "controls": {"max_increments": increments}
    }}))
    .expect("the block parses");
    validate_model(&p.model, &Pointer::root().at("model")).expect("the block is valid");
    p.model
}

/// Wall time of a solve that the increment cap ends (its error is the expected end).
fn capped(model: &Model) -> Duration {
    let start = Instant::now();
    let result = solve(black_box(model), &SolveOptions::default());
    let elapsed = start.elapsed();
    assert!(result.is_err(), "the cap, not the duration, ends the solve");
    elapsed
}

fn increments(c: &mut Criterion) {
    let mut g = c.benchmark_group("block_impact_50k_hex8_20_increments");
    g.sampling_mode(SamplingMode::Flat);
    g.sample_size(10);
    g.warm_up_time(Duration::from_secs(1));
    g.measurement_time(Duration::from_secs(10));
    g.throughput(Throughput::Elements(ELEMENTS * u64::from(LONG - SHORT)));
    for contact in [true, false] {
        let (short, long) = (block(SHORT, contact), block(LONG, contact));
        for threads in [1usize, 2] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("a pool");
            let name = format!(
                "{}/{threads}_threads",
                if contact {
                    "with_contact"
                } else {
                    "no_contact"
                }
            );
            g.bench_function(name, |b| {
                b.iter_custom(|iters| {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        let (a, b) = pool.install(|| (capped(&short), capped(&long)));
                        total += b.saturating_sub(a);
                    }
                    total
                })
            });
        }
    }
    g.finish();
}

criterion_group!(benches, increments);
criterion_main!(benches);
