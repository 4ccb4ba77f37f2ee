//! A stored result answers exactly as the solution it came from (finite elements and
//! particles), and a running solve can be watched, snapshotted, paused and cancelled
//! through `SolveOptions`.

use impact_core::persist::{decode, encode, PersistError};
use impact_core::{solve, Observer, Pause, PauseAt, Progress, Solution, SolveError, SolveOptions};
use impact_protocol::{validate_model, Model, Pointer, ProbeParams, SolveParams};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

fn model(case: &str) -> Model {
    let text = std::fs::read_to_string(format!(
        "{}/../tests/oracle/{case}/model.json",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("the case's model is in the repo");
    let params: SolveParams = serde_json::from_str(&text).expect("the model parses");
    validate_model(&params.model, &Pointer::root().at("model")).expect("the model is valid");
    params.model
}

fn probe_at(points: Vec<[f64; 3]>, time: Option<f64>) -> ProbeParams {
    ProbeParams {
        job: String::new(),
        step: None,
        at: points,
        nodes: vec![],
        time,
        fields: None,
        particles: vec![],
    }
}

fn round_trip(s: &Solution, m: &Model) -> Solution {
    let bytes = encode(s, m);
    let (back, model_back) = decode(&bytes).expect("a fresh result decodes");
    assert_eq!(&model_back, m);
    assert_eq!(back.summary(), s.summary());
    back
}

#[test]
fn a_stored_bars_result_probes_to_the_same_bits() {
    let m = model("explicit-bars");
    let s = solve(&m, &SolveOptions::default()).expect("the bars solve");
    let back = round_trip(&s, &m);
    // End of step and between stored frames: interpolation reads the same frames.
    for time in [None, Some(0.1234)] {
        let q = probe_at(
            vec![[0.0, 0.0, 0.0], [20.0, 0.0, 0.0], [10.0, 0.5, 0.5]],
            time,
        );
        assert_eq!(back.probe(&q).expect("probe"), s.probe(&q).expect("probe"));
    }
    assert_eq!(back.history().times, s.history().times);
    assert_eq!(back.history().contact_forces, s.history().contact_forces);
    assert_eq!(back.history().energies, s.history().energies);

    // Any flipped byte is caught by the checksum; a cut file is refused.
    let mut bytes = encode(&s, &m);
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x40;
    assert!(matches!(decode(&bytes), Err(PersistError::Checksum)));
    let bytes = encode(&s, &m);
    assert!(decode(&bytes[..bytes.len() - 3]).is_err());
}

/// A probe by point costs the node grid's build until one has been made, for the result in
/// memory and again for one read back from storage (the grid is not stored); a probe by
/// node id costs one visit a node.
#[test]
fn a_probe_costs_the_grid_until_the_first_probe_by_point() {
    use impact_core::nearest::{BUILD_VISITS_PER_NODE, SEARCH_VISITS};
    let m = model("explicit-bars");
    let s = solve(&m, &SolveOptions::default()).expect("the bars solve");
    let nodes = s.summary().nodes;
    let q = probe_at(vec![[0.0, 0.0, 0.0], [20.0, 0.0, 0.0]], None);
    let first = 2 * SEARCH_VISITS + nodes * BUILD_VISITS_PER_NODE;
    assert_eq!(s.probe_cost(&q), first);
    s.probe(&q).expect("probe");
    assert_eq!(s.probe_cost(&q), 2 * SEARCH_VISITS);
    let back = round_trip(&s, &m);
    assert_eq!(back.probe_cost(&q), first);
    let by_id = ProbeParams {
        nodes: vec![0, 5, 7],
        ..probe_at(vec![], None)
    };
    assert_eq!(back.probe_cost(&by_id), 3);
}

#[test]
fn a_stored_particle_result_probes_to_the_same_bits() {
    let m = model("particles-glancing");
    let s = solve(&m, &SolveOptions::default()).expect("the particle solve");
    let back = round_trip(&s, &m);
    for time in [None, Some(0.7)] {
        let q = probe_at(vec![[-1.0, 0.1, 0.0], [0.0, 0.0, 0.0]], time);
        let (a, b) = (back.probe(&q).expect("probe"), s.probe(&q).expect("probe"));
        assert!(!a.particles.is_empty());
        assert_eq!(a, b);
    }
}

#[derive(Debug, Default)]
struct Recorder {
    progress: Mutex<Vec<Progress>>,
    latest: Mutex<Option<Solution>>,
}

impl Observer for Recorder {
    fn interval(&self) -> Duration {
        Duration::ZERO
    }
    fn progress(&self, p: &Progress) {
        self.progress.lock().expect("lock").push(p.clone());
    }
    fn latest(&self, snapshot: Solution) {
        *self.latest.lock().expect("lock") = Some(snapshot);
    }
}

#[test]
fn progress_is_monotone_and_ends_at_the_end_time() {
    let m = model("explicit-bars");
    let rec = Arc::new(Recorder::default());
    let options = SolveOptions {
        observer: Some(rec.clone()),
        ..SolveOptions::default()
    };
    let s = solve(&m, &options).expect("the bars solve");
    let seen = rec.progress.lock().expect("lock");
    let increments: u64 = s.summary().steps.iter().map(|st| st.increments).sum();
    // A zero interval reports every increment.
    assert_eq!(seen.len() as u64, increments);
    assert!(seen.windows(2).all(|w| w[1].time > w[0].time));
    let last = seen.last().expect("some progress");
    let end: f64 = m.steps.iter().map(|st| st.duration).sum();
    assert_eq!(last.time, end);
    assert_eq!(last.end_time, end);
    assert!(last.balance_error.is_some());
    // The last snapshot is the end state: it probes as the finished solution does.
    let snap = rec.latest.lock().expect("lock").take().expect("a snapshot");
    let q = probe_at(vec![[20.0, 0.0, 0.0]], None);
    let (a, b) = (snap.probe(&q).expect("probe"), s.probe(&q).expect("probe"));
    assert_eq!(a.nodes, b.nodes);
    assert_eq!(a.time, end);
}

#[test]
fn a_paused_solve_holds_reports_its_state_then_resumes_to_the_same_bits() {
    let m = model("explicit-bars");
    let plain = solve(&m, &SolveOptions::default()).expect("the bars solve");
    let rec = Arc::new(Recorder::default());
    let pause = Arc::new(Pause::new());
    pause.request(PauseAt::Increment(100));
    let options = SolveOptions {
        observer: Some(rec.clone()),
        pause: Some(Arc::clone(&pause)),
        ..SolveOptions::default()
    };
    let worker = std::thread::spawn(move || solve(&m, &options));
    while pause.holding().is_none() {
        std::thread::sleep(Duration::from_millis(1));
    }
    let (time, increment) = pause.holding().expect("held");
    assert_eq!(increment, 100);
    // The snapshot taken at the hold is the state at that time.
    let snap = rec
        .latest
        .lock()
        .expect("lock")
        .clone()
        .expect("a snapshot at the hold");
    let r = snap
        .probe(&probe_at(vec![[0.0, 0.0, 0.0]], None))
        .expect("probe");
    assert_eq!(r.time, time);
    let reported = rec.progress.lock().expect("lock").len();
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(
        rec.progress.lock().expect("lock").len(),
        reported,
        "a held solve makes no progress"
    );
    pause.resume();
    let resumed = worker
        .join()
        .expect("the solve ends")
        .expect("the bars solve");
    let q = probe_at(vec![[20.0, 0.0, 0.0]], None);
    assert_eq!(
        resumed.probe(&q).expect("probe"),
        plain.probe(&q).expect("probe")
    );
}

#[test]
fn cancelling_a_paused_solve_ends_it() {
    let m = model("explicit-bars");
    let pause = Arc::new(Pause::new());
    let cancel = Arc::new(AtomicBool::new(false));
    pause.request(PauseAt::Now);
    let options = SolveOptions {
        cancel: Some(Arc::clone(&cancel)),
        pause: Some(Arc::clone(&pause)),
        ..SolveOptions::default()
    };
    let worker = std::thread::spawn(move || solve(&m, &options));
    while pause.holding().is_none() {
        std::thread::sleep(Duration::from_millis(1));
    }
    cancel.store(true, Ordering::Relaxed);
    pause.release();
    match worker.join().expect("the solve ends") {
        Err(SolveError::Cancelled { time }) => assert_eq!(time, 0.0),
        other => panic!("expected a cancelled solve, got {other:?}"),
    }
}

/// Every snapshot a solve hands out, in order.
#[derive(Debug, Default)]
struct Snapshots(Mutex<Vec<Solution>>);

impl Observer for Snapshots {
    fn progress(&self, _: &Progress) {}
    fn latest(&self, snapshot: Solution) {
        self.0.lock().expect("lock").push(snapshot);
    }
}

#[test]
fn a_particle_solve_hands_out_its_state_at_every_output_and_where_a_pause_holds() {
    // Two seconds cut into outputs every 0.5 s: snapshots at the stored frames near 0.5,
    // 1 and 1.5 and at 2 (the step's end), and one where the pause at 0.75 holds.
    let m = model("particles-glancing");
    let plain = solve(&m, &SolveOptions::default()).expect("the particle solve");
    let rec = Arc::new(Snapshots::default());
    let pause = Arc::new(Pause::new());
    pause.request(PauseAt::Time(0.75));
    let options = SolveOptions {
        observer: Some(rec.clone()),
        pause: Some(Arc::clone(&pause)),
        ..SolveOptions::default()
    };
    let worker = {
        let m = m.clone();
        std::thread::spawn(move || solve(&m, &options))
    };
    while pause.holding().is_none() {
        std::thread::sleep(Duration::from_millis(1));
    }
    let (held, _) = pause.holding().expect("held");
    assert!(held >= 0.75, "{held}");
    pause.resume();
    let resumed = worker
        .join()
        .expect("the solve ends")
        .expect("the particle solve");
    let snaps = rec.0.lock().expect("lock");
    let times: Vec<f64> = snaps
        .iter()
        .map(|s| {
            s.probe(&probe_at(vec![[-1.0, 0.1, 0.0]], None))
                .expect("a snapshot probes")
                .time
        })
        .collect();
    // The stored frames after t = 0 (each at the first increment that reaches its output
    // time), with the hold between them.
    let mut want: Vec<f64> = plain
        .particles()
        .expect("a particle result")
        .frames()
        .iter()
        .skip(1)
        .map(|f| f.time)
        .collect();
    assert_eq!(want.len(), 4, "{want:?}");
    want.push(held);
    want.sort_by(f64::total_cmp);
    assert_eq!(times, want);
    // Each snapshot reads what the finished solve stored at that time (the frames
    // themselves: a probe of the finished result at a frame's time may interpolate with
    // w = 1, one rounding away); the hold's state lies between two stored frames, so it is
    // checked on the server against theory.
    let frames = plain.particles().expect("a particle result").frames();
    for (snap, &t) in snaps.iter().zip(&times) {
        if t == held {
            continue;
        }
        let stored = frames.iter().find(|f| f.time == t).expect("a stored frame");
        let a = snap
            .probe(&probe_at(vec![[-1.0, 0.1, 0.0], [0.0, 0.0, 0.0]], None))
            .expect("snapshot");
        assert_eq!(a.particles.len(), 2);
        for p in &a.particles {
            let id = p.id as usize;
            assert_eq!(p.position, Some(stored.position[id]), "t = {t}");
            assert_eq!(p.velocity, Some(stored.velocity[id]), "t = {t}");
        }
        assert_eq!(
            snap.summary().particles.as_ref().map(|p| p.particles),
            Some(2)
        );
    }
    // Pausing and watching change nothing in the result.
    let end = probe_at(vec![[-1.0, 0.1, 0.0], [0.0, 0.0, 0.0]], None);
    assert_eq!(
        resumed.probe(&end).expect("probe"),
        plain.probe(&end).expect("probe")
    );
}
