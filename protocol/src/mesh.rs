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
}

/// A box of nx × ny × nz equal hex8 elements. Sets named after its sides: node and face
/// sets `xmin`, `xmax`, `ymin`, `ymax`, `zmin`, `zmax`, and the node set `all`.
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
        }
    }

    /// Face set names this generator defines, without building the mesh.
    pub fn face_set_names(&self) -> Vec<&'static str> {
        match self {
            GenerateSpec::Block(_) => BLOCK_SIDES.to_vec(),
        }
    }
}
