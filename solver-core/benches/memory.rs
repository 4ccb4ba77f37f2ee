//! Memory of a whole finite-element solve per hex8 element: how far the process's resident
//! set grows during a solve (mesh, assembly, element and node state, contact, frames,
//! history, and the allocator's slack), over the element count. Issue 7's target: under
//! 1 KiB an element.
//!
//! Read from Linux's /proc/self/status: the peak resident set (VmHWM), reset before each
//! solve through /proc/self/clear_refs, less the resident set before the solve. (A counting
//! global allocator would count heap bytes alone, but it needs `unsafe`, which the
//! workspace forbids.)
//!
//! The model is the side-by-side's block on a plate (bench/peers/gen.py, BLOCK) at 50k hex8
//! and scaled to 200k (the plate 100 x 100 x 10, the block 50 x 50 x 40, the same 2 mm
//! elements), with contact, 20 increments and two stored frames (the start and the end),
//! so the figure is the state, not the output. Stored frames add 48 bytes a node each
//! (displacement and velocity).
//!
//!     cargo bench -p impact-core --bench memory
//!
//! Not a criterion benchmark: the figure is a count of bytes. Each size runs in a fresh
//! process (this binary again), so no size reuses pages another one left mapped.

use impact_core::{solve, SolveOptions};
use impact_protocol::{validate_model, Model, Pointer, SolveParams};
use serde_json::json;

/// A `kB` line of /proc/self/status, in bytes.
fn status_bytes(key: &str) -> usize {
    let status = std::fs::read_to_string("/proc/self/status").expect("Linux's /proc");
    status
        .lines()
        .find_map(|l| l.strip_prefix(key))
        .and_then(|rest| {
            rest.trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<usize>()
                .ok()
        })
        .map(|kb| kb * 1024)
        .unwrap_or_else(|| panic!("no {key} in /proc/self/status"))
}

/// The block on the plate with `scale` times the elements along x and y of both parts.
fn block(scale: u32) -> Model {
    let (pn, bn) = (50 * scale, 25 * scale);
    let (pw, bw) = (0.1 * f64::from(scale), 0.05 * f64::from(scale));
    let at = (pw - bw) / 2.0;
    // Twenty increments of about 2.07e-7 s (the 50k model's stable increment).
    let duration = 20.0 * 2.07e-7;
    let p: SolveParams = serde_json::from_value(json!({"model": {
        "materials": [{"name": "steel", "E": 210e9, "nu": 0.3, "rho": 7850.0}],
        "parts": [
            {"name": "plate", "material": "steel", "mesh": {"generate": {"kind": "block",
                "origin": [0, 0, 0], "size": [pw, pw, 0.02], "nx": pn, "ny": pn, "nz": 10}}},
            {"name": "block", "material": "steel", "mesh": {"generate": {"kind": "block",
                "origin": [at, at, 0.02], "size": [bw, bw, 0.08], "nx": bn, "ny": bn, "nz": 40}}}
        ],
        "initial_velocities": [{"part": "block", "velocity": [0, 0, -10.0]}],
        "boundary_conditions": [{"part": "plate", "set": "zmin", "fixed": ["x", "y", "z"]}],
        "contacts": [{"name": "impact", "secondary": {"part": "block", "set": "zmin"},
                      "main": {"part": "plate", "set": "zmax"}}],
        "steps": [{"name": "Impact", "duration": duration, "output_interval": duration}]
    }}))
    .expect("the block parses");
    validate_model(&p.model, &Pointer::root().at("model")).expect("the block is valid");
    p.model
}

fn main() {
    // `cargo bench` passes criterion's flags (--bench); this binary reads none of them.
    if let Ok(scale) = std::env::var("IMPACT_MEMORY_SCALE") {
        measure(scale.parse().expect("a scale"));
        return;
    }
    println!("resident set growth of a whole solve per hex8 element (target: under 1024 bytes)");
    println!(
        "elements  nodes  increments  peak during solve  per element  held after  per element"
    );
    for scale in [1u32, 2] {
        let me = std::env::current_exe().expect("this benchmark's path");
        let status = std::process::Command::new(me)
            .env("IMPACT_MEMORY_SCALE", scale.to_string())
            .status()
            .expect("the measurement runs");
        assert!(status.success(), "the measurement at scale {scale} failed");
    }
}

fn measure(scale: u32) {
    let model = block(scale);
    // "5" resets the peak resident set to the current one (proc(5), clear_refs).
    std::fs::write("/proc/self/clear_refs", "5").expect("the peak can be reset");
    let before = status_bytes("VmRSS:");
    let solution = solve(&model, &SolveOptions::default()).expect("the block solves");
    let peak = status_bytes("VmHWM:").saturating_sub(before);
    let kept = status_bytes("VmRSS:").saturating_sub(before);
    let s = solution.summary();
    let elements = s.elements as f64;
    let increments: u64 = s.steps.iter().map(|st| st.increments).sum();
    println!(
        "{:8}  {:6}  {:10}  {:13.1} MiB  {:9.0} B  {:6.1} MiB  {:9.0} B",
        s.elements,
        s.nodes,
        increments,
        peak as f64 / 1048576.0,
        peak as f64 / elements,
        kept as f64 / 1048576.0,
        kept as f64 / elements,
    );
}
