//! The contact search: a bucket grid of axis-aligned boxes, rebuilt in the storage of the
//! last (no allocation once warm) whenever the candidate lists it feeds go stale.
//! Cells are hashed into a table about twice the number of entries, so the memory follows
//! the surface, not the volume it spans; a hash collision only adds a candidate that the
//! box test then drops. Building and querying are linear in the faces. Boxes much larger
//! than the cells go to a short list that every query scans, so one big face cannot fill
//! the table.

/// An axis-aligned box: lower and upper corners.
pub type Aabb = ([f64; 3], [f64; 3]);

/// Boxes spanning more cells than this go to the oversized list.
const MAX_CELLS_PER_BOX: i64 = 64;

#[derive(Clone, Debug, Default)]
pub struct Grid {
    inverse_cell: f64,
    mask: usize,
    /// `entries[start[h]..start[h + 1]]` are the boxes in hash bucket h, ascending.
    start: Vec<u32>,
    entries: Vec<u32>,
    oversized: Vec<u32>,
    boxes: Vec<Aabb>,
    /// Each box's cell range (None: oversized) and the buckets' fill cursors: scratch kept
    /// between rebuilds, so that a contact's increments allocate nothing once warm.
    ranges: Vec<Option<([i64; 3], [i64; 3])>>,
    fill: Vec<u32>,
}

fn cell_range(b: &Aabb, inverse_cell: f64) -> ([i64; 3], [i64; 3]) {
    let lo = b.0.map(|v| (v * inverse_cell).floor() as i64);
    let hi = b.1.map(|v| (v * inverse_cell).floor() as i64);
    (lo, hi)
}

fn cells_in(lo: &[i64; 3], hi: &[i64; 3]) -> i64 {
    (0..3).map(|k| (hi[k] - lo[k] + 1).max(1)).product()
}

fn hash(i: i64, j: i64, k: i64) -> u64 {
    (i as u64).wrapping_mul(0x9E37_79B1_85EB_CA87)
        ^ (j as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
        ^ (k as u64).wrapping_mul(0x1656_67B1_9E37_79F9)
}

/// The box of a face and the prism of depth `depth` behind it (along -`normal`): a face
/// that presses on it has a point in the prism, so the two faces' boxes overlap.
#[inline]
pub fn prism_box(corners: &[[f64; 3]; 4], normal: [f64; 3], depth: f64) -> Aabb {
    let mut lo = corners[0];
    let mut hi = corners[0];
    for c in &corners[1..] {
        for k in 0..3 {
            lo[k] = lo[k].min(c[k]);
            hi[k] = hi[k].max(c[k]);
        }
    }
    // The prism's back corners are the face's moved by one vector, and a rounded
    // difference is monotone in its first operand: the least (greatest) moved corner is
    // the least (greatest) corner moved, the same number. So the two extremes are moved,
    // not the four corners: half the lesser and greater taken before.
    for k in 0..3 {
        let back = depth * normal[k];
        lo[k] = lo[k].min(lo[k] - back);
        hi[k] = hi[k].max(hi[k] - back);
    }
    // A face lying in the plane of another (or a box flat along an axis) still overlaps.
    let pad = 1e-9 * (0..3).map(|k| hi[k] - lo[k]).fold(0.0, f64::max);
    (lo.map(|v| v - pad), hi.map(|v| v + pad))
}

pub fn overlap(a: &Aabb, b: &Aabb) -> bool {
    (0..3).all(|k| a.0[k] <= b.1[k] && b.0[k] <= a.1[k])
}

/// Whether `inner` lies inside `outer` (false when either holds a NaN).
pub fn contains(outer: &Aabb, inner: &Aabb) -> bool {
    (0..3).all(|k| outer.0[k] <= inner.0[k] && inner.1[k] <= outer.1[k])
}

/// `b` grown on every side by `fraction` of its largest extent.
pub fn grow(b: &Aabb, fraction: f64) -> Aabb {
    let margin = fraction * (0..3).map(|k| b.1[k] - b.0[k]).fold(0.0, f64::max);
    (b.0.map(|v| v - margin), b.1.map(|v| v + margin))
}

impl Grid {
    /// A grid over `boxes`, cells the size of their mean largest extent.
    pub fn build(boxes: Vec<Aabb>) -> Grid {
        let mut grid = Grid {
            boxes,
            ..Grid::default()
        };
        grid.rebuild();
        grid
    }

    /// The boxes, to be refilled before `rebuild` (their length is the box count).
    pub fn boxes_mut(&mut self) -> &mut Vec<Aabb> {
        &mut self.boxes
    }

    /// Rebuild the grid over its boxes as they now are, reusing its storage.
    pub fn rebuild(&mut self) {
        let n = self.boxes.len();
        self.oversized.clear();
        self.ranges.clear();
        self.entries.clear();
        self.start.clear();
        if n == 0 {
            self.mask = 0;
            return;
        }
        let mean: f64 = self
            .boxes
            .iter()
            .map(|b| (0..3).map(|k| b.1[k] - b.0[k]).fold(0.0, f64::max))
            .sum::<f64>()
            / n as f64;
        let inverse_cell = if mean > 0.0 && mean.is_finite() {
            1.0 / mean
        } else {
            1.0
        };
        let mut count_entries = 0usize;
        for (i, b) in self.boxes.iter().enumerate() {
            let (lo, hi) = cell_range(b, inverse_cell);
            let cells = cells_in(&lo, &hi);
            if cells > MAX_CELLS_PER_BOX || b.0.iter().chain(b.1.iter()).any(|v| !v.is_finite()) {
                self.oversized.push(i as u32);
                self.ranges.push(None);
            } else {
                count_entries += cells as usize;
                self.ranges.push(Some((lo, hi)));
            }
        }
        let table = (2 * count_entries).next_power_of_two().max(16);
        let mask = table - 1;
        let start = &mut self.start;
        start.resize(table + 1, 0);
        let each = |lo: &[i64; 3], hi: &[i64; 3], f: &mut dyn FnMut(usize)| {
            for i in lo[0]..=hi[0] {
                for j in lo[1]..=hi[1] {
                    for k in lo[2]..=hi[2] {
                        f(hash(i, j, k) as usize & mask);
                    }
                }
            }
        };
        for (lo, hi) in self.ranges.iter().flatten() {
            each(lo, hi, &mut |h| start[h + 1] += 1);
        }
        for h in 0..table {
            start[h + 1] += start[h];
        }
        self.fill.clear();
        self.fill.extend_from_slice(start);
        let (fill, entries) = (&mut self.fill, &mut self.entries);
        entries.resize(count_entries, 0);
        for (i, r) in self.ranges.iter().enumerate() {
            if let Some((lo, hi)) = r {
                each(lo, hi, &mut |h| {
                    entries[fill[h] as usize] = i as u32;
                    fill[h] += 1;
                });
            }
        }
        self.inverse_cell = inverse_cell;
        self.mask = mask;
    }

    pub fn boxes(&self) -> &[Aabb] {
        &self.boxes
    }

    /// The boxes that overlap `b`, ascending and without repeats, into `out`.
    pub fn query(&self, b: &Aabb, out: &mut Vec<u32>) {
        self.query_where(b, out, |_| true);
    }

    /// The boxes that `keep` accepts and that overlap `b`, ascending and without repeats,
    /// into `out`. Filtering before the box test and the sort keeps the boxes a caller
    /// would drop anyway (the same side of a contact, the face itself) out of both.
    pub fn query_where(&self, b: &Aabb, out: &mut Vec<u32>, keep: impl Fn(u32) -> bool) {
        out.clear();
        if self.boxes.is_empty() {
            return;
        }
        let (lo, hi) = cell_range(b, self.inverse_cell);
        if cells_in(&lo, &hi) > MAX_CELLS_PER_BOX * 8 {
            // A huge query box: scanning every box is cheaper than its cells.
            out.extend(
                (0..self.boxes.len() as u32)
                    .filter(|&j| keep(j) && overlap(&self.boxes[j as usize], b)),
            );
            return;
        }
        for i in lo[0]..=hi[0] {
            for j in lo[1]..=hi[1] {
                for k in lo[2]..=hi[2] {
                    let h = hash(i, j, k) as usize & self.mask;
                    for &e in &self.entries[self.start[h] as usize..self.start[h + 1] as usize] {
                        if keep(e) && overlap(&self.boxes[e as usize], b) {
                            out.push(e);
                        }
                    }
                }
            }
        }
        for &e in &self.oversized {
            if keep(e) && overlap(&self.boxes[e as usize], b) {
                out.push(e);
            }
        }
        out.sort_unstable();
        out.dedup();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_exactly_the_overlapping_boxes() {
        // A 20 x 20 sheet of unit boxes and one big box across it: compare with brute force.
        let mut boxes: Vec<Aabb> = Vec::new();
        for i in 0..20 {
            for j in 0..20 {
                let (x, y) = (i as f64, j as f64);
                boxes.push(([x, y, -0.1], [x + 1.0, y + 1.0, 0.1]));
            }
        }
        boxes.push(([-5.0, 3.0, -1.0], [50.0, 3.5, 1.0]));
        let grid = Grid::build(boxes.clone());
        let mut out = Vec::new();
        for q in [
            ([2.5, 2.5, 0.0], [3.5, 3.5, 0.0]),
            ([-1.0, -1.0, -1.0], [0.5, 0.5, 1.0]),
            ([10.0, 10.0, 0.2], [11.0, 11.0, 0.3]),
        ] {
            grid.query(&q, &mut out);
            let brute: Vec<u32> = (0..boxes.len() as u32)
                .filter(|&j| overlap(&boxes[j as usize], &q))
                .collect();
            assert_eq!(out, brute);
            // A filter drops exactly the boxes it rejects.
            grid.query_where(&q, &mut out, |j| j % 3 != 0);
            let kept: Vec<u32> = brute.iter().copied().filter(|j| j % 3 != 0).collect();
            assert_eq!(out, kept);
        }
    }

    /// The prism's box from its extremes is the box of all eight corners, bit for bit:
    /// faces tilted every way, with depths and coordinates of mixed sizes.
    #[test]
    fn the_prism_box_is_the_box_of_its_eight_corners() {
        let mut sequence = crate::test_support::Sequence::new(0x2545_f491_4f6c_dd1d);
        let mut next = || sequence.unit() - 0.5;
        for case in 0..2000 {
            let scale = [1e-3, 1.0, 1e3][case % 3];
            let corners: [[f64; 3]; 4] =
                std::array::from_fn(|_| std::array::from_fn(|_| scale * (0.3 + next())));
            let n: [f64; 3] = std::array::from_fn(|_| next());
            let len = n.iter().map(|v| v * v).sum::<f64>().sqrt();
            let normal = n.map(|v| v / len);
            let depth = scale * [0.0, 1e-7, 0.05, 2.0][case % 4] * (1.0 + next());
            let mut lo = corners[0];
            let mut hi = corners[0];
            for c in &corners {
                for k in 0..3 {
                    let back = c[k] - depth * normal[k];
                    lo[k] = lo[k].min(c[k]).min(back);
                    hi[k] = hi[k].max(c[k]).max(back);
                }
            }
            let pad = 1e-9 * (0..3).map(|k| hi[k] - lo[k]).fold(0.0, f64::max);
            let eight = (lo.map(|v| v - pad), hi.map(|v| v + pad));
            let made = prism_box(&corners, normal, depth);
            for k in 0..3 {
                assert_eq!(
                    made.0[k].to_bits(),
                    eight.0[k].to_bits(),
                    "case {case}, low {k}"
                );
                assert_eq!(
                    made.1[k].to_bits(),
                    eight.1[k].to_bits(),
                    "case {case}, high {k}"
                );
            }
        }
    }

    #[test]
    fn a_grown_box_contains_the_box_and_nothing_contains_a_nan() {
        let b = ([0.0, 1.0, 2.0], [1.0, 1.5, 4.0]);
        let g = grow(&b, 0.1);
        assert_eq!(g, ([-0.2, 0.8, 1.8], [1.2, 1.7, 4.2]));
        assert!(contains(&g, &b) && !contains(&b, &g));
        let nan = ([f64::NAN, 1.0, 2.0], [1.0, 1.5, 4.0]);
        assert!(!contains(&g, &nan) && !contains(&nan, &b));
    }
}
