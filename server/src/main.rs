//! The `impact-server` binary: reads its settings (command line, then `IMPACT_*`
//! environment variables, then the `--config` TOML file), sets up logging to stderr,
//! starts the service, prints the one ready line (`impact-server listening on ADDR`) that
//! clients and tests wait for, and stops gracefully on SIGTERM or Ctrl-C.

use anyhow::Context as _;
use clap::Parser;
use impact_server::config::Settings;
use impact_server::Config;
use std::io::{IsTerminal as _, Write as _};
use std::path::PathBuf;

/// Impact's JSON-RPC service: explicit impact and contact solves, probes of cached results.
#[derive(Debug, Parser)]
#[command(name = "impact-server", version)]
struct Args {
    /// A TOML file of settings (the long option names, with underscores); the command
    /// line and the environment win over it.
    #[arg(long, value_name = "FILE", env = "IMPACT_CONFIG")]
    config: Option<PathBuf>,
    #[command(flatten)]
    settings: Settings,
}

#[cfg(unix)]
async fn terminated() -> std::io::Result<()> {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    tokio::select! {
        _ = term.recv() => Ok(()),
        r = tokio::signal::ctrl_c() => r,
    }
}

#[cfg(not(unix))]
async fn terminated() -> std::io::Result<()> {
    tokio::signal::ctrl_c().await
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

    let file = match &args.config {
        Some(path) => Settings::from_file(path)?,
        None => Settings::default(),
    };
    let config = Config::resolve(args.settings.or(file)).context("invalid settings")?;
    let running = impact_server::start(&config).await?;

    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "impact-server listening on {}", running.addr)?;
    stdout.flush()?;
    drop(stdout);

    tokio::select! {
        () = running.handle.clone().stopped() => {}
        signal = terminated() => {
            signal.context("cannot wait for SIGTERM or Ctrl-C")?;
            running.shutdown().await;
        }
    }
    tracing::info!("stopped");
    Ok(())
}
