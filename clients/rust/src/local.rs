//! `--local`: the protocol's methods answered in-process by impact-core, with the same
//! validation the server does first (`impact_protocol::validate_model`) and a cache of
//! finished jobs so probes read results rather than re-solving.

use impact_core::{ProbeError, Solution, SolveError, SolveOptions};
use impact_protocol::validate::validate_generate;
use impact_protocol::Pointer;
use impact_protocol::{
    parse_params, validate_model, GenerateSpec, InvalidParams, MeshGenerateResult, ProbeParams,
    ProbeResult, ServerInfo, SolveParams, SolveSummary, METHOD_MESH_GENERATE, METHOD_PROBE,
    METHOD_SERVER_INFO, METHOD_SOLVE,
};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

#[derive(Debug, thiserror::Error)]
pub enum LocalError {
    #[error("{method}: invalid params at {}: {}", pointer_or_root(&.invalid.pointer), .invalid.reason)]
    Invalid {
        method: String,
        invalid: InvalidParams,
    },
    #[error("solve: {0}")]
    Solve(#[from] SolveError),
    #[error("solve.probe: {0}")]
    Probe(#[from] ProbeError),
    #[error("solve.probe: no job '{0}' was solved in this process")]
    UnknownJob(String),
    #[error("no method '{0}' (in-process: solve, solve.probe, mesh.generate, server.info)")]
    UnknownMethod(String),
    #[error("{method}: the answer cannot be encoded: {source}")]
    Encode {
        method: String,
        #[source]
        source: serde_json::Error,
    },
}

fn pointer_or_root(p: &str) -> &str {
    if p.is_empty() {
        "the params' root"
    } else {
        p
    }
}

/// The in-process stand-in for a server: solves on this process's rayon pool and keeps
/// every finished solution under a job id for later probes.
#[derive(Default)]
pub struct Local {
    jobs: BTreeMap<String, Solution>,
    solved: u64,
}

impl Local {
    pub fn new() -> Self {
        Self::default()
    }

    /// Validate and run a model; the summary's job names the cached solution.
    pub fn solve(&mut self, params: &SolveParams) -> Result<SolveSummary, LocalError> {
        validate_model(&params.model, &Pointer::root().at("model")).map_err(|invalid| {
            LocalError::Invalid {
                method: METHOD_SOLVE.into(),
                invalid,
            }
        })?;
        let solution = impact_core::solve(&params.model, &SolveOptions::default())?;
        self.solved += 1;
        let job = format!("local-{}", self.solved);
        let mut summary = solution.summary().clone();
        summary.job = job.clone();
        self.jobs.insert(job, solution);
        Ok(summary)
    }

    /// Probe a job solved by this process.
    pub fn probe(&self, params: &ProbeParams) -> Result<ProbeResult, LocalError> {
        let solution = self
            .jobs
            .get(&params.job)
            .ok_or_else(|| LocalError::UnknownJob(params.job.clone()))?;
        Ok(solution.probe(params)?)
    }

    /// Validate a generator's parameters and build its mesh.
    pub fn mesh_generate(&self, spec: &GenerateSpec) -> Result<MeshGenerateResult, LocalError> {
        validate_generate(spec, &Pointer::root()).map_err(|invalid| LocalError::Invalid {
            method: METHOD_MESH_GENERATE.into(),
            invalid,
        })?;
        let mesh = impact_core::generate(spec);
        Ok(MeshGenerateResult {
            nodes: mesh.nodes.len(),
            elements: mesh.elements.len(),
            quality: impact_core::generate::quality(&mesh),
            mesh,
        })
    }

    pub fn server_info(&self) -> ServerInfo {
        ServerInfo {
            name: "impact (in-process)".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            methods: [
                METHOD_SOLVE,
                METHOD_PROBE,
                METHOD_MESH_GENERATE,
                METHOD_SERVER_INFO,
            ]
            .map(String::from)
            .to_vec(),
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            capabilities: Vec::new(),
        }
    }

    /// Any method by name with JSON params, as a server would take it.
    pub fn call(&mut self, method: &str, params: Value) -> Result<Value, LocalError> {
        match method {
            METHOD_SOLVE => {
                let p: SolveParams = parse(method, &params)?;
                encode(method, &self.solve(&p)?)
            }
            METHOD_PROBE => {
                let p: ProbeParams = parse(method, &params)?;
                encode(method, &self.probe(&p)?)
            }
            METHOD_MESH_GENERATE => {
                let p: GenerateSpec = parse(method, &params)?;
                encode(method, &self.mesh_generate(&p)?)
            }
            METHOD_SERVER_INFO => encode(method, &self.server_info()),
            other => Err(LocalError::UnknownMethod(other.to_string())),
        }
    }
}

/// Parse JSON params into `T`, naming the JSON pointer of a wrong type or missing field.
pub fn parse<T: serde::de::DeserializeOwned>(
    method: &str,
    params: &Value,
) -> Result<T, LocalError> {
    parse_params(&params.to_string()).map_err(|invalid| LocalError::Invalid {
        method: method.to_string(),
        invalid,
    })
}

fn encode<T: Serialize>(method: &str, answer: &T) -> Result<Value, LocalError> {
    serde_json::to_value(answer).map_err(|source| LocalError::Encode {
        method: method.to_string(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_negative_density_is_refused_with_its_pointer_before_any_solve() {
        let mut local = Local::new();
        let params = json!({"model": {
            "materials": [{"name": "m", "E": 1.0, "nu": 0.0, "rho": -1.0}],
            "parts": [{"name": "p", "material": "m",
                       "mesh": {"generate": {"kind": "block", "size": [1, 1, 1], "nx": 1, "ny": 1, "nz": 1}}}],
            "steps": [{"name": "s", "duration": 1.0, "output_interval": 0.5}]
        }});
        match local.call("solve", params) {
            Err(LocalError::Invalid { invalid, .. }) => {
                assert_eq!(invalid.pointer, "/model/materials/0/rho")
            }
            other => panic!("expected an invalid-params error, got {other:?}"),
        }
    }

    #[test]
    fn a_wrong_type_names_its_pointer() {
        let mut local = Local::new();
        match local.call("solve.probe", json!({"job": "j", "at": [[0, 0, "zero"]]})) {
            Err(LocalError::Invalid { invalid, .. }) => assert_eq!(invalid.pointer, "/at/0/2"),
            other => panic!("expected an invalid-params error, got {other:?}"),
        }
    }

    #[test]
    fn probes_of_unknown_jobs_and_unknown_methods_are_errors() {
        let mut local = Local::new();
        assert!(matches!(
            local.call("solve.probe", json!({"job": "nope", "at": [[0, 0, 0]]})),
            Err(LocalError::UnknownJob(j)) if j == "nope"
        ));
        assert!(matches!(
            local.call("solve.cancel", Value::Null),
            Err(LocalError::UnknownMethod(_))
        ));
    }
}
