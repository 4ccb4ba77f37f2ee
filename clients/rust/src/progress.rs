//! How the CLI shows a job on its way: a progress bar (indicatif) when stderr is a
//! terminal, plain lines otherwise, so a log or a pipe gets text it can read back.

use impact_protocol::{JobStateName, JobStatus};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::{IsTerminal, Write};

/// The bar's length: simulated time is shown in thousandths of the solve's end time.
const STEPS: u64 = 1000;

/// Draws the statuses of one job.
pub enum ProgressView {
    Bar(ProgressBar),
    Lines,
}

impl ProgressView {
    /// A bar on a terminal, plain lines elsewhere.
    pub fn for_stderr() -> Self {
        if std::io::stderr().is_terminal() {
            let bar = ProgressBar::new(STEPS);
            let style = ProgressStyle::with_template("{prefix} [{bar:40}] {percent:>3}% {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> ");
            bar.set_style(style);
            ProgressView::Bar(bar)
        } else {
            ProgressView::Lines
        }
    }

    pub fn show(&self, status: &JobStatus) {
        match self {
            ProgressView::Bar(bar) => {
                bar.set_prefix(format!("{} {}", status.job, state_word(status.state)));
                if let Some(p) = &status.progress {
                    let done = if p.end_time > 0.0 {
                        (p.time / p.end_time).clamp(0.0, 1.0)
                    } else {
                        0.0
                    };
                    bar.set_position((done * STEPS as f64).round() as u64);
                    bar.set_message(detail(status));
                }
                if status.state.is_final() {
                    bar.finish();
                }
            }
            ProgressView::Lines => {
                let mut err = std::io::stderr().lock();
                // A closed stderr must not stop the solve's answer reaching stdout.
                let _ = writeln!(
                    err,
                    "impact: {} {} {}",
                    status.job,
                    state_word(status.state),
                    detail(status)
                );
            }
        }
    }
}

fn state_word(state: JobStateName) -> &'static str {
    match state {
        JobStateName::Queued => "queued",
        JobStateName::Running => "running",
        JobStateName::Paused => "paused",
        JobStateName::Done => "done",
        JobStateName::Failed => "failed",
    }
}

/// Step, simulated time, increment, dt, energy balance and the estimate of time left.
pub fn detail(status: &JobStatus) -> String {
    let Some(p) = &status.progress else {
        return String::new();
    };
    let mut s = format!(
        "step {} t {:.4e}/{:.4e} increment {} dt {:.3e}",
        p.step, p.time, p.end_time, p.increment, p.dt
    );
    if let Some(b) = p.balance_error {
        s.push_str(&format!(" balance {b:+.2e}"));
    }
    if let Some(eta) = p.eta_seconds {
        s.push_str(&format!(" eta {eta:.1} s"));
    }
    s
}
