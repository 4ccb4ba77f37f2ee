//! The solve queue: admission (a full queue answers BUSY at once), a semaphore of
//! concurrent solves, and the dedicated rayon pool the solves run on, never the async
//! runtime's threads. A panic inside a solve fails that job only.

use crate::errors::RpcError;
use crate::jobs::{Finished, JobState, JobTable};
use impact_core::{Solution, SolveError, SolveOptions};
use impact_protocol::{Model, SolveSummary};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::{oneshot, Semaphore};

/// The pool and the limits every solve goes through.
pub struct Scheduler {
    pool: rayon::ThreadPool,
    threads: usize,
    /// Permits for queued plus running solves: none left means BUSY.
    admission: Arc<Semaphore>,
    /// Permits for running solves.
    slots: Arc<Semaphore>,
    max_concurrent: usize,
    max_queued: usize,
    jobs: Arc<JobTable>,
}

impl Scheduler {
    pub fn new(
        threads: usize,
        max_concurrent: usize,
        max_queued: usize,
        jobs: Arc<JobTable>,
    ) -> Result<Self, rayon::ThreadPoolBuildError> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("impact-solve-{i}"))
            // Every solve catches its own panics; this only keeps a stray one in the
            // pool's bookkeeping from aborting the process (rayon's default).
            .panic_handler(|payload| {
                tracing::error!(panic = panic_message(&*payload), "panic on the solve pool");
            })
            .build()?;
        Ok(Scheduler {
            pool,
            threads,
            admission: Arc::new(Semaphore::new(max_concurrent + max_queued)),
            slots: Arc::new(Semaphore::new(max_concurrent)),
            max_concurrent,
            max_queued,
            jobs,
        })
    }

    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Run a validated model to the end and answer its summary (with `job` and
    /// `wall_seconds` set); the solution stays in the job table for probes.
    pub async fn solve(&self, model: Model) -> Result<SolveSummary, RpcError> {
        self.run(move || impact_core::solve(&model, &SolveOptions::default()))
            .await
    }

    /// Admit, queue and run one solve `work` on the pool as a new job.
    pub async fn run<W>(&self, work: W) -> Result<SolveSummary, RpcError>
    where
        W: FnOnce() -> Result<Solution, SolveError> + Send + 'static,
    {
        let admitted = self.admission.clone().try_acquire_owned().map_err(|_| {
            RpcError::busy(format!(
                "{} solves are running and {} waiting, the most this server takes; try again later",
                self.max_concurrent, self.max_queued
            ))
        })?;
        let job = self.jobs.new_id();
        self.jobs.set(&job, JobState::Queued);
        // Forget the job if the client goes away while it waits: it never started and
        // nobody holds its id.
        let queued = QueuedGuard {
            jobs: &self.jobs,
            job: &job,
            armed: true,
        };
        let slot = self
            .slots
            .clone()
            .acquire_owned()
            .await
            .map_err(|_| RpcError::internal("the solve queue is closed".into()))?;
        queued.disarm();
        self.jobs.set(&job, JobState::Running);
        tracing::info!(job = %job, "solve started");

        let (tx, rx) = oneshot::channel();
        let jobs = Arc::clone(&self.jobs);
        let id = job.clone();
        // The closure owns the permits and writes the outcome into the job table itself,
        // so a client that hangs up mid-solve neither frees its slot early nor loses the
        // result.
        self.pool.spawn(move || {
            let started = Instant::now();
            let outcome = catch_unwind(AssertUnwindSafe(work));
            let wall_seconds = started.elapsed().as_secs_f64();
            let result = match outcome {
                Ok(Ok(solution)) => {
                    let mut summary = solution.summary().clone();
                    summary.job = id.clone();
                    summary.wall_seconds = wall_seconds;
                    tracing::info!(job = %id, wall_seconds, nodes = summary.nodes, elements = summary.elements, "solve finished");
                    let finished = Arc::new(Finished {
                        solution,
                        summary: summary.clone(),
                    });
                    jobs.set(&id, JobState::Done(finished));
                    Ok(summary)
                }
                Ok(Err(e)) => {
                    let err = RpcError::from_solve(&id, e);
                    tracing::warn!(job = %id, wall_seconds, error = %err.message, "solve failed");
                    jobs.set(&id, JobState::Failed(err.clone()));
                    Err(err)
                }
                Err(payload) => {
                    let message = panic_message(&*payload);
                    tracing::error!(job = %id, panic = message, "solve panicked");
                    let err = RpcError::solve_panicked(&id, message);
                    jobs.set(&id, JobState::Failed(err.clone()));
                    Err(err)
                }
            };
            drop((slot, admitted));
            // The receiver is gone when the client hung up; the table holds the result.
            let _ = tx.send(result);
        });
        rx.await
            .map_err(|_| RpcError::internal(format!("job '{job}' vanished from the solve pool")))?
    }
}

struct QueuedGuard<'a> {
    jobs: &'a JobTable,
    job: &'a str,
    armed: bool,
}

impl QueuedGuard<'_> {
    fn disarm(mut self) {
        self.armed = false;
    }
}

impl Drop for QueuedGuard<'_> {
    fn drop(&mut self) {
        if self.armed {
            tracing::info!(job = %self.job, "client left before its solve started");
            self.jobs.remove(self.job);
        }
    }
}

/// The text of a panic payload (`panic!` gives a `&str` or a `String`).
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> &str {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s
    } else {
        "a panic without a message"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use impact_protocol::codes;
    use std::sync::mpsc;
    use std::time::Duration;

    fn failing() -> Result<Solution, SolveError> {
        Err(SolveError::Failed {
            element: Some(3),
            time: 0.5,
            reason: "test work".into(),
        })
    }

    #[tokio::test]
    async fn a_panicking_solve_fails_its_job_and_the_pool_goes_on() {
        let jobs = Arc::new(JobTable::new());
        let s = Scheduler::new(2, 1, 4, Arc::clone(&jobs)).expect("pool");
        let err = s.run(|| panic!("boom in element 7")).await.unwrap_err();
        assert_eq!(err.code, codes::SOLVE_FAILED);
        assert!(err.data.reason.contains("boom in element 7"), "{err:?}");
        let job = err.data.job.clone().expect("job id");
        assert!(matches!(jobs.get(&job), Some(JobState::Failed(_))));
        // The pool still runs work after the panic.
        let err = s.run(failing).await.unwrap_err();
        assert_eq!(err.data.element, Some(3));
        assert_eq!(err.data.time, Some(0.5));
    }

    #[tokio::test]
    async fn a_full_queue_answers_busy_and_frees_up_after() {
        let jobs = Arc::new(JobTable::new());
        let s = Arc::new(Scheduler::new(1, 1, 0, Arc::clone(&jobs)).expect("pool"));
        let (release, hold) = mpsc::channel::<()>();
        let first = {
            let s = Arc::clone(&s);
            tokio::spawn(async move {
                s.run(move || {
                    // Hold the only slot until the test has seen BUSY.
                    let _ = hold.recv();
                    failing()
                })
                .await
            })
        };
        while jobs.counts().1 == 0 {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        let busy = s.run(failing).await.unwrap_err();
        assert_eq!(busy.code, codes::BUSY);
        release.send(()).expect("the first solve waits");
        let first = first.await.expect("join").unwrap_err();
        assert_eq!(first.code, codes::SOLVE_FAILED);
        // The slot is free again.
        let again = s.run(failing).await.unwrap_err();
        assert_eq!(again.code, codes::SOLVE_FAILED);
    }

    #[tokio::test]
    async fn waiting_solves_queue_behind_the_running_one() {
        let jobs = Arc::new(JobTable::new());
        let s = Arc::new(Scheduler::new(1, 1, 1, Arc::clone(&jobs)).expect("pool"));
        let (release, hold) = mpsc::channel::<()>();
        let first = {
            let s = Arc::clone(&s);
            tokio::spawn(async move {
                s.run(move || {
                    let _ = hold.recv();
                    failing()
                })
                .await
            })
        };
        while jobs.counts().1 == 0 {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        let second = {
            let s = Arc::clone(&s);
            tokio::spawn(async move { s.run(failing).await })
        };
        while jobs.counts().0 == 0 {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        // One running, one queued: the third is one too many.
        assert_eq!(s.run(failing).await.unwrap_err().code, codes::BUSY);
        release.send(()).expect("the first solve waits");
        assert_eq!(
            first.await.expect("join").unwrap_err().code,
            codes::SOLVE_FAILED
        );
        assert_eq!(
            second.await.expect("join").unwrap_err().code,
            codes::SOLVE_FAILED
        );
        assert_eq!(jobs.counts(), (0, 0, 0, 2));
    }
}
