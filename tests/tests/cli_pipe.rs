//! The CLI's answer into a pipe whose reader stops early (`impact mesh ... | head`): the
//! command ends quietly and successfully, as Unix tools do, instead of panicking.

use impact_e2e::binaries;
use std::io::Read;
use std::process::{Command, Stdio};

#[test]
fn a_reader_that_stops_early_is_not_a_panic() {
    let (impact, _) = binaries();
    let spec = std::env::temp_dir().join(format!("impact-cli-pipe-{}.json", std::process::id()));
    // About 2.5 MB of pretty JSON, far past a pipe's buffer, so the write meets the
    // closed pipe.
    std::fs::write(
        &spec,
        r#"{"kind": "block", "size": [1, 1, 1], "nx": 30, "ny": 30, "nz": 30}"#,
    )
    .expect("writing the spec");
    let mut child = Command::new(impact)
        .args(["mesh", "--local"])
        .arg(&spec)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starting impact");
    let mut head = [0u8; 64];
    child
        .stdout
        .take()
        .expect("piped stdout")
        .read_exact(&mut head)
        .expect("the answer's first bytes");
    // The reader is gone once `stdout` is dropped above.
    let out = child.wait_with_output().expect("impact ends");
    std::fs::remove_file(&spec).ok();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(head.starts_with(b"{"), "{}", String::from_utf8_lossy(&head));
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(out.status.success(), "{:?}: {stderr}", out.status);
}
