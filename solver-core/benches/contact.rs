//! Contact benchmarks (docs/performance.md, "Contact"): the cost of one contact increment
//! per contact face at 1e3, 1e4 and 1e5 faces (two plates pressed together on
//! non-matching meshes, every face in contact), with the candidate lists reused and with
//! a search every increment, and the share of an increment contact
//! takes in a block impact of 50k hex8 (the same solve with and without the contact). The
//! pairs are integrated both ways (the default) and, where named `mid_plane`, once on the
//! plane between the faces.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use impact_core::assembly::assemble;
use impact_core::contact::Contacts;
use impact_core::{solve, SolveOptions};
use impact_protocol::{Model, PairIntegration, SolveParams};
use serde_json::json;
use std::hint::black_box;

mod models;
use models::{integrated, plates};

fn model(value: serde_json::Value) -> Model {
    let p: SolveParams = serde_json::from_value(value).expect("a bench model");
    p.model
}

/// One contact increment per face: `searched` makes every increment search anew (the
/// plates move rigidly by a whole plate's width, back and forth, so every face leaves its
/// search box and the pairs stay the same); otherwise the candidate lists are reused, as
/// between searches in a solve.
fn per_face_group(
    c: &mut Criterion,
    group_name: &str,
    searched: bool,
    integration: PairIntegration,
) {
    let mut group = c.benchmark_group(group_name);
    group.sample_size(10);
    for n in [22u32, 70, 223] {
        let m = integrated(plates(n), integration);
        let asm = assemble(&m).expect("assembles");
        let faces = asm.contacts[0].faces.len();
        // Reference positions (the overlap is in them); the penalty from a nominal dt.
        let dt = 1e-5;
        let mut contacts = Contacts::new(&m, &asm, dt, 0.9, vec![Vec::new()]);
        let x = asm.reference.clone();
        let moved: Vec<[f64; 3]> = x.iter().map(|p| [p[0] + 2.0, p[1], p[2]]).collect();
        let v = vec![[0.0; 3]; x.len()];
        let mut there = false;
        group.throughput(Throughput::Elements(faces as u64));
        group.bench_with_input(BenchmarkId::from_parameter(faces), &faces, |b, _| {
            b.iter(|| {
                there = searched && !there;
                let at = if there { &moved } else { &x };
                contacts.apply(black_box(at), &v, dt, 0.0);
            })
        });
    }
    group.finish();
}

fn per_face(c: &mut Criterion) {
    use PairIntegration::{BothWays, MidPlane};
    per_face_group(c, "contact_increment", false, BothWays);
    per_face_group(c, "contact_increment_searched", true, BothWays);
    per_face_group(c, "contact_increment_mid_plane", false, MidPlane);
}

/// A 25 x 25 x 40 striker into a 25 x 25 x 40 target (50 000 hex8), for 20 increments.
fn impact(kind: &str) -> Model {
    let contacts = match kind {
        "none" => json!([]),
        "faces" => json!([{"name": "c", "secondary": {"part": "striker", "set": "zmin"},
                           "main": {"part": "target", "set": "zmax"}}]),
        _ => json!([{"name": "c", "kind": "general", "parts": ["striker", "target"]}]),
    };
    model(json!({"model": {
        "materials": [{"name": "m", "E": 100.0, "nu": 0.3, "rho": 0.01}],
        "parts": [
            {"name": "target", "material": "m", "mesh": {"generate": {"kind": "block",
                "origin": [0, 0, 0], "size": [1, 1, 1.6], "nx": 25, "ny": 25, "nz": 40}}},
            {"name": "striker", "material": "m", "mesh": {"generate": {"kind": "block",
                "origin": [0, 0, 1.6], "size": [1, 1, 1.6], "nx": 25, "ny": 25, "nz": 40}}}
        ],
        "initial_velocities": [{"part": "striker", "velocity": [0, 0, -1.0]}],
        "contacts": contacts,
        "steps": [{"name": "s", "duration": 20.0 * 0.9 * 0.04 / 116.0 / 1.07, "output_interval": 1.0}]
    }}))
}

fn share(c: &mut Criterion) {
    let mut group = c.benchmark_group("impact_50k_hex8_20_increments");
    group.sample_size(10);
    for (kind, integration) in [
        ("none", PairIntegration::BothWays),
        ("faces", PairIntegration::BothWays),
        ("general", PairIntegration::BothWays),
        ("faces_mid_plane", PairIntegration::MidPlane),
        ("general_mid_plane", PairIntegration::MidPlane),
    ] {
        let m = integrated(impact(kind.trim_end_matches("_mid_plane")), integration);
        group.bench_function(kind, |b| {
            b.iter(|| solve(black_box(&m), &SolveOptions::default()).expect("solves"))
        });
    }
    group.finish();
}

criterion_group!(benches, per_face, share);
criterion_main!(benches);
