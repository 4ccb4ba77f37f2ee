//! The cost of one full increment of a 50k-hex8 block impact, with and without its
//! contact, on one and two threads: element update, assembly, contact, node update and
//! bookkeeping, without the set-up; the contact's pairs integrated both ways (the
//! default) and on the plane between the faces. The model is the side-by-side's block on a plate
//! (bench/peers/gen.py, BLOCK): a 25 x 25 x 40 steel block on a 50 x 50 x 10 plate, 2 mm
//! elements, its base held, the block at 10 m/s.
//!
//! A solve cannot be entered between increments from outside, so each measurement is the
//! difference of two solves of the same model capped at `SHORT` and `LONG` increments:
//! what the extra increments cost. Criterion's figure is the time of those `LONG - SHORT`
//! increments; its throughput is element-cycles per second.

use criterion::{criterion_group, criterion_main, Criterion, SamplingMode, Throughput};
use impact_core::{solve, SolveOptions};
use impact_protocol::{Model, PairIntegration};
use std::hint::black_box;
use std::time::{Duration, Instant};

mod models;

const SHORT: u32 = 10;
const LONG: u32 = 30;
const ELEMENTS: u64 = 50 * 50 * 10 + 25 * 25 * 40;

/// The block on the plate, stopped by the increment cap after `increments`, its contact
/// (if any) integrated so.
fn block(increments: u32, contact: Option<PairIntegration>) -> Model {
    let m = models::block_on_plate(u64::from(increments), contact.is_some());
    models::integrated(m, contact.unwrap_or_default())
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
    for (what, contact) in [
        ("with_contact", Some(PairIntegration::BothWays)),
        ("with_contact_mid_plane", Some(PairIntegration::MidPlane)),
        ("no_contact", None),
    ] {
        let (short, long) = (block(SHORT, contact), block(LONG, contact));
        for threads in [1usize, 2] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("a pool");
            let name = format!("{what}/{threads}_threads");
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
