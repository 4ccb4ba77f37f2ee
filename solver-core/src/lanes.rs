//! Lanes: the number type the element kernel is written in. `f64` is one element; `F64x4`
//! is four elements side by side, so each arithmetic instruction serves four elements (one
//! 256-bit AVX instruction, or two SSE2 ones); `F64x8`, built only where the build has
//! AVX-512, is eight in one 512-bit register. `Batch` is the one the solver's element loop
//! runs: `F64x8` where the build has AVX-512, `F64x4` elsewhere. Every operation acts lane
//! by lane with the same IEEE operation as `f64` (no fused multiply-add, no
//! reassociation), so an element gives the same bits in a lane of any of them as alone in
//! `f64`, whichever the build, and the kernel has one body for all.

use std::ops::{Add, Div, Mul, Neg, Sub};

#[cfg(target_feature = "avx512f")]
mod f64x8;
#[cfg(target_feature = "avx512f")]
pub use f64x8::F64x8;

/// Two thirds of the exponent bias (1023 << 52), less a shift that centres the seed's error:
/// the bits of x / 3 plus this are the bits of about x^(1/3).
const CUBE_ROOT_BIAS: u64 = 0x2A9F_7893_782D_A1CE;

/// What the kernel needs of its numbers. Branches on values are written as `select_lt`, so
/// that one body serves one element and four.
pub trait Lane:
    Copy
    + Default
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    fn splat(v: f64) -> Self;
    fn sqrt(self) -> Self;
    fn abs(self) -> Self;
    /// `f64::max` lane by lane (a NaN lane takes the other operand).
    fn max(self, other: Self) -> Self;
    /// A cube root to about 3%, from the bits (the exponent divided by three): the seed
    /// of `cube_root`. Meaningless for a negative or non-finite `self`.
    fn cube_root_seed(self) -> Self;
    /// The cube root of a positive finite `self`, to within a few ulps of `f64::cbrt`:
    /// three Halley steps y <- y (y^3 + 2x) / (2 y^3 + x) from `cube_root_seed` (each
    /// cubes the relative error: 3e-2, 1e-5, 1e-15, then rounding). Plain arithmetic, so
    /// it runs in the lanes, where libm's `cbrt` is one call per lane.
    #[inline(always)]
    fn cube_root(self) -> Self {
        let two = Self::splat(2.0);
        let mut y = self.cube_root_seed();
        for _ in 0..3 {
            let y3 = y * y * y;
            y = y * (y3 + two * self) / (two * y3 + self);
        }
        y
    }
    /// Lane by lane: `then` where `a < b`, `otherwise` elsewhere (and where either is NaN).
    fn select_lt(a: Self, b: Self, then: Self, otherwise: Self) -> Self;
}

impl Lane for f64 {
    #[inline(always)]
    fn splat(v: f64) -> Self {
        v
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        f64::sqrt(self)
    }
    #[inline(always)]
    fn abs(self) -> Self {
        f64::abs(self)
    }
    #[inline(always)]
    fn max(self, other: Self) -> Self {
        f64::max(self, other)
    }
    #[inline(always)]
    fn cube_root_seed(self) -> Self {
        f64::from_bits((self.to_bits() / 3).wrapping_add(CUBE_ROOT_BIAS))
    }
    #[inline(always)]
    fn select_lt(a: Self, b: Self, then: Self, otherwise: Self) -> Self {
        if a < b {
            then
        } else {
            otherwise
        }
    }
}

/// The lanes of the solver's element batches: eight where the build has AVX-512.
#[cfg(target_feature = "avx512f")]
pub type Batch = F64x8;
/// The lanes of the solver's element batches: four where the build has no AVX-512.
#[cfg(not(target_feature = "avx512f"))]
pub type Batch = F64x4;

/// `[f(0), f(1), ..]`, one entry a lane of `Batch`: written out, as the element loop's
/// gathers were before (`array::map` there compiled to an out-of-line call a batch).
#[cfg(target_feature = "avx512f")]
#[inline(always)]
pub fn per_lane<T>(f: impl Fn(usize) -> T) -> [T; Batch::LANES] {
    [f(0), f(1), f(2), f(3), f(4), f(5), f(6), f(7)]
}

/// `[f(0), f(1), ..]`, one entry a lane of `Batch`: written out, as the element loop's
/// gathers were before (`array::map` there compiled to an out-of-line call a batch).
#[cfg(not(target_feature = "avx512f"))]
#[inline(always)]
pub fn per_lane<T>(f: impl Fn(usize) -> T) -> [T; Batch::LANES] {
    [f(0), f(1), f(2), f(3)]
}

/// Four f64 lanes, aligned for 256-bit loads.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C, align(32))]
pub struct F64x4(pub [f64; 4]);

/// Lane by lane, written out so that the optimiser sees four independent operations.
macro_rules! lanewise {
    ($a:expr, $b:expr, $op:tt) => {
        F64x4([
            $a.0[0] $op $b.0[0],
            $a.0[1] $op $b.0[1],
            $a.0[2] $op $b.0[2],
            $a.0[3] $op $b.0[3],
        ])
    };
}

macro_rules! binary {
    ($trait:ident, $method:ident, $op:tt) => {
        impl $trait for F64x4 {
            type Output = F64x4;
            #[inline(always)]
            fn $method(self, o: F64x4) -> F64x4 {
                lanewise!(self, o, $op)
            }
        }
    };
}

binary!(Add, add, +);
binary!(Sub, sub, -);
binary!(Mul, mul, *);
binary!(Div, div, /);

impl Neg for F64x4 {
    type Output = F64x4;
    #[inline(always)]
    fn neg(self) -> F64x4 {
        self.map(|v| -v)
    }
}

impl F64x4 {
    pub const LANES: usize = 4;

    #[inline(always)]
    fn map(self, f: impl Fn(f64) -> f64) -> F64x4 {
        F64x4([f(self.0[0]), f(self.0[1]), f(self.0[2]), f(self.0[3])])
    }

    /// Lane `l` holds `f(l)`.
    #[inline(always)]
    pub fn from_fn(f: impl Fn(usize) -> f64) -> F64x4 {
        F64x4([f(0), f(1), f(2), f(3)])
    }

    #[inline(always)]
    pub fn lane(&self, l: usize) -> f64 {
        self.0[l]
    }
}

impl Lane for F64x4 {
    #[inline(always)]
    fn splat(v: f64) -> Self {
        F64x4([v; 4])
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        self.map(f64::sqrt)
    }
    #[inline(always)]
    fn abs(self) -> Self {
        self.map(f64::abs)
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        F64x4([
            self.0[0].max(o.0[0]),
            self.0[1].max(o.0[1]),
            self.0[2].max(o.0[2]),
            self.0[3].max(o.0[3]),
        ])
    }
    #[inline(always)]
    fn cube_root_seed(self) -> Self {
        self.map(<f64 as Lane>::cube_root_seed)
    }
    #[inline(always)]
    fn select_lt(a: Self, b: Self, then: Self, otherwise: Self) -> Self {
        let pick = |i: usize| {
            if a.0[i] < b.0[i] {
                then.0[i]
            } else {
                otherwise.0[i]
            }
        };
        F64x4([pick(0), pick(1), pick(2), pick(3)])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_lane_is_the_f64_operation() {
        let a = F64x4([1.5, -2.0, 0.0, f64::NAN]);
        let b = F64x4([3.0, 0.25, -0.0, 1.0]);
        let check = |got: F64x4, want: fn(f64, f64) -> f64| {
            for i in 0..4 {
                let w = want(a.0[i], b.0[i]);
                assert!(
                    got.0[i].to_bits() == w.to_bits() || (got.0[i].is_nan() && w.is_nan()),
                    "lane {i}: {} against {w}",
                    got.0[i]
                );
            }
        };
        check(a + b, |x, y| x + y);
        check(a - b, |x, y| x - y);
        check(a * b, |x, y| x * y);
        check(a / b, |x, y| x / y);
        check(-a, |x, _| -x);
        check(a.max(b), f64::max);
        check(a.abs(), |x, _| x.abs());
        check(b.sqrt(), |_, y| y.sqrt());
        check(
            F64x4::select_lt(a, b, a, b),
            |x, y| if x < y { x } else { y },
        );
    }

    #[test]
    fn cube_root_is_within_a_few_ulps_of_libm_and_the_same_in_every_lane() {
        // Values over the range a volume can take, and awkward mantissas.
        let mut worst: f64 = 0.0;
        let mut x = 1.234_567e-30;
        while x < 1e30 {
            for m in [1.0, 1.999_999, 0.500_001, 7.77] {
                let v = x * m;
                let got = v.cube_root();
                let want = v.cbrt();
                worst = worst.max(((got - want) / want).abs());
                let lanes = F64x4([v, 2.0 * v, v, 0.3 * v]).cube_root();
                assert_eq!(lanes.0[0].to_bits(), got.to_bits(), "{v}");
                assert_eq!(lanes.0[1].to_bits(), (2.0 * v).cube_root().to_bits());
            }
            x *= 3.7;
        }
        // Four ulps (2.2e-16 each): the Halley steps' rounding, not their convergence.
        assert!(worst < 4.0 * f64::EPSILON, "worst relative error {worst:e}");
        assert_eq!(8.0_f64.cube_root(), 2.0);
    }
}
