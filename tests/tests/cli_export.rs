//! `impact export --server URL JOB --out DIR` writes every file `solve.export` lists, over
//! WebSocket and HTTP, each byte for byte what `GET /export/{job}/{name}` serves; the files'
//! contents are checked by meshio in clients/python/tests/test_export.py.

use impact_e2e::{binaries, run_with_deadline, start_server, workspace_root};
use std::process::Command;
use std::time::Duration;

fn impact(args: &[&str]) -> String {
    let (impact, _) = binaries();
    let run = run_with_deadline(Command::new(impact).args(args), Duration::from_secs(120));
    assert!(
        run.status.success(),
        "impact {args:?} failed: {}",
        run.stderr
    );
    run.stdout
}

fn get(url: &str) -> Vec<u8> {
    let out = Command::new("curl")
        .args(["-sf", url])
        .output()
        .expect("curl runs");
    assert!(out.status.success(), "GET {url} failed");
    out.stdout
}

#[test]
fn the_cli_writes_every_exported_file() {
    let server = start_server();
    let model = workspace_root().join("tests/oracle/explicit-bars/model.json");
    let model = model.to_str().expect("a UTF-8 path");
    let summary: serde_json::Value = serde_json::from_str(&impact(&[
        "solve",
        "--no-progress",
        "--server",
        &server.http_url(),
        model,
    ]))
    .expect("the summary is JSON");
    let job = summary["job"].as_str().expect("a job id").to_owned();
    for url in [server.ws_url(), server.http_url()] {
        let dir = tempdir(&url);
        let listing: serde_json::Value = serde_json::from_str(&impact(&[
            "export",
            "--server",
            &url,
            &job,
            "--out",
            dir.to_str().expect("a UTF-8 path"),
        ]))
        .expect("the listing is JSON");
        let files = listing["files"].as_array().expect("files");
        // The bars store a frame at t = 0 and every 0.005 to 0.3: 61 frames and the series.
        assert_eq!(files.len(), 62);
        for f in files {
            let name = f["name"].as_str().expect("a name");
            let written = std::fs::read(dir.join(name)).expect("the file was written");
            let served = get(&format!(
                "{}{}",
                server.http_url().trim_end_matches('/'),
                f["url"].as_str().expect("a url")
            ));
            assert_eq!(written, served, "{name}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

fn tempdir(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "impact-cli-export-{}-{}",
        std::process::id(),
        tag.split(':').next().unwrap_or("x")
    ));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}
