//! The `impact` binary as a user meets it first: its help, and a model file that is not
//! there, answered with an error that names the file rather than a panic. (Also makes
//! `cargo test --workspace` build the binary the end-to-end tests run.)

use std::process::Command;

#[test]
fn help_lists_the_commands() {
    let out = Command::new(env!("CARGO_BIN_EXE_impact"))
        .arg("--help")
        .output()
        .expect("impact runs");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for command in ["solve", "probe", "mesh", "oracle"] {
        assert!(
            text.contains(command),
            "--help does not list {command}:\n{text}"
        );
    }
}

#[test]
fn a_missing_model_file_is_named() {
    let out = Command::new(env!("CARGO_BIN_EXE_impact"))
        .args(["solve", "--local", "no-such-model.json"])
        .output()
        .expect("impact runs");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no-such-model.json"),
        "the error does not name the file: {err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}
