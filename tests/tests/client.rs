//! The typed client against the real server, over HTTP and over WebSocket: a solve of
//! the bars, a probe of its cached result, a generated mesh, and errors that keep the
//! server's code and data (the JSON pointer of bad input, the unknown job); and, against a
//! stand-in server, an answer that does not fit the protocol.

use impact_client::{Client, ClientError};
use impact_e2e::{oracle_dir, start_server};
use impact_protocol::{codes, parse_params, GenerateSpec, ProbeParams, SolveParams};

fn bars() -> SolveParams {
    let text = std::fs::read_to_string(oracle_dir().join("explicit-bars/model.json")).unwrap();
    parse_params(&text).unwrap_or_else(|e| panic!("the bars model: {e}"))
}

/// A probe at the struck bar's far end, at the end of the step "Impact".
fn probe_params(job: &str) -> ProbeParams {
    let json = serde_json::json!({"job": job, "step": "Impact", "at": [[20.0, 0.0, 0.0]]});
    parse_params(&json.to_string()).unwrap_or_else(|e| panic!("probe params: {e}"))
}

async fn exercise(client: &Client) {
    let info = client.server_info().await.unwrap_or_else(|e| panic!("{e}"));
    assert!(info.methods.iter().any(|m| m == "solve.probe"), "{info:?}");

    let summary = client
        .solve(&bars())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(!summary.job.is_empty());
    // The bars are two blocks of 200 × 1 × 1 hex8: 2 × 201 × 2 × 2 nodes.
    assert_eq!((summary.nodes, summary.elements), (1608, 400));

    let probe = probe_params(&summary.job);
    let answer = client.probe(&probe).await.unwrap_or_else(|e| panic!("{e}"));
    // The node nearest (20, 0, 0) is the struck bar's far corner, exactly there.
    assert_eq!(answer.nodes.len(), 1);
    assert_eq!(answer.nodes[0].reference, [20.0, 0.0, 0.0]);
    assert_eq!(answer.nodes[0].distance, 0.0);

    let spec: GenerateSpec =
        parse_params(r#"{"kind": "block", "size": [2, 1, 1], "nx": 2, "ny": 1, "nz": 1}"#).unwrap();
    let mesh = client
        .mesh_generate(&spec)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    // Two hex8 side by side share a face: 3 × 2 × 2 nodes.
    assert_eq!((mesh.nodes, mesh.elements), (12, 2));

    let unknown = probe_params("no-such-job");
    match client.probe(&unknown).await {
        Err(ClientError::Rpc(e)) => {
            assert_eq!(e.code, codes::UNKNOWN_JOB, "{e}");
            assert_eq!(
                e.data.as_ref().and_then(|d| d.job.as_deref()),
                Some("no-such-job"),
                "{e}"
            );
        }
        other => panic!("expected an unknown-job error, got {other:?}"),
    }

    let mut params = serde_json::to_value(bars()).unwrap();
    params["model"]["materials"][0]["rho"] = serde_json::json!(-0.01);
    match client.call("solve", params).await {
        Err(ClientError::Rpc(e)) => {
            assert_eq!(e.code, codes::INVALID_PARAMS, "{e}");
            let pointer = e.data.as_ref().and_then(|d| d.pointer.as_deref());
            assert_eq!(pointer, Some("/model/materials/0/rho"), "{e}");
        }
        other => panic!("expected an invalid-params error, got {other:?}"),
    }
}

#[tokio::test]
async fn the_typed_client_speaks_http() {
    let server = start_server();
    let client = Client::connect(&server.http_url())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    exercise(&client).await;
}

#[tokio::test]
async fn the_typed_client_speaks_websocket() {
    let server = start_server();
    let client = Client::connect(&server.ws_url())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    exercise(&client).await;
}

#[tokio::test]
async fn an_address_without_a_known_scheme_is_refused() {
    assert!(matches!(
        Client::connect("127.0.0.1:7878").await,
        Err(ClientError::Scheme { .. })
    ));
}

/// A stand-in for a server of another version: `solve.probe` and `server.info` answer, but
/// not in the protocol's shape.
async fn misshapen_server() -> (jsonrpsee::server::ServerHandle, std::net::SocketAddr) {
    let mut module = jsonrpsee::RpcModule::new(());
    module
        .register_method("solve.probe", |_, _, _| serde_json::json!({"step": 5}))
        .unwrap();
    module
        .register_method("server.info", |_, _, _| serde_json::json!(["not", "info"]))
        .unwrap();
    let server = jsonrpsee::server::Server::builder()
        .build("127.0.0.1:0")
        .await
        .unwrap();
    let addr = server.local_addr().unwrap();
    (server.start(module), addr)
}

#[tokio::test]
async fn an_answer_that_does_not_fit_the_protocol_is_a_decode_error_naming_the_method() {
    let (handle, addr) = misshapen_server().await;
    for url in [format!("http://{addr}"), format!("ws://{addr}")] {
        let client = Client::connect(&url)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        match client.probe(&probe_params("any")).await {
            Err(e @ ClientError::Decode { .. }) => {
                assert!(e.to_string().contains("solve.probe"), "{url}: {e}");
            }
            other => panic!("{url}: expected a decode error, got {other:?}"),
        }
        match client.server_info().await {
            Err(e @ ClientError::Decode { .. }) => {
                assert!(e.to_string().contains("server.info"), "{url}: {e}");
            }
            other => panic!("{url}: expected a decode error, got {other:?}"),
        }
        // The untyped call takes any JSON.
        let answer = client
            .call("solve.probe", serde_json::json!({}))
            .await
            .unwrap_or_else(|e| panic!("{url}: {e}"));
        assert_eq!(answer, serde_json::json!({"step": 5}), "{url}");
    }
    handle.stop().unwrap();
}
