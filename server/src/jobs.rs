//! The job table: every solve's id and state and, once it has finished, its solution kept
//! in memory so that probes read it without solving again.

use crate::errors::RpcError;
use impact_core::Solution;
use impact_protocol::SolveSummary;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// A finished solve: the core's solution and the summary the client was given.
#[derive(Debug)]
pub struct Finished {
    pub solution: Solution,
    pub summary: SolveSummary,
}

/// Where a job is in its life.
#[derive(Clone, Debug)]
pub enum JobState {
    /// Admitted, waiting for a free solve slot.
    Queued,
    /// On the pool.
    Running,
    Done(Arc<Finished>),
    /// The error the solve ended with; probes of the job answer it again.
    Failed(RpcError),
}

/// All jobs of this server's life, by id.
#[derive(Debug, Default)]
pub struct JobTable {
    next: AtomicU64,
    jobs: Mutex<HashMap<String, JobState>>,
}

impl JobTable {
    pub fn new() -> Self {
        Self::default()
    }

    /// A fresh id: short, unique for this server's life, in the order jobs arrived.
    pub fn new_id(&self) -> String {
        let n = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        format!("j-{n:x}")
    }

    // A panic while the lock is held cannot leave a map entry half-written, so a
    // poisoned lock still guards consistent data: keep serving rather than fail every
    // later request.
    fn lock(&self) -> MutexGuard<'_, HashMap<String, JobState>> {
        self.jobs.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub fn set(&self, id: &str, state: JobState) {
        self.lock().insert(id.to_owned(), state);
    }

    pub fn get(&self, id: &str) -> Option<JobState> {
        self.lock().get(id).cloned()
    }

    pub fn remove(&self, id: &str) {
        self.lock().remove(id);
    }

    /// Jobs in each state: (queued, running, done, failed).
    pub fn counts(&self) -> (usize, usize, usize, usize) {
        let mut c = (0, 0, 0, 0);
        for state in self.lock().values() {
            match state {
                JobState::Queued => c.0 += 1,
                JobState::Running => c.1 += 1,
                JobState::Done(_) => c.2 += 1,
                JobState::Failed(_) => c.3 += 1,
            }
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_short() {
        let t = JobTable::new();
        let a = t.new_id();
        let b = t.new_id();
        assert_ne!(a, b);
        assert_eq!(a, "j-1");
        assert_eq!(b, "j-2");
    }

    #[test]
    fn states_are_kept_by_id() {
        let t = JobTable::new();
        t.set("j-1", JobState::Running);
        assert!(matches!(t.get("j-1"), Some(JobState::Running)));
        assert!(t.get("j-2").is_none());
        t.remove("j-1");
        assert!(t.get("j-1").is_none());
    }
}
