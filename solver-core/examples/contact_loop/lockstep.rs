//! The block's two solves, with its contact and without, in lockstep: one increment of
//! each in turn, in one process. `ratio` pairs whole solves run one after the other; on a
//! shared machine the element side's speed drifts between them (its data against a cache
//! that other tenants share), and one run's quartiles of the share were 0.28 and 0.51.
//! Taking turns increment by increment, the two solves see the machine within a few
//! milliseconds of each other, and each increment of one is paired with the same
//! increment of the other: the spread narrows (quartiles 0.26 and 0.34 in the same hour).
//! What it does not measure: a solve alone. Each solve runs beside the other's data,
//! which pushes the element side out of the shared cache, and each increment starts on a
//! pool that was asleep. So its share is that of a busy machine: 0.52 where `ratio` read
//! 0.65 in a quiet hour (docs/performance.md). It suits comparing two versions of the
//! contact, not judging issue 7's target. `null` puts two solves without contact in
//! lockstep to show that neither side gains from its place in the turns.

use impact_core::{solve, Observer, Progress, SolveOptions};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// Whose increment it is. A solve hands the turn over at the end of each increment and
/// waits for it back; a solve that has ended no longer holds the other.
#[derive(Debug, Default)]
struct Turns {
    state: Mutex<TurnState>,
    changed: Condvar,
}

#[derive(Debug, Default)]
struct TurnState {
    next: usize,
    /// Solves that have finished their first increment: that one runs beside the other's
    /// set-up, and the turns start once both are there, with `next`.
    started: [bool; 2],
    ended: [bool; 2],
}

impl Turns {
    /// Turns that start with solve `first`'s second increment.
    fn new(first: usize) -> Self {
        let turns = Turns::default();
        turns.state.lock().expect("a new lock").next = first;
        turns
    }

    fn hand_over(&self, me: usize) {
        let other = 1 - me;
        let mut state = self.state.lock().expect("no solve panics holding the turn");
        if state.started[me] {
            state.next = other;
        } else {
            state.started[me] = true;
        }
        self.changed.notify_all();
        let waiting = |s: &TurnState| !s.ended[other] && (!s.started[other] || s.next != me);
        while waiting(&state) {
            state = self
                .changed
                .wait(state)
                .expect("no solve panics holding the turn");
        }
    }

    fn end(&self, me: usize) {
        if let Ok(mut state) = self.state.lock() {
            state.ended[me] = true;
            state.next = 1 - me;
        }
        self.changed.notify_all();
    }
}

/// Ends a solve's turns however its thread leaves the solve, so the other never waits on
/// a solve that is gone.
struct Ending<'a>(&'a Turns, usize);

impl Drop for Ending<'_> {
    fn drop(&mut self) {
        self.0.end(self.1);
    }
}

/// One solve's side: told the end of every increment, it times the increment from the
/// instant the solve got its turn, then hands the turn over.
#[derive(Debug)]
struct Side {
    me: usize,
    turns: Arc<Turns>,
    resumed: Mutex<Option<Instant>>,
    increments: Mutex<Vec<(u64, Duration)>>,
}

impl Observer for Side {
    fn interval(&self) -> Duration {
        Duration::ZERO
    }

    fn progress(&self, progress: &Progress) {
        let now = Instant::now();
        let mut resumed = self.resumed.lock().expect("one solve per side");
        if let Some(at) = resumed.take() {
            let mut increments = self.increments.lock().expect("one solve per side");
            increments.push((progress.increment, now - at));
        }
        self.turns.hand_over(self.me);
        *resumed = Some(Instant::now());
    }
}

/// Milliseconds of each increment `from + 1` to `to` of the two solves `block(to,
/// contact[0])` and `block(to, contact[1])` in lockstep, each stopped by the cap at `to`;
/// the first takes the first turn when `first_first`. `contact` [true, false] measures the
/// contact; [false, false] the method's own bias, which should be none.
pub fn lockstep_round(
    block: fn(u64, bool) -> impact_protocol::Model,
    contact: [bool; 2],
    from: u64,
    to: u64,
    first_first: bool,
) -> Vec<(f64, f64)> {
    // The global pool's size: RAYON_NUM_THREADS where it is set, as `ratio` runs.
    let threads = rayon::current_num_threads();
    let turns = Arc::new(Turns::new(if first_first { 0 } else { 1 }));
    let sides: Vec<Arc<Side>> = (0..2)
        .map(|me| {
            Arc::new(Side {
                me,
                turns: turns.clone(),
                resumed: Mutex::new(None),
                increments: Mutex::new(Vec::new()),
            })
        })
        .collect();
    std::thread::scope(|scope| {
        for (me, side) in sides.iter().enumerate() {
            let (turns, side) = (&turns, side.clone());
            scope.spawn(move || {
                let _ending = Ending(turns, me);
                let contact = contact[me];
                let options = SolveOptions {
                    observer: Some(side),
                    ..SolveOptions::default()
                };
                // A pool each: a solve runs on a worker of its pool, and waiting for its
                // turn it holds that worker. In one shared pool each solve would be left
                // the other's worker alone. The waiting solve's pool is idle.
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .expect("a pool for each solve");
                // The cap ends the solve with an error: that is the expected end.
                let result = pool.install(|| solve(&block(to, contact), &options));
                assert!(result.is_err(), "the cap, not the duration, ends the solve");
            });
        }
    });
    let ms = |side: &Side, k: u64| {
        let increments = side.increments.lock().expect("the solves have ended");
        increments
            .iter()
            .find(|(i, _)| *i == k)
            .map(|(_, d)| 1e3 * d.as_secs_f64())
            .expect("the observer is told every increment after the first")
    };
    (from + 1..=to)
        .map(|k| (ms(&sides[0], k), ms(&sides[1], k)))
        .collect()
}
