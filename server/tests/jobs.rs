//! Jobs against the real binary (issue 6): `solve.submit` answers at once, `job.status`,
//! `job.wait` with a timeout, `job.list`, `job.cancel` stopping a running solve within a
//! few increments, `job.pause` at an increment and `job.resume`, `solve.probe` of a
//! paused job reading its latest state, the `job.subscribe` progress stream over
//! WebSocket, and a full queue answering BUSY.

mod common;

use common::{
    bars_params, call, call_err, check_bars_summary, check_far_ends, data, num, object,
    probe_far_ends, Server,
};
use jsonrpsee::core::client::SubscriptionClientT;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// The bars run for `duration` simulated seconds (0.3 s is the oracle case: 709
/// increments; the solve takes about 0.4 ms of wall time per increment here).
fn bars_for(duration: f64) -> Value {
    let mut p = bars_params();
    p["model"]["steps"][0]["duration"] = json!(duration);
    p
}

async fn state(client: &impl jsonrpsee::core::client::ClientT, job: &str) -> Value {
    call(client, "job.status", json!({"job": job})).await
}

async fn until_state(
    client: &impl jsonrpsee::core::client::ClientT,
    job: &str,
    want: &str,
) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let s = state(client, job).await;
        if s["state"] == want {
            return s;
        }
        assert!(
            Instant::now() < deadline,
            "job {job} never reached {want}: {s}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn submit_answers_at_once_and_wait_returns_the_summary() {
    let server = Server::start(&[]);
    let http = server.http();
    let sub = call(&http, "solve.submit", bars_params()).await;
    let job = sub["job"].as_str().expect("a job id").to_owned();
    assert_eq!(sub["cached"], false);
    assert!(
        ["queued", "running"].contains(&sub["state"].as_str().unwrap_or("")),
        "{sub}"
    );

    let done = call(&http, "job.wait", json!({"job": job, "timeout": 120})).await;
    assert_eq!(done["state"], "done", "{done}");
    check_bars_summary(&done["summary"]);
    assert_eq!(done["summary"]["job"], job.as_str());
    check_far_ends(&probe_far_ends(&http, &job).await);

    let list = call(&http, "job.list", json!({})).await;
    assert_eq!(list["jobs"][0]["job"], job.as_str());
    assert_eq!(list["jobs"][0]["state"], "done");
    let failed = call(&http, "job.list", json!({"state": "failed"})).await;
    assert_eq!(failed["jobs"], json!([]));

    // The same model submitted again is the same job, served from its result.
    let again = call(&http, "solve.submit", bars_params()).await;
    assert_eq!(
        (again["job"].as_str(), again["cached"].as_bool()),
        (Some(job.as_str()), Some(true))
    );
    let e = call_err(&http, "job.status", json!({"job": "j-ffff"})).await;
    assert_eq!(e.code(), -32001);
    assert_eq!(data(&e)["job"], "j-ffff");
}

#[tokio::test]
async fn wait_times_out_and_cancel_stops_a_running_solve() {
    let server = Server::start(&[]);
    let http = server.http();
    // About 100 s of wall time if nobody stopped it.
    let job = call(&http, "solve.submit", bars_for(100.0)).await["job"]
        .as_str()
        .expect("job")
        .to_owned();
    let running = until_state(&http, &job, "running").await;
    let t0 = Instant::now();
    let waited = call(&http, "job.wait", json!({"job": job, "timeout": 0.2})).await;
    assert!(t0.elapsed() >= Duration::from_millis(200));
    assert_eq!(waited["state"], "running", "{waited}");
    assert_eq!(running["job"], job.as_str());

    let t0 = Instant::now();
    call(&http, "job.cancel", json!({"job": job})).await;
    let ended = call(&http, "job.wait", json!({"job": job, "timeout": 30})).await;
    // The loop looks at the flag every increment (well under a millisecond here).
    assert!(t0.elapsed() < Duration::from_secs(5), "{:?}", t0.elapsed());
    assert_eq!(ended["state"], "failed", "{ended}");
    assert_eq!(ended["error"]["code"], -32003);
    assert!(
        ended["error"]["data"]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("cancelled")),
        "{ended}"
    );
    // A cancelled job's probe answers its error; a new submission of the model solves anew.
    let e = call_err(&http, "solve.probe", json!({"job": job, "at": [[0, 0, 0]]})).await;
    assert_eq!(e.code(), -32003);
    let again = call(&http, "solve.submit", bars_for(100.0)).await;
    assert_ne!(again["job"], job.as_str());
    assert_eq!(again["cached"], false);
    call(&http, "job.cancel", json!({"job": again["job"]})).await;
}

#[tokio::test]
async fn pause_at_an_increment_probes_the_held_state_then_resumes_to_the_theory() {
    let server = Server::start(&[]);
    let http = server.http();
    let job = call(&http, "solve.submit", bars_params()).await["job"]
        .as_str()
        .expect("job")
        .to_owned();
    // Submitted and paused at once: 600 of the 709 increments are ~0.2 s away.
    call(&http, "job.pause", json!({"job": job, "increment": 600})).await;
    let paused = until_state(&http, &job, "paused").await;
    let (t, inc) = (num(&paused, "/paused_at/0"), num(&paused, "/paused_at/1"));
    assert_eq!(inc, 600.0, "{paused}");
    // Held: no progress while paused.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let still = state(&http, &job).await;
    assert_eq!(still["state"], "paused");
    assert_eq!(still["paused_at"], paused["paused_at"]);
    // A probe of the paused job reads the state where it holds.
    let p = call(
        &http,
        "solve.probe",
        json!({"job": job, "at": [[20.0, 0.0, 0.0]]}),
    )
    .await;
    assert_eq!(num(&p, "/time"), t);
    // After the contact ends (2L/c = 0.2) the struck bar's far end moves at about v0.
    assert!(t > 0.2 && t < 0.3, "t = {t}");
    assert!((num(&p, "/nodes/0/velocity/0") - 0.1).abs() < 0.01, "{p}");

    call(&http, "job.resume", json!({"job": job})).await;
    let done = call(&http, "job.wait", json!({"job": job, "timeout": 60})).await;
    assert_eq!(done["state"], "done", "{done}");
    check_bars_summary(&done["summary"]);
    check_far_ends(&probe_far_ends(&http, &job).await);
    let e = call_err(&http, "job.pause", json!({"job": job})).await;
    assert_eq!(
        (e.code(), data(&e)["pointer"].as_str()),
        (-32602, Some("/job"))
    );
}

#[tokio::test]
async fn a_subscription_streams_progress_with_an_eta_and_ends_with_the_summary() {
    let server = Server::start(&[]);
    let ws = server.ws().await;
    // About 1.5 s of wall time.
    let job = call(&ws, "solve.submit", bars_for(1.5)).await["job"]
        .as_str()
        .expect("job")
        .to_owned();
    let t0 = Instant::now();
    let mut sub = ws
        .subscribe::<Value, _>(
            "job.subscribe",
            object(json!({"job": job})),
            "job.unsubscribe",
        )
        .await
        .expect("subscribe");
    let mut seen: Vec<Value> = Vec::new();
    while let Some(note) = tokio::time::timeout(Duration::from_secs(120), sub.next())
        .await
        .expect("a notification in time")
    {
        let note = note.expect("a JSON notification");
        let end = note["state"] == "done" || note["state"] == "failed";
        seen.push(note);
        if end {
            break;
        }
    }
    let elapsed = t0.elapsed().as_secs_f64();
    let last = seen.last().expect("notifications");
    assert_eq!(last["state"], "done", "{last}");
    check_far_ends(&probe_far_ends(&ws, &job).await);
    assert_eq!(last["summary"]["job"], job.as_str());
    let progress: Vec<&Value> = seen.iter().filter(|n| n["progress"].is_object()).collect();
    assert!(progress.len() >= 2, "{seen:?}");
    let times: Vec<f64> = progress.iter().map(|n| num(n, "/progress/time")).collect();
    assert!(times.windows(2).all(|w| w[1] >= w[0]), "{times:?}");
    assert!(progress
        .iter()
        .any(|n| n["progress"]["eta_seconds"].is_number()));
    assert_eq!(num(progress[0], "/progress/end_time"), 1.5);
    // At most a few notifications a second (one per 250 ms, plus the state changes).
    assert!(
        (seen.len() as f64) <= 4.0 * elapsed + 4.0,
        "{} notifications in {elapsed} s",
        seen.len()
    );
    // Subscribing to a job that does not exist is refused with its name.
    let e = ws
        .subscribe::<Value, _>(
            "job.subscribe",
            object(json!({"job": "j-999"})),
            "job.unsubscribe",
        )
        .await
        .expect_err("an unknown job");
    assert!(e.to_string().contains("j-999"), "{e}");
}

#[tokio::test]
async fn a_full_queue_answers_busy_and_never_backlogs() {
    let server = Server::start(&["--max-concurrent-solves", "1", "--max-queued", "1"]);
    let http = server.http();
    let first = call(&http, "solve.submit", bars_for(100.0)).await;
    let second = call(&http, "solve.submit", bars_for(99.0)).await;
    assert_eq!(second["state"], "queued", "{second}");
    let e = call_err(&http, "solve.submit", bars_for(98.0)).await;
    assert_eq!(e.code(), -32004);
    assert!(data(&e)["reason"]
        .as_str()
        .is_some_and(|r| r.contains("try again")));
    for j in [&first["job"], &second["job"]] {
        call(&http, "job.cancel", json!({"job": j})).await;
        let s = call(&http, "job.wait", json!({"job": j, "timeout": 30})).await;
        assert_eq!(s["state"], "failed");
    }
    // Places are free again.
    let third = call(&http, "solve.submit", bars_for(98.0)).await;
    call(&http, "job.cancel", json!({"job": third["job"]})).await;
}
