//! The job table: every job's id, content key, state, progress and latest snapshot, the
//! controls a client steers it with (cancel, pause), and a watch that wakes whoever waits
//! on it. Ids are unique over the server's restarts (the journal carries them on).

use crate::errors::RpcError;
use impact_core::{Pause, Solution};
use impact_protocol::{JobEntry, JobError, JobProgress, JobStateName, JobStatus, SolveSummary};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::sync::watch;

/// Where a job is in its life.
#[derive(Clone, Debug)]
pub enum Phase {
    /// Admitted, waiting for a free solve slot.
    Queued,
    /// On the pool (possibly held by a pause).
    Running,
    /// Its result is in the cache or the data directory.
    Done(Box<SolveSummary>),
    /// The error it ended with; probes of the job answer it again.
    Failed(RpcError),
}

#[derive(Debug)]
struct Inner {
    phase: Phase,
    progress: Option<JobProgress>,
    /// The state at the latest output of a running solve, for probes.
    latest: Option<Arc<Solution>>,
    /// Why the server stopped it (wall-time cap, shutdown), when it did.
    stop_reason: Option<String>,
}

#[derive(Debug)]
pub struct Job {
    pub id: String,
    /// The content address of its model (see `content`).
    pub key: String,
    /// Seconds since the Unix epoch.
    pub submitted: f64,
    pub cancel: Arc<AtomicBool>,
    pub pause: Arc<Pause>,
    inner: Mutex<Inner>,
    /// Bumped at every change of phase, progress or snapshot.
    changed: watch::Sender<u64>,
}

pub fn unix_now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or(Duration::ZERO)
        .as_secs_f64()
}

impl Job {
    pub fn new(id: String, key: String, submitted: f64, phase: Phase) -> Self {
        Job {
            id,
            key,
            submitted,
            cancel: Arc::new(AtomicBool::new(false)),
            pause: Arc::new(Pause::new()),
            inner: Mutex::new(Inner {
                phase,
                progress: None,
                latest: None,
                stop_reason: None,
            }),
            changed: watch::channel(0).0,
        }
    }

    // Each write under this lock is a whole assignment: a poisoned lock still guards
    // consistent data.
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Wake the watchers (a change they cannot see through the phase or progress).
    pub fn bump(&self) {
        self.changed.send_modify(|n| *n = n.wrapping_add(1));
    }

    pub fn phase(&self) -> Phase {
        self.lock().phase.clone()
    }

    pub fn set_phase(&self, phase: Phase) {
        {
            let mut inner = self.lock();
            if matches!(phase, Phase::Done(_) | Phase::Failed(_)) {
                inner.latest = None;
            }
            inner.phase = phase;
        }
        self.bump();
    }

    pub fn set_progress(&self, progress: JobProgress) {
        self.lock().progress = Some(progress);
        self.bump();
    }

    pub fn set_latest(&self, snapshot: Solution) {
        self.lock().latest = Some(Arc::new(snapshot));
        self.bump();
    }

    pub fn latest(&self) -> Option<Arc<Solution>> {
        self.lock().latest.clone()
    }

    /// Stop the solve: a held pause lets go, the loop ends within an increment.
    pub fn stop(&self, reason: Option<String>) {
        {
            let mut inner = self.lock();
            if inner.stop_reason.is_none() {
                inner.stop_reason = reason;
            }
        }
        self.cancel.store(true, Ordering::Relaxed);
        self.pause.release();
        self.bump();
    }

    pub fn stop_reason(&self) -> Option<String> {
        self.lock().stop_reason.clone()
    }

    pub fn state(&self) -> JobStateName {
        match &self.lock().phase {
            Phase::Queued => JobStateName::Queued,
            Phase::Running if self.pause.holding().is_some() => JobStateName::Paused,
            Phase::Running => JobStateName::Running,
            Phase::Done(_) => JobStateName::Done,
            Phase::Failed(_) => JobStateName::Failed,
        }
    }

    pub fn status(&self) -> JobStatus {
        let state = self.state();
        let inner = self.lock();
        let (summary, error) = match &inner.phase {
            Phase::Done(s) => (Some((**s).clone()), None),
            Phase::Failed(e) => (None, Some(job_error(e))),
            Phase::Queued | Phase::Running => (None, None),
        };
        JobStatus {
            job: self.id.clone(),
            state,
            progress: inner.progress.clone(),
            paused_at: self.pause.holding(),
            summary,
            error,
        }
    }

    pub fn watch(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }

    /// Wait until the job has ended or `timeout` has passed; the final phase if it ended.
    pub async fn wait_final(&self, timeout: Option<Duration>) -> Option<Phase> {
        let mut rx = self.watch();
        let ended = async {
            loop {
                let phase = self.phase();
                if matches!(phase, Phase::Done(_) | Phase::Failed(_)) {
                    return phase;
                }
                // The sender lives in self, so it cannot close while we wait.
                if rx.changed().await.is_err() {
                    return self.phase();
                }
            }
        };
        match timeout {
            None => Some(ended.await),
            Some(t) => tokio::time::timeout(t, ended).await.ok(),
        }
    }
}

/// The error in the form a job keeps and reports.
pub fn job_error(e: &RpcError) -> JobError {
    JobError {
        code: e.code,
        message: e.message.clone(),
        data: (*e.data).clone(),
    }
}

/// All jobs, by id and by content key.
#[derive(Debug, Default)]
pub struct JobTable {
    next: AtomicU64,
    jobs: Mutex<Tables>,
}

#[derive(Debug, Default)]
struct Tables {
    by_id: HashMap<String, Arc<Job>>,
    /// Ids in the order of submission.
    order: Vec<String>,
    /// Content key -> the job whose result serves that model (not a failed one).
    by_key: HashMap<String, String>,
}

/// The number in an id `j-<hex>`.
pub fn id_number(id: &str) -> Option<u64> {
    id.strip_prefix("j-")
        .and_then(|hex| u64::from_str_radix(hex, 16).ok())
}

impl JobTable {
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> MutexGuard<'_, Tables> {
        self.jobs.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A fresh id: short, unique over restarts, in the order jobs arrived.
    pub fn new_id(&self) -> String {
        let n = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        format!("j-{n:x}")
    }

    /// Add a job (new, or recovered from the journal); ids go on after the largest seen.
    pub fn insert(&self, job: Arc<Job>) {
        if let Some(n) = id_number(&job.id) {
            self.next.fetch_max(n, Ordering::Relaxed);
        }
        let mut t = self.lock();
        if !matches!(job.phase(), Phase::Failed(_)) {
            t.by_key.insert(job.key.clone(), job.id.clone());
        }
        t.order.push(job.id.clone());
        t.by_id.insert(job.id.clone(), job);
    }

    pub fn get(&self, id: &str) -> Option<Arc<Job>> {
        self.lock().by_id.get(id).cloned()
    }

    /// The job that serves a model of this content key, unless it failed.
    pub fn by_key(&self, key: &str) -> Option<Arc<Job>> {
        let t = self.lock();
        let job = t.by_key.get(key).and_then(|id| t.by_id.get(id)).cloned()?;
        drop(t);
        (!matches!(job.phase(), Phase::Failed(_))).then_some(job)
    }

    /// A failed job serves nobody: the next submission of its model solves again.
    pub fn forget_key(&self, job: &Job) {
        let mut t = self.lock();
        if t.by_key.get(&job.key) == Some(&job.id) {
            t.by_key.remove(&job.key);
        }
    }

    pub fn list(&self, state: Option<JobStateName>) -> Vec<JobEntry> {
        let jobs: Vec<Arc<Job>> = {
            let t = self.lock();
            t.order
                .iter()
                .filter_map(|id| t.by_id.get(id).cloned())
                .collect()
        };
        jobs.into_iter()
            .map(|j| JobEntry {
                job: j.id.clone(),
                state: j.state(),
                submitted: j.submitted,
            })
            .filter(|e| state.is_none_or(|s| s == e.state))
            .collect()
    }

    /// Jobs that have not ended.
    pub fn unfinished(&self) -> Vec<Arc<Job>> {
        let t = self.lock();
        t.by_id
            .values()
            .filter(|j| matches!(j.phase(), Phase::Queued | Phase::Running))
            .cloned()
            .collect()
    }

    /// Jobs in each state.
    pub fn counts(&self) -> HashMap<JobStateName, usize> {
        let jobs: Vec<Arc<Job>> = self.lock().by_id.values().cloned().collect();
        let mut c = HashMap::new();
        for j in jobs {
            *c.entry(j.state()).or_insert(0) += 1;
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(id: &str, key: &str, phase: Phase) -> Arc<Job> {
        Arc::new(Job::new(id.into(), key.into(), 0.0, phase))
    }

    #[test]
    fn ids_go_on_after_recovered_ones() {
        let t = JobTable::new();
        assert_eq!(t.new_id(), "j-1");
        t.insert(job("j-1f", "a", Phase::Queued));
        assert_eq!(t.new_id(), "j-20");
    }

    #[test]
    fn a_failed_job_serves_no_key() {
        let t = JobTable::new();
        let j = job("j-1", "k", Phase::Running);
        t.insert(Arc::clone(&j));
        assert_eq!(t.by_key("k").map(|j| j.id.clone()), Some("j-1".into()));
        j.set_phase(Phase::Failed(RpcError::internal("x".into())));
        assert!(t.by_key("k").is_none());
        assert_eq!(t.list(Some(JobStateName::Failed)).len(), 1);
    }

    #[tokio::test]
    async fn wait_final_wakes_on_the_end_or_times_out() {
        let j = job("j-1", "k", Phase::Running);
        assert!(j
            .wait_final(Some(Duration::from_millis(20)))
            .await
            .is_none());
        let waiter = {
            let j = Arc::clone(&j);
            tokio::spawn(async move { j.wait_final(None).await })
        };
        j.set_phase(Phase::Failed(RpcError::internal("stop".into())));
        let phase = waiter.await.expect("join");
        assert!(matches!(phase, Some(Phase::Failed(_))));
    }
}
