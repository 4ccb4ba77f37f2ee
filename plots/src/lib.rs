//! Impact's plots: the series a plot draws, built from the protocol's answers
//! (`solve.history`, `solve.probe`), and their rendering to SVG and PNG with plotters.
//! The server's plot routes and the CLI's `impact plot` both come here, so a plot looks
//! the same whichever way it was asked for. The PNG text uses the embedded DejaVu Sans
//! (fonts/), so no system font lookup is needed.

use impact_protocol::{
    EnergyHistory, HistoryResult, ProbeField, ProbeParams, ProbeResult, SolveSummary, StepReport,
};
use plotters::prelude::*;
use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

/// The default size of a rendered plot, in pixels (SVG user units alike).
pub const DEFAULT_SIZE: (u32, u32) = (800, 480);

/// What can be plotted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Plot {
    /// Each contact's (and wall's) total normal force against time.
    ContactForce,
    /// The energy balance's terms against time.
    Energy,
    /// Velocity components of the nodes nearest given points against time.
    Velocity,
}

impl Plot {
    pub const ALL: [Plot; 3] = [Plot::ContactForce, Plot::Energy, Plot::Velocity];

    /// The name used on the command line and in the server's routes.
    pub fn name(self) -> &'static str {
        match self {
            Plot::ContactForce => "contact-force",
            Plot::Energy => "energy",
            Plot::Velocity => "velocity",
        }
    }
}

impl fmt::Display for Plot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Plot {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Plot::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| format!("unknown plot '{s}': one of contact-force, energy, velocity"))
    }
}

/// An image format a plot renders to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Svg,
    Png,
    /// The chart's input series (`Chart` as JSON), not a picture.
    Json,
}

impl Format {
    /// From a file name's or route's extension ("svg", "png").
    pub fn from_extension(ext: &str) -> Option<Format> {
        match ext.to_ascii_lowercase().as_str() {
            "svg" => Some(Format::Svg),
            "png" => Some(Format::Png),
            "json" => Some(Format::Json),
            _ => None,
        }
    }

    pub fn content_type(self) -> &'static str {
        match self {
            Format::Svg => "image/svg+xml",
            Format::Png => "image/png",
            Format::Json => "application/json",
        }
    }
}

/// One line of a plot.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Series {
    pub name: String,
    pub x: Vec<f64>,
    pub y: Vec<f64>,
}

/// A plot's input: its labels and lines. Rendering draws exactly these numbers; the
/// server also serves it as JSON, so what a picture shows can be checked.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Chart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub series: Vec<Series>,
}

#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    #[error("cannot draw the plot: {0}")]
    Draw(String),
    #[error("cannot encode the PNG: {0}")]
    Encode(#[from] png::EncodingError),
    #[error("the plot size must be at least 100 x 100 pixels and at most 8000 x 8000")]
    Size,
}

/// Each contact's total normal force, as `solve.history` gives it.
pub fn contact_force(history: &HistoryResult) -> Chart {
    Chart {
        title: "Contact force".into(),
        x_label: "time".into(),
        y_label: "total normal force".into(),
        series: history
            .contacts
            .iter()
            .map(|c| Series {
                name: c.name.clone(),
                x: c.time.clone(),
                y: c.force.clone(),
            })
            .collect(),
    }
}

/// The energy terms at every stored output, and their sum ("total", which the balance
/// says equals the initial energy plus the external work). A term that is zero at every
/// output is left out: its line would lie on the axis and crowd the legend.
pub fn energy(e: &EnergyHistory) -> Chart {
    let terms: [(&str, &Vec<f64>); 8] = [
        ("kinetic", &e.kinetic),
        ("internal", &e.internal),
        ("hourglass", &e.hourglass),
        ("viscous", &e.viscous),
        ("contact", &e.contact),
        ("friction", &e.friction),
        ("contact damping", &e.contact_damping),
        ("external work", &e.external_work),
    ];
    let mut series: Vec<Series> = terms
        .iter()
        .filter(|(_, y)| y.iter().any(|v| *v != 0.0))
        .map(|(name, y)| Series {
            name: (*name).into(),
            x: e.time.clone(),
            y: (*y).clone(),
        })
        .collect();
    // The stored terms on the left of the balance (external work is on the right).
    let total: Vec<f64> = (0..e.time.len())
        .map(|i| {
            terms[..7]
                .iter()
                .map(|(_, y)| y.get(i).copied().unwrap_or(0.0))
                .sum()
        })
        .collect();
    series.push(Series {
        name: "total (kinetic to contact damping)".into(),
        x: e.time.clone(),
        y: total,
    });
    Chart {
        title: "Energy".into(),
        x_label: "time".into(),
        y_label: "energy".into(),
        series,
    }
}

/// Where to probe for a velocity plot: at each stored output's time (the energy
/// history's times, which are the frames' times), in the step that holds it, so every
/// sample is a stored frame and nothing is interpolated. Steps run one after another
/// from t = 0; a time on a boundary belongs to the earlier step, whose last frame it is.
pub fn velocity_samples(steps: &[StepReport], output_times: &[f64]) -> Vec<(String, f64)> {
    output_times
        .iter()
        .filter_map(|&t| {
            steps
                .iter()
                .find(|s| t <= s.end_time)
                .map(|s| (s.name.clone(), t))
        })
        .collect()
}

/// The most velocity samples a plot asks for: enough for a smooth line at the default
/// width, few enough that the CLI's probes (one call each) stay quick.
pub const MAX_VELOCITY_SAMPLES: usize = 400;

/// The nodes a velocity plot follows when none are asked for: the model's first and last
/// node, which for bars or blocks placed one after another are the outer ends (for the
/// colliding bars, the striker's rear end and the struck bar's far end).
pub fn default_velocity_nodes(summary: &SolveSummary) -> Vec<u32> {
    match u32::try_from(summary.nodes) {
        Ok(0) | Err(_) => Vec::new(),
        Ok(1) => vec![0],
        Ok(n) => vec![0, n - 1],
    }
}

/// The probes a velocity plot makes: one per sampled output (every stored output, or
/// every k-th and the last when there are more than `max_samples`), each asking for the
/// velocity of the nodes nearest `at` and of `nodes` (the default nodes when both are
/// empty).
pub fn velocity_requests(
    job: &str,
    summary: &SolveSummary,
    output_times: &[f64],
    at: &[[f64; 3]],
    nodes: &[u32],
    max_samples: usize,
) -> Vec<ProbeParams> {
    let nodes = if at.is_empty() && nodes.is_empty() {
        default_velocity_nodes(summary)
    } else {
        nodes.to_vec()
    };
    if at.is_empty() && nodes.is_empty() {
        return Vec::new();
    }
    // Every stride-th output from the first, and the last: at most max_samples in all.
    let last = output_times.len().saturating_sub(1);
    let stride = if output_times.len() <= max_samples {
        1
    } else {
        last.div_ceil(max_samples.saturating_sub(1).max(1)).max(1)
    };
    let times: Vec<f64> = output_times
        .iter()
        .enumerate()
        .filter(|(i, _)| i % stride == 0 || *i == last)
        .map(|(_, t)| *t)
        .collect();
    velocity_samples(&summary.steps, &times)
        .into_iter()
        .map(|(step, time)| ProbeParams {
            job: job.to_owned(),
            step: Some(step),
            at: at.to_vec(),
            nodes: nodes.clone(),
            time: Some(time),
            fields: Some(vec![ProbeField::Velocity]),
            particles: Vec::new(),
        })
        .collect()
}

/// Velocity components of the probed nodes against time: `probes[k]` is the probe of all
/// points at the k-th sample. One line per node and component.
pub fn velocity(probes: &[ProbeResult]) -> Chart {
    let mut series = Vec::new();
    if let Some(first) = probes.first() {
        for (i, node) in first.nodes.iter().enumerate() {
            let r = node.reference;
            for (c, axis) in ["x", "y", "z"].into_iter().enumerate() {
                let mut s = Series {
                    name: format!("v{axis} node {} ({}, {}, {})", node.id, r[0], r[1], r[2]),
                    x: Vec::with_capacity(probes.len()),
                    y: Vec::with_capacity(probes.len()),
                };
                for p in probes {
                    if let Some(v) = p.nodes.get(i).and_then(|n| n.velocity) {
                        s.x.push(p.time);
                        s.y.push(v[c]);
                    }
                }
                series.push(s);
            }
        }
    }
    Chart {
        title: "Nodal velocity".into(),
        x_label: "time".into(),
        y_label: "velocity".into(),
        series,
    }
}

/// The smallest and largest finite value, or None.
fn finite_range<'a>(values: impl Iterator<Item = &'a f64>) -> Option<(f64, f64)> {
    values
        .filter(|v| v.is_finite())
        .fold(None, |acc, &v| match acc {
            None => Some((v, v)),
            Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
        })
}

/// A range with room around the data, never empty (plotters needs lo < hi).
fn padded((lo, hi): (f64, f64), pad: f64) -> (f64, f64) {
    if hi > lo {
        let d = (hi - lo) * pad;
        (lo - d, hi + d)
    } else {
        let d = if lo == 0.0 { 1.0 } else { lo.abs() * 0.1 };
        (lo - d, hi + d)
    }
}

fn register_font() -> Result<(), PlotError> {
    static REGISTERED: OnceLock<Result<(), String>> = OnceLock::new();
    REGISTERED
        .get_or_init(|| {
            plotters::style::register_font(
                "sans-serif",
                FontStyle::Normal,
                include_bytes!("../fonts/DejaVuSans.ttf"),
            )
            .map_err(|_| "the embedded font does not load".to_owned())
        })
        .clone()
        .map_err(PlotError::Draw)
}

fn draw_err<E: std::error::Error + Send + Sync>(e: DrawingAreaErrorKind<E>) -> PlotError {
    PlotError::Draw(e.to_string())
}

fn draw<DB: DrawingBackend>(
    chart: &Chart,
    root: DrawingArea<DB, plotters::coord::Shift>,
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    register_font()?;
    root.fill(&WHITE).map_err(draw_err)?;
    let xs = finite_range(chart.series.iter().flat_map(|s| s.x.iter()));
    let ys = finite_range(chart.series.iter().flat_map(|s| s.y.iter()));
    let (x0, x1) = xs.map_or((0.0, 1.0), |r| padded(r, 0.0));
    let (y0, y1) = ys.map_or((0.0, 1.0), |r| padded(r, 0.05));
    let mut ctx = ChartBuilder::on(&root)
        .caption(&chart.title, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(72)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(draw_err)?;
    ctx.configure_mesh()
        .x_desc(chart.x_label.as_str())
        .y_desc(chart.y_label.as_str())
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 15))
        .draw()
        .map_err(draw_err)?;
    for (i, s) in chart.series.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let points =
            s.x.iter()
                .zip(s.y.iter())
                .filter(|(x, y)| x.is_finite() && y.is_finite())
                .map(|(x, y)| (*x, *y));
        ctx.draw_series(LineSeries::new(points, color.stroke_width(2)))
            .map_err(draw_err)?
            .label(s.name.as_str())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            });
    }
    if !chart.series.is_empty() {
        ctx.configure_series_labels()
            .position(SeriesLabelPosition::MiddleRight)
            .label_font(("sans-serif", 13))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(draw_err)?;
    }
    root.present().map_err(draw_err)?;
    Ok(())
}

fn check_size((w, h): (u32, u32)) -> Result<(), PlotError> {
    if (100..=8000).contains(&w) && (100..=8000).contains(&h) {
        Ok(())
    } else {
        Err(PlotError::Size)
    }
}

/// The chart as an SVG document.
pub fn svg(chart: &Chart, size: (u32, u32)) -> Result<String, PlotError> {
    check_size(size)?;
    let mut out = String::new();
    draw(
        chart,
        SVGBackend::with_string(&mut out, size).into_drawing_area(),
    )?;
    Ok(out)
}

/// The chart as a PNG image (8-bit RGB).
pub fn png(chart: &Chart, size: (u32, u32)) -> Result<Vec<u8>, PlotError> {
    check_size(size)?;
    let (w, h) = size;
    let mut rgb = vec![0u8; w as usize * h as usize * 3];
    draw(
        chart,
        BitMapBackend::with_buffer(&mut rgb, size).into_drawing_area(),
    )?;
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, w, h);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(&rgb)?;
    writer.finish()?;
    Ok(out)
}

/// The chart in the given format.
pub fn render(chart: &Chart, format: Format, size: (u32, u32)) -> Result<Vec<u8>, PlotError> {
    match format {
        Format::Svg => svg(chart, size).map(String::into_bytes),
        Format::Png => png(chart, size),
        Format::Json => {
            check_size(size)?;
            serde_json::to_vec(chart).map_err(|e| PlotError::Draw(e.to_string()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use impact_protocol::{ContactHistory, ProbedNode};

    fn history() -> HistoryResult {
        HistoryResult {
            contacts: vec![ContactHistory {
                name: "interface".into(),
                time: vec![0.0, 0.1, 0.2, 0.3],
                force: vec![0.0, 0.05, 0.05, 0.0],
            }],
            energy: EnergyHistory {
                time: vec![0.0, 0.1, 0.2],
                kinetic: vec![1.0, 0.5, 0.25],
                internal: vec![0.0, 0.25, 0.5],
                viscous: vec![0.0, 0.125, 0.125],
                contact: vec![0.0, 0.125, 0.0],
                hourglass: vec![0.0; 3],
                friction: vec![0.0; 3],
                contact_damping: vec![0.0; 3],
                external_work: vec![0.0; 3],
                balance_error: vec![0.0; 3],
            },
        }
    }

    #[test]
    fn contact_force_draws_the_history_as_given() {
        let h = history();
        let c = contact_force(&h);
        assert_eq!(c.series.len(), 1);
        assert_eq!(c.series[0].name, "interface");
        assert_eq!(c.series[0].x, h.contacts[0].time);
        assert_eq!(c.series[0].y, h.contacts[0].force);
    }

    #[test]
    fn energy_draws_the_nonzero_terms_and_their_sum() {
        let c = energy(&history().energy);
        let names: Vec<&str> = c.series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "kinetic",
                "internal",
                "viscous",
                "contact",
                "total (kinetic to contact damping)"
            ]
        );
        // 1 + 0, 0.5 + 0.25 + 0.125 + 0.125, 0.25 + 0.5 + 0.125: exact in binary.
        assert_eq!(c.series[4].y, [1.0, 1.0, 0.875]);
        assert_eq!(c.series[0].y, [1.0, 0.5, 0.25]);
    }

    fn step(name: &str, end_time: f64) -> StepReport {
        StepReport {
            name: name.into(),
            end_time,
            increments: 1,
        }
    }

    #[test]
    fn each_sample_is_probed_in_the_step_that_holds_it() {
        let steps = [step("a", 1.0), step("b", 3.0)];
        let s = velocity_samples(&steps, &[0.0, 0.5, 1.0, 2.0, 3.0, 4.0]);
        let got: Vec<(&str, f64)> = s.iter().map(|(n, t)| (n.as_str(), *t)).collect();
        // 1.0 is the end of "a" (its last frame); 4.0 lies past every step and is dropped.
        assert_eq!(
            got,
            [("a", 0.0), ("a", 0.5), ("a", 1.0), ("b", 2.0), ("b", 3.0)]
        );
    }

    fn probe(time: f64, v: [f64; 3]) -> ProbeResult {
        ProbeResult {
            step: "a".into(),
            time,
            nodes: vec![ProbedNode {
                id: 7,
                part: "bar".into(),
                local: 7,
                reference: [20.0, 0.0, 0.0],
                distance: 0.0,
                velocity: Some(v),
                displacement: None,
                position: None,
            }],
            particles: Vec::new(),
        }
    }

    #[test]
    fn velocity_has_a_line_per_node_and_component() {
        let c = velocity(&[probe(0.0, [0.0, 1.0, 2.0]), probe(0.5, [0.1, 1.5, 2.5])]);
        assert_eq!(c.series.len(), 3);
        assert_eq!(c.series[0].x, [0.0, 0.5]);
        assert_eq!(c.series[0].y, [0.0, 0.1]);
        assert_eq!(c.series[2].y, [2.0, 2.5]);
        assert!(c.series[1].name.starts_with("vy node 7"));
    }

    #[test]
    fn velocity_requests_thin_to_the_cap_and_keep_the_last_output() {
        let summary = SolveSummary {
            job: "j-1".into(),
            energy: impact_protocol::EnergySummary::default(),
            contacts: Vec::new(),
            steps: vec![step("a", 1.0)],
            nodes: 1608,
            elements: 400,
            initial_increment: 0.0,
            element_updates: 0,
            wall_seconds: 0.0,
            particles: None,
        };
        let times: Vec<f64> = (0..=10).map(|i| f64::from(i) / 10.0).collect();
        let r = velocity_requests("j-1", &summary, &times, &[], &[], 4);
        // 11 outputs, at most 4: every 4th (0, 0.4, 0.8) and the last.
        let got: Vec<f64> = r.iter().filter_map(|p| p.time).collect();
        assert_eq!(got, [0.0, 0.4, 0.8, 1.0]);
        // No points asked: the first and last node.
        assert_eq!(r[0].nodes, [0, 1607]);
        assert_eq!(r[0].fields, Some(vec![ProbeField::Velocity]));
        let all = velocity_requests("j-1", &summary, &times, &[[1.0, 0.0, 0.0]], &[], 400);
        assert_eq!(all.len(), 11);
        assert!(all[0].nodes.is_empty());
        assert_eq!(all[0].at, [[1.0, 0.0, 0.0]]);
    }

    /// The polylines of an SVG, each as its list of points.
    fn polylines(svg: &str) -> Vec<Vec<(f64, f64)>> {
        let doc = roxmltree::Document::parse(svg).expect("the SVG is well-formed XML");
        assert_eq!(doc.root_element().tag_name().name(), "svg");
        doc.descendants()
            .filter(|n| n.tag_name().name() == "polyline")
            .map(|n| {
                n.attribute("points")
                    .unwrap_or("")
                    .split_whitespace()
                    .map(|p| {
                        let (x, y) = p.split_once(',').expect("x,y");
                        (x.parse().expect("x"), y.parse().expect("y"))
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn svg_is_xml_with_the_series_drawn_in_order() {
        let c = contact_force(&history());
        let svg = svg(&c, DEFAULT_SIZE).expect("svg");
        let lines = polylines(&svg);
        // The data line is the polyline with the series' four points; its x grows with
        // time and its two middle points (equal force) share a pixel row.
        let data: Vec<_> = lines.iter().filter(|l| l.len() == 4).collect();
        assert_eq!(data.len(), 1, "one 4-point polyline in {lines:?}");
        let p = data[0];
        assert!(p[0].0 < p[1].0 && p[1].0 < p[2].0 && p[2].0 < p[3].0);
        assert_eq!(p[1].1, p[2].1);
        // SVG's y grows downwards: the force 0.05 is drawn above the force 0.
        assert!(p[1].1 < p[0].1);
        let doc = roxmltree::Document::parse(&svg).expect("xml");
        let texts: Vec<&str> = doc
            .descendants()
            .filter(|n| n.tag_name().name() == "text")
            .filter_map(|n| n.text())
            .map(str::trim)
            .collect();
        assert!(
            texts.contains(&"interface"),
            "the legend names the contact: {texts:?}"
        );
        assert!(texts.contains(&"Contact force"), "the title: {texts:?}");
    }

    #[test]
    fn png_decodes_to_its_size_and_is_not_blank() {
        let c = energy(&history().energy);
        let bytes = png(&c, (640, 400)).expect("png");
        let decoder = png::Decoder::new(bytes.as_slice());
        let mut reader = decoder.read_info().expect("a PNG header");
        let mut buf = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut buf).expect("a PNG frame");
        assert_eq!((info.width, info.height), (640, 400));
        let pixels = &buf[..info.buffer_size()];
        let white = pixels.chunks(3).filter(|p| p == &[255, 255, 255]).count();
        let total = pixels.len() / 3;
        // Axes, text and five lines cover well over 1% of the picture; a blank or
        // all-black image would give 0% or 100% white.
        assert!(
            white < total * 99 / 100 && white > total / 2,
            "white {white} of {total}"
        );
        // The lines have colour, not only black and grey: some pixel has r != g or g != b.
        assert!(pixels.chunks(3).any(|p| p[0] != p[1] || p[1] != p[2]));
    }

    #[test]
    fn png_text_uses_the_embedded_font() {
        // A chart with only text differs from one without a title only if glyphs were
        // drawn, which needs the embedded font to load.
        let mut c = contact_force(&history());
        let with = png(&c, (300, 200)).expect("png");
        c.title = String::new();
        let without = png(&c, (300, 200)).expect("png");
        assert_ne!(with, without);
    }

    #[test]
    fn empty_data_and_bad_sizes() {
        let empty = Chart {
            title: "nothing".into(),
            x_label: "t".into(),
            y_label: "y".into(),
            series: Vec::new(),
        };
        assert!(svg(&empty, DEFAULT_SIZE).is_ok());
        assert!(png(&empty, DEFAULT_SIZE).is_ok());
        assert!(matches!(png(&empty, (10, 10)), Err(PlotError::Size)));
        assert!(matches!(svg(&empty, (9000, 100)), Err(PlotError::Size)));
    }

    #[test]
    fn names_round_trip() {
        for p in Plot::ALL {
            assert_eq!(p.name().parse::<Plot>(), Ok(p));
        }
        assert!("force".parse::<Plot>().is_err());
        assert_eq!(Format::from_extension("PNG"), Some(Format::Png));
        assert_eq!(Format::from_extension("gif"), None);
    }
}
