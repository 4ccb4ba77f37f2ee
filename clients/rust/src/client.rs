//! The typed client of Impact's protocol over jsonrpsee: HTTP POST for `http://` and
//! `https://` addresses, a WebSocket for `ws://` and `wss://`, the same methods on both;
//! a solve can be followed to its end with each progress status on the way.

use crate::error::{ClientError, RpcError};
use impact_protocol::{
    GenerateSpec, JobParams, JobStatus, MeshGenerateResult, ProbeParams, ProbeResult, ServerInfo,
    SolveParams, SolveSummary, SubmitResult, WaitParams, METHOD_MESH_GENERATE, METHOD_PROBE,
    METHOD_SERVER_INFO, METHOD_SOLVE,
};
use jsonrpsee::core::client::{ClientT, SubscriptionClientT};
use jsonrpsee::core::params::ObjectParams;
use jsonrpsee::core::traits::ToRpcParams;
use jsonrpsee::http_client::{HttpClient, HttpClientBuilder};
use jsonrpsee::ws_client::{WsClient, WsClientBuilder};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;
use std::time::Duration;

/// How long a call may take by default. `solve` answers only when the job is done, so
/// this bounds a whole solve, not a round trip.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(3600);

/// The largest request or answer the client handles: models with inline meshes and
/// generated meshes run to tens of megabytes, past jsonrpsee's 10 MB default.
const MAX_MESSAGE_BYTES: u32 = 512 * 1024 * 1024;

enum Transport {
    Http(HttpClient),
    Ws(WsClient),
}

/// A connection to one Impact server.
pub struct Client {
    url: String,
    transport: Transport,
}

/// Params already encoded, handed to jsonrpsee as they are (`None`: no params member).
struct Encoded(Option<Box<RawValue>>);

impl ToRpcParams for Encoded {
    fn to_rpc_params(self) -> Result<Option<Box<RawValue>>, serde_json::Error> {
        Ok(self.0)
    }
}

impl Client {
    /// Connect to `url` (`http://127.0.0.1:7878`, `ws://127.0.0.1:7878`, ...) with the
    /// default request timeout.
    pub async fn connect(url: &str) -> Result<Self, ClientError> {
        Self::connect_with_timeout(url, DEFAULT_REQUEST_TIMEOUT).await
    }

    /// Connect with a bound on how long any one call may take.
    pub async fn connect_with_timeout(url: &str, timeout: Duration) -> Result<Self, ClientError> {
        let connect_err = |source| ClientError::Connect {
            url: url.to_string(),
            source,
        };
        let transport = if url.starts_with("http://") || url.starts_with("https://") {
            let http = HttpClientBuilder::default()
                .request_timeout(timeout)
                .max_request_size(MAX_MESSAGE_BYTES)
                .max_response_size(MAX_MESSAGE_BYTES)
                .build(url)
                .map_err(connect_err)?;
            Transport::Http(http)
        } else if url.starts_with("ws://") || url.starts_with("wss://") {
            let ws = WsClientBuilder::default()
                .request_timeout(timeout)
                .max_request_size(MAX_MESSAGE_BYTES)
                .max_response_size(MAX_MESSAGE_BYTES)
                .build(url)
                .await
                .map_err(connect_err)?;
            Transport::Ws(ws)
        } else {
            return Err(ClientError::Scheme {
                url: url.to_string(),
            });
        };
        Ok(Client {
            url: url.to_string(),
            transport,
        })
    }

    /// The address this client talks to.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Run a model; the answer comes when the job is done.
    pub async fn solve(&self, params: &SolveParams) -> Result<SolveSummary, ClientError> {
        self.typed(METHOD_SOLVE, params).await
    }

    /// Read fields of a finished job at points or nodes.
    pub async fn probe(&self, params: &ProbeParams) -> Result<ProbeResult, ClientError> {
        self.typed(METHOD_PROBE, params).await
    }

    /// Build a mesh on the server.
    pub async fn mesh_generate(
        &self,
        spec: &GenerateSpec,
    ) -> Result<MeshGenerateResult, ClientError> {
        self.typed(METHOD_MESH_GENERATE, spec).await
    }

    /// A finished job's result as VTK files (`inline`: with their text).
    pub async fn export(
        &self,
        params: &impact_protocol::ExportParams,
    ) -> Result<impact_protocol::ExportResult, ClientError> {
        self.typed(impact_protocol::METHOD_EXPORT, params).await
    }

    /// What the server is and what it offers.
    pub async fn server_info(&self) -> Result<ServerInfo, ClientError> {
        self.raw(METHOD_SERVER_INFO, Encoded(None)).await
    }

    /// Call any method with JSON params (`null`: none) and get its JSON result: what the
    /// oracle's `{command, params}` measures go through.
    pub async fn call(&self, method: &str, params: Value) -> Result<Value, ClientError> {
        let encoded = if params.is_null() {
            None
        } else {
            Some(serde_json::value::to_raw_value(&params).map_err(|source| {
                ClientError::Encode {
                    method: method.to_string(),
                    source,
                }
            })?)
        };
        self.raw(method, Encoded(encoded)).await
    }

    async fn typed<P: Serialize, R: DeserializeOwned>(
        &self,
        method: &str,
        params: &P,
    ) -> Result<R, ClientError> {
        let encoded =
            serde_json::value::to_raw_value(params).map_err(|source| ClientError::Encode {
                method: method.to_string(),
                source,
            })?;
        self.raw(method, Encoded(Some(encoded))).await
    }

    /// One call, its answer decoded straight from the response's bytes into `R` (a
    /// `Value` for `call`). Through a `Value` first, the 100-point probe's 27 kB answer
    /// spent more of the client's time building and dropping the tree than parsing
    /// (docs/performance.md). An answer that does not fit `R` is a `Decode` error.
    async fn raw<R: DeserializeOwned>(
        &self,
        method: &str,
        params: Encoded,
    ) -> Result<R, ClientError> {
        let answer = match &self.transport {
            Transport::Http(c) => c.request::<R, _>(method, params).await,
            Transport::Ws(c) => c.request::<R, _>(method, params).await,
        };
        answer.map_err(|e| ClientError::from_call(method, e))
    }
}

impl Client {
    /// Submit a model and follow its job to the end, handing every status to `on_status`
    /// (what a progress bar draws): the `job.subscribe` stream over a WebSocket, `job.wait`
    /// in quarter-second slices over HTTP. The answer is the summary, or the job's error.
    pub async fn solve_following(
        &self,
        params: &SolveParams,
        mut on_status: impl FnMut(&JobStatus),
    ) -> Result<SolveSummary, ClientError> {
        let submitted: SubmitResult = self.typed("solve.submit", params).await?;
        let job = submitted.job;
        let last = match &self.transport {
            Transport::Ws(ws) => {
                let mut p = ObjectParams::new();
                p.insert("job", &job)
                    .map_err(|source| ClientError::Encode {
                        method: "job.subscribe".into(),
                        source,
                    })?;
                let mut stream = ws
                    .subscribe::<JobStatus, _>("job.subscribe", p, "job.unsubscribe")
                    .await
                    .map_err(|e| ClientError::from_call("job.subscribe", e))?;
                loop {
                    match stream.next().await {
                        Some(Ok(status)) => {
                            on_status(&status);
                            if status.state.is_final() {
                                break status;
                            }
                        }
                        Some(Err(source)) => {
                            return Err(ClientError::Decode {
                                method: "job.progress".into(),
                                source,
                            })
                        }
                        // The stream closed without a last word: ask once more.
                        None => {
                            break self
                                .typed("job.status", &JobParams { job: job.clone() })
                                .await?
                        }
                    }
                }
            }
            Transport::Http(_) => loop {
                let status: JobStatus = self
                    .typed(
                        "job.wait",
                        &WaitParams {
                            job: job.clone(),
                            timeout: Some(0.25),
                        },
                    )
                    .await?;
                on_status(&status);
                if status.state.is_final() {
                    break status;
                }
            },
        };
        match (last.summary, last.error) {
            (Some(summary), _) => Ok(summary),
            (None, Some(e)) => Err(ClientError::Rpc(Box::new(RpcError {
                method: METHOD_SOLVE.to_string(),
                code: e.code,
                message: e.message,
                data: Some(e.data),
                raw_data: None,
            }))),
            (None, None) => Err(ClientError::Decode {
                method: "job.status".into(),
                source: serde::de::Error::custom(format!(
                    "job {job} ended without a summary or an error"
                )),
            }),
        }
    }
}
