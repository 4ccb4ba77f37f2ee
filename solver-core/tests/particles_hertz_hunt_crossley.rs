//! The generalised Hertz-Hunt-Crossley impact of Borovin and Lapshin (2018): a steel ball
//! (m = 0.1 kg, c = 1.7135e10 N/m^1.5, n = 3/2, b = 0.075 s/m, d = 0.077) on a massive
//! plate at 1 to 5 m/s. The reference numbers are computed here from the paper's formulas:
//! the restitution from the root of eq. (18), the largest deformation from its closed form
//! (10), the contact duration from the quadratures (11) and (16) over the first integrals
//! (5) and (12). Also: pure Hertz keeps the energy, and d >= 1 stops the ball for good.

use impact_core::particles::{self, ParticleSolution};
use impact_core::SolveOptions;
use impact_protocol::{validate_model, Model, Pointer};
use serde_json::json;

const MASS: f64 = 0.1;
const RADIUS: f64 = 0.01452;
const C: f64 = 1.7135e10;
const N: f64 = 1.5;
const B: f64 = 0.075;
const D: f64 = 0.077;

/// The ball starts a small gap from the plate (the wall x = 0) moving at -speed along x.
fn ball_on_plate(
    speed: f64,
    law: serde_json::Value,
    steps_per_contact: f64,
    duration: f64,
) -> Model {
    let gap = 1e-6;
    let model = json!({
        "steps": [{ "name": "impact", "duration": duration, "output_interval": duration / 50.0 }],
        "particles": {
            "dimension": 1,
            "groups": [{
                "name": "ball", "mass": MASS, "radius": RADIUS,
                "spheres": [{ "position": [RADIUS + gap, 0, 0], "velocity": [-speed, 0, 0] }]
            }],
            "walls": [{ "name": "plate", "point": [0, 0, 0], "normal": [1, 0, 0], "law": law }],
            "time_step": { "steps_per_contact": steps_per_contact }
        }
    });
    let model: Model = serde_json::from_value(model).expect("the test model parses");
    validate_model(&model, &Pointer::root()).expect("the test model is valid");
    model
}

fn hhc(b: f64, d: f64) -> serde_json::Value {
    json!({ "kind": "hertz_hunt_crossley", "c": C, "n": N, "b": b, "d": d })
}

fn solve(model: &Model) -> ParticleSolution {
    particles::run(model, &SolveOptions::default()).expect("the solve runs")
}

// ---- The paper's formulas, evaluated independently of the solver ----

/// Bisection for a root of a function that changes sign on [lo, hi], to the last bit.
fn bisect(f: impl Fn(f64) -> f64, mut lo: f64, mut hi: f64) -> f64 {
    let f_lo = f(lo);
    assert!(f_lo * f(hi) <= 0.0, "no sign change on [{lo}, {hi}]");
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if (f(mid) > 0.0) == (f_lo > 0.0) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Gauss-Legendre nodes and weights on [-1, 1] (Newton on P_n from Chebyshev guesses).
fn gauss_legendre(n: usize) -> Vec<(f64, f64)> {
    (1..=n)
        .map(|i| {
            let mut x = (std::f64::consts::PI * (i as f64 - 0.25) / (n as f64 + 0.5)).cos();
            let mut dp = 0.0;
            for _ in 0..100 {
                let (mut p0, mut p1) = (1.0, x);
                for k in 2..=n {
                    let p2 = ((2 * k - 1) as f64 * x * p1 - (k - 1) as f64 * p0) / k as f64;
                    p0 = p1;
                    p1 = p2;
                }
                dp = n as f64 * (x * p1 - p0) / (x * x - 1.0);
                let step = p1 / dp;
                x -= step;
                if step.abs() < 1e-16 {
                    break;
                }
            }
            (x, 2.0 / ((1.0 - x * x) * dp * dp))
        })
        .collect()
}

/// ∫₀¹ g(s) ds by composite Gauss-Legendre (20 points on each of `pieces` intervals).
fn integrate(g: impl Fn(f64) -> f64, pieces: usize) -> f64 {
    let rule = gauss_legendre(20);
    let h = 1.0 / pieces as f64;
    let mut sum = 0.0;
    for p in 0..pieces {
        let a = p as f64 * h;
        for &(x, w) in &rule {
            sum += w * 0.5 * h * g(a + 0.5 * h * (x + 1.0));
        }
    }
    sum
}

struct Theory {
    restitution: f64,
    max_deformation: f64,
    duration: f64,
}

/// The elastic energy Π(x) = c x^(n+1) / (n+1).
fn potential(x: f64) -> f64 {
    C * x.powf(N + 1.0) / (N + 1.0)
}

fn theory(speed: f64, b: f64, d: f64) -> Theory {
    let v_minus = b * speed; // the paper's dimensionless speed v = b V
                             // (18): v (1 + k) + (1 - d) ln(1 - k v / (1 - d)) - (1 + d) ln(1 + v / (1 + d)) = 0,
                             // the root in (0, (1 - d) / v).
                             // ln_1p keeps the small-speed limit from cancelling away.
    let eq18 = |k: f64| {
        v_minus * (1.0 + k) + (1.0 - d) * (-k * v_minus / (1.0 - d)).ln_1p()
            - (1.0 + d) * (v_minus / (1.0 + d)).ln_1p()
    };
    let k_hi = (1.0 - d) / v_minus * (1.0 - 1e-15);
    let restitution = bisect(eq18, 0.0, k_hi);
    // (10) with f = c x^n: x_max = [(n+1) m (v - (1+d) ln(1 + v/(1+d))) / (c b²)]^(1/(n+1)).
    let max_deformation =
        ((N + 1.0) * MASS * (v_minus - (1.0 + d) * (v_minus / (1.0 + d)).ln_1p()) / (C * b * b))
            .powf(1.0 / (N + 1.0));
    // The first integrals: (5) in compression, (12) in restitution, solved for v(x).
    let phi = |v: f64| (1.0 + d) * (v / (1.0 + d)).ln_1p() - v;
    let psi = |v: f64| (1.0 - d) * (v / (1.0 - d)).ln_1p() - v;
    let v_compression = |x: f64| {
        let rhs = phi(v_minus) + b * b * potential(x) / MASS;
        bisect(|v| phi(v) - rhs, 0.0, v_minus)
    };
    let v_restitution = |x: f64| {
        let rhs = b * b * (potential(x) - potential(max_deformation)) / MASS;
        bisect(|v| psi(v) - rhs, -(1.0 - d) * (1.0 - 1e-15), 0.0)
    };
    // (11) and (16): t = ∫ dx / |V(x)| with V = v / b over [0, x_max], each phase. The
    // substitution x = x_max (1 - s²) removes the inverse square root at x_max.
    let phase = |v_of: &dyn Fn(f64) -> f64| {
        integrate(
            |s| {
                let x = max_deformation * (1.0 - s * s);
                2.0 * max_deformation * s * b / v_of(x).abs()
            },
            200,
        )
    };
    let duration = phase(&v_compression) + phase(&v_restitution);
    Theory {
        restitution,
        max_deformation,
        duration,
    }
}

/// Hertz's elastic impact: x_max from m V² / 2 = Π(x_max) and the duration
/// 2 I x_max / V with I = ∫₀¹ ds / √(1 - s^(5/2)) = 1.471 64 (Johnson, Contact Mechanics
/// §11.4), here with the stiffness c (1 ± d) of a dry-only phase.
fn hertz_max(speed: f64, c: f64) -> f64 {
    ((N + 1.0) * MASS * speed * speed / (2.0 * c)).powf(1.0 / (N + 1.0))
}

const HERTZ_I: f64 = 1.471_64;

#[test]
fn the_reference_formulas_meet_the_dry_only_closed_form() {
    // With b -> 0 the paper's formulas must tend to the dry-only impact, which has closed
    // forms: (1 + d) Π(x_max) = m V²/2 in compression, (1 - d) Π(x_max) = m V+²/2 in
    // restitution, so k = √((1 - d)/(1 + d)), and each phase is a quarter Hertz impact of
    // stiffness c (1 ± d). This checks the test's own root finding and quadrature.
    let (speed, d) = (2.0, 0.3);
    let t = theory(speed, 1e-6, d);
    let k = ((1.0 - d) / (1.0 + d)).sqrt();
    let x_max = hertz_max(speed, C * (1.0 + d));
    let v_out = k * speed;
    let duration = HERTZ_I * x_max / speed + HERTZ_I * x_max / v_out;
    // O(b V) = 2e-6 is the distance to the limit.
    assert!(
        (t.restitution / k - 1.0).abs() < 1e-5,
        "{} vs {k}",
        t.restitution
    );
    assert!((t.max_deformation / x_max - 1.0).abs() < 1e-5);
    assert!(
        (t.duration / duration - 1.0).abs() < 1e-5,
        "{} vs {duration}",
        t.duration
    );
}

#[test]
fn steel_ball_on_plate_matches_the_paper_from_one_to_five_metres_per_second() {
    // 2000 steps per (elastic Hertz) contact time. Tolerances: the viscous and dry terms
    // are taken at the end of each half kick, a lag of about dt/4 that leaves an impulse
    // error near d f(x_max) dt / 4 at the turning point: about 2e-5 of the deformation and
    // the duration at this step (first order: it halves as the step halves). The
    // restitution sees the lag in both phases, and it cancels to about 1e-7.
    for speed in [1.0, 2.0, 3.0, 4.0, 5.0] {
        let t = theory(speed, B, D);
        let s = solve(&ball_on_plate(speed, hhc(B, D), 2000.0, 3e-4));
        let sum = &s.summary;
        assert_eq!(sum.collisions_total, 1, "one impact at {speed} m/s");
        assert_eq!(
            sum.collisions_open, 0,
            "the ball leaves the plate at {speed} m/s"
        );
        let c = &sum.collisions[0];
        let k = c.restitution.expect("an approach speed");
        let duration = c.duration.expect("a finished collision");
        assert!(
            (c.approach_speed / speed - 1.0).abs() < 1e-12,
            "{}",
            c.approach_speed
        );
        assert!(
            (k / t.restitution - 1.0).abs() < 1e-5,
            "V = {speed}: k {k} vs {}",
            t.restitution
        );
        assert!(
            (c.max_overlap / t.max_deformation - 1.0).abs() < 1e-4,
            "V = {speed}: x_max {} vs {}",
            c.max_overlap,
            t.max_deformation
        );
        assert!(
            (duration / t.duration - 1.0).abs() < 2e-4,
            "V = {speed}: duration {duration} vs {}",
            t.duration
        );
        // The kinetic energy lost is the work of the two terms: (1 - k²) m V²/2 (eq. 2).
        let lost = 0.5 * MASS * speed * speed * (1.0 - k * k);
        let dissipated = c.dissipated_viscous + c.dissipated_dry;
        assert!(
            (dissipated / lost - 1.0).abs() < 1e-3,
            "{dissipated} vs {lost}"
        );
        assert!(
            sum.energy.balance_error.abs() < 1e-4,
            "{}",
            sum.energy.balance_error
        );
    }
}

#[test]
fn pure_hertz_gives_back_all_the_energy() {
    // b = d = 0: an elastic Hertz impact, restitution 1; x_max and the duration from
    // Hertz's closed forms. Velocity Verlet at 200 steps per contact keeps the energy to
    // (π/N)²/4 = 6e-5 within the contact and gives it back after.
    let speed = 3.0;
    let law = json!({ "kind": "hertz", "c": C, "n": N });
    let s = solve(&ball_on_plate(speed, law, 200.0, 3e-4));
    let c = &s.summary.collisions[0];
    let k = c.restitution.unwrap();
    assert!((k - 1.0).abs() < 1e-4, "restitution {k}");
    let x_max = hertz_max(speed, C);
    assert!(
        (c.max_overlap / x_max - 1.0).abs() < 1e-4,
        "{} vs {x_max}",
        c.max_overlap
    );
    let duration = 2.0 * HERTZ_I * x_max / speed;
    assert!((c.duration.unwrap() / duration - 1.0).abs() < 1e-3);
    assert_eq!(c.dissipated_viscous, 0.0);
    assert_eq!(c.dissipated_dry, 0.0);
    // Hertz from the material gives the paper's c: 4/3 E/(2(1 - ν²)) √R = 1.7138e10.
    let law = json!({ "kind": "hertz", "E": 2e11, "nu": 0.25 });
    let s = solve(&ball_on_plate(speed, law, 200.0, 3e-4));
    let c_material = 4.0 / 3.0 * 2e11 / (2.0 * (1.0 - 0.0625)) * RADIUS.sqrt();
    let x = hertz_max(speed, c_material);
    let got = s.summary.collisions[0].max_overlap;
    assert!((got / x - 1.0).abs() < 1e-4, "{got} vs {x}");
}

#[test]
fn dry_constant_of_one_or_more_stops_the_ball_for_good() {
    // d >= 1: the impact is perfectly inelastic; the ball rests at its deepest approach
    // x_max of eq. (10), with no pull from the plate. Exactly: the dry term's stop sets
    // the normal velocity to zero against an axis-aligned wall.
    for d in [1.0, 1.5] {
        let speed = 2.0;
        let t_max = {
            let v = B * speed;
            ((N + 1.0) * MASS * (v - (1.0 + d) * (v / (1.0 + d)).ln_1p()) / (C * B * B))
                .powf(1.0 / (N + 1.0))
        };
        let s = solve(&ball_on_plate(speed, hhc(B, d), 2000.0, 3e-4));
        let sum = &s.summary;
        assert_eq!(sum.collisions_total, 1);
        assert_eq!(sum.collisions_open, 1, "the ball stays in contact");
        let c = &sum.collisions[0];
        assert_eq!(c.restitution, Some(0.0), "d = {d}");
        assert_eq!(c.separation_speed, 0.0);
        assert!(
            (c.max_overlap / t_max - 1.0).abs() < 1e-4,
            "{} vs {t_max}",
            c.max_overlap
        );
        // At rest from the stop on: frames after the contact's first quarter millisecond
        // hold the same position and zero velocity.
        let frames = s.frames();
        let last = frames.last().unwrap();
        assert_eq!(last.velocity[0], [0.0, 0.0, 0.0], "d = {d}");
        let resting = RADIUS - last.position[0][0];
        assert!(
            (resting / t_max - 1.0).abs() < 1e-4,
            "rests at {resting}, x_max {t_max}"
        );
        for f in frames.iter().filter(|f| f.time > 1.5e-4) {
            assert_eq!(f.position[0], last.position[0], "moved at t = {}", f.time);
            assert_eq!(f.velocity[0][0], 0.0);
        }
        // Everything the ball had went into the dry and viscous terms and the overlap.
        assert_eq!(sum.energy.kinetic, 0.0);
        assert!(sum.energy.balance_error.abs() < 1e-4);
    }
}
