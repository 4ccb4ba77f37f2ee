//! The soft-sphere cases of soft-spheres.md: the head-on collision (1 kg at 1 m/s meets
//! 2 kg at -0.5 m/s, D = 0.2 m, k = 1000 N/m) against the hard-sphere velocities and the
//! half period of the reduced-mass oscillator, and the glancing collision of equal spheres
//! against the scattering angle of the truncated harmonic potential (the hard-sphere 60°
//! as k grows) with the two leaving at a right angle.

use impact_core::particles::{self, ParticleSolution};
use impact_core::SolveOptions;
use impact_protocol::{validate_model, Model, Pointer};
use serde_json::json;
use std::f64::consts::PI;

fn run(model: serde_json::Value) -> ParticleSolution {
    let model: Model = serde_json::from_value(model).expect("the test model parses");
    validate_model(&model, &Pointer::root()).expect("the test model is valid");
    particles::run(&model, &SolveOptions::default()).expect("the solve runs")
}

fn head_on(steps_per_contact: f64) -> ParticleSolution {
    run(json!({
        "steps": [{ "name": "run", "duration": 1.2, "output_interval": 0.1 }],
        "particles": {
            "dimension": 1,
            "groups": [
                { "name": "a", "mass": 1.0, "radius": 0.1, "spheres": [{ "position": [0, 0, 0], "velocity": [1, 0, 0] }] },
                { "name": "b", "mass": 2.0, "radius": 0.1, "spheres": [{ "position": [1, 0, 0], "velocity": [-0.5, 0, 0] }] }
            ],
            "law": { "kind": "hooke", "k": 1000.0 },
            "time_step": { "steps_per_contact": steps_per_contact }
        }
    }))
}

fn final_velocities(s: &ParticleSolution) -> ([f64; 3], [f64; 3]) {
    let last = s.frames().last().unwrap();
    (last.velocity[0], last.velocity[1])
}

#[test]
fn head_on_at_forty_steps_per_contact_meets_the_hard_spheres() {
    // Hard spheres: v1' = v1 - 2 m2/(m1+m2) u = -1, v2' = v2 + 2 m1/(m1+m2) u = 0.5 with
    // u = 1.5; a linear spring reverses the relative velocity exactly, so the soft-sphere
    // answer is the hard-sphere one and the difference is the integrator's. Velocity
    // Verlet's energy stays within the band (π/N)²/4 = 1.5e-3 at N = 40 while in contact
    // and the kink at first touch leaves at most that behind: tolerance 1.5e-3 of the
    // speeds.
    let s = head_on(40.0);
    let (v1, v2) = final_velocities(&s);
    assert!((v1[0] + 1.0).abs() < 1.5e-3, "v1' = {}", v1[0]);
    assert!((v2[0] - 0.5).abs() < 1.5e-3 * 0.5, "v2' = {}", v2[0]);
    // The contact lasts half a period: τ = π √(μ/k), μ = 2/3 kg, whatever the speed; it
    // begins when the gap of 0.8 m closes at 1.5 m/s.
    let tau = PI * (2.0f64 / 3.0 / 1000.0).sqrt();
    // Touch and release are interpolated linearly in the overlap between increments: the
    // release, where the overlap curves, is off by a fraction of (π/N)² of τ (6e-3).
    let c = &s.summary.collisions[0];
    assert!((c.first_contact - 0.8 / 1.5).abs() < 1e-12);
    assert!(
        (c.duration.unwrap() / tau - 1.0).abs() < 6e-3,
        "{}",
        c.duration.unwrap()
    );
    assert!((c.restitution.unwrap() - 1.0).abs() < 1.5e-3);
    // Momentum (zero here) stays zero to round-off, whatever the step.
    let p = s.summary.momentum[0];
    assert!(p.abs() < 1e-12 * 2.0, "momentum {p}");
}

#[test]
fn head_on_converges_to_the_hard_spheres_as_the_step_shrinks() {
    // The error falls as the steps per contact grow (not smoothly: the kink at first touch
    // lands at a different place within an increment each time), from 1 to 160.
    let mut errors = Vec::new();
    for n in [1.0, 2.0, 5.0, 10.0, 20.0, 40.0, 80.0, 160.0] {
        let s = head_on(n);
        let (v1, v2) = final_velocities(&s);
        let err = (v1[0] + 1.0).abs().max((v2[0] - 0.5).abs() * 2.0);
        println!("N = {n}: v1' = {}, v2' = {}, error {err:e}", v1[0], v2[0]);
        errors.push(err);
        // Whatever happens, momentum is conserved.
        assert!(s.summary.momentum[0].abs() < 1e-12 * 2.0);
    }
    // 160 steps per contact is within 1e-3 (the energy band (π/160)²/4 = 1e-4), and ten
    // times better than 10 steps.
    assert!(errors[7] < 1e-3, "{errors:?}");
    assert!(errors[7] < errors[3] / 10.0, "{errors:?}");
}

/// ∫₀¹ g(s) ds by composite Gauss-Legendre, 8 points on each of `pieces` intervals.
fn integrate(g: impl Fn(f64) -> f64, pieces: usize) -> f64 {
    // Nodes and weights of the 8-point rule (Abramowitz and Stegun, table 25.4).
    const X: [f64; 4] = [
        0.183_434_642_495_650,
        0.525_532_409_916_329,
        0.796_666_477_413_627,
        0.960_289_856_497_536,
    ];
    const W: [f64; 4] = [
        0.362_683_783_378_362,
        0.313_706_645_877_887,
        0.222_381_034_453_374,
        0.101_228_536_290_376,
    ];
    let h = 1.0 / pieces as f64;
    let mut sum = 0.0;
    for p in 0..pieces {
        let mid = (p as f64 + 0.5) * h;
        for k in 0..4 {
            sum += W[k] * 0.5 * h * (g(mid - 0.5 * h * X[k]) + g(mid + 0.5 * h * X[k]));
        }
    }
    sum
}

/// The centre-of-mass deflection χ of two spheres in the potential k (D - r)²/2 (r < D)
/// at relative speed u, impact parameter b, reduced mass μ (Landau and Lifshitz,
/// Mechanics §18): χ = π - 2 ∫ b dr / (r² √(1 - b²/r² - V(r)/E)) from the closest
/// approach r_min to ∞, E = μ u²/2. Outside D the integral is arcsin(b/D); inside,
/// r = r_min + (D - r_min) t² removes the inverse square root at r_min.
fn scattering_angle(k: f64, d: f64, mu: f64, u: f64, b: f64) -> f64 {
    let e = 0.5 * mu * u * u;
    let g = |r: f64| 1.0 - b * b / (r * r) - 0.5 * k * (d - r) * (d - r) / e;
    let (mut lo, mut hi) = (1e-12 * d, d);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if g(mid) > 0.0 {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    let r_min = 0.5 * (lo + hi);
    let inside = integrate(
        |t| {
            let r = r_min + (d - r_min) * t * t;
            2.0 * (d - r_min) * t * b / (r * r * g(r).max(0.0).sqrt())
        },
        400,
    );
    PI - 2.0 * ((b / d).asin() + inside)
}

fn glancing(k: f64) -> ParticleSolution {
    run(json!({
        "steps": [{ "name": "run", "duration": 2.0, "output_interval": 0.5 }],
        "particles": {
            "dimension": 2,
            "groups": [{
                "name": "balls", "mass": 1.0, "radius": 0.1,
                "spheres": [
                    { "position": [-1, 0.1, 0], "velocity": [1, 0, 0] },
                    { "position": [0, 0, 0] }
                ]
            }],
            "law": { "kind": "hooke", "k": k },
            "time_step": { "steps_per_contact": 40 }
        }
    }))
}

#[test]
fn the_scattering_integral_gives_the_hard_spheres_in_the_stiff_limit() {
    // A check of the test's own quadrature: as k grows, χ tends to π - 2 arcsin(b/D) =
    // 120° (the overlap, and so the error, shrinks like 1/√k).
    let chi = scattering_angle(1e12, 0.2, 0.5, 1.0, 0.1);
    assert!((chi - 2.0 * PI / 3.0).abs() < 1e-4, "{}", chi.to_degrees());
}

#[test]
fn glancing_spheres_leave_at_a_right_angle_and_deflect_as_the_potential_says() {
    // Equal masses, target at rest: in the lab the incomer turns by χ/2 and the target
    // leaves at (π - χ)/2 on the other side, so the two leave at a right angle whatever
    // k is (energy and momentum); χ from the scattering integral, 120° as k grows.
    // Tolerances: at 40 steps per contact velocity Verlet keeps the energy to the band
    // (π/40)²/4 = 1.5e-3, which bounds the angle's error to about 1e-3 rad.
    for k in [10.0, 100.0, 1_000.0, 10_000.0, 100_000.0] {
        let s = glancing(k);
        let last = s.frames().last().unwrap();
        let (v1, v2) = (last.velocity[0], last.velocity[1]);
        let cos = (v1[0] * v2[0] + v1[1] * v2[1])
            / ((v1[0] * v1[0] + v1[1] * v1[1]).sqrt() * (v2[0] * v2[0] + v2[1] * v2[1]).sqrt());
        let chi = scattering_angle(k, 0.2, 0.5, 1.0, 0.1);
        let turned = v1[1].atan2(v1[0]);
        println!(
            "k = {k}: angle between {:.5}°, incomer turned {:.5}° vs {:.5}° (hard spheres 60°)",
            cos.acos().to_degrees(),
            turned.to_degrees(),
            (chi / 2.0).to_degrees()
        );
        assert!(cos.abs() < 1.5e-3, "k = {k}: cos = {cos}");
        assert!((turned - chi / 2.0).abs() < 1.5e-3, "k = {k}");
        assert_eq!(s.summary.collisions_total, 1);
    }
    let stiff = glancing(100_000.0);
    let v1 = stiff.frames().last().unwrap().velocity[0];
    // Within 1% of the overlap's share (u √(μ/k) / D = 1.1%) of the hard-sphere 60°.
    assert!((v1[1].atan2(v1[0]).to_degrees() - 60.0).abs() < 0.6);
}
