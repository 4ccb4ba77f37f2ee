//! Segment-to-segment integration of one secondary face against one main face (Puso and
//! Laursen's segmentation, the penalty at the integration points as Fischer and
//! Wriggers): both faces are projected onto a plane (the secondary face's own, or the
//! plane between the two, `between`, for a contact on the mid-plane), each is split
//! into four triangles about its centre, every pair of triangles whose boxes overlap by
//! more than a sliver and that an edge does not separate is clipped (Sutherland-Hodgman,
//! on the stack), the clipped polygons are cut into triangles (a fan from a vertex: they
//! are convex) and integrated with the three-point rule. On each triangle the faces' shape
//! functions are linear (the centre carries a quarter of each corner), so the gap and the
//! shape functions are linear on every sub-triangle and a uniform pressure gives the
//! consistent nodal forces on both meshes. Being affine in the plane point q, the shape
//! functions are kept as their coefficients of q = (1, q0, q1), made once per triangle:
//! the integration points only add up six moments of q weighted by the pressure, and the
//! moments meet the main face's shape functions once per polygon and the secondary face's
//! once per secondary triangle. `Secondary` holds the secondary face's plane frame,
//! projection and split: on its own plane they do not depend on the main face and are
//! made once per face and increment; on the plane between, once per pair.

use crate::hex8::{cross, dot, norm, sub};
use crate::lanes::{F64x4, Lane};

/// A face in the current configuration.
#[derive(Clone, Copy, Debug, Default)]
pub struct FaceGeometry {
    pub corners: [[f64; 3]; 4],
    pub centre: [f64; 3],
    /// Unit outward normal, from the diagonals' cross product.
    pub normal: [f64; 3],
    pub area: f64,
}

impl FaceGeometry {
    #[inline]
    pub fn new(corners: [[f64; 3]; 4]) -> Self {
        let mut centre = [0.0; 3];
        for c in &corners {
            for k in 0..3 {
                centre[k] += 0.25 * c[k];
            }
        }
        let n = cross(sub(corners[2], corners[0]), sub(corners[3], corners[1]));
        let len = norm(n);
        let normal = if len > 0.0 {
            n.map(|v| v / len)
        } else {
            [0.0; 3]
        };
        FaceGeometry {
            corners,
            centre,
            normal,
            area: 0.5 * len,
        }
    }
}

/// What a face pair contributes: the normal force shared out between nodes.
#[derive(Clone, Copy, Debug, Default)]
pub struct PairForce {
    /// `coupling[a][c]` = sum over integration points of w p N_a M_c: the part of the
    /// normal force between secondary corner a and main corner c. Row sums are the
    /// secondary nodes' forces, column sums the main nodes'.
    pub coupling: [[f64; 4]; 4],
    /// The deepest penetration at an integration point that carries force.
    pub deepest: f64,
}

impl PairForce {
    pub fn total(&self) -> f64 {
        self.coupling.iter().flatten().sum()
    }
}

/// Faces press on each other only when their normals oppose by more than this cosine
/// (about 78 degrees): faces at right angles, like a bar's side beside the end of the
/// next bar, only meet at an edge.
const FACING: f64 = 0.2;

/// The plane two faces press on each other in, when they face each other: through the
/// midpoint of their centres, its unit normal the bisector of the first face's normal and
/// the second's reversed, (n_a - n_b) / |n_a - n_b|. Neither face's plane is preferred, so
/// each pair of faces is integrated once, at the whole penalty, in place of once from
/// each side at half. None when the faces do not face each other (`FACING`).
pub fn between(a: &FaceGeometry, b: &FaceGeometry) -> Option<([f64; 3], [f64; 3])> {
    let facing = dot(a.normal, b.normal);
    if facing.is_nan() || facing >= -FACING {
        return None;
    }
    // |n_a - n_b|^2 = 2 - 2 n_a.n_b > 2.4: no division by a small number.
    let d = sub(a.normal, b.normal);
    let len = norm(d);
    let origin = [0, 1, 2].map(|k| 0.5 * (a.centre[k] + b.centre[k]));
    Some((origin, d.map(|v| v / len)))
}

/// A triangle of a face's split: two corners (local ids) and the centre.
#[derive(Clone, Copy)]
struct Triangle {
    p: [[f64; 2]; 3],
    lo: [f64; 2],
    hi: [f64; 2],
    /// The heights of `p` along the secondary normal, and the face's corners (local ids)
    /// at `p[0]` and `p[1]`: what `fit` needs.
    vertex_heights: [f64; 3],
    corners: [usize; 2],
    /// The face's four shape functions on the triangle (its barycentric coordinates, the
    /// centre's shared a quarter to each corner), lane c for corner c, as affine functions
    /// of the plane point q: `shape[0] + q0 shape[1] + q1 shape[2]`. Zero until `fit`.
    shape: [F64x4; 3],
    /// The height along the secondary normal above the secondary centre, affine the same
    /// way: `height[0] + q0 height[1] + q1 height[2]`. Zero until `fit`.
    height: [f64; 3],
}

impl Triangle {
    /// A placeholder, overwritten before use.
    const EMPTY: Triangle = Triangle {
        p: [[0.0; 2]; 3],
        lo: [0.0; 2],
        hi: [0.0; 2],
        vertex_heights: [0.0; 3],
        corners: [0; 2],
        shape: [F64x4([0.0; 4]); 3],
        height: [0.0; 3],
    };

    /// The triangle of the plane points `p`, with heights `h`, whose first two vertices
    /// are the face's `corners` (local ids) and whose third is its centre: its points and
    /// box, enough to clip by; `fit` adds its shape functions and heights.
    fn new(p: [[f64; 2]; 3], h: [f64; 3], corners: [usize; 2]) -> Self {
        let lo = [
            lesser(lesser(p[0][0], p[1][0]), p[2][0]),
            lesser(lesser(p[0][1], p[1][1]), p[2][1]),
        ];
        let hi = [
            greater(greater(p[0][0], p[1][0]), p[2][0]),
            greater(greater(p[0][1], p[1][1]), p[2][1]),
        ];
        Triangle {
            p,
            lo,
            hi,
            vertex_heights: h,
            corners,
            shape: [F64x4([0.0; 4]); 3],
            height: [0.0; 3],
        }
    }

    /// The shape functions and heights as affine functions of q. A main face's triangle
    /// is fitted only once a clipping leaves a polygon in it: in the block on the plate
    /// (meshes half an element apart) a third of them meet the secondary face in none.
    #[inline(always)]
    fn fit(&mut self) {
        let ([a, b, c], h, corners) = (self.p, self.vertex_heights, self.corners);
        let det = (b[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (b[1] - a[1]);
        let inv = 1.0 / det;
        // The barycentric l1 and l2 are the rows of the triangle's inverse applied to
        // q - a, written as a constant and the two slopes; l0 = 1 - l1 - l2. A degenerate
        // triangle (det 0) makes them NaN, and a NaN gap presses nothing.
        let row = |g: [f64; 2]| [-(g[0] * a[0] + g[1] * a[1]), g[0], g[1]];
        let l1 = row([(c[1] - a[1]) * inv, -(c[0] - a[0]) * inv]);
        let l2 = row([-(b[1] - a[1]) * inv, (b[0] - a[0]) * inv]);
        for (k, (shape, height)) in self.shape.iter_mut().zip(&mut self.height).enumerate() {
            let one = if k == 0 { 1.0 } else { 0.0 };
            let (u, v) = (l1[k], l2[k]);
            *shape = F64x4::splat(0.25 * v);
            shape.0[corners[0]] += one - u - v;
            shape.0[corners[1]] += u;
            // h = h0 l0 + h1 l1 + h2 l2 = h0 + (h1 - h0) l1 + (h2 - h0) l2.
            *height = one * h[0] + (h[1] - h[0]) * u + (h[2] - h[0]) * v;
        }
    }
}

/// The lesser of two numbers, one `minsd`; `f64::min` adds a compare and a blend to pass
/// over a NaN. No NaN need be passed over where these serve: the boxes and height ranges
/// of projected faces (a face with a corner that is not finite has a zero or NaN normal,
/// and the facing test drops it before any box or range made with these is read) and the
/// depths of pressed points (numbers above 0).
#[inline(always)]
fn lesser(a: f64, b: f64) -> f64 {
    if a < b {
        a
    } else {
        b
    }
}

/// The greater of two numbers, one `maxsd` (see `lesser`).
#[inline(always)]
fn greater(a: f64, b: f64) -> f64 {
    if a > b {
        a
    } else {
        b
    }
}

fn signed_area(p: &[[f64; 2]]) -> f64 {
    let mut a = 0.0;
    for i in 0..p.len() {
        let (u, v) = (p[i], p[(i + 1) % p.len()]);
        a += u[0] * v[1] - v[0] * u[1];
    }
    0.5 * a
}

/// Split a projected face into four counter-clockwise triangles about its centre; `h` its
/// corners' and `hc` its centre's heights. Inlined and written out: built through
/// `array::from_fn` the triangles were copied out through memcpy (callgrind).
#[inline(always)]
fn split(p: &[[f64; 2]; 4], h: [f64; 4], hc: f64) -> [Triangle; 4] {
    let pc = [
        0.25 * (p[0][0] + p[1][0] + p[2][0] + p[3][0]),
        0.25 * (p[0][1] + p[1][1] + p[2][1] + p[3][1]),
    ];
    let ccw = signed_area(p) >= 0.0;
    let one = |a: usize| {
        let b = (a + 1) % 4;
        if ccw {
            Triangle::new([p[a], p[b], pc], [h[a], h[b], hc], [a, b])
        } else {
            Triangle::new([p[b], p[a], pc], [h[b], h[a], hc], [b, a])
        }
    };
    [one(0), one(1), one(2), one(3)]
}

/// Whether an edge line of one triangle has the other wholly on or behind it: two
/// triangles are disjoint exactly when one of their six edges separates them. Clipping
/// would leave at most a segment along that edge (the vertices on it, to rounding: an area
/// some 1e-16 of the faces', far under the sliver bound), so the pair is dropped before the
/// clipping. Neighbouring triangles of coincident faces share a spoke: this test drops
/// them, where their boxes overlap.
/// `s_edges` are `edges(&s.p)`, kept with the secondary face.
fn apart(s: &Triangle, s_edges: &[[f64; 2]; 3], m: &Triangle) -> bool {
    let behind = |t: &[[f64; 2]; 3], d: &[[f64; 2]; 3], q: &[[f64; 2]; 3]| {
        (0..3).any(|e| {
            let (a, d) = (t[e], d[e]);
            q.iter()
                .all(|q| d[0] * (q[1] - a[1]) - d[1] * (q[0] - a[0]) <= 0.0)
        })
    };
    behind(&s.p, s_edges, &m.p) || behind(&m.p, &edges(&m.p), &s.p)
}

/// A triangle's edge vectors, `t[e + 1] - t[e]`: a secondary triangle's are taken once a
/// face and increment, not again in every `apart` and `clip` against it.
fn edges(t: &[[f64; 2]; 3]) -> [[f64; 2]; 3] {
    let edge = |e: usize| {
        let (a, b) = (t[e], t[(e + 1) % 3]);
        [b[0] - a[0], b[1] - a[1]]
    };
    [edge(0), edge(1), edge(2)]
}

/// Room for a clipped polygon: Sutherland-Hodgman at most doubles a polygon's vertices at
/// each edge (a vertex and a crossing for each, even if rounding bends a convex polygon), so
/// a triangle clipped by a triangle's three edges has at most 3 * 2^3 = 24.
const MAX_VERTICES: usize = 24;

/// A polygon's slots: a power of two above the bound and the closing copy, so that the
/// clipping writes its vertices at `len & (SLOTS - 1)`, in bounds without a check per vertex;
/// the bound keeps `len` under `SLOTS`, so the mask never wraps.
const SLOTS: usize = 32;

/// A polygon on the stack: no allocation per face pair.
#[derive(Clone, Copy)]
struct Polygon {
    /// Room for the bound and one slot more: the clipping closes the polygon with a copy of
    /// its first vertex there.
    v: [[f64; 2]; SLOTS],
    len: usize,
}

impl Polygon {
    fn new() -> Self {
        Polygon {
            v: [[0.0; 2]; SLOTS],
            len: 0,
        }
    }

    fn vertices(&self) -> &[[f64; 2]] {
        &self.v[..self.len]
    }
}

/// One Sutherland-Hodgman pass: the polygon `first`, `rest` (its vertices after the first,
/// then the first again) clipped by the line through `a` along `d`, keeping its left side,
/// into `out`; returns the count written. The previous vertex and its side are carried in
/// registers, so every side is computed once (the first's twice: the same value), nothing
/// is stored but the output, and the count stays in a register until the pass ends.
#[inline(always)]
fn clip_pass<'a>(
    first: [f64; 2],
    rest: impl IntoIterator<Item = &'a [f64; 2]>,
    a: [f64; 2],
    d: [f64; 2],
    out: &mut Polygon,
) -> usize {
    let side = |q: [f64; 2]| d[0] * (q[1] - a[1]) - d[1] * (q[0] - a[0]);
    let mut p = first;
    let mut sp = side(p);
    let mut len = 0;
    for &q in rest {
        let sq = side(q);
        if sp >= 0.0 {
            out.v[len & (SLOTS - 1)] = p;
            len += 1;
        }
        if (sp >= 0.0) != (sq >= 0.0) {
            let s = sp / (sp - sq);
            out.v[len & (SLOTS - 1)] = [p[0] + s * (q[0] - p[0]), p[1] + s * (q[1] - p[1])];
            len += 1;
        }
        (p, sp) = (q, sq);
    }
    len
}

/// Clip the triangle `m` by the counter-clockwise triangle `t` (Sutherland-Hodgman), into
/// `bufs[0]`, whose `len` is 0 when fewer than three vertices are left (no overlap).
/// Starting from a triangle is what bounds the result by `MAX_VERTICES`. The first pass
/// reads `m` where it is, three vertices the compiler unrolls; the second writes `bufs[1]`
/// and the third `bufs[0]` again.
fn clip(bufs: &mut [Polygon; 2], m: &[[f64; 2]; 3], t: &[[f64; 2]; 3], t_edges: &[[f64; 2]; 3]) {
    let [first, second] = bufs;
    first.len = clip_pass(m[0], &[m[1], m[2], m[0]], t[0], t_edges[0], first);
    // Short-circuited: the plainer form, both passes run and an empty input giving an
    // empty output, counted 1.9% more of the contact's instructions (callgrind).
    if clip_again(first, second, t[1], t_edges[1])
        && clip_again(second, first, t[2], t_edges[2])
        && first.len < 3
    {
        first.len = 0;
    }
}

/// The next pass of `clip`, from `poly` into `out`; false, and both left empty, when `poly`
/// has fewer than three vertices. `out` keeps fewer than three as they are: the next pass
/// or the end of `clip` sees them.
#[inline(always)]
fn clip_again(poly: &mut Polygon, out: &mut Polygon, a: [f64; 2], d: [f64; 2]) -> bool {
    let n = poly.len;
    if n < 3 {
        (poly.len, out.len) = (0, 0);
        return false;
    }
    // The first vertex again after the last closes the polygon.
    poly.v[n] = poly.v[0];
    // At most twice the pass's input, so at most MAX_VERTICES after the third pass.
    out.len = clip_pass(poly.v[0], &poly.v[1..=n], a, d, out).min(MAX_VERTICES);
    true
}

/// The clipping's two polygons, kept by the caller for all the pairs it integrates: made
/// afresh for each pair they were zeroed (a memset) each time, 3% of the contact's
/// instructions in the block on the plate.
#[derive(Clone)]
pub struct Clipping {
    bufs: [Polygon; 2],
}

impl Default for Clipping {
    fn default() -> Self {
        Clipping {
            bufs: [Polygon::new(), Polygon::new()],
        }
    }
}

/// A secondary face made ready for its pairs: its plane frame (centre, normal, the
/// in-plane axes), its corners' projections and heights, their box, and its split. On
/// the face's own plane none of it depends on the main face, so the contact loop builds
/// it once per secondary face and increment instead of once per pair.
#[derive(Clone, Copy)]
pub struct Secondary {
    centre: [f64; 3],
    normal: [f64; 3],
    e1: [f64; 3],
    e2: [f64; 3],
    /// The lowest and highest corner above the plane (through the centre).
    h_lo: f64,
    h_hi: f64,
    /// The projected face's box in the plane.
    lo: [f64; 2],
    hi: [f64; 2],
    split: [Triangle; 4],
    /// The edge vectors of `split`'s triangles (`edges`).
    split_edges: [[[f64; 2]; 3]; 4],
    /// Slivers below this area are rounding, not overlap (faces meeting at an edge).
    sliver: f64,
}

fn bbox(p: &[[f64; 2]; 4]) -> ([f64; 2], [f64; 2]) {
    let mut lo = [f64::INFINITY; 2];
    let mut hi = [f64::NEG_INFINITY; 2];
    for q in p {
        for k in 0..2 {
            lo[k] = lesser(lo[k], q[k]);
            hi[k] = greater(hi[k], q[k]);
        }
    }
    (lo, hi)
}

impl Secondary {
    /// A placeholder for `prepare` to fill.
    pub const EMPTY: Secondary = Secondary {
        centre: [0.0; 3],
        normal: [0.0; 3],
        e1: [0.0; 3],
        e2: [0.0; 3],
        h_lo: 0.0,
        h_hi: 0.0,
        lo: [0.0; 2],
        hi: [0.0; 2],
        split: [Triangle::EMPTY; 4],
        split_edges: [[[0.0; 2]; 3]; 4],
        sliver: 0.0,
    };

    /// None when the face has no in-plane axis (a degenerate face): it presses on nothing.
    pub fn new(sec: &FaceGeometry) -> Option<Self> {
        let mut out = Secondary::EMPTY;
        out.prepare(sec).then_some(out)
    }

    /// Make this the secondary face `sec`, in place (the contact loop keeps one per chunk
    /// of faces: returned by value, its kilobyte went out through a memcpy per face);
    /// false when the face has no in-plane axis.
    pub fn prepare(&mut self, sec: &FaceGeometry) -> bool {
        self.prepare_in(sec, sec.centre, sec.normal)
    }

    /// `prepare`, projecting onto the plane through `origin` with unit normal `n` (the
    /// plane between two faces, `between`) instead of the face's own plane: heights are
    /// measured along `n` from that plane.
    pub fn prepare_in(&mut self, sec: &FaceGeometry, origin: [f64; 3], n: [f64; 3]) -> bool {
        let hs = sec.corners.map(|c| dot(sub(c, origin), n));
        let (h_lo, h_hi) = (
            hs.iter().copied().fold(f64::INFINITY, lesser),
            hs.iter().copied().fold(f64::NEG_INFINITY, greater),
        );
        let t = sub(sec.corners[1], sec.corners[0]);
        let t = sub(t, n.map(|v| v * dot(t, n)));
        let len = norm(t);
        if len.is_nan() || len <= 0.0 {
            return false;
        }
        let e1 = t.map(|v| v / len);
        self.centre = origin;
        self.normal = n;
        self.e1 = e1;
        self.e2 = cross(n, e1);
        self.h_lo = h_lo;
        self.h_hi = h_hi;
        self.sliver = 1e-12 * sec.area;
        let ps = sec.corners.map(|c| self.plane(c));
        (self.lo, self.hi) = bbox(&ps);
        // The centre's height, as the main face's (0 in the face's own plane).
        self.split = split(&ps, hs, dot(sub(sec.centre, origin), n));
        for (t, d) in self.split.iter_mut().zip(&mut self.split_edges) {
            t.fit();
            *d = edges(&t.p);
        }
        true
    }

    fn plane(&self, x: [f64; 3]) -> [f64; 2] {
        let d = sub(x, self.centre);
        [dot(d, self.e1), dot(d, self.e2)]
    }

    /// The penalty forces between this secondary face and a main face, with `eps` the
    /// penalty per area and `depth_limit` the deepest a point may lie behind and still be
    /// in contact. None when they do not press on each other. `clipping` is scratch.
    pub fn integrate(
        &self,
        main: &FaceGeometry,
        eps: f64,
        depth_limit: f64,
        clipping: &mut Clipping,
    ) -> Option<PairForce> {
        let mut force = PairForce::default();
        self.integrate_into(main, eps, depth_limit, clipping, &mut force)
            .then_some(force)
    }

    /// `integrate`, written into `force` (left as it was when the faces do not press):
    /// the contact loop passes its record's own, in place. Returned by value, the force's
    /// 136 bytes went through the stack three times a pair, each copy's wide loads
    /// waiting on the narrower stores before them.
    pub fn integrate_into(
        &self,
        main: &FaceGeometry,
        eps: f64,
        depth_limit: f64,
        clipping: &mut Clipping,
        force: &mut PairForce,
    ) -> bool {
        let n = self.normal;
        let facing = dot(n, main.normal);
        if facing.is_nan() || facing >= -FACING {
            return false;
        }
        // Nothing presses unless some main corner lies below some secondary corner, and
        // nothing counts if the main face lies wholly deeper than the limit.
        let hm = main.corners.map(|c| dot(sub(c, self.centre), n));
        let (hm_lo, hm_hi) = (
            hm.iter().copied().fold(f64::INFINITY, lesser),
            hm.iter().copied().fold(f64::NEG_INFINITY, greater),
        );
        if hm_lo >= self.h_hi || hm_hi < self.h_lo - depth_limit {
            return false;
        }
        let pm = main.corners.map(|c| self.plane(c));
        let (slo, shi) = (self.lo, self.hi);
        let (mlo, mhi) = bbox(&pm);
        if (0..2).any(|k| slo[k] >= mhi[k] || mlo[k] >= shi[k]) {
            return false;
        }
        // The main centre's height is the mean of its corners' (the centre is their mean).
        let mut tm = split(&pm, hm, dot(sub(main.centre, self.centre), n));
        let mut fitted = [false; 4];
        let ts = &self.split;
        let sliver = self.sliver;
        let half_sliver = 0.5 * sliver;
        let mut coupling = [F64x4::splat(0.0); 4];
        let mut deepest = 0.0f64;
        let mut any = false;
        let bufs = &mut clipping.bufs;
        let eps_third = eps / 3.0;
        for (s, s_edges) in ts.iter().zip(&self.split_edges) {
            // sum over this secondary triangle's integration points of w p q M_c, by the
            // powers of q = (1, q0, q1) (rows) and the main corners c (lanes).
            let mut by_main = [F64x4::splat(0.0); 3];
            let mut pressed = false;
            for (m, fitted) in tm.iter_mut().zip(&mut fitted) {
                // The boxes' overlap holds the clipped polygon: when it is thinner than the
                // sliver bound (faces whose edges or spokes meet along a line, off by
                // rounding: most of the triangle pairs of aligned meshes) the polygon would
                // be dropped below, so it is not clipped. Half the bound leaves room for the
                // clipping's and the area's rounding (some 1e-15 of the squared extent).
                let w = lesser(s.hi[0], m.hi[0]) - greater(s.lo[0], m.lo[0]);
                let h = lesser(s.hi[1], m.hi[1]) - greater(s.lo[1], m.lo[1]);
                if (w <= 0.0) | (h <= 0.0) | (w * h <= half_sliver) || apart(s, s_edges, m) {
                    continue;
                }
                clip(bufs, &m.p, &s.p, s_edges);
                let poly = bufs[0].vertices();
                if poly.len() < 3 {
                    continue;
                }
                if !*fitted {
                    m.fit();
                    *fitted = true;
                }
                // Both faces' shape functions and the gap are affine in q on the polygon (it
                // lies in one triangle of each face): N_a = S_ak q_k and M_c = M_ck q_k with
                // q = (1, q0, q1). So the rule's sum of w p N_a M_c is S G M^T, where
                // G = sum over the points of w p q q^T: the points add to six moments, and
                // the faces' shape functions enter once per polygon and triangle.
                let g: [f64; 3] = std::array::from_fn(|k| m.height[k] - s.height[k]);
                let mut moments = [0.0; 6];
                let mut polygon_pressed = false;
                // The polygon's area as the sum of its fan's, for the sliver test after the
                // sums: a shoelace pass of its own before them cost more than the sums of
                // the few slivers the test drops (5% of the polygons in the block on the
                // plate). The fan's areas take differences from one vertex first, so they
                // are also nearer than the shoelace on the plane's coordinates.
                let mut polygon_area = 0.0;
                let mut polygon_deepest = 0.0f64;
                // A fan from a vertex: the integrand is one polynomial over the polygon.
                for i in 1..poly.len() - 1 {
                    let tri = [poly[0], poly[i], poly[i + 1]];
                    let area = 0.5
                        * ((tri[1][0] - tri[0][0]) * (tri[2][1] - tri[0][1])
                            - (tri[2][0] - tri[0][0]) * (tri[1][1] - tri[0][1]));
                    if area <= 0.0 {
                        continue;
                    }
                    polygon_area += area;
                    // The rule's points are (2/3, 1/6, 1/6) and its turns: a sixth of the sum
                    // plus half of one vertex.
                    let sum = [
                        (tri[0][0] + tri[1][0] + tri[2][0]) * (1.0 / 6.0),
                        (tri[0][1] + tri[1][1] + tri[2][1]) * (1.0 / 6.0),
                    ];
                    let weight = area * eps_third;
                    // Written out for the three points: as a loop over `tri` the vertices
                    // went through the stack and the moments were spilled (callgrind).
                    let mut point = |v: [f64; 2]| {
                        let q = [sum[0] + 0.5 * v[0], sum[1] + 0.5 * v[1]];
                        let gap = g[0] + q[0] * g[1] + q[1] * g[2];
                        if gap.is_nan() || gap >= 0.0 || -gap > depth_limit {
                            return;
                        }
                        let wp = weight * -gap;
                        let (w0, w1) = (wp * q[0], wp * q[1]);
                        moments[0] += wp;
                        moments[1] += w0;
                        moments[2] += w1;
                        moments[3] += w0 * q[0];
                        moments[4] += w0 * q[1];
                        moments[5] += w1 * q[1];
                        // -gap is a number above 0 here: no NaN to pass over, as `max` would.
                        // A select, not a branch: which point is deepest follows the
                        // geometry, and the branch was mispredicted at one point in four
                        // (callgrind's branch simulation).
                        polygon_deepest = if -gap > polygon_deepest {
                            -gap
                        } else {
                            polygon_deepest
                        };
                        polygon_pressed = true;
                    };
                    point(tri[0]);
                    point(tri[1]);
                    point(tri[2]);
                }
                if !polygon_pressed || polygon_area <= sliver {
                    continue;
                }
                deepest = greater(deepest, polygon_deepest);
                pressed = true;
                // Splat one by one: `moments.map(F64x4::splat)` was a call out of line.
                let [g00, g01, g02, g11, g12, g22] = moments;
                let [g00, g01, g02] = [F64x4::splat(g00), F64x4::splat(g01), F64x4::splat(g02)];
                let [g11, g12, g22] = [F64x4::splat(g11), F64x4::splat(g12), F64x4::splat(g22)];
                let mc = &m.shape;
                by_main[0] = by_main[0] + g00 * mc[0] + g01 * mc[1] + g02 * mc[2];
                by_main[1] = by_main[1] + g01 * mc[0] + g11 * mc[1] + g12 * mc[2];
                by_main[2] = by_main[2] + g02 * mc[0] + g12 * mc[1] + g22 * mc[2];
            }
            if !pressed {
                continue;
            }
            any = true;
            for (a, row) in coupling.iter_mut().enumerate() {
                let sa = |k: usize| F64x4::splat(s.shape[k].0[a]);
                *row = *row + sa(0) * by_main[0] + sa(1) * by_main[1] + sa(2) * by_main[2];
            }
        }
        if any {
            for (out, row) in force.coupling.iter_mut().zip(&coupling) {
                *out = row.0;
            }
            force.deepest = deepest;
        }
        any
    }
}

/// The penalty forces between a secondary face and a main face (see
/// `Secondary::integrate`), for one pair: the tests' reference. The contact loop makes
/// each face `Secondary` once for all its pairs.
#[cfg(test)]
fn integrate(
    sec: &FaceGeometry,
    main: &FaceGeometry,
    eps: f64,
    depth_limit: f64,
) -> Option<PairForce> {
    Secondary::new(sec)?.integrate(main, eps, depth_limit, &mut Clipping::default())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quad(x0: f64, y0: f64, w: f64, h: f64, z: f64, up: bool) -> FaceGeometry {
        let c = [
            [x0, y0, z],
            [x0 + w, y0, z],
            [x0 + w, y0 + h, z],
            [x0, y0 + h, z],
        ];
        FaceGeometry::new(if up { c } else { [c[0], c[3], c[2], c[1]] })
    }

    /// A face with a corner that is not finite (a solve gone wrong) presses nothing, as the
    /// secondary face or as the main one. The boxes and height ranges (`lesser`, `greater`)
    /// do not pass over a NaN as `f64::min` does, so this must hold without them.
    #[test]
    fn a_face_with_a_corner_that_is_not_finite_presses_nothing() {
        let s = quad(0.0, 0.0, 1.0, 1.0, 0.0, true);
        let m = quad(0.25, 0.25, 0.5, 0.5, -0.01, false);
        assert!(
            integrate(&s, &m, 100.0, 1.0).is_some(),
            "the sound pair presses"
        );
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            for corner in 0..4 {
                for k in 0..3 {
                    let spoil = |f: &FaceGeometry| {
                        let mut corners = f.corners;
                        corners[corner][k] = bad;
                        FaceGeometry::new(corners)
                    };
                    let at = format!("corner {corner}, coordinate {k} = {bad}");
                    assert!(
                        integrate(&spoil(&s), &m, 100.0, 1.0).is_none(),
                        "secondary {at}"
                    );
                    assert!(integrate(&s, &spoil(&m), 100.0, 1.0).is_none(), "main {at}");
                }
            }
        }
    }

    #[test]
    fn a_uniform_gap_gives_consistent_forces_on_both_faces() {
        // Secondary: the unit square facing up at z = 0; main: a 0.5 x 0.5 square facing
        // down at z = -0.01 over its corner region [0.25, 0.75]^2. Pressure eps * 0.01 on
        // the overlap 0.25: the main face takes a quarter of it at each corner; the
        // secondary face takes the integral of its bilinear-on-triangles shape functions.
        let s = quad(0.0, 0.0, 1.0, 1.0, 0.0, true);
        let m = quad(0.25, 0.25, 0.5, 0.5, -0.01, false);
        let eps = 100.0;
        let f = integrate(&s, &m, eps, 1.0).expect("they press");
        let total = eps * 0.01 * 0.25;
        assert!((f.total() - total).abs() < 1e-14, "{}", f.total());
        for c in 0..4 {
            let col: f64 = (0..4).map(|a| f.coupling[a][c]).sum();
            assert!((col - total / 4.0).abs() < 1e-14, "main corner {c}: {col}");
        }
        // By symmetry each secondary corner carries the same share.
        for a in 0..4 {
            let row: f64 = f.coupling[a].iter().sum();
            assert!(
                (row - total / 4.0).abs() < 1e-14,
                "secondary corner {a}: {row}"
            );
        }
        assert!((f.deepest - 0.01).abs() < 1e-15);
    }

    #[test]
    fn an_offset_overlap_shares_the_force_as_the_shape_functions_say() {
        // Main covers x in [0.5, 1.5] of the unit secondary square: the overlap is the
        // half x > 0.5. With the four-triangle shape functions, the integral of N over
        // that half is 3/16 for the corners at x = 1 and 1/16 for those at x = 0 (by hand,
        // triangle by triangle; the bilinear functions give the same: x (1 - y) -> 3/16).
        let s = quad(0.0, 0.0, 1.0, 1.0, 0.0, true);
        let m = quad(0.5, 0.0, 1.0, 1.0, -0.02, false);
        let f = integrate(&s, &m, 1.0, 1.0).expect("they press");
        let p = 0.02;
        let rows: Vec<f64> = (0..4).map(|a| f.coupling[a].iter().sum()).collect();
        let expect = [1.0 / 16.0, 3.0 / 16.0, 3.0 / 16.0, 1.0 / 16.0].map(|v| v * p);
        for (r, e) in rows.iter().zip(expect.iter()) {
            assert!((r - e).abs() < 1e-15, "{rows:?}");
        }
    }

    /// A main face tilted along x: the gap grows linearly, 0.01 (1 + x), over the unit
    /// square. A corner's force, the integral of p N_a, has a quadratic integrand, which the
    /// three-point rule integrates exactly. The four-triangle shape functions reproduce
    /// linear functions, so sum_a x_a N_a = x: multiplied by x and integrated, two corners
    /// at x = 1 give 2 I1 = 1/3 for I1 = int x N_a, and int x = 1/2 leaves I0 = 1/12 for
    /// the corners at x = 0. With int N_a = 1/4: 0.01 eps (1/4 + 1/6) at x = 1 and
    /// 0.01 eps (1/4 + 1/12) at x = 0, on both faces.
    #[test]
    fn a_linear_gap_gives_each_corner_the_integral_of_its_pressure() {
        let s = quad(0.0, 0.0, 1.0, 1.0, 0.0, true);
        let z = |x: f64| -0.01 * (1.0 + x);
        let m = FaceGeometry::new([
            [0.0, 0.0, z(0.0)],
            [0.0, 1.0, z(0.0)],
            [1.0, 1.0, z(1.0)],
            [1.0, 0.0, z(1.0)],
        ]);
        let eps = 100.0;
        let f = integrate(&s, &m, eps, 1.0).expect("they press");
        let at = |x: f64| 0.01 * eps * if x == 1.0 { 5.0 / 12.0 } else { 1.0 / 3.0 };
        for (a, corner) in s.corners.iter().enumerate() {
            let row: f64 = f.coupling[a].iter().sum();
            assert!((row - at(corner[0])).abs() < 1e-14, "secondary {a}: {row}");
        }
        for (c, corner) in m.corners.iter().enumerate() {
            let column: f64 = (0..4).map(|a| f.coupling[a][c]).sum();
            assert!((column - at(corner[0])).abs() < 1e-14, "main {c}: {column}");
        }
        // The deepest integration point lies inside the square, short of the deepest edge.
        assert!(f.deepest > 0.01 && f.deepest < 0.02, "{}", f.deepest);
    }

    /// The contact loop makes a face `Secondary` once and integrates all its pairs with
    /// it: that gives the bits of a fresh one for every pair, whatever the order.
    #[test]
    fn a_secondary_made_once_gives_the_bits_of_one_made_per_pair() {
        let s = FaceGeometry::new([
            [0.0, 0.0, 0.001],
            [1.0, 0.1, 0.0],
            [1.1, 0.9, -0.002],
            [-0.1, 1.0, 0.0],
        ]);
        let mains: Vec<FaceGeometry> = (0..9)
            .map(|k| {
                let (x0, y0) = (-0.5 + 0.5 * (k % 3) as f64, -0.5 + 0.5 * (k / 3) as f64);
                let z = -0.01 - 0.001 * k as f64;
                FaceGeometry::new([
                    [x0, y0, z],
                    [x0, y0 + 0.7, z + 0.002],
                    [x0 + 0.8, y0 + 0.75, z],
                    [x0 + 0.7, y0 - 0.05, z - 0.001],
                ])
            })
            .collect();
        let once = Secondary::new(&s).expect("a proper face");
        let bits = |f: Option<PairForce>| {
            f.map(|f| (f.coupling.map(|r| r.map(f64::to_bits)), f.deepest.to_bits()))
        };
        let mut pressed = 0;
        // One scratch for every pair, as the contact loop keeps it.
        let mut clipping = Clipping::default();
        for m in mains.iter().chain(mains.iter().rev()) {
            let reused = once.integrate(m, 100.0, 0.5, &mut clipping);
            pressed += usize::from(reused.is_some());
            assert_eq!(bits(reused), bits(integrate(&s, m, 100.0, 0.5)));
        }
        assert_eq!(pressed, 18, "every main face overlaps the secondary");
    }

    /// The block on the plate: faces half an element off, so a main corner sits on the
    /// secondary centre and the faces' spokes lie along each other. Shifted by rounding,
    /// most triangle pairs then meet in boxes a rounding thin, which are not clipped: the
    /// force is still the quarter's, shared out in full.
    #[test]
    fn a_quarter_overlap_off_by_rounding_gives_the_quarter_force() {
        let s = quad(0.0, 0.0, 1.0, 1.0, 0.0, true);
        let eps = 100.0;
        for shift in [0.0, 1e-15, -1e-15, 3e-16] {
            let m = quad(0.5 + shift, 0.5 - shift, 1.0, 1.0, -0.01, false);
            let f = integrate(&s, &m, eps, 1.0).expect("they press");
            let total = eps * 0.01 * 0.25;
            assert!((f.total() - total).abs() < 1e-13, "{shift}: {}", f.total());
            let rows: f64 = f.coupling.iter().map(|r| r.iter().sum::<f64>()).sum();
            let columns: f64 = (0..4)
                .map(|c| (0..4).map(|a| f.coupling[a][c]).sum::<f64>())
                .sum();
            assert!((rows - total).abs() < 1e-13 && (columns - total).abs() < 1e-13);
        }
    }

    /// The sliver bound (1e-12 of the secondary face's area, on the polygon's fan areas):
    /// a corner of a diamond-shaped main face pokes a depth d into the secondary's edge,
    /// an overlap of two right triangles of area d^2 / 2, split by the main face's spoke.
    /// Each triangle's box is twice its area, so at d = 1e-6 the box test (half the bound)
    /// lets them through to the clipping, and the area test (0.5e-12, under the bound)
    /// drops them; at d = 3e-6 they press with their whole uniform pressure.
    #[test]
    fn polygons_under_the_sliver_bound_press_nothing_and_over_it_in_full() {
        let s = quad(0.0, 0.0, 1.0, 1.0, 0.0, true);
        let eps = 100.0;
        let poke = |d: f64| {
            let (x, y, z) = (0.5, 1.0 - d, -0.01);
            // Clockwise seen from above: its normal points down, against the secondary's.
            let m = FaceGeometry::new([
                [x, y, z],
                [x - 1.0, y + 1.0, z],
                [x, y + 2.0, z],
                [x + 1.0, y + 1.0, z],
            ]);
            integrate(&s, &m, eps, 1.0)
        };
        assert!(poke(1e-6).is_none(), "two polygons of half the bound each");
        let d = 3e-6;
        let f = poke(d).expect("two polygons of 4.5 times the bound press");
        let total = eps * 0.01 * d * d;
        // Coordinates near 1 carry rounding of 1e-16, some 3e-11 of the depth.
        assert!(((f.total() - total) / total).abs() < 1e-9, "{}", f.total());
    }

    /// Clip `m` by `s` on fresh buffers; the polygon left.
    fn clipped(m: [[f64; 2]; 3], s: &[[f64; 2]; 3]) -> Vec<[f64; 2]> {
        let mut clipping = Clipping::default();
        clip(&mut clipping.bufs, &m, s, &edges(s));
        clipping.bufs[0].vertices().to_vec()
    }

    /// Two equilateral triangles about the same centre, one turned half a turn: their
    /// overlap is the regular hexagon of the six-pointed star, two thirds of either
    /// (nine small triangles make each, six the hexagon), its corners at sqrt(3) / 3 of
    /// the circumradius from the centre.
    #[test]
    fn clipping_a_triangle_by_its_half_turn_leaves_the_star_s_hexagon() {
        let at = |degrees: f64| {
            let r = degrees.to_radians();
            [r.cos(), r.sin()]
        };
        let up = [at(90.0), at(210.0), at(330.0)];
        let down = [at(270.0), at(30.0), at(150.0)];
        let hexagon = clipped(down, &up);
        assert_eq!(hexagon.len(), 6, "{hexagon:?}");
        // Unit coordinates: rounding of some 1e-16 in each crossing.
        let third = signed_area(&up) / 3.0;
        assert!((signed_area(&hexagon) - 2.0 * third).abs() < 1e-14);
        for q in &hexagon {
            let r = (q[0] * q[0] + q[1] * q[1]).sqrt();
            assert!((r - 3f64.sqrt() / 3.0).abs() < 1e-14, "{q:?} at {r}");
        }
        // A triangle inside the other comes back as it went in, vertex for vertex.
        let small = [[0.0, -0.1], [0.1, 0.1], [-0.1, 0.1]];
        assert_eq!(clipped(small, &up), small.to_vec());
        // Off to one side: nothing is left.
        let off = down.map(|q| [q[0] + 3.0, q[1]]);
        assert!(clipped(off, &up).is_empty());
        // Sharing an edge from the other side: at most a segment on it, no area (`apart`
        // drops such pairs before they are clipped).
        let below = [up[2], up[1], [0.0, -1.5]];
        assert_eq!(signed_area(&clipped(below, &up)), 0.0);
    }

    #[test]
    fn faces_apart_or_back_to_back_do_not_press() {
        let s = quad(0.0, 0.0, 1.0, 1.0, 0.0, true);
        assert!(integrate(&s, &quad(0.0, 0.0, 1.0, 1.0, 0.01, false), 1.0, 1.0).is_none());
        assert!(integrate(&s, &quad(0.0, 0.0, 1.0, 1.0, -0.01, true), 1.0, 1.0).is_none());
        // Deeper than the limit: the main face is behind the secondary's own element.
        assert!(integrate(&s, &quad(0.0, 0.0, 1.0, 1.0, -0.6, false), 1.0, 0.5).is_none());
    }
}
