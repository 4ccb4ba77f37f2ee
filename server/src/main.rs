//! The `impact-server` binary: reads the command line, sets up logging to stderr, starts
//! the service and prints the one ready line (`impact-server listening on ADDR`) that
//! clients and tests wait for.

use anyhow::Context as _;
use clap::Parser;
use impact_server::config::DEFAULT_MAX_REQUEST_BYTES;
use impact_server::Config;
use std::io::{IsTerminal as _, Write as _};

/// Impact's JSON-RPC service: explicit impact and contact solves, probes of cached results.
#[derive(Debug, Parser)]
#[command(name = "impact-server", version)]
struct Args {
    /// Address to listen on (port 0 picks a free port).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:7878")]
    listen: String,
    /// Threads of the solve pool [default: all cores].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    threads: Option<u16>,
    /// Solves that run at the same time.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..))]
    max_concurrent_solves: u16,
    /// Solves that may wait for a slot before the server answers BUSY.
    #[arg(long, value_name = "N", default_value_t = 64)]
    max_queued: u32,
    /// Largest request (HTTP body or WebSocket message) in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_REQUEST_BYTES)]
    max_request_bytes: u32,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .init();
    // Panics are caught per job and per request; log them through tracing, not bare
    // stderr lines, so they carry the same format as everything else.
    std::panic::set_hook(Box::new(|info| tracing::error!(%info, "panic")));

    let defaults = Config::default();
    let config = Config {
        listen: args.listen,
        threads: args.threads.map_or(defaults.threads, usize::from),
        max_concurrent_solves: usize::from(args.max_concurrent_solves),
        max_queued: usize::try_from(args.max_queued).context("--max-queued is too large")?,
        max_request_bytes: args.max_request_bytes,
    };
    let running = impact_server::start(&config).await?;

    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "impact-server listening on {}", running.addr)?;
    stdout.flush()?;
    drop(stdout);

    tokio::select! {
        () = running.handle.clone().stopped() => {}
        signal = tokio::signal::ctrl_c() => {
            signal.context("cannot wait for Ctrl-C")?;
            tracing::info!("interrupted; stopping");
            // Already stopped is fine: we are leaving either way.
            let _ = running.handle.stop();
            running.handle.stopped().await;
        }
    }
    Ok(())
}
