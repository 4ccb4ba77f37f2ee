//! The server's settings, independent of how they were given (command line today, a
//! config file and the environment later).

/// Everything `start` needs to know.
#[derive(Clone, Debug, PartialEq, Eq)]
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
}

/// 256 MiB: a model of a few million elements written out inline.
pub const DEFAULT_MAX_REQUEST_BYTES: u32 = 256 * 1024 * 1024;

impl Default for Config {
    fn default() -> Self {
        Config {
            listen: "127.0.0.1:7878".into(),
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            max_concurrent_solves: 1,
            max_queued: 64,
            max_request_bytes: DEFAULT_MAX_REQUEST_BYTES,
        }
    }
}
