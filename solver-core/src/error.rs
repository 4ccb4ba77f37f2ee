//! What can go wrong in the core: a model that cannot be set up (with the JSON pointer of
//! the culprit), a solve that fails (with the element and the time), a bad probe.

use impact_protocol::InvalidParams;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SolveError {
    /// The model passed validation but cannot be set up: an inverted or degenerate
    /// element, an initial penetration the model refuses. The pointer is into the model.
    #[error("{0}")]
    Invalid(#[from] InvalidParams),
    /// The solve ran and stopped: a negative volume, an energy blow-up, the increment cap.
    #[error("solve failed at t = {time:e}{}: {reason}", element.map(|e| format!(" in element {e}")).unwrap_or_default())]
    Failed {
        element: Option<u32>,
        time: f64,
        reason: String,
    },
    #[error("the solve was cancelled at t = {time:e}")]
    Cancelled { time: f64 },
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ProbeError {
    #[error("the job has no step named '{step}' (it has {known:?})")]
    UnknownStep { step: String, known: Vec<String> },
    #[error("{0}")]
    Invalid(InvalidParams),
}
