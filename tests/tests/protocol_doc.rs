//! docs/protocol.md promises a runnable curl example for every method: run each of its
//! shell examples, as a user would paste them, against a real server, and check that every
//! method the server lists (but the WebSocket-only subscription) has one.

use impact_e2e::{start_server, workspace_root};
use std::process::Command;

/// The indented code blocks of the page that are shell commands (they start with `curl`
/// or set a variable from one), with their first line number.
fn shell_examples(page: &str) -> Vec<(usize, String)> {
    let mut blocks = Vec::new();
    let mut current: Option<(usize, Vec<&str>)> = None;
    for (i, line) in page.lines().enumerate() {
        if let Some(code) = line.strip_prefix("    ") {
            match &mut current {
                Some((_, lines)) => lines.push(code),
                None => current = Some((i + 1, vec![code])),
            }
        } else if let Some((at, lines)) = current.take() {
            blocks.push((at, lines.join("\n")));
        }
    }
    if let Some((at, lines)) = current {
        blocks.push((at, lines.join("\n")));
    }
    blocks
        .into_iter()
        .filter(|(_, b)| {
            let first = b.trim_start();
            first.starts_with("curl ")
                || (first.contains("=$(curl") && !first.contains(' '))
                || first.starts_with("JOB=$(curl")
        })
        .collect()
}

#[test]
fn every_curl_example_runs_and_every_method_has_one() {
    let root = workspace_root();
    let page = std::fs::read_to_string(root.join("docs/protocol.md")).expect("docs/protocol.md");
    let examples = shell_examples(&page);
    assert!(
        !examples.is_empty(),
        "no curl examples found in docs/protocol.md"
    );
    let server = start_server();
    let port = server.addr().port().to_string();

    for (line, block) in &examples {
        let script = block.replace("127.0.0.1:7878", &format!("127.0.0.1:{port}"));
        let out = Command::new("bash")
            .args(["-euo", "pipefail", "-c", &script])
            .current_dir(&root)
            .output()
            .expect("bash runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "docs/protocol.md:{line}: the example failed ({}):\n{block}\nstderr: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        let answered = stdout.contains("\"jsonrpc\":\"2.0\"")
            || stdout.trim() == "ok"
            || stdout.contains("# TYPE")
            || stdout.contains("<svg ")
            || stdout.starts_with("<!DOCTYPE html>");
        assert!(
            answered,
            "docs/protocol.md:{line}: no JSON-RPC answer (nor /healthz, /metrics) from\n{block}\ngot: {}",
            stdout.chars().take(600).collect::<String>()
        );
        // An example shows an error only where the page says it does.
        let is_error = stdout.lines().any(|l| {
            serde_json::from_str::<serde_json::Value>(l).is_ok_and(|v| v.get("error").is_some())
        });
        if is_error {
            let before = &page[..page.lines().take(*line).map(|l| l.len() + 1).sum::<usize>()];
            let context = before.rsplit("\n## ").next().unwrap_or("");
            assert!(
                context.contains("error") || context.contains("Error"),
                "docs/protocol.md:{line}: the example answers an error outside an errors section:\n{}",
                stdout.chars().take(600).collect::<String>()
            );
        }
    }

    // Every method the server lists has an example, but the subscription (WebSocket only).
    let info = Command::new("curl")
        .args([
            "-s",
            &format!("http://127.0.0.1:{port}/"),
            "-H",
            "Content-Type: application/json",
            "-d",
            r#"{"jsonrpc":"2.0","id":1,"method":"server.info"}"#,
        ])
        .output()
        .expect("curl runs");
    let info: serde_json::Value =
        serde_json::from_slice(&info.stdout).expect("server.info answers JSON");
    let methods = info["result"]["methods"].as_array().expect("a method list");
    let all_examples: String = examples.iter().map(|(_, b)| b.as_str()).collect();
    let missing: Vec<&str> = methods
        .iter()
        .filter_map(|m| m.as_str())
        .filter(|m| !m.contains("subscribe"))
        .filter(|m| {
            !all_examples.contains(&format!("\"method\":\"{m}\""))
                && !all_examples.contains(&format!("\\\"method\\\":\\\"{m}\\\""))
        })
        .collect();
    assert!(
        missing.is_empty(),
        "docs/protocol.md has no curl example for {missing:?}"
    );
}
