//! The JSON-RPC methods: each parses its params from the raw JSON text (so a wrong type
//! or a missing field names its JSON pointer), validates them, then hands the work to the
//! scheduler or the job table. Work that may be heavy runs off the async runtime.

use crate::errors::RpcError;
use crate::jobs::{JobState, JobTable};
use crate::scheduler::{panic_message, Scheduler};
use impact_protocol::validate::validate_generate;
use impact_protocol::{
    parse_params, validate_model, GenerateSpec, MeshGenerateResult, Pointer, ProbeParams,
    ProbeResult, ServerInfo, SolveParams, SolveSummary, METHOD_MESH_GENERATE, METHOD_PROBE,
    METHOD_SERVER_INFO, METHOD_SOLVE,
};
use jsonrpsee::types::{ErrorObjectOwned, Params};
use jsonrpsee::RpcModule;
use serde::de::DeserializeOwned;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

/// Every method this server answers, in the order `server.info` lists them.
pub const METHODS: [&str; 4] = [
    METHOD_SOLVE,
    METHOD_PROBE,
    METHOD_MESH_GENERATE,
    METHOD_SERVER_INFO,
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
const PARSE_OFF_RUNTIME_BYTES: usize = 1 << 20;
const PROBE_OFF_RUNTIME_PAIRS: usize = 1 << 22;
const GENERATE_OFF_RUNTIME_ELEMENTS: u64 = 100_000;

/// What every method call sees.
pub struct Context {
    pub jobs: Arc<JobTable>,
    pub scheduler: Scheduler,
}

/// The module with all methods registered.
pub fn module(ctx: Context) -> RpcModule<Context> {
    let mut module = RpcModule::new(ctx);
    // Names are distinct constants, so registration cannot clash; a clash would be a
    // programming error caught by the first test that starts a server.
    module
        .register_async_method(METHOD_SOLVE, |params, ctx, _| async move {
            solve(params, ctx).await.map_err(ErrorObjectOwned::from)
        })
        .expect("method names are distinct");
    module
        .register_async_method(METHOD_PROBE, |params, ctx, _| async move {
            probe(params, ctx).await.map_err(ErrorObjectOwned::from)
        })
        .expect("method names are distinct");
    module
        .register_async_method(METHOD_MESH_GENERATE, |params, _ctx, _| async move {
            mesh_generate(params).await.map_err(ErrorObjectOwned::from)
        })
        .expect("method names are distinct");
    module
        .register_method(METHOD_SERVER_INFO, |_params, ctx, _| {
            Ok::<_, ErrorObjectOwned>(server_info(ctx))
        })
        .expect("method names are distinct");
    module
}

fn parse<T: DeserializeOwned>(params: &Params<'_>) -> Result<T, RpcError> {
    // Absent params parse as null, so the error says what the method expected.
    Ok(parse_params(params.as_str().unwrap_or("null"))?)
}

/// Run `work` on a blocking thread when `heavy`, inline otherwise; a panic either way
/// becomes an internal error for this call alone.
async fn guarded<T, F>(heavy: bool, work: F) -> Result<T, RpcError>
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

async fn solve(params: Params<'static>, ctx: Arc<Context>) -> Result<SolveSummary, RpcError> {
    let heavy = params.as_str().map_or(0, str::len) > PARSE_OFF_RUNTIME_BYTES;
    let model = guarded(heavy, move || {
        let p: SolveParams = parse(&params)?;
        validate_model(&p.model, &Pointer::root().at("model"))?;
        Ok(p.model)
    })
    .await?;
    ctx.scheduler.solve(model).await
}

async fn probe(params: Params<'static>, ctx: Arc<Context>) -> Result<ProbeResult, RpcError> {
    let p: ProbeParams = parse(&params)?;
    let finished = match ctx.jobs.get(&p.job) {
        None => return Err(RpcError::unknown_job(&p.job)),
        Some(JobState::Queued | JobState::Running) => return Err(RpcError::not_finished(&p.job)),
        Some(JobState::Failed(e)) => return Err(e),
        Some(JobState::Done(finished)) => finished,
    };
    // A probe searches every node or sphere once per asked point.
    let bodies = finished.summary.nodes
        + finished
            .summary
            .particles
            .as_ref()
            .map_or(0, |s| s.particles);
    let pairs = (p.at.len() + p.nodes.len() + p.particles.len()).saturating_mul(bodies);
    guarded(pairs > PROBE_OFF_RUNTIME_PAIRS, move || {
        finished
            .solution
            .probe(&p)
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

fn server_info(ctx: &Context) -> ServerInfo {
    ServerInfo {
        name: env!("CARGO_PKG_NAME").into(),
        version: env!("CARGO_PKG_VERSION").into(),
        methods: METHODS.iter().map(|m| (*m).to_owned()).collect(),
        threads: ctx.scheduler.threads(),
        capabilities: CAPABILITIES.iter().map(|c| (*c).to_owned()).collect(),
    }
}
