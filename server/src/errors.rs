//! The one place that turns what went wrong into a JSON-RPC error: a stable code from
//! `impact_protocol::codes`, a message, and `data` saying what and where.

use impact_core::{ProbeError, SolveError};
use impact_protocol::{codes, ErrorData, InvalidParams, Pointer};
use jsonrpsee::types::{ErrorObject, ErrorObjectOwned};

/// An error as the client will see it.
#[derive(Clone, Debug, PartialEq)]
pub struct RpcError {
    pub code: i32,
    pub message: String,
    // Boxed: errors travel in every Result of the server, keep them one pointer wide.
    pub data: Box<ErrorData>,
}

impl RpcError {
    fn new(code: i32, title: &str, data: ErrorData) -> Self {
        RpcError {
            code,
            message: format!("{title}: {}", data.reason),
            data: Box::new(data),
        }
    }

    /// Bad params; the pointer is into the request's params.
    pub fn invalid_params(e: InvalidParams) -> Self {
        let data = ErrorData {
            pointer: Some(e.pointer),
            reason: e.reason,
            ..ErrorData::default()
        };
        Self::new(codes::INVALID_PARAMS, "invalid params", data)
    }

    /// Bad params found where the pointer is relative to a part of the params (the core
    /// points into the model, the client needs `/model/...`).
    pub fn invalid_params_under(base: &Pointer, e: InvalidParams) -> Self {
        Self::invalid_params(InvalidParams {
            pointer: format!("{base}{}", e.pointer),
            reason: e.reason,
        })
    }

    pub fn unknown_job(job: &str) -> Self {
        let data = ErrorData {
            job: Some(job.to_owned()),
            reason: format!("no job is named '{job}'"),
            ..ErrorData::default()
        };
        Self::new(codes::UNKNOWN_JOB, "unknown job", data)
    }

    /// The job exists but has no result to read yet.
    pub fn not_finished(job: &str) -> Self {
        let data = ErrorData {
            pointer: Some(Pointer::root().at("job").into()),
            job: Some(job.to_owned()),
            reason: format!(
                "job '{job}' has not finished and has no output to read yet; probe it after its first output, or when it is done"
            ),
            ..ErrorData::default()
        };
        Self::new(codes::INVALID_PARAMS, "invalid params", data)
    }

    /// Within the protocol, past one of the server's caps; `pointer` names what.
    pub fn limit_exceeded(pointer: &Pointer, reason: String) -> Self {
        let data = ErrorData {
            pointer: Some(pointer.to_string()),
            reason,
            ..ErrorData::default()
        };
        Self::new(codes::LIMIT_EXCEEDED, "limit exceeded", data)
    }

    /// A missing or wrong bearer token.
    pub fn unauthorized(reason: &str) -> Self {
        let data = ErrorData {
            reason: reason.to_owned(),
            ..ErrorData::default()
        };
        Self::new(codes::UNAUTHORIZED, "unauthorized", data)
    }

    /// A job-control request the job's state does not allow (pause a finished job...).
    pub fn job_state(job: &str, reason: String) -> Self {
        let data = ErrorData {
            pointer: Some(Pointer::root().at("job").into()),
            job: Some(job.to_owned()),
            reason,
            ..ErrorData::default()
        };
        Self::new(codes::INVALID_PARAMS, "invalid params", data)
    }

    pub fn busy(reason: String) -> Self {
        let data = ErrorData {
            reason,
            ..ErrorData::default()
        };
        Self::new(codes::BUSY, "busy", data)
    }

    pub fn internal(reason: String) -> Self {
        let data = ErrorData {
            reason,
            ..ErrorData::default()
        };
        Self::new(codes::INTERNAL_ERROR, "internal error", data)
    }

    /// A solve that panicked: the job failed, the server goes on.
    pub fn solve_panicked(job: &str, message: &str) -> Self {
        let data = ErrorData {
            job: Some(job.to_owned()),
            reason: format!("the solver panicked: {message}"),
            ..ErrorData::default()
        };
        Self::new(codes::SOLVE_FAILED, "solve failed", data)
    }

    /// The core's verdict on a solve of job `job`.
    pub fn from_solve(job: &str, e: SolveError) -> Self {
        let mut err = match e {
            // The core's pointers are relative to the model (impact_core::SolveError).
            SolveError::Invalid(p) => Self::invalid_params_under(&Pointer::root().at("model"), p),
            SolveError::Failed {
                element,
                time,
                reason,
            } => {
                let data = ErrorData {
                    element,
                    time: Some(time),
                    reason,
                    ..ErrorData::default()
                };
                Self::new(codes::SOLVE_FAILED, "solve failed", data)
            }
            SolveError::Cancelled { time } => {
                let data = ErrorData {
                    time: Some(time),
                    reason: format!("the solve was cancelled at t = {time:e}"),
                    ..ErrorData::default()
                };
                Self::new(codes::SOLVE_FAILED, "solve failed", data)
            }
        };
        err.data.job = Some(job.to_owned());
        err
    }

    /// The core's verdict on a probe of job `job`.
    pub fn from_probe(job: &str, e: ProbeError) -> Self {
        let mut err = match e {
            ProbeError::UnknownStep { step, known } => {
                let data = ErrorData {
                    step: Some(step.clone()),
                    reason: format!("the job has no step named '{step}' (it has {known:?})"),
                    ..ErrorData::default()
                };
                Self::new(codes::UNKNOWN_STEP, "unknown step", data)
            }
            ProbeError::Invalid(p) => Self::invalid_params(p),
        };
        err.data.job = Some(job.to_owned());
        err
    }
}

impl From<InvalidParams> for RpcError {
    fn from(e: InvalidParams) -> Self {
        RpcError::invalid_params(e)
    }
}

impl From<RpcError> for ErrorObjectOwned {
    fn from(e: RpcError) -> Self {
        ErrorObject::owned(e.code, e.message, Some(*e.data))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_pointers_land_under_model() {
        let e = SolveError::Invalid(InvalidParams {
            pointer: "/parts/1/mesh/elements/7".into(),
            reason: "inverted".into(),
        });
        let rpc = RpcError::from_solve("j-1", e);
        assert_eq!(rpc.code, codes::INVALID_PARAMS);
        assert_eq!(
            rpc.data.pointer.as_deref(),
            Some("/model/parts/1/mesh/elements/7")
        );
        assert_eq!(rpc.data.job.as_deref(), Some("j-1"));
    }

    #[test]
    fn failed_solve_names_element_and_time() {
        let e = SolveError::Failed {
            element: Some(12),
            time: 0.25,
            reason: "negative volume".into(),
        };
        let rpc = RpcError::from_solve("j-2", e);
        assert_eq!(rpc.code, codes::SOLVE_FAILED);
        assert_eq!(rpc.data.element, Some(12));
        assert_eq!(rpc.data.time, Some(0.25));
    }

    #[test]
    fn unknown_step_names_the_step() {
        let e = ProbeError::UnknownStep {
            step: "Rebound".into(),
            known: vec!["Impact".into()],
        };
        let rpc = RpcError::from_probe("j-3", e);
        assert_eq!(rpc.code, codes::UNKNOWN_STEP);
        assert_eq!(rpc.data.step.as_deref(), Some("Rebound"));
        assert_eq!(rpc.data.job.as_deref(), Some("j-3"));
    }
}
