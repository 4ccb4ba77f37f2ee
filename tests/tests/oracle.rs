//! `impact oracle tests/oracle` end to end, three ways: with the private server the CLI
//! starts itself, against a server started separately (`--server`), and in-process
//! (`--local`). Each must pass all six quantities of the colliding bars, and every other
//! case there too.

use impact_e2e::{binaries, oracle_dir, run_with_deadline, start_server, Run};
use std::process::Command;
use std::time::Duration;

/// The bars' quantities (tests/oracle/explicit-bars/case.json): their expected values and
/// tolerances come from 1-D wave theory (Graff §2.1–2.3) and live in that file.
const BAR_QUANTITIES: [&str; 6] = ["duration", "force", "v_a", "v_b", "ke", "contact_energy"];

/// All of tests/oracle solves in about ten seconds in process; the bound only keeps a
/// hang from stalling the suite on a busy two-core machine.
const DEADLINE: Duration = Duration::from_secs(300);

fn oracle(args: &[&str]) -> Run {
    let (impact, _) = binaries();
    let mut cmd = Command::new(impact);
    cmd.arg("oracle").args(args).arg(oracle_dir());
    run_with_deadline(&mut cmd, DEADLINE)
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
fn the_bars_pass_on_a_server_the_cli_starts_itself() {
    assert_bars_pass(&oracle(&[]));
}

#[test]
fn the_bars_pass_on_a_server_started_separately() {
    let server = start_server();
    let run = oracle(&["--server", &server.http_url()]);
    assert_bars_pass(&run);
}

#[test]
fn the_bars_pass_in_process() {
    assert_bars_pass(&oracle(&["--local"]));
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
