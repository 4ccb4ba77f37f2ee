//! Starting the service: the data directory and the jobs it recovers, the result cache,
//! the solve pool, the JSON-RPC server with its limits, and the plain routes (health,
//! token check, metrics), all on one bound port; and its graceful stop.

use crate::config::Config;
use crate::jobs::JobTable;
use crate::metrics::{Gauges, Metrics};
use crate::results::Results;
use crate::routes::{PlainRoutesLayer, RouteState};
use crate::rpc::{module, Context};
use crate::scheduler::Scheduler;
use crate::store::{Store, StoreError};
use jsonrpsee::server::{Server, ServerConfig, ServerHandle};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

/// A server that is bound and serving.
pub struct RunningServer {
    /// The address actually bound (the real port when the config asked for port 0).
    pub addr: SocketAddr,
    pub handle: ServerHandle,
    scheduler: Arc<Scheduler>,
    grace: Duration,
}

impl RunningServer {
    /// Stop taking solves, let running ones finish within the grace period (the rest end
    /// failed, interrupted, and the journal says so), then close the port.
    pub async fn shutdown(&self) {
        tracing::info!(grace_seconds = self.grace.as_secs_f64(), "shutting down");
        self.scheduler.drain(self.grace).await;
        // Already stopped is fine: we are leaving either way.
        let _ = self.handle.stop();
        self.handle.clone().stopped().await;
    }
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
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Bind the configured address and serve until the handle is stopped.
pub async fn start(config: &Config) -> Result<RunningServer, StartError> {
    if config.threads == 0 || config.max_concurrent_solves == 0 {
        return Err(StartError::Config(
            "threads and max concurrent solves must be at least 1".into(),
        ));
    }
    let store = match &config.data_dir {
        Some(dir) => match Store::open(dir) {
            Ok(store) => Some(store),
            // The default directory is shared by every server this user starts (private
            // ones of the CLI too): the first one keeps it, the others run in memory.
            Err(StoreError::InUse { path }) if !config.data_dir_explicit => {
                tracing::warn!(data_dir = %path.display(), "the default data directory is in use by another server; results live in memory only");
                None
            }
            Err(e) => return Err(e.into()),
        },
        None => {
            tracing::warn!(
                "no data directory: finished results live in memory only and a restart loses them"
            );
            None
        }
    };
    let data_dir = store.as_ref().map(|s| s.root().display().to_string());
    let jobs = Arc::new(JobTable::new());
    let results = Arc::new(Results::new(config.cache_bytes, store));
    results.recover(&jobs);
    let metrics = Arc::new(Metrics::default());
    let scheduler = Arc::new(
        Scheduler::new(
            config.threads,
            config.max_concurrent_solves,
            config.max_queued,
            &config.limits,
            Arc::clone(&jobs),
            Arc::clone(&results),
            Arc::clone(&metrics),
        )?
        .with_fault_panic_title(config.fault_panic_title.clone()),
    );
    let rpc_config = ServerConfig::builder()
        .max_request_body_size(config.max_request_bytes)
        .max_response_body_size(config.max_response_bytes)
        .max_connections(config.max_connections)
        .build();
    let render_metrics = {
        let (jobs, scheduler, results, metrics) = (
            Arc::clone(&jobs),
            Arc::clone(&scheduler),
            Arc::clone(&results),
            Arc::clone(&metrics),
        );
        Box::new(move || {
            metrics.render(&Gauges {
                jobs: jobs.counts(),
                queue_depth: scheduler.queue_depth(),
                cache: results.cache_stats(),
                stored_bytes: results.store().map(Store::result_bytes),
            })
        })
    };
    let routes = PlainRoutesLayer::new(RouteState {
        token: config.token.clone(),
        metrics: Arc::clone(&metrics),
        render_metrics,
        exports: Arc::new(crate::export::ExportRoutes {
            jobs: Arc::clone(&jobs),
            results: Arc::clone(&results),
        }),
        pages: Arc::new(crate::pages::Pages {
            jobs: Arc::clone(&jobs),
            results: Arc::clone(&results),
        }),
    });
    let server = Server::builder()
        .set_config(rpc_config)
        .set_http_middleware(tower::ServiceBuilder::new().layer(routes))
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
    let handle = server.start(module(Context {
        jobs,
        scheduler: Arc::clone(&scheduler),
        results,
        metrics,
        limits: config.limits.clone(),
        max_wait_seconds: config.max_wait_seconds,
        service_limits: config.service_limits(),
        auth: config.token.is_some(),
        data_dir,
    }));
    tracing::info!(%addr, threads = config.threads, max_concurrent_solves = config.max_concurrent_solves, max_queued = config.max_queued, auth = config.token.is_some(), "serving JSON-RPC over HTTP and WebSocket");
    Ok(RunningServer {
        addr,
        handle,
        scheduler,
        grace: Duration::from_secs_f64(config.shutdown_grace_seconds.min(1e9)),
    })
}
