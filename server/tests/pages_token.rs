//! The job pages and plot routes behind the bearer token, against the real binary started
//! with `--token-file`: `GET /jobs`, `/jobs/{id}` and `/jobs/{id}/plots/contact-force.svg`
//! answer 401 with the JSON-RPC error body (-32005) that `/` and `/metrics` answer, without
//! the header and with a wrong token, and 200 with the right one; `/healthz` answers without
//! one; the pages never carry the token; and every refusal is counted in
//! `impact_unauthorized_total`.

mod common;

use common::{bars_params, call, raw_request, Server};
use jsonrpsee::http_client::{HeaderMap, HeaderValue, HttpClientBuilder};
use serde_json::Value;
use std::net::SocketAddr;

const TOKEN: &str = "pages-s3cret-token";

/// One HTTP/1.1 GET with an optional `Authorization` header: (status, head, body).
async fn get(addr: SocketAddr, path: &str, authorization: Option<&str>) -> (u16, String, String) {
    let auth = authorization.map_or(String::new(), |a| format!("Authorization: {a}\r\n"));
    let request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\n{auth}Connection: close\r\n\r\n");
    let (status, head, body) = raw_request(addr, &request).await;
    (status, head.to_ascii_lowercase(), body)
}

fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(':'))
        .map(str::trim)
}

/// `impact_unauthorized_total` from `/metrics` (read with the token).
async fn refusals(addr: SocketAddr) -> u64 {
    let (status, _, body) = get(addr, "/metrics", Some(&format!("Bearer {TOKEN}"))).await;
    assert_eq!(status, 200, "{body}");
    body.lines()
        .find_map(|l| l.strip_prefix("impact_unauthorized_total "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no impact_unauthorized_total in\n{body}"))
}

#[tokio::test]
async fn pages_and_plots_need_the_token_healthz_does_not() {
    let dir = common::DataDir::new();
    let token_file = dir.0.join("token");
    std::fs::write(&token_file, format!("{TOKEN}\n")).expect("token file");
    let server = Server::start(&["--token-file", token_file.to_str().expect("utf-8 path")]);

    // A finished job to show, solved with the token.
    let mut headers = HeaderMap::new();
    headers.insert(
        "authorization",
        HeaderValue::from_str(&format!("Bearer {TOKEN}")).expect("header"),
    );
    let client = HttpClientBuilder::default()
        .set_headers(headers)
        .build(format!("http://{}", server.addr))
        .expect("client");
    let summary = call(&client, "solve", bars_params()).await;
    let job = summary["job"].as_str().expect("the summary names its job");

    let paths = [
        "/jobs".to_owned(),
        "/jobs/".to_owned(),
        format!("/jobs/{job}"),
        format!("/jobs/{job}/plots/contact-force.svg"),
        format!("/jobs/{job}/plots/energy.png?width=300&height=200"),
        // Refused before the route looks: an unknown job is 401, not 404.
        "/jobs/no-such-job".to_owned(),
    ];
    let wrong = [
        None,
        Some("Bearer guess".to_owned()),
        Some(format!("Bearer {}", "x".repeat(TOKEN.len()))),
        Some(format!("Bearer {TOKEN}x")),
        Some(format!("Basic {TOKEN}")),
        Some(TOKEN.to_owned()),
    ];
    let before = refusals(server.addr).await;
    for path in &paths {
        for authorization in &wrong {
            let (status, head, body) = get(server.addr, path, authorization.as_deref()).await;
            assert_eq!(status, 401, "{path} with {authorization:?}: {body}");
            assert_eq!(
                header(&head, "www-authenticate"),
                Some("bearer"),
                "{path}: {head}"
            );
            let answer: Value = serde_json::from_str(&body)
                .unwrap_or_else(|e| panic!("{path}: a JSON-RPC error body, got {body:?}: {e}"));
            assert_eq!(answer["error"]["code"], -32005, "{path}: {body}");
            assert!(!body.contains(TOKEN), "{path}: the refusal names the token");
        }
    }
    let refused = (paths.len() * wrong.len()) as u64;
    assert_eq!(refusals(server.addr).await - before, refused);

    // The right token opens each of them.
    let bearer = format!("Bearer {TOKEN}");
    let (status, head, body) = get(server.addr, "/jobs", Some(&bearer)).await;
    assert_eq!(status, 200, "{body}");
    assert!(header(&head, "content-type").is_some_and(|t| t.starts_with("text/html")));
    assert!(body.contains(job), "the list shows the job: {body}");
    let (status, head, page) = get(server.addr, &format!("/jobs/{job}"), Some(&bearer)).await;
    assert_eq!(status, 200, "{page}");
    assert!(header(&head, "content-type").is_some_and(|t| t.starts_with("text/html")));
    assert!(page.contains(&format!("Job {job}")), "{page}");
    assert!(
        page.contains("contact-force.svg"),
        "the page shows the plots"
    );
    // Neither page hands the token to the browser (the page's script does not send one).
    assert!(!body.contains(TOKEN) && !page.contains(TOKEN));
    let (status, head, svg) = get(
        server.addr,
        &format!("/jobs/{job}/plots/contact-force.svg"),
        Some(&bearer),
    )
    .await;
    assert_eq!(status, 200, "{svg}");
    assert!(header(&head, "content-type").is_some_and(|t| t.starts_with("image/svg+xml")));
    assert!(svg.contains("<svg"), "{svg}");
    // Past the token, an unknown job is the page's own 404.
    let (status, _, body) = get(server.addr, "/jobs/no-such-job", Some(&bearer)).await;
    assert_eq!(status, 404, "{body}");

    // /healthz needs nothing, and a wrong token does not close it.
    for authorization in [None, Some("Bearer guess")] {
        let (status, _, body) = get(server.addr, "/healthz", authorization).await;
        assert_eq!((status, body.as_str()), (200, "ok"), "{authorization:?}");
    }
    assert_eq!(refusals(server.addr).await - before, refused);
}
