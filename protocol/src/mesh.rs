//! Meshes as data: hex8 nodes, elements, named node and face sets, and the parameters of
//! `mesh.generate`. Ids are 0-based indices into the part's own arrays.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The local node lists of a hex8's six faces, each ordered so that its right-hand normal
/// points out of the element. Face k is Abaqus's S(k+1): S1 z-, S2 z+, S3 y-, S4 x+,
/// S5 y+, S6 x-, for the node order 0..3 counter-clockwise at z- and 4..7 above them.
pub const HEX8_FACES: [[usize; 4]; 6] = [
    [0, 3, 2, 1],
    [4, 5, 6, 7],
    [0, 1, 5, 4],
    [1, 2, 6, 5],
    [2, 3, 7, 6],
    [3, 0, 4, 7],
];

/// An unstructured hex8 mesh.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Mesh {
    /// Reference coordinates of each node.
    pub nodes: Vec<[f64; 3]>,
    /// Eight node indices per element, in the order of `HEX8_FACES`.
    pub elements: Vec<[u32; 8]>,
    /// Named node sets: lists of node indices.
    #[serde(default)]
    pub node_sets: BTreeMap<String, Vec<u32>>,
    /// Named face sets: lists of `[element, local face 0..5]`.
    #[serde(default)]
    pub face_sets: BTreeMap<String, Vec<[u32; 2]>>,
}

/// What `mesh.generate` builds, and what a part's `{"generate": ...}` holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum GenerateSpec {
    Block(BlockSpec),
    Sphere(SphereSpec),
}

/// A box of nx × ny × nz hex8 elements, equal or graded along each axis. Sets named after
/// its sides: node and face sets `xmin`, `xmax`, `ymin`, `ymax`, `zmin`, `zmax`, and the
/// node set `all`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BlockSpec {
    /// The corner with the smallest coordinates.
    #[serde(default)]
    pub origin: [f64; 3],
    /// Edge lengths along x, y and z.
    pub size: [f64; 3],
    pub nx: u32,
    pub ny: u32,
    pub nz: u32,
    /// Per axis, the last element's length over the first's (a geometric progression
    /// from the min side to the max side): above 1 refines towards the min side, below 1
    /// towards the max side. Default [1, 1, 1]: equal elements.
    #[serde(default = "no_grading")]
    pub grading: [f64; 3],
}

fn no_grading() -> [f64; 3] {
    [1.0; 3]
}

/// One half of space bounded by a plane through a sphere's centre normal to an axis.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
pub enum HalfSpace {
    #[serde(rename = "+x")]
    PlusX,
    #[serde(rename = "-x")]
    MinusX,
    #[serde(rename = "+y")]
    PlusY,
    #[serde(rename = "-y")]
    MinusY,
    #[serde(rename = "+z")]
    PlusZ,
    #[serde(rename = "-z")]
    MinusZ,
}

impl HalfSpace {
    /// The axis normal to the cut plane (0, 1, 2) and the side kept (+1 or -1).
    pub fn axis_and_side(self) -> (usize, f64) {
        match self {
            HalfSpace::PlusX => (0, 1.0),
            HalfSpace::MinusX => (0, -1.0),
            HalfSpace::PlusY => (1, 1.0),
            HalfSpace::MinusY => (1, -1.0),
            HalfSpace::PlusZ => (2, 1.0),
            HalfSpace::MinusZ => (2, -1.0),
        }
    }
}

/// A cubed-sphere hex8 mesh of a ball (an inner cube and six shell sectors), or of its
/// half, quarter or eighth cut by planes through the centre normal to the axes, graded
/// towards a pole on the surface: elements of `smallest_size` there, growing by at most
/// `growth` per element away from it. Sets: face and node sets `surface` and, per cut,
/// `cut_x`, `cut_y`, `cut_z`; node sets `pole` (the surface node nearest the pole) and
/// `all`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SphereSpec {
    #[serde(default)]
    pub centre: [f64; 3],
    pub radius: f64,
    /// The half-spaces kept, one per cut axis: none for the ball, `["+y", "+z"]` for the
    /// quarter with y >= 0 and z >= 0 (relative to the centre).
    #[serde(default)]
    pub keep: Vec<HalfSpace>,
    /// The direction from the centre to the pole (need not be unit); it must point into
    /// the kept part. Best along an axis (the centre of a cube face).
    pub pole: [f64; 3],
    /// The element edge length at the pole.
    pub smallest_size: f64,
    /// The largest ratio of neighbouring element sizes away from the pole (>= 1).
    #[serde(default = "default_growth")]
    pub growth: f64,
    /// A cap on the graded element size; none when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub largest_size: Option<f64>,
}

fn default_growth() -> f64 {
    1.2
}

/// The quality of a mesh, reported with every generated one. Sizes are edge lengths.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MeshQuality {
    /// The shortest element edge.
    pub min_size: f64,
    /// The longest element edge.
    pub max_size: f64,
    /// The largest ratio of an element's longest edge to its shortest.
    pub max_aspect_ratio: f64,
    /// The smallest ratio of an element's least to its largest corner Jacobian
    /// determinant: 1 for a parallelepiped, 0 or below for a degenerate or inverted one.
    pub min_jacobian_ratio: f64,
    /// The elements where the worst aspect ratio and the worst Jacobian ratio sit.
    pub worst_aspect_element: u32,
    pub worst_jacobian_element: u32,
}

/// The side names of a block, in the order of its sets.
pub const BLOCK_SIDES: [&str; 6] = ["xmin", "xmax", "ymin", "ymax", "zmin", "zmax"];

impl GenerateSpec {
    /// Node set names this generator defines, without building the mesh.
    pub fn node_set_names(&self) -> Vec<&'static str> {
        match self {
            GenerateSpec::Block(_) => {
                let mut names = BLOCK_SIDES.to_vec();
                names.push("all");
                names
            }
            GenerateSpec::Sphere(s) => {
                let mut names = s.face_set_names();
                names.extend(["pole", "all"]);
                names
            }
        }
    }

    /// Face set names this generator defines, without building the mesh.
    pub fn face_set_names(&self) -> Vec<&'static str> {
        match self {
            GenerateSpec::Block(_) => BLOCK_SIDES.to_vec(),
            GenerateSpec::Sphere(s) => s.face_set_names(),
        }
    }
}

/// The names of the cut planes' sets, by axis.
pub const CUT_SETS: [&str; 3] = ["cut_x", "cut_y", "cut_z"];

impl SphereSpec {
    /// `surface` and the sets of the cut planes, in axis order.
    pub fn face_set_names(&self) -> Vec<&'static str> {
        let mut names = vec!["surface"];
        for (axis, name) in CUT_SETS.iter().enumerate() {
            if self.keep.iter().any(|h| h.axis_and_side().0 == axis) {
                names.push(name);
            }
        }
        names
    }
}
