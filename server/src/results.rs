//! Where finished results live: written to the data directory as they finish (so a kill
//! loses none), kept in the byte-bounded memory cache, read back on a miss. Also the
//! content address of a model, and the recovery of the job table after a restart.

use crate::cache::{CacheStats, ResultCache};
use crate::errors::RpcError;
use crate::jobs::{job_error, Job, JobTable, Phase};
use crate::store::{Record, Store};
use impact_core::persist;
use impact_core::Solution;
use impact_protocol::{codes, ErrorData, JobError, Model, SolveSummary};
use sha2::{Digest, Sha256};
use std::sync::Arc;

/// The cache and the data directory behind it.
#[derive(Debug)]
pub struct Results {
    cache: ResultCache,
    store: Option<Store>,
    /// What makes two builds' results differ for one model (see `solver_identity`).
    solver: String,
}

/// This build of the solver: its version and the server binary's size and mtime, so a
/// rebuilt solver never answers from a result an older build computed.
pub fn solver_identity() -> String {
    let exe = std::env::current_exe()
        .and_then(std::fs::metadata)
        .map(|m| {
            let mtime = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            format!("{}:{mtime}", m.len())
        })
        .unwrap_or_default();
    format!("{}/{exe}", env!("CARGO_PKG_VERSION"))
}

impl Results {
    pub fn new(cache_bytes: u64, store: Option<Store>) -> Self {
        let evicts = store.is_some();
        Results {
            cache: ResultCache::new(cache_bytes, evicts),
            store,
            solver: solver_identity(),
        }
    }

    pub fn store(&self) -> Option<&Store> {
        self.store.as_ref()
    }

    /// The content address of a model: SHA-256 of its canonical JSON (the parsed model
    /// written back: key order, spacing and number spelling of the request do not
    /// matter) and of the solver's identity.
    pub fn key(&self, model: &Model) -> String {
        let canonical = serde_json::to_vec(model).unwrap_or_default();
        let mut h = Sha256::new();
        h.update(b"impact-result\n");
        h.update(self.solver.as_bytes());
        h.update(b"\n");
        h.update(&canonical);
        h.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }

    pub fn journal(&self, record: &Record) {
        if let Some(store) = &self.store {
            if let Err(e) = store.append(record) {
                tracing::error!(error = %e, "cannot write the job journal");
            }
        }
    }

    /// Keep a finished result: on disk first (synced), then in memory. Runs on the solve's
    /// thread, before anyone is told the job is done.
    pub fn keep(&self, job: &str, solution: Arc<Solution>, model: &Model) -> Result<(), String> {
        if let Some(store) = &self.store {
            let bytes = persist::encode(&solution, model);
            store.write_result(job, &bytes).map_err(|e| e.to_string())?;
        }
        self.cache.insert(job, solution);
        Ok(())
    }

    /// A finished job's solution, from memory or else from the data directory.
    pub async fn load(self: &Arc<Self>, job: &str) -> Result<Arc<Solution>, RpcError> {
        if let Some(s) = self.cache.get(job) {
            return Ok(s);
        }
        let this = Arc::clone(self);
        let id = job.to_owned();
        let loaded = tokio::task::spawn_blocking(move || this.read(&id))
            .await
            .map_err(|e| RpcError::internal(format!("reading the result failed: {e}")))?;
        let solution = Arc::new(loaded.map_err(|reason| {
            RpcError::internal(format!(
                "the result of job '{job}' cannot be read: {reason}"
            ))
        })?);
        self.cache.insert(job, Arc::clone(&solution));
        Ok(solution)
    }

    fn read(&self, job: &str) -> Result<Solution, String> {
        let store = self
            .store
            .as_ref()
            .ok_or("it left memory and there is no data directory")?;
        let bytes = store.read_result(job).map_err(|e| e.to_string())?;
        let (solution, _model) = persist::decode(&bytes).map_err(|e| e.to_string())?;
        tracing::info!(job, "result read back from the data directory");
        Ok(solution)
    }

    pub fn cache_stats(&self) -> CacheStats {
        self.cache.stats()
    }

    /// Fill the job table from the journal: finished jobs come back done or failed, jobs
    /// that were queued or running when the server stopped come back failed (interrupted).
    pub fn recover(&self, jobs: &JobTable) {
        let Some(store) = &self.store else { return };
        let recovered = match store.replay() {
            Ok(r) => r,
            Err(e) => {
                tracing::error!(error = %e, "cannot read the job journal; starting empty");
                return;
            }
        };
        let (mut done, mut interrupted) = (0usize, 0usize);
        for r in recovered {
            let phase = match r.end {
                Some(Ok(summary)) => {
                    done += 1;
                    Phase::Done(Box::new(summary))
                }
                Some(Err(error)) => Phase::Failed(from_job_error(error)),
                None => {
                    interrupted += 1;
                    let err = interrupted_error(
                        &r.job,
                        "the server stopped while this job was queued or running",
                    );
                    self.journal(&Record::Failed {
                        job: r.job.clone(),
                        error: job_error(&err),
                    });
                    Phase::Failed(err)
                }
            };
            jobs.insert(Arc::new(Job::new(r.job, r.key, r.submitted, phase)));
        }
        tracing::info!(
            done,
            interrupted,
            data_dir = %store.root().display(),
            "jobs recovered from the journal"
        );
    }
}

/// Why a job ended when the server stopped under it.
pub fn interrupted_reason(why: &str) -> String {
    format!("interrupted: {why}; submit the model again to solve it")
}

/// A job that ended because the server stopped under it.
pub fn interrupted_error(job: &str, why: &str) -> RpcError {
    stopped_error(job, interrupted_reason(why))
}

/// A job the server stopped, for the reason given.
pub fn stopped_error(job: &str, reason: String) -> RpcError {
    let data = ErrorData {
        job: Some(job.to_owned()),
        reason,
        ..ErrorData::default()
    };
    RpcError {
        code: codes::SOLVE_FAILED,
        message: format!("solve failed: {}", data.reason),
        data: Box::new(data),
    }
}

pub fn from_job_error(e: JobError) -> RpcError {
    RpcError {
        code: e.code,
        message: e.message,
        data: Box::new(e.data),
    }
}

/// The summary a job keeps: the core's, with the job's id and the wall time.
pub fn job_summary(solution: &Solution, job: &str, wall_seconds: f64) -> SolveSummary {
    let mut summary = solution.summary().clone();
    summary.job = job.to_owned();
    summary.wall_seconds = wall_seconds;
    summary
}
