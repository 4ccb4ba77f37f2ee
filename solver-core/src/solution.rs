//! A finished solve: its summary, the stored frames, and the probe that reads them.

use crate::error::ProbeError;
use impact_protocol::{ProbeParams, ProbeResult, SolveSummary};

/// Everything a solve leaves behind; the server caches it and answers probes from it.
#[derive(Clone, Debug)]
pub struct Solution {
    summary: SolveSummary,
}

impl Solution {
    /// The summary; `job` is empty, for the server to fill in.
    pub fn summary(&self) -> &SolveSummary {
        &self.summary
    }

    /// The nodes nearest the asked points (reference configuration) or the given node ids,
    /// at the end of a step or at a time within it.
    pub fn probe(&self, params: &ProbeParams) -> Result<ProbeResult, ProbeError> {
        let _ = params;
        Err(ProbeError::UnknownStep {
            step: String::new(),
            known: vec![],
        })
    }

    /// Approximate bytes this solution holds, for a cache's weigher.
    pub fn approximate_bytes(&self) -> usize {
        std::mem::size_of::<Self>()
    }
}
