//! `solve.export`: a finished job's result as VTK XML files for ParaView (.vtu per frame
//! of a finite-element solve, .vtp per frame of a particle solve, a .pvd time series),
//! listed with the plain HTTP route that serves each file, or inline on request.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub const METHOD_EXPORT: &str = "solve.export";

/// `solve.export` params.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExportParams {
    pub job: String,
    /// Put each file's text in the answer too (for small results); otherwise fetch each
    /// file with `GET` at its `url`.
    #[serde(default)]
    pub inline: bool,
    /// List only these files (by name), e.g. to fetch a few inline at a time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub only: Option<Vec<String>>,
}

/// What `solve.export` answers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ExportResult {
    pub job: String,
    /// `unstructured_grid` (.vtu, hexahedra) or `poly_data` (.vtp, one vertex per sphere).
    pub kind: String,
    /// The file name of the time series (.pvd) that lists the frames; open it in ParaView.
    pub series: String,
    /// The frames in time order, then the series.
    pub files: Vec<ExportFile>,
    /// The arrays on the points (nodes or sphere centres).
    pub point_data: Vec<String>,
    /// The arrays on the cells (elements).
    pub cell_data: Vec<String>,
    /// Part (or particle group) names, indexed by the files' `part_id` (or `group_id`).
    pub parts: Vec<String>,
    /// Fields this result does not keep per frame, and why.
    pub not_exported: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ExportFile {
    pub name: String,
    /// The path on this server that answers the file to `GET` (with the bearer token when
    /// the server has one).
    pub url: String,
    /// The frame's simulated time; absent for the series.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<f64>,
    /// The step the frame belongs to; absent for the series.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<String>,
    /// The file's text, when asked for `inline`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
}

/// The route of one exported file: `/export/{job}/{name}`.
pub fn export_url(job: &str, name: &str) -> String {
    format!("/export/{job}/{name}")
}
