//! The contact increment, for profilers. `contact_loop N INCREMENTS` presses two plates of
//! N x N and (N + 1) x (N + 1) hex8 together (the `contact` benchmark's plates, every face
//! in contact, both ways) and runs INCREMENTS contact increments at the reference
//! positions, printing the time per face-increment. `contact_loop block INCREMENTS [none]`
//! solves the `increment` benchmark's block on a plate (50k hex8, with its contact or
//! without) until the increment cap. Run it under `valgrind --tool=callgrind` for
//! instruction counts that do not depend on the load; the difference of two increment
//! counts is the increments alone.

use impact_core::assembly::assemble;
use impact_core::contact::Contacts;
use impact_core::{solve, SolveOptions};
use impact_protocol::{Model, SolveParams};
use std::time::Instant;

/// The benchmark's plates: the upper one sunk 1e-4 into the lower one.
fn plates(n: u32) -> Model {
    let json = serde_json::json!({"model": {
        "materials": [{"name": "m", "E": 100.0, "nu": 0.0, "rho": 0.01}],
        "parts": [
            {"name": "low", "material": "m", "mesh": {"generate": {"kind": "block",
                "origin": [0, 0, 0], "size": [1, 1, 0.01], "nx": n, "ny": n, "nz": 1}}},
            {"name": "high", "material": "m", "mesh": {"generate": {"kind": "block",
                "origin": [0, 0, 0.0099], "size": [1, 1, 0.01], "nx": n + 1, "ny": n + 1, "nz": 1}}}
        ],
        "contacts": [{"name": "c", "secondary": {"part": "high", "set": "zmin"},
                      "main": {"part": "low", "set": "zmax"}}],
        "steps": [{"name": "s", "duration": 1.0, "output_interval": 1.0}]
    }});
    let p: SolveParams = serde_json::from_value(json).expect("the plates parse");
    p.model
}

/// The `increment` benchmark's block on a plate, stopped by the increment cap.
fn block(increments: u64, contact: bool) -> Model {
    let contacts = if contact {
        serde_json::json!([{"name": "impact", "secondary": {"part": "block", "set": "zmin"},
                "main": {"part": "plate", "set": "zmax"}}])
    } else {
        serde_json::json!([])
    };
    let json = serde_json::json!({"model": {
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
        "steps": [{"name": "Impact", "duration": 1.0, "output_interval": 1.0}],
        "controls": {"max_increments": increments}
    }});
    let p: SolveParams = serde_json::from_value(json).expect("the block parses");
    p.model
}

fn main() {
    let words: Vec<String> = std::env::args().skip(1).collect();
    if words.first().map(String::as_str) == Some("block") {
        let increments = words.get(1).and_then(|w| w.parse().ok()).unwrap_or(10);
        let contact = words.get(2).map(String::as_str) != Some("none");
        let start = Instant::now();
        // The cap ends the solve with an error: that is the expected end.
        let result = solve(&block(increments, contact), &SolveOptions::default());
        println!(
            "block, {increments} increments, contact {contact}: {:.3} s (ended by the cap: {})",
            start.elapsed().as_secs_f64(),
            result.is_err()
        );
        return;
    }
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("N INCREMENTS as integers"))
        .collect();
    let (n, increments) = match args.as_slice() {
        [n, k] => (*n as u32, *k),
        _ => (70, 10),
    };
    let m = plates(n);
    let asm = assemble(&m).expect("the plates assemble");
    let faces = asm.contacts[0].faces.len();
    let dt = 1e-5;
    let mut contacts = Contacts::new(&m, &asm, dt, 0.9, vec![Vec::new()]);
    let x = asm.reference.clone();
    let v = vec![[0.0; 3]; x.len()];
    let mut f = vec![[0.0; 3]; x.len()];
    let start = Instant::now();
    for _ in 0..increments {
        contacts.apply(&x, &v, dt, 0.0, &mut f);
    }
    let elapsed = start.elapsed().as_secs_f64();
    let total: f64 = f.iter().map(|g| g[2]).sum();
    println!(
        "{faces} faces, {increments} increments: {:.3} us per face-increment (sum of z forces {total:e})",
        1e6 * elapsed / (faces as f64 * increments.max(1) as f64)
    );
}
