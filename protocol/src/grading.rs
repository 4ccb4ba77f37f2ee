//! Where a generator puts its nodes along a line: geometric progressions (a block's
//! `grading`) and ramps that start at a given size at a point and grow by at most a ratio
//! (the sphere's grading towards its pole), and the layout of the graded cubed sphere
//! that follows from a `SphereSpec`. Validation counts elements from it before anything
//! is built; the core places nodes from it.

use crate::mesh::{BlockSpec, SphereSpec};
use std::f64::consts::FRAC_PI_4;

/// The inner cube's half-width as a fraction of the radius. At one half the shell is as
/// thick at a face centre as the cube is wide, and its corners keep 0.13 R of shell.
pub const CUBE_FRACTION: f64 = 0.5;

/// Past this many intervals on one line a spec is refused before any node is placed.
pub const MAX_INTERVALS: u64 = 1 << 24;

/// Node positions 0..=length of `n` intervals in a geometric progression whose last
/// interval is `ratio` times the first. Equal intervals (ratio 1) are placed as
/// `length * i / n`, so the far end is exact.
pub fn progression(length: f64, n: u32, ratio: f64) -> Vec<f64> {
    let n = n.max(1) as usize;
    if n == 1 || ratio == 1.0 {
        return (0..=n).map(|i| length * i as f64 / n as f64).collect();
    }
    let q = ratio.powf(1.0 / (n - 1) as f64);
    let first = length * (q - 1.0) / (q.powi(n as i32) - 1.0);
    let mut x = Vec::with_capacity(n + 1);
    let mut at = 0.0;
    let mut h = first;
    x.push(0.0);
    for _ in 1..n {
        at += h;
        h *= q;
        x.push(at);
    }
    x.push(length);
    x
}

/// How many intervals a ramp from `first` growing by `growth` (capped at `cap`) needs to
/// cover `length`, saturating at `MAX_INTERVALS + 1`.
pub fn ramp_count(length: f64, first: f64, growth: f64, cap: f64) -> u64 {
    let cap = cap.max(first);
    let (mut sum, mut h, mut n) = (0.0, first, 0u64);
    while growth > 1.0 && sum < length && h < cap && n <= MAX_INTERVALS {
        sum += h;
        n += 1;
        h *= growth;
    }
    if sum < length {
        // The rest at a constant size: the cap, or the first size when nothing grows.
        let size = if growth > 1.0 { cap } else { first };
        let rest = ((length - sum) / size).ceil();
        n = n.saturating_add(if rest > MAX_INTERVALS as f64 {
            MAX_INTERVALS + 1
        } else {
            rest as u64
        });
    }
    n.clamp(1, MAX_INTERVALS + 1)
}

/// Node positions 0..=length of a ramp: the first interval `first` (exactly, unless the
/// length is too short for it), each next one at most `growth` times the one before,
/// none above `cap`. The fewest intervals that reach `length`; the growth then drops
/// just enough that they end on it.
pub fn ramp(length: f64, first: f64, growth: f64, cap: f64) -> Vec<f64> {
    let cap = cap.max(first);
    let n = ramp_count(length, first, growth, cap) as usize;
    let sum = |r: f64| -> f64 {
        let (mut s, mut h) = (0.0, first);
        for _ in 0..n {
            s += h.min(cap);
            h *= r;
        }
        s
    };
    let mut x = Vec::with_capacity(n + 1);
    x.push(0.0);
    if sum(1.0) > length {
        // Too short even for equal intervals of `first`: share it equally.
        for i in 1..n {
            x.push(length * i as f64 / n as f64);
        }
    } else {
        let (mut lo, mut hi) = (1.0, growth.max(1.0));
        for _ in 0..100 {
            let mid = 0.5 * (lo + hi);
            if sum(mid) > length {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        let (mut at, mut h) = (0.0, first);
        for _ in 1..n {
            at += h.min(cap);
            h *= lo;
            x.push(at);
        }
    }
    x.push(length);
    x
}

/// Node positions lo..=hi, finest at `at` (within [lo, hi]) and ramping away from it on
/// both sides. A side shorter than `first` is dropped and the fine spot moves to its end,
/// so no interval is much shorter than `first`.
pub fn graded(lo: f64, hi: f64, at: f64, first: f64, growth: f64, cap: f64) -> Vec<f64> {
    let at = if at - lo < first {
        lo
    } else if hi - at < first {
        hi
    } else {
        at
    };
    let mut x: Vec<f64> = Vec::new();
    if at > lo {
        x.extend(
            ramp(at - lo, first, growth, cap)
                .iter()
                .rev()
                .map(|d| at - d),
        );
        x[0] = lo;
    }
    if at < hi {
        let right = ramp(hi - at, first, growth, cap);
        let skip = usize::from(!x.is_empty());
        x.extend(right.iter().skip(skip).map(|d| at + d));
        if let Some(last) = x.last_mut() {
            *last = hi;
        }
    }
    x
}

/// The interval count of `graded` without placing nodes.
pub fn graded_count(lo: f64, hi: f64, at: f64, first: f64, growth: f64, cap: f64) -> u64 {
    let at = if at - lo < first {
        lo
    } else if hi - at < first {
        hi
    } else {
        at
    };
    let left = if at > lo {
        ramp_count(at - lo, first, growth, cap)
    } else {
        0
    };
    let right = if at < hi {
        ramp_count(hi - at, first, growth, cap)
    } else {
        0
    };
    left.saturating_add(right)
}

/// Equal intervals lo..=hi, both ends exact.
pub fn uniform(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    let mut x: Vec<f64> = (0..=n)
        .map(|i| lo + (hi - lo) * i as f64 / n as f64)
        .collect();
    x[n] = hi;
    x
}

/// The block's node coordinates along each axis.
pub fn block_lines(b: &BlockSpec) -> [Vec<f64>; 3] {
    let n = [b.nx, b.ny, b.nz];
    std::array::from_fn(|a| {
        progression(b.size[a], n[a], b.grading[a])
            .into_iter()
            .map(|x| b.origin[a] + x)
            .collect()
    })
}

/// The index structure and the 1-D distributions of a graded cubed sphere.
///
/// Along each axis, a node index stands for a cube-face angle in [-pi/4, pi/4] (equiangular:
/// the direction (tan a_x, tan a_y, tan a_z) with one component at +-1 on the shell). Each
/// axis has two distributions with the same count: `graded`, fine at the pole's angle,
/// and `even`. The radial index runs from the cube's face (t = 0) to the sphere (t = 1),
/// again `graded` (fine at the surface) and `even`. The core blends the two per node, so
/// the grading holds near the pole and fades to even spacing away from it and in the cube.
#[derive(Clone, Debug, PartialEq)]
pub struct SphereLayout {
    pub graded: [Vec<f64>; 3],
    pub even: [Vec<f64>; 3],
    pub radial_graded: Vec<f64>,
    pub radial_even: Vec<f64>,
    /// The unit pole direction.
    pub pole: [f64; 3],
    /// The shell sectors: (axis, side +1 or -1) of the cube face each stands on.
    pub sectors: Vec<(usize, f64)>,
}

/// Counts of a sphere: intervals per axis, radial layers, and elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SphereCounts {
    pub axis: [u64; 3],
    pub layers: u64,
    pub elements: u64,
}

struct SpherePlan {
    range: [(f64, f64); 3],
    pole: [f64; 3],
    dominant: usize,
    /// The pole's angle per axis (the dominant one at its cube face).
    angle: [f64; 3],
    /// The length of the shell's radial line under the pole, for a unit radius.
    depth: f64,
    metric: [f64; 3],
    sectors: Vec<(usize, f64)>,
}

fn plan(s: &SphereSpec) -> SpherePlan {
    let norm = s.pole.iter().map(|c| c * c).sum::<f64>().sqrt();
    let pole = s.pole.map(|c| c / norm);
    let mut range = [(-FRAC_PI_4, FRAC_PI_4); 3];
    for h in &s.keep {
        let (axis, side) = h.axis_and_side();
        range[axis] = if side > 0.0 {
            (0.0, FRAC_PI_4)
        } else {
            (-FRAC_PI_4, 0.0)
        };
    }
    let mut dominant = 0;
    for a in 1..3 {
        if pole[a].abs() > pole[dominant].abs() {
            dominant = a;
        }
    }
    let face = pole[dominant].abs();
    let angle: [f64; 3] = std::array::from_fn(|a| {
        if a == dominant {
            FRAC_PI_4.copysign(pole[a])
        } else {
            (pole[a] / face).atan().clamp(range[a].0, range[a].1)
        }
    });
    // Arc length on the unit sphere per unit face angle at the pole, per axis: the face
    // direction is e = (tan a_x, tan a_y, tan a_z), and d(e/|e|)/da_i has the length
    // sec^2 a_i sqrt(1 - tan^2 a_i / |e|^2) / |e| (1 at a face centre).
    let e2: f64 = angle.iter().map(|a| a.tan().powi(2)).sum();
    let metric = angle.map(|a| {
        let t = a.tan();
        (1.0 + t * t) * (1.0 - t * t / e2).sqrt() / e2.sqrt()
    });
    let cube = angle.map(|a| CUBE_FRACTION * a / FRAC_PI_4);
    let depth = (0..3)
        .map(|a| (pole[a] - cube[a]).powi(2))
        .sum::<f64>()
        .sqrt();
    let mut sectors = Vec::new();
    for (axis, r) in range.iter().enumerate() {
        for side in [-1.0, 1.0] {
            let end = if side > 0.0 { r.1 } else { r.0 };
            if end.abs() == FRAC_PI_4 {
                sectors.push((axis, side));
            }
        }
    }
    SpherePlan {
        range,
        pole,
        dominant,
        angle,
        depth,
        metric,
        sectors,
    }
}

impl SphereLayout {
    /// Interval counts and the element count, without placing nodes.
    pub fn counts(s: &SphereSpec) -> SphereCounts {
        let p = plan(s);
        let first = s.smallest_size / s.radius;
        let cap = s.largest_size.unwrap_or(f64::INFINITY) / s.radius;
        let mut axis = [0u64; 3];
        let mut density: f64 = 0.0;
        for a in (0..3).filter(|&a| a != p.dominant) {
            let (lo, hi) = p.range[a];
            let (first, cap) = (first / p.metric[a], cap / p.metric[a]);
            axis[a] = graded_count(lo, hi, p.angle[a], first, s.growth, cap);
            density = density.max(axis[a] as f64 / (hi - lo));
        }
        let (lo, hi) = p.range[p.dominant];
        axis[p.dominant] = ((density * (hi - lo) - 1e-9).ceil() as u64).max(1);
        let layers = ramp_count(1.0, first / p.depth, s.growth, cap / p.depth);
        let cube = axis[0].saturating_mul(axis[1]).saturating_mul(axis[2]);
        let shell = p.sectors.iter().fold(0u64, |sum, &(a, _)| {
            let (b, c) = ((a + 1) % 3, (a + 2) % 3);
            sum.saturating_add(axis[b].saturating_mul(axis[c]).saturating_mul(layers))
        });
        SphereCounts {
            axis,
            layers,
            elements: cube.saturating_add(shell),
        }
    }

    /// The distributions of a validated spec whose counts are within bounds.
    pub fn of(s: &SphereSpec) -> SphereLayout {
        let p = plan(s);
        let counts = SphereLayout::counts(s);
        let first = s.smallest_size / s.radius;
        let cap = s.largest_size.unwrap_or(f64::INFINITY) / s.radius;
        let graded: [Vec<f64>; 3] = std::array::from_fn(|a| {
            let (lo, hi) = p.range[a];
            if a == p.dominant {
                uniform(lo, hi, counts.axis[a] as usize)
            } else {
                let m = p.metric[a];
                graded(lo, hi, p.angle[a], first / m, s.growth, cap / m)
            }
        });
        let even: [Vec<f64>; 3] = std::array::from_fn(|a| {
            let (lo, hi) = p.range[a];
            uniform(lo, hi, graded[a].len() - 1)
        });
        let from_surface = ramp(1.0, first / p.depth, s.growth, cap / p.depth);
        let radial_graded: Vec<f64> = from_surface.iter().rev().map(|d| 1.0 - d).collect();
        let radial_even = uniform(0.0, 1.0, radial_graded.len() - 1);
        SphereLayout {
            graded,
            even,
            radial_graded,
            radial_even,
            pole: p.pole,
            sectors: p.sectors,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_progression_ends_on_its_length_with_the_asked_ratio() {
        let x = progression(2.0, 5, 4.0);
        assert_eq!(x.len(), 6);
        assert_eq!(x[5], 2.0);
        let first = x[1] - x[0];
        let last = x[5] - x[4];
        assert!((last / first - 4.0).abs() < 1e-12, "{}", last / first);
        assert_eq!(progression(3.0, 3, 1.0), vec![0.0, 1.0, 2.0, 3.0]);
    }

    #[test]
    fn a_ramp_starts_at_its_first_size_and_never_grows_faster_than_asked() {
        let x = ramp(10.0, 0.1, 1.2, f64::INFINITY);
        assert_eq!(x[0], 0.0);
        assert_eq!(*x.last().unwrap(), 10.0);
        assert!((x[1] - 0.1).abs() < 1e-12);
        for w in x.windows(3) {
            let r = (w[2] - w[1]) / (w[1] - w[0]);
            assert!((1.0..=1.2 + 1e-12).contains(&r), "ratio {r}");
        }
        // 0.1 (1.2^n - 1) / 0.2 >= 10 asks 1.2^n >= 21: first at n = 17 (1.2^17 = 22.2,
        // 1.2^16 = 18.5).
        assert_eq!(x.len() - 1, 17);
    }

    #[test]
    fn a_capped_ramp_stays_under_its_cap() {
        let x = ramp(10.0, 0.1, 1.5, 1.0);
        for w in x.windows(2) {
            assert!(w[1] - w[0] <= 1.0 + 1e-12);
        }
        assert_eq!(ramp_count(10.0, 1.0, 1.0, 1.0), 10);
    }

    #[test]
    fn graded_is_finest_at_its_point_on_both_sides() {
        let x = graded(-1.0, 1.0, 0.25, 0.01, 1.1, f64::INFINITY);
        assert_eq!(x[0], -1.0);
        assert_eq!(*x.last().unwrap(), 1.0);
        let i = x
            .iter()
            .position(|&v| v == 0.25)
            .expect("a node at the point");
        assert!((x[i + 1] - x[i] - 0.01).abs() < 1e-12);
        assert!((x[i] - x[i - 1] - 0.01).abs() < 1e-12);
        assert_eq!(
            x.len() as u64 - 1,
            graded_count(-1.0, 1.0, 0.25, 0.01, 1.1, f64::INFINITY)
        );
        assert!(x.windows(2).all(|w| w[1] > w[0]));
    }
}

#[cfg(test)]
mod validation_tests {
    use crate::mesh::{GenerateSpec, HalfSpace, SphereSpec};
    use crate::validate::validate_generate;
    use crate::Pointer;

    fn check(edit: impl Fn(&mut SphereSpec)) -> Result<(), String> {
        let mut s = SphereSpec {
            centre: [0.0; 3],
            radius: 0.01,
            keep: vec![HalfSpace::PlusY, HalfSpace::PlusZ],
            pole: [1.0, 0.0, 0.0],
            smallest_size: 1e-4,
            growth: 1.2,
            largest_size: None,
        };
        edit(&mut s);
        validate_generate(&GenerateSpec::Sphere(s), &Pointer::root().at("generate"))
            .map_err(|e| e.pointer)
    }

    #[test]
    fn a_bad_sphere_is_refused_with_the_pointer_of_its_fault() {
        assert_eq!(check(|_| {}), Ok(()));
        assert_eq!(check(|s| s.radius = 0.0), Err("/generate/radius".into()));
        assert_eq!(check(|s| s.pole = [0.0; 3]), Err("/generate/pole".into()));
        assert_eq!(
            check(|s| s.pole = [0.0, -1.0, 0.0]),
            Err("/generate/pole".into())
        );
        assert_eq!(
            check(|s| s.keep.push(HalfSpace::MinusY)),
            Err("/generate/keep/2".into())
        );
        assert_eq!(
            check(|s| s.smallest_size = 0.005),
            Err("/generate/smallest_size".into())
        );
        assert_eq!(check(|s| s.growth = 0.9), Err("/generate/growth".into()));
        assert_eq!(
            check(|s| s.largest_size = Some(1e-5)),
            Err("/generate/largest_size".into())
        );
        // Even spacing at a micrometre on a 10 mm ball: billions of elements.
        assert_eq!(
            check(|s| {
                s.smallest_size = 1e-6;
                s.growth = 1.0
            }),
            Err("/generate".into())
        );
    }
}
