//! Params and results of the service's job methods (`solve.submit`, `job.*`, the
//! `job.subscribe` progress stream), the served summary that says whether it came from the
//! cache, and `server.info`'s limits. The solver's own results are in `methods`.

use crate::error::ErrorData;
use crate::methods::{ServerInfo, SolveSummary};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub const METHOD_SUBMIT: &str = "solve.submit";
pub const METHOD_JOB_STATUS: &str = "job.status";
pub const METHOD_JOB_WAIT: &str = "job.wait";
pub const METHOD_JOB_CANCEL: &str = "job.cancel";
pub const METHOD_JOB_LIST: &str = "job.list";
pub const METHOD_JOB_PAUSE: &str = "job.pause";
pub const METHOD_JOB_RESUME: &str = "job.resume";
/// A WebSocket subscription; its notifications are `job.progress`.
pub const METHOD_JOB_SUBSCRIBE: &str = "job.subscribe";
pub const METHOD_JOB_UNSUBSCRIBE: &str = "job.unsubscribe";
pub const NOTIFICATION_JOB_PROGRESS: &str = "job.progress";
pub const METHOD_RPC_DISCOVER: &str = "rpc.discover";

/// A finished solve's summary as served: the summary, and whether it is an earlier job's
/// result for the same model (then `job` names that earlier job and nothing was solved).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ServedSummary {
    #[serde(flatten)]
    pub summary: SolveSummary,
    #[serde(default)]
    pub cached: bool,
}

/// `solve.submit` answers at once with the job that will hold the result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SubmitResult {
    pub job: String,
    pub state: JobStateName,
    /// True when an earlier job of the same model (finished or still running) serves.
    pub cached: bool,
}

/// A job's name in the params of `job.status`, `job.cancel`, `job.resume`, `job.subscribe`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct JobParams {
    pub job: String,
}

/// `job.wait`: block until the job ends or `timeout` seconds pass (then the answer is the
/// job's status at that moment, still `queued`, `running` or `paused`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WaitParams {
    pub job: String,
    /// Seconds; the server's longest wait (`server.info` limits) when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<f64>,
}

/// `job.pause`: hold the solve now, or at a simulated time, or at an increment count.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PauseParams {
    pub job: String,
    /// Hold at the first increment that reaches this simulated time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<f64>,
    /// Hold when this many increments (since t = 0) have been taken.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub increment: Option<u64>,
}

/// `job.list` params: all jobs, or those in one state.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListParams {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<JobStateName>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum JobStateName {
    Queued,
    Running,
    /// Held between increments by `job.pause`.
    Paused,
    Done,
    /// Ended with an error: instability, a limit, a cancel, a panic, or a server restart
    /// while it ran (`error.data.reason` says which).
    Failed,
}

impl JobStateName {
    pub fn is_final(self) -> bool {
        matches!(self, JobStateName::Done | JobStateName::Failed)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            JobStateName::Queued => "queued",
            JobStateName::Running => "running",
            JobStateName::Paused => "paused",
            JobStateName::Done => "done",
            JobStateName::Failed => "failed",
        }
    }
}

/// An error as a job keeps it: the JSON-RPC code, message and data it ended with.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct JobError {
    pub code: i32,
    pub message: String,
    pub data: ErrorData,
}

/// Where a running solve is, with an estimate of the wall time left.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct JobProgress {
    pub step: String,
    /// Simulated time reached.
    pub time: f64,
    /// Increments since t = 0.
    pub increment: u64,
    /// The latest increment.
    pub dt: f64,
    /// Simulated time at the end of the last step.
    pub end_time: f64,
    /// The energy balance error at the latest output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub balance_error: Option<f64>,
    /// Wall seconds since the solve started.
    pub elapsed_seconds: f64,
    /// Wall seconds left, from the rate so far; absent before the first increment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eta_seconds: Option<f64>,
}

/// `job.status`, `job.wait`, `job.cancel`, `job.pause`, `job.resume` answer this; it is
/// also each `job.progress` notification, the last of which has `summary` or `error`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct JobStatus {
    pub job: String,
    pub state: JobStateName,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub progress: Option<JobProgress>,
    /// Where a paused job holds: `[time, increment]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paused_at: Option<(f64, u64)>,
    /// A finished job's summary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<SolveSummary>,
    /// A failed job's error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<JobError>,
}

/// One line of `job.list`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct JobEntry {
    pub job: String,
    pub state: JobStateName,
    /// Seconds since the Unix epoch when the job was submitted.
    pub submitted: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct JobList {
    /// In the order the jobs were submitted.
    pub jobs: Vec<JobEntry>,
}

/// The caps the server enforces; `null` means no cap.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ServiceLimits {
    pub max_request_bytes: u64,
    pub max_response_bytes: u64,
    pub max_connections: u32,
    pub max_nodes: Option<u64>,
    pub max_elements: Option<u64>,
    pub max_contact_faces: Option<u64>,
    pub max_particles: Option<u64>,
    pub max_increments: Option<u64>,
    pub max_wall_seconds: Option<f64>,
    pub max_concurrent_solves: usize,
    pub max_queued: usize,
    /// The longest `job.wait`, in seconds.
    pub max_wait_seconds: f64,
}

/// `server.info` as served: the fixed fields plus the limits and whether a token is asked.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ServiceInfo {
    #[serde(flatten)]
    pub info: ServerInfo,
    pub limits: ServiceLimits,
    /// True when every method needs `Authorization: Bearer <token>`.
    pub auth: bool,
    /// Where finished results are kept; absent when they live in memory only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_dir: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_served_summary_reads_as_a_plain_summary_too() {
        let text = r#"{"job":"j-1","energy":{"kinetic":1,"internal":0,"hourglass":0,
            "viscous":0,"contact":0,"friction":0,"external_work":0,"initial":1,
            "balance_error":0},"contacts":[],"steps":[],"nodes":8,"elements":1,
            "initial_increment":0.1,"wall_seconds":0.5,"cached":true}"#;
        let served: ServedSummary = serde_json::from_str(text).expect("served");
        assert!(served.cached);
        let plain: SolveSummary = serde_json::from_str(text).expect("plain");
        assert_eq!(plain, served.summary);
    }

    #[test]
    fn job_states_are_snake_case() {
        assert_eq!(
            serde_json::to_string(&JobStateName::Paused).expect("json"),
            "\"paused\""
        );
        assert!(JobStateName::Failed.is_final() && !JobStateName::Paused.is_final());
    }
}
