//! The spheres sorted by cell for the neighbour search, and the runs of them in the 27
//! cells around a point. Cells are a hair wider than the longest reach of a pair, so two
//! spheres within reach lie in the same or neighbouring cells.
//!
//! Where the spheres' bounding box holds a few cells a sphere, the cells are a dense grid
//! numbered x fastest: the three cells of a row along x are consecutive, so their spheres
//! are one run of the sorted arrays, and the 27 cells are 9 runs read in a row. A box too
//! large for that (a sphere flung far off) falls back to hashed buckets of cells, whose
//! memory stays bounded however far the spheres spread: 27 buckets, some shared by cells
//! far apart (the distance test sorts them out), some listed twice.
//!
//! Both sorts are counting sorts in id order, so each cell (or bucket) lists its ids
//! ascending, and the buffers are kept from one rebuild to the next.

use rayon::prelude::*;

/// How many cells a sphere the dense grid may take at most; beyond, the buckets.
const CELLS_PER_SPHERE: f64 = 4.0;

/// The cells' width over the longest reach: one part in 10^9 wider, so that rounding in a
/// cell's index (a few ulps of the index) cannot put two spheres within reach two cells
/// apart along an axis.
const WIDTH_MARGIN: f64 = 1.0 + 1e-9;

/// The spheres sorted by cell, ids and positions side by side.
#[derive(Clone, Debug, Default)]
pub struct Cells {
    /// The dense grid (its lowest corner and its cells along each axis), or None for the
    /// hashed buckets.
    grid: Option<Grid>,
    width: f64,
    /// log2 of the number of hashed buckets.
    bits: u32,
    /// Each sphere's cell (grid) or bucket.
    of: Vec<u32>,
    /// Where each cell's (or bucket's) ids begin in `ids` (one more entry than cells).
    start: Vec<u32>,
    ids: Vec<u32>,
    /// Beside `ids`, each sphere's position and radius: the search reads a run of spheres
    /// in a row instead of through their ids.
    packed: Vec<[f64; 4]>,
}

#[derive(Clone, Copy, Debug)]
struct Grid {
    corner: [f64; 3],
    dims: [usize; 3],
}

impl Grid {
    /// The grid over the box of `x` with cells of `width`, or None when it would take more
    /// than `most` cells (or the box is not finite).
    fn over(x: &[[f64; 3]], width: f64, most: f64) -> Option<Grid> {
        let (low, high) = x
            .par_iter()
            .with_min_len(super::MIN_PER_TASK)
            .fold_with(
                ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]),
                |(mut low, mut high), p| {
                    for k in 0..3 {
                        low[k] = low[k].min(p[k]);
                        high[k] = high[k].max(p[k]);
                    }
                    (low, high)
                },
            )
            .reduce(
                || ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]),
                |(a, b), (c, d)| {
                    (
                        [0, 1, 2].map(|k| a[k].min(c[k])),
                        [0, 1, 2].map(|k| b[k].max(d[k])),
                    )
                },
            );
        let along = [0, 1, 2].map(|k| ((high[k] - low[k]) / width).floor() + 1.0);
        let cells = along[0] * along[1] * along[2];
        // An infinite extent fails this test, so the buckets take it. (A NaN position
        // is passed over by min and max and lands in the first cell, where the distance
        // test finds it no partner, as in a bucket.)
        if !(cells <= most && along.iter().all(|a| a.is_finite())) {
            return None;
        }
        Some(Grid {
            corner: low,
            dims: along.map(|a| a as usize),
        })
    }

    /// The cell of `p` along each axis (clamped to the grid: a point on its far faces
    /// rounds onto the last cell, never past it).
    #[inline]
    fn cell(&self, p: &[f64; 3], width: f64) -> [usize; 3] {
        [0, 1, 2].map(|k| (((p[k] - self.corner[k]) / width) as usize).min(self.dims[k] - 1))
    }

    #[inline]
    fn index(&self, c: [usize; 3]) -> usize {
        c[0] + self.dims[0] * (c[1] + self.dims[1] * c[2])
    }

    fn count(&self) -> usize {
        self.dims.iter().product()
    }
}

/// A cell's coordinates, for the hashed buckets. `as` saturates: a sphere far away lands
/// in a far (possibly shared) cell, never UB.
fn hashed_cell(p: &[f64; 3], width: f64) -> [i64; 3] {
    [
        (p[0] / width).floor() as i64,
        (p[1] / width).floor() as i64,
        (p[2] / width).floor() as i64,
    ]
}

/// The multipliers of the cell hash's linear part.
const HASH: [u64; 3] = [
    0x9E37_79B9_7F4A_7C15,
    0xC2B2_AE3D_27D4_EB4F,
    0x1656_67B1_9E37_79F9,
];

/// The linear part of a cell's hash, modulo 2^64: a neighbour's is the cell's plus its
/// offset's (`STENCIL`), so the 27 cells around a sphere's cost an addition each.
const fn linear(cell: [i64; 3]) -> u64 {
    (cell[0] as u64)
        .wrapping_mul(HASH[0])
        .wrapping_add((cell[1] as u64).wrapping_mul(HASH[1]))
        .wrapping_add((cell[2] as u64).wrapping_mul(HASH[2]))
}

/// The linear parts of the offsets to the 27 cells around and including a cell.
const STENCIL: [u64; 27] = {
    let mut s = [0u64; 27];
    let mut k = 0;
    while k < 27 {
        s[k] = linear([
            (k % 3) as i64 - 1,
            ((k / 3) % 3) as i64 - 1,
            (k / 9) as i64 - 1,
        ]);
        k += 1;
    }
    s
};

impl Cells {
    /// Sort the spheres at `x` (radii `radius`) into cells at least `reach` wide.
    pub fn fill(&mut self, x: &[[f64; 3]], radius: &[f64], reach: f64) {
        let n = x.len();
        self.width = reach * WIDTH_MARGIN;
        let width = self.width;
        self.grid = Grid::over(x, width, (CELLS_PER_SPHERE * n as f64).max(27.0));
        let cells = match &self.grid {
            Some(grid) => grid.count(),
            None => {
                // At least twice as many buckets as spheres, a power of two.
                self.bits = (2 * n).next_power_of_two().trailing_zeros().max(1);
                1 << self.bits
            }
        };
        let mut of = std::mem::take(&mut self.of);
        of.clear();
        of.par_extend(
            x.par_iter()
                .with_min_len(super::MIN_PER_TASK)
                .map(|p| match &self.grid {
                    Some(grid) => grid.index(grid.cell(p, width)) as u32,
                    None => self.mix(linear(hashed_cell(p, width))),
                }),
        );
        self.of = of;
        self.start.clear();
        self.start.resize(cells + 1, 0);
        for &b in &self.of {
            self.start[b as usize + 1] += 1;
        }
        for b in 0..cells {
            self.start[b + 1] += self.start[b];
        }
        // Scatter in id order, so each cell lists its ids ascending; `start` is moved on
        // as it fills and set back after.
        self.ids.clear();
        self.ids.resize(n, 0);
        for (i, &b) in self.of.iter().enumerate() {
            let slot = &mut self.start[b as usize];
            self.ids[*slot as usize] = i as u32;
            *slot += 1;
        }
        for b in (1..=cells).rev() {
            self.start[b] = self.start[b - 1];
        }
        self.start[0] = 0;
        self.packed.clear();
        self.packed.extend(self.ids.iter().map(|&i| {
            let (p, r) = (x[i as usize], radius[i as usize]);
            [p[0], p[1], p[2], r]
        }));
    }

    /// True when the last fill made a dense grid (no cell is listed twice).
    pub fn dense(&self) -> bool {
        self.grid.is_some()
    }

    /// The bucket of a cell from its `linear` part: the top bits, the best mixed.
    #[inline]
    fn mix(&self, h: u64) -> u32 {
        let h = (h ^ (h >> 29)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        (h >> (64 - self.bits)) as u32
    }

    /// The spheres of cells `first..=last` in sort order: their ids and their positions
    /// and radii.
    #[inline]
    fn run(&self, first: usize, last: usize) -> (&[u32], &[[f64; 4]]) {
        let range = self.start[first] as usize..self.start[last + 1] as usize;
        (&self.ids[range.clone()], &self.packed[range])
    }

    /// Call `visit` with each run of spheres in the 27 cells around and including the
    /// cell of `p`, a sphere's position at the fill: every sphere within reach of it is
    /// in one run, and with the hashed buckets a sphere may be in two.
    #[inline]
    pub fn around(&self, p: &[f64; 3], mut visit: impl FnMut(&[u32], &[[f64; 4]])) {
        match &self.grid {
            Some(grid) => {
                let c = grid.cell(p, self.width);
                let (x0, x1) = (c[0].saturating_sub(1), (c[0] + 1).min(grid.dims[0] - 1));
                for z in c[2].saturating_sub(1)..=(c[2] + 1).min(grid.dims[2] - 1) {
                    for y in c[1].saturating_sub(1)..=(c[1] + 1).min(grid.dims[1] - 1) {
                        let (ids, packed) =
                            self.run(grid.index([x0, y, z]), grid.index([x1, y, z]));
                        visit(ids, packed);
                    }
                }
            }
            None => {
                let base = linear(hashed_cell(p, self.width));
                for off in STENCIL {
                    let b = self.mix(base.wrapping_add(off)) as usize;
                    let (ids, packed) = self.run(b, b);
                    visit(ids, packed);
                }
            }
        }
    }
}
