//! `bead plot`: draw columns of a run's output directory as a line chart.
//!
//! A directory written by `bead run --out DIR` holds `trajectory.csv` (body
//! states) and `constraints.csv` (constraint residuals, multipliers, flags),
//! both keyed by the same `t` rows. This module looks requested columns up in
//! either file, drops non-finite samples, and renders the result to SVG or PNG
//! with plotters.

use std::fs::File;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use anyhow::{Context, anyhow, bail};
use plotters::coord::Shift;
use plotters::prelude::*;

/// What to plot: columns of a run's output directory.
#[derive(Debug, Clone, PartialEq)]
pub struct PlotRequest {
    /// A directory written by `bead run --out DIR`.
    pub dir: PathBuf,
    /// The x column (the caller passes `"t"` unless told otherwise).
    pub x: String,
    /// One or more y columns; each becomes one line.
    pub y: Vec<String>,
    /// Where to write the chart: `FILE.svg` or `FILE.png`.
    pub output: PathBuf,
    /// Width and height of the chart in pixels, e.g. `(800, 500)`.
    pub size: (u32, u32),
}

/// Writes the plot described by `request` to `request.output`.
///
/// Columns are looked up in `trajectory.csv` first, then in `constraints.csv`, then in
/// `accelerations.csv` (written by `bead run --accelerations`);
/// either file may be absent. Rows whose x or y value is not finite are left
/// out of that line. Errors (missing files, unknown columns, malformed CSV,
/// unsupported output extension, I/O failures) carry a message naming the
/// file, line or column at fault.
pub fn plot(request: &PlotRequest) -> anyhow::Result<()> {
    register_fonts()?;
    let format = OutputFormat::from_path(&request.output)?;
    check_size(request.size)?;
    if request.y.is_empty() {
        bail!("no y column given: name at least one column to plot");
    }

    let series = load_series(request)?;
    let x_range = axis_range(
        series.iter().flat_map(|s| s.points.iter().map(|p| p.0)),
        0.02,
    );
    let y_range = axis_range(
        series.iter().flat_map(|s| s.points.iter().map(|p| p.1)),
        0.05,
    );
    let (Some(x_range), Some(y_range)) = (x_range, y_range) else {
        bail!(
            "nothing to plot: {} {} no finite values (against x column '{}') in {}",
            quoted_list(&request.y),
            if request.y.len() == 1 { "has" } else { "have" },
            request.x,
            request.dir.display()
        );
    };
    let chart = ChartSpec {
        x_name: &request.x,
        series: &series,
        x_range,
        y_range,
    };

    let output = &request.output;
    let drawn = match format {
        OutputFormat::Svg => chart
            .draw(&SVGBackend::new(output, request.size).into_drawing_area())
            .map_err(|e| e.to_string()),
        OutputFormat::Png => chart
            .draw(&BitMapBackend::new(output, request.size).into_drawing_area())
            .map_err(|e| e.to_string()),
    };
    drawn.map_err(|e| anyhow!("cannot write plot {}: {e}", output.display()))
}

/// Font family used for every piece of text on the chart.
const FONT: &str = "sans-serif";

/// Plotters is built without font-kit and target machines have no system
/// fonts, so text layout fails unless an embedded face is registered first.
fn register_fonts() -> anyhow::Result<()> {
    static REGISTERED: OnceLock<Result<(), String>> = OnceLock::new();
    REGISTERED
        .get_or_init(|| {
            plotters::style::register_font(
                FONT,
                FontStyle::Normal,
                epaint_default_fonts::UBUNTU_LIGHT,
            )
            .map_err(|_| format!("cannot load the embedded '{FONT}' font (Ubuntu Light)"))
        })
        .clone()
        .map_err(anyhow::Error::msg)
}

/// The image formats `bead plot` can write, chosen by the output extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OutputFormat {
    Svg,
    Png,
}

impl OutputFormat {
    fn from_path(path: &Path) -> anyhow::Result<Self> {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some("svg") => Ok(Self::Svg),
            Some("png") => Ok(Self::Png),
            Some(other) => bail!(
                "cannot write {}: unsupported extension '.{other}'; use .svg or .png",
                path.display()
            ),
            None => bail!(
                "cannot write {}: no file extension; use .svg or .png",
                path.display()
            ),
        }
    }
}

/// Largest accepted side, in pixels. The bitmap backend multiplies width by
/// height in `u32` and allocates the whole frame up front, so unbounded sizes
/// would overflow or exhaust memory instead of failing cleanly.
const MAX_SIDE: u32 = 10_000;
/// Smallest accepted side, in pixels: below this the fixed label areas and
/// margins leave no room for the plotting area.
const MIN_SIDE: u32 = 100;

fn check_size((width, height): (u32, u32)) -> anyhow::Result<()> {
    let ok = |side: u32| (MIN_SIDE..=MAX_SIDE).contains(&side);
    if !ok(width) || !ok(height) {
        bail!(
            "plot size {width}x{height} is out of range; each side must be \
             {MIN_SIDE} to {MAX_SIDE} pixels"
        );
    }
    Ok(())
}

/// One line of the chart: a y column against the x column.
#[derive(Debug, Clone, PartialEq)]
struct Series {
    name: String,
    /// Only rows where both x and y are finite.
    points: Vec<(f64, f64)>,
}

/// The files of an output directory that columns are looked up in, in order.
const DATA_FILES: [&str; 3] = ["trajectory.csv", "constraints.csv", "accelerations.csv"];

/// An opened CSV file whose header has been read but whose records have not.
struct Source {
    path: PathBuf,
    headers: Vec<String>,
    reader: csv::Reader<File>,
}

impl Source {
    fn open(path: PathBuf) -> anyhow::Result<Self> {
        let mut reader = csv::ReaderBuilder::new()
            .flexible(false)
            .trim(csv::Trim::All)
            .from_path(&path)
            .with_context(|| format!("cannot open {}", path.display()))?;
        let headers = reader
            .headers()
            .map_err(|e| csv_error(&path, &e))?
            .iter()
            .map(str::to_owned)
            .collect();
        Ok(Self {
            path,
            headers,
            reader,
        })
    }

    /// Reads every remaining record, returning the values of the columns at
    /// `indices` (one vector per index). Non-finite and empty cells become NaN
    /// so that callers drop them per series rather than per row.
    fn read_columns(&mut self, indices: &[usize]) -> anyhow::Result<Vec<Vec<f64>>> {
        let mut columns = vec![Vec::new(); indices.len()];
        for record in self.reader.records() {
            let record = record.map_err(|e| csv_error(&self.path, &e))?;
            let line = record.position().map_or(0, csv::Position::line);
            for (column, &index) in columns.iter_mut().zip(indices) {
                // flexible(false) guarantees every record is as wide as the header.
                let cell = record.get(index).unwrap_or("");
                let value = parse_cell(cell).ok_or_else(|| {
                    anyhow!(
                        "{}, line {line}: column '{}' holds '{cell}', which is not a number",
                        self.path.display(),
                        self.headers[index]
                    )
                })?;
                column.push(value);
            }
        }
        Ok(columns)
    }
}

/// Parses one CSV cell. An empty cell is a missing sample (NaN, later
/// skipped); `true`/`false` are accepted because flag columns such as
/// `floor.active` are most useful plotted as 1/0.
fn parse_cell(cell: &str) -> Option<f64> {
    match cell {
        "" => Some(f64::NAN),
        "true" => Some(1.0),
        "false" => Some(0.0),
        _ => cell.parse().ok(),
    }
}

fn csv_error(path: &Path, error: &csv::Error) -> anyhow::Error {
    if let csv::ErrorKind::UnequalLengths {
        pos: Some(pos),
        expected_len,
        len,
    } = error.kind()
    {
        return anyhow!(
            "{}, line {}: expected {expected_len} fields like the header, found {len}",
            path.display(),
            pos.line()
        );
    }
    match error.position() {
        Some(pos) => anyhow!("{}, line {}: {error}", path.display(), pos.line()),
        None => anyhow!("{}: {error}", path.display()),
    }
}

/// Reads the x column and every y column of `request`, pairing them row by row.
fn load_series(request: &PlotRequest) -> anyhow::Result<Vec<Series>> {
    let dir = &request.dir;
    if !dir.is_dir() {
        bail!(
            "{} is not a directory (expected the output of `bead run --out DIR`)",
            dir.display()
        );
    }
    let mut sources = Vec::new();
    for name in DATA_FILES {
        let path = dir.join(name);
        if path.is_file() {
            sources.push(Source::open(path)?);
        }
    }
    if sources.is_empty() {
        bail!(
            "no {} or {} in {}; is it a directory written by `bead run --out DIR`?",
            DATA_FILES[0],
            DATA_FILES[1],
            dir.display()
        );
    }

    // Column 0 of `wanted` is x; the rest are the y columns in request order.
    let names: Vec<&str> = std::iter::once(request.x.as_str())
        .chain(request.y.iter().map(String::as_str))
        .collect();
    let wanted = names
        .iter()
        .map(|name| locate(&sources, name))
        .collect::<anyhow::Result<Vec<_>>>()?;

    // Read each file once, pulling out only the columns that live in it.
    let mut values: Vec<Vec<f64>> = vec![Vec::new(); names.len()];
    let mut rows: Vec<(usize, PathBuf)> = Vec::new();
    for (file, source) in sources.iter_mut().enumerate() {
        let slots: Vec<usize> = (0..wanted.len()).filter(|&i| wanted[i].0 == file).collect();
        if slots.is_empty() {
            continue;
        }
        let indices: Vec<usize> = slots.iter().map(|&i| wanted[i].1).collect();
        let columns = source.read_columns(&indices)?;
        rows.push((columns.first().map_or(0, Vec::len), source.path.clone()));
        for (slot, column) in slots.into_iter().zip(columns) {
            values[slot] = column;
        }
    }
    // Pairing rows across files is only meaningful if they describe the same steps.
    if let [(n0, p0), (n1, p1)] = rows.as_slice()
        && n0 != n1
    {
        bail!(
            "{} has {n0} rows but {} has {n1}; they must hold the same time steps",
            p0.display(),
            p1.display()
        );
    }

    let (x, ys) = values
        .split_first()
        .ok_or_else(|| anyhow!("no x column to read"))?;
    Ok(names[1..]
        .iter()
        .zip(ys)
        .map(|(name, y)| Series {
            name: (*name).to_owned(),
            points: x
                .iter()
                .zip(y)
                .filter(|(x, y)| x.is_finite() && y.is_finite())
                .map(|(&x, &y)| (x, y))
                .collect(),
        })
        .collect())
}

/// Finds `name` as (source index, column index), preferring earlier sources.
fn locate(sources: &[Source], name: &str) -> anyhow::Result<(usize, usize)> {
    for (file, source) in sources.iter().enumerate() {
        if let Some(column) = source.headers.iter().position(|h| h == name) {
            return Ok((file, column));
        }
    }
    let files: Vec<String> = sources
        .iter()
        .map(|s| s.path.display().to_string())
        .collect();
    let mut available: Vec<&str> = Vec::new();
    for header in sources.iter().flat_map(|s| &s.headers) {
        if !available.contains(&header.as_str()) {
            available.push(header);
        }
    }
    bail!(
        "no column '{name}' in {}; available: {}",
        files.join(" or "),
        available.join(", ")
    )
}

/// The range spanned by the finite `values`, padded by `margin` of its width
/// on each side, or `None` if there are no finite values.
fn axis_range(values: impl Iterator<Item = f64>, margin: f64) -> Option<Range<f64>> {
    let (lo, hi) = values
        .filter(|v| v.is_finite())
        .fold(None, |acc: Option<(f64, f64)>, v| match acc {
            None => Some((v, v)),
            Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
        })?;
    let span = hi - lo;
    if span == 0.0 {
        // A flat line still needs a non-empty axis to be drawn on.
        let pad = if lo == 0.0 { 1.0 } else { lo.abs() * 0.1 };
        return Some(lo - pad..hi + pad);
    }
    if !span.is_finite() {
        // Padding would overflow to infinity; the bare extremes still draw.
        return Some(lo..hi);
    }
    Some(lo - span * margin..hi + span * margin)
}

/// `'a'`, `'a' and 'b'`, `'a', 'b' and 'c'`: column names for messages.
fn quoted_list(names: &[String]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        Some((last, _)) => last.clone(),
        None => String::new(),
    }
}

/// How tick labels are printed, chosen once per axis from its range.
///
/// Plotters' default labels keep a fixed number of decimals, which prints
/// constraint residuals of order 1e-9 as a column of `0.0`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct TickFormat {
    /// Ticks are multiples of `10^step_exp`; `None` if the range is unusable.
    step_exp: Option<i32>,
    scientific: bool,
}

impl TickFormat {
    fn for_range(range: &Range<f64>) -> Self {
        // Plotters places at most ten labels, on steps of 1, 2 or 5 times a
        // power of ten, so ticks are multiples of 10^floor(log10(span / 10)).
        let step = (range.end - range.start).abs() / 10.0;
        let largest = range.start.abs().max(range.end.abs());
        if !(step > 0.0) || !step.is_finite() || !largest.is_finite() {
            return Self {
                step_exp: None,
                scientific: false,
            };
        }
        Self {
            step_exp: Some(step.log10().floor() as i32),
            scientific: !(1e-3..1e6).contains(&largest),
        }
    }

    fn format(&self, value: f64) -> String {
        let Some(step_exp) = self.step_exp else {
            return format!("{value:.3}");
        };
        // Far below the tick spacing is zero up to rounding; it must not
        // print as `-0.00` or `1e-17`.
        if value.abs() < 10f64.powi(step_exp) * 1e-3 {
            return if self.scientific {
                "0".to_owned()
            } else {
                format!("{:.*}", step_exp.clamp(-12, 0).unsigned_abs() as usize, 0.0)
            };
        }
        if self.scientific {
            let digits = (value.abs().log10().floor() as i32 - step_exp).clamp(0, 8);
            format!("{value:.*e}", digits.unsigned_abs() as usize)
        } else {
            format!("{value:.*}", step_exp.clamp(-12, 0).unsigned_abs() as usize)
        }
    }
}

/// Everything needed to draw the chart, independent of the backend.
struct ChartSpec<'a> {
    x_name: &'a str,
    series: &'a [Series],
    x_range: Range<f64>,
    y_range: Range<f64>,
}

impl ChartSpec<'_> {
    /// The legend corner that hides the fewest data points.
    fn legend_corner(&self) -> SeriesLabelPosition {
        // Rough legend footprint as a fraction of the plotting area.
        let width = 0.3;
        let height = (0.08 * self.series.len() as f64).min(0.6);
        let fraction = |v: f64, r: &Range<f64>| (v - r.start) / (r.end - r.start);
        let hidden = |right: bool, upper: bool| {
            self.series
                .iter()
                .flat_map(|s| &s.points)
                .filter(|&&(x, y)| {
                    let fx = fraction(x, &self.x_range);
                    let fy = fraction(y, &self.y_range);
                    let in_x = if right {
                        fx >= 1.0 - width
                    } else {
                        fx <= width
                    };
                    let in_y = if upper {
                        fy >= 1.0 - height
                    } else {
                        fy <= height
                    };
                    in_x && in_y
                })
                .count()
        };
        // Ties keep the earlier entry, so an empty upper right wins.
        [
            (SeriesLabelPosition::UpperRight, hidden(true, true)),
            (SeriesLabelPosition::UpperLeft, hidden(false, true)),
            (SeriesLabelPosition::LowerRight, hidden(true, false)),
            (SeriesLabelPosition::LowerLeft, hidden(false, false)),
        ]
        .into_iter()
        .min_by_key(|&(_, count)| count)
        .map_or(SeriesLabelPosition::UpperRight, |(corner, _)| corner)
    }

    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        let names: Vec<&str> = self.series.iter().map(|s| s.name.as_str()).collect();
        let caption = names.join(", ");
        let y_desc = match names.as_slice() {
            [only] => *only,
            _ => "value",
        };
        let several = self.series.len() > 1;
        let x_ticks = TickFormat::for_range(&self.x_range);
        let y_ticks = TickFormat::for_range(&self.y_range);
        let x_label = |v: &f64| x_ticks.format(*v);
        let y_label = |v: &f64| y_ticks.format(*v);

        root.fill(&WHITE)?;
        let mut chart = ChartBuilder::on(root)
            .caption(&caption, (FONT, 22))
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(72)
            .build_cartesian_2d(self.x_range.clone(), self.y_range.clone())?;
        chart
            .configure_mesh()
            .x_desc(self.x_name)
            .y_desc(y_desc)
            .x_label_formatter(&x_label)
            .y_label_formatter(&y_label)
            .label_style((FONT, 14))
            .axis_desc_style((FONT, 16))
            .draw()?;

        for (i, series) in self.series.iter().enumerate() {
            let style = Palette99::pick(i).stroke_width(2);
            let drawn = chart.draw_series(LineSeries::new(series.points.iter().copied(), style))?;
            if several {
                drawn
                    .label(series.name.as_str())
                    .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], style));
            }
        }
        if several {
            chart
                .configure_series_labels()
                .label_font((FONT, 14))
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK)
                .position(self.legend_corner())
                .draw()?;
        }
        root.present()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fmt::Write as _;

    /// Rows t = 0, 0.01, ..., 2: a damped sine in trajectory.csv and a
    /// tension-like multiplier plus a tiny residual in constraints.csv.
    fn write_run(dir: &Path) {
        let mut trajectory = String::from("t,bob.x,bob.y,bob.vx,bob.vy\n");
        let mut constraints = String::from("t,rod.C,rod.lambda\n");
        for i in 0..=200 {
            let t = f64::from(i) * 0.01;
            let decay = (-0.8 * t).exp();
            let phase = 2.0 * std::f64::consts::PI * 1.5 * t;
            let x = decay * phase.sin();
            let y = -decay * phase.cos();
            writeln!(trajectory, "{t},{x},{y},{},{}", -0.8 * x, -0.8 * y).unwrap();
            let lambda = -9.81 * (1.0 + 0.5 * decay * phase.cos());
            writeln!(constraints, "{t},{},{lambda}", 1e-9 * phase.sin()).unwrap();
        }
        std::fs::write(dir.join("trajectory.csv"), trajectory).unwrap();
        std::fs::write(dir.join("constraints.csv"), constraints).unwrap();
    }

    fn request(dir: &Path, y: &[&str], output: &str, size: (u32, u32)) -> PlotRequest {
        PlotRequest {
            dir: dir.to_owned(),
            x: "t".to_owned(),
            y: y.iter().map(|s| (*s).to_owned()).collect(),
            output: dir.join(output),
            size,
        }
    }

    /// Width and height from a PNG's IHDR chunk, after checking the signature.
    fn png_size(bytes: &[u8]) -> (u32, u32) {
        assert!(bytes.len() > 24, "PNG too short: {} bytes", bytes.len());
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "bad PNG signature");
        assert_eq!(&bytes[12..16], b"IHDR", "first chunk is not IHDR");
        let be = |r: Range<usize>| u32::from_be_bytes(bytes[r].try_into().unwrap());
        (be(16..20), be(20..24))
    }

    #[test]
    fn svg_has_requested_size() {
        let dir = tempfile::tempdir().unwrap();
        write_run(dir.path());
        let req = request(dir.path(), &["bob.x"], "out.svg", (800, 500));
        plot(&req).unwrap();
        let svg = std::fs::read_to_string(&req.output).unwrap();
        assert!(
            svg.trim_start().starts_with("<svg"),
            "not an SVG: {svg:.80}"
        );
        assert!(svg.contains(r#"width="800""#) && svg.contains(r#"height="500""#));
        assert!(svg.contains("bob.x"), "caption or axis label missing");
    }

    #[test]
    fn png_is_valid_with_requested_size() {
        let dir = tempfile::tempdir().unwrap();
        write_run(dir.path());
        let req = request(dir.path(), &["bob.x", "bob.y"], "out.png", (640, 360));
        plot(&req).unwrap();
        assert_eq!(png_size(&std::fs::read(&req.output).unwrap()), (640, 360));
    }

    #[test]
    fn columns_from_both_files_share_a_plot() {
        let dir = tempfile::tempdir().unwrap();
        write_run(dir.path());
        let req = request(dir.path(), &["bob.y", "rod.lambda"], "both.svg", (800, 500));
        let series = load_series(&req).unwrap();
        assert_eq!(series.len(), 2);
        assert!(series.iter().all(|s| s.points.len() == 201));
        plot(&req).unwrap();
        let svg = std::fs::read_to_string(&req.output).unwrap();
        assert!(svg.contains("rod.lambda") && svg.contains("bob.y"));

        // The x column may come from constraints.csv too.
        let mut req = request(dir.path(), &["bob.x"], "x.png", (400, 300));
        req.x = "rod.lambda".to_owned();
        plot(&req).unwrap();
        assert_eq!(png_size(&std::fs::read(&req.output).unwrap()), (400, 300));
    }

    #[test]
    fn unknown_column_names_it_and_lists_available() {
        let dir = tempfile::tempdir().unwrap();
        write_run(dir.path());
        let req = request(dir.path(), &["bob.x", "bob.z"], "out.svg", (800, 500));
        let message = plot(&req).unwrap_err().to_string();
        assert!(message.contains("'bob.z'"), "{message}");
        assert!(message.contains("available"), "{message}");
        assert!(
            message.contains("rod.lambda") && message.contains("bob.vy"),
            "{message}"
        );
        assert_eq!(
            message.matches(", t,").count(),
            0,
            "t listed twice: {message}"
        );
        assert!(!req.output.exists());
    }

    #[test]
    fn unsupported_extension_is_rejected() {
        let dir = tempfile::tempdir().unwrap();
        write_run(dir.path());
        let message = plot(&request(dir.path(), &["bob.x"], "out.jpg", (800, 500)))
            .unwrap_err()
            .to_string();
        assert!(
            message.contains(".jpg") && message.contains(".svg"),
            "{message}"
        );
        assert!(message.contains(".png"), "{message}");
        assert!(plot(&request(dir.path(), &["bob.x"], "out", (800, 500))).is_err());
    }

    #[test]
    fn non_finite_values_are_skipped() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("trajectory.csv"),
            "t,bob.x\n0,1\n0.01,NaN\n0.02,inf\n0.03,-inf\n0.04,\n0.05,2\n0.06,1.5\n",
        )
        .unwrap();
        let req = request(dir.path(), &["bob.x"], "nan.png", (300, 200));
        let series = load_series(&req).unwrap();
        assert_eq!(series[0].points, vec![(0.0, 1.0), (0.05, 2.0), (0.06, 1.5)]);
        plot(&req).unwrap();
        assert_eq!(png_size(&std::fs::read(&req.output).unwrap()), (300, 200));
    }

    #[test]
    fn only_constraints_file_is_enough() {
        let dir = tempfile::tempdir().unwrap();
        write_run(dir.path());
        std::fs::remove_file(dir.path().join("trajectory.csv")).unwrap();
        plot(&request(dir.path(), &["rod.C"], "c.svg", (800, 500))).unwrap();
        let message = plot(&request(dir.path(), &["bob.x"], "c.svg", (800, 500)))
            .unwrap_err()
            .to_string();
        assert!(!message.contains("trajectory.csv"), "{message}");
    }

    #[test]
    fn missing_data_names_the_directory() {
        let dir = tempfile::tempdir().unwrap();
        let message = plot(&request(dir.path(), &["bob.x"], "out.svg", (800, 500)))
            .unwrap_err()
            .to_string();
        assert!(
            message.contains(&dir.path().display().to_string()),
            "{message}"
        );
    }

    #[test]
    fn malformed_csv_names_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("trajectory.csv"),
            "t,bob.x\n0,1\n0.01,2,3\n",
        )
        .unwrap();
        let message = plot(&request(dir.path(), &["bob.x"], "out.svg", (800, 500)))
            .unwrap_err()
            .to_string();
        assert!(
            message.contains("trajectory.csv") && message.contains("line 3"),
            "{message}"
        );

        std::fs::write(
            dir.path().join("trajectory.csv"),
            "t,bob.x\n0,1\n0.01,abc\n",
        )
        .unwrap();
        let message = plot(&request(dir.path(), &["bob.x"], "out.svg", (800, 500)))
            .unwrap_err()
            .to_string();
        assert!(
            message.contains("line 3") && message.contains("abc"),
            "{message}"
        );
    }

    #[test]
    fn flat_and_empty_ranges() {
        let flat = axis_range([3.0, 3.0].into_iter(), 0.05).unwrap();
        assert!((flat.start - 2.7).abs() < 1e-12 && (flat.end - 3.3).abs() < 1e-12);
        assert_eq!(axis_range([0.0].into_iter(), 0.05), Some(-1.0..1.0));
        assert_eq!(axis_range([f64::NAN].into_iter(), 0.05), None);
        assert_eq!(axis_range([0.0, 10.0].into_iter(), 0.1), Some(-1.0..11.0));
    }

    #[test]
    fn tick_labels_resolve_tiny_and_huge_ranges() {
        let tiny = TickFormat::for_range(&(-1.1e-9..1.1e-9));
        assert_eq!(tiny.format(5e-10), "5e-10");
        assert_eq!(tiny.format(-1e-9), "-1.0e-9");
        assert_eq!(tiny.format(1e-25), "0");
        let unit = TickFormat::for_range(&(-15.5..1.6));
        assert_eq!(unit.format(-14.0), "-14");
        assert_eq!(unit.format(-1e-15), "0");
        let time = TickFormat::for_range(&(-0.04..2.04));
        assert_eq!(time.format(0.2), "0.2");
        assert_eq!(time.format(-1e-17), "0.0");
        let huge = TickFormat::for_range(&(0.0..3e7));
        assert_eq!(huge.format(2.5e7), "2.5e7");
    }

    #[test]
    fn bad_sizes_are_rejected() {
        let dir = tempfile::tempdir().unwrap();
        write_run(dir.path());
        assert!(plot(&request(dir.path(), &["bob.x"], "a.png", (0, 500))).is_err());
        assert!(
            plot(&request(
                dir.path(),
                &["bob.x"],
                "a.png",
                (100_000, 100_000)
            ))
            .is_err()
        );
    }
}
