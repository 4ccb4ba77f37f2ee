//! Bad particle sections get a clear error naming the JSON pointer of the culprit; a good
//! one runs through `impact_core::solve` and answers `solve.probe` for its spheres.

use impact_core::{solve, SolveOptions};
use impact_protocol::{parse_params, validate_model, Pointer, ProbeParams, SolveParams};
use serde_json::{json, Value};

fn good() -> Value {
    json!({ "model": {
        "steps": [{ "name": "fall", "duration": 0.5, "output_interval": 0.05 }],
        "particles": {
            "dimension": 2,
            "gravity": [0, -9.81, 0],
            "groups": [{
                "name": "beads", "radius": 0.01, "density": 2500.0,
                "spheres": [
                    { "position": [0, 0.05, 0] },
                    { "position": [0.05, 0.1, 0], "velocity": [0.1, 0, 0] }
                ]
            }],
            "walls": [{ "name": "floor", "point": [0, 0, 0], "normal": [0, 1, 0] }],
            "law": { "kind": "hertz_hunt_crossley", "E": 1e8, "nu": 0.3, "b": 0.2, "d": 0.2 },
            "time_step": { "dt": 1e-5 }
        }
    }})
}

/// The pointer of the error a changed model gets, from parsing or from validation.
fn error_of(change: impl FnOnce(&mut Value)) -> (String, String) {
    let mut params = good();
    change(&mut params);
    let text = params.to_string();
    match parse_params::<SolveParams>(&text) {
        Err(e) => (e.pointer, e.reason),
        Ok(p) => match validate_model(&p.model, &Pointer::root().at("model")) {
            Err(e) => (e.pointer, e.reason),
            Ok(()) => panic!("the changed model was accepted: {text}"),
        },
    }
}

/// A change to a valid model's JSON, and the pointer its error must name.
type BadCase = (Box<dyn FnOnce(&mut Value)>, String);

#[test]
fn bad_sections_name_the_place() {
    let m = "/model/particles";
    let cases: Vec<BadCase> = vec![
        (
            Box::new(|p| {
                p["model"]["particles"]["groups"][0]["spheres"][1]["position"][2] = json!("up")
            }),
            format!("{m}/groups/0/spheres/1/position/2"),
        ),
        (
            Box::new(|p| {
                p["model"]["particles"]["groups"][0]["spheres"][0]["position"][2] = json!(1.0)
            }),
            format!("{m}/groups/0/spheres/0/position/2"),
        ),
        (
            Box::new(|p| p["model"]["particles"]["groups"][0]["radius"] = Value::Null),
            format!("{m}/groups/0/spheres/0/radius"),
        ),
        (
            Box::new(|p| p["model"]["particles"]["groups"][0]["mass"] = json!(1.0)),
            format!("{m}/groups/0"),
        ),
        (
            Box::new(|p| p["model"]["particles"]["law"]["d"] = json!(-0.1)),
            format!("{m}/law/d"),
        ),
        (
            Box::new(|p| p["model"]["particles"]["law"]["k"] = json!(10.0)),
            format!("{m}/law/k"),
        ),
        (
            Box::new(|p| p["model"]["particles"]["law"]["c"] = json!(1e6)),
            format!("{m}/law"),
        ),
        (
            Box::new(|p| p["model"]["particles"]["law"]["kind"] = json!("hooke")),
            format!("{m}/law/E"),
        ),
        (
            Box::new(|p| {
                p["model"]["particles"]["laws"] = json!([{ "between": ["beads", "ceiling"], "law": { "kind": "hooke", "k": 1.0 } }])
            }),
            format!("{m}/laws/0/between/1"),
        ),
        (
            Box::new(|p| p["model"]["particles"]["law"] = Value::Null),
            format!("{m}/laws"),
        ),
        (
            Box::new(|p| p["model"]["particles"]["walls"][0]["normal"] = json!([0, 0, 0])),
            format!("{m}/walls/0/normal"),
        ),
        (
            Box::new(|p| p["model"]["particles"]["walls"][0]["name"] = json!("beads")),
            format!("{m}/walls/0/name"),
        ),
        (
            Box::new(|p| {
                p["model"]["particles"]["time_step"] =
                    json!({ "dt": 1e-5, "steps_per_contact": 40 })
            }),
            format!("{m}/time_step"),
        ),
        (
            Box::new(|p| p["model"]["particles"]["time_step"] = json!({ "dt": 0.0 })),
            format!("{m}/time_step/dt"),
        ),
        (
            Box::new(|p| p["model"]["particles"]["dimension"] = json!(4)),
            format!("{m}/dimension"),
        ),
        (
            Box::new(|p| p["model"]["particles"]["gravity"] = json!([0, -9.81, 1.0])),
            format!("{m}/gravity/2"),
        ),
        (
            Box::new(|p| p["model"]["particles"]["groups"][0]["spheres"] = json!([])),
            format!("{m}/groups/0/spheres"),
        ),
        (
            Box::new(|p| p["model"]["particles"]["listed_collisions"] = json!(1_000_000)),
            format!("{m}/listed_collisions"),
        ),
        (
            Box::new(|p| {
                p["model"]["particles"] = Value::Null;
                p["model"].as_object_mut().unwrap().remove("particles");
            }),
            "/model/parts".to_string(),
        ),
    ];
    for (change, pointer) in cases {
        let (got, reason) = error_of(change);
        assert_eq!(got, pointer, "reason: {reason}");
        assert!(!reason.is_empty());
    }
}

#[test]
fn a_good_section_solves_and_answers_probes() {
    let params: SolveParams = parse_params(&good().to_string()).expect("parses");
    validate_model(&params.model, &Pointer::root().at("model")).expect("valid");
    let s = solve(&params.model, &SolveOptions::default()).expect("solves");
    let summary = s.summary();
    let particles = summary.particles.as_ref().expect("a particle summary");
    assert_eq!(particles.particles, 2);
    assert_eq!(summary.steps[0].name, "fall");
    // Two bead-wall interactions... one interaction per pair of groups and group-wall.
    assert_eq!(summary.contacts.len(), 2);
    assert_eq!(summary.contacts[1].name, "beads/floor");
    // The beads fell on the floor: they touched it, and gravity did work.
    assert!(summary.contacts[1].first_contact.is_some());
    assert!(summary.energy.external_work > 0.0);
    assert!(
        summary.energy.balance_error.abs() < 1e-2,
        "{}",
        summary.energy.balance_error
    );
    let probe = |params: Value| -> Result<_, _> {
        let p: ProbeParams = serde_json::from_value(params).expect("probe params parse");
        s.probe(&p)
    };
    // By id, and nearest a point of the start: the same sphere.
    let by_id = probe(json!({ "job": "", "particles": [1] })).expect("probe by id");
    let by_at = probe(json!({ "job": "", "at": [[0.05, 0.1, 0.0]] })).expect("probe at");
    assert_eq!(by_id.particles[0].id, 1);
    assert_eq!(by_at.particles[0].id, 1);
    assert_eq!(by_id.particles[0].position, by_at.particles[0].position);
    assert!(by_id.nodes.is_empty());
    // At a frame's time (the increment divides the output interval), falling freely:
    // y = 0.05 - g t²/2, velocity Verlet being exact under constant gravity; between
    // frames, linear between them.
    let at = |t: f64| -> f64 {
        let r = probe(json!({ "job": "", "step": "fall", "time": t, "particles": [0] }))
            .expect("probe");
        assert_eq!(r.time, t);
        r.particles[0].position.unwrap()[1]
    };
    let y = at(0.05);
    assert!((y - (0.05 - 0.5 * 9.81 * 0.05 * 0.05)).abs() < 1e-12, "{y}");
    assert!((at(0.025) - 0.5 * (0.05 + y)).abs() < 1e-15);
    // Bad probes name the place.
    let e = probe(json!({ "job": "", "particles": [0, 7] })).unwrap_err();
    assert!(e.to_string().contains("/particles/1"), "{e}");
    let e = probe(json!({ "job": "", "nodes": [0] })).unwrap_err();
    assert!(e.to_string().contains("/nodes"), "{e}");
    let e = probe(json!({ "job": "", "particles": [0], "time": 3.0 })).unwrap_err();
    assert!(e.to_string().contains("/time"), "{e}");
    assert!(probe(json!({ "job": "", "step": "rise", "particles": [0] })).is_err());
}

/// A cloud of spheres on a jittered lattice, solved for a few increments: enough spheres
/// that the probe's grid has many cells, and ties where points sit midway between centres.
fn cloud() -> SolveParams {
    let mut spheres = Vec::new();
    for k in 0..6 {
        for j in 0..6 {
            for i in 0..6 {
                // A fixed jitter, at most a tenth of the spacing, off the lattice's symmetry.
                let jitter = |a: i32| f64::from((a * 7919 + i * 31 + j * 17 + k * 13) % 11) * 1e-3;
                spheres.push(json!({ "position": [
                    0.1 * f64::from(i) + jitter(1),
                    0.1 * f64::from(j) + jitter(2),
                    0.1 * f64::from(k) + jitter(3)
                ]}));
            }
        }
    }
    // Two spheres at the same centre distance from (2, 2, 2): a tie the lowest id wins.
    spheres.push(json!({ "position": [2.0, 2.0, 1.5] }));
    spheres.push(json!({ "position": [2.0, 2.0, 2.5] }));
    let model = json!({ "model": {
        "steps": [{ "name": "drift", "duration": 1e-4, "output_interval": 1e-4 }],
        "particles": {
            "dimension": 3,
            "gravity": [0, 0, 0],
            "groups": [{ "name": "cloud", "radius": 0.01, "density": 2500.0, "spheres": spheres }],
            "law": { "kind": "hertz", "E": 1e8, "nu": 0.3 },
            "time_step": { "dt": 1e-5 }
        }
    }});
    parse_params(&model.to_string()).expect("the cloud parses")
}

#[test]
fn a_probe_by_point_finds_the_sphere_a_scan_of_every_centre_finds() {
    let params = cloud();
    validate_model(&params.model, &Pointer::root().at("model")).expect("valid");
    let s = solve(&params.model, &SolveOptions::default()).expect("solves");
    let centres = s
        .particles()
        .expect("a particle result")
        .identity()
        .reference
        .clone();
    let mut points: Vec<[f64; 3]> = (0..200)
        .map(|i| {
            let g = [0.618_033_988_75, 0.754_877_666_25, 0.569_840_290_99];
            g.map(|a| -0.2 + (f64::from(i) * a).fract())
        })
        .collect();
    points.extend([
        [2.0, 2.0, 2.0],
        [-5.0, 0.25, 0.25],
        [0.25, 0.25, 9.0],
        [0.05, 0.05, 0.05],
    ]);
    let q = ProbeParams {
        job: String::new(),
        step: None,
        at: points.clone(),
        nodes: vec![],
        particles: vec![],
        time: None,
        fields: None,
    };
    // Before the first probe by point the cost counts the grid's build; after, only the
    // searches.
    let built_after = impact_core::nearest::SEARCH_VISITS * points.len();
    assert!(s.probe_cost(&q) > built_after + centres.len());
    let answer = s.probe(&q).expect("probe");
    assert_eq!(s.probe_cost(&q), built_after);
    assert_eq!(answer.particles.len(), points.len());
    for (p, got) in points.iter().zip(&answer.particles) {
        // The definition: the first of the least squared distances over every centre.
        let (id, distance) = impact_core::nearest::scan(&centres, *p);
        assert_eq!((got.id, got.distance), (id, distance), "at {p:?}");
    }
    // The tie at (2, 2, 2) goes to the lower id.
    assert_eq!(answer.particles[200].id, 216);
}
