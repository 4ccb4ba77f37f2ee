//! The graded cubed sphere: an inner cube and up to six shell sectors of hex8s, cut to a
//! half, quarter or eighth by planes through the centre, graded towards a pole on the
//! surface. The 1-D distributions come from `impact_protocol::grading::SphereLayout`;
//! this file places the nodes, numbers the elements and names the sets.
//!
//! A node is named by its key (layer, ix, iy, iz): layer 0 is the cube (its faces are the
//! shells' inner faces), and a shell node has its sector's axis index at that axis's end.
//! Its place is a function of the key alone, so the nodes two sectors share coincide.

use crate::hex8::jacobian_det_at;
use impact_protocol::grading::{uniform, SphereLayout, CUBE_FRACTION};
use impact_protocol::{Mesh, SphereSpec, HEX8_FACES};
use std::collections::HashMap;
use std::f64::consts::FRAC_PI_4;

/// The corners of a hex8 in the order of `HEX8_FACES`, as unit steps along (xi, eta, zeta).
const CORNERS: [[u32; 3]; 8] = [
    [0, 0, 0],
    [1, 0, 0],
    [1, 1, 0],
    [0, 1, 0],
    [0, 0, 1],
    [1, 0, 1],
    [1, 1, 1],
    [0, 1, 1],
];

/// The node order of a mirrored hex8 (xi reversed), for sectors whose natural frame is
/// left-handed.
const MIRROR: [usize; 8] = [1, 0, 3, 2, 5, 4, 7, 6];

type Key = [u32; 4];

/// How fast the grading fades away from the pole: the weight is ((1 + cos theta) / 2)^FADE,
/// 0.75 at 25 degrees and 0.25 at 57. The graded sizes pass the even ones some 10-20
/// degrees out (for the growths a contact mesh takes), so past there the even spacing is
/// the finer, better shaped one.
const FADE: i32 = 8;

struct Placer<'a> {
    spec: &'a SphereSpec,
    layout: &'a SphereLayout,
    n: [u32; 3],
    layers: u32,
    /// The radial fractions of each shell line, by its key without the layer.
    lines: HashMap<[u32; 3], Vec<f64>>,
}

impl Placer<'_> {
    /// The grading's weight at a shell line: 1 at the pole, fading to 0 at the antipode,
    /// from the line's direction on the graded grid.
    fn weight(&self, idx: [usize; 3]) -> f64 {
        let l = self.layout;
        let reference = normalise(std::array::from_fn(|a| l.graded[a][idx[a]].tan()));
        let cos = (0..3).map(|a| reference[a] * l.pole[a]).sum::<f64>();
        (0.5 * (1.0 + cos)).powi(FADE)
    }

    /// Where a shell line's point at radial fraction t sits, its face angles blending the
    /// graded and the even ones by t w: the cube (t = 0) is even, the surface graded.
    fn at(&self, idx: [usize; 3], w: f64, t: f64) -> [f64; 3] {
        let l = self.layout;
        let r = self.spec.radius;
        let c = self.spec.centre;
        let angle: [f64; 3] = std::array::from_fn(|a| {
            t * w * l.graded[a][idx[a]] + (1.0 - t * w) * l.even[a][idx[a]]
        });
        let on_sphere = normalise(angle.map(f64::tan));
        std::array::from_fn(|a| {
            // A zero angle (a cut plane) stays exactly on the plane.
            if angle[a] == 0.0 {
                return c[a];
            }
            let cube = CUBE_FRACTION * angle[a] / FRAC_PI_4;
            if t == 1.0 {
                c[a] + r * on_sphere[a]
            } else {
                c[a] + r * ((1.0 - t) * cube + t * on_sphere[a])
            }
        })
    }

    /// The radial fractions of a shell line: the layer at the surface as thick as the
    /// surface elements around the line are wide (so the elements there are near cubes,
    /// h at the pole), growing inwards over the fixed number of layers, or even when the
    /// line is too short for that.
    fn line(&mut self, idx: [usize; 3]) -> &[f64] {
        let key = idx.map(|i| i as u32);
        if !self.lines.contains_key(&key) {
            let w = self.weight(idx);
            let surface = self.at(idx, w, 1.0);
            let mut width = f64::INFINITY;
            for a in 0..3 {
                // Along a sector's own axis the neighbour is no surface point; a cut plane
                // only has its neighbour on one side.
                if self.layout.even[a][idx[a]].abs() == FRAC_PI_4 {
                    continue;
                }
                for step in [-1isize, 1] {
                    let j_a = idx[a] as isize + step;
                    if j_a < 0 || j_a > self.n[a] as isize {
                        continue;
                    }
                    let mut j = idx;
                    j[a] = j_a as usize;
                    width = width.min(dist(surface, self.at(j, self.weight(j), 1.0)));
                }
            }
            let depth = dist(surface, self.at(idx, w, 0.0));
            let m = self.layers as usize;
            let t = if width.is_finite() {
                let from_surface = ramp_of(m, width / depth);
                from_surface.iter().rev().map(|d| 1.0 - d).collect()
            } else {
                self.layout.radial_even.clone()
            };
            self.lines.insert(key, t);
        }
        &self.lines[&key]
    }

    /// Where the node of `key` sits.
    fn place(&mut self, key: Key) -> [f64; 3] {
        let [layer, ix, iy, iz] = key;
        let idx = [ix as usize, iy as usize, iz as usize];
        if layer == 0 {
            let l = self.layout;
            let (r, c) = (self.spec.radius, self.spec.centre);
            return std::array::from_fn(|a| {
                c[a] + r * CUBE_FRACTION * l.even[a][idx[a]] / FRAC_PI_4
            });
        }
        let t = if layer == self.layers {
            1.0
        } else {
            self.line(idx)[layer as usize]
        };
        self.at(idx, self.weight(idx), t)
    }
}

fn dist(a: [f64; 3], b: [f64; 3]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

/// Positions 0..=1 of exactly `m` intervals, the first `first` long and the rest growing
/// geometrically to fit; equal intervals when `m` of `first` already overfill the line.
fn ramp_of(m: usize, first: f64) -> Vec<f64> {
    if first * m as f64 >= 1.0 || m == 1 {
        return uniform(0.0, 1.0, m);
    }
    let sum = |g: f64| (0..m).map(|k| first * g.powi(k as i32)).sum::<f64>();
    let (mut lo, mut hi) = (1.0, 2.0);
    while sum(hi) < 1.0 {
        hi *= 2.0;
    }
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if sum(mid) > 1.0 {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    let mut x = Vec::with_capacity(m + 1);
    let (mut at, mut h) = (0.0, first);
    x.push(0.0);
    for _ in 1..m {
        at += h;
        h *= lo;
        x.push(at);
    }
    x.push(1.0);
    x
}

fn normalise(v: [f64; 3]) -> [f64; 3] {
    let n = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    v.map(|x| x / n)
}

/// Build the sphere a validated spec describes.
pub fn sphere(spec: &SphereSpec) -> Mesh {
    let layout = SphereLayout::of(spec);
    let n: [u32; 3] = std::array::from_fn(|a| (layout.graded[a].len() - 1) as u32);
    let layers = (layout.radial_graded.len() - 1) as u32;
    let mut placer = Placer {
        spec,
        layout: &layout,
        n,
        layers,
        lines: HashMap::new(),
    };
    let mut ids: HashMap<Key, u32> = HashMap::new();
    let mut keys: Vec<Key> = Vec::new();
    let mut nodes: Vec<[f64; 3]> = Vec::new();
    let mut id_of = |key: Key| -> u32 {
        *ids.entry(key).or_insert_with(|| {
            keys.push(key);
            nodes.push(placer.place(key));
            (nodes.len() - 1) as u32
        })
    };
    let mut elements: Vec<[u32; 8]> = Vec::new();

    for iz in 0..n[2] {
        for iy in 0..n[1] {
            for ix in 0..n[0] {
                elements.push(CORNERS.map(|[dx, dy, dz]| id_of([0, ix + dx, iy + dy, iz + dz])));
            }
        }
    }
    for &(a, side) in &layout.sectors {
        let (b, c) = ((a + 1) % 3, (a + 2) % 3);
        let end = if side > 0.0 { n[a] } else { 0 };
        for k in 0..layers {
            for ic in 0..n[c] {
                for ib in 0..n[b] {
                    let conn = CORNERS.map(|[db, dc, dk]| {
                        let mut key = [k + dk, 0, 0, 0];
                        key[1 + a] = end;
                        key[1 + b] = ib + db;
                        key[1 + c] = ic + dc;
                        id_of(key)
                    });
                    // (b, c, outward) is right-handed on the + side, left-handed on the -.
                    elements.push(if side > 0.0 {
                        conn
                    } else {
                        MIRROR.map(|i| conn[i])
                    });
                }
            }
        }
    }

    let mut mesh = Mesh {
        nodes,
        elements,
        ..Mesh::default()
    };
    name_sets(&mut mesh, spec, &keys, n, layers);
    debug_assert!(mesh
        .elements
        .iter()
        .all(|conn| { jacobian_det_at(&conn.map(|i| mesh.nodes[i as usize]), [0.0; 3]) > 0.0 }));
    mesh
}

/// `surface`, `cut_x|y|z`, `pole` and `all`, from the node keys.
fn name_sets(mesh: &mut Mesh, spec: &SphereSpec, keys: &[Key], n: [u32; 3], layers: u32) {
    let on_surface: Vec<bool> = keys.iter().map(|k| k[0] == layers).collect();
    add_sets(mesh, "surface", &on_surface);
    for h in &spec.keep {
        let (axis, side) = h.axis_and_side();
        let plane = if side > 0.0 { 0 } else { n[axis] };
        let on_cut: Vec<bool> = keys.iter().map(|k| k[1 + axis] == plane).collect();
        add_sets(mesh, ["cut_x", "cut_y", "cut_z"][axis], &on_cut);
    }
    let norm = spec.pole.iter().map(|c| c * c).sum::<f64>().sqrt();
    let target: [f64; 3] =
        std::array::from_fn(|a| spec.centre[a] + spec.radius * spec.pole[a] / norm);
    let pole = (0..mesh.nodes.len())
        .filter(|&i| on_surface[i])
        .map(|i| {
            let x = mesh.nodes[i];
            let d = (0..3).map(|a| (x[a] - target[a]).powi(2)).sum::<f64>();
            (d, i as u32)
        })
        .fold(
            (f64::INFINITY, 0),
            |best, c| if c.0 < best.0 { c } else { best },
        );
    mesh.node_sets.insert("pole".into(), vec![pole.1]);
    mesh.node_sets
        .insert("all".into(), (0..mesh.nodes.len() as u32).collect());
}

/// The node set of the flagged nodes and the face set of the element faces whose four
/// nodes are all flagged (on a sphere or a cut plane only boundary faces are).
fn add_sets(mesh: &mut Mesh, name: &str, flag: &[bool]) {
    let nodes: Vec<u32> = (0..flag.len() as u32)
        .filter(|&i| flag[i as usize])
        .collect();
    let mut faces = Vec::new();
    for (e, conn) in mesh.elements.iter().enumerate() {
        for (f, local) in HEX8_FACES.iter().enumerate() {
            if local.iter().all(|&l| flag[conn[l] as usize]) {
                faces.push([e as u32, f as u32]);
            }
        }
    }
    mesh.node_sets.insert(name.into(), nodes);
    mesh.face_sets.insert(name.into(), faces);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::quality;
    use crate::hex8::NODE_SIGNS;
    use impact_protocol::HalfSpace::{self, *};
    use std::f64::consts::PI;

    fn spec(keep: Vec<HalfSpace>, pole: [f64; 3], smallest: f64, growth: f64) -> SphereSpec {
        SphereSpec {
            centre: [0.5, -1.0, 2.0],
            radius: 1.0,
            keep,
            pole,
            smallest_size: smallest,
            growth,
            largest_size: None,
        }
    }

    /// The exact volume of trilinear hex8s: det J is of degree 2 in each natural
    /// coordinate, so 2 x 2 x 2 Gauss points integrate it exactly.
    fn volume(m: &Mesh) -> f64 {
        let g = 1.0 / 3f64.sqrt();
        m.elements
            .iter()
            .map(|conn| {
                let x = conn.map(|i| m.nodes[i as usize]);
                NODE_SIGNS
                    .iter()
                    .map(|s| jacobian_det_at(&x, [g * s[0], g * s[1], g * s[2]]))
                    .sum::<f64>()
            })
            .sum()
    }

    fn ball() -> f64 {
        4.0 / 3.0 * PI
    }

    #[test]
    fn the_volume_converges_to_the_ball_at_second_order() {
        // Even spacing (growth 1): the facets' chords cut off a volume of order h^2 / R,
        // so halving h divides the error by about 4.
        let coarse = volume(&sphere(&spec(vec![], [1.0, 0.0, 0.0], 0.2, 1.0)));
        let fine = volume(&sphere(&spec(vec![], [1.0, 0.0, 0.0], 0.1, 1.0)));
        let (e1, e2) = (1.0 - coarse / ball(), 1.0 - fine / ball());
        assert!(
            e1 > 0.0 && e2 > 0.0,
            "chords lie inside the sphere: {e1} {e2}"
        );
        assert!((3.0..5.0).contains(&(e1 / e2)), "order: {e1} / {e2}");
        assert!(e2 < 0.01, "{e2}");
    }

    #[test]
    fn a_half_a_quarter_and_an_eighth_hold_their_fraction_of_the_volume() {
        // The same chord error as the ball's on the same spacing: under 1% at h = R/10.
        for (keep, fraction) in [
            (vec![MinusZ], 0.5),
            (vec![PlusY, PlusZ], 0.25),
            (vec![PlusX, MinusY, PlusZ], 0.125),
        ] {
            let pole = [1.0, 0.0, 0.0];
            let v = volume(&sphere(&spec(keep.clone(), pole, 0.1, 1.0)));
            let e = 1.0 - v / (fraction * ball());
            assert!(e > 0.0 && e < 0.01, "{keep:?}: {e}");
        }
    }

    fn assorted() -> Vec<SphereSpec> {
        vec![
            spec(vec![], [0.0, 0.0, -1.0], 0.02, 1.3),
            spec(vec![MinusZ], [0.0, 1.0, 0.0], 0.03, 1.2),
            spec(vec![PlusY, PlusZ], [-1.0, 0.0, 0.0], 0.005, 1.3),
            spec(vec![PlusX, PlusY, PlusZ], [0.0, 0.0, 1.0], 0.01, 1.25),
            spec(vec![], [1.0, 0.5, -0.3], 0.02, 1.2),
        ]
    }

    #[test]
    fn no_element_is_inverted_and_the_surface_lies_on_the_sphere() {
        for s in assorted() {
            let m = sphere(&s);
            for (e, conn) in m.elements.iter().enumerate() {
                let x = conn.map(|i| m.nodes[i as usize]);
                for c in NODE_SIGNS {
                    assert!(jacobian_det_at(&x, c) > 0.0, "{s:?}: element {e}");
                }
            }
            let q = quality(&m);
            // The flat cube's corners, where three sectors meet, are the worst shapes.
            assert!(q.min_jacobian_ratio > 0.3, "{s:?}: {q:?}");
            for &i in &m.node_sets["surface"] {
                let r = dist(m.nodes[i as usize], s.centre);
                assert!((r - 1.0).abs() < 1e-12, "{s:?}: node {i} at radius {r}");
            }
        }
    }

    #[test]
    fn the_elements_at_the_pole_have_the_smallest_size() {
        for s in assorted() {
            let m = sphere(&s);
            let pole = m.node_sets["pole"][0];
            let at = m.nodes[pole as usize];
            let norm = dist(s.pole, [0.0; 3]);
            let target: [f64; 3] = std::array::from_fn(|a| s.centre[a] + s.pole[a] / norm);
            // The pole node is a grid node: on the pole itself when the grading can put
            // one there, always within a smallest size of it.
            assert!(dist(at, target) < s.smallest_size, "{s:?}");
            let mut shortest = f64::INFINITY;
            let mut longest: f64 = 0.0;
            for conn in m.elements.iter().filter(|c| c.contains(&pole)) {
                let x = conn.map(|i| m.nodes[i as usize]);
                let (lo, hi) = crate::generate::quality::edge_range(&x);
                shortest = shortest.min(lo);
                longest = longest.max(hi);
            }
            // Edges along the surface are chords of arcs of the smallest size (shorter by
            // h^2 / 24 R^2, 2e-5 here): 2% on an axis. Off an axis the two face angles
            // meet at a skew angle, so the grid's cells are rhombi whose edges the metric
            // per angle sets but whose radial edges (sized from the shortest neighbour
            // distance) come out shorter: 15% there.
            let on_axis = s.pole.iter().filter(|c| **c != 0.0).count() == 1;
            let tolerance = if on_axis { 0.02 } else { 0.15 };
            assert!(
                (shortest / s.smallest_size - 1.0).abs() < tolerance,
                "{s:?}: shortest edge at the pole {shortest}"
            );
            // The pole's elements are near cubes: the neighbours grow by at most `growth`.
            assert!(
                longest <= s.growth * s.smallest_size * 1.02,
                "{s:?}: {longest}"
            );
        }
    }

    #[test]
    fn the_cuts_and_the_surface_have_their_faces() {
        for s in assorted() {
            let c = SphereLayout::counts(&s);
            let m = sphere(&s);
            assert_eq!(m.elements.len() as u64, c.elements);
            let n = c.axis;
            let layout = SphereLayout::of(&s);
            let surface: u64 = layout
                .sectors
                .iter()
                .map(|&(a, _)| n[(a + 1) % 3] * n[(a + 2) % 3])
                .sum();
            assert_eq!(m.face_sets["surface"].len() as u64, surface);
            for h in &s.keep {
                let (axis, side) = h.axis_and_side();
                let name = ["cut_x", "cut_y", "cut_z"][axis];
                // The cube's cross-section plus, per sector across the plane, its layers.
                let mut faces = n[(axis + 1) % 3] * n[(axis + 2) % 3];
                for &(a, _) in layout.sectors.iter().filter(|(a, _)| *a != axis) {
                    faces += n[3 - a - axis] * c.layers;
                }
                assert_eq!(m.face_sets[name].len() as u64, faces, "{name} of {s:?}");
                for &[e, f] in &m.face_sets[name] {
                    let x =
                        HEX8_FACES[f as usize].map(|l| m.nodes[m.elements[e as usize][l] as usize]);
                    for p in &x {
                        assert_eq!(p[axis], s.centre[axis], "{name} face off its plane");
                    }
                    let normal = face_normal(&x);
                    assert!(
                        normal[axis] * side < 0.0,
                        "{name} face points into the mesh"
                    );
                }
                assert!(m.node_sets[name]
                    .iter()
                    .all(|&i| m.nodes[i as usize][axis] == s.centre[axis]));
            }
            for &[e, f] in &m.face_sets["surface"] {
                let x = HEX8_FACES[f as usize].map(|l| m.nodes[m.elements[e as usize][l] as usize]);
                let normal = face_normal(&x);
                let out: f64 = (0..3).map(|a| normal[a] * (x[0][a] - s.centre[a])).sum();
                assert!(out > 0.0, "a surface face points inwards");
            }
            assert_eq!(m.node_sets["all"].len(), m.nodes.len());
        }
    }

    fn face_normal(p: &[[f64; 3]; 4]) -> [f64; 3] {
        let d1: [f64; 3] = std::array::from_fn(|a| p[2][a] - p[0][a]);
        let d2: [f64; 3] = std::array::from_fn(|a| p[3][a] - p[1][a]);
        [
            d1[1] * d2[2] - d1[2] * d2[1],
            d1[2] * d2[0] - d1[0] * d2[2],
            d1[0] * d2[1] - d1[1] * d2[0],
        ]
    }
}
