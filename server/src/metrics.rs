//! Counters and histograms for `/metrics`, written in the Prometheus text format
//! (version 0.0.4): jobs by state, queue depth, solve seconds, probe latency, cache bytes,
//! hits and evictions.

use crate::cache::CacheStats;
use impact_protocol::JobStateName;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::{Mutex, MutexGuard, PoisonError};

/// A cumulative histogram with fixed upper bounds (seconds).
#[derive(Debug, Clone)]
struct Histogram {
    bounds: &'static [f64],
    counts: Vec<u64>,
    sum: f64,
    count: u64,
}

impl Histogram {
    fn new(bounds: &'static [f64]) -> Self {
        Histogram {
            bounds,
            counts: vec![0; bounds.len()],
            sum: 0.0,
            count: 0,
        }
    }

    fn observe(&mut self, v: f64) {
        for (b, c) in self.bounds.iter().zip(self.counts.iter_mut()) {
            if v <= *b {
                *c += 1;
            }
        }
        self.sum += v;
        self.count += 1;
    }

    fn render(&self, out: &mut String, name: &str, help: &str) {
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} histogram");
        for (b, c) in self.bounds.iter().zip(&self.counts) {
            let _ = writeln!(out, "{name}_bucket{{le=\"{b}\"}} {c}");
        }
        let _ = writeln!(out, "{name}_bucket{{le=\"+Inf\"}} {}", self.count);
        let _ = writeln!(out, "{name}_sum {}", self.sum);
        let _ = writeln!(out, "{name}_count {}", self.count);
    }
}

const PROBE_BOUNDS: &[f64] = &[
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
];
const SOLVE_BOUNDS: &[f64] = &[0.1, 0.5, 1.0, 5.0, 10.0, 30.0, 60.0, 300.0, 1800.0, 7200.0];

#[derive(Debug)]
struct Inner {
    probe: Histogram,
    solve: Histogram,
    jobs_done: u64,
    jobs_failed: u64,
    served_from_cache: u64,
    unauthorized: u64,
}

#[derive(Debug)]
pub struct Metrics {
    inner: Mutex<Inner>,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics {
            inner: Mutex::new(Inner {
                probe: Histogram::new(PROBE_BOUNDS),
                solve: Histogram::new(SOLVE_BOUNDS),
                jobs_done: 0,
                jobs_failed: 0,
                served_from_cache: 0,
                unauthorized: 0,
            }),
        }
    }
}

/// The gauges read at scrape time.
#[derive(Debug, Default)]
pub struct Gauges {
    pub jobs: HashMap<JobStateName, usize>,
    pub queue_depth: usize,
    pub cache: CacheStats,
    pub stored_bytes: Option<u64>,
}

impl Metrics {
    // Counters only: a poisoned lock still holds usable numbers.
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub fn probe_seconds(&self, s: f64) {
        self.lock().probe.observe(s);
    }

    pub fn solve_seconds(&self, s: f64) {
        self.lock().solve.observe(s);
    }

    pub fn job_ended(&self, done: bool) {
        let mut m = self.lock();
        if done {
            m.jobs_done += 1;
        } else {
            m.jobs_failed += 1;
        }
    }

    pub fn cache_hit(&self) {
        self.lock().served_from_cache += 1;
    }

    pub fn unauthorized(&self) {
        self.lock().unauthorized += 1;
    }

    pub fn render(&self, g: &Gauges) -> String {
        let m = self.lock().clone_for_render();
        let mut out = String::new();
        let _ = writeln!(
            out,
            "# HELP impact_jobs Jobs of this server's life by state.\n# TYPE impact_jobs gauge"
        );
        for state in [
            JobStateName::Queued,
            JobStateName::Running,
            JobStateName::Paused,
            JobStateName::Done,
            JobStateName::Failed,
        ] {
            let n = g.jobs.get(&state).copied().unwrap_or(0);
            let _ = writeln!(out, "impact_jobs{{state=\"{}\"}} {n}", state.as_str());
        }
        let counters = [
            (
                "impact_queue_depth",
                "gauge",
                "Solves waiting for a slot.",
                g.queue_depth as u64,
            ),
            (
                "impact_jobs_finished_total",
                "counter",
                "Jobs that ended done since start.",
                m.jobs_done,
            ),
            (
                "impact_jobs_failed_total",
                "counter",
                "Jobs that ended failed since start.",
                m.jobs_failed,
            ),
            (
                "impact_solves_served_from_cache_total",
                "counter",
                "Solves answered by an earlier job of the same model.",
                m.served_from_cache,
            ),
            (
                "impact_cache_bytes",
                "gauge",
                "Bytes of results held in memory.",
                g.cache.bytes,
            ),
            (
                "impact_cache_entries",
                "gauge",
                "Results held in memory.",
                g.cache.entries as u64,
            ),
            (
                "impact_cache_hits_total",
                "counter",
                "Probes answered from memory.",
                g.cache.hits,
            ),
            (
                "impact_cache_misses_total",
                "counter",
                "Probes that read a result back from disk.",
                g.cache.misses,
            ),
            (
                "impact_cache_evictions_total",
                "counter",
                "Results dropped from memory (kept on disk).",
                g.cache.evictions,
            ),
            (
                "impact_unauthorized_total",
                "counter",
                "Requests refused for a missing or wrong token.",
                m.unauthorized,
            ),
        ];
        for (name, kind, help, v) in counters {
            let _ = writeln!(
                out,
                "# HELP {name} {help}\n# TYPE {name} {kind}\n{name} {v}"
            );
        }
        if let Some(bytes) = g.stored_bytes {
            let _ = writeln!(
                out,
                "# HELP impact_stored_bytes Bytes of results in the data directory.\n# TYPE impact_stored_bytes gauge\nimpact_stored_bytes {bytes}"
            );
        }
        m.solve.render(
            &mut out,
            "impact_solve_seconds",
            "Wall time of finished solves.",
        );
        m.probe.render(
            &mut out,
            "impact_probe_seconds",
            "Latency of solve.probe calls.",
        );
        out
    }
}

struct Snapshot {
    probe: Histogram,
    solve: Histogram,
    jobs_done: u64,
    jobs_failed: u64,
    served_from_cache: u64,
    unauthorized: u64,
}

impl Inner {
    fn clone_for_render(&self) -> Snapshot {
        Snapshot {
            probe: self.probe.clone(),
            solve: self.solve.clone(),
            jobs_done: self.jobs_done,
            jobs_failed: self.jobs_failed,
            served_from_cache: self.served_from_cache,
            unauthorized: self.unauthorized,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_buckets_are_cumulative() {
        let mut h = Histogram::new(&[1.0, 2.0]);
        for v in [0.5, 1.5, 3.0] {
            h.observe(v);
        }
        let mut out = String::new();
        h.render(&mut out, "x", "help");
        assert!(out.contains("x_bucket{le=\"1\"} 1\n"), "{out}");
        assert!(out.contains("x_bucket{le=\"2\"} 2\n"), "{out}");
        assert!(out.contains("x_bucket{le=\"+Inf\"} 3\n"), "{out}");
        assert!(out.contains("x_sum 5\n"), "{out}");
    }
}
