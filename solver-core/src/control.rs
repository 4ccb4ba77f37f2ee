//! Watching and steering a running solve from outside it: progress reports at most every
//! so often of wall time, the latest stored state for probes of an unfinished solve, and
//! a pause (now, at a simulated time or at an increment) that the integration loops honour
//! between increments, waiting on a condition variable rather than spinning.
//!
//! The integration loops see all of it through `Live`; callers set it up through
//! `SolveOptions::{observer, pause}`.

use crate::assembly::Assembly;
use crate::error::SolveError;
use crate::solution::{Frame, Solution};
use crate::SolveOptions;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// Where a running solve is.
#[derive(Clone, Debug, PartialEq)]
pub struct Progress {
    /// The step being integrated.
    pub step: String,
    /// Simulated time reached.
    pub time: f64,
    /// Increments taken since t = 0, over all steps.
    pub increment: u64,
    /// The last increment's length.
    pub dt: f64,
    /// Simulated time at the end of the last step.
    pub end_time: f64,
    /// The energy balance error at the latest output, if there has been one.
    pub balance_error: Option<f64>,
}

/// Told about a running solve. Called on the solve's own thread: keep it short.
pub trait Observer: Send + Sync + fmt::Debug {
    /// The shortest wall time between two `progress` calls.
    fn interval(&self) -> Duration {
        Duration::from_millis(250)
    }

    fn progress(&self, progress: &Progress);

    /// The state at the latest output (and where a pause holds the solve), as a solution
    /// with one step spanning that single instant: its probes read that state. Both the
    /// finite-element and the particle solve send these.
    fn latest(&self, _snapshot: Solution) {}
}

/// When a pause is to take hold.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PauseAt {
    /// At the next increment boundary.
    Now,
    /// At the first increment boundary at or past this simulated time.
    Time(f64),
    /// When this many increments (since t = 0) have been taken.
    Increment(u64),
}

#[derive(Debug, Default)]
struct PauseState {
    request: Option<PauseAt>,
    /// (time, increment) where the solve holds, while it holds.
    holding: Option<(f64, u64)>,
    /// Set by `release`: a cancelled solve must not stay held.
    released: bool,
    /// Counts `resume` calls, so a resume that comes while a hold is being set up is seen.
    resumes: u64,
}

/// A pause a client asks for and the solve honours between increments.
#[derive(Debug, Default)]
pub struct Pause {
    /// A cheap look for the loops: true while a request or a hold is pending.
    armed: AtomicBool,
    state: Mutex<PauseState>,
    changed: Condvar,
}

impl Pause {
    pub fn new() -> Self {
        Self::default()
    }

    // Pause state is plain data written in one place at a time; a panic elsewhere leaves
    // it consistent, so a poisoned lock is still usable.
    fn lock(&self) -> MutexGuard<'_, PauseState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Ask the solve to hold at `at`; replaces an earlier request that has not taken hold.
    pub fn request(&self, at: PauseAt) {
        let mut s = self.lock();
        s.request = Some(at);
        self.armed.store(true, Ordering::Release);
    }

    /// Let a held solve go on, and drop a request that has not taken hold.
    pub fn resume(&self) {
        let mut s = self.lock();
        s.request = None;
        s.holding = None;
        s.resumes += 1;
        self.armed.store(false, Ordering::Release);
        self.changed.notify_all();
    }

    /// Wake a held solve for good (it is being cancelled); later requests are ignored.
    pub fn release(&self) {
        let mut s = self.lock();
        s.released = true;
        s.request = None;
        s.holding = None;
        self.armed.store(false, Ordering::Release);
        self.changed.notify_all();
    }

    /// (time, increment) where the solve holds, or None while it runs.
    pub fn holding(&self) -> Option<(f64, u64)> {
        self.lock().holding
    }

    /// The request that has not taken hold yet.
    pub fn pending(&self) -> Option<PauseAt> {
        self.lock().request
    }

    /// Hold here if a request is due at (time, increment); `on_hold` runs once when the
    /// hold begins. Returns when resumed or released.
    fn hold_if_due(&self, time: f64, increment: u64, on_hold: impl FnOnce()) {
        if !self.armed.load(Ordering::Acquire) {
            return;
        }
        let mut s = self.lock();
        let due = match s.request {
            Some(PauseAt::Now) => true,
            Some(PauseAt::Time(t)) => time >= t,
            Some(PauseAt::Increment(n)) => increment >= n,
            None => false,
        };
        if !due || s.released {
            return;
        }
        s.request = None;
        let resumes = s.resumes;
        drop(s);
        // The state is published before the hold shows, so whoever sees the hold (a
        // status, then a probe) reads the state where it holds.
        on_hold();
        let mut s = self.lock();
        if s.resumes != resumes || s.released {
            return;
        }
        s.holding = Some((time, increment));
        while s.holding.is_some() && !s.released {
            s = self.changed.wait(s).unwrap_or_else(PoisonError::into_inner);
        }
    }
}

/// What an integration loop carries to serve `SolveOptions`: cancellation, the pause,
/// throttled progress, and snapshots for the observer.
pub(crate) struct Live<'a> {
    options: &'a SolveOptions,
    end_time: f64,
    last_report: Option<Instant>,
    balance_error: Option<f64>,
    /// The assembly shared by every snapshot; only kept when someone observes.
    assembly: Option<Arc<Assembly>>,
}

impl<'a> Live<'a> {
    /// For a solve that ends at simulated time `end_time`.
    pub(crate) fn new(options: &'a SolveOptions, end_time: f64) -> Self {
        Live {
            options,
            end_time,
            last_report: None,
            balance_error: None,
            assembly: None,
        }
    }

    /// Keep a copy of the assembly for snapshots, when someone observes.
    pub(crate) fn with_assembly(mut self, asm: &Assembly) -> Self {
        if self.options.observer.is_some() {
            self.assembly = Some(Arc::new(asm.clone()));
        }
        self
    }

    fn cancelled(&self) -> bool {
        self.options
            .cancel
            .as_ref()
            .is_some_and(|c| c.load(Ordering::Relaxed))
    }

    /// Between increments: stop if cancelled, hold if a pause is due. `state` gives the
    /// current fields for a snapshot when a hold begins (probes of a paused job read it).
    pub(crate) fn checkpoint(
        &self,
        step: &str,
        time: f64,
        increment: u64,
        state: impl FnOnce() -> Option<Frame>,
    ) -> Result<(), SolveError> {
        self.hold_point(step, time, increment, || {
            let asm = self.assembly.as_ref()?;
            state().map(|frame| Solution::snapshot(Arc::clone(asm), frame, step))
        })
    }

    /// `checkpoint` for a solve that builds its own snapshots (the particle solve):
    /// `snapshot` runs only when a hold begins and someone observes.
    pub(crate) fn hold_point(
        &self,
        step: &str,
        time: f64,
        increment: u64,
        snapshot: impl FnOnce() -> Option<Solution>,
    ) -> Result<(), SolveError> {
        if self.cancelled() {
            return Err(SolveError::Cancelled { time });
        }
        if let Some(pause) = &self.options.pause {
            pause.hold_if_due(time, increment, || {
                if self.observed() {
                    if let Some(s) = snapshot() {
                        self.publish(s);
                    }
                }
                self.report(step, time, increment, 0.0);
            });
            if self.cancelled() {
                return Err(SolveError::Cancelled { time });
            }
        }
        Ok(())
    }

    /// After an increment: report progress if the observer's interval has passed.
    pub(crate) fn tick(&mut self, step: &str, time: f64, increment: u64, dt: f64) {
        let Some(observer) = &self.options.observer else {
            return;
        };
        let now = Instant::now();
        if self
            .last_report
            .is_some_and(|last| now.duration_since(last) < observer.interval())
        {
            return;
        }
        self.last_report = Some(now);
        self.report(step, time, increment, dt);
    }

    fn report(&self, step: &str, time: f64, increment: u64, dt: f64) {
        if let Some(observer) = &self.options.observer {
            observer.progress(&Progress {
                step: step.to_owned(),
                time,
                increment,
                dt,
                end_time: self.end_time,
                balance_error: self.balance_error,
            });
        }
    }

    /// At an output: remember the balance, and hand the observer the new state.
    pub(crate) fn output(&mut self, step: &str, frame: &Frame, balance_error: Option<f64>) {
        if balance_error.is_some() {
            self.balance_error = balance_error;
        }
        if self.options.observer.is_some() {
            self.send_snapshot(step, frame.clone());
        }
    }

    fn send_snapshot(&self, step: &str, frame: Frame) {
        if let Some(asm) = &self.assembly {
            self.publish(Solution::snapshot(Arc::clone(asm), frame, step));
        }
    }

    /// True when someone observes the solve: only then are snapshots worth building.
    pub(crate) fn observed(&self) -> bool {
        self.options.observer.is_some()
    }

    /// Hand the observer a snapshot of the state (see `Observer::latest`).
    pub(crate) fn publish(&self, snapshot: Solution) {
        if let Some(observer) = &self.options.observer {
            observer.latest(snapshot);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::thread;

    #[test]
    fn a_pause_at_an_increment_holds_until_resumed() {
        let pause = Arc::new(Pause::new());
        pause.request(PauseAt::Increment(3));
        let (tx, rx) = mpsc::channel();
        let worker = {
            let pause = Arc::clone(&pause);
            thread::spawn(move || {
                for inc in 0..6u64 {
                    pause.hold_if_due(inc as f64 * 0.1, inc, || {});
                    tx.send(inc).expect("the test listens");
                }
            })
        };
        // Increments 0..=2 pass; 3 holds.
        for want in 0..3 {
            assert_eq!(rx.recv().expect("a step"), want);
        }
        while pause.holding().is_none() {
            thread::yield_now();
        }
        assert_eq!(pause.holding().map(|(_, inc)| inc), Some(3));
        assert!(rx.try_recv().is_err(), "a held solve takes no increment");
        pause.resume();
        let rest: Vec<u64> = rx.iter().collect();
        assert_eq!(rest, vec![3, 4, 5]);
        worker.join().expect("the worker ends");
    }

    #[test]
    fn release_frees_a_held_solve_and_ignores_later_requests() {
        let pause = Arc::new(Pause::new());
        pause.request(PauseAt::Time(0.0));
        let worker = {
            let pause = Arc::clone(&pause);
            thread::spawn(move || pause.hold_if_due(1.0, 1, || {}))
        };
        while pause.holding().is_none() {
            thread::yield_now();
        }
        pause.release();
        worker.join().expect("released");
        pause.request(PauseAt::Now);
        // Returns at once: a released pause never holds again.
        pause.hold_if_due(2.0, 2, || panic!("must not hold"));
    }

    #[test]
    fn a_time_request_waits_for_its_time() {
        let pause = Pause::new();
        pause.request(PauseAt::Time(0.5));
        pause.hold_if_due(0.25, 1, || panic!("too early to hold"));
        assert_eq!(pause.pending(), Some(PauseAt::Time(0.5)));
    }
}
