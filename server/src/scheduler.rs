//! The solve queue: content-addressed admission (a model already solved or being solved
//! is served by that job), a bounded queue (full answers BUSY at once), a semaphore of
//! concurrent solves, the dedicated rayon pool the solves run on (never the async
//! runtime's threads), the wall-time cap, and a graceful drain on shutdown. A panic inside
//! a solve fails that job only.

use crate::config::ModelLimits;
use crate::errors::RpcError;
use crate::jobs::{job_error, unix_now, Job, JobTable, Phase};
use crate::metrics::Metrics;
use crate::observe::JobObserver;
use crate::results::{interrupted_reason, job_summary, stopped_error, Results};
use crate::store::Record;
use impact_core::{Solution, SolveError, SolveOptions};
use impact_protocol::Model;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The work of one job: the model to solve and how.
pub type Work = Box<dyn FnOnce(&SolveOptions) -> Result<Solution, SolveError> + Send>;

/// The pool and the limits every solve goes through.
pub struct Scheduler {
    pool: Arc<rayon::ThreadPool>,
    threads: usize,
    /// Permits for queued plus running solves: none left means BUSY.
    admission: Arc<Semaphore>,
    /// Permits for running solves.
    slots: Arc<Semaphore>,
    max_concurrent: usize,
    max_queued: usize,
    max_wall: Option<Duration>,
    jobs: Arc<JobTable>,
    results: Arc<Results>,
    metrics: Arc<Metrics>,
    /// Set on shutdown: no new job is admitted.
    closing: AtomicBool,
    /// Test-only fault injection: jobs of models with this title panic inside the solve.
    fault_panic_title: Option<String>,
}

impl Scheduler {
    pub fn new(
        threads: usize,
        max_concurrent: usize,
        max_queued: usize,
        limits: &ModelLimits,
        jobs: Arc<JobTable>,
        results: Arc<Results>,
        metrics: Arc<Metrics>,
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
            pool: Arc::new(pool),
            threads,
            admission: Arc::new(Semaphore::new(max_concurrent + max_queued)),
            slots: Arc::new(Semaphore::new(max_concurrent)),
            max_concurrent,
            max_queued,
            max_wall: limits
                .max_wall_seconds
                .map(|s| Duration::from_secs_f64(s.min(1e9))),
            jobs,
            results,
            metrics,
            closing: AtomicBool::new(false),
            fault_panic_title: None,
        })
    }

    /// Make the solves of models titled `title` panic from inside the core (the
    /// `fault_panic_title` setting, for tests of a panic's path through the real binary).
    pub fn with_fault_panic_title(mut self, title: Option<String>) -> Self {
        if let Some(t) = &title {
            tracing::warn!(title = %t, "fault injection is on: solves of models with this title will panic");
        }
        self.fault_panic_title = title;
        self
    }

    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Jobs waiting for a slot.
    pub fn queue_depth(&self) -> usize {
        let free = self.admission.available_permits();
        let running = self.max_concurrent - self.slots.available_permits();
        (self.max_concurrent + self.max_queued).saturating_sub(free + running)
    }

    /// Admit a validated model: the job that serves it, and whether that is an earlier
    /// job of the same model (then nothing new runs).
    pub fn submit(&self, model: Model) -> Result<(Arc<Job>, bool), RpcError> {
        let key = self.results.key(&model);
        if let Some(job) = self.jobs.by_key(&key) {
            tracing::info!(job = %job.id, "served from an earlier job of the same model");
            self.metrics.cache_hit();
            return Ok((job, true));
        }
        let model = Arc::new(model);
        let solve_model = Arc::clone(&model);
        self.enqueue(
            key,
            model,
            Box::new(move |options| impact_core::solve(&solve_model, options)),
        )
        .map(|job| (job, false))
    }

    /// Admit and queue `work` as a new job of `model` (whose content key is `key`).
    pub fn enqueue(
        &self,
        key: String,
        model: Arc<Model>,
        work: Work,
    ) -> Result<Arc<Job>, RpcError> {
        if self.closing.load(Ordering::Relaxed) {
            return Err(RpcError::busy(
                "the server is shutting down and takes no new solves".into(),
            ));
        }
        let admitted = Arc::clone(&self.admission)
            .try_acquire_owned()
            .map_err(|_| {
                RpcError::busy(format!(
                "{} solves are running and {} waiting, the most this server takes; try again later",
                self.max_concurrent, self.max_queued
            ))
            })?;
        let job = Arc::new(Job::new(
            self.jobs.new_id(),
            key.clone(),
            unix_now(),
            Phase::Queued,
        ));
        self.jobs.insert(Arc::clone(&job));
        self.results.journal(&Record::Submitted {
            job: job.id.clone(),
            key,
            submitted: job.submitted,
        });
        tracing::info!(job = %job.id, "job queued");

        let panic_in_solve = self
            .fault_panic_title
            .as_ref()
            .is_some_and(|t| model.title.as_ref() == Some(t));
        let run = Run {
            job: Arc::clone(&job),
            model,
            pool: Arc::clone(&self.pool),
            jobs: Arc::clone(&self.jobs),
            results: Arc::clone(&self.results),
            metrics: Arc::clone(&self.metrics),
            max_wall: self.max_wall,
            panic_in_solve,
        };
        let slots = Arc::clone(&self.slots);
        tokio::spawn(async move {
            let slot = tokio::select! {
                slot = slots.acquire_owned() => slot.ok(),
                () = stopped_while_queued(&run.job) => None,
            };
            match slot {
                Some(slot) => run.start(work, slot, admitted),
                None => run.end_unstarted(),
            }
        });
        Ok(job)
    }

    /// Stop admitting, let running solves finish for up to `grace`, then stop the rest
    /// (they end failed, interrupted) and wait for them to record it.
    pub async fn drain(&self, grace: Duration) {
        self.closing.store(true, Ordering::Relaxed);
        let deadline = tokio::time::Instant::now() + grace;
        for job in self.jobs.unfinished() {
            if tokio::time::timeout_at(deadline, job.wait_final(None))
                .await
                .is_err()
            {
                break;
            }
        }
        let left = self.jobs.unfinished();
        for job in &left {
            tracing::warn!(job = %job.id, "stopping the job: the server is shutting down");
            job.stop(Some(interrupted_reason(
                "the server shut down while it ran",
            )));
        }
        for job in left {
            // A solve notices the stop within an increment; give a slow one a bound.
            let _ = tokio::time::timeout(Duration::from_secs(10), job.wait_final(None)).await;
        }
    }
}

/// Resolves when a queued job is cancelled (or the server stops it).
async fn stopped_while_queued(job: &Job) {
    let mut rx = job.watch();
    while !job.cancel.load(Ordering::Relaxed) {
        if rx.changed().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

/// One admitted job on its way through the queue and the pool.
struct Run {
    job: Arc<Job>,
    model: Arc<Model>,
    pool: Arc<rayon::ThreadPool>,
    jobs: Arc<JobTable>,
    results: Arc<Results>,
    metrics: Arc<Metrics>,
    max_wall: Option<Duration>,
    /// Fault injection: the solve's observer panics (`Scheduler::with_fault_panic_title`).
    panic_in_solve: bool,
}

impl Run {
    /// Cancelled before it got a slot.
    fn end_unstarted(self) {
        let err = match self.job.stop_reason() {
            Some(why) => stopped_error(&self.job.id, why),
            None => RpcError::from_solve(&self.job.id, SolveError::Cancelled { time: 0.0 }),
        };
        tracing::info!(job = %self.job.id, "job cancelled before it started");
        self.fail(err);
    }

    fn fail(&self, err: RpcError) {
        self.results.journal(&Record::Failed {
            job: self.job.id.clone(),
            error: job_error(&err),
        });
        self.jobs.forget_key(&self.job);
        // Counted before the end shows, so whoever sees it also sees it in /metrics.
        self.metrics.job_ended(false);
        self.job.set_phase(Phase::Failed(err));
    }

    fn start(self, work: Work, slot: OwnedSemaphorePermit, admitted: OwnedSemaphorePermit) {
        let job = Arc::clone(&self.job);
        job.set_phase(Phase::Running);
        tracing::info!(job = %job.id, "solve started");
        let timer = self.max_wall.map(|limit| {
            let job = Arc::clone(&job);
            tokio::spawn(async move {
                tokio::time::sleep(limit).await;
                tracing::warn!(job = %job.id, seconds = limit.as_secs_f64(), "the solve reached the wall-time cap");
                job.stop(Some(format!(
                    "the solve ran past this server's wall-time cap of {} s (max_wall_seconds)",
                    limit.as_secs_f64()
                )));
            })
        });
        let pool = Arc::clone(&self.pool);
        let mut observer = JobObserver::new(Arc::clone(&job));
        if self.panic_in_solve {
            observer = observer.panicking();
        }
        // The closure owns the permits and writes the outcome into the job itself, so a
        // client that hangs up neither frees the slot early nor loses the result.
        pool.spawn(move || {
            let options = SolveOptions {
                cancel: Some(Arc::clone(&job.cancel)),
                observer: Some(Arc::new(observer)),
                pause: Some(Arc::clone(&job.pause)),
            };
            let started = Instant::now();
            let outcome = catch_unwind(AssertUnwindSafe(move || work(&options)));
            let wall_seconds = started.elapsed().as_secs_f64();
            if let Some(timer) = timer {
                timer.abort();
            }
            let id = job.id.clone();
            // An error-level span is on at every log level, so every line of the job's end
            // carries its id.
            let _span = tracing::error_span!("job", job = %id).entered();
            match outcome {
                Ok(Ok(solution)) => {
                    let summary = job_summary(&solution, &id, wall_seconds);
                    let solution = Arc::new(solution);
                    match self.results.keep(&id, solution, &self.model) {
                        Ok(()) => {
                            self.results.journal(&Record::Done {
                                job: id.clone(),
                                summary: Box::new(summary.clone()),
                            });
                            tracing::info!(
                                wall_seconds,
                                nodes = summary.nodes,
                                elements = summary.elements,
                                "solve finished"
                            );
                            self.metrics.solve_seconds(wall_seconds);
                            self.metrics.job_ended(true);
                            job.set_phase(Phase::Done(Box::new(summary)));
                        }
                        Err(reason) => {
                            tracing::error!(reason, "cannot store the result");
                            self.fail(RpcError::internal(format!(
                                "the solve finished but its result cannot be stored: {reason}"
                            )));
                        }
                    }
                }
                Ok(Err(e)) => {
                    let err = match (&e, job.stop_reason()) {
                        (SolveError::Cancelled { .. }, Some(why)) => {
                            let mut err = stopped_error(&id, why);
                            if let SolveError::Cancelled { time } = e {
                                err.data.time = Some(time);
                            }
                            err
                        }
                        _ => RpcError::from_solve(&id, e),
                    };
                    tracing::warn!(wall_seconds, error = %err.message, "solve failed");
                    self.fail(err);
                }
                Err(payload) => {
                    let message = panic_message(&*payload);
                    tracing::error!(panic = message, "solve panicked");
                    self.fail(RpcError::solve_panicked(&id, message));
                }
            }
            drop((slot, admitted));
        });
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

    fn scheduler(concurrent: usize, queued: usize) -> (Scheduler, Arc<JobTable>) {
        let jobs = Arc::new(JobTable::new());
        let s = Scheduler::new(
            2,
            concurrent,
            queued,
            &ModelLimits::default(),
            Arc::clone(&jobs),
            Arc::new(Results::new(1 << 20, None)),
            Arc::new(Metrics::default()),
        )
        .expect("pool");
        (s, jobs)
    }

    fn failing() -> Work {
        Box::new(|_| {
            Err(SolveError::Failed {
                element: Some(3),
                time: 0.5,
                reason: "test work".into(),
            })
        })
    }

    fn model() -> Arc<Model> {
        Arc::new(serde_json::from_str(r#"{"steps":[]}"#).expect("a model"))
    }

    async fn end(job: &Job) -> RpcError {
        match job.wait_final(None).await {
            Some(Phase::Failed(e)) => e,
            other => panic!("expected a failed job, got {other:?}"),
        }
    }

    #[tokio::test]
    async fn a_panicking_solve_fails_its_job_and_the_pool_goes_on() {
        let (s, _) = scheduler(1, 4);
        let job = s
            .enqueue(
                "a".into(),
                model(),
                Box::new(|_| panic!("boom in element 7")),
            )
            .expect("admitted");
        let err = end(&job).await;
        assert_eq!(err.code, codes::SOLVE_FAILED);
        assert!(err.data.reason.contains("boom in element 7"), "{err:?}");
        let job = s.enqueue("b".into(), model(), failing()).expect("admitted");
        let err = end(&job).await;
        assert_eq!(err.data.element, Some(3));
        assert_eq!(err.data.time, Some(0.5));
    }

    #[tokio::test]
    async fn a_full_queue_answers_busy_and_a_cancelled_queued_job_frees_its_place() {
        let (s, _) = scheduler(1, 1);
        let (release, hold) = mpsc::channel::<()>();
        let first = s
            .enqueue(
                "a".into(),
                model(),
                Box::new(move |_| {
                    let _ = hold.recv();
                    Err(SolveError::Cancelled { time: 0.0 })
                }),
            )
            .expect("admitted");
        while !matches!(first.phase(), Phase::Running) {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        let second = s.enqueue("b".into(), model(), failing()).expect("queued");
        assert_eq!(s.queue_depth(), 1);
        let busy = s.enqueue("c".into(), model(), failing()).unwrap_err();
        assert_eq!(busy.code, codes::BUSY);
        second.stop(None);
        let err = end(&second).await;
        assert!(err.data.reason.contains("cancelled"), "{err:?}");
        release.send(()).expect("the first solve waits");
        end(&first).await;
        // Both places are free again.
        let third = s.enqueue("d".into(), model(), failing()).expect("admitted");
        end(&third).await;
    }
}
