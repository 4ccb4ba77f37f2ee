//! The explicit core's hot loop on a block of hex8 without contact, for profilers and for
//! the memory figure: `hot_loop NX NY NZ INCREMENTS THREADS` solves an NX x NY x NZ block
//! for INCREMENTS increments on THREADS threads and prints the element-cycles per second of
//! the increments alone (a one-increment solve's set-up time is taken off) and the
//! process's peak resident memory (Linux's VmHWM; absent elsewhere). Run it under
//! `valgrind --tool=callgrind` for instruction counts that do not depend on the load.

use impact_core::{solve, SolveOptions};
use impact_protocol::{validate_model, Model, Pointer, SolveParams};
use std::time::Instant;

/// The block of the `explicit` benchmark, of any size: squeezed from its x+ side and left
/// to ring. c = 1 (E = 0.742857, nu = 0.3, rho = 1), so the increments are of the
/// element size; the step is long enough that the increment cap ends the solve.
fn block(n: [u32; 3], increments: u64) -> Model {
    let h = 1.0 / 40.0;
    let json = serde_json::json!({
        "model": {
            "materials": [{ "name": "m", "E": 0.742857142857, "nu": 0.3, "rho": 1.0 }],
            "parts": [{ "name": "block", "material": "m", "mesh": { "generate": {
                "kind": "block",
                "size": [h * f64::from(n[0]), h * f64::from(n[1]), h * f64::from(n[2])],
                "nx": n[0], "ny": n[1], "nz": n[2] } } }],
            "initial_velocities": [{ "part": "block", "set": "xmax", "velocity": [-0.01, 0.0, 0.0] }],
            "steps": [{ "name": "ring", "duration": 1e9, "output_interval": 1e9 }],
            "controls": { "max_increments": increments }
        }
    });
    let p: SolveParams = serde_json::from_value(json).expect("the block model parses");
    validate_model(&p.model, &Pointer::root().at("model")).expect("the block model is valid");
    p.model
}

fn peak_resident_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("arguments are whole numbers"))
        .collect();
    let arg = |i: usize, default: u64| args.get(i).copied().unwrap_or(default);
    let n = [arg(0, 40), arg(1, 40), arg(2, 20)].map(|v| v as u32);
    let increments = arg(3, 50).max(2);
    let threads = arg(4, 1) as usize;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool");
    let elements = u64::from(n[0]) * u64::from(n[1]) * u64::from(n[2]);
    // The cap's error is the expected end of each solve.
    let timed = |incr: u64| {
        let model = block(n, incr);
        let start = Instant::now();
        let _ = pool.install(|| solve(&model, &SolveOptions::default()));
        start.elapsed().as_secs_f64()
    };
    let setup = timed(1);
    let whole = timed(increments);
    let loop_seconds = (whole - setup).max(f64::MIN_POSITIVE);
    let cycles = elements as f64 * (increments - 1) as f64;
    println!(
        "elements {elements} increments {increments} threads {threads}: whole {whole:.3} s, set-up {setup:.3} s, {:.1} ns per element-cycle, {:.2} M element-cycles/s",
        1e9 * loop_seconds / cycles,
        cycles / loop_seconds / 1e6
    );
    if let Some(kib) = peak_resident_kib() {
        println!(
            "peak resident {kib} KiB, {:.0} bytes per element",
            kib as f64 * 1024.0 / elements as f64
        );
    }
}
