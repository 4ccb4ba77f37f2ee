//! Particle-steps per second: 10 000 Hertz spheres settling in a box under gravity, on one
//! and two threads. A first solve lets the spheres fall and pile up; each measured solve
//! then runs a fixed number of increments from that state (contacts everywhere). The
//! particle step alone is the difference of two such solves, of `INCREMENTS` and
//! `2 * INCREMENTS` increments: what the extra increments cost, without the set-up.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use impact_core::particles;
use impact_core::SolveOptions;
use impact_protocol::{validate_model, Model, Pointer};
use serde_json::json;
use std::hint::black_box;

const SIDE: usize = 25;
const LAYERS: usize = 16;
const RADIUS: f64 = 0.005;
/// The increments of one measured solve.
const INCREMENTS: u32 = 200;

/// A deterministic scatter in [0, 1).
fn scatter(seed: &mut u64) -> f64 {
    *seed = seed
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    (*seed >> 11) as f64 / (1u64 << 53) as f64
}

/// 25 x 25 x 16 spheres of 5 mm in a 0.27 m square box, from given centres and velocities.
fn model(spheres: Vec<serde_json::Value>, duration: f64, dt: Option<f64>) -> Model {
    let side = 0.27;
    let time_step = match dt {
        Some(dt) => json!({ "dt": dt }),
        None => json!({ "steps_per_contact": 40 }),
    };
    let m = json!({
        "steps": [{ "name": "settle", "duration": duration, "output_interval": duration }],
        "particles": {
            "gravity": [0, 0, -9.81],
            "groups": [{ "name": "beads", "radius": RADIUS, "density": 2500.0, "spheres": spheres }],
            "walls": [
                { "name": "floor", "point": [0, 0, 0], "normal": [0, 0, 1] },
                { "name": "west", "point": [0, 0, 0], "normal": [1, 0, 0] },
                { "name": "east", "point": [side, 0, 0], "normal": [-1, 0, 0] },
                { "name": "south", "point": [0, 0, 0], "normal": [0, 1, 0] },
                { "name": "north", "point": [0, side, 0], "normal": [0, -1, 0] }
            ],
            "law": { "kind": "hertz", "E": 1e7, "nu": 0.3 },
            "time_step": time_step,
            "listed_collisions": 10
        }
    });
    let m: Model = serde_json::from_value(m).expect("the box parses");
    validate_model(&m, &Pointer::root()).expect("the box is valid");
    m
}

/// The spheres after 0.05 s of fall from a jittered lattice (a pile forming on the floor),
/// as the model of a solve of `increments` from there.
fn settling(increments: u32) -> (Model, f64) {
    let mut seed = 7;
    let spacing = 2.2 * RADIUS;
    let mut spheres = Vec::with_capacity(SIDE * SIDE * LAYERS);
    for k in 0..LAYERS {
        for j in 0..SIDE {
            for i in 0..SIDE {
                let mut at =
                    |n: usize| RADIUS + 0.001 + spacing * n as f64 + 0.001 * scatter(&mut seed);
                let p = [at(i), at(j), at(k)];
                let v = [
                    0.2 * scatter(&mut seed) - 0.1,
                    0.2 * scatter(&mut seed) - 0.1,
                    0.0,
                ];
                spheres.push(json!({ "position": p, "velocity": v }));
            }
        }
    }
    let start = model(spheres, 0.05, None);
    let fallen = particles::run(&start, &SolveOptions::default()).expect("the fall solves");
    let dt = fallen.summary.time_step;
    let last = fallen.frames().last().expect("a last frame");
    let spheres = last
        .position
        .iter()
        .zip(&last.velocity)
        .map(|(p, v)| json!({ "position": p, "velocity": v }))
        .collect();
    (model(spheres, dt * f64::from(increments), Some(dt)), dt)
}

fn bench(c: &mut Criterion) {
    let (pile, _dt) = settling(INCREMENTS);
    let count = (SIDE * SIDE * LAYERS) as u64;
    let mut group = c.benchmark_group("particles");
    group.sample_size(10);
    group.throughput(Throughput::Elements(count * u64::from(INCREMENTS)));
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a pool");
        group.bench_function(format!("hertz_box_10000_spheres/{threads}_threads"), |b| {
            b.iter(|| {
                pool.install(|| {
                    black_box(particles::run(&pile, &SolveOptions::default()).expect("solves"))
                })
            })
        });
    }
    group.finish();

    let (longer, _dt) = settling(2 * INCREMENTS);
    let mut group = c.benchmark_group("particle_step_10000_spheres");
    group.sample_size(10);
    group.sampling_mode(criterion::SamplingMode::Flat);
    group.throughput(Throughput::Elements(count * u64::from(INCREMENTS)));
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a pool");
        group.bench_function(format!("{INCREMENTS}_steps/{threads}_threads"), |b| {
            b.iter_custom(|iters| {
                let mut total = std::time::Duration::ZERO;
                for _ in 0..iters {
                    let timed = |m: &Model| {
                        let start = std::time::Instant::now();
                        black_box(pool.install(|| particles::run(m, &SolveOptions::default())))
                            .expect("solves");
                        start.elapsed()
                    };
                    let (a, b) = (timed(&pile), timed(&longer));
                    total += b.saturating_sub(a);
                }
                total
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
