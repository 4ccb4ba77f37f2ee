//! Subcycling (`controls.subcycling_levels`) on graded meshes, where it has levels to use:
//! the colliding bars of tests/oracle/explicit-bars graded towards their interface,
//! against the 1-D theory (Graff §2.1-2.3) and against the same bars advanced one
//! increment at a time; a graded cantilever set ringing by gravity at the default
//! time-step scale, which must keep its energy balance over several periods (an unstable
//! partition grows without bound); and the same bits on any thread count.

use impact_core::{solve, Solution, SolveOptions};
use impact_protocol::{validate_model, Model, Pointer, SolveParams, SolveSummary};
use serde_json::json;

/// The oracle's bars, each of 200 elements graded 4 to 1 towards the interface (the
/// struck bar's min side, the striker's max side).
fn graded_bars(levels: u32) -> Model {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/oracle/explicit-bars/model.json"
    ))
    .expect("the bars model is in the repo");
    let mut params: serde_json::Value = serde_json::from_str(&text).expect("the bars model");
    for part in params["model"]["parts"]
        .as_array_mut()
        .expect("parts")
        .iter_mut()
    {
        let ratio = if part["name"] == "striker" { 0.25 } else { 4.0 };
        let g = &mut part["mesh"]["generate"];
        g["grading"] = json!([ratio, 1, 1]);
    }
    params["model"]["controls"] = json!({"subcycling_levels": levels});
    checked(params)
}

/// A cantilever 1 long, 0.1 square, fixed at x = 0, its elements graded 8 to 1 towards the
/// free end, under gravity from rest: it rings about its static deflection.
fn cantilever(levels: u32, end: f64) -> Model {
    checked(json!({"model": {
        "materials": [{"name": "m", "kind": "elastic", "E": 1e4, "nu": 0.3, "rho": 1.0}],
        "parts": [{"name": "beam", "material": "m", "mesh": {"generate": {
            "kind": "block", "size": [1.0, 0.1, 0.1], "nx": 40, "ny": 2, "nz": 2,
            "grading": [0.125, 1, 1]}}}],
        "boundary_conditions": [{"part": "beam", "set": "xmin", "fixed": ["x", "y", "z"]}],
        "gravity": [0.0, 0.0, -1.0],
        "steps": [{"name": "Ring", "duration": end, "output_interval": end / 20.0}],
        "controls": {"subcycling_levels": levels}
    }}))
}

fn checked(params: serde_json::Value) -> Model {
    let params: SolveParams = serde_json::from_value(params).expect("the model parses");
    validate_model(&params.model, &Pointer::root().at("model")).expect("the model is valid");
    params.model
}

fn solve_on(model: &Model, threads: usize) -> Solution {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a pool");
    pool.install(|| solve(model, &SolveOptions::default()))
        .expect("the solve")
}

/// Element updates over elements times increments: 1 without subcycling.
fn update_fraction(s: &SolveSummary) -> f64 {
    let increments: u64 = s.steps.iter().map(|st| st.increments).sum();
    s.element_updates as f64 / (s.elements as f64 * increments as f64)
}

#[test]
fn graded_bars_with_subcycling_meet_the_theory_and_the_bars_advanced_increment_by_increment() {
    let sub = solve_on(&graded_bars(3), 2).summary().clone();
    let one = solve_on(&graded_bars(0), 2).summary().clone();
    // Elements 4 to 1 in length: levels 0 and 1, and 2 at the far ends where rounding
    // allows. The interface's nodes stay at level 0 for the contact.
    let (fraction, plain) = (update_fraction(&sub), update_fraction(&one));
    assert!(
        fraction < 0.8,
        "subcycling updates {fraction} of the elements"
    );
    assert_eq!(plain, 1.0);
    // The oracle case's theory and tolerances (tests/oracle/explicit-bars-subcycling).
    let c = &sub.contacts[0];
    let last = c.last_contact.expect("the bars touched");
    assert!((last - 0.2).abs() <= 0.02 * 0.2, "last contact {last}");
    assert!(
        (c.peak_force - 0.05).abs() <= 0.04 * 0.05,
        "peak {}",
        c.peak_force
    );
    let ke = sub.energy.kinetic / 5e-4;
    assert!((ke - 1.0).abs() <= 0.02, "ke ratio {ke}");
    assert!(
        sub.energy.balance_error.abs() < 1e-3,
        "balance {}",
        sub.energy.balance_error
    );
    // Against the same semi-discrete bars advanced one increment at a time: subcycling
    // changes the time integration, not the model, so the two agree to far better than
    // either agrees with the theory (the release time to a tenth of an element transit, the
    // force and the energy to 1%).
    let agree = |a: f64, b: f64, rel: f64, what: &str| {
        assert!(
            (a - b).abs() <= rel * b.abs(),
            "{what}: subcycled {a}, one increment at a time {b}"
        )
    };
    let one_c = &one.contacts[0];
    agree(
        last,
        one_c.last_contact.expect("touched"),
        0.005,
        "last contact",
    );
    agree(c.peak_force, one_c.peak_force, 0.01, "peak force");
    agree(
        sub.energy.kinetic,
        one.energy.kinetic,
        0.01,
        "kinetic energy",
    );
}

#[test]
fn a_graded_cantilever_rings_stably_under_subcycling() {
    // First bending mode: f = 1.875^2 / (2 pi L^2) sqrt(E I / (rho A)) = 1.62, a period
    // of 0.62: run about five.
    let s = solve_on(&cantilever(3, 3.0), 2);
    let sum = s.summary();
    // Elements 8 to 1 in length along the beam, but 0.05 across it: levels 0 to 2.
    let fraction = update_fraction(sum);
    assert!(
        fraction < 0.7,
        "subcycling updates {fraction} of the elements"
    );
    // Gravity's work goes into motion and strain; an unstable partition would pump energy
    // in without bound and blow the balance (the solve fails past 1).
    assert!(sum.energy.external_work > 0.0);
    assert!(
        sum.energy.balance_error.abs() < 1e-3,
        "balance {} after {} increments",
        sum.energy.balance_error,
        sum.steps[0].increments
    );
    assert!(sum.energy.kinetic <= sum.energy.external_work);
}

#[test]
fn a_wall_holding_every_node_leaves_nothing_to_subcycle() {
    // A rigid wall holds every node of its part, so every node stays at level 0: the solve
    // must be the plain one, bit for bit (no element's critical increment divided).
    let striking = |levels: u32| {
        checked(json!({"model": {
            "materials": [{"name": "m", "kind": "elastic", "E": 1e4, "nu": 0.3, "rho": 1.0}],
            "parts": [{"name": "beam", "material": "m", "mesh": {"generate": {
                "kind": "block", "origin": [0.001, 0.0, 0.0], "size": [1.0, 0.1, 0.1],
                "nx": 40, "ny": 2, "nz": 2, "grading": [8, 1, 1]}}}],
            "initial_velocities": [{"part": "beam", "velocity": [-1.0, 0.0, 0.0]}],
            "walls": [{"name": "wall", "point": [0.0, 0.0, 0.0], "normal": [1.0, 0.0, 0.0]}],
            "steps": [{"name": "Strike", "duration": 0.02, "output_interval": 0.005}],
            "controls": {"subcycling_levels": levels}
        }}))
    };
    let plain = solve_on(&striking(0), 2).summary().clone();
    let asked = solve_on(&striking(3), 2).summary().clone();
    assert!(
        plain.contacts[0].peak_force > 0.0,
        "the beam reaches the wall"
    );
    assert_eq!(update_fraction(&asked), 1.0);
    let strip = |mut s: SolveSummary| {
        s.wall_seconds = 0.0;
        serde_json::to_string(&s).expect("json")
    };
    assert_eq!(strip(plain), strip(asked));
}

#[test]
fn subcycling_gives_the_same_bits_on_any_thread_count() {
    let strip = |mut s: SolveSummary| {
        s.wall_seconds = 0.0;
        serde_json::to_string(&s).expect("json")
    };
    for model in [graded_bars(3), cantilever(3, 0.2)] {
        let one = strip(solve_on(&model, 1).summary().clone());
        for threads in [2, 3] {
            assert_eq!(one, strip(solve_on(&model, threads).summary().clone()));
        }
    }
}
