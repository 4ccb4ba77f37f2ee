//! End-to-end test support: locating the real `impact` and `impact-server` binaries
//! (building them once if needed), running them with a deadline, starting a server on a
//! free loopback port, and the tidy check that every .rs file opens with a `//!` doc.

use impact_client::SpawnedServer;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The workspace's root: this crate lives in its `tests/` folder.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from(".."))
}

/// `tests/oracle`: the oracle cases.
pub fn oracle_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("oracle")
}

/// The binaries' folder, `target/<profile>/`: a test executable runs from
/// `target/<profile>/deps/`.
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap_or_else(|e| panic!("where is this test? {e}"));
    let deps = exe
        .parent()
        .unwrap_or_else(|| panic!("{} has no folder", exe.display()));
    let dir = if deps.file_name().is_some_and(|n| n == "deps") {
        deps.parent().unwrap_or(deps)
    } else {
        deps
    };
    dir.to_path_buf()
}

fn exe(name: &str) -> String {
    format!("{name}{}", std::env::consts::EXE_SUFFIX)
}

/// The real binaries, `(impact, impact-server)`, of this profile. `cargo test --workspace`
/// builds both before any test runs (impact-server and impact-client have integration
/// tests), with the workspace's unified features; a nested `cargo build -p ...` would pick
/// other features and rebuild the whole tree a second time, so it runs only when a binary
/// is missing or `IMPACT_E2E_REBUILD` is set (after `cargo test -p impact-e2e` alone, which
/// does not rebuild the other packages' binaries).
pub fn binaries() -> &'static (PathBuf, PathBuf) {
    static BINARIES: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    BINARIES.get_or_init(|| {
        let dir = profile_dir();
        let pair = (dir.join(exe("impact")), dir.join(exe("impact-server")));
        if pair.0.is_file() && pair.1.is_file() && std::env::var_os("IMPACT_E2E_REBUILD").is_none()
        {
            return pair;
        }
        let profile = dir
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("debug")
            .to_string();
        let target_dir = dir
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| dir.clone());
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut cmd = Command::new(cargo);
        cmd.current_dir(workspace_root())
            .args([
                "build",
                "--quiet",
                "-p",
                "impact-server",
                "-p",
                "impact-client",
            ])
            .arg("--target-dir")
            .arg(&target_dir);
        match profile.as_str() {
            "debug" => {}
            "release" => {
                cmd.arg("--release");
            }
            other => {
                cmd.args(["--profile", other]);
            }
        }
        let status = cmd
            .status()
            .unwrap_or_else(|e| panic!("cannot run cargo to build the binaries: {e}"));
        assert!(
            status.success(),
            "building impact and impact-server failed ({status})"
        );
        let pair = (dir.join(exe("impact")), dir.join(exe("impact-server")));
        for p in [&pair.0, &pair.1] {
            assert!(p.is_file(), "cargo built, yet {} is missing", p.display());
        }
        pair
    })
}

/// A finished process: how it ended and what it printed.
#[derive(Debug)]
pub struct Run {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

/// Run a command to its end, killing it if it outlives `deadline`: a hung client must
/// fail its test, not stall the suite.
pub fn run_with_deadline(cmd: &mut Command, deadline: Duration) -> Run {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {cmd:?}: {e}"));
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_string(&mut text);
            }
            text
        })
    };
    let out = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let err = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child
            .try_wait()
            .unwrap_or_else(|e| panic!("waiting for {cmd:?}: {e}"))
        {
            break status;
        }
        if start.elapsed() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{cmd:?} ran past {}s and was killed", deadline.as_secs());
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Run {
        status,
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    }
}

/// Start the real `impact-server` on a free loopback port; dropping it stops it.
pub fn start_server() -> SpawnedServer {
    let (_, server) = binaries();
    SpawnedServer::start_binary(server).unwrap_or_else(|e| panic!("{e}"))
}

/// Every `.rs` file under `root` (skipping `target` folders, any other build folder cargo
/// marked with its `CACHEDIR.TAG`, such as the `target-v3` of the callgrind builds in
/// docs/performance.md, and hidden ones such as `.git`) whose first line is not a `//!`
/// doc line, relative to `root`, sorted.
pub fn files_without_module_doc(root: &Path) -> Vec<PathBuf> {
    let mut missing = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.filter_map(Result::ok) {
            let path = entry.path();
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                let build = name == "target" || path.join("CACHEDIR.TAG").is_file();
                if !build && !name.starts_with('.') {
                    stack.push(path);
                }
            } else if kind.is_file() && name.ends_with(".rs") {
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                if !text.lines().next().is_some_and(|l| l.starts_with("//!")) {
                    missing.push(path.strip_prefix(root).unwrap_or(&path).to_path_buf());
                }
            }
        }
    }
    missing.sort();
    missing
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tidy_check_names_files_without_a_module_doc_and_skips_target() {
        let root = std::env::temp_dir().join(format!("impact-tidy-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for dir in ["src", "target/release/build", "target-v3/release", ".git"] {
            std::fs::create_dir_all(root.join(dir)).unwrap();
        }
        std::fs::write(
            root.join("src/good.rs"),
            "//! Owns the good things.\nfn f() {}\n",
        )
        .unwrap();
        std::fs::write(
            root.join("src/plain.rs"),
            "// a plain comment\n//! too late\n",
        )
        .unwrap();
        std::fs::write(root.join("src/empty.rs"), "").unwrap();
        std::fs::write(root.join("src/outer.rs"), "/// an item doc\nfn f() {}\n").unwrap();
        std::fs::write(
            root.join("target/release/build/out.rs"),
            "fn generated() {}\n",
        )
        .unwrap();
        std::fs::write(
            root.join("target-v3/CACHEDIR.TAG"),
            "Signature: 8a477f597d28d172789f06886806bc55\n",
        )
        .unwrap();
        std::fs::write(root.join("target-v3/release/out.rs"), "fn generated() {}\n").unwrap();
        std::fs::write(root.join(".git/hook.rs"), "fn hidden() {}\n").unwrap();
        let missing = files_without_module_doc(&root);
        let _ = std::fs::remove_dir_all(&root);
        assert_eq!(
            missing,
            ["src/empty.rs", "src/outer.rs", "src/plain.rs"].map(PathBuf::from)
        );
    }
}
