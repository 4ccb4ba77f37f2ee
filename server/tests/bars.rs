//! The end-to-end test of issue 2: the colliding bars solved through HTTP and through
//! WebSocket on the real binary, checked against one-dimensional impact theory, probed
//! from the cache (a second solve of the same model is the first job, served from the
//! content-addressed cache), and the same bits whatever the pool's thread count.

mod common;

use common::{
    bars_params, call, check_bars_summary, check_far_ends, comparable, probe_far_ends, Server,
};

#[tokio::test]
async fn bars_through_http_and_websocket() {
    let server = Server::start(&[]);
    let http = server.http();
    let ws = server.ws().await;

    let by_http = call(&http, "solve", bars_params()).await;
    let by_ws = call(&ws, "solve", bars_params()).await;
    check_bars_summary(&by_http);
    check_bars_summary(&by_ws);
    // The same model again is served from the first job's result, and says so.
    assert_eq!(by_http["cached"], false);
    assert_eq!(by_ws["cached"], true);
    assert_eq!(
        by_http["job"], by_ws["job"],
        "the cache serves the first job"
    );
    assert!(by_http["wall_seconds"].as_f64().is_some_and(|t| t > 0.0));
    assert_eq!(
        comparable(&by_http),
        comparable(&by_ws),
        "HTTP and WebSocket differ"
    );

    let job_http = by_http["job"].as_str().expect("job id");
    let job_ws = by_ws["job"].as_str().expect("job id");
    let p_http = probe_far_ends(&http, job_http).await;
    let p_ws = probe_far_ends(&ws, job_ws).await;
    check_far_ends(&p_http);
    check_far_ends(&p_ws);
    assert_eq!(p_http, p_ws);
    // A probe reads the cache: asking again answers the same.
    assert_eq!(probe_far_ends(&ws, job_http).await, p_http);
}

#[tokio::test]
async fn bars_give_the_same_bits_on_one_and_two_threads() {
    let one = Server::start(&["--threads", "1"]);
    let two = Server::start(&["--threads", "2"]);
    let s1 = call(&one.http(), "solve", bars_params()).await;
    let s2 = call(&two.http(), "solve", bars_params()).await;
    // serde_json writes the shortest text that reads back to the same f64, so equal
    // JSON means equal bits.
    assert_eq!(comparable(&s1).to_string(), comparable(&s2).to_string());
}
