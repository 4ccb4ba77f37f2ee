//! The contact increment, for profilers. `contact_loop N INCREMENTS` presses two plates of
//! N x N and (N + 1) x (N + 1) hex8 together (the `contact` benchmark's plates, every face
//! in contact) and runs INCREMENTS contact increments at the reference
//! positions, printing the time per face-increment. `contact_loop block INCREMENTS [none]`
//! solves the `increment` benchmark's block on a plate (50k hex8, with its contact or
//! without) until the increment cap. `contact_loop faces INCREMENTS` runs that block's
//! contact alone, the block pressed 10 um into the plate, its base spread as the impact
//! spreads it, and held there: the solve's overlaps, without the elements' time around
//! them. `contact_loop ratio ROUNDS [FROM TO]` measures what the block's contact adds to
//! its increments, paired: each round solves the block with its contact and without, back
//! to back, so a change in the machine's load between the measurements (criterion runs
//! the two benchmarks minutes apart) moves both alike, and times increments FROM + 1 to
//! TO (11 to 30, the `increment` benchmark's span, unless given) inside each solve, by
//! the instants its observer is told them: the set-up is outside the span. `ratio 9 10
//! 190` takes the impact from its 11th increment to its 190th (of the side-by-side's 194
//! in 40 us). It prints the rounds' medians and the quartiles of the contact's share: on a
//! shared machine the spread says as much as the middle. It also reads the processor time
//! the process used over the span (all threads, from /proc), and gives the share in that,
//! and the share between the two solves' fastest rounds: the nearest to a quiet machine.
//! `contact_loop lockstep ROUNDS [FROM TO]` runs the two solves side by side, one
//! increment of each in turn (see `contact_loop/lockstep.rs` for what that measures and
//! what it does not), and `contact_loop null ROUNDS [FROM TO]` the same with neither solve
//! in contact: the lockstep's own bias, which should be none.
//! A first word `mid_plane` (or `both_ways`, the default) integrates every contact's
//! pairs so (`contact_loop mid_plane ratio 12`): one build measures both.
//! Run it under `valgrind --tool=callgrind` for instruction counts that do not depend on
//! the load; the difference of two increment counts is the increments alone.

use impact_core::assembly::assemble;
use impact_core::contact::Contacts;
use impact_core::{solve, Observer, Progress, SolveOptions};
use impact_protocol::{Model, PairIntegration};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

#[path = "../benches/models/mod.rs"]
mod models;

/// How the contacts integrate their pairs: the first word's, for the whole run.
static INTEGRATION: OnceLock<PairIntegration> = OnceLock::new();

fn integrated(model: Model) -> Model {
    models::integrated(model, *INTEGRATION.get_or_init(PairIntegration::default))
}

/// The `increment` benchmark's block on the plate, its contact integrated as asked.
fn block(increments: u64, contact: bool) -> Model {
    integrated(models::block_on_plate(increments, contact))
}

/// The `contact` benchmark's plates, their contact integrated as asked.
fn plates(n: u32) -> Model {
    integrated(models::plates(n))
}

#[path = "contact_loop/lockstep.rs"]
mod lockstep;

fn main() {
    let mut words: Vec<String> = std::env::args().skip(1).collect();
    let integration = match words.first().map(String::as_str) {
        Some("mid_plane") => Some(PairIntegration::MidPlane),
        Some("both_ways") => Some(PairIntegration::BothWays),
        _ => None,
    };
    if integration.is_some() {
        words.remove(0);
    }
    let integration = integration.unwrap_or_default();
    INTEGRATION.get_or_init(|| integration);
    println!("pairs integrated {integration:?}");
    if words.first().map(String::as_str) == Some("block") {
        let increments = words.get(1).and_then(|w| w.parse().ok()).unwrap_or(10);
        let contact = words.get(2).map(String::as_str) != Some("none");
        println!(
            "block, {increments} increments, contact {contact}: {:.3} s (ended by the cap)",
            capped_seconds(increments, contact, &SolveOptions::default())
        );
        return;
    }
    if let Some(mode @ ("ratio" | "lockstep" | "null")) = words.first().map(String::as_str) {
        let number = |k: usize, default: u64| match words.get(k) {
            None => default,
            Some(w) => w.parse().unwrap_or_else(|_| {
                eprintln!("{mode} ROUNDS [FROM TO]: '{w}' is not a whole number");
                std::process::exit(2)
            }),
        };
        let (rounds, from, to) = (number(1, 10), number(2, 10), number(3, 30));
        if rounds == 0 {
            eprintln!("{mode} ROUNDS [FROM TO]: ROUNDS must be at least 1");
            std::process::exit(2);
        }
        // The observer is told the end of each increment, from the first on; an
        // increment is timed from the end of the one before.
        if from == 0 || from >= to {
            eprintln!(
                "{mode} ROUNDS [FROM TO]: FROM ({from}) must be at least 1 and below TO ({to})"
            );
            std::process::exit(2);
        }
        match mode {
            "ratio" => contact_ratio(rounds as usize, from, to),
            "lockstep" => contact_lockstep(rounds as usize, from, to, true),
            _ => contact_lockstep(rounds as usize, from, to, false),
        }
        return;
    }
    if words.first().map(String::as_str) == Some("faces") {
        let increments = words.get(1).and_then(|w| w.parse().ok()).unwrap_or(100);
        // On a worker of the pool, as a solve runs: no hop into the pool at every loop.
        rayon::scope(|_| block_contact_alone(increments));
        return;
    }
    let args: Vec<u64> = words
        .iter()
        .map(|a| a.parse().expect("N INCREMENTS as integers"))
        .collect();
    let (n, increments) = match args.as_slice() {
        [n, k] => (*n as u32, *k),
        _ => (70, 10),
    };
    let m = plates(n);
    let asm = assemble(&m).expect("the plates assemble");
    let faces = asm.contacts[0].faces.len();
    let dt = 1e-5;
    let mut contacts = Contacts::new(&m, &asm, dt, 0.9, vec![Vec::new()]);
    let x = asm.reference.clone();
    let v = vec![[0.0; 3]; x.len()];
    let start = Instant::now();
    for _ in 0..increments {
        contacts.apply(&x, &v, dt, 0.0);
    }
    let elapsed = start.elapsed().as_secs_f64();
    let total: f64 = contacts.nodal_forces(x.len()).iter().map(|g| g[2]).sum();
    println!(
        "{faces} faces, {increments} increments: {:.3} us per face-increment (sum of z forces {total:e})",
        us_per_face_increment(elapsed, faces, increments)
    );
}

/// Microseconds a face and increment of `seconds` over `increments` contact increments.
fn us_per_face_increment(seconds: f64, faces: usize, increments: u64) -> f64 {
    1e6 * seconds / (faces as f64 * increments.max(1) as f64)
}

/// The spread of the block's base about its axis in `faces`: about the Poisson strain
/// of the 10 m/s impact (0.3 x 10 / 5900).
const SPREAD: f64 = 5e-4;

/// The block's contact alone, at fixed positions: the block's nodes 10 um down.
fn block_contact_alone(increments: u64) {
    let m = block(1, true);
    let asm = assemble(&m).expect("the block on the plate assembles");
    let faces = asm.contacts[0].faces.len();
    // About the stable increment of the 2 mm steel elements.
    let dt = 3e-7;
    let mut contacts = Contacts::new(&m, &asm, dt, 0.9, vec![Vec::new()]);
    let mut x = asm.reference.clone();
    let block = asm
        .parts
        .iter()
        .find(|p| p.name == "block")
        .expect("the model has the block");
    let nodes = block.node_offset as usize..(block.node_offset + block.node_count) as usize;
    // The block's axis: the mean of its nodes across (a regular mesh of a box).
    let axis =
        [0, 1].map(|k| x[nodes.clone()].iter().map(|p| p[k]).sum::<f64>() / nodes.len() as f64);
    // The block's base also spreads a little, as it does under the impact (Poisson): with
    // the meshes' lines exactly aligned, the triangle pairs that only touch along a line
    // drop out before clipping, and half the solve's clipping work would be missing. A
    // spread of 1e-6 already gives the solve's counts of clipped and pressed triangles.
    for p in &mut x[nodes] {
        for k in 0..2 {
            p[k] = axis[k] + (p[k] - axis[k]) * (1.0 + SPREAD);
        }
        p[2] -= 1e-5;
    }
    let v = vec![[0.0; 3]; x.len()];
    let start = Instant::now();
    for _ in 0..increments {
        contacts.apply(&x, &v, dt, 0.0);
    }
    let elapsed = start.elapsed().as_secs_f64();
    // The plate pushes the block up: the upward z forces are the contact's normal force.
    let up: f64 = contacts
        .nodal_forces(x.len())
        .iter()
        .map(|g| g[2].max(0.0))
        .sum();
    println!(
        "{faces} faces, {increments} increments: {:.3} us per face-increment (upward forces {up:e} N)",
        us_per_face_increment(elapsed, faces, increments)
    );
}

/// Seconds of a solve of the block stopped by the cap after `increments`.
fn capped_seconds(increments: u64, contact: bool, options: &SolveOptions) -> f64 {
    let model = block(increments, contact);
    let start = Instant::now();
    // The cap ends the solve with an error: that is the expected end.
    let result = solve(&model, options);
    let seconds = start.elapsed().as_secs_f64();
    assert!(result.is_err(), "the cap, not the duration, ends the solve");
    seconds
}

/// The instant the solve reported each increment at: told every increment, it is the
/// solve's own clock, without its set-up and its end. At the increments in `marks` it
/// also reads the process's processor time.
#[derive(Debug, Default)]
struct IncrementClock {
    ticks: Mutex<Vec<(u64, Instant)>>,
    marks: [u64; 2],
    cpu: Mutex<Vec<(u64, Duration)>>,
}

impl Observer for IncrementClock {
    fn interval(&self) -> Duration {
        Duration::ZERO
    }

    fn progress(&self, progress: &Progress) {
        let now = Instant::now();
        if let Ok(mut ticks) = self.ticks.lock() {
            ticks.push((progress.increment, now));
        }
        if self.marks.contains(&progress.increment) {
            if let (Some(used), Ok(mut cpu)) = (process_cpu_time(), self.cpu.lock()) {
                cpu.push((progress.increment, used));
            }
        }
    }
}

/// The processor time of all the process's threads so far, from each one's
/// `/proc/self/task/*/schedstat` (its first field: nanoseconds on a processor). The
/// rayon workers live as long as the process, so the difference between two readings is
/// the work between them, on however many threads. None where there is no such file.
fn process_cpu_time() -> Option<Duration> {
    let mut total = 0u64;
    for task in std::fs::read_dir("/proc/self/task").ok()? {
        let stat = std::fs::read_to_string(task.ok()?.path().join("schedstat")).ok()?;
        total += stat.split_whitespace().next()?.parse::<u64>().ok()?;
    }
    Some(Duration::from_nanos(total))
}

/// Milliseconds an increment of the block's increments `from + 1` to `to`, in a solve
/// stopped by the cap at `to`: on the wall clock, and of processor time summed over the
/// threads (None where the processor time cannot be read).
fn increments_ms(from: u64, to: u64, contact: bool) -> (f64, Option<f64>) {
    let clock = Arc::new(IncrementClock {
        marks: [from, to],
        ..IncrementClock::default()
    });
    let options = SolveOptions {
        observer: Some(clock.clone()),
        ..SolveOptions::default()
    };
    capped_seconds(to, contact, &options);
    let span = (to - from) as f64;
    let ticks = clock.ticks.lock().expect("the solve has ended");
    let at = |k: u64| {
        ticks
            .iter()
            .find(|(i, _)| *i == k)
            .map(|(_, t)| *t)
            .expect("the observer is told every increment")
    };
    let wall = 1e3 * (at(to) - at(from)).as_secs_f64() / span;
    let cpu = clock.cpu.lock().expect("the solve has ended");
    let cpu = match cpu.as_slice() {
        [(a, used_a), (b, used_b)] if (*a, *b) == (from, to) => used_b
            .checked_sub(*used_a)
            .map(|used| 1e3 * used.as_secs_f64() / span),
        _ => None,
    };
    (wall, cpu)
}

/// Rounds of the two solves (with and without contact, to `long` increments), in turn;
/// prints each round's milliseconds an increment over increments `short + 1` to `long`
/// and the contact's share, then the medians.
fn contact_ratio(rounds: usize, short: u64, long: u64) {
    let per_increment = |contact: bool| increments_ms(short, long, contact);
    let (mut wall, mut cpu) = (Shares::default(), Shares::default());
    for round in 0..rounds {
        // Which goes first alternates: neither always follows the other's warm caches.
        let ((w, cw), (n, cn)) = if round % 2 == 0 {
            let w = per_increment(true);
            (w, per_increment(false))
        } else {
            let n = per_increment(false);
            (per_increment(true), n)
        };
        print!("round {round}: {}", wall.add(w, n));
        if let (Some(cw), Some(cn)) = (cw, cn) {
            print!("; processor time: {}", cpu.add(cw, cn));
        }
        println!();
    }
    wall.print("wall clock");
    cpu.print("processor time");
    // Load on this machine only ever adds time, and it slows the element side (memory)
    // more than the contact (arithmetic): the medians of a busy hour understate the share
    // of a quiet one. The fastest round of each solve is the nearest to a quiet machine.
    let fastest = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    let (w, n) = (fastest(&wall.with), fastest(&wall.without));
    println!(
        "fastest rounds: with {w:.3} ms, without {n:.3} ms an increment, contact / rest {:.3}",
        (w - n) / n
    );
}

/// Rounds' milliseconds an increment with and without the contact, and the contact's share
/// of the rest in each.
#[derive(Debug, Default)]
struct Shares {
    with: Vec<f64>,
    without: Vec<f64>,
    share: Vec<f64>,
}

impl Shares {
    /// Keep a round's `with` and `without`; the round's line.
    fn add(&mut self, with: f64, without: f64) -> String {
        let share = (with - without) / without;
        self.with.push(with);
        self.without.push(without);
        self.share.push(share);
        format!(
            "with {with:.3} ms, without {without:.3} ms an increment, contact / rest {share:.3}"
        )
    }

    /// The rounds' medians of `with` and `without` and the median and quartiles of the
    /// share, labelled `what`; nothing when there are no rounds. Sorts all three in place.
    fn print(&mut self, what: &str) {
        if self.share.is_empty() {
            return;
        }
        println!(
            "{what}, medians of {} rounds: with {:.3} ms, without {:.3} ms an increment, contact / rest {:.3} (quartiles {:.3} and {:.3})",
            self.share.len(),
            quarter(&mut self.with, 0.5),
            quarter(&mut self.without, 0.5),
            quarter(&mut self.share, 0.5),
            quarter(&mut self.share, 0.25),
            quarter(&mut self.share, 0.75)
        );
    }
}

/// The quarter point `q` (0.5 the median) of `v`, by linear interpolation between its
/// sorted values; `v` is sorted in place.
fn quarter(v: &mut [f64], q: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    let at = q * (v.len() - 1) as f64;
    let (lo, hi) = (at.floor() as usize, at.ceil() as usize);
    v[lo] + (at - lo as f64) * (v[hi] - v[lo])
}

/// Rounds of the block's two solves in lockstep (`lockstep`); prints each round's
/// milliseconds an increment over increments `from + 1` to `to` and the contact's share,
/// then the medians and quartiles of the rounds' shares and of the increments' own: each
/// increment with the contact against the same increment without, timed a few
/// milliseconds apart.
///
/// With `contact` false both solves are without it ("with" names the first): the share
/// measured is then the method's own bias.
fn contact_lockstep(rounds: usize, from: u64, to: u64, contact: bool) {
    let (mut rounds_shares, mut increment_share) = (Shares::default(), Vec::new());
    for round in 0..rounds {
        // Which takes each increment first alternates, as in `ratio`.
        let pairs = lockstep::lockstep_round(block, [contact, false], from, to, round % 2 == 0);
        let count = pairs.len() as f64;
        let w = pairs.iter().map(|p| p.0).sum::<f64>() / count;
        let n = pairs.iter().map(|p| p.1).sum::<f64>() / count;
        println!("round {round}: {}", rounds_shares.add(w, n));
        increment_share.extend(pairs.iter().map(|(w, n)| (w - n) / n));
    }
    rounds_shares.print("lockstep");
    println!(
        "median of {} increments' contact / rest {:.3} (quartiles {:.3} and {:.3})",
        increment_share.len(),
        quarter(&mut increment_share, 0.5),
        quarter(&mut increment_share, 0.25),
        quarter(&mut increment_share, 0.75)
    );
}
