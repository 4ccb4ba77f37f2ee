//! Limits and security against the real binary (issue 6): the bearer token (every
//! method refused without it, `/healthz` open), the caps on elements, increments and wall
//! time with clear errors, the connection cap, and an unstable solve that ends as a
//! failed job naming the element, the time and the likely cause.

mod common;

use common::{bars_params, call, call_err, data, raw_http, Server};
use jsonrpsee::core::client::{ClientT, Error as ClientError};
use jsonrpsee::http_client::{HeaderMap, HeaderValue, HttpClientBuilder};
use jsonrpsee::ws_client::WsClientBuilder;
use serde_json::{json, Value};

fn bearer(token: &str) -> HeaderMap {
    let mut h = HeaderMap::new();
    h.insert(
        "authorization",
        HeaderValue::from_str(&format!("Bearer {token}")).expect("header"),
    );
    h
}

#[tokio::test]
async fn with_a_token_every_method_but_healthz_needs_it() {
    let dir = common::DataDir::new();
    let token_file = dir.0.join("token");
    std::fs::write(&token_file, "s3cret-token\n").expect("token file");
    let server = Server::start(&["--token-file", token_file.to_str().expect("utf-8 path")]);

    let (status, body) = raw_http(server.addr, "GET", "/healthz", "").await;
    assert_eq!((status, body.as_str()), (200, "ok"));
    for path in ["/", "/metrics"] {
        let (status, body) = raw_http(
            server.addr,
            if path == "/" { "POST" } else { "GET" },
            path,
            r#"{"jsonrpc":"2.0","id":1,"method":"server.info"}"#,
        )
        .await;
        assert_eq!(status, 401, "{path}: {body}");
        let answer: Value = serde_json::from_str(&body).expect("a JSON-RPC error body");
        assert_eq!(answer["error"]["code"], -32005, "{body}");
    }
    // A wrong token is refused too, over HTTP and in the WebSocket handshake.
    let wrong = HttpClientBuilder::default()
        .set_headers(bearer("guess"))
        .build(format!("http://{}", server.addr))
        .expect("client");
    let e = wrong
        .request::<Value, _>("server.info", jsonrpsee::rpc_params![])
        .await
        .expect_err("refused");
    assert!(matches!(e, ClientError::Transport(_)), "{e}");
    assert!(WsClientBuilder::default()
        .set_headers(bearer("guess"))
        .build(format!("ws://{}", server.addr))
        .await
        .is_err());

    let right = HttpClientBuilder::default()
        .set_headers(bearer("s3cret-token"))
        .build(format!("http://{}", server.addr))
        .expect("client");
    let info = call(&right, "server.info", json!({})).await;
    assert_eq!(info["auth"], true);
    let ws = WsClientBuilder::default()
        .set_headers(bearer("s3cret-token"))
        .build(format!("ws://{}", server.addr))
        .await
        .expect("the token opens the WebSocket");
    assert_eq!(call(&ws, "server.info", json!({})).await["auth"], true);
}

#[tokio::test]
async fn model_caps_answer_clear_errors() {
    let server = Server::start(&["--max-elements", "300", "--max-increments", "50"]);
    let http = server.http();
    // 200 + 200 elements: the second part passes the cap of 300.
    let e = call_err(&http, "solve", bars_params()).await;
    assert_eq!(e.code(), -32006, "{e:?}");
    assert_eq!(data(&e)["pointer"], "/model/parts/1/mesh");
    assert!(data(&e)["reason"]
        .as_str()
        .is_some_and(|r| r.contains("300")));

    let mut small = bars_params();
    for part in [0, 1] {
        small["model"]["parts"][part]["mesh"]["generate"]["nx"] = json!(100);
    }
    // The 709 increments of the bars need more than 50.
    let e = call_err(&http, "solve", small).await;
    assert_eq!(e.code(), -32003, "{e:?}");
    assert!(
        data(&e)["reason"]
            .as_str()
            .is_some_and(|r| r.contains("50 increments")),
        "{e:?}"
    );
    let info = call(&http, "server.info", json!({})).await;
    assert_eq!(info["limits"]["max_elements"], 300);
    assert_eq!(info["limits"]["max_increments"], 50);
}

#[tokio::test]
async fn the_wall_time_cap_stops_a_solve_with_its_reason() {
    let server = Server::start(&["--max-wall-seconds", "0.3"]);
    let mut long = bars_params();
    long["model"]["steps"][0]["duration"] = json!(100.0);
    let e = call_err(&server.http(), "solve", long).await;
    assert_eq!(e.code(), -32003);
    let d = data(&e);
    assert!(
        d["reason"]
            .as_str()
            .is_some_and(|r| r.contains("wall-time cap of 0.3 s")),
        "{d}"
    );
    assert!(d["time"].as_f64().is_some_and(|t| t > 0.0), "{d}");
}

#[tokio::test]
async fn the_connection_cap_refuses_one_more() {
    let server = Server::start(&["--max-connections", "2"]);
    let a = server.ws().await;
    let b = server.ws().await;
    let third = WsClientBuilder::default()
        .build(format!("ws://{}", server.addr))
        .await;
    assert!(third.is_err(), "a third connection past the cap of 2");
    drop(a);
    // The freed place takes a new client (the server notices the close shortly).
    let mut ok = false;
    for _ in 0..50 {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        if WsClientBuilder::default()
            .build(format!("ws://{}", server.addr))
            .await
            .is_ok()
        {
            ok = true;
            break;
        }
    }
    assert!(ok);
    drop(b);
}

#[tokio::test]
async fn an_unstable_solve_names_the_element_the_time_and_the_cause() {
    let server = Server::start(&[]);
    // The striker held at its far end and pulled towards it by a gravity ten thousand
    // times what its stiffness bears (static strain rho g L / E = 10): its elements
    // crush within the first wave transit (L / c = 0.1).
    let mut p = bars_params();
    p["model"]["gravity"] = json!([-1.0e5, 0.0, 0.0]);
    p["model"]["boundary_conditions"] =
        json!([{"part": "striker", "set": "xmin", "fixed": ["x", "y", "z"]}]);
    let e = call_err(&server.http(), "solve", p).await;
    assert_eq!(e.code(), -32003, "{e:?}");
    let d = data(&e);
    // The striker's elements are 0..200.
    assert!(d["element"].as_u64().is_some_and(|e| e < 200), "{d}");
    assert!(
        d["time"].as_f64().is_some_and(|t| t > 0.0 && t < 0.1),
        "{d}"
    );
    assert!(
        d["reason"]
            .as_str()
            .is_some_and(|r| r.contains("likely cause")),
        "{d}"
    );
}
