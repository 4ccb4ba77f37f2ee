//! `impact oracle` end to end, three ways: all of tests/oracle on the private server the
//! CLI starts itself (the verification gate: every case must pass, the bars' six
//! quantities among them), then the bars alone against a server started separately
//! (`--server`) and in-process (`--local`). Those two check the other paths to the same
//! numbers; running every case three times would triple the suite's longest test.

use impact_e2e::{binaries, oracle_dir, run_with_deadline, start_server, Run};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The bars' quantities (tests/oracle/explicit-bars/case.json): their expected values and
/// tolerances come from 1-D wave theory (Graff §2.1–2.3) and live in that file.
const BAR_QUANTITIES: [&str; 6] = ["duration", "force", "v_a", "v_b", "ke", "contact_energy"];

/// All of tests/oracle solves in a few minutes, most of it the fine Hertz spheres (about
/// 1e9 element-cycles); the bound only keeps a hang from stalling the suite on a busy
/// two-core machine.
const DEADLINE: Duration = Duration::from_secs(1800);

fn oracle(args: &[&str], path: &Path) -> Run {
    let (impact, _) = binaries();
    let mut cmd = Command::new(impact);
    cmd.arg("oracle").args(args).arg(path);
    run_with_deadline(&mut cmd, DEADLINE)
}

fn bars_case() -> PathBuf {
    oracle_dir().join("explicit-bars")
}

/// Every bar quantity has a PASS row, no row of any case fails, and the run exits 0:
/// tests/oracle is the verification gate, so a failing case anywhere fails this test.
fn assert_bars_pass(run: &Run) {
    let shown = format!("stdout:\n{}\nstderr:\n{}", run.stdout, run.stderr);
    let rows: Vec<Vec<&str>> = run
        .stdout
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|t| t.len() >= 7 && t[0] != "case")
        .collect();
    for id in BAR_QUANTITIES {
        let row = rows
            .iter()
            .find(|t| t[0] == "explicit-bars" && t[1] == id)
            .unwrap_or_else(|| panic!("no row for explicit-bars {id}\n{shown}"));
        assert_eq!(row[6], "PASS", "explicit-bars {id} did not pass\n{shown}");
    }
    let failing: Vec<String> = rows
        .iter()
        .filter(|t| t[6] == "FAIL")
        .map(|t| t.join(" "))
        .collect();
    assert!(
        failing.is_empty(),
        "oracle quantities fail:\n{}\n{shown}",
        failing.join("\n")
    );
    assert!(
        run.status.success(),
        "impact oracle exited with {}\n{shown}",
        run.status
    );
}

#[test]
fn every_case_passes_on_a_server_the_cli_starts_itself() {
    assert_bars_pass(&oracle(&[], &oracle_dir()));
}

#[test]
fn the_bars_pass_on_a_server_started_separately() {
    let server = start_server();
    let run = oracle(&["--server", &server.http_url()], &bars_case());
    assert_bars_pass(&run);
}

#[test]
fn the_bars_pass_in_process() {
    assert_bars_pass(&oracle(&["--local"], &bars_case()));
}

#[test]
fn a_broken_case_fails_the_run_and_names_its_file() {
    let dir = std::env::temp_dir().join(format!("impact-e2e-broken-{}", std::process::id()));
    let case = dir.join("broken");
    std::fs::create_dir_all(&case).unwrap();
    std::fs::write(case.join("case.json"), r#"{"title": "t", "kind": "theory""#).unwrap();
    let (impact, _) = binaries();
    let run = run_with_deadline(
        Command::new(impact).args(["oracle", "--local"]).arg(&dir),
        DEADLINE,
    );
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        !run.status.success(),
        "a case that cannot be read must fail the run"
    );
    assert!(
        run.stderr.contains("broken") && run.stderr.contains("case.json"),
        "the error must name the file: {}",
        run.stderr
    );
}
