//! Live plots (egui_plot) of what the engine reports at each frame: the total energy, the
//! constraint error max |C| (on a log scale: it spans 1e-15 to 1e-2 in the same run), and the
//! multipliers λ of the selected constraint — its force, in newtons for the built-ins.

use bead::Diagnostics;
use eframe::egui;
use egui_plot::{Line, Plot, PlotPoint, PlotPoints};

/// Samples kept per series; past this the oldest half is dropped (about 5 minutes at 60 Hz).
const KEEP: usize = 20_000;
/// Points drawn per series at most: a plot is a few hundred pixels wide, and tessellating every
/// sample of a long run each frame would slow the viewer down as the run goes on.
const DRAWN: usize = 600;

/// The series recorded so far.
#[derive(Debug, Default)]
pub struct History {
    energy: Vec<PlotPoint>,
    error: Vec<PlotPoint>,
    /// One series per row of the constraint being followed.
    lambda: Vec<Vec<PlotPoint>>,
    /// The constraint whose λ is recorded, by name.
    followed: Option<String>,
    last_time: Option<f64>,
}

impl History {
    /// Forgets everything.
    pub fn clear(&mut self) {
        *self = History {
            followed: self.followed.take(),
            ..History::default()
        };
    }

    /// Records the state `d` describes; `follow` names the constraint whose λ to record (a new
    /// name starts its series afresh). Time going backwards (a reset) starts every series
    /// afresh.
    pub fn record(&mut self, d: &Diagnostics, follow: Option<&str>) {
        if self.last_time.is_some_and(|t| d.time < t) {
            self.clear();
        }
        if self.followed.as_deref() != follow {
            self.followed = follow.map(str::to_string);
            self.lambda.clear();
        }
        if self.last_time == Some(d.time) {
            return;
        }
        self.last_time = Some(d.time);
        push(&mut self.energy, d.time, d.total_energy());
        push(
            &mut self.error,
            d.time,
            d.max_abs_c.max(f64::MIN_POSITIVE).log10().max(-17.0),
        );
        if let Some(report) = follow.and_then(|name| d.constraints.iter().find(|c| c.name == name))
        {
            self.lambda.resize_with(report.lambda.len(), Vec::new);
            for (series, l) in self.lambda.iter_mut().zip(&report.lambda) {
                push(series, d.time, *l);
            }
        }
    }

    /// Number of samples of the energy series.
    pub fn len(&self) -> usize {
        self.energy.len()
    }

    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.energy.is_empty()
    }

    /// The λ samples of row `row` of the followed constraint, as (t, λ).
    pub fn lambda(&self, row: usize) -> impl Iterator<Item = (f64, f64)> + '_ {
        self.lambda
            .get(row)
            .into_iter()
            .flatten()
            .map(|p| (p.x, p.y))
    }

    /// The three plots side by side.
    pub(crate) fn ui(&self, ui: &mut egui::Ui) {
        ui.columns(3, |columns| {
            plot(&mut columns[0], "energy", "total energy, J", |p| {
                p.line(Line::new("E", decimated(&self.energy)));
            });
            plot(&mut columns[1], "error", "log₁₀ max |C|", |p| {
                p.line(Line::new("max |C|", decimated(&self.error)));
            });
            let title = match &self.followed {
                Some(name) => format!("λ of {name}, N"),
                None => "λ: select a constraint".to_string(),
            };
            plot(&mut columns[2], "lambda", &title, |p| {
                for (row, series) in self.lambda.iter().enumerate() {
                    let name = if self.lambda.len() > 1 {
                        format!("λ{row}")
                    } else {
                        "λ".to_string()
                    };
                    p.line(Line::new(name, decimated(series)));
                }
            });
        });
    }
}

/// At most [`DRAWN`] points of `series`: in each of `DRAWN / 2` consecutive buckets its lowest
/// and highest sample, in time order, so that no spike disappears from the picture.
fn decimated(series: &[PlotPoint]) -> PlotPoints<'_> {
    if series.len() <= DRAWN {
        return PlotPoints::from(series);
    }
    let bucket = series.len().div_ceil(DRAWN / 2);
    let mut out = Vec::with_capacity(DRAWN);
    for chunk in series.chunks(bucket) {
        let by_y = |a: &&PlotPoint, b: &&PlotPoint| a.y.total_cmp(&b.y);
        let (Some(lo), Some(hi)) = (chunk.iter().min_by(by_y), chunk.iter().max_by(by_y)) else {
            continue;
        };
        let (first, second) = if lo.x <= hi.x { (lo, hi) } else { (hi, lo) };
        out.push(*first);
        if second.x != first.x {
            out.push(*second);
        }
    }
    PlotPoints::Owned(out)
}

fn push(series: &mut Vec<PlotPoint>, t: f64, y: f64) {
    if series.len() >= KEEP {
        series.drain(..KEEP / 2);
    }
    if y.is_finite() {
        series.push(PlotPoint::new(t, y));
    }
}

fn plot<'a>(
    ui: &mut egui::Ui,
    id: &str,
    title: &str,
    lines: impl FnOnce(&mut egui_plot::PlotUi<'a>) + 'a,
) {
    ui.label(egui::RichText::new(title).small());
    // Exactly the height left: a plot shorter than its panel would let the panel shrink to it,
    // frame after frame.
    Plot::new(id)
        .height(ui.available_height().max(40.0))
        .allow_scroll(false)
        .x_axis_label("t, s")
        .show(ui, lines);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A long series is drawn with few points, and its extremes are among them.
    #[test]
    fn long_series_are_decimated_keeping_their_extremes() {
        let series: Vec<PlotPoint> = (0..10_000)
            .map(|k| {
                let y = if k == 7_777 {
                    50.0
                } else {
                    (k as f64 * 0.01).sin()
                };
                PlotPoint::new(k as f64, y)
            })
            .collect();
        let PlotPoints::Owned(drawn) = decimated(&series) else {
            panic!("a new, shorter series");
        };
        assert!(drawn.len() <= DRAWN, "{}", drawn.len());
        assert!(drawn.iter().any(|p| p.y == 50.0), "the spike is kept");
        assert!(drawn.windows(2).all(|w| w[0].x < w[1].x), "in time order");
        assert!(matches!(decimated(&series[..100]), PlotPoints::Borrowed(_)));
    }

    #[test]
    fn records_the_followed_constraint_and_restarts_on_reset() {
        let (mut sys, _, rod) = bead::models::pendulum(1.0, 0.5, 1.0).unwrap();
        let name = sys.constraint_name(rod).unwrap().to_string();
        let mut h = History::default();
        for _ in 0..5 {
            sys.step(1e-2).unwrap();
            h.record(&sys.diagnostics().unwrap(), Some(&name));
        }
        assert_eq!(h.len(), 5);
        assert_eq!(h.lambda(0).count(), 5);
        // λ < 0: the rod pulls (tension).
        assert!(h.lambda(0).all(|(_, l)| l < 0.0));
        // The same instant twice is one sample.
        h.record(&sys.diagnostics().unwrap(), Some(&name));
        assert_eq!(h.len(), 5);
        // Following nothing empties λ; going back in time empties everything.
        h.record(&sys.diagnostics().unwrap(), None);
        assert_eq!(h.lambda(0).count(), 0);
        sys.set_time(0.0);
        h.record(&sys.diagnostics().unwrap(), None);
        assert_eq!(h.len(), 1);
    }
}
