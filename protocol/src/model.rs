//! The model a client sends to `solve`: materials, parts with meshes, initial velocities,
//! boundary conditions, contacts, named steps and the controls of the explicit integrator.

use crate::mesh::{GenerateSpec, Mesh};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Model {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Needed when the model has parts.
    #[serde(default)]
    pub materials: Vec<Material>,
    /// Finite-element parts; a model holds parts or particles.
    #[serde(default)]
    pub parts: Vec<Part>,
    /// Discrete spheres with pair contact laws (see docs/particles.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub particles: Option<crate::particles::Particles>,
    #[serde(default)]
    pub initial_velocities: Vec<InitialVelocity>,
    #[serde(default)]
    pub boundary_conditions: Vec<BoundaryCondition>,
    #[serde(default)]
    pub contacts: Vec<Contact>,
    /// Rigid planar walls the parts' nodes cannot cross (see docs/contact.md).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub walls: Vec<RigidWall>,
    /// The acceleration of gravity on every node of the finite-element parts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gravity: Option<[f64; 3]>,
    pub steps: Vec<Step>,
    #[serde(default)]
    pub controls: Controls,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MaterialKind {
    /// Isotropic linear elasticity (a hypoelastic law on the Jaumann rate).
    #[default]
    Elastic,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Material {
    pub name: String,
    #[serde(default)]
    pub kind: MaterialKind,
    /// Young's modulus.
    #[serde(rename = "E")]
    pub youngs_modulus: f64,
    /// Poisson's ratio, in [0, 0.5).
    pub nu: f64,
    /// Density.
    pub rho: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Part {
    pub name: String,
    /// The name of one of the model's materials.
    pub material: String,
    pub mesh: MeshSource,
}

/// A part's mesh: either inline (`nodes`, `elements`, sets) or `{"generate": {...}}`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MeshSource {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generate: Option<GenerateSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<Vec<[f64; 3]>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elements: Option<Vec<[u32; 8]>>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub node_sets: BTreeMap<String, Vec<u32>>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub face_sets: BTreeMap<String, Vec<[u32; 2]>>,
}

impl MeshSource {
    /// The inline mesh, when the source holds one (validation has checked its shape).
    pub fn inline(&self) -> Option<Mesh> {
        match (&self.nodes, &self.elements) {
            (Some(nodes), Some(elements)) => Some(Mesh {
                nodes: nodes.clone(),
                elements: elements.clone(),
                node_sets: self.node_sets.clone(),
                face_sets: self.face_sets.clone(),
            }),
            _ => None,
        }
    }
}

/// A named set of one part: `{"part": "striker", "set": "xmax"}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SetRef {
    pub part: String,
    pub set: String,
}

/// A velocity given to every node of a part, or of one of its node sets, at t = 0.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InitialVelocity {
    pub part: String,
    /// A node set of the part; the whole part when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub set: Option<String>,
    pub velocity: [f64; 3],
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Dof {
    X,
    Y,
    Z,
}

impl Dof {
    pub fn index(self) -> usize {
        match self {
            Dof::X => 0,
            Dof::Y => 1,
            Dof::Z => 2,
        }
    }
}

/// Degrees of freedom held at zero velocity on a node set.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BoundaryCondition {
    pub part: String,
    pub set: String,
    pub fixed: Vec<Dof>,
}

/// Which faces a contact holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ContactKind {
    /// The faces of `secondary` against those of `main`; which is which does not change
    /// the answer.
    #[default]
    SurfaceToSurface,
    /// Every exterior face of the `parts` against every other one.
    General,
    /// The exterior faces of one part (`parts`) against its own, a face's neighbours
    /// (faces sharing a node with it) excluded.
    #[serde(rename = "self")]
    SelfContact,
}

/// What to do with a node found inside a face before the first increment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum InitialPenetration {
    /// Move the node back onto the face before t = 0 (strain-free) and report it.
    #[default]
    Adjust,
    /// Refuse the model, naming the node, the face and the depth.
    Refuse,
}

/// Coulomb friction with an exponential decay from the static to the dynamic coefficient:
/// mu = dynamic + (static - dynamic) exp(-decay |v_slip|).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Friction {
    #[serde(rename = "static")]
    pub static_coefficient: f64,
    /// The dynamic coefficient; the static one when absent.
    #[serde(rename = "dynamic", default, skip_serializing_if = "Option::is_none")]
    pub dynamic_coefficient: Option<f64>,
    /// The decay coefficient (per unit of slip speed); 0 keeps mu at the static value.
    #[serde(default)]
    pub decay: f64,
}

/// How a contact integrates each pair of faces that press on each other (see
/// docs/contact.md). Both ways, which surface is `secondary` and which is `main` does not
/// change the answer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PairIntegration {
    /// Twice, at half the penalty each: once with each face as the secondary one,
    /// projected on that face's plane.
    #[default]
    BothWays,
    /// Once, at the whole penalty, on the plane between the two faces (through the
    /// midpoint of their centres, its normal bisecting theirs): the same pressure to the
    /// integration rule's error on faces that are not parallel, for about 40% less work.
    MidPlane,
}

impl PairIntegration {
    /// Every way, for whatever runs a contact each way (tests, benchmarks).
    pub const ALL: [PairIntegration; 2] = [PairIntegration::BothWays, PairIntegration::MidPlane];
}

/// Penalty contact (segment to segment, see docs/contact.md). Which surface is
/// `secondary` and which is `main` does not change the answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Contact {
    pub name: String,
    #[serde(default)]
    pub kind: ContactKind,
    /// A face set; needed by `surface_to_surface`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secondary: Option<SetRef>,
    /// A face set; needed by `surface_to_surface`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub main: Option<SetRef>,
    /// Part names: the parts of `general` contact, the one part of `self` contact.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<String>,
    /// The user scale `s` of the penalty per area eps = s gamma min(m/A) / dt^2 (see
    /// docs/contact.md); default 0.25.
    #[serde(default = "default_penalty_scale")]
    pub penalty_scale: f64,
    /// Coulomb friction; frictionless when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub friction: Option<Friction>,
    /// Normal contact damping as a fraction of critical, in [0, 1]; default 0.
    #[serde(default)]
    pub damping: f64,
    #[serde(default)]
    pub initial_penetration: InitialPenetration,
    /// Each pair of faces both ways at half the penalty (the default) or once on the
    /// plane between them.
    #[serde(default)]
    pub integration: PairIntegration,
}

pub fn default_penalty_scale() -> f64 {
    0.25
}

/// A rigid plane the parts' nodes stay in front of (on the side its normal points to),
/// optionally moving at a constant velocity; nodes reaching it take Coulomb impulses.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RigidWall {
    pub name: String,
    /// A point of the plane at t = 0.
    pub point: [f64; 3],
    /// The plane's normal, towards the side the nodes stay on (need not be unit).
    pub normal: [f64; 3],
    /// The plane's constant velocity.
    #[serde(default)]
    pub velocity: [f64; 3],
    /// Parts whose nodes the wall holds back; every part when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<String>,
    /// Coulomb friction on the wall; frictionless when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub friction: Option<Friction>,
}

/// A named stretch of simulated time; steps run one after another from the state the
/// previous one left.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Step {
    pub name: String,
    pub duration: f64,
    /// Simulated time between stored output frames; the step's end is always stored.
    pub output_interval: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Controls {
    /// The stable increment is this fraction of the smallest element's critical one.
    #[serde(default = "default_time_step_scale")]
    pub time_step_scale: f64,
    #[serde(default)]
    pub bulk_viscosity: BulkViscosity,
    #[serde(default)]
    pub hourglass: Hourglass,
    /// A cap on the increments of the whole solve; the solve fails past it.
    #[serde(default = "default_max_increments")]
    pub max_increments: u64,
    /// A cap on the faces all contacts hold together; a model past it is refused.
    #[serde(default = "default_max_contact_faces")]
    pub max_contact_faces: u64,
    /// Subcycling: with `L` > 0, a node whose elements all allow a step 2^k times the
    /// stable increment (k <= L) advances with that step, and an element is updated with
    /// the smallest step of its nodes; 0 (the default) advances every node every increment.
    #[serde(default)]
    pub subcycling_levels: u32,
}

impl Default for Controls {
    fn default() -> Self {
        Controls {
            time_step_scale: default_time_step_scale(),
            bulk_viscosity: BulkViscosity::default(),
            hourglass: Hourglass::default(),
            max_increments: default_max_increments(),
            max_contact_faces: default_max_contact_faces(),
            subcycling_levels: 0,
        }
    }
}

pub fn default_time_step_scale() -> f64 {
    0.9
}

pub fn default_max_increments() -> u64 {
    10_000_000
}

pub fn default_max_contact_faces() -> u64 {
    2_000_000
}

/// The most subcycling levels a model may ask for: a step ratio of 2^6 = 64 between the
/// finest and the coarsest nodes, past which graded meshes in practice have no elements.
pub const MAX_SUBCYCLING_LEVELS: u32 = 6;

/// Artificial bulk viscosity q = rho l (quadratic l |tr D|^2 - linear c tr D) in compression.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BulkViscosity {
    #[serde(default = "default_bv_linear")]
    pub linear: f64,
    #[serde(default = "default_bv_quadratic")]
    pub quadratic: f64,
}

impl Default for BulkViscosity {
    fn default() -> Self {
        BulkViscosity {
            linear: default_bv_linear(),
            quadratic: default_bv_quadratic(),
        }
    }
}

fn default_bv_linear() -> f64 {
    0.06
}

fn default_bv_quadratic() -> f64 {
    1.5
}

/// Flanagan-Belytschko viscous hourglass control of the one-point hex8.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Hourglass {
    #[serde(default = "default_hourglass_coefficient")]
    pub coefficient: f64,
}

impl Default for Hourglass {
    fn default() -> Self {
        Hourglass {
            coefficient: default_hourglass_coefficient(),
        }
    }
}

fn default_hourglass_coefficient() -> f64 {
    0.1
}
