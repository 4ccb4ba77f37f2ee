//! Starting the service: the job table, the solve pool, the JSON-RPC server with its
//! limits, and the plain routes, all on one bound port.

use crate::config::Config;
use crate::jobs::JobTable;
use crate::routes::PlainRoutesLayer;
use crate::rpc::{module, Context};
use crate::scheduler::Scheduler;
use jsonrpsee::server::{Server, ServerConfig, ServerHandle};
use std::net::SocketAddr;
use std::sync::Arc;

/// A server that is bound and serving.
#[derive(Debug)]
pub struct RunningServer {
    /// The address actually bound (the real port when the config asked for port 0).
    pub addr: SocketAddr,
    pub handle: ServerHandle,
}

#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("cannot listen on {addr}")]
    Bind {
        addr: String,
        source: std::io::Error,
    },
    #[error("cannot build the solve pool: {0}")]
    Pool(#[from] rayon::ThreadPoolBuildError),
    #[error("invalid setting: {0}")]
    Config(String),
}

/// Bind the configured address and serve until the handle is stopped.
pub async fn start(config: &Config) -> Result<RunningServer, StartError> {
    if config.threads == 0 || config.max_concurrent_solves == 0 {
        return Err(StartError::Config(
            "threads and max concurrent solves must be at least 1".into(),
        ));
    }
    let jobs = Arc::new(JobTable::new());
    let scheduler = Scheduler::new(
        config.threads,
        config.max_concurrent_solves,
        config.max_queued,
        Arc::clone(&jobs),
    )?;
    let rpc_config = ServerConfig::builder()
        .max_request_body_size(config.max_request_bytes)
        // A generated mesh or a probe of every node can be far larger than its request.
        .max_response_body_size(u32::MAX)
        .build();
    let server = Server::builder()
        .set_config(rpc_config)
        .set_http_middleware(tower::ServiceBuilder::new().layer(PlainRoutesLayer))
        .build(config.listen.as_str())
        .await
        .map_err(|source| StartError::Bind {
            addr: config.listen.clone(),
            source,
        })?;
    let addr = server.local_addr().map_err(|source| StartError::Bind {
        addr: config.listen.clone(),
        source,
    })?;
    let handle = server.start(module(Context { jobs, scheduler }));
    tracing::info!(%addr, threads = config.threads, max_concurrent_solves = config.max_concurrent_solves, max_queued = config.max_queued, "serving JSON-RPC over HTTP and WebSocket");
    Ok(RunningServer { addr, handle })
}
