//! The server's settings: one `Settings` shape read from the command line, the
//! environment (`IMPACT_*`) and a TOML config file, in that order of precedence, and the
//! resolved `Config` that `start` runs with.

use impact_protocol::ServiceLimits;
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// Every setting, each optional so that sources can be layered. The same struct is the
/// command line (with its environment variables) and the config file's table.
#[derive(Clone, Debug, Default, PartialEq, clap::Args, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// Address to listen on (port 0 picks a free port) [default: 127.0.0.1:7878].
    #[arg(long, value_name = "ADDR", env = "IMPACT_LISTEN")]
    pub listen: Option<String>,
    /// Threads of the solve pool [default: all cores].
    #[arg(long, value_name = "N", env = "IMPACT_THREADS")]
    pub threads: Option<usize>,
    /// Solves that run at the same time [default: 1].
    #[arg(long, value_name = "N", env = "IMPACT_MAX_CONCURRENT_SOLVES")]
    pub max_concurrent_solves: Option<usize>,
    /// Solves that may wait for a slot before the server answers BUSY [default: 64].
    #[arg(long, value_name = "N", env = "IMPACT_MAX_QUEUED")]
    pub max_queued: Option<usize>,
    /// Largest request (HTTP body or WebSocket message) in bytes [default: 256 MiB].
    #[arg(long, value_name = "BYTES", env = "IMPACT_MAX_REQUEST_BYTES")]
    pub max_request_bytes: Option<u32>,
    /// Largest response in bytes [default: 512 MiB].
    #[arg(long, value_name = "BYTES", env = "IMPACT_MAX_RESPONSE_BYTES")]
    pub max_response_bytes: Option<u32>,
    /// Open connections (HTTP and WebSocket) at once [default: 512].
    #[arg(long, value_name = "N", env = "IMPACT_MAX_CONNECTIONS")]
    pub max_connections: Option<u32>,
    /// Nodes in one model [default: 5000000].
    #[arg(long, value_name = "N", env = "IMPACT_MAX_NODES")]
    pub max_nodes: Option<u64>,
    /// Elements in one model [default: 5000000].
    #[arg(long, value_name = "N", env = "IMPACT_MAX_ELEMENTS")]
    pub max_elements: Option<u64>,
    /// Faces all contacts of one model hold together [default: 2000000].
    #[arg(long, value_name = "N", env = "IMPACT_MAX_CONTACT_FACES")]
    pub max_contact_faces: Option<u64>,
    /// Spheres in one particle model [default: 1000000].
    #[arg(long, value_name = "N", env = "IMPACT_MAX_PARTICLES")]
    pub max_particles: Option<u64>,
    /// Increments of one solve [default: 50000000].
    #[arg(long, value_name = "N", env = "IMPACT_MAX_INCREMENTS")]
    pub max_increments: Option<u64>,
    /// Wall seconds one solve may run before it is stopped [default: 86400].
    #[arg(long, value_name = "SECONDS", env = "IMPACT_MAX_WALL_SECONDS")]
    pub max_wall_seconds: Option<f64>,
    /// The longest `job.wait`, in seconds [default: 300].
    #[arg(long, value_name = "SECONDS", env = "IMPACT_MAX_WAIT_SECONDS")]
    pub max_wait_seconds: Option<f64>,
    /// Bytes of finished results kept in memory; the least recently used beyond it are
    /// dropped from memory and read back from the data directory [default: 1 GiB].
    #[arg(long, value_name = "BYTES", env = "IMPACT_CACHE_BYTES")]
    pub cache_bytes: Option<u64>,
    /// Where finished results and the job journal live [default: the user's data
    /// directory, e.g. ~/.local/share/impact].
    #[arg(long, value_name = "DIR", env = "IMPACT_DATA_DIR")]
    pub data_dir: Option<PathBuf>,
    /// Keep results in memory only (no data directory).
    #[arg(long, env = "IMPACT_EPHEMERAL", num_args = 0..=1, default_missing_value = "true")]
    pub ephemeral: Option<bool>,
    /// A file holding the bearer token every method then requires.
    #[arg(long, value_name = "FILE", env = "IMPACT_TOKEN_FILE")]
    pub token_file: Option<PathBuf>,
    /// Seconds SIGTERM waits for running solves before marking them interrupted
    /// [default: 30].
    #[arg(long, value_name = "SECONDS", env = "IMPACT_SHUTDOWN_GRACE_SECONDS")]
    pub shutdown_grace_seconds: Option<f64>,
    /// For tests only: a job whose model has this title panics inside its solve (see
    /// `observe::JobObserver`), so that a panic's path through the core and the pool can
    /// be exercised on the real binary. Hidden from `--help`; off unless set.
    #[arg(
        long,
        value_name = "TITLE",
        env = "IMPACT_FAULT_PANIC_TITLE",
        hide = true,
        hide_env = true
    )]
    pub fault_panic_title: Option<String>,
}

impl Settings {
    /// Each field from `self`, or else from `fallback`.
    pub fn or(self, fallback: Settings) -> Settings {
        Settings {
            listen: self.listen.or(fallback.listen),
            threads: self.threads.or(fallback.threads),
            max_concurrent_solves: self
                .max_concurrent_solves
                .or(fallback.max_concurrent_solves),
            max_queued: self.max_queued.or(fallback.max_queued),
            max_request_bytes: self.max_request_bytes.or(fallback.max_request_bytes),
            max_response_bytes: self.max_response_bytes.or(fallback.max_response_bytes),
            max_connections: self.max_connections.or(fallback.max_connections),
            max_nodes: self.max_nodes.or(fallback.max_nodes),
            max_elements: self.max_elements.or(fallback.max_elements),
            max_contact_faces: self.max_contact_faces.or(fallback.max_contact_faces),
            max_particles: self.max_particles.or(fallback.max_particles),
            max_increments: self.max_increments.or(fallback.max_increments),
            max_wall_seconds: self.max_wall_seconds.or(fallback.max_wall_seconds),
            max_wait_seconds: self.max_wait_seconds.or(fallback.max_wait_seconds),
            cache_bytes: self.cache_bytes.or(fallback.cache_bytes),
            data_dir: self.data_dir.or(fallback.data_dir),
            ephemeral: self.ephemeral.or(fallback.ephemeral),
            token_file: self.token_file.or(fallback.token_file),
            shutdown_grace_seconds: self
                .shutdown_grace_seconds
                .or(fallback.shutdown_grace_seconds),
            fault_panic_title: self.fault_panic_title.or(fallback.fault_panic_title),
        }
    }

    /// The settings of a TOML config file.
    pub fn from_file(path: &Path) -> Result<Settings, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_owned(),
            source,
        })?;
        toml::from_str(&text).map_err(|e| ConfigError::Parse {
            path: path.to_owned(),
            reason: e.to_string(),
        })
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: {reason}", path.display())]
    Parse { path: PathBuf, reason: String },
    #[error("{0}")]
    Invalid(String),
}

/// Caps on what one model may ask for; `None` means no cap.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelLimits {
    pub max_nodes: Option<u64>,
    pub max_elements: Option<u64>,
    pub max_contact_faces: Option<u64>,
    pub max_particles: Option<u64>,
    pub max_increments: Option<u64>,
    pub max_wall_seconds: Option<f64>,
}

impl Default for ModelLimits {
    fn default() -> Self {
        ModelLimits {
            max_nodes: Some(5_000_000),
            max_elements: Some(5_000_000),
            max_contact_faces: Some(2_000_000),
            max_particles: Some(1_000_000),
            max_increments: Some(50_000_000),
            max_wall_seconds: Some(86_400.0),
        }
    }
}

/// Everything `start` needs to know.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// Address to bind, e.g. `127.0.0.1:7878`; port 0 picks a free one.
    pub listen: String,
    /// Threads of the rayon pool every solve runs on.
    pub threads: usize,
    /// Solves that run at the same time on that pool.
    pub max_concurrent_solves: usize,
    /// Solves that may wait for a free slot; one more is answered BUSY.
    pub max_queued: usize,
    /// The largest JSON-RPC request (HTTP body or WebSocket message) accepted.
    pub max_request_bytes: u32,
    pub max_response_bytes: u32,
    pub max_connections: u32,
    pub limits: ModelLimits,
    pub max_wait_seconds: f64,
    pub cache_bytes: u64,
    /// None keeps results in memory only.
    pub data_dir: Option<PathBuf>,
    /// True when the data directory was asked for (not the default): then a directory in
    /// use by another server is an error rather than a fall-back to memory.
    pub data_dir_explicit: bool,
    /// The bearer token every method requires, when set.
    pub token: Option<String>,
    pub shutdown_grace_seconds: f64,
    /// Test-only fault injection: jobs of models with this title panic mid-solve.
    pub fault_panic_title: Option<String>,
}

/// 256 MiB: a model of a few million elements written out inline.
pub const DEFAULT_MAX_REQUEST_BYTES: u32 = 256 * 1024 * 1024;
/// 512 MiB: a probe of every node of a model at that size.
pub const DEFAULT_MAX_RESPONSE_BYTES: u32 = 512 * 1024 * 1024;

impl Default for Config {
    fn default() -> Self {
        Config {
            listen: "127.0.0.1:7878".into(),
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            max_concurrent_solves: 1,
            max_queued: 64,
            max_request_bytes: DEFAULT_MAX_REQUEST_BYTES,
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
            max_connections: 512,
            limits: ModelLimits::default(),
            max_wait_seconds: 300.0,
            cache_bytes: 1 << 30,
            data_dir: None,
            data_dir_explicit: false,
            token: None,
            shutdown_grace_seconds: 30.0,
            fault_panic_title: None,
        }
    }
}

/// The user's data directory for Impact: `$XDG_DATA_HOME/impact`, else
/// `~/.local/share/impact`; None when neither is known.
pub fn default_data_dir() -> Option<PathBuf> {
    if let Some(xdg) = std::env::var_os("XDG_DATA_HOME").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(xdg).join("impact"));
    }
    std::env::var_os("HOME")
        .filter(|v| !v.is_empty())
        .map(|home| PathBuf::from(home).join(".local/share/impact"))
}

/// A cap of 0 in the settings means "no cap".
fn cap(v: Option<u64>, default: Option<u64>) -> Option<u64> {
    match v {
        Some(0) => None,
        Some(n) => Some(n),
        None => default,
    }
}

impl Config {
    /// Resolve layered settings into a config; reads the token file.
    pub fn resolve(s: Settings) -> Result<Config, ConfigError> {
        let d = Config::default();
        let dl = ModelLimits::default();
        let positive = |name: &str, v: Option<usize>, default: usize| match v {
            Some(0) => Err(ConfigError::Invalid(format!("{name} must be at least 1"))),
            Some(n) => Ok(n),
            None => Ok(default),
        };
        let seconds = |name: &str, v: Option<f64>, default: f64| match v {
            Some(x) if !(x.is_finite() && x >= 0.0) => Err(ConfigError::Invalid(format!(
                "{name} must be a finite number of seconds, got {x}"
            ))),
            Some(x) => Ok(x),
            None => Ok(default),
        };
        let token = match &s.token_file {
            None => None,
            Some(path) => {
                let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
                    path: path.clone(),
                    source,
                })?;
                let token = text.trim().to_owned();
                if token.is_empty() {
                    return Err(ConfigError::Invalid(format!(
                        "the token file {} is empty",
                        path.display()
                    )));
                }
                Some(token)
            }
        };
        let data_dir_explicit = s.data_dir.is_some();
        let data_dir = if s.ephemeral.unwrap_or(false) {
            None
        } else {
            s.data_dir.or_else(default_data_dir)
        };
        let wall = seconds(
            "max_wall_seconds",
            s.max_wall_seconds,
            dl.max_wall_seconds.unwrap_or(0.0),
        )?;
        Ok(Config {
            listen: s.listen.unwrap_or(d.listen),
            threads: positive("threads", s.threads, d.threads)?,
            max_concurrent_solves: positive(
                "max_concurrent_solves",
                s.max_concurrent_solves,
                d.max_concurrent_solves,
            )?,
            max_queued: s.max_queued.unwrap_or(d.max_queued),
            max_request_bytes: s.max_request_bytes.unwrap_or(d.max_request_bytes),
            max_response_bytes: s.max_response_bytes.unwrap_or(d.max_response_bytes),
            max_connections: u32::try_from(positive(
                "max_connections",
                s.max_connections.map(|n| n as usize),
                d.max_connections as usize,
            )?)
            .unwrap_or(u32::MAX),
            limits: ModelLimits {
                max_nodes: cap(s.max_nodes, dl.max_nodes),
                max_elements: cap(s.max_elements, dl.max_elements),
                max_contact_faces: cap(s.max_contact_faces, dl.max_contact_faces),
                max_particles: cap(s.max_particles, dl.max_particles),
                max_increments: cap(s.max_increments, dl.max_increments),
                max_wall_seconds: (wall > 0.0).then_some(wall),
            },
            max_wait_seconds: seconds("max_wait_seconds", s.max_wait_seconds, d.max_wait_seconds)?,
            cache_bytes: s.cache_bytes.unwrap_or(d.cache_bytes),
            data_dir,
            data_dir_explicit,
            token,
            shutdown_grace_seconds: seconds(
                "shutdown_grace_seconds",
                s.shutdown_grace_seconds,
                d.shutdown_grace_seconds,
            )?,
            fault_panic_title: s.fault_panic_title,
        })
    }

    /// The limits as `server.info` reports them.
    pub fn service_limits(&self) -> ServiceLimits {
        ServiceLimits {
            max_request_bytes: u64::from(self.max_request_bytes),
            max_response_bytes: u64::from(self.max_response_bytes),
            max_connections: self.max_connections,
            max_nodes: self.limits.max_nodes,
            max_elements: self.limits.max_elements,
            max_contact_faces: self.limits.max_contact_faces,
            max_particles: self.limits.max_particles,
            max_increments: self.limits.max_increments,
            max_wall_seconds: self.limits.max_wall_seconds,
            max_concurrent_solves: self.max_concurrent_solves,
            max_queued: self.max_queued,
            max_wait_seconds: self.max_wait_seconds,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_wins_over_the_file_and_zero_lifts_a_cap() {
        let file: Settings = toml::from_str(
            "listen = \"127.0.0.1:9000\"\nthreads = 3\nmax_nodes = 10\nmax_elements = 0\n",
        )
        .expect("toml");
        let cli = Settings {
            threads: Some(2),
            ephemeral: Some(true),
            ..Settings::default()
        };
        let c = Config::resolve(cli.or(file)).expect("valid");
        assert_eq!(c.listen, "127.0.0.1:9000");
        assert_eq!(c.threads, 2);
        assert_eq!(c.limits.max_nodes, Some(10));
        assert_eq!(c.limits.max_elements, None);
        assert_eq!(c.data_dir, None);
    }

    #[test]
    fn the_example_config_file_reads() {
        let text = include_str!("../../deploy/impact.toml");
        let s: Settings = toml::from_str(text).expect("deploy/impact.toml parses");
        assert_eq!(s.max_concurrent_solves, Some(1));
        let c = Config::resolve(s).expect("and resolves");
        assert_eq!(c.data_dir.as_deref(), Some(Path::new("/var/lib/impact")));
    }

    #[test]
    fn unknown_keys_and_bad_values_are_refused() {
        assert!(toml::from_str::<Settings>("thread = 2\n").is_err());
        let bad = Settings {
            threads: Some(0),
            ..Settings::default()
        };
        assert!(Config::resolve(bad).is_err());
        let bad = Settings {
            max_wait_seconds: Some(f64::NAN),
            ..Settings::default()
        };
        assert!(Config::resolve(bad).is_err());
    }
}
