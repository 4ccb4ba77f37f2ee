//! The `impact` command line: `solve`, `probe`, `mesh` and `oracle` against a server
//! (`--server URL`), the core in-process (`--local`), or a private server it starts on a
//! free loopback port and stops afterwards. anyhow lives here, at the edge, only.

use anyhow::{bail, Context, Result};
use clap::{Args, Parser, Subcommand};
use impact_client::oracle::{self, LocalMeasurer, Measurer, RemoteMeasurer};
use impact_client::progress::ProgressView;
use impact_client::{Client, Local, SpawnedServer};
use impact_protocol::{parse_params, GenerateSpec, ProbeParams, SolveParams};
use serde::Serialize;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "impact",
    version,
    about = "Solve, probe and verify with an Impact server"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Where the work runs. With neither flag, a private `impact-server` is started.
#[derive(Args)]
struct Target {
    /// A running server, e.g. http://127.0.0.1:7878 or ws://127.0.0.1:7878.
    #[arg(long, value_name = "URL", conflicts_with = "local")]
    server: Option<String>,
    /// Run the core in this process instead of on a server.
    #[arg(long)]
    local: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Solve a model and print the summary JSON. MODEL.json holds the solve params
    /// ({"model": {...}}) or the bare model.
    Solve {
        #[arg(value_name = "MODEL.json")]
        model: PathBuf,
        #[command(flatten)]
        target: Target,
        /// Do not show the job's progress on stderr (a bar on a terminal, lines otherwise).
        #[arg(long)]
        no_progress: bool,
    },
    /// Read velocities and displacements of a solved job at points, nodes or particles.
    Probe {
        #[arg(long, value_name = "URL")]
        server: String,
        #[arg(long)]
        job: String,
        /// The step's name; the last step when absent.
        #[arg(long)]
        step: Option<String>,
        /// A point X,Y,Z in the reference configuration; the nearest node answers.
        #[arg(long = "at", value_name = "X,Y,Z", value_parser = parse_point, allow_hyphen_values = true)]
        at: Vec<[f64; 3]>,
        /// A global node id.
        #[arg(long = "node", value_name = "ID")]
        nodes: Vec<u32>,
        /// A particle id, for a particle model.
        #[arg(long = "particle", value_name = "ID")]
        particles: Vec<u32>,
        /// A time within the step; the step's end when absent.
        #[arg(long)]
        time: Option<f64>,
    },
    /// Write a finished job's result as VTK files for ParaView (.vtu or .vtp per frame and
    /// the .pvd series to open) into a folder, and print the listing.
    Export {
        #[arg(long, value_name = "URL")]
        server: String,
        #[arg(value_name = "JOB")]
        job: String,
        /// The folder to write into (made if missing).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
    },
    /// Plot a finished job's contact force, energy terms or nodal velocities against
    /// time, as SVG or PNG (by the --out file's extension).
    Plot {
        #[arg(long, value_name = "URL")]
        server: String,
        #[arg(value_name = "JOB")]
        job: String,
        /// contact-force, energy or velocity.
        #[arg(long, value_name = "PLOT")]
        what: impact_plot::Plot,
        /// For velocity: a point X,Y,Z (reference configuration); the nearest node is drawn.
        #[arg(long = "at", value_name = "X,Y,Z", value_parser = parse_point, allow_hyphen_values = true)]
        at: Vec<[f64; 3]>,
        /// For velocity: a global node id. Without --at or --node: the first and last node.
        #[arg(long = "node", value_name = "ID")]
        nodes: Vec<u32>,
        /// The image to write: .svg or .png.
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
        /// Width and height in pixels.
        #[arg(long, value_name = "W,H", value_parser = parse_size)]
        size: Option<(u32, u32)>,
    },
    /// Generate a mesh from a spec ({"kind": "block", ...}) and print it.
    Mesh {
        #[arg(value_name = "SPEC.json")]
        spec: PathBuf,
        #[command(flatten)]
        target: Target,
    },
    /// Run oracle cases: a folder of case folders (tests/oracle) or single case folders.
    Oracle {
        #[command(flatten)]
        target: Target,
        #[arg(value_name = "PATH", required = true)]
        paths: Vec<PathBuf>,
    },
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("impact: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Solve {
            model,
            target,
            no_progress,
        } => {
            let params = read_solve_params(&model)?;
            match where_to(&target)? {
                Place::Local => print(&Local::new().solve(&params)?),
                Place::Remote(url, _server) if no_progress => print(&block_on(async {
                    Client::connect(&url).await?.solve(&params).await
                })?),
                Place::Remote(url, _server) => {
                    let view = ProgressView::for_stderr();
                    print(&block_on(async {
                        Client::connect(&url)
                            .await?
                            .solve_following(&params, |s| view.show(s))
                            .await
                    })?)
                }
            }
        }
        Command::Probe {
            server,
            job,
            step,
            at,
            nodes,
            particles,
            time,
        } => {
            if at.is_empty() && nodes.is_empty() && particles.is_empty() {
                bail!("give at least one --at X,Y,Z, --node ID or --particle ID");
            }
            let params = ProbeParams {
                job,
                step,
                at,
                nodes,
                time,
                fields: None,
                particles,
            };
            print(&block_on(async {
                Client::connect(&server).await?.probe(&params).await
            })?)
        }
        Command::Export { server, job, out } => print(&export_into(&server, &job, &out)?),
        Command::Plot {
            server,
            job,
            what,
            at,
            nodes,
            out,
            size,
        } => {
            let format = out
                .extension()
                .and_then(|e| e.to_str())
                .and_then(impact_plot::Format::from_extension)
                .filter(|f| *f != impact_plot::Format::Json)
                .with_context(|| {
                    format!("{}: the --out file must end in .svg or .png", out.display())
                })?;
            let chart = impact_client::plot::fetch_chart_from(&server, &job, what, &at, &nodes)?;
            let bytes =
                impact_plot::render(&chart, format, size.unwrap_or(impact_plot::DEFAULT_SIZE))?;
            std::fs::write(&out, bytes).with_context(|| format!("writing {}", out.display()))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Mesh { spec, target } => {
            let spec: GenerateSpec = read_params(&spec)?;
            match where_to(&target)? {
                Place::Local => print(&Local::new().mesh_generate(&spec)?),
                Place::Remote(url, _server) => print(&block_on(async {
                    Client::connect(&url).await?.mesh_generate(&spec).await
                })?),
            }
        }
        Command::Oracle { target, paths } => {
            let place = where_to(&target)?;
            let mut measurer: Box<dyn Measurer> = match &place {
                Place::Local => Box::new(LocalMeasurer::new()),
                Place::Remote(url, _) => Box::new(RemoteMeasurer::connect(url)?),
            };
            let report = oracle::run(
                &paths,
                measurer.as_mut(),
                &mut std::io::stdout().lock(),
                &mut std::io::stderr().lock(),
            )?;
            // The private server, if any, stops here, after the last call.
            drop(place);
            Ok(if report.success() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
    }
}

/// Files fetched per call: a few frames at a time keep each answer far below the server's
/// response cap while a small result takes one or two calls.
const EXPORT_FILES_PER_CALL: usize = 8;

/// Fetch every file of a job's export into `out`, a few per call (inline), over whichever
/// transport the URL names; the listing without the texts.
fn export_into(server: &str, job: &str, out: &Path) -> Result<impact_protocol::ExportResult> {
    let mut params = impact_protocol::ExportParams {
        job: job.to_owned(),
        inline: false,
        only: None,
    };
    let (listing, files) = block_on(async {
        let client = Client::connect(server).await?;
        let listing = client.export(&params).await?;
        params.inline = true;
        let mut files = Vec::with_capacity(listing.files.len());
        for chunk in listing.files.chunks(EXPORT_FILES_PER_CALL) {
            params.only = Some(chunk.iter().map(|f| f.name.clone()).collect());
            files.extend(client.export(&params).await?.files);
        }
        Ok((listing, files))
    })?;
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    for f in files {
        let path = out.join(&f.name);
        std::fs::write(&path, f.content.unwrap_or_default())
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(listing)
}

/// Where a command runs; a private server lives as long as this value.
enum Place {
    Local,
    Remote(String, Option<SpawnedServer>),
}

fn where_to(target: &Target) -> Result<Place> {
    if target.local {
        return Ok(Place::Local);
    }
    if let Some(url) = &target.server {
        return Ok(Place::Remote(url.clone(), None));
    }
    let server = SpawnedServer::start().context("starting a private impact-server")?;
    Ok(Place::Remote(server.http_url(), Some(server)))
}

fn block_on<T>(
    work: impl std::future::Future<Output = Result<T, impact_client::ClientError>>,
) -> Result<T> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the client's runtime")?;
    Ok(runtime.block_on(work)?)
}

fn print<T: Serialize>(answer: &T) -> Result<ExitCode> {
    use std::io::Write;
    let text = serde_json::to_string_pretty(answer)?;
    match writeln!(std::io::stdout().lock(), "{text}") {
        Ok(()) => Ok(ExitCode::SUCCESS),
        // A reader that stopped early (`impact mesh ... | head`) has what it wanted;
        // println! would panic here.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        Err(e) => Err(e).context("writing the answer to stdout"),
    }
}

/// A model file holds the solve params or the bare model; either way a bad value is
/// named by its JSON pointer within the params.
fn read_solve_params(path: &Path) -> Result<SolveParams> {
    let text = read(path)?;
    let value: Value =
        serde_json::from_str(&text).with_context(|| format!("{} is not JSON", path.display()))?;
    let params = if value.get("model").is_some() {
        value
    } else {
        serde_json::json!({ "model": value })
    };
    parse_params(&params.to_string()).with_context(|| format!("{} is not a model", path.display()))
}

fn read_params<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T> {
    parse_params(&read(path)?).with_context(|| format!("in {}", path.display()))
}

fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))
}

fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s
        .split_once(',')
        .ok_or_else(|| format!("'{s}' is not W,H (two pixel counts)"))?;
    let px = |t: &str| {
        t.trim()
            .parse::<u32>()
            .map_err(|_| format!("'{t}' in '{s}' is not a pixel count"))
    };
    Ok((px(w)?, px(h)?))
}

fn parse_point(s: &str) -> Result<[f64; 3], String> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    let [x, y, z] = parts[..] else {
        return Err(format!(
            "'{s}' is not X,Y,Z (three numbers separated by commas)"
        ));
    };
    let num = |t: &str| {
        t.parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| format!("'{t}' in '{s}' is not a finite number"))
    };
    Ok([num(x)?, num(y)?, num(z)?])
}

#[cfg(test)]
mod tests {
    use super::parse_point;

    #[test]
    fn points_are_three_finite_numbers() {
        assert_eq!(parse_point("20,0,0"), Ok([20.0, 0.0, 0.0]));
        assert_eq!(parse_point("-1.5, 2e-3 ,0"), Ok([-1.5, 2e-3, 0.0]));
        assert!(parse_point("1,2").is_err());
        assert!(parse_point("1,2,3,4").is_err());
        assert!(parse_point("1,x,3").unwrap_err().contains("'x'"));
        assert!(parse_point("1,inf,3").is_err());
    }
}
