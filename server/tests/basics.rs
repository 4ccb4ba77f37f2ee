//! The server's plain routes and simple methods against the real binary: the ready line,
//! `/healthz`, `server.info` over HTTP and WebSocket, `mesh.generate`.

mod common;

use common::{call, call_err, data, raw_http, Server};
use serde_json::json;

#[tokio::test]
async fn healthz_answers_ok_on_the_rpc_port() {
    let server = Server::start(&[]);
    let (status, body) = raw_http(server.addr, "GET", "/healthz", "").await;
    assert_eq!(status, 200);
    assert_eq!(body, "ok");
}

#[tokio::test]
async fn server_info_over_http_and_websocket() {
    let server = Server::start(&["--threads", "2"]);
    let expect_methods = [
        "solve",
        "solve.probe",
        "solve.history",
        "mesh.generate",
        "server.info",
    ];
    let http = call(&server.http(), "server.info", json!({})).await;
    let ws = call(&server.ws().await, "server.info", json!({})).await;
    assert_eq!(http, ws);
    assert_eq!(http["name"], "impact-server");
    assert_eq!(http["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(http["threads"], 2, "the pool has the threads asked for");
    let methods: Vec<&str> = http["methods"]
        .as_array()
        .expect("methods is a list")
        .iter()
        .filter_map(|m| m.as_str())
        .collect();
    for m in expect_methods {
        assert!(methods.contains(&m), "server.info lacks {m}: {methods:?}");
    }
}

#[tokio::test]
async fn a_batch_answers_every_call_in_it() {
    let server = Server::start(&[]);
    let batch = r#"[{"jsonrpc":"2.0","id":1,"method":"server.info"},
                    {"jsonrpc":"2.0","id":2,"method":"no.such.method"}]"#;
    let (status, body) = raw_http(server.addr, "POST", "/", batch).await;
    assert_eq!(status, 200);
    let answers: serde_json::Value = serde_json::from_str(&body).expect("JSON answer");
    let answers = answers.as_array().expect("a batch answers a list");
    assert_eq!(answers.len(), 2);
    let by_id = |id: u64| {
        answers
            .iter()
            .find(|a| a["id"] == id)
            .unwrap_or_else(|| panic!("no answer for id {id}: {body}"))
    };
    assert_eq!(by_id(1)["result"]["name"], "impact-server");
    assert_eq!(by_id(2)["error"]["code"], -32601);
}

#[tokio::test]
async fn mesh_generate_builds_a_block() {
    let server = Server::start(&[]);
    let (nx, ny, nz) = (4u64, 3u64, 2u64);
    let r = call(
        &server.http(),
        "mesh.generate",
        json!({"kind": "block", "size": [4.0, 3.0, 2.0], "nx": nx, "ny": ny, "nz": nz}),
    )
    .await;
    // A structured block: (n+1) nodes along each edge, n elements.
    assert_eq!(r["nodes"], (nx + 1) * (ny + 1) * (nz + 1));
    assert_eq!(r["elements"], nx * ny * nz);
    assert_eq!(
        r["mesh"]["nodes"].as_array().map(Vec::len),
        Some(((nx + 1) * (ny + 1) * (nz + 1)) as usize)
    );
    // One face set per side: the xmax side has ny * nz faces.
    assert_eq!(
        r["mesh"]["face_sets"]["xmax"].as_array().map(Vec::len),
        Some((ny * nz) as usize)
    );
}

#[tokio::test]
async fn mesh_generate_rejects_an_empty_block_with_its_pointer() {
    let server = Server::start(&[]);
    let http = server.http();
    let e = call_err(
        &http,
        "mesh.generate",
        json!({"kind": "block", "size": [1.0, 1.0, 1.0], "nx": 0, "ny": 1, "nz": 1}),
    )
    .await;
    assert_eq!(e.code(), -32602);
    assert_eq!(data(&e)["pointer"], "/nx");
    let e = call_err(
        &http,
        "mesh.generate",
        json!({"kind": "block", "size": [1.0, -1.0, 1.0], "nx": 1, "ny": 1, "nz": 1}),
    )
    .await;
    assert_eq!(e.code(), -32602);
    assert_eq!(data(&e)["pointer"], "/size/1");
}

#[tokio::test]
async fn a_request_over_the_size_limit_is_refused_and_the_server_goes_on() {
    let server = Server::start(&["--max-request-bytes", "1000"]);
    let padding = "x".repeat(2000);
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"server.info","params":{{"pad":"{padding}"}}}}"#
    );
    let (status, _) = raw_http(server.addr, "POST", "/", &body).await;
    assert_eq!(status, 413, "payload too large");
    let info = call(&server.http(), "server.info", json!({})).await;
    assert_eq!(info["name"], "impact-server");
}
