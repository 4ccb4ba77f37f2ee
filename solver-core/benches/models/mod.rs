//! The models the contact benchmarks and `examples/contact_loop.rs` share, in one place so
//! that the profiler's runs and criterion's measure the same thing. (A folder, not
//! `benches/models.rs`, which cargo would take for a benchmark of its own.)

// Each benchmark and the example use some of these.
#![allow(dead_code)]

use impact_protocol::{validate_model, Model, PairIntegration, Pointer, SolveParams};
use serde_json::json;

fn model(value: serde_json::Value, what: &str) -> Model {
    let p: SolveParams = serde_json::from_value(value).unwrap_or_else(|e| panic!("{what}: {e}"));
    if let Err(e) = validate_model(&p.model, &Pointer::root().at("model")) {
        panic!("{what} is not valid: {e:?}");
    }
    p.model
}

/// `model` with every contact's pairs integrated so.
pub fn integrated(mut model: Model, integration: PairIntegration) -> Model {
    for c in &mut model.contacts {
        c.integration = integration;
    }
    model
}

/// Two plates, n x n and (n + 1) x (n + 1) elements, one element thick, the upper one
/// sunk 1e-4 into the lower one: every face of both sides is in contact.
pub fn plates(n: u32) -> Model {
    model(
        json!({"model": {
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
        }}),
        "the plates",
    )
}

/// The side-by-side's block on a plate (bench/peers/gen.py, BLOCK): a 25 x 25 x 40 steel
/// block on a 50 x 50 x 10 plate, 2 mm elements, its base held, the block at 10 m/s,
/// stopped by the increment cap after `increments`.
pub fn block_on_plate(increments: u64, contact: bool) -> Model {
    let contacts = if contact {
        json!([{"name": "impact", "secondary": {"part": "block", "set": "zmin"},
                "main": {"part": "plate", "set": "zmax"}}])
    } else {
        json!([])
    };
    model(
        json!({"model": {
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
        }}),
        "the block on the plate",
    )
}
