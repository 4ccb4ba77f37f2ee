//! The penalty's stiffness against its formula (docs/contact.md, "The penalty"): two
//! plates sunk into each other by a uniform depth press with 2 ε A g, ε the cap at the
//! widest increment the elements allow, and the force does not move when the increment
//! moves between the one at rest and that widest one (the linear bulk viscosity switching
//! on and off), as it did when the cap followed the current increment.

use impact_core::assembly::assemble;
use impact_core::contact::Contacts;
use impact_protocol::{Model, SolveParams};
use serde_json::json;

const RHO: f64 = 0.01;
const THICKNESS: f64 = 0.01;
const DEPTH: f64 = 1e-4;

/// Plates of 4 x 4 and 5 x 5 elements over the unit square, one element thick, the upper
/// one sunk `DEPTH` into the lower one.
fn plates(penalty_scale: f64) -> Model {
    let p: SolveParams = serde_json::from_value(json!({"model": {
        "materials": [{"name": "m", "E": 100.0, "nu": 0.3, "rho": RHO}],
        "parts": [
            {"name": "low", "material": "m", "mesh": {"generate": {"kind": "block",
                "origin": [0, 0, 0], "size": [1, 1, THICKNESS], "nx": 4, "ny": 4, "nz": 1}}},
            {"name": "high", "material": "m", "mesh": {"generate": {"kind": "block",
                "origin": [0, 0, THICKNESS - DEPTH], "size": [1, 1, THICKNESS],
                "nx": 5, "ny": 5, "nz": 1}}}
        ],
        "contacts": [{"name": "c", "secondary": {"part": "high", "set": "zmin"},
                      "main": {"part": "low", "set": "zmax"}, "penalty_scale": penalty_scale}],
        "steps": [{"name": "s", "duration": 1.0, "output_interval": 1.0}]
    }}))
    .expect("the model parses");
    p.model
}

/// The total normal force of the plates' contact in one increment of length `dt`, the
/// penalty set from `dt0`.
fn force(model: &Model, dt0: f64, dt: f64) -> f64 {
    let asm = assemble(model).expect("assembles");
    let alpha = model.controls.time_step_scale;
    let mut contacts = Contacts::new(model, &asm, dt0, alpha, vec![Vec::new()]);
    let x = asm.reference.clone();
    let v = vec![[0.0; 3]; x.len()];
    contacts.apply(&x, &v, dt, dt);
    contacts.last_forces()[0]
}

/// Every node of a one-element-thick plate has m/A = rho t / 2 (a corner: rho h^2 t / 8 over
/// h^2 / 4), so ε is uniform and each direction presses the whole unit square by DEPTH.
fn expected(model: &Model, dt0: f64) -> f64 {
    let alpha = model.controls.time_step_scale;
    let b1 = model.controls.bulk_viscosity.linear;
    let s = model.contacts[0].penalty_scale;
    let m_over_a = RHO * THICKNESS / 2.0;
    let widest = dt0 * (b1 + (1.0 + b1 * b1).sqrt());
    let eps = (s * 0.5 * m_over_a / (dt0 * dt0))
        .min((1.0 - alpha * alpha) * m_over_a / (widest * widest));
    2.0 * eps * 1.0 * DEPTH
}

#[test]
fn a_capped_penalty_stays_put_while_the_bulk_viscosity_moves_the_increment() {
    let model = plates(1.0);
    let dt0 = 1e-5;
    let b1 = model.controls.bulk_viscosity.linear;
    assert!(b1 > 0.0, "the default bulk viscosity has a linear term");
    let widest = dt0 * (b1 + (1.0 + b1 * b1).sqrt());
    let at_rest = force(&model, dt0, dt0);
    let expanding = force(&model, dt0, widest);
    let want = expected(&model, dt0);
    // Rounding only: the clipped polygons and the three-point rule integrate a uniform gap
    // exactly.
    assert!(
        (at_rest / want - 1.0).abs() < 1e-12,
        "{at_rest} against {want}"
    );
    assert_eq!(at_rest, expanding, "the penalty moved with the increment");
}

#[test]
fn a_penalty_below_the_cap_is_the_users_scale() {
    // s = 0.25 (the default) gives 0.125 m/(A dt0^2) per direction, under the cap of
    // 0.19 / 1.128 = 0.168 at the default alpha = 0.9 and b1 = 0.06.
    let model = plates(0.25);
    let dt0 = 1e-5;
    let m_over_a = RHO * THICKNESS / 2.0;
    let want = 2.0 * 0.25 * 0.5 * m_over_a / (dt0 * dt0) * DEPTH;
    let got = force(&model, dt0, dt0);
    assert!((got / want - 1.0).abs() < 1e-12, "{got} against {want}");
    assert!((expected(&model, dt0) / want - 1.0).abs() < 1e-12);
}

#[test]
fn past_the_widest_increment_the_room_still_binds() {
    // A longer increment than the elements allow at rest only comes from stretched
    // elements; stability then wins over a steady penalty.
    let model = plates(1.0);
    let dt0 = 1e-5;
    let longer = 1.2 * dt0;
    let alpha = model.controls.time_step_scale;
    let m_over_a = RHO * THICKNESS / 2.0;
    let room = (1.0 - alpha * alpha) * m_over_a / (longer * longer);
    let got = force(&model, dt0, longer);
    assert!((got / (2.0 * room * DEPTH) - 1.0).abs() < 1e-12, "{got}");
}
