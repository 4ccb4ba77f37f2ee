//! Segment-to-segment contact against theory, in process: the patch test on non-matching
//! meshes, blocks sliding to a stop on a rigid wall and on a plate (constant and decaying
//! friction), self contact, a free body under general contact, the same bits on 1, 2 and
//! 4 threads, and the errors of a refused initial penetration and of the face cap. The
//! models are the oracle cases' (tests/oracle/explicit-*); the expected numbers are
//! computed here from the theory the cases cite. The contact cases run with the pairs
//! integrated both ways (the models' default) and on the plane between the faces.

use impact_core::{generate, solve, Solution, SolveError, SolveOptions};
use impact_protocol::{
    validate_model, BlockSpec, GenerateSpec, InitialPenetration, Model, PairIntegration, Pointer,
    ProbeParams, SolveParams,
};

fn case(name: &str) -> Model {
    let path = format!(
        "{}/../tests/oracle/{name}/model.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).expect("the case's model is in the repo");
    let params: SolveParams = serde_json::from_str(&text).expect("the model parses");
    validate_model(&params.model, &Pointer::root().at("model")).expect("the model is valid");
    params.model
}

/// The oracle case `name`, every contact's pairs integrated so.
fn case_integrated(name: &str, integration: PairIntegration) -> Model {
    let mut model = case(name);
    assert!(!model.contacts.is_empty(), "{name} has a contact");
    for c in &mut model.contacts {
        c.integration = integration;
    }
    model
}

fn solve_on(threads: usize, model: &Model) -> Result<Solution, SolveError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a pool")
        .install(|| solve(model, &SolveOptions::default()))
}

fn probe(s: &Solution, at: [f64; 3], time: Option<f64>) -> ([f64; 3], [f64; 3]) {
    let r = s
        .probe(&ProbeParams {
            job: String::new(),
            step: None,
            at: vec![at],
            nodes: vec![],
            time,
            fields: None,
            particles: vec![],
        })
        .expect("probe");
    let n = &r.nodes[0];
    (
        n.velocity.expect("velocity"),
        n.displacement.expect("displacement"),
    )
}

fn block_spec(model: &Model, part: usize) -> BlockSpec {
    match &model.parts[part].mesh.generate {
        Some(GenerateSpec::Block(b)) => b.clone(),
        _ => panic!("a generated block"),
    }
}

#[test]
fn patch_test_keeps_sigma_zz_uniform_across_non_matching_meshes() {
    for integration in PairIntegration::ALL {
        patch_test(integration);
    }
}

fn patch_test(integration: PairIntegration) {
    let model = case_integrated("explicit-contact-patch", integration);
    let s = solve_on(2, &model).expect("the patch test solves");
    let m = &model.materials[0];
    let (e, nu, rho) = (m.youngs_modulus, m.nu, m.rho);
    // One-dimensional strain under the rollers: the P-wave modulus and speed.
    let p_modulus = e * (1.0 - nu) / ((1.0 + nu) * (1.0 - 2.0 * nu));
    let c = (p_modulus / rho).sqrt();
    let v0 = -model.initial_velocities[0].velocity[2];
    let t = 1.0 / c;
    let frame = s
        .frames()
        .iter()
        .min_by(|a, b| (a.time - t).abs().total_cmp(&(b.time - t).abs()))
        .expect("frames");
    // sigma_zz of each element of the layer on either side of the interface, from the
    // nodes' displacements (the layer's strain is uniform in the element).
    let layer = |part: usize, offset: usize, top: bool| -> Vec<f64> {
        let b = block_spec(&model, part);
        let mesh = generate(&GenerateSpec::Block(b.clone()));
        let h = b.size[2] / b.nz as f64;
        let k = if top { b.nz as usize - 1 } else { 0 };
        let per_layer = (b.nx * b.ny) as usize;
        mesh.elements[k * per_layer..(k + 1) * per_layer]
            .iter()
            .map(|conn| {
                let uz = |l: usize| frame.displacement[offset + conn[l] as usize][2];
                let low = (0..4).map(uz).sum::<f64>() / 4.0;
                let high = (4..8).map(uz).sum::<f64>() / 4.0;
                p_modulus * (high - low) / h
            })
            .collect()
    };
    let base_nodes = generate(&GenerateSpec::Block(block_spec(&model, 0)))
        .nodes
        .len();
    let theory = -rho * c * v0 / 2.0;
    for (name, sigma) in [
        ("coarse", layer(0, 0, true)),
        ("fine", layer(1, base_nodes, false)),
    ] {
        let mean = sigma.iter().sum::<f64>() / sigma.len() as f64;
        let worst = sigma
            .iter()
            .map(|s| (s - mean).abs() / mean.abs())
            .fold(0.0, f64::max);
        // The bound: uniform to 0.1%.
        assert!(
            worst <= 1e-3,
            "{integration:?}, {name}: sigma_zz spread {worst:e} ({sigma:?})"
        );
        // Behind the front: rho c v0 / 2, up to the ringing of the discrete front.
        assert!(
            (mean / theory - 1.0).abs() <= 0.05,
            "{integration:?}, {name}: sigma_zz {mean} against {theory}"
        );
    }
}

/// Stop time and distance of a block decelerating at g mu(v), mu = mu_d + (mu_s - mu_d)
/// exp(-c v): the time in closed form, the distance by Simpson's rule.
fn stop(g: f64, v0: f64, mu_s: f64, mu_d: f64, decay: f64) -> (f64, f64) {
    let mu = |v: f64| mu_d + (mu_s - mu_d) * (-decay * v).exp();
    let time = if decay == 0.0 || mu_s == mu_d {
        v0 / (g * mu_s)
    } else {
        ((mu_d * (decay * v0).exp() + mu_s - mu_d) / mu_s).ln() / (g * decay * mu_d)
    };
    let n = 20_000;
    let h = v0 / n as f64;
    let mut sum = 0.0;
    for i in 0..=n {
        let v = i as f64 * h;
        let w = if i == 0 || i == n {
            1.0
        } else if i % 2 == 1 {
            4.0
        } else {
            2.0
        };
        sum += w * v / (g * mu(v));
    }
    (time, sum * h / 3.0)
}

fn sliding(name: &str) {
    sliding_model(name, case(name));
}

/// A block sliding on a plate, its contact integrated each way.
fn sliding_on_a_plate(name: &str) {
    for integration in PairIntegration::ALL {
        let model = case_integrated(name, integration);
        sliding_model(&format!("{name}, {integration:?}"), model);
    }
}

fn sliding_model(name: &str, model: Model) {
    let law = model
        .walls
        .first()
        .and_then(|w| w.friction)
        .or_else(|| model.contacts.first().and_then(|c| c.friction))
        .expect("a friction law");
    let g = -model.gravity.expect("gravity")[2];
    let v0 = model.initial_velocities[0].velocity[0];
    let (mu_s, mu_d) = (
        law.static_coefficient,
        law.dynamic_coefficient.unwrap_or(law.static_coefficient),
    );
    let (time, distance) = stop(g, v0, mu_s, mu_d, law.decay);
    let s = solve_on(2, &model).expect("the slide solves");
    let b = block_spec(&model, 0);
    let top = [
        b.origin[0] + b.size[0] / 2.0,
        b.origin[1] + b.size[1] / 2.0,
        b.origin[2] + b.size[2],
    ];
    // The bound on the stopping distance and time: 0.2%.
    let (_, u) = probe(&s, top, None);
    assert!(
        (u[0] / distance - 1.0).abs() <= 2e-3,
        "{name}: slid {} against {distance}",
        u[0]
    );
    // Still moving 0.2% before the analytic stop, at rest 0.2% after it.
    let (before, _) = probe(&s, top, Some(0.998 * time));
    let (after, _) = probe(&s, top, Some(1.002 * time));
    assert!(before[0] > 0.0, "{name}: stopped before 0.998 T");
    assert!(
        after[0].abs() < 1e-3 * v0,
        "{name}: still sliding at 1.002 T: {}",
        after[0]
    );
    // Friction took the sliding kinetic energy (gravity's work on the settling is ~1e-7).
    let e = &s.summary().energy;
    assert!(
        (e.friction / e.initial - 1.0).abs() <= 2e-3,
        "{name}: friction {} of {}",
        e.friction,
        e.initial
    );
    assert!(e.balance_error.abs() <= 1e-3, "{name}: {e:?}");
}

#[test]
fn block_slides_to_a_stop_on_a_rigid_wall_constant_friction() {
    sliding("explicit-sliding-wall-constant");
}

#[test]
fn block_slides_to_a_stop_on_a_rigid_wall_decaying_friction() {
    sliding("explicit-sliding-wall-decay");
}

#[test]
fn block_slides_to_a_stop_on_a_plate_constant_friction() {
    sliding_on_a_plate("explicit-sliding-plate-constant");
}

#[test]
fn block_slides_to_a_stop_on_a_plate_decaying_friction() {
    sliding_on_a_plate("explicit-sliding-plate-decay");
}

#[test]
fn self_contact_bars_meet_the_one_dimensional_theory() {
    for integration in PairIntegration::ALL {
        let model = case_integrated("explicit-self-contact-bars", integration);
        let s = solve_on(2, &model).expect("solves");
        let c = &s.summary().contacts[0];
        // 2L/c = 0.2 (+1.5% for the springs' give), rho c A v0 / 2 = 0.05 (4% for ringing).
        let last = c.last_contact.expect("the bars touched");
        assert!(
            (0.2..=0.2 * 1.015).contains(&last),
            "{integration:?}: last contact {last}"
        );
        assert!(
            (c.peak_force / 0.05 - 1.0).abs() <= 0.04,
            "{integration:?}: {}",
            c.peak_force
        );
        // Only the ends touched: the penetration is the interface spring's, far below the
        // bars' side (which would be 0.5 deep).
        assert!(c.max_penetration < 1e-3, "{}", c.max_penetration);
    }
}

#[test]
fn general_contact_leaves_a_free_body_untouched() {
    for integration in PairIntegration::ALL {
        let with = case_integrated("explicit-general-free-body", integration);
        let mut without = with.clone();
        without.contacts.clear();
        let a = solve_on(2, &with).expect("solves");
        let b = solve_on(2, &without).expect("solves");
        let c = &a.summary().contacts[0];
        assert_eq!(c.peak_force, 0.0, "{integration:?}");
        assert_eq!(c.first_contact, None, "{integration:?}");
        assert_eq!(a.summary().energy, b.summary().energy);
        let (fa, fb) = (a.frames().last().expect("f"), b.frames().last().expect("f"));
        assert_eq!(fa.displacement, fb.displacement);
        assert_eq!(fa.velocity, fb.velocity);
    }
}

#[test]
fn one_two_and_four_threads_give_the_same_bits() {
    // Friction, damping and sliding over non-matching faces; then segments across meshes.
    let mut models = Vec::new();
    for integration in PairIntegration::ALL {
        let mut plate = case_integrated("explicit-sliding-plate-decay", integration);
        plate.steps[0].duration = 0.05;
        models.push(plate);
        models.push(case_integrated("explicit-contact-patch", integration));
    }
    for model in models {
        let runs: Vec<(String, Vec<[f64; 3]>)> = [1, 2, 4]
            .iter()
            .map(|&t| {
                let s = solve_on(t, &model).expect("solves");
                let mut sum = s.summary().clone();
                sum.wall_seconds = 0.0;
                let last = s.frames().last().expect("frames").velocity.clone();
                (serde_json::to_string(&sum).expect("json"), last)
            })
            .collect();
        assert_eq!(runs[0], runs[1]);
        assert_eq!(runs[0], runs[2]);
    }
}

/// Two unit blocks, the upper one sunk 0.01 into the lower one.
fn overlapping(choice: InitialPenetration) -> Model {
    let mut model = case("explicit-contact-patch");
    model.initial_velocities.clear();
    model.boundary_conditions.clear();
    // Edit the case's specs in place, so fields this test does not care about keep theirs.
    for (part, origin, n) in [(0, 0.0, 3), (1, 0.99, 5)] {
        let mut b = block_spec(&model, part);
        b.origin = [0.0, 0.0, origin];
        b.size = [1.0, 1.0, 1.0];
        (b.nx, b.ny, b.nz) = (n, n, n);
        model.parts[part].mesh.generate = Some(GenerateSpec::Block(b));
    }
    model.contacts[0].initial_penetration = choice;
    model.steps[0].duration = 0.002;
    model
}

#[test]
fn a_refused_initial_penetration_names_node_face_and_depth() {
    let model = overlapping(InitialPenetration::Refuse);
    match solve_on(1, &model) {
        Err(SolveError::Invalid(e)) => {
            assert_eq!(e.pointer, "/contacts/0");
            assert!(e.reason.contains("node "), "{}", e.reason);
            assert!(e.reason.contains("inside face ["), "{}", e.reason);
            let depth: f64 = e
                .reason
                .split("lies ")
                .nth(1)
                .and_then(|t| t.split(' ').next())
                .and_then(|t| t.parse().ok())
                .expect("the depth in the text");
            assert!((depth - 0.01).abs() < 1e-12, "{}", e.reason);
        }
        other => panic!("expected the refusal, got {other:?}"),
    }
}

#[test]
fn an_adjusted_initial_penetration_is_moved_out_strain_free() {
    let model = overlapping(InitialPenetration::Adjust);
    let s = solve_on(1, &model).expect("solves");
    let c = &s.summary().contacts[0];
    // The striker's 36 bottom nodes sit 0.01 inside the base: each is moved onto it.
    assert_eq!(c.adjusted_nodes.len(), 36, "{:?}", c.adjusted_nodes);
    for a in &c.adjusted_nodes {
        assert!((a.depth - 0.01).abs() < 1e-12, "{a:?}");
    }
    // Moved before t = 0 by changing the reference: nothing pushes, nothing strains.
    // (Rounding may leave a node an ulp inside: a force of eps A 1e-16 at most.)
    assert!(c.peak_force < 1e-9, "{}", c.peak_force);
    assert!(
        s.summary().energy.internal < 1e-20,
        "{:?}",
        s.summary().energy
    );
}

#[test]
fn the_face_cap_gives_a_clear_error() {
    let mut model = case("explicit-general-free-body");
    model.controls.max_contact_faces = 100;
    match solve_on(1, &model) {
        Err(SolveError::Invalid(e)) => {
            assert_eq!(e.pointer, "/contacts/0");
            assert!(e.reason.contains("max_contact_faces = 100"), "{}", e.reason);
            // 2 (10 x 10) + 4 (10 x 1) exterior faces of the plate.
            assert!(e.reason.contains("240"), "{}", e.reason);
        }
        other => panic!("expected the cap's error, got {other:?}"),
    }
}
