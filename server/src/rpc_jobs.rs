//! The job methods: `solve` (blocking) and `solve.submit`, `solve.probe` (a finished
//! job's result, or a running job's latest output), `job.status`, `job.wait`,
//! `job.cancel`, `job.list`, `job.pause`, `job.resume`, and the `job.subscribe`
//! WebSocket subscription that streams `job.progress` until the job ends.

use crate::errors::RpcError;
use crate::jobs::{Job, Phase};
use crate::limits;
use crate::rpc::{guarded, parse, Context};
use impact_core::PauseAt;
use impact_protocol::{
    validate_model, JobList, JobParams, JobStatus, ListParams, Model, PauseParams, Pointer,
    ProbeParams, ProbeResult, ServedSummary, SolveParams, SubmitResult, WaitParams,
    METHOD_JOB_CANCEL, METHOD_JOB_LIST, METHOD_JOB_PAUSE, METHOD_JOB_RESUME, METHOD_JOB_STATUS,
    METHOD_JOB_SUBSCRIBE, METHOD_JOB_UNSUBSCRIBE, METHOD_JOB_WAIT, METHOD_SUBMIT,
    NOTIFICATION_JOB_PROGRESS,
};
use jsonrpsee::types::{ErrorObjectOwned, Params};
use jsonrpsee::{PendingSubscriptionSink, RpcModule};
use std::sync::Arc;
use std::time::{Duration, Instant};

// Above this many bytes a request's parsing leaves the runtime's threads.
const PARSE_OFF_RUNTIME_BYTES: usize = 1 << 20;
// Above this cost (`Solution::probe_cost`: node visits of a scan, about a nanosecond each
// here, so a few milliseconds) a probe leaves the runtime's threads.
const PROBE_OFF_RUNTIME_VISITS: usize = 1 << 22;

/// Register the job methods and the progress subscription.
pub fn register(module: &mut RpcModule<Context>) {
    // Names are distinct constants, so registration cannot clash; a clash would be a
    // programming error caught by the first test that starts a server.
    module
        .register_async_method(METHOD_SUBMIT, |params, ctx, _| async move {
            submit(params, ctx).await.map_err(ErrorObjectOwned::from)
        })
        .expect("method names are distinct");
    module
        .register_method(METHOD_JOB_STATUS, |params, ctx, _| {
            job_of(&params, ctx)
                .map(|job| job.status())
                .map_err(ErrorObjectOwned::from)
        })
        .expect("method names are distinct");
    module
        .register_async_method(METHOD_JOB_WAIT, |params, ctx, _| async move {
            wait(params, ctx).await.map_err(ErrorObjectOwned::from)
        })
        .expect("method names are distinct");
    module
        .register_method(METHOD_JOB_CANCEL, |params, ctx, _| {
            cancel(&params, ctx).map_err(ErrorObjectOwned::from)
        })
        .expect("method names are distinct");
    module
        .register_method(METHOD_JOB_LIST, |params, ctx, _| {
            let p: ListParams = if params.as_str().is_none() {
                ListParams::default()
            } else {
                parse(&params)?
            };
            Ok::<_, RpcError>(JobList {
                jobs: ctx.jobs.list(p.state),
            })
            .map_err(ErrorObjectOwned::from)
        })
        .expect("method names are distinct");
    module
        .register_method(METHOD_JOB_PAUSE, |params, ctx, _| {
            pause(&params, ctx).map_err(ErrorObjectOwned::from)
        })
        .expect("method names are distinct");
    module
        .register_method(METHOD_JOB_RESUME, |params, ctx, _| {
            resume(&params, ctx).map_err(ErrorObjectOwned::from)
        })
        .expect("method names are distinct");
    module
        .register_subscription(
            METHOD_JOB_SUBSCRIBE,
            NOTIFICATION_JOB_PROGRESS,
            METHOD_JOB_UNSUBSCRIBE,
            |params, pending, ctx, _| async move { subscribe(params, pending, ctx).await },
        )
        .expect("method names are distinct");
}

fn job_of(params: &Params<'_>, ctx: &Context) -> Result<Arc<Job>, RpcError> {
    let p: JobParams = parse(params)?;
    ctx.jobs
        .get(&p.job)
        .ok_or_else(|| RpcError::unknown_job(&p.job))
}

/// Parse, validate and cap a model from `solve` or `solve.submit` params.
async fn model_of(params: Params<'static>, ctx: &Context) -> Result<Model, RpcError> {
    let heavy = params.as_str().map_or(0, str::len) > PARSE_OFF_RUNTIME_BYTES;
    let caps = ctx.limits.clone();
    guarded(heavy, move || {
        let p: SolveParams = parse(&params)?;
        validate_model(&p.model, &Pointer::root().at("model"))?;
        let mut model = p.model;
        limits::apply(&mut model, &caps)?;
        Ok(model)
    })
    .await
}

/// `solve`: submit, then wait for the end; the summary says whether it was cached.
pub async fn solve(params: Params<'static>, ctx: Arc<Context>) -> Result<ServedSummary, RpcError> {
    let model = model_of(params, &ctx).await?;
    let (job, cached) = ctx.scheduler.submit(model)?;
    match job.wait_final(None).await {
        Some(Phase::Done(summary)) => Ok(ServedSummary {
            summary: *summary,
            cached,
        }),
        Some(Phase::Failed(e)) => Err(e),
        _ => Err(RpcError::internal(format!(
            "job '{}' ended in no final state",
            job.id
        ))),
    }
}

async fn submit(params: Params<'static>, ctx: Arc<Context>) -> Result<SubmitResult, RpcError> {
    let model = model_of(params, &ctx).await?;
    let (job, cached) = ctx.scheduler.submit(model)?;
    Ok(SubmitResult {
        job: job.id.clone(),
        state: job.state(),
        cached,
    })
}

async fn wait(params: Params<'static>, ctx: Arc<Context>) -> Result<JobStatus, RpcError> {
    let p: WaitParams = parse(&params)?;
    let job = ctx
        .jobs
        .get(&p.job)
        .ok_or_else(|| RpcError::unknown_job(&p.job))?;
    let longest = ctx.max_wait_seconds;
    let seconds = match p.timeout {
        None => longest,
        Some(t) if t.is_finite() && t >= 0.0 => t.min(longest),
        Some(t) => {
            return Err(RpcError::invalid_params(
                impact_protocol::InvalidParams::new(
                    &Pointer::root().at("timeout"),
                    format!("a timeout is a finite number of seconds, at least 0; got {t}"),
                ),
            ))
        }
    };
    job.wait_final(Some(Duration::from_secs_f64(seconds))).await;
    Ok(job.status())
}

fn cancel(params: &Params<'_>, ctx: &Context) -> Result<JobStatus, RpcError> {
    let job = job_of(params, ctx)?;
    if !job.state().is_final() {
        tracing::info!(job = %job.id, "cancel asked");
        job.stop(None);
    }
    Ok(job.status())
}

fn pause(params: &Params<'_>, ctx: &Context) -> Result<JobStatus, RpcError> {
    let p: PauseParams = parse(params)?;
    let job = ctx
        .jobs
        .get(&p.job)
        .ok_or_else(|| RpcError::unknown_job(&p.job))?;
    let at = match (p.time, p.increment) {
        (None, None) => PauseAt::Now,
        (Some(t), None) if t.is_finite() => PauseAt::Time(t),
        (Some(t), None) => {
            return Err(RpcError::invalid_params(
                impact_protocol::InvalidParams::new(
                    &Pointer::root().at("time"),
                    format!("{t} is not a finite number"),
                ),
            ))
        }
        (None, Some(n)) => PauseAt::Increment(n),
        (Some(_), Some(_)) => {
            return Err(RpcError::invalid_params(
                impact_protocol::InvalidParams::new(
                    &Pointer::root().at("increment"),
                    "give a time or an increment to pause at, not both",
                ),
            ))
        }
    };
    let state = job.state();
    if state.is_final() {
        return Err(RpcError::job_state(
            &job.id,
            format!(
                "job '{}' has ended ({}); there is nothing to pause",
                job.id,
                state.as_str()
            ),
        ));
    }
    tracing::info!(job = %job.id, ?at, "pause asked");
    job.pause.request(at);
    Ok(job.status())
}

fn resume(params: &Params<'_>, ctx: &Context) -> Result<JobStatus, RpcError> {
    let job = job_of(params, ctx)?;
    let state = job.state();
    if state.is_final() {
        return Err(RpcError::job_state(
            &job.id,
            format!(
                "job '{}' has ended ({}); there is nothing to resume",
                job.id,
                state.as_str()
            ),
        ));
    }
    tracing::info!(job = %job.id, "resume asked");
    job.pause.resume();
    job.bump();
    Ok(job.status())
}

/// A finished job's solution, or the error that says why there is none.
pub async fn finished_solution(
    ctx: &Context,
    job: &str,
) -> Result<Arc<impact_core::Solution>, RpcError> {
    let job = ctx
        .jobs
        .get(job)
        .ok_or_else(|| RpcError::unknown_job(job))?;
    match job.phase() {
        Phase::Done(_) => ctx.results.load(&job.id).await,
        Phase::Failed(e) => Err(e),
        Phase::Queued | Phase::Running => Err(RpcError::not_finished(&job.id)),
    }
}

/// `solve.probe`: a finished job's result (from memory or the data directory), or the
/// latest output of a running or paused one.
pub async fn probe(params: Params<'static>, ctx: Arc<Context>) -> Result<ProbeResult, RpcError> {
    let started = Instant::now();
    let p: ProbeParams = parse(&params)?;
    let job = ctx
        .jobs
        .get(&p.job)
        .ok_or_else(|| RpcError::unknown_job(&p.job))?;
    let solution = match job.phase() {
        Phase::Done(_) => ctx.results.load(&job.id).await?,
        Phase::Failed(e) => return Err(e),
        Phase::Queued | Phase::Running => job
            .latest()
            .ok_or_else(|| RpcError::not_finished(&job.id))?,
    };
    // The first probe by point of a result bins its nodes or spheres; later ones search.
    let heavy = solution.probe_cost(&p) > PROBE_OFF_RUNTIME_VISITS;
    let result = guarded(heavy, move || {
        solution
            .probe(&p)
            .map_err(|e| RpcError::from_probe(&p.job, e))
    })
    .await;
    ctx.metrics.probe_seconds(started.elapsed().as_secs_f64());
    result
}

async fn subscribe(params: Params<'static>, pending: PendingSubscriptionSink, ctx: Arc<Context>) {
    let job = match job_of(&params, &ctx) {
        Ok(job) => job,
        Err(e) => {
            pending.reject(ErrorObjectOwned::from(e)).await;
            return;
        }
    };
    let Ok(sink) = pending.accept().await else {
        return;
    };
    let mut changes = job.watch();
    let mut last: Option<JobStatus> = None;
    loop {
        let status = job.status();
        let ended = status.state.is_final();
        // Snapshots bump the watch too; only send what a client can see change.
        if last.as_ref() != Some(&status) {
            let Ok(message) = serde_json::value::to_raw_value(&status) else {
                return;
            };
            if sink.send(message).await.is_err() {
                return;
            }
            last = Some(status);
        }
        if ended {
            return;
        }
        tokio::select! {
            changed = changes.changed() => if changed.is_err() { return },
            () = sink.closed() => return,
        }
    }
}
