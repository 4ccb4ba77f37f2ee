//! `impact plot`: fetch what a plot draws from a server (`solve.history`, `job.status`,
//! and one `solve.probe` per sampled output for velocities) and hand it to impact-plot,
//! which builds the same series the server's plot routes draw.

use crate::{Client, ClientError};
use impact_plot::{Chart, Plot};
use impact_protocol::{HistoryResult, JobStatus, METHOD_HISTORY, METHOD_JOB_STATUS};
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

#[derive(Debug, thiserror::Error)]
pub enum PlotFetchError {
    #[error(transparent)]
    Client(#[from] ClientError),
    #[error("the answer of {method} does not read: {source}")]
    Decode {
        method: &'static str,
        source: serde_json::Error,
    },
    #[error("job '{job}' is {state}, not done: plots come from a finished job")]
    NotDone { job: String, state: String },
    #[error("--at and --node belong to the velocity plot")]
    PointsForOtherPlot,
    #[error("cannot start the client's runtime: {0}")]
    Runtime(std::io::Error),
}

async fn call<T: DeserializeOwned>(
    client: &Client,
    method: &'static str,
    params: Value,
) -> Result<T, PlotFetchError> {
    let answer = client.call(method, params).await?;
    serde_json::from_value(answer).map_err(|source| PlotFetchError::Decode { method, source })
}

/// The series of `plot` for a finished job: velocities at the nodes nearest `at` and at
/// `nodes` (the model's first and last node when both are empty).
pub async fn fetch_chart(
    client: &Client,
    job: &str,
    plot: Plot,
    at: &[[f64; 3]],
    nodes: &[u32],
) -> Result<Chart, PlotFetchError> {
    if plot != Plot::Velocity && !(at.is_empty() && nodes.is_empty()) {
        return Err(PlotFetchError::PointsForOtherPlot);
    }
    let history: HistoryResult = call(client, METHOD_HISTORY, json!({ "job": job })).await?;
    Ok(match plot {
        Plot::ContactForce => impact_plot::contact_force(&history),
        Plot::Energy => impact_plot::energy(&history.energy),
        Plot::Velocity => {
            let status: JobStatus = call(client, METHOD_JOB_STATUS, json!({ "job": job })).await?;
            let Some(summary) = status.summary else {
                let state = serde_json::to_value(status.state)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default();
                return Err(PlotFetchError::NotDone {
                    job: job.to_owned(),
                    state,
                });
            };
            let requests = impact_plot::velocity_requests(
                job,
                &summary,
                &history.energy.time,
                at,
                nodes,
                impact_plot::MAX_VELOCITY_SAMPLES,
            );
            let mut probes = Vec::with_capacity(requests.len());
            for p in &requests {
                probes.push(client.probe(p).await?);
            }
            impact_plot::velocity(&probes)
        }
    })
}

/// `fetch_chart` against the server at `url`, on a runtime of its own (for the CLI).
pub fn fetch_chart_from(
    url: &str,
    job: &str,
    plot: Plot,
    at: &[[f64; 3]],
    nodes: &[u32],
) -> Result<Chart, PlotFetchError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(PlotFetchError::Runtime)?;
    runtime.block_on(async {
        let client = Client::connect(url).await?;
        fetch_chart(&client, job, plot, at, nodes).await
    })
}
