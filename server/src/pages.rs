//! The job pages and plot routes, plain HTTP GET behind the same token as the rest:
//! `/jobs` (every job with its state and progress), `/jobs/{id}` (a job's summary, energy
//! balance, contact table and plots) and `/jobs/{id}/plots/{plot}.{svg|png|json}`. The
//! pages are rendered here as HTML, with a little JavaScript that polls `job.status`
//! while a job runs; the plots' data and drawing come from impact-plot.

use crate::errors::RpcError;
use crate::jobs::{JobTable, Phase};
use crate::results::Results;
use axum::http::{header, StatusCode};
use impact_core::Solution;
use impact_plot::{Chart, Format, Plot};
use impact_protocol::{HistoryParams, JobStateName, JobStatus, SolveSummary};
use jsonrpsee::server::{HttpBody, HttpResponse};
use std::fmt::Write as _;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

/// What the pages read: the job table and the results.
pub struct Pages {
    pub jobs: Arc<JobTable>,
    pub results: Arc<Results>,
}

pub type Answer = Pin<Box<dyn Future<Output = HttpResponse> + Send + 'static>>;

fn respond(status: StatusCode, content_type: &'static str, body: Vec<u8>) -> HttpResponse {
    let mut response = HttpResponse::new(HttpBody::from(body));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static(content_type),
    );
    // A page shows a job's live state: never answer from a browser's cache.
    response.headers_mut().insert(
        header::CACHE_CONTROL,
        header::HeaderValue::from_static("no-store"),
    );
    response
}

fn plain(status: StatusCode, body: String) -> HttpResponse {
    respond(status, "text/plain; charset=utf-8", body.into_bytes())
}

fn html(body: String) -> HttpResponse {
    respond(
        StatusCode::OK,
        "text/html; charset=utf-8",
        body.into_bytes(),
    )
}

/// A job id as the routes accept it: letters, digits, '-' and '_'.
fn plain_id(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 128
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_'))
}

/// What a plot route's query asks for.
#[derive(Debug, Default, PartialEq)]
pub struct PlotQuery {
    pub at: Vec<[f64; 3]>,
    pub nodes: Vec<u32>,
    pub width: Option<u32>,
    pub height: Option<u32>,
}

/// Percent-decoding for the few characters a query of numbers may carry encoded.
fn decode(s: &str) -> String {
    s.replace("%2C", ",")
        .replace("%2c", ",")
        .replace("%2D", "-")
        .replace("%2d", "-")
        .replace("%2B", "+")
        .replace("%2b", "+")
}

/// Parse `at=x,y,z`, `node=N`, `width=W`, `height=H` (each `at` and `node` may repeat);
/// an error names the parameter and what was wrong.
pub fn parse_plot_query(query: &str) -> Result<PlotQuery, String> {
    let mut q = PlotQuery::default();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let value = decode(value);
        match key {
            "at" => {
                let parts: Vec<&str> = value.split(',').collect();
                let numbers: Vec<f64> = parts
                    .iter()
                    .filter_map(|p| p.trim().parse::<f64>().ok())
                    .filter(|v| v.is_finite())
                    .collect();
                match <[f64; 3]>::try_from(numbers) {
                    Ok(p) if parts.len() == 3 => q.at.push(p),
                    _ => {
                        return Err(format!(
                            "query parameter 'at' (number {}): expected three finite numbers x,y,z, got '{value}'",
                            q.at.len() + 1
                        ))
                    }
                }
            }
            "node" => q.nodes.push(value.parse().map_err(|_| {
                format!("query parameter 'node': expected a node id (0 or more), got '{value}'")
            })?),
            "width" | "height" => {
                let n: u32 = value.parse().map_err(|_| {
                    format!("query parameter '{key}': expected pixels (100 to 8000), got '{value}'")
                })?;
                if !(100..=8000).contains(&n) {
                    return Err(format!(
                        "query parameter '{key}': {n} is outside 100 to 8000 pixels"
                    ));
                }
                if key == "width" {
                    q.width = Some(n);
                } else {
                    q.height = Some(n);
                }
            }
            other => {
                return Err(format!(
                    "unknown query parameter '{other}': a plot takes at=x,y,z, node=N, width=W, height=H"
                ))
            }
        }
    }
    Ok(q)
}

impl Pages {
    /// The answer to `GET path?query` when the path is a page's or a plot's, else none.
    /// The token check has passed already.
    pub fn serve(self: &Arc<Self>, path: &str, query: Option<&str>) -> Option<Answer> {
        let rest = path.strip_prefix("/jobs")?;
        let this = Arc::clone(self);
        let query = query.unwrap_or("").to_owned();
        let segments: Vec<&str> = rest.split('/').filter(|s| !s.is_empty()).collect();
        let not_found = |why: String| -> Option<Answer> {
            Some(Box::pin(async move { plain(StatusCode::NOT_FOUND, why) }))
        };
        match segments.as_slice() {
            [] if rest.is_empty() || rest == "/" => Some(Box::pin(async move { this.list() })),
            [id] if plain_id(id) => {
                let id = (*id).to_owned();
                Some(Box::pin(async move { this.job_page(&id).await }))
            }
            [id, "plots", file] if plain_id(id) => {
                let Some((name, ext)) = file.rsplit_once('.') else {
                    return not_found(format!(
                        "a plot is /jobs/{{id}}/plots/{{plot}}.svg, .png or .json, not '{file}'"
                    ));
                };
                let (plot, format) = match (name.parse::<Plot>(), Format::from_extension(ext)) {
                    (Ok(p), Some(f)) => (p, f),
                    (Err(e), _) => return not_found(e),
                    (_, None) => {
                        return not_found(format!(
                            "unknown plot format '{ext}': one of svg, png, json"
                        ))
                    }
                };
                let id = (*id).to_owned();
                Some(Box::pin(async move {
                    this.plot(&id, plot, format, &query).await
                }))
            }
            // Not a route of ours: a path that only starts with "/jobs" goes on to JSON-RPC.
            _ if !rest.is_empty() && !rest.starts_with('/') => None,
            _ => not_found(
                "the job pages are /jobs, /jobs/{id} and /jobs/{id}/plots/{plot}.{svg|png|json}"
                    .into(),
            ),
        }
    }

    /// A finished job's solution, or the HTTP answer that says why there is none.
    async fn solution(&self, id: &str) -> Result<(Arc<Solution>, SolveSummary), HttpResponse> {
        let Some(job) = self.jobs.get(id) else {
            return Err(plain(
                StatusCode::NOT_FOUND,
                format!("no job is named '{id}'"),
            ));
        };
        match job.phase() {
            Phase::Done(summary) => {
                let solution = self
                    .results
                    .load(id)
                    .await
                    .map_err(|e| plain(StatusCode::INTERNAL_SERVER_ERROR, e.message.clone()))?;
                Ok((solution, (*summary).clone()))
            }
            Phase::Failed(e) => Err(plain(
                StatusCode::NOT_FOUND,
                format!("job '{id}' failed and has no result: {}", e.message),
            )),
            Phase::Queued | Phase::Running => Err(plain(
                StatusCode::CONFLICT,
                format!("job '{id}' has not finished; its plots come when it is done"),
            )),
        }
    }

    async fn plot(&self, id: &str, plot: Plot, format: Format, query: &str) -> HttpResponse {
        let q = match parse_plot_query(query) {
            Ok(q) => q,
            Err(e) => return plain(StatusCode::BAD_REQUEST, e),
        };
        if plot != Plot::Velocity && (!q.at.is_empty() || !q.nodes.is_empty()) {
            return plain(
                StatusCode::BAD_REQUEST,
                format!(
                    "query parameters 'at' and 'node' belong to the velocity plot, not '{plot}'"
                ),
            );
        }
        let (solution, summary) = match self.solution(id).await {
            Ok(s) => s,
            Err(answer) => return answer,
        };
        let size = (
            q.width.unwrap_or(impact_plot::DEFAULT_SIZE.0),
            q.height.unwrap_or(impact_plot::DEFAULT_SIZE.1),
        );
        let id = id.to_owned();
        // Probing every output and drawing take milliseconds: off the runtime's threads.
        let drawn = tokio::task::spawn_blocking(move || {
            let chart = chart(&solution, &summary, &id, plot, &q)?;
            impact_plot::render(&chart, format, size).map_err(|e| RpcError::internal(e.to_string()))
        })
        .await;
        match drawn {
            Ok(Ok(bytes)) => respond(StatusCode::OK, format.content_type(), bytes),
            Ok(Err(e)) => {
                let status = if e.code == impact_protocol::codes::INVALID_PARAMS {
                    StatusCode::BAD_REQUEST
                } else {
                    StatusCode::INTERNAL_SERVER_ERROR
                };
                plain(status, format!("{}: {}", e.message, e.data.reason))
            }
            Err(e) => {
                tracing::error!(error = %e, "drawing a plot failed");
                plain(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    format!("drawing the plot failed: {e}"),
                )
            }
        }
    }

    fn list(&self) -> HttpResponse {
        let entries = self.jobs.list(None);
        let mut rows = String::new();
        let mut live = Vec::new();
        for entry in entries.iter().rev() {
            let Some(job) = self.jobs.get(&entry.job) else {
                continue;
            };
            let status = job.status();
            if !status.state.is_final() {
                live.push(status.job.clone());
            }
            let id = esc(&status.job);
            let _ = writeln!(
                rows,
                "<tr data-job=\"{id}\"><td><a href=\"/jobs/{id}\">{id}</a></td>\
                 <td class=\"state\">{}</td><td class=\"progress\">{}</td><td>{}</td><td>{}</td></tr>",
                state_name(&status),
                progress_text(&status),
                utc(entry.submitted),
                status
                    .summary
                    .as_ref()
                    .map(|s| s.contacts.iter().map(|c| format!("{}: {}", esc(&c.name), num(c.peak_force))).collect::<Vec<_>>().join(", "))
                    .unwrap_or_default(),
            );
        }
        let body = if entries.is_empty() {
            "<p id=\"empty\">No jobs yet. Submit one with <code>solve</code> or <code>solve.submit</code>.</p>".to_owned()
        } else {
            format!(
                "<table id=\"jobs\"><thead><tr><th>job</th><th>state</th><th>progress</th>\
                 <th>submitted (UTC)</th><th>peak contact force</th></tr></thead><tbody>\n{rows}</tbody></table>"
            )
        };
        html(page(
            "Impact: jobs",
            &format!("<h1>Jobs</h1>\n{body}"),
            &live,
        ))
    }

    async fn job_page(&self, id: &str) -> HttpResponse {
        let Some(job) = self.jobs.get(id) else {
            return plain(StatusCode::NOT_FOUND, format!("no job is named '{id}'"));
        };
        let status = job.status();
        let eid = esc(id);
        let mut body = format!(
            "<p><a href=\"/jobs\">All jobs</a></p>\n<h1>Job {eid}</h1>\n\
             <table id=\"status\" data-job=\"{eid}\"><tr><th>state</th><td class=\"state\">{}</td></tr>\
             <tr><th>progress</th><td class=\"progress\">{}</td></tr></table>\n",
            state_name(&status),
            progress_text(&status),
        );
        if let Some(e) = &status.error {
            let _ = write!(
                body,
                "<h2>Error</h2>\n<p id=\"error\">{} (code {})</p>\n<pre>{}</pre>\n",
                esc(&e.message),
                e.code,
                esc(&serde_json::to_string_pretty(&e.data).unwrap_or_default())
            );
        }
        if let Some(s) = &status.summary {
            summary_html(&mut body, id, s);
        }
        let live = if status.state.is_final() {
            Vec::new()
        } else {
            vec![id.to_owned()]
        };
        html(page(&format!("Impact: job {id}"), &body, &live))
    }
}

/// The series a plot draws, from the stored result.
fn chart(
    solution: &Solution,
    summary: &SolveSummary,
    job: &str,
    plot: Plot,
    q: &PlotQuery,
) -> Result<Chart, RpcError> {
    let all = HistoryParams {
        job: job.to_owned(),
        contacts: None,
        max_points: None,
    };
    let history = solution
        .history_result(&all)
        .map_err(|e| RpcError::from_probe(job, e))?;
    Ok(match plot {
        Plot::ContactForce => impact_plot::contact_force(&history),
        Plot::Energy => impact_plot::energy(&history.energy),
        Plot::Velocity => {
            let requests = impact_plot::velocity_requests(
                job,
                summary,
                &history.energy.time,
                &q.at,
                &q.nodes,
                impact_plot::MAX_VELOCITY_SAMPLES,
            );
            let probes = requests
                .iter()
                .map(|p| solution.probe(p).map_err(|e| RpcError::from_probe(job, e)))
                .collect::<Result<Vec<_>, _>>()?;
            impact_plot::velocity(&probes)
        }
    })
}

/// Escape text for HTML element content and quoted attributes.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A number as JSON writes it (the shortest text that reads back the same f64), so the
/// page shows exactly what the API answers.
fn num(v: f64) -> String {
    serde_json::to_string(&v).unwrap_or_else(|_| v.to_string())
}

fn opt(v: Option<f64>) -> String {
    v.map_or_else(|| "never".to_owned(), num)
}

fn state_name(status: &JobStatus) -> String {
    serde_json::to_value(status.state)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

fn progress_text(status: &JobStatus) -> String {
    // The last progress report is throttled, so a finished job's may lag its end.
    if status.state == JobStateName::Done {
        return "100%".to_owned();
    }
    match &status.progress {
        Some(p) if p.end_time > 0.0 => format!(
            "{:.1}% (t = {} of {}, increment {}, step {})",
            (100.0 * p.time / p.end_time).clamp(0.0, 100.0),
            num(p.time),
            num(p.end_time),
            p.increment,
            esc(&p.step)
        ),
        _ if status.state.is_final() => "100%".to_owned(),
        _ => "0%".to_owned(),
    }
}

/// Seconds since the Unix epoch as `YYYY-MM-DD hh:mm:ss` (UTC), by the civil-from-days
/// algorithm of H. Hinnant's "chrono-Compatible Low-Level Date Algorithms".
fn utc(seconds: f64) -> String {
    if !seconds.is_finite() || seconds < 0.0 {
        return String::new();
    }
    let s = seconds as i64;
    let (days, rem) = (s.div_euclid(86_400), s.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

fn summary_html(body: &mut String, id: &str, s: &SolveSummary) {
    let eid = esc(id);
    let _ = write!(
        body,
        "<h2>Summary</h2>\n<table id=\"summary\">\
         <tr><th>nodes</th><td>{}</td></tr><tr><th>elements</th><td>{}</td></tr>\
         <tr><th>initial increment</th><td>{}</td></tr><tr><th>wall seconds</th><td>{}</td></tr></table>\n\
         <table id=\"steps\"><thead><tr><th>step</th><th>end time</th><th>increments</th></tr></thead><tbody>",
        s.nodes,
        s.elements,
        num(s.initial_increment),
        num(s.wall_seconds),
    );
    for step in &s.steps {
        let _ = write!(
            body,
            "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&step.name),
            num(step.end_time),
            step.increments
        );
    }
    body.push_str("</tbody></table>\n");
    let e = &s.energy;
    body.push_str("<h2>Energy balance (end of the last step)</h2>\n<table id=\"energy\">");
    for (name, v) in [
        ("kinetic", e.kinetic),
        ("internal", e.internal),
        ("hourglass", e.hourglass),
        ("viscous", e.viscous),
        ("contact", e.contact),
        ("friction", e.friction),
        ("contact_damping", e.contact_damping),
        ("external_work", e.external_work),
        ("initial", e.initial),
        ("balance_error", e.balance_error),
    ] {
        let _ = write!(
            body,
            "<tr><th>{}</th><td class=\"{name}\">{}</td></tr>",
            name.replace('_', " "),
            num(v)
        );
    }
    body.push_str("</table>\n<h2>Contacts</h2>\n");
    if s.contacts.is_empty() {
        body.push_str("<p>No contacts.</p>\n");
    } else {
        body.push_str(
            "<table id=\"contacts\"><thead><tr><th>name</th><th>peak force</th>\
             <th>first contact</th><th>last contact</th><th>max penetration</th>\
             <th>friction dissipation</th><th>adjusted nodes</th></tr></thead><tbody>",
        );
        for c in &s.contacts {
            let _ = write!(
                body,
                "<tr><td class=\"name\">{}</td><td class=\"peak_force\">{}</td>\
                 <td class=\"first_contact\">{}</td><td class=\"last_contact\">{}</td>\
                 <td class=\"max_penetration\">{}</td><td class=\"friction_dissipation\">{}</td>\
                 <td class=\"adjusted_nodes\">{}</td></tr>",
                esc(&c.name),
                num(c.peak_force),
                opt(c.first_contact),
                opt(c.last_contact),
                num(c.max_penetration),
                num(c.friction_dissipation),
                c.adjusted_nodes.len()
            );
        }
        body.push_str("</tbody></table>\n");
    }
    if let Some(p) = &s.particles {
        let _ = write!(
            body,
            "<h2>Particles</h2>\n<pre id=\"particles\">{}</pre>\n",
            esc(&serde_json::to_string_pretty(p).unwrap_or_default())
        );
    }
    body.push_str("<h2>Plots</h2>\n");
    for plot in Plot::ALL {
        let name = plot.name();
        let _ = writeln!(
            body,
            "<figure><img id=\"plot-{name}\" src=\"/jobs/{eid}/plots/{name}.svg\" alt=\"{name} against time\" width=\"800\" height=\"480\">\
             <figcaption>{name}: <a href=\"/jobs/{eid}/plots/{name}.svg\">SVG</a> \
             <a href=\"/jobs/{eid}/plots/{name}.png\">PNG</a> \
             <a href=\"/jobs/{eid}/plots/{name}.json\">data</a></figcaption></figure>"
        );
    }
}

const STYLE: &str = "body{font-family:sans-serif;margin:2em;color:#222}\
table{border-collapse:collapse;margin:0.5em 0}\
th,td{border:1px solid #bbb;padding:0.25em 0.6em;text-align:left}\
th{background:#eee}figure{margin:1em 0}";

/// While some jobs run, poll `job.status` for them over JSON-RPC (the same origin, so the
/// page needs nothing but this server) and update their state and progress cells; reload
/// once one has ended, so its summary and plots appear.
const POLL: &str = r#"
const live = JSON.parse(document.getElementById('live').textContent);
function pct(p) {
  if (!p || !(p.end_time > 0)) return '0%';
  return (100 * Math.min(1, Math.max(0, p.time / p.end_time))).toFixed(1) + '% (t = ' + p.time +
    ' of ' + p.end_time + ', increment ' + p.increment + ', step ' + p.step + ')';
}
async function poll() {
  let ended = false;
  for (const job of live) {
    try {
      const r = await fetch('/', {method: 'POST', headers: {'Content-Type': 'application/json'},
        body: JSON.stringify({jsonrpc: '2.0', id: 1, method: 'job.status', params: {job}})});
      const s = (await r.json()).result;
      if (!s) continue;
      for (const row of document.querySelectorAll('[data-job="' + job + '"]')) {
        row.querySelector('.state').textContent = s.state;
        row.querySelector('.progress').textContent = pct(s.progress);
      }
      if (s.state === 'done' || s.state === 'failed') ended = true;
    } catch (e) { /* the server may be restarting: try again on the next tick */ }
  }
  if (ended) location.reload(); else setTimeout(poll, 1000);
}
if (live.length > 0) setTimeout(poll, 1000);
"#;

fn page(title: &str, body: &str, live: &[String]) -> String {
    // JSON inside a script element: "</" would end the element, so it is escaped.
    let live = serde_json::to_string(live)
        .unwrap_or_else(|_| "[]".into())
        .replace("</", "<\\/");
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>{}</title><style>{STYLE}</style></head><body>\n{body}\n\
         <script type=\"application/json\" id=\"live\">{live}</script>\n<script>{POLL}</script>\n</body></html>\n",
        esc(title)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plot_queries_parse_or_say_what_is_wrong() {
        let q = parse_plot_query("at=20,0,0&at=0%2C0%2C-1&node=3&width=640").expect("valid");
        assert_eq!(q.at, [[20.0, 0.0, 0.0], [0.0, 0.0, -1.0]]);
        assert_eq!(q.nodes, [3]);
        assert_eq!((q.width, q.height), (Some(640), None));
        let e = parse_plot_query("at=1,2").expect_err("two numbers");
        assert!(e.contains("'at'") && e.contains("'1,2'"), "{e}");
        let e = parse_plot_query("at=1,2,NaN").expect_err("not finite");
        assert!(e.contains("'at'"), "{e}");
        let e = parse_plot_query("node=-1").expect_err("negative");
        assert!(e.contains("'node'"), "{e}");
        let e = parse_plot_query("width=20").expect_err("too small");
        assert!(e.contains("'width'"), "{e}");
        let e = parse_plot_query("colour=red").expect_err("unknown");
        assert!(e.contains("'colour'"), "{e}");
    }

    #[test]
    fn dates_follow_the_civil_calendar() {
        // Fixed points of the Unix calendar: the epoch, 2000-03-01 (after a leap day of a
        // year divisible by 400) and 2026-12-02 12:34:56 (1_796_214_896 s, as Python's calendar.timegm gives it).
        assert_eq!(utc(0.0), "1970-01-01 00:00:00");
        assert_eq!(utc(951_868_800.0), "2000-03-01 00:00:00");
        assert_eq!(utc(1_796_214_896.0), "2026-12-02 12:34:56");
    }

    #[test]
    fn text_is_escaped() {
        assert_eq!(
            esc("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
        assert!(page("t", "", &["</script>".into()]).contains("<\\/script>"));
    }

    #[test]
    fn ids_cannot_leave_the_route() {
        assert!(plain_id("job-12"));
        assert!(!plain_id(".."));
        assert!(!plain_id("a/b"));
        assert!(!plain_id(""));
    }
}
