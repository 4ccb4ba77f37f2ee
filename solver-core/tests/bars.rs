//! The colliding bars of tests/oracle/explicit-bars, run in process against the 1-D theory
//! (Graff §2.1-2.3): contact for 2L/c, interface force rho c A v0 / 2, exchange of
//! velocities, no loss of energy; and the same bits on one and two threads.

use impact_core::{solve, Solution, SolveOptions};
use impact_protocol::{validate_model, Pointer, ProbeParams, SolveParams};

fn bars() -> SolveParams {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/oracle/explicit-bars/model.json"
    ))
    .expect("the bars model is in the repo");
    let params: SolveParams = serde_json::from_str(&text).expect("the bars model parses");
    validate_model(&params.model, &Pointer::root().at("model")).expect("the bars model is valid");
    params
}

fn solve_on(threads: usize) -> Solution {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a pool");
    pool.install(|| solve(&bars().model, &SolveOptions::default()))
        .expect("the bars solve")
}

fn far_end_velocity(s: &Solution, x: f64) -> f64 {
    let r = s
        .probe(&ProbeParams {
            job: String::new(),
            step: Some("Impact".into()),
            at: vec![[x, 0.0, 0.0]],
            nodes: vec![],
            time: None,
            fields: None,
            particles: vec![],
        })
        .expect("probe");
    r.nodes[0].velocity.expect("velocity")[0]
}

#[test]
fn bars_meet_the_one_dimensional_theory() {
    let s = solve_on(2);
    let sum = s.summary();
    let c = &sum.contacts[0];
    // rho = 0.01, E = 100: c = 100; L = 10: 2L/c = 0.2. Tolerances as the oracle case's reasons.
    let last = c.last_contact.expect("the bars touched");
    eprintln!(
        "summary: {}",
        serde_json::to_string_pretty(sum).unwrap_or_default()
    );
    assert!((last - 0.2).abs() <= 0.02 * 0.2, "last contact {last}");
    assert!(
        (c.peak_force - 0.05).abs() <= 0.04 * 0.05,
        "peak {}",
        c.peak_force
    );
    // Half m v0^2 = 0.5 * 0.1 * 0.01.
    let ke = sum.energy.kinetic / 5e-4;
    assert!((ke - 1.0).abs() <= 0.01, "ke ratio {ke}");
    assert!(
        (sum.energy.contact / 5e-4).abs() <= 1e-3,
        "contact energy {}",
        sum.energy.contact
    );
    assert!(
        sum.energy.balance_error.abs() < 1e-3,
        "balance {}",
        sum.energy.balance_error
    );
    let va = far_end_velocity(&s, 0.0);
    let vb = far_end_velocity(&s, 20.0);
    assert!(va.abs() <= 0.005, "striker's far end {va}");
    assert!((vb - 0.1).abs() <= 0.05 * 0.1, "struck bar's far end {vb}");
}

#[test]
fn one_and_two_threads_give_the_same_bits() {
    let mut a = solve_on(1).summary().clone();
    let mut b = solve_on(2).summary().clone();
    a.wall_seconds = 0.0;
    b.wall_seconds = 0.0;
    assert_eq!(
        serde_json::to_string(&a).expect("json"),
        serde_json::to_string(&b).expect("json")
    );
}
