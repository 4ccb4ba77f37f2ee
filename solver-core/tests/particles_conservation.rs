//! Newton's third law built into the assembly: in a cloud of a few hundred spheres under
//! all three laws (with viscous and dry terms), the momentum stays what it was and the
//! centre of mass moves on a straight line, both to 1e-12 relative (soft-spheres.md). And
//! the same model gives the same bits on one and on two threads.

use impact_core::particles::{self, ParticleSolution};
use impact_core::SolveOptions;
use impact_protocol::{validate_model, Model, Pointer};
use serde_json::json;

/// A deterministic scatter (a linear congruential sequence) in [0, 1).
struct Scatter(u64);

impl Scatter {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Three groups of spheres on a jittered lattice in a 0.6 m box, moving at up to 1 m/s.
fn cloud() -> Model {
    let mut s = Scatter(2024);
    let mut groups = vec![];
    let mut index = 0;
    for name in ["soft", "hertz", "sticky"] {
        let mut spheres = vec![];
        for _ in 0..128 {
            let (i, j, k) = (index % 8, (index / 8) % 8, index / 64);
            index += 1;
            let at = |n: usize, s: &mut Scatter| 0.075 * n as f64 + 0.02 * s.next();
            spheres.push(json!({
                "position": [at(i, &mut s), at(j, &mut s), at(k, &mut s)],
                "velocity": [2.0 * s.next() - 1.0, 2.0 * s.next() - 1.0, 2.0 * s.next() - 1.0],
                "radius": 0.02 + 0.012 * s.next()
            }));
        }
        groups.push(json!({ "name": name, "density": 1000.0, "spheres": spheres }));
    }
    let model = json!({
        "steps": [{ "name": "mix", "duration": 0.25, "output_interval": 0.05 }],
        "particles": {
            "groups": groups,
            "law": { "kind": "hertz_hunt_crossley", "c": 2e6, "n": 1.5, "b": 0.5, "d": 0.3 },
            "laws": [
                { "between": ["soft", "soft"], "law": { "kind": "hooke", "k": 3000.0 } },
                { "between": ["hertz", "hertz"], "law": { "kind": "hertz", "E": 1e7, "nu": 0.3 } },
                { "between": ["soft", "hertz"], "law": { "kind": "hooke", "k": 5000.0 } }
            ],
            "time_step": { "steps_per_contact": 30 },
            "listed_collisions": 5
        }
    });
    let model: Model = serde_json::from_value(model).expect("the cloud parses");
    validate_model(&model, &Pointer::root()).expect("the cloud is valid");
    model
}

fn solve_on(threads: usize, model: &Model) -> ParticleSolution {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a pool")
        .install(|| particles::run(model, &SolveOptions::default()))
        .expect("the cloud solves")
}

#[test]
fn momentum_and_centre_of_mass_hold_to_round_off() {
    let model = cloud();
    let s = solve_on(2, &model);
    let sum = &s.summary;
    assert!(
        sum.collisions_total > 300,
        "a busy cloud: {} collisions",
        sum.collisions_total
    );
    assert!(sum.collisions_truncated, "the list is capped at 5");
    assert_eq!(sum.collisions.len(), 5);
    // Dissipation happened, so the check covers the viscous and dry terms too.
    assert!(sum.energy.dissipated_viscous > 0.0 && sum.energy.dissipated_dry > 0.0);
    let frames = s.frames();
    let first = &frames[0];
    let mass: Vec<f64> = (0..sum.particles as u32)
        .map(|id| {
            let q = particles::Query {
                step: None,
                time: None,
                at: &[],
                ids: &[id],
                fields: None,
            };
            s.probe(&q, "particles").expect("probe").2[0].mass
        })
        .collect();
    let total: f64 = mass.iter().sum();
    // The scale of momentum: Σ m |v| at the start.
    let scale: f64 = mass
        .iter()
        .zip(&first.velocity)
        .map(|(m, v)| m * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt())
        .sum();
    let p0 = sum.initial_momentum;
    for f in frames {
        let mut p = [0.0; 3];
        let mut x = [0.0; 3];
        for ((m, v), r) in mass.iter().zip(&f.velocity).zip(&f.position) {
            for k in 0..3 {
                p[k] += m * v[k];
                x[k] += m * r[k];
            }
        }
        for k in 0..3 {
            assert!(
                (p[k] - p0[k]).abs() <= 1e-12 * scale,
                "t = {}: momentum {k} drifted by {:e} of {scale}",
                f.time,
                (p[k] - p0[k]) / scale
            );
            // The centre of mass on its straight line, against the cloud's 0.6 m size.
            let line = sum.initial_centre_of_mass[k] + f.time * p0[k] / total;
            assert!(
                (x[k] / total - line).abs() <= 1e-12 * 0.6,
                "t = {}: centre of mass {k} off its line by {:e} m",
                f.time,
                x[k] / total - line
            );
        }
    }
}

#[test]
fn same_bits_on_one_and_two_threads() {
    let model = cloud();
    let one = solve_on(1, &model);
    let two = solve_on(2, &model);
    assert_eq!(one.summary, two.summary);
    assert_eq!(one.frames().len(), two.frames().len());
    for (a, b) in one.frames().iter().zip(two.frames()) {
        assert_eq!(a.time.to_bits(), b.time.to_bits());
        for (pa, pb) in a
            .position
            .iter()
            .zip(&b.position)
            .chain(a.velocity.iter().zip(&b.velocity))
        {
            for k in 0..3 {
                assert_eq!(pa[k].to_bits(), pb[k].to_bits(), "t = {}", a.time);
            }
        }
    }
}
