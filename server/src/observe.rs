//! The core's observer for one job: progress becomes the job's `JobProgress` (with an
//! estimate of the wall time left) and wakes its watchers; each output's state becomes the
//! snapshot that probes of the running job read. It also carries the test-only fault
//! injection (`fault_panic_title`): no model makes the core panic, so this is how a panic
//! is made to start where a real one would, on the pool worker inside the core's loop.

use crate::jobs::Job;
use impact_core::{Observer, Progress, Solution};
use impact_protocol::JobProgress;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Progress notifications go out at most this often.
pub const PROGRESS_INTERVAL: Duration = Duration::from_millis(250);

#[derive(Debug)]
pub struct JobObserver {
    job: Arc<Job>,
    started: Instant,
    /// Panic at the first progress report after an increment (fault injection for tests).
    panic_in_solve: bool,
}

impl JobObserver {
    pub fn new(job: Arc<Job>) -> Self {
        JobObserver {
            job,
            started: Instant::now(),
            panic_in_solve: false,
        }
    }

    /// Make this job's solve panic from inside the core: the core calls `progress` on the
    /// pool worker that runs its integration loop, so the panic unwinds through the loop,
    /// the core's `rayon::scope` and the pool's job, as a bug in the core would, up to the
    /// scheduler's `catch_unwind`. Only the `fault_panic_title` setting asks for this.
    pub fn panicking(mut self) -> Self {
        self.panic_in_solve = true;
        self
    }
}

/// The start of the message of an injected panic (tests look for it in the job's error).
pub const INJECTED_PANIC: &str = "injected fault (fault_panic_title)";

/// Wall seconds left if the rest runs at the rate so far (simulated time per wall second).
pub fn eta_seconds(elapsed: f64, time: f64, end_time: f64) -> Option<f64> {
    (time > 0.0 && end_time >= time).then(|| elapsed * (end_time - time) / time)
}

impl Observer for JobObserver {
    fn interval(&self) -> Duration {
        PROGRESS_INTERVAL
    }

    fn progress(&self, p: &Progress) {
        if self.panic_in_solve && p.increment > 0 {
            panic!(
                "{INJECTED_PANIC}: job {} panics at increment {}, t = {:e}",
                self.job.id, p.increment, p.time
            );
        }
        let elapsed = self.started.elapsed().as_secs_f64();
        self.job.set_progress(JobProgress {
            step: p.step.clone(),
            time: p.time,
            increment: p.increment,
            dt: p.dt,
            end_time: p.end_time,
            balance_error: p.balance_error,
            elapsed_seconds: elapsed,
            eta_seconds: eta_seconds(elapsed, p.time, p.end_time),
        });
    }

    fn latest(&self, snapshot: Solution) {
        self.job.set_latest(snapshot);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_eta_scales_the_elapsed_time_by_what_is_left() {
        // A quarter of the way in 2 s: 6 s left at the same rate.
        assert_eq!(eta_seconds(2.0, 0.25, 1.0), Some(6.0));
        assert_eq!(eta_seconds(2.0, 0.0, 1.0), None);
    }
}
