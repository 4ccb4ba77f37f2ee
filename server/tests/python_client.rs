//! The Python client's tests (clients/python/tests, pytest) against this build's server
//! binary, so they run in the project's test command; a pytest failure fails this test.

use std::process::Command;

#[test]
fn python_client_tests_pass_against_the_real_server() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let out = Command::new("python3")
        .args([
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "clients/python/tests",
        ])
        .current_dir(root)
        .env("IMPACT_SERVER", env!("CARGO_BIN_EXE_impact-server"))
        .env("RUST_LOG", "warn")
        // No __pycache__ left in the source tree.
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("python3 runs (install it, and pytest: .ci/run does)");
    let report = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "pytest failed:\n{report}");
}
