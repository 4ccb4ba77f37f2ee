//! The nearest node to a point in the reference configuration (or the nearest sphere, by
//! its centre at t = 0), for probes: a uniform grid of cells over the nodes, built once per
//! result, searched in growing shells of cells until no unvisited cell can hold a closer
//! node. The answer is the one a scan of every node gives: the least squared distance,
//! computed the same way, and the lowest id on ties. Also what a search costs, for a server
//! deciding where a probe runs.

/// Nodes binned into a uniform grid of cells (about two nodes a cell), each cell's nodes
/// in ascending id.
#[derive(Clone, Debug)]
pub struct NodeGrid {
    lower: [f64; 3],
    /// The cells' edge length (one for all axes).
    cell: f64,
    dims: [usize; 3],
    /// How far a node may sit outside its cell's box after the rounded division that
    /// placed it, for the bound on what unvisited cells can hold.
    margin: f64,
    /// Cell c holds `ids[start[c]..start[c + 1]]`.
    start: Vec<u32>,
    ids: Vec<u32>,
}

/// What a search costs, in node visits of a scan of every node (the unit a probe's cost
/// is counted in). `cargo bench -p impact-core --bench probe -- nearest` (1e5 points spread
/// through a lattice, each searched once): 311 visits at 1e5 nodes, 1 603 at 1e6, whose
/// cells no longer stay in cache (docs/performance.md). Taken at the larger end.
pub const SEARCH_VISITS: usize = 2048;

/// What building the grid costs a node, in the same unit: 9.6 and 11.0 at 1e5 and 1e6
/// nodes in the same benchmark, 13.6 to 16.8 in a first measurement. Taken at the larger end.
pub const BUILD_VISITS_PER_NODE: usize = 16;

/// The definition a grid search answers as: scan every node, keep the first of the least
/// squared distances; (0, infinity) without nodes. The tests' reference, and the unit the
/// cost of a search is counted in.
pub fn scan(nodes: &[[f64; 3]], p: [f64; 3]) -> (u32, f64) {
    let mut best = (0u32, f64::INFINITY);
    for (i, r) in nodes.iter().enumerate() {
        let d = (r[0] - p[0]).powi(2) + (r[1] - p[1]).powi(2) + (r[2] - p[2]).powi(2);
        if d < best.1 {
            best = (i as u32, d);
        }
    }
    (best.0, best.1.sqrt())
}

/// What searching for `points` among `bodies` costs, in node visits of a scan, with the
/// grid's build when it is not `built` yet: how a server judges whether a probe may run
/// on a thread that also answers other requests.
pub fn search_visits(built: bool, bodies: usize, points: usize) -> usize {
    if points == 0 {
        return 0;
    }
    let build = if built {
        0
    } else {
        bodies.saturating_mul(BUILD_VISITS_PER_NODE)
    };
    points.saturating_mul(SEARCH_VISITS).saturating_add(build)
}

/// Nodes per cell the grid aims at: few enough that a shell's scan is short, enough that
/// the cells' table stays smaller than the nodes' coordinates.
const NODES_PER_CELL: f64 = 2.0;

impl NodeGrid {
    pub fn new(nodes: &[[f64; 3]]) -> Self {
        let mut lower = [f64::INFINITY; 3];
        let mut upper = [f64::NEG_INFINITY; 3];
        for p in nodes {
            for k in 0..3 {
                lower[k] = lower[k].min(p[k]);
                upper[k] = upper[k].max(p[k]);
            }
        }
        if nodes.is_empty() {
            lower = [0.0; 3];
            upper = [0.0; 3];
        }
        let extent = [0, 1, 2].map(|k| upper[k] - lower[k]);
        let largest = extent[0].max(extent[1]).max(extent[2]);
        // The cell edge from the volume (or area, or length) the nodes span: axes shorter
        // than a millionth of the largest count as flat.
        let target = (nodes.len() as f64 / NODES_PER_CELL).max(1.0);
        let spanned: Vec<f64> = extent
            .iter()
            .copied()
            .filter(|&e| e > 1e-6 * largest)
            .collect();
        let cell = if spanned.is_empty() {
            1.0
        } else {
            let measure: f64 = spanned.iter().product();
            (measure / target).powf(1.0 / spanned.len() as f64)
        };
        // At most about `target` cells a side, so a grid never outgrows its nodes.
        let cap = target.ceil() as usize;
        let dims = extent.map(|e| (((e / cell).floor() as usize) + 1).clamp(1, cap));
        let cells = dims[0] * dims[1] * dims[2];
        let magnitude = [0, 1, 2]
            .map(|k| lower[k].abs().max(upper[k].abs()))
            .into_iter()
            .fold(0.0, f64::max);
        let mut grid = NodeGrid {
            lower,
            cell,
            dims,
            margin: 1e-9 * (cell + magnitude),
            start: vec![0; cells + 1],
            ids: vec![0; nodes.len()],
        };
        // A counting sort by cell keeps each cell's ids ascending.
        let cell_of: Vec<usize> = nodes
            .iter()
            .map(|p| grid.cell_index(grid.coords(*p)))
            .collect();
        for &c in &cell_of {
            grid.start[c + 1] += 1;
        }
        for c in 0..cells {
            grid.start[c + 1] += grid.start[c];
        }
        let mut fill = grid.start.clone();
        for (id, &c) in cell_of.iter().enumerate() {
            grid.ids[fill[c] as usize] = id as u32;
            fill[c] += 1;
        }
        grid
    }

    /// The cell holding a point, clamped onto the grid.
    fn coords(&self, p: [f64; 3]) -> [usize; 3] {
        [0, 1, 2].map(|k| {
            let f = ((p[k] - self.lower[k]) / self.cell).floor();
            if f.is_nan() || f < 0.0 {
                0
            } else {
                (f as usize).min(self.dims[k] - 1)
            }
        })
    }

    fn cell_index(&self, c: [usize; 3]) -> usize {
        (c[2] * self.dims[1] + c[1]) * self.dims[0] + c[0]
    }

    /// The nearest node to `p` among `nodes` (the ones the grid was built on) and its
    /// distance: the least squared distance, the lowest id on ties. None without nodes.
    pub fn nearest(&self, nodes: &[[f64; 3]], p: [f64; 3]) -> Option<(u32, f64)> {
        if nodes.is_empty() {
            return None;
        }
        let centre = self.coords(p);
        let mut best = (f64::INFINITY, u32::MAX);
        let largest_ring = self.dims[0].max(self.dims[1]).max(self.dims[2]);
        for ring in 0..=largest_ring {
            let lo = centre.map(|c| c.saturating_sub(ring));
            let hi = [0, 1, 2].map(|k| (centre[k] + ring).min(self.dims[k] - 1));
            for k in lo[2]..=hi[2] {
                for j in lo[1]..=hi[1] {
                    let on_shell_kj =
                        k.abs_diff(centre[2]) == ring || j.abs_diff(centre[1]) == ring;
                    for i in lo[0]..=hi[0] {
                        if !on_shell_kj && i.abs_diff(centre[0]) != ring {
                            continue;
                        }
                        let c = self.cell_index([i, j, k]);
                        for &id in &self.ids[self.start[c] as usize..self.start[c + 1] as usize] {
                            let r = nodes[id as usize];
                            // The same expression as a scan of every node, so the same bits.
                            let d = (r[0] - p[0]).powi(2)
                                + (r[1] - p[1]).powi(2)
                                + (r[2] - p[2]).powi(2);
                            if d < best.0 || (d == best.0 && id < best.1) {
                                best = (d, id);
                            }
                        }
                    }
                }
            }
            // Every unvisited cell lies beyond one face of the visited box [lo, hi]: the
            // distance from p to the nearest such face bounds what it can hold.
            let mut bound = f64::INFINITY;
            for k in 0..3 {
                if lo[k] > 0 {
                    let face = self.lower[k] + lo[k] as f64 * self.cell;
                    bound = bound.min((p[k] - face).max(0.0));
                }
                if hi[k] + 1 < self.dims[k] {
                    let face = self.lower[k] + (hi[k] + 1) as f64 * self.cell;
                    bound = bound.min((face - p[k]).max(0.0));
                }
            }
            if bound == f64::INFINITY {
                break; // every cell visited
            }
            let bound = bound - self.margin;
            if bound > 0.0 && bound * bound > best.0 {
                break;
            }
        }
        Some((best.1, best.0.sqrt()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_search_costs_its_points_and_the_first_one_the_build() {
        assert_eq!(search_visits(true, 1_000_000, 0), 0);
        assert_eq!(search_visits(false, 1_000_000, 0), 0);
        assert_eq!(search_visits(true, 1_000_000, 100), 100 * SEARCH_VISITS);
        assert_eq!(
            search_visits(false, 1_000_000, 1),
            SEARCH_VISITS + 1_000_000 * BUILD_VISITS_PER_NODE
        );
        assert_eq!(search_visits(false, usize::MAX, 1), usize::MAX);
    }

    /// Points scattered by a repeatable sequence: the same points on every run.
    fn points(count: usize, seed: u64, lo: f64, hi: f64) -> Vec<[f64; 3]> {
        let mut sequence = crate::test_support::Sequence::new(seed);
        let mut next = || lo + (hi - lo) * sequence.unit();
        (0..count).map(|_| [next(), next(), next()]).collect()
    }

    fn lattice(n: [usize; 3], h: [f64; 3]) -> Vec<[f64; 3]> {
        let mut out = Vec::new();
        for k in 0..n[2] {
            for j in 0..n[1] {
                for i in 0..n[0] {
                    out.push([i as f64 * h[0], j as f64 * h[1], k as f64 * h[2]]);
                }
            }
        }
        out
    }

    fn agree(nodes: &[[f64; 3]], queries: &[[f64; 3]]) {
        let grid = NodeGrid::new(nodes);
        for q in queries {
            let (id, d) = grid.nearest(nodes, *q).expect("nodes");
            let (want_id, want_d) = scan(nodes, *q);
            assert_eq!((id, d.to_bits()), (want_id, want_d.to_bits()), "at {q:?}");
        }
    }

    #[test]
    fn agrees_with_a_scan_inside_and_outside_a_scattered_cloud() {
        let nodes = points(3000, 7, -1.0, 2.0);
        agree(&nodes, &points(300, 11, -1.5, 2.5));
        agree(&nodes, &points(30, 13, -50.0, 50.0));
    }

    #[test]
    fn ties_go_to_the_lowest_id_as_a_scan_gives() {
        // Lattice nodes, shuffled ids by reversal, and points equidistant from 2, 4 or 8
        // of them (cell centres, edge and face midpoints) and on nodes.
        let mut nodes = lattice([9, 7, 5], [0.5, 0.5, 0.5]);
        nodes.reverse();
        let mut queries = Vec::new();
        for k in 0..5 {
            for j in 0..7 {
                for i in 0..9 {
                    let (x, y, z) = (i as f64 * 0.5, j as f64 * 0.5, k as f64 * 0.5);
                    queries.push([x, y, z]);
                    queries.push([x + 0.25, y, z]);
                    queries.push([x + 0.25, y + 0.25, z]);
                    queries.push([x + 0.25, y + 0.25, z + 0.25]);
                }
            }
        }
        agree(&nodes, &queries);
    }

    #[test]
    fn flat_slender_and_coincident_meshes() {
        // A plate (no z extent), a bar (a line of nodes), nodes doubled at one place, one node.
        agree(
            &lattice([30, 20, 1], [0.1, 0.1, 1.0]),
            &points(200, 3, -0.5, 3.5),
        );
        agree(
            &lattice([400, 2, 2], [0.05, 1.0, 1.0]),
            &points(200, 5, -1.0, 21.0),
        );
        let mut doubled = lattice([4, 4, 4], [1.0, 1.0, 1.0]);
        doubled.extend(lattice([4, 4, 4], [1.0, 1.0, 1.0]));
        agree(&doubled, &points(100, 9, -1.0, 4.0));
        agree(&[[1.0, 2.0, 3.0]], &points(10, 17, -5.0, 5.0));
    }
}
