//! JSON-RPC error codes and the `data` every error carries: what went wrong and where.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Stable error codes. The -327xx/-326xx ones are JSON-RPC 2.0's own.
pub mod codes {
    pub const PARSE_ERROR: i32 = -32700;
    pub const INVALID_REQUEST: i32 = -32600;
    pub const METHOD_NOT_FOUND: i32 = -32601;
    /// Bad params: `data.pointer` names the place in the request.
    pub const INVALID_PARAMS: i32 = -32602;
    pub const INTERNAL_ERROR: i32 = -32603;
    /// No job of that id: `data.job`.
    pub const UNKNOWN_JOB: i32 = -32001;
    /// The job has no step of that name, or the time lies outside it: `data.step`.
    pub const UNKNOWN_STEP: i32 = -32002;
    /// The solve ran and failed (instability, increment cap): `data.element`, `data.time`.
    pub const SOLVE_FAILED: i32 = -32003;
    /// The server cannot take more work now.
    pub const BUSY: i32 = -32004;
    /// A missing or wrong bearer token (the HTTP status is 401 too).
    pub const UNAUTHORIZED: i32 = -32005;
    /// The request is within the protocol but past one of the server's caps
    /// (`server.info` lists them): `data.pointer` names what is too large.
    pub const LIMIT_EXCEEDED: i32 = -32006;
}

/// The `data` member of every Impact error. Fields that do not apply are left out.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ErrorData {
    /// JSON pointer into the request's params, for bad input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pointer: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<String>,
    /// Global element id, for a failed solve.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub element: Option<u32>,
    /// Simulated time, for a failed solve.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<f64>,
    /// The 1-based line of an imported file (mesh.import) where the problem shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    /// A sentence saying what is wrong.
    pub reason: String,
}
