//! Starting a private `impact-server` on a free loopback port and stopping it: the
//! binary beside the running executable or on PATH, `--listen 127.0.0.1:0 --ephemeral`,
//! the one line it prints on stdout (`impact-server listening on 127.0.0.1:PORT`), and a
//! child that is killed and reaped however the caller ends, errors included.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The server binary's name on this platform.
pub const SERVER_BINARY: &str = if cfg!(windows) {
    "impact-server.exe"
} else {
    "impact-server"
};

/// What the server prints, once, when it listens (the contract with impact-server).
pub const LISTENING_PREFIX: &str = "impact-server listening on ";

/// How long a server may take to say it listens. Generous: on a loaded two-core machine
/// a first start can take seconds.
const START_TIMEOUT: Duration = Duration::from_secs(60);

/// Lines of the server's stderr kept to explain a failed start: its first ones (where
/// the error is said) and its last ones (where a backtrace ends).
const STDERR_HEAD_LINES: usize = 20;
const STDERR_TAIL_LINES: usize = 20;

#[derive(Debug, thiserror::Error)]
pub enum SpawnError {
    #[error("no {SERVER_BINARY} beside {beside} nor on PATH; build it with `cargo build --release -p impact-server`, or pass --server URL or --local")]
    NotFound { beside: String },
    #[error("cannot start {binary}: {source}")]
    Start {
        binary: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{binary} exited ({status}) before it listened{}", tail(.stderr))]
    Exited {
        binary: String,
        status: ExitStatus,
        stderr: Vec<String>,
    },
    #[error("{binary} did not say where it listens within {}s{}", START_TIMEOUT.as_secs(), tail(.stderr))]
    Silent { binary: String, stderr: Vec<String> },
    #[error("{binary} printed '{line}', not '{LISTENING_PREFIX}127.0.0.1:PORT'")]
    BadLine { binary: String, line: String },
}

fn tail(lines: &[String]) -> String {
    if lines.is_empty() {
        String::new()
    } else {
        format!("; its stderr ends with:\n{}", lines.join("\n"))
    }
}

/// Where `impact-server` is: beside the running executable first (a cargo build puts
/// both binaries in one directory), then on PATH.
pub fn find_server_binary() -> Result<PathBuf, SpawnError> {
    let exe = std::env::current_exe().ok();
    let beside = exe
        .as_deref()
        .and_then(Path::parent)
        .map(|dir| dir.join(SERVER_BINARY));
    if let Some(path) = beside.as_ref().filter(|p| p.is_file()) {
        return Ok(path.clone());
    }
    if let Some(path) = std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|dir| dir.join(SERVER_BINARY))
        .find(|p| p.is_file())
    {
        return Ok(path);
    }
    Err(SpawnError::NotFound {
        beside: beside
            .and_then(|p| p.parent().map(|d| d.display().to_string()))
            .unwrap_or_else(|| "the running executable".into()),
    })
}

/// A running private server. Dropping it kills and reaps the process.
pub struct SpawnedServer {
    child: Child,
    addr: SocketAddr,
}

impl SpawnedServer {
    /// Find `impact-server` (see [`find_server_binary`]) and start it.
    pub fn start() -> Result<Self, SpawnError> {
        Self::start_binary(&find_server_binary()?)
    }

    /// Start the given server binary on a free loopback port and wait until it listens.
    /// It keeps results in memory only (`--ephemeral`): it is killed when done, so a data
    /// directory would hold nothing of use, and sharing the user's would collide with
    /// another server running there.
    pub fn start_binary(binary: &Path) -> Result<Self, SpawnError> {
        let name = binary.display().to_string();
        let mut child = Command::new(binary)
            .args(["--listen", "127.0.0.1:0", "--ephemeral"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|source| SpawnError::Start {
                binary: name.clone(),
                source,
            })?;
        // From here on the guard owns the child, so every early return kills and reaps it.
        let stdout = child.stdout.take();
        let stderr = child.stderr.take();
        let mut guard = Guard(Some(child));
        let stderr_kept = Arc::new(Mutex::new(Kept::default()));
        if let Some(stderr) = stderr {
            keep_ends(stderr, Arc::clone(&stderr_kept));
        }
        let first_line = first_line_then_drain(stdout);
        let tail_now = || -> Vec<String> {
            // Let the stderr reader catch up with a process that just died.
            std::thread::sleep(Duration::from_millis(100));
            stderr_kept.lock().map(|k| k.lines()).unwrap_or_default()
        };
        let line = match first_line.recv_timeout(START_TIMEOUT) {
            Ok(Some(line)) => line,
            Ok(None) | Err(mpsc::RecvTimeoutError::Disconnected) => {
                let status = guard.wait_exit();
                return Err(match status {
                    Some(status) => SpawnError::Exited {
                        binary: name,
                        status,
                        stderr: tail_now(),
                    },
                    None => SpawnError::Silent {
                        binary: name,
                        stderr: tail_now(),
                    },
                });
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                return Err(SpawnError::Silent {
                    binary: name,
                    stderr: tail_now(),
                })
            }
        };
        let addr = parse_listening_line(&line).ok_or_else(|| SpawnError::BadLine {
            binary: name.clone(),
            line: line.clone(),
        })?;
        let child = guard.0.take().ok_or_else(|| SpawnError::Silent {
            binary: name,
            stderr: Vec::new(),
        })?;
        Ok(SpawnedServer { child, addr })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT`.
    pub fn http_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// `ws://127.0.0.1:PORT`.
    pub fn ws_url(&self) -> String {
        format!("ws://{}", self.addr)
    }

    /// The process id, for whoever wants to watch it.
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// Whether the process has exited (and how), without waiting.
    pub fn try_exit_status(&mut self) -> Option<ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// Kill and reap the server now.
    pub fn stop(mut self) {
        stop_child(&mut self.child);
    }
}

impl Drop for SpawnedServer {
    fn drop(&mut self) {
        stop_child(&mut self.child);
    }
}

/// Kills and reaps a child that has not become a `SpawnedServer` yet.
struct Guard(Option<Child>);

impl Guard {
    /// The exit status if the child ended on its own within a moment.
    fn wait_exit(&mut self) -> Option<ExitStatus> {
        let child = self.0.as_mut()?;
        for _ in 0..20 {
            if let Ok(Some(status)) = child.try_wait() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        None
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        if let Some(child) = self.0.as_mut() {
            stop_child(child);
        }
    }
}

fn stop_child(child: &mut Child) {
    // kill fails only when the process is already gone; wait reaps it either way.
    let _ = child.kill();
    let _ = child.wait();
}

/// `impact-server listening on 127.0.0.1:PORT` -> the address, loopback only.
pub fn parse_listening_line(line: &str) -> Option<SocketAddr> {
    let addr: SocketAddr = line.trim().strip_prefix(LISTENING_PREFIX)?.parse().ok()?;
    (addr.ip().is_loopback() && addr.port() != 0).then_some(addr)
}

/// Send the first line of stdout (or `None` at its end), then keep reading so the
/// server never blocks on a full pipe.
fn first_line_then_drain(
    stdout: Option<impl Read + Send + 'static>,
) -> mpsc::Receiver<Option<String>> {
    let (tx, rx) = mpsc::channel();
    match stdout {
        Some(stdout) => {
            std::thread::spawn(move || {
                let mut lines = BufReader::new(stdout).lines();
                let first = lines.next().and_then(Result::ok);
                let _ = tx.send(first);
                for _ in lines.by_ref() {}
            });
        }
        None => {
            let _ = tx.send(None);
        }
    }
    rx
}

/// The first and the last lines of a stream, and how many fell between.
#[derive(Default)]
struct Kept {
    head: Vec<String>,
    tail: VecDeque<String>,
    dropped: usize,
}

impl Kept {
    fn push(&mut self, line: String) {
        if self.head.len() < STDERR_HEAD_LINES {
            self.head.push(line);
            return;
        }
        if self.tail.len() == STDERR_TAIL_LINES {
            self.tail.pop_front();
            self.dropped += 1;
        }
        self.tail.push_back(line);
    }

    fn lines(&self) -> Vec<String> {
        let mut lines = self.head.clone();
        if self.dropped > 0 {
            lines.push(format!("[{} lines left out]", self.dropped));
        }
        lines.extend(self.tail.iter().cloned());
        lines
    }
}

fn keep_ends(stderr: impl Read + Send + 'static, kept: Arc<Mutex<Kept>>) {
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Ok(mut k) = kept.lock() {
                k.push(line);
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_listening_line() {
        let addr = parse_listening_line("impact-server listening on 127.0.0.1:40123\n");
        assert_eq!(addr, Some("127.0.0.1:40123".parse().unwrap()));
    }

    #[test]
    fn refuses_other_lines_and_addresses() {
        assert_eq!(parse_listening_line("listening on 127.0.0.1:40123"), None);
        assert_eq!(
            parse_listening_line("impact-server listening on 127.0.0.1:0"),
            None
        );
        assert_eq!(
            parse_listening_line("impact-server listening on 10.1.2.3:80"),
            None
        );
        assert_eq!(
            parse_listening_line("impact-server listening on somewhere"),
            None
        );
    }

    #[test]
    fn a_long_stderr_keeps_its_first_and_last_lines() {
        let mut kept = Kept::default();
        for i in 0..100 {
            kept.push(format!("line {i}"));
        }
        let lines = kept.lines();
        assert_eq!(lines.len(), STDERR_HEAD_LINES + 1 + STDERR_TAIL_LINES);
        assert_eq!(lines[0], "line 0");
        assert_eq!(lines[STDERR_HEAD_LINES], "[60 lines left out]");
        assert_eq!(lines.last().map(String::as_str), Some("line 99"));
    }

    #[test]
    fn a_binary_that_exits_at_once_is_reported_with_its_status() {
        // `false` exits 1 without printing: the start must fail, not hang.
        let Some(f) = ["/bin/false", "/usr/bin/false"]
            .iter()
            .map(Path::new)
            .find(|p| p.is_file())
        else {
            return;
        };
        match SpawnedServer::start_binary(f) {
            Err(SpawnError::Exited { .. }) | Err(SpawnError::Silent { .. }) => {}
            Err(e) => panic!("unexpected error {e}"),
            Ok(_) => panic!("`false` cannot be a server"),
        }
    }
}
