//! The JSON-RPC methods: each parses its params from the raw JSON text (so a wrong type
//! or a missing field names its JSON pointer), validates them, then hands the work to the
//! scheduler or the job table. Work that may be heavy runs off the async runtime.

use crate::config::ModelLimits;
use crate::errors::RpcError;
use crate::jobs::JobTable;
use crate::metrics::Metrics;
use crate::results::Results;
use crate::scheduler::{panic_message, Scheduler};
use impact_protocol::validate::validate_generate;
use impact_protocol::{
    parse_params, GenerateSpec, MeshGenerateResult, Pointer, ServerInfo, ServiceInfo,
    ServiceLimits, METHOD_HISTORY, METHOD_JOB_CANCEL, METHOD_JOB_LIST, METHOD_JOB_PAUSE,
    METHOD_JOB_RESUME, METHOD_JOB_STATUS, METHOD_JOB_SUBSCRIBE, METHOD_JOB_UNSUBSCRIBE,
    METHOD_JOB_WAIT, METHOD_MESH_GENERATE, METHOD_PROBE, METHOD_RPC_DISCOVER, METHOD_SERVER_INFO,
    METHOD_SOLVE, METHOD_SUBMIT,
};
use jsonrpsee::types::{ErrorObjectOwned, Params};
use jsonrpsee::RpcModule;
use serde::de::DeserializeOwned;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

/// Every method this server answers, in the order `server.info` lists them.
pub const METHODS: &[&str] = &[
    METHOD_SOLVE,
    METHOD_SUBMIT,
    METHOD_PROBE,
    METHOD_HISTORY,
    impact_protocol::METHOD_EXPORT,
    METHOD_MESH_GENERATE,
    impact_protocol::METHOD_MESH_IMPORT,
    METHOD_JOB_STATUS,
    METHOD_JOB_WAIT,
    METHOD_JOB_CANCEL,
    METHOD_JOB_LIST,
    METHOD_JOB_PAUSE,
    METHOD_JOB_RESUME,
    METHOD_JOB_SUBSCRIBE,
    METHOD_JOB_UNSUBSCRIBE,
    METHOD_SERVER_INFO,
    METHOD_RPC_DISCOVER,
];

/// What the service offers beside the solver's own capabilities.
pub const SERVICE_CAPABILITIES: &[&str] = &[
    "jobs",
    "progress",
    "pause",
    "content-cache",
    "persistence",
    "metrics",
    "openrpc",
];

/// What the server offers beside its methods, for clients that adapt.
pub const CAPABILITIES: [&str; 6] = [
    "http",
    "websocket",
    "batch",
    "healthz",
    "generate:block",
    "generate:sphere",
];

// Thresholds above which work leaves the runtime's threads. Below them the work takes
// well under a millisecond, less than the hop to a blocking thread would add to a probe.
const GENERATE_OFF_RUNTIME_ELEMENTS: u64 = 100_000;

/// What every method call sees.
pub struct Context {
    pub jobs: Arc<JobTable>,
    pub scheduler: Arc<Scheduler>,
    pub results: Arc<Results>,
    pub metrics: Arc<Metrics>,
    pub limits: ModelLimits,
    pub max_wait_seconds: f64,
    /// What `server.info` reports beside the fixed fields.
    pub service_limits: ServiceLimits,
    pub auth: bool,
    pub data_dir: Option<String>,
}

/// The module with all methods registered.
pub fn module(ctx: Context) -> RpcModule<Context> {
    let mut module = RpcModule::new(ctx);
    // Names are distinct constants, so registration cannot clash; a clash would be a
    // programming error caught by the first test that starts a server.
    module
        .register_async_method(METHOD_SOLVE, |params, ctx, _| async move {
            crate::rpc_jobs::solve(params, ctx)
                .await
                .map_err(ErrorObjectOwned::from)
        })
        .expect("method names are distinct");
    module
        .register_async_method(METHOD_PROBE, |params, ctx, _| async move {
            crate::rpc_jobs::probe(params, ctx)
                .await
                .map_err(ErrorObjectOwned::from)
        })
        .expect("method names are distinct");
    module
        .register_async_method(METHOD_HISTORY, |params, ctx, _| async move {
            history(params, ctx).await.map_err(ErrorObjectOwned::from)
        })
        .expect("method names are distinct");
    module
        .register_async_method(
            impact_protocol::METHOD_EXPORT,
            |params, ctx, _| async move {
                crate::export::solve_export(params, ctx)
                    .await
                    .map_err(ErrorObjectOwned::from)
            },
        )
        .expect("method names are distinct");
    module
        .register_async_method(METHOD_MESH_GENERATE, |params, _ctx, _| async move {
            mesh_generate(params).await.map_err(ErrorObjectOwned::from)
        })
        .expect("method names are distinct");
    module
        .register_async_method(
            impact_protocol::METHOD_MESH_IMPORT,
            |params, _ctx, _| async move {
                crate::mesh_import::mesh_import(params)
                    .await
                    .map_err(ErrorObjectOwned::from)
            },
        )
        .expect("method names are distinct");
    module
        .register_method(METHOD_SERVER_INFO, |_params, ctx, _| {
            Ok::<_, ErrorObjectOwned>(server_info(ctx))
        })
        .expect("method names are distinct");
    module
        .register_method(METHOD_RPC_DISCOVER, |_params, _ctx, _| {
            Ok::<_, ErrorObjectOwned>(crate::discover::document())
        })
        .expect("method names are distinct");
    crate::rpc_jobs::register(&mut module);
    module
}

pub(crate) fn parse<T: DeserializeOwned>(params: &Params<'_>) -> Result<T, RpcError> {
    // Absent params parse as null, so the error says what the method expected.
    Ok(parse_params(params.as_str().unwrap_or("null"))?)
}

/// Run `work` on a blocking thread when `heavy`, inline otherwise; a panic either way
/// becomes an internal error for this call alone.
pub(crate) async fn guarded<T, F>(heavy: bool, work: F) -> Result<T, RpcError>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, RpcError> + Send + 'static,
{
    if heavy {
        match tokio::task::spawn_blocking(work).await {
            Ok(result) => result,
            Err(e) if e.is_panic() => {
                let payload = e.into_panic();
                Err(panicked(panic_message(&*payload)))
            }
            Err(e) => Err(RpcError::internal(format!("the task was stopped: {e}"))),
        }
    } else {
        catch_unwind(AssertUnwindSafe(work))
            .unwrap_or_else(|payload| Err(panicked(panic_message(&*payload))))
    }
}

fn panicked(message: &str) -> RpcError {
    tracing::error!(panic = message, "a method panicked");
    RpcError::internal(format!("the server failed on this request: {message}"))
}

/// `solve.history`: a finished job's contact forces and energy terms against time.
async fn history(
    params: Params<'static>,
    ctx: Arc<Context>,
) -> Result<impact_protocol::HistoryResult, RpcError> {
    let p: impact_protocol::HistoryParams = parse(&params)?;
    let solution = crate::rpc_jobs::finished_solution(&ctx, &p.job).await?;
    guarded(true, move || {
        solution
            .history_result(&p)
            .map_err(|e| RpcError::from_probe(&p.job, e))
    })
    .await
}

async fn mesh_generate(params: Params<'static>) -> Result<MeshGenerateResult, RpcError> {
    let spec: GenerateSpec = parse(&params)?;
    validate_generate(&spec, &Pointer::root())?;
    let elements = match &spec {
        GenerateSpec::Block(b) => u64::from(b.nx) * u64::from(b.ny) * u64::from(b.nz),
        GenerateSpec::Sphere(s) => impact_protocol::grading::SphereLayout::counts(s).elements,
    };
    guarded(elements > GENERATE_OFF_RUNTIME_ELEMENTS, move || {
        let mesh = impact_core::generate(&spec);
        Ok(MeshGenerateResult {
            nodes: mesh.nodes.len(),
            elements: mesh.elements.len(),
            quality: impact_core::generate::quality(&mesh),
            mesh,
        })
    })
    .await
}

fn server_info(ctx: &Context) -> ServiceInfo {
    let mut capabilities: Vec<String> = CAPABILITIES.iter().map(|c| (*c).to_owned()).collect();
    capabilities.extend(SERVICE_CAPABILITIES.iter().map(|c| (*c).to_owned()));
    if ctx.auth {
        capabilities.push("auth".into());
    }
    ServiceInfo {
        info: ServerInfo {
            name: env!("CARGO_PKG_NAME").into(),
            version: env!("CARGO_PKG_VERSION").into(),
            methods: METHODS.iter().map(|m| (*m).to_owned()).collect(),
            threads: ctx.scheduler.threads(),
            capabilities,
        },
        limits: ctx.service_limits.clone(),
        auth: ctx.auth,
        data_dir: ctx.data_dir.clone(),
    }
}
