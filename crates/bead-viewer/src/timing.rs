//! How long frames take: the simulation and the drawing measured apart, and the whole frame from
//! one to the next (which adds egui's layout, tessellation and the GPU's work).
//!
//! The viewer shows running averages; `bead-viewer --frames N SCENE` plays N frames and prints
//! the averages and 95th percentiles, to check a machine against the frame budget.

use std::time::{Duration, Instant};

/// Time measurements of the frames so far.
#[derive(Debug, Default)]
pub struct FrameTimes {
    /// Simulation time per frame, ms.
    pub simulate: Series,
    /// Time to describe the model to the painter, ms.
    pub draw: Series,
    /// Time from one frame's start to the next one's, ms.
    pub frame: Series,
    /// CPU time of the whole frame as eframe counts it — the viewer's work, egui's tessellation
    /// and the rendering calls, without waiting for the display — ms (real windows only).
    pub cpu: Series,
    last_start: Option<Instant>,
}

impl FrameTimes {
    /// Marks the start of a frame.
    pub fn frame_started(&mut self) {
        let now = Instant::now();
        if let Some(last) = self.last_start.replace(now) {
            self.frame.push(now - last);
        }
    }

    /// Forgets everything (after the model changed, say).
    pub fn clear(&mut self) {
        *self = FrameTimes::default();
    }

    /// A summary in milliseconds, one line per measure.
    pub fn report(&self) -> String {
        let line = |name: &str, s: &Series| {
            format!(
                "{name:<10} mean {:7.3} ms   p95 {:7.3} ms   ({} frames)",
                s.mean(),
                s.percentile(0.95),
                s.len()
            )
        };
        let fps = if self.frame.mean() > 0.0 {
            1000.0 / self.frame.mean()
        } else {
            0.0
        };
        let mut report = format!(
            "{}\n{}\n",
            line("simulate", &self.simulate),
            line("draw", &self.draw)
        );
        if !self.cpu.is_empty() {
            report += &line("frame CPU", &self.cpu);
            report.push('\n');
        }
        report
            + &format!(
                "{}\nframes per second: {fps:.1}",
                line("frame", &self.frame)
            )
    }
}

/// Durations of one kind, in milliseconds.
#[derive(Debug, Default)]
pub struct Series {
    samples: Vec<f64>,
}

/// Samples kept for the running average shown in the viewer.
const RECENT: usize = 60;

impl Series {
    /// Adds a duration.
    pub fn push(&mut self, d: Duration) {
        self.samples.push(d.as_secs_f64() * 1e3);
    }

    /// Adds a duration given in milliseconds.
    pub fn push_ms(&mut self, ms: f64) {
        self.samples.push(ms);
    }

    /// Times `f` and adds its duration.
    pub fn time<T>(&mut self, f: impl FnOnce() -> T) -> T {
        let start = Instant::now();
        let out = f();
        self.push(start.elapsed());
        out
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.samples.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// Mean of all samples, ms (0 if none).
    pub fn mean(&self) -> f64 {
        mean(&self.samples)
    }

    /// The largest sample, ms (0 if none).
    pub fn max(&self) -> f64 {
        self.samples.iter().copied().fold(0.0, f64::max)
    }

    /// Mean of the last second or so of samples, ms.
    pub fn recent(&self) -> f64 {
        mean(&self.samples[self.samples.len().saturating_sub(RECENT)..])
    }

    /// The `q`-quantile (0 to 1) of all samples, ms.
    pub fn percentile(&self, q: f64) -> f64 {
        if self.samples.is_empty() {
            return 0.0;
        }
        let mut sorted = self.samples.clone();
        sorted.sort_by(f64::total_cmp);
        let k = ((sorted.len() - 1) as f64 * q).round() as usize;
        sorted[k]
    }
}

fn mean(x: &[f64]) -> f64 {
    if x.is_empty() {
        0.0
    } else {
        x.iter().sum::<f64>() / x.len() as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statistics_of_known_samples() {
        let mut s = Series::default();
        for ms in 1..=100 {
            s.push(Duration::from_millis(ms));
        }
        assert!((s.mean() - 50.5).abs() < 1e-9);
        assert!((s.percentile(0.95) - 95.0).abs() < 1.0 + 1e-9);
        assert!((s.recent() - (41..=100).sum::<u64>() as f64 / 60.0).abs() < 1e-9);
        assert_eq!(Series::default().mean(), 0.0);
        assert_eq!(s.max(), 100.0);
        s.push_ms(250.0);
        assert_eq!(s.max(), 250.0);
    }
}
