//! `solve.probe` of a running and of a paused particle job against the real binary
//! (issue 6): the job publishes its state at every output and where a pause holds, and a
//! probe reads it. A sphere falling freely under gravity is checked against
//! x(t) = x0 + v0 t + g t²/2, v(t) = v0 + g t, which velocity Verlet (kick, drift, kick)
//! reproduces exactly under constant gravity, so the only error is rounding.

mod common;

use common::{call, call_err, data, num, Server};
use jsonrpsee::core::client::ClientT;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

const X0: [f64; 3] = [0.0, 0.0, 100.0];
const V0: [f64; 3] = [1.0, 0.0, 2.0];
const G: [f64; 3] = [0.0, 0.0, -9.81];
const DT: f64 = 4e-6;
const DURATION: f64 = 20.0;
const PAUSE_AT: f64 = 15.0;

/// One sphere, nothing to hit: 5e6 increments of 4 µs, an output every simulated second
/// (about 0.1 µs of wall time per increment here, so the job runs for about half a second).
fn falling_sphere() -> Value {
    json!({"model": {
        "title": "A sphere in free fall",
        "steps": [{"name": "fall", "duration": DURATION, "output_interval": 1.0}],
        "particles": {
            "dimension": 3,
            "groups": [{"name": "ball", "mass": 1.0, "radius": 0.1,
                        "spheres": [{"position": X0, "velocity": V0}]}],
            "gravity": G,
            "time_step": {"dt": DT}
        }
    }})
}

/// The probed sphere's state against free fall at the probe's time, after `increments`.
///
/// Tolerance, from rounding alone: each half kick rounds v by at most half an ulp of |v|
/// (2n half kicks: n ulp), each drift rounds x by half an ulp of |x| (n/2 ulp), and the
/// velocity's error drifts the position by at most t times its bound. An ulp of y is at
/// most |y| eps.
fn check_free_fall(p: &Value, increments: f64) {
    let t = num(p, "/time");
    let vmax = (0..3)
        .map(|i| (V0[i] + G[i] * t).abs().max(V0[i].abs()))
        .fold(0.0, f64::max);
    let xmax = (0..3)
        .map(|i| (X0[i] + V0[i] * t + 0.5 * G[i] * t * t).abs() + X0[i].abs())
        .fold(0.0, f64::max);
    let tol_v = increments * vmax * f64::EPSILON;
    let tol_x = 0.5 * increments * xmax * f64::EPSILON + t * tol_v;
    for i in 0..3 {
        let x = X0[i] + V0[i] * t + 0.5 * G[i] * t * t;
        let v = V0[i] + G[i] * t;
        let got_x = num(p, &format!("/particles/0/position/{i}"));
        let got_v = num(p, &format!("/particles/0/velocity/{i}"));
        assert!(
            (got_x - x).abs() <= tol_x,
            "x[{i}] at t = {t}: got {got_x}, free fall {x}, tolerance {tol_x}"
        );
        assert!(
            (got_v - v).abs() <= tol_v,
            "v[{i}] at t = {t}: got {got_v}, free fall {v}, tolerance {tol_v}"
        );
    }
}

async fn probe(client: &impl ClientT, job: &str) -> Result<Value, jsonrpsee::core::client::Error> {
    client
        .request::<Value, _>(
            "solve.probe",
            common::object(json!({"job": job, "particles": [0]})),
        )
        .await
}

#[tokio::test]
async fn a_running_and_a_paused_particle_job_probe_to_free_fall() {
    let server = Server::start(&[]);
    let http = server.http();
    let t0 = Instant::now();
    let job = call(&http, "solve.submit", falling_sphere()).await["job"]
        .as_str()
        .expect("a job id")
        .to_owned();
    // Submitted and paused at once: 3.75e6 increments are far more than a round trip away.
    call(&http, "job.pause", json!({"job": job, "time": PAUSE_AT})).await;

    // While it runs: before the first output (t = 1) a probe answers "not finished";
    // after it, the state at the latest output.
    let running = loop {
        let status = call(&http, "job.status", json!({"job": job})).await;
        match probe(&http, &job).await {
            Ok(p) => break (status, p),
            Err(jsonrpsee::core::client::Error::Call(e)) => {
                assert_eq!(e.code(), -32602, "{e:?}");
                assert_eq!(data(&e)["pointer"], "/job");
            }
            Err(e) => panic!("solve.probe: {e}"),
        }
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "no snapshot within a minute"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    };
    let (status, p) = running;
    let t = num(&p, "/time");
    assert_eq!(p["step"], "fall");
    assert!(t > 0.0 && t <= PAUSE_AT + 2.0 * DT, "{p}");
    assert!(
        ["running", "paused"].contains(&status["state"].as_str().unwrap_or("")),
        "{status}"
    );
    check_free_fall(&p, t / DT);

    // Where the pause holds: the first increment boundary at or past 15 s.
    let paused = loop {
        let s = call(&http, "job.status", json!({"job": job})).await;
        if s["state"] == "paused" {
            break s;
        }
        assert_ne!(s["state"], "done", "the pause never held: {s}");
        assert!(t0.elapsed() < Duration::from_secs(120), "{s}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    let (t_hold, inc) = (num(&paused, "/paused_at/0"), num(&paused, "/paused_at/1"));
    assert!(
        (PAUSE_AT..PAUSE_AT + 1.5 * DT).contains(&t_hold),
        "{paused}"
    );
    assert_eq!(inc, (t_hold / DT).round(), "{paused}");
    let held = probe(&http, &job).await.expect("a probe of the paused job");
    assert_eq!(num(&held, "/time"), t_hold);
    check_free_fall(&held, inc);
    // The snapshot spans one instant: another time is refused with its pointer.
    let e = call_err(
        &http,
        "solve.probe",
        json!({"job": job, "particles": [0], "time": 1.0}),
    )
    .await;
    assert_eq!(e.code(), -32602, "{e:?}");
    assert_eq!(data(&e)["pointer"], "/time", "{e:?}");

    call(&http, "job.resume", json!({"job": job})).await;
    let done = call(&http, "job.wait", json!({"job": job, "timeout": 120})).await;
    assert_eq!(done["state"], "done", "{done}");
    let end = probe(&http, &job).await.expect("a probe of the result");
    assert_eq!(num(&end, "/time"), DURATION);
    check_free_fall(&end, DURATION / DT);
}
