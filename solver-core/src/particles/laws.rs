//! The contact laws of spheres: the elastic force f(x) = c x^n and its energy, the
//! generalised Hertz-Hunt-Crossley normal force f(x) (1 + b x' + d sgn x') taken over one
//! half kick with its set-valued dry term, and the elastic contact time of a pair.
//!
//! Hooke (c = k, n = 1) and Hertz (b = d = 0) are special cases of the one law.

use impact_protocol::particles::{CheckedLaw, Elastic, LawKind};

/// A law between two kinds of bodies; `c` is final, or a factor of √R* (Hertz from E, ν).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Law {
    pub kind: LawKind,
    coefficient: f64,
    per_root_radius: bool,
    pub n: f64,
    pub b: f64,
    pub d: f64,
}

impl Law {
    pub fn new(checked: &CheckedLaw) -> Self {
        let (coefficient, per_root_radius, n) = match checked.elastic {
            Elastic::Power { c, n } => (c, false, n),
            Elastic::Material { youngs_modulus, nu } => {
                // Both bodies of the one material: 1/E* = 2 (1 - ν²) / E; c = 4/3 E* √R*.
                let e_star = youngs_modulus / (2.0 * (1.0 - nu * nu));
                (4.0 / 3.0 * e_star, true, 1.5)
            }
        };
        Law {
            kind: checked.kind,
            coefficient,
            per_root_radius,
            n,
            b: checked.b,
            d: checked.d,
        }
    }

    /// The stiffness constant c of a pair whose effective radius is `r_star`
    /// (R1 R2 / (R1 + R2) for two spheres, the sphere's radius against a wall).
    pub fn stiffness(&self, r_star: f64) -> f64 {
        if self.per_root_radius {
            self.coefficient * r_star.sqrt()
        } else {
            self.coefficient
        }
    }

    pub fn dissipative(&self) -> bool {
        self.b > 0.0 || self.d > 0.0
    }
}

/// f(x) = c x^n for an overlap x > 0.
#[inline]
pub fn elastic_force(c: f64, n: f64, x: f64) -> f64 {
    // The two exponents that matter most get exact arithmetic instead of powf.
    if n == 1.0 {
        c * x
    } else if n == 1.5 {
        c * x * x.sqrt()
    } else {
        c * x.powf(n)
    }
}

/// The energy an overlap x holds: c x^(n+1) / (n+1).
#[inline]
pub fn elastic_energy(c: f64, n: f64, x: f64) -> f64 {
    if x <= 0.0 {
        0.0
    } else {
        elastic_force(c, n, x) * x / (n + 1.0)
    }
}

/// The outcome of one half kick of a contact.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Kick {
    /// The total normal force, never negative (no pull).
    pub force: f64,
    /// The approach rate after the kick, as this contact alone would leave it.
    pub rate: f64,
    /// The drop of the approach rate the kick applies (rate before minus `rate`).
    pub drop: f64,
    /// The parts of `force - f` from the viscous and from the dry term.
    pub viscous: f64,
    pub dry: f64,
}

/// One half kick of a contact: find the approach rate w after it and the force P with
/// w = w0 - h P, P in f (1 + b w + d Sgn w), P >= 0, where Sgn 0 is the whole [-1, 1].
///
/// `w0` is the approach rate before the kick (positive while the bodies close in) and
/// `h` the change of that rate per unit force over the half kick, dt/2 (1/m1 + 1/m2).
/// The viscous and dry terms are taken at the end of the kick (backward Euler), which
/// makes the set-valued dry term exact: a contact whose rate the kick can bring to zero
/// stops there (P = w0/h lies in the set), and with d >= 1 it then stays at rest with
/// P = 0, neither pushed nor pulled, because 0 lies in f [1 - d, 1 + d].
pub fn half_kick(f: f64, b: f64, d: f64, w0: f64, h: f64) -> Kick {
    let a = h * f;
    if b == 0.0 && d == 0.0 {
        return Kick {
            force: f,
            rate: w0 - a,
            drop: a,
            viscous: 0.0,
            dry: 0.0,
        };
    }
    if w0 > a * (1.0 + d) {
        // Still closing in after the kick.
        let w = (w0 - a * (1.0 + d)) / (1.0 + a * b);
        return Kick {
            force: f * (1.0 + b * w + d),
            rate: w,
            drop: w0 - w,
            viscous: f * b * w,
            dry: f * d,
        };
    }
    if w0 >= a * (1.0 - d).max(0.0) {
        // The kick stops the approach: the force is the one element of the set that
        // brings the rate to zero exactly.
        let force = w0 / h;
        return Kick {
            force,
            rate: 0.0,
            drop: w0,
            viscous: 0.0,
            dry: force - f,
        };
    }
    // Separating.
    if d < 1.0 {
        let w = (w0 - a * (1.0 - d)) / (1.0 + a * b);
        let force = f * (1.0 - d + b * w);
        if force >= 0.0 {
            return Kick {
                force,
                rate: w,
                drop: w0 - w,
                viscous: f * b * w,
                dry: -f * d,
            };
        }
    }
    // The law would pull; the contact lets go instead (P = 0). The terms that would have
    // pulled share the cancelled -f in proportion to their sizes.
    let viscous_share = b * (-w0).max(0.0);
    let total = viscous_share + d;
    let (viscous, dry) = if total > 0.0 {
        (-f * viscous_share / total, -f * d / total)
    } else {
        (0.0, -f)
    };
    Kick {
        force: 0.0,
        rate: w0,
        drop: 0.0,
        viscous,
        dry,
    }
}

/// ∫₀¹ ds / √(1 - s^(n+1)) = √π Γ(1 + 1/(n+1)) / Γ(1/2 + 1/(n+1)): the elastic contact
/// time is 2 x_max / v times this (π/2 for Hooke, 1.4716 for Hertz).
pub fn duration_factor(n: f64) -> f64 {
    let q = 1.0 / (n + 1.0);
    (std::f64::consts::PI.sqrt().ln() + ln_gamma(1.0 + q) - ln_gamma(0.5 + q)).exp()
}

/// The largest overlap of an elastic impact at approach speed v with reduced mass mu:
/// c x^(n+1) / (n+1) = mu v² / 2.
pub fn elastic_max_overlap(c: f64, n: f64, mu: f64, v: f64) -> f64 {
    ((n + 1.0) * mu * v * v / (2.0 * c)).powf(1.0 / (n + 1.0))
}

/// The elastic contact time of a pair at approach speed v: π √(mu/k) for Hooke, whatever
/// v; for n > 1 it grows without bound as v falls (None at v = 0).
pub fn elastic_contact_time(c: f64, n: f64, mu: f64, v: f64) -> Option<f64> {
    if n == 1.0 {
        return Some(std::f64::consts::PI * (mu / c).sqrt());
    }
    if v <= 0.0 {
        return None;
    }
    let x = elastic_max_overlap(c, n, mu, v);
    Some(2.0 * x / v * duration_factor(n))
}

/// ln Γ(x) for x > 0 (Lanczos, g = 7, nine terms; relative error near 1e-15).
fn ln_gamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection keeps the series in its range.
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut sum = C[0];
    for (i, c) in C.iter().enumerate().skip(1) {
        sum += c / (x + i as f64);
    }
    let t = x + G + 0.5;
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + sum.ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duration_factors_of_hooke_and_hertz() {
        // π/2 for the harmonic half period; 1.47164 for Hertz (Johnson, Contact
        // Mechanics §11.4: T = 2.9432 x_max / v).
        assert!((duration_factor(1.0) - std::f64::consts::FRAC_PI_2).abs() < 1e-13);
        assert!((duration_factor(1.5) - 1.471_6).abs() < 1e-4);
    }

    #[test]
    fn hooke_contact_time_is_half_a_period() {
        let t = elastic_contact_time(1000.0, 1.0, 2.0 / 3.0, 1.5).unwrap();
        let expected = std::f64::consts::PI * (2.0f64 / 3.0 / 1000.0).sqrt();
        assert!((t - expected).abs() < 1e-15 * expected.abs().max(1.0));
        // The power form at n = 1 agrees with the closed one.
        let x = elastic_max_overlap(1000.0, 1.0, 2.0 / 3.0, 1.5);
        let t_power = 2.0 * x / 1.5 * duration_factor(1.0);
        assert!((t_power - expected).abs() < 1e-12 * expected);
    }

    #[test]
    fn dry_stop_is_exact_and_rests_without_pull() {
        let (f, h) = (100.0, 1e-3);
        // A slow approach the kick can stop: the rate becomes exactly zero.
        let k = half_kick(f, 0.5, 1.2, 0.05, h);
        assert_eq!(k.rate, 0.0);
        assert_eq!(k.drop, 0.05);
        assert!(k.force > 0.0 && k.force <= f * 2.2);
        // At rest with d >= 1 nothing acts.
        let rest = half_kick(f, 0.5, 1.2, 0.0, h);
        assert_eq!(rest.force, 0.0);
        assert_eq!(rest.rate, 0.0);
        // With d < 1 a body at rest is pushed out with f (1 - d) at least.
        let push = half_kick(f, 0.0, 0.3, 0.0, h);
        assert!(push.rate < 0.0);
        assert!((push.force - 0.7 * f).abs() < 1e-12 * f);
    }

    #[test]
    fn kicks_satisfy_their_equation() {
        let (f, h) = (250.0, 2e-4);
        for &(b, d) in &[
            (0.0, 0.0),
            (0.3, 0.0),
            (0.0, 0.4),
            (0.2, 0.1),
            (5.0, 0.9),
            (1.0, 2.0),
        ] {
            for &w0 in &[-3.0, -0.4, -0.01, 0.0, 0.01, 0.05, 0.2, 3.0] {
                let k = half_kick(f, b, d, w0, h);
                assert!(k.force >= 0.0, "pull at b={b} d={d} w0={w0}");
                assert!(
                    (k.rate - (w0 - h * k.force)).abs() < 1e-12,
                    "b={b} d={d} w0={w0}"
                );
                let s = k.rate.signum();
                if k.rate != 0.0 && k.force > 0.0 {
                    let law = f * (1.0 + b * k.rate + d * s);
                    assert!((k.force - law).abs() < 1e-9 * f, "b={b} d={d} w0={w0}");
                }
                if k.rate == 0.0 {
                    assert!(
                        k.force >= f * (1.0 - d).max(0.0) - 1e-9 && k.force <= f * (1.0 + d) + 1e-9
                    );
                }
            }
        }
    }
}
