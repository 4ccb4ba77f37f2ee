//! Params and results of every method: `solve`, `solve.probe`, `mesh.generate`,
//! `server.info`. The summary's field names are fixed points that oracle cases read by
//! JSON pointer (DESIGN.md).

use crate::mesh::{GenerateSpec, Mesh};
use crate::model::Model;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub const METHOD_SOLVE: &str = "solve";
pub const METHOD_PROBE: &str = "solve.probe";
pub const METHOD_HISTORY: &str = "solve.history";
pub const METHOD_MESH_GENERATE: &str = "mesh.generate";
pub const METHOD_SERVER_INFO: &str = "server.info";

/// `solve` params: the model to run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SolveParams {
    pub model: Model,
}

/// What a finished solve reports. `job` is set by the server; everything else comes from
/// the core and is bit-identical for the same model on any thread count.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SolveSummary {
    pub job: String,
    /// Energies at the end of the last step.
    pub energy: EnergySummary,
    pub contacts: Vec<ContactReport>,
    pub steps: Vec<StepReport>,
    pub nodes: usize,
    pub elements: usize,
    /// The stable increment at the start of the solve.
    pub initial_increment: f64,
    /// How many element updates the solve made: elements times increments, fewer with
    /// subcycling (`controls.subcycling_levels`); 0 for particles.
    #[serde(default)]
    pub element_updates: u64,
    /// Wall time of the solve in seconds (not part of the bit-identical comparison).
    pub wall_seconds: f64,
    /// The particle section's results (see docs/particles.md); absent for parts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub particles: Option<crate::particles::ParticleSummary>,
}

/// The energy balance: kinetic + internal + hourglass + viscous + contact + friction +
/// contact_damping = initial + external_work, and `balance_error` = that sum /
/// (initial + external_work) - 1. External work is gravity's and the rigid walls'.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EnergySummary {
    pub kinetic: f64,
    /// Elastic strain energy.
    pub internal: f64,
    /// Work of the hourglass forces.
    pub hourglass: f64,
    /// Work of the bulk viscosity.
    pub viscous: f64,
    /// Energy the contact springs still hold.
    pub contact: f64,
    /// Energy friction has dissipated.
    pub friction: f64,
    /// Energy the contact damping has dissipated.
    #[serde(default)]
    pub contact_damping: f64,
    pub external_work: f64,
    /// Kinetic energy at t = 0.
    pub initial: f64,
    pub balance_error: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ContactReport {
    pub name: String,
    /// The largest magnitude of the total normal force across the interface.
    pub peak_force: f64,
    /// First and last time any force acted; null when the surfaces never touched.
    pub first_contact: Option<f64>,
    pub last_contact: Option<f64>,
    /// The deepest penetration of a node into a face.
    pub max_penetration: f64,
    pub friction_dissipation: f64,
    /// Nodes moved at the start to remove an initial penetration.
    pub adjusted_nodes: Vec<AdjustedNode>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AdjustedNode {
    pub node: u32,
    pub face: [u32; 2],
    pub depth: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StepReport {
    pub name: String,
    /// Simulated time at the end of the step (steps run one after another from t = 0).
    pub end_time: f64,
    /// Increments taken in this step.
    pub increments: u64,
}

/// Which fields a probe returns; all of them when absent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ProbeField {
    Velocity,
    Displacement,
    Position,
}

/// `solve.probe` params: the nodes nearest points (reference configuration) or given
/// node ids, at the end of a step or at a time within it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProbeParams {
    pub job: String,
    /// The step's name; the last step when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<String>,
    #[serde(default)]
    pub at: Vec<[f64; 3]>,
    /// Global node ids (parts' nodes numbered one after another, in part order).
    #[serde(default)]
    pub nodes: Vec<u32>,
    /// A simulated time within the step; the step's end when absent. Between stored
    /// frames the fields are interpolated linearly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fields: Option<Vec<ProbeField>>,
    /// Particle ids (spheres numbered over the groups in order), for a particle model;
    /// there `at` picks the sphere whose centre at t = 0 is nearest.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub particles: Vec<u32>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ProbeResult {
    pub step: String,
    pub time: f64,
    pub nodes: Vec<ProbedNode>,
    /// The probed spheres, for a particle model.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub particles: Vec<crate::particles::ProbedParticle>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ProbedNode {
    /// Global node id.
    pub id: u32,
    pub part: String,
    /// The node's index within its part.
    pub local: u32,
    pub reference: [f64; 3],
    /// Distance from the asked point to the node's reference position (0 for `nodes`).
    pub distance: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub velocity: Option<[f64; 3]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub displacement: Option<[f64; 3]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<[f64; 3]>,
}

/// `mesh.generate` params are a `GenerateSpec`: `{"kind": "block", ...}`.
pub type MeshGenerateParams = GenerateSpec;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MeshGenerateResult {
    pub mesh: Mesh,
    pub nodes: usize,
    pub elements: usize,
    pub quality: crate::mesh::MeshQuality,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ServerInfo {
    pub name: String,
    pub version: String,
    pub methods: Vec<String>,
    pub threads: usize,
    pub capabilities: Vec<String>,
}

/// `solve.history` params: a finished job's contact forces and energy terms against time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HistoryParams {
    pub job: String,
    /// The contacts (or walls) by name; every one when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contacts: Option<Vec<String>>,
    /// At most this many points per series (default 2000): longer series are cut into
    /// this many runs of increments, each giving the point of its largest force.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_points: Option<usize>,
}

/// What `solve.history` answers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HistoryResult {
    pub contacts: Vec<ContactHistory>,
    /// The energy terms at every stored output, as in the summary's `energy`.
    pub energy: EnergyHistory,
}

/// One contact's total normal force (as `peak_force` measures it) at the end of increments.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ContactHistory {
    pub name: String,
    pub time: Vec<f64>,
    pub force: Vec<f64>,
}

/// The energy balance's terms against time, one entry per stored output.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EnergyHistory {
    pub time: Vec<f64>,
    pub kinetic: Vec<f64>,
    pub internal: Vec<f64>,
    pub hourglass: Vec<f64>,
    pub viscous: Vec<f64>,
    pub contact: Vec<f64>,
    pub friction: Vec<f64>,
    pub contact_damping: Vec<f64>,
    pub external_work: Vec<f64>,
    pub balance_error: Vec<f64>,
}
