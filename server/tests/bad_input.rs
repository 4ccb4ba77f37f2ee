//! Bad input against the real binary (issue 2): each answers a JSON-RPC error with a
//! stable code and a `data` naming the JSON pointer or the job, after which the server
//! still serves and a result solved before still probes to the same bits.

mod common;

use common::{bars_params, call_err, data, raw_http, solve_and_probe_bars, still_serving, Server};
use serde_json::{json, Value};

/// A server with the bars solved: (server, job, probe of the far ends).
async fn server_with_bars() -> (Server, String, Value) {
    let server = Server::start(&[]);
    let (job, probe) = solve_and_probe_bars(&server.http()).await;
    (server, job, probe)
}

#[tokio::test]
async fn malformed_json_is_a_parse_error() {
    let (server, job, probe) = server_with_bars().await;
    let (status, body) = raw_http(
        server.addr,
        "POST",
        "/",
        r#"{"jsonrpc": "2.0", "id": 1, "method": "solve", "params": {"model": "#,
    )
    .await;
    assert_eq!(status, 200, "JSON-RPC answers a parse error in the body");
    let answer: Value = serde_json::from_str(&body).expect("the error is JSON");
    assert_eq!(answer["error"]["code"], -32700, "{body}");
    assert_eq!(answer["id"], Value::Null);
    still_serving(&server, &job, &probe).await;
}

#[tokio::test]
async fn a_wrong_type_names_its_pointer() {
    let (server, job, probe) = server_with_bars().await;
    let mut params = bars_params();
    params["model"]["materials"][0]["rho"] = json!("heavy");
    let e = call_err(&server.http(), "solve", params).await;
    assert_eq!(e.code(), -32602);
    assert_eq!(data(&e)["pointer"], "/model/materials/0/rho");

    let e = call_err(
        &server.ws().await,
        "solve.probe",
        json!({"job": 7, "at": [[0, 0, 0]]}),
    )
    .await;
    assert_eq!(e.code(), -32602);
    assert_eq!(data(&e)["pointer"], "/job");
    still_serving(&server, &job, &probe).await;
}

/// serde loses the path inside `generate`'s tagged spec; the server finds it again.
#[tokio::test]
async fn a_wrong_type_inside_a_generate_spec_names_the_field() {
    let (server, job, probe) = server_with_bars().await;
    let http = server.http();
    let block = json!({"kind": "block", "size": [1, 1, 1], "nx": "two", "ny": 1, "nz": 1});
    let e = call_err(&http, "mesh.generate", block.clone()).await;
    assert_eq!(e.code(), -32602);
    assert_eq!(data(&e)["pointer"], "/nx", "{:?}", data(&e));

    let sphere = json!({"kind": "sphere", "centre": [0, 0, 0], "radius": 1, "smallest_size": 0.1, "growth": [1.2]});
    let e = call_err(&http, "mesh.generate", sphere).await;
    assert_eq!(e.code(), -32602);
    assert_eq!(data(&e)["pointer"], "/growth", "{:?}", data(&e));

    let no_size = json!({"kind": "block", "nx": 1, "ny": 1, "nz": 1});
    let e = call_err(&http, "mesh.generate", no_size).await;
    assert_eq!(e.code(), -32602);
    assert_eq!(data(&e)["pointer"], "", "{:?}", data(&e));
    assert!(data(&e)["reason"].as_str().unwrap_or("").contains("size"));

    let mut params = bars_params();
    params["model"]["parts"][1]["mesh"] = json!({"generate": block});
    let e = call_err(&http, "solve", params).await;
    assert_eq!(e.code(), -32602);
    assert_eq!(
        data(&e)["pointer"],
        "/model/parts/1/mesh/generate/nx",
        "{:?}",
        data(&e)
    );
    still_serving(&server, &job, &probe).await;
}

#[tokio::test]
async fn a_missing_field_names_the_object_that_lacks_it() {
    let (server, job, probe) = server_with_bars().await;
    let mut params = bars_params();
    params["model"]["materials"][0]
        .as_object_mut()
        .expect("a material is an object")
        .remove("E");
    let e = call_err(&server.http(), "solve", params).await;
    assert_eq!(e.code(), -32602);
    let d = data(&e);
    assert_eq!(d["pointer"], "/model/materials/0");
    assert!(
        d["reason"].as_str().is_some_and(|r| r.contains("`E`")),
        "{d}"
    );

    let mut params = bars_params();
    params["model"]
        .as_object_mut()
        .expect("the model is an object")
        .remove("steps");
    let e = call_err(&server.http(), "solve", params).await;
    assert_eq!(e.code(), -32602);
    assert_eq!(data(&e)["pointer"], "/model");
    still_serving(&server, &job, &probe).await;
}

#[tokio::test]
async fn a_negative_density_is_invalid_params() {
    let (server, job, probe) = server_with_bars().await;
    let mut params = bars_params();
    params["model"]["materials"][0]["rho"] = json!(-0.01);
    let e = call_err(&server.http(), "solve", params).await;
    assert_eq!(e.code(), -32602);
    let d = data(&e);
    assert_eq!(d["pointer"], "/model/materials/0/rho");
    assert!(
        d["reason"].as_str().is_some_and(|r| r.contains("density")),
        "{d}"
    );
    still_serving(&server, &job, &probe).await;
}

/// An unknown way of integrating a contact's pairs names the field and the two ways.
#[tokio::test]
async fn an_unknown_pair_integration_names_the_field_and_the_ways() {
    let (server, job, probe) = server_with_bars().await;
    let mut params = bars_params();
    params["model"]["contacts"][0]["integration"] = json!("once");
    let e = call_err(&server.http(), "solve", params).await;
    assert_eq!(e.code(), -32602);
    let d = data(&e);
    assert_eq!(d["pointer"], "/model/contacts/0/integration");
    assert!(
        d["reason"]
            .as_str()
            .is_some_and(|r| r.contains("both_ways") && r.contains("mid_plane")),
        "{d}"
    );
    still_serving(&server, &job, &probe).await;
}

/// Subcycling past 2^6 = 64 is refused before the solve is queued.
#[tokio::test]
async fn too_many_subcycling_levels_name_the_control() {
    let (server, job, probe) = server_with_bars().await;
    let mut params = bars_params();
    params["model"]["controls"] = json!({"subcycling_levels": 7});
    let e = call_err(&server.http(), "solve", params).await;
    assert_eq!(e.code(), -32602);
    let d = data(&e);
    assert_eq!(d["pointer"], "/model/controls/subcycling_levels");
    assert!(
        d["reason"]
            .as_str()
            .is_some_and(|r| r.contains("at most 6")),
        "{d}"
    );
    still_serving(&server, &job, &probe).await;
}

#[tokio::test]
async fn an_unknown_method_is_method_not_found() {
    let (server, job, probe) = server_with_bars().await;
    let e = call_err(&server.http(), "solve.everything", json!({})).await;
    assert_eq!(e.code(), -32601);
    let e = call_err(&server.ws().await, "solve.everything", json!({})).await;
    assert_eq!(e.code(), -32601);
    still_serving(&server, &job, &probe).await;
}

#[tokio::test]
async fn a_probe_of_an_unknown_job_names_the_job() {
    let (server, job, probe) = server_with_bars().await;
    let e = call_err(
        &server.http(),
        "solve.probe",
        json!({"job": "j-nope", "at": [[0, 0, 0]]}),
    )
    .await;
    assert_eq!(e.code(), -32001);
    assert_eq!(data(&e)["job"], "j-nope");
    still_serving(&server, &job, &probe).await;
}

#[tokio::test]
async fn a_probe_of_an_unknown_step_names_the_step() {
    let (server, job, probe) = server_with_bars().await;
    let e = call_err(
        &server.http(),
        "solve.probe",
        json!({"job": job, "step": "Rebound", "at": [[0, 0, 0]]}),
    )
    .await;
    assert_eq!(e.code(), -32002);
    let d = data(&e);
    assert_eq!(d["step"], "Rebound");
    assert_eq!(d["job"], job.as_str());
    still_serving(&server, &job, &probe).await;
}

#[tokio::test]
async fn garbage_from_one_client_leaves_another_clients_result_alone() {
    let server = Server::start(&[]);
    let ws = server.ws().await;
    let (job, first) = solve_and_probe_bars(&ws).await;

    // Another client: broken JSON, a batch of nonsense, a model with a bad density.
    let (_, body) = raw_http(server.addr, "POST", "/", "{\"jsonrpc\": \"2.0\", [").await;
    assert!(body.contains("-32700"), "{body}");
    let (_, body) = raw_http(server.addr, "POST", "/", r#"[1, {"id": 2}, "solve"]"#).await;
    assert!(body.contains("-32600"), "{body}");
    let mut params = bars_params();
    params["model"]["materials"][0]["rho"] = json!(-1.0);
    assert_eq!(
        call_err(&server.http(), "solve", params).await.code(),
        -32602
    );

    // The first client's connection and cached result are intact.
    let second = common::probe_far_ends(&ws, &job).await;
    assert_eq!(first, second);
    still_serving(&server, &job, &first).await;
}
