//! `solve.export` and the plain route that serves its files, `GET /export/{job}/{name}`.
//! The files are rendered by the core from the cached result when asked for, not kept:
//! they would double the data directory for every export, and a server without one (an
//! in-memory cache) could not serve them at all. The rendering runs off the runtime.

use crate::errors::RpcError;
use crate::jobs::{JobTable, Phase};
use crate::results::Results;
use crate::rpc::{guarded, parse, Context};
use axum::http::{header, StatusCode};
use impact_core::export;
use impact_protocol::{export_url, ExportFile, ExportParams, ExportResult, InvalidParams, Pointer};
use jsonrpsee::server::{HttpBody, HttpResponse};
use jsonrpsee::types::Params;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

/// `solve.export`: the list of a finished job's files, with their text when `inline`.
pub async fn solve_export(
    params: Params<'static>,
    ctx: Arc<Context>,
) -> Result<ExportResult, RpcError> {
    let p: ExportParams = parse(&params)?;
    let solution = crate::rpc_jobs::finished_solution(&ctx, &p.job).await?;
    guarded(true, move || {
        let contents = export::contents(&solution);
        let mut entries = export::entries(&solution);
        if let Some(only) = &p.only {
            for (i, name) in only.iter().enumerate() {
                if !entries.iter().any(|e| &e.name == name) {
                    return Err(RpcError::invalid_params(InvalidParams::new(
                        &Pointer::root().at("only").at(i),
                        format!("job '{}' has no export file '{name}'", p.job),
                    )));
                }
            }
            entries.retain(|e| only.contains(&e.name));
        }
        let files = entries
            .into_iter()
            .map(|e| ExportFile {
                url: export_url(&p.job, &e.name),
                content: if p.inline {
                    export::render(&solution, &e.name)
                } else {
                    None
                },
                name: e.name,
                time: e.time,
                step: e.step,
            })
            .collect();
        Ok(ExportResult {
            job: p.job,
            kind: contents.kind.into(),
            series: export::SERIES.into(),
            files,
            point_data: contents.point_data.iter().map(|s| (*s).into()).collect(),
            cell_data: contents.cell_data.iter().map(|s| (*s).into()).collect(),
            parts: contents.parts,
            not_exported: contents.not_exported.iter().map(|s| (*s).into()).collect(),
        })
    })
    .await
}

/// What the export route reads: the job table and the results.
pub struct ExportRoutes {
    pub jobs: Arc<JobTable>,
    pub results: Arc<Results>,
}

type Answer = Pin<Box<dyn Future<Output = HttpResponse> + Send + 'static>>;

fn plain(status: StatusCode, body: String) -> HttpResponse {
    let mut response = HttpResponse::new(HttpBody::from(body));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

/// A job id or file name as the route accepts it: letters, digits, '-', '_' and inner
/// dots, so a path can never leave the export (no '/', no "..").
fn plain_segment(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with('.')
        && !s.contains("..")
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

impl ExportRoutes {
    /// The answer to `GET path` when the path is an export's, else none. The token check
    /// has passed already.
    pub fn serve(self: &Arc<Self>, path: &str) -> Option<Answer> {
        let rest = path.strip_prefix("/export/")?;
        let this = Arc::clone(self);
        let (job, name) = match rest.split_once('/') {
            Some((job, name)) if plain_segment(job) && plain_segment(name) => {
                (job.to_owned(), name.to_owned())
            }
            _ => {
                return Some(Box::pin(async move {
                    plain(
                        StatusCode::NOT_FOUND,
                        "an export's files are at /export/{job}/{name}; solve.export lists them"
                            .into(),
                    )
                }))
            }
        };
        Some(Box::pin(async move { this.file(job, name).await }))
    }

    async fn file(self: Arc<Self>, job: String, name: String) -> HttpResponse {
        let Some(entry) = self.jobs.get(&job) else {
            return plain(StatusCode::NOT_FOUND, format!("no job is named '{job}'"));
        };
        match entry.phase() {
            Phase::Done(_) => {}
            Phase::Failed(e) => {
                return plain(
                    StatusCode::NOT_FOUND,
                    format!("job '{job}' has no result: {}", e.message),
                )
            }
            Phase::Queued | Phase::Running => {
                return plain(
                    StatusCode::CONFLICT,
                    format!("job '{job}' has not finished; export it when it is done"),
                )
            }
        }
        let solution = match self.results.load(&job).await {
            Ok(s) => s,
            Err(e) => return plain(StatusCode::INTERNAL_SERVER_ERROR, e.message),
        };
        let rendered =
            tokio::task::spawn_blocking(move || export::render(&solution, &name).ok_or(name)).await;
        match rendered {
            Ok(Ok(text)) => {
                let mut response = HttpResponse::new(HttpBody::from(text));
                response.headers_mut().insert(
                    header::CONTENT_TYPE,
                    header::HeaderValue::from_static("application/xml; charset=utf-8"),
                );
                response
            }
            Ok(Err(name)) => plain(
                StatusCode::NOT_FOUND,
                format!("job '{job}' has no export file '{name}'; solve.export lists them"),
            ),
            Err(e) => {
                tracing::error!(job, error = %e, "rendering an export failed");
                plain(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    format!("rendering the file failed: {e}"),
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_segments_name_files() {
        assert!(plain_segment("job-12"));
        assert!(plain_segment("frame_00001.vtu"));
        for bad in ["", "..", "../x", "a/b", ".hidden", "a..b", "a%2fb", "x y"] {
            assert!(!plain_segment(bad), "{bad:?} passed");
        }
    }
}
