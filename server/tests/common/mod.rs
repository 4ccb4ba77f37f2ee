//! Test support shared by the server's end-to-end tests: start the real binary on a free
//! loopback port, talk to it over HTTP, WebSocket and raw TCP, and the bars model with its
//! theory values.

#![allow(dead_code)] // each test file uses its own share of these helpers

use jsonrpsee::core::client::{ClientT, Error as ClientError};
use jsonrpsee::http_client::{HttpClient, HttpClientBuilder};
use jsonrpsee::types::ErrorObjectOwned;
use jsonrpsee::ws_client::{WsClient, WsClientBuilder};
use serde_json::{json, Map, Value};
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A running `impact-server`, killed when dropped.
pub struct Server {
    child: Child,
    pub addr: SocketAddr,
    /// The data directory this server was given (removed with the `DataDir` that made it).
    pub data_dir: PathBuf,
    _own_dir: Option<DataDir>,
}

/// A fresh data directory under the system's temp dir, removed when dropped.
pub struct DataDir(pub PathBuf);

impl DataDir {
    pub fn new() -> DataDir {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!(
            "impact-server-test-{}-{n}-{}",
            std::process::id(),
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos())
        ));
        std::fs::create_dir_all(&dir).expect("a temp data dir");
        DataDir(dir)
    }
}

impl Drop for DataDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const READY: &str = "impact-server listening on ";

impl Server {
    /// Start the binary on 127.0.0.1 with a free port, plus `extra` arguments, and wait
    /// for its ready line.
    pub fn start(extra: &[&str]) -> Server {
        let dir = DataDir::new();
        let mut server = Server::start_in(&dir.0, extra);
        server._own_dir = Some(dir);
        server
    }

    /// Start on a given data directory (which outlives the server, for restarts).
    pub fn start_in(data_dir: &Path, extra: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_impact-server"))
            .args(["--listen", "127.0.0.1:0"])
            .arg("--data-dir")
            .arg(data_dir)
            .args(extra)
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start impact-server");
        let stdout = child.stdout.take().expect("piped stdout");
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("read the ready line");
        let addr = line
            .trim_end()
            .strip_prefix(READY)
            .unwrap_or_else(|| panic!("expected '{READY}ADDR', got {line:?}"))
            .parse::<SocketAddr>()
            .expect("the ready line names a socket address");
        assert!(addr.ip().is_loopback() && addr.port() != 0, "{addr}");
        Server {
            child,
            addr,
            data_dir: data_dir.to_owned(),
            _own_dir: None,
        }
    }

    /// The process id, to send it signals.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Kill -9 and reap.
    pub fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Wait for the process to exit by itself, at most `timeout`.
    pub fn wait_exit(&mut self, timeout: std::time::Duration) -> Option<std::process::ExitStatus> {
        let deadline = std::time::Instant::now() + timeout;
        while std::time::Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        None
    }

    pub fn http(&self) -> HttpClient {
        HttpClientBuilder::default()
            .build(format!("http://{}", self.addr))
            .expect("http client")
    }

    pub async fn ws(&self) -> WsClient {
        WsClientBuilder::default()
            .build(format!("ws://{}", self.addr))
            .await
            .expect("ws client")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Send one raw HTTP/1.1 request and answer (status, body).
pub async fn raw_http(addr: SocketAddr, method: &str, path: &str, body: &str) -> (u16, String) {
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let (status, _, body) = raw_request(addr, &request).await;
    (status, body)
}

/// Send a whole HTTP/1.1 request as written and answer (status, head, body).
pub async fn raw_request(addr: SocketAddr, request: &str) -> (u16, String, String) {
    let mut stream = TcpStream::connect(addr).await.expect("connect");
    stream.write_all(request.as_bytes()).await.expect("send");
    let mut response = Vec::new();
    stream.read_to_end(&mut response).await.expect("receive");
    let text = String::from_utf8(response).expect("utf-8 response");
    let (head, body) = text.split_once("\r\n\r\n").expect("an HTTP response");
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status code");
    (status, head.to_owned(), body.to_owned())
}

/// Params as a JSON object, the only shape Impact's methods take.
pub fn object(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        other => panic!("params must be an object, got {other}"),
    }
}

pub async fn call(client: &impl ClientT, method: &str, params: Value) -> Value {
    client
        .request(method, object(params))
        .await
        .unwrap_or_else(|e| panic!("{method} failed: {e}"))
}

/// The JSON-RPC error a call must end with.
pub async fn call_err(client: &impl ClientT, method: &str, params: Value) -> ErrorObjectOwned {
    match client.request::<Value, _>(method, object(params)).await {
        Err(ClientError::Call(e)) => e,
        Ok(v) => panic!("{method} should have failed, answered {v}"),
        Err(e) => panic!("{method} should have answered a JSON-RPC error, got {e}"),
    }
}

/// An error's `data` as JSON.
pub fn data(e: &ErrorObjectOwned) -> Value {
    let raw = e
        .data()
        .unwrap_or_else(|| panic!("error without data: {e:?}"));
    serde_json::from_str(raw.get()).expect("data is JSON")
}

/// The bars case's `solve` params, read from the repository.
pub fn bars_params() -> Value {
    let text = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/oracle/explicit-bars/model.json"
    ));
    serde_json::from_str(text).expect("the bars model is JSON")
}

/// Two equal bars, rho = 0.01, E = 100 (c = 100), unit section, L = 10, v0 = 0.1.
pub const C: f64 = 100.0;
pub const L: f64 = 10.0;
pub const V0: f64 = 0.1;
pub const RHO_C_A: f64 = 1.0;
/// Total mass of the striker: rho * A * L.
pub const M_STRIKER: f64 = 0.1;

pub fn num(v: &Value, pointer: &str) -> f64 {
    v.pointer(pointer)
        .and_then(Value::as_f64)
        .unwrap_or_else(|| panic!("no number at {pointer} in {v}"))
}

fn assert_rel(what: &str, got: f64, want: f64, rel: f64) {
    assert!(
        ((got - want) / want).abs() <= rel,
        "{what}: got {got}, theory {want}, relative tolerance {rel}"
    );
}

fn assert_abs(what: &str, got: f64, want: f64, abs: f64) {
    assert!(
        (got - want).abs() <= abs,
        "{what}: got {got}, theory {want}, absolute tolerance {abs}"
    );
}

/// Check a bars summary against one-dimensional impact theory (Graff §2.1-2.3); the
/// tolerances and their reasons are those of tests/oracle/explicit-bars/case.json.
pub fn check_bars_summary(s: &Value) {
    // Contact lasts 2L/c; the penalty springs delay the release ~1%.
    assert_rel(
        "last contact",
        num(s, "/contacts/0/last_contact"),
        2.0 * L / C,
        0.02,
    );
    // Interface force rho c A v0 / 2 plus the ringing of the discrete front.
    assert_rel(
        "peak force",
        num(s, "/contacts/0/peak_force"),
        RHO_C_A * V0 / 2.0,
        0.04,
    );
    // Elastic impact keeps 1/2 m v0^2; bulk viscosity takes a fraction of a percent.
    let ke0 = 0.5 * M_STRIKER * V0 * V0;
    assert_rel(
        "kinetic energy / initial",
        num(s, "/energy/kinetic") / ke0,
        1.0,
        0.01,
    );
    // The penalty springs give back what they took.
    assert_abs(
        "contact energy / initial",
        num(s, "/energy/contact") / ke0,
        0.0,
        0.001,
    );
}

/// Probe the far ends of both bars after the impact: the striker's (x = 0) and the
/// struck bar's (x = 20).
pub async fn probe_far_ends(client: &impl ClientT, job: &str) -> Value {
    call(
        client,
        "solve.probe",
        json!({"job": job, "step": "Impact", "at": [[0.0, 0.0, 0.0], [20.0, 0.0, 0.0]]}),
    )
    .await
}

/// Velocities exchange: the striker stops, the struck bar leaves at v0 (ringing of the
/// discrete fronts: a few percent of v0, as the case file says).
pub fn check_far_ends(p: &Value) {
    assert_abs(
        "striker far end v_x",
        num(p, "/nodes/0/velocity/0"),
        0.0,
        0.005,
    );
    assert_rel(
        "struck far end v_x",
        num(p, "/nodes/1/velocity/0"),
        V0,
        0.05,
    );
}

/// A summary without what legitimately differs between two runs of one model.
pub fn comparable(summary: &Value) -> Value {
    let mut s = summary.clone();
    let m = s.as_object_mut().expect("a summary is an object");
    m.remove("job");
    m.remove("wall_seconds");
    m.remove("cached");
    s
}

/// Solve the bars over `client`, probe the far ends and check them: (job, probe). The
/// summary's theory is the bars test's to check; here the probe is what must survive.
pub async fn solve_and_probe_bars(client: &impl ClientT) -> (String, Value) {
    let summary = call(client, "solve", bars_params()).await;
    let job = summary["job"]
        .as_str()
        .expect("the summary names its job")
        .to_owned();
    let probe = probe_far_ends(client, &job).await;
    check_far_ends(&probe);
    (job, probe)
}

/// The server still answers, and the job solved before still probes to the same bits.
pub async fn still_serving(server: &Server, job: &str, probe_before: &Value) {
    let http = server.http();
    let info = call(&http, "server.info", json!({})).await;
    assert_eq!(info["name"], "impact-server");
    let (status, body) = raw_http(server.addr, "GET", "/healthz", "").await;
    assert_eq!((status, body.as_str()), (200, "ok"));
    let probe_after = probe_far_ends(&http, job).await;
    assert_eq!(&probe_after, probe_before, "the cached result changed");
}
