//! Eight f64 lanes in one AVX-512 register, for builds that have it. The type and its
//! arithmetic are the `wide` crate's, whose operations are the processor's lane-by-lane
//! IEEE ones (its `max` keeps `f64::max`'s answer where one operand is NaN); a batch's lane
//! vectors are put together from two 256-bit halves with `safe_arch`'s insert: from
//! `wide`'s array constructor LLVM wrote the eight numbers to the gather buffer one by one
//! (48 scalar stores an element where four lanes take 12 vector stores), and the element
//! loop's gather took twice its share of the samples.

use super::Lane;
use std::ops::{Add, Div, Mul, Neg, Sub};

/// Eight f64 lanes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(transparent)]
pub struct F64x8(wide::f64x8);

impl F64x8 {
    pub const LANES: usize = 8;

    /// Lane `l` holds `f(l)`.
    #[inline(always)]
    pub fn from_fn(f: impl Fn(usize) -> f64) -> F64x8 {
        let low = safe_arch::m256d::from([f(0), f(1), f(2), f(3)]);
        let high = safe_arch::m256d::from([f(4), f(5), f(6), f(7)]);
        let all = safe_arch::insert_m256d_to_m512d::<1>(safe_arch::cast_m256d_to_m512d(low), high);
        F64x8(bytemuck::cast(all))
    }

    #[inline(always)]
    pub fn lane(&self, l: usize) -> f64 {
        self.0.as_array()[l]
    }
}

macro_rules! binary {
    ($trait:ident, $method:ident, $op:tt) => {
        impl $trait for F64x8 {
            type Output = F64x8;
            #[inline(always)]
            fn $method(self, o: F64x8) -> F64x8 {
                F64x8(self.0 $op o.0)
            }
        }
    };
}

binary!(Add, add, +);
binary!(Sub, sub, -);
binary!(Mul, mul, *);
binary!(Div, div, /);

impl Neg for F64x8 {
    type Output = F64x8;
    #[inline(always)]
    fn neg(self) -> F64x8 {
        F64x8(-self.0)
    }
}

impl Lane for F64x8 {
    #[inline(always)]
    fn splat(v: f64) -> Self {
        F64x8(wide::f64x8::splat(v))
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        F64x8(self.0.sqrt())
    }
    #[inline(always)]
    fn abs(self) -> Self {
        F64x8(self.0.abs())
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        F64x8(self.0.max(o.0))
    }
    #[inline(always)]
    fn cube_root_seed(self) -> Self {
        // Integer division lane by lane: once an element, not worth a vector form.
        let lanes = self.0.to_array();
        F64x8::from_fn(|l| <f64 as Lane>::cube_root_seed(lanes[l]))
    }
    #[inline(always)]
    fn select_lt(a: Self, b: Self, then: Self, otherwise: Self) -> Self {
        // An ordered comparison: false where either is NaN, as `f64`'s `<`.
        F64x8(a.0.simd_lt(b.0).select(then.0, otherwise.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_lane_is_the_f64_operation() {
        let values = [1.5, -2.0, 0.0, f64::NAN, -0.0, f64::INFINITY, 3e-310, 7.0];
        let others = [3.0, 0.25, -0.0, 1.0, f64::NAN, 2.0, -3e-310, 7.0];
        let (a, b) = (F64x8::from_fn(|l| values[l]), F64x8::from_fn(|l| others[l]));
        let check = |got: F64x8, want: fn(f64, f64) -> f64, what: &str| {
            for l in 0..8 {
                let w = want(values[l], others[l]);
                let g = got.lane(l);
                assert!(
                    g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()),
                    "{what}, lane {l}: {g} against {w}"
                );
            }
        };
        check(a + b, |x, y| x + y, "+");
        check(a - b, |x, y| x - y, "-");
        check(a * b, |x, y| x * y, "*");
        check(a / b, |x, y| x / y, "/");
        check(-a, |x, _| -x, "neg");
        check(a.abs(), |x, _| x.abs(), "abs");
        check(b.sqrt(), |_, y| y.sqrt(), "sqrt");
        check(
            F64x8::select_lt(a, b, a, b),
            |x, y| if x < y { x } else { y },
            "select_lt",
        );
        // `max` of a NaN and a number is the number, either way round, as `f64::max`.
        for l in [0, 1, 3, 4, 5, 6, 7] {
            let (got, want) = (a.max(b).lane(l), values[l].max(others[l]));
            assert!(
                got.to_bits() == want.to_bits(),
                "max, lane {l}: {got} against {want}"
            );
        }
        assert_eq!(F64x8::splat(2.5).lane(6), 2.5);
    }

    #[test]
    fn the_cube_root_is_the_f64_one_in_every_lane() {
        let values = [1e-30, 0.3, 1.0, 8.0, 2.7e5, 1.999_999, 7.77e12, 123.456];
        let roots = F64x8::from_fn(|l| values[l]).cube_root();
        for (l, v) in values.iter().enumerate() {
            assert_eq!(roots.lane(l).to_bits(), v.cube_root().to_bits(), "{v}");
        }
    }
}
