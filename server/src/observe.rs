//! The core's observer for one job: progress becomes the job's `JobProgress` (with an
//! estimate of the wall time left) and wakes its watchers; each output's state becomes the
//! snapshot that probes of the running job read.

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
}

impl JobObserver {
    pub fn new(job: Arc<Job>) -> Self {
        JobObserver {
            job,
            started: Instant::now(),
        }
    }
}

/// Wall seconds left if the rest runs at the rate so far (simulated time per wall second).
pub fn eta_seconds(elapsed: f64, time: f64, end_time: f64) -> Option<f64> {
    (time > 0.0 && end_time >= time).then(|| elapsed * (end_time - time) / time)
}

impl Observer for JobObserver {
    fn interval(&self) -> Duration {
        PROGRESS_INTERVAL
    }

    fn progress(&self, p: &Progress) {
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
