//! The frames of a run: a [`Sink`] of [`bead_scene::run::run`] that takes a snapshot whenever
//! the simulation first reaches a frame's time, so the GIF plays in real time whatever the step.

use anyhow::{Context, Result};
use bead::{Diagnostics, System};
use bead_scene::Model;
use bead_scene::run::{Sink, run};

use super::canvas::{Look, Snapshot, snapshot};

/// Slack on frame times, so that a frame due at exactly `duration` is not lost to rounding.
const TIME_TOLERANCE: f64 = 1e-9;

/// Number of frames at times 0, 1/fps, … ≤ duration.
fn frame_count(duration: f64, fps: u32) -> usize {
    let intervals = ((duration + TIME_TOLERANCE) * f64::from(fps)).floor();
    (intervals as usize).saturating_add(1)
}

/// The frames of a run: a [`Sink`] that takes a snapshot whenever the run first reaches a frame
/// time.
struct Frames {
    /// Frames due in the whole run.
    count: usize,
    fps: u32,
    look: Look,
    snapshots: Vec<Snapshot>,
}

impl Frames {
    fn new(count: usize, fps: u32, look: Look) -> Frames {
        Frames {
            count,
            fps,
            look,
            // The capacity is only a hint; a huge frame count must not reserve memory up front.
            snapshots: Vec::with_capacity(count.min(1024)),
        }
    }

    /// Takes the frames due by `elapsed` seconds into the run. Steps longer than a frame
    /// interval leave several frames due at once: repeating the state keeps the GIF's timing
    /// right.
    fn take_due(&mut self, system: &mut System, elapsed: f64) {
        let due = |frame: usize| frame as f64 / f64::from(self.fps) - TIME_TOLERANCE;
        while self.snapshots.len() < self.count && elapsed >= due(self.snapshots.len()) {
            self.snapshots.push(snapshot(system, &self.look));
        }
    }

    /// The frames of a finished run. It ended at its duration, where every frame is due; only
    /// rounding can leave one behind, which the last state stands for.
    fn finish(mut self, system: &mut System) -> Vec<Snapshot> {
        while self.snapshots.len() < self.count {
            self.snapshots.push(snapshot(system, &self.look));
        }
        self.snapshots
    }
}

impl Sink for Frames {
    type Error = anyhow::Error;

    /// Rows are `bead run`'s output; frames keep their own schedule, in [`Sink::observe`].
    fn record(&mut self, _: &mut Model, _: &Diagnostics) -> Result<()> {
        Ok(())
    }

    fn observe(&mut self, model: &mut Model, elapsed: f64) -> Result<()> {
        self.take_due(&mut model.system, elapsed);
        Ok(())
    }
}

/// Runs the model to its duration and captures a snapshot, drawn as `look` says, whenever it
/// first reaches a frame time. A failed step fails the render, naming the time of the last good
/// state.
pub(super) fn simulate(model: &mut Model, fps: u32, look: Look) -> Result<Vec<Snapshot>> {
    let mut frames = Frames::new(frame_count(model.run.duration, fps), fps, look);
    // The only errors besides a failed step: a row whose state cannot be evaluated.
    let report = run(model, &mut frames, |_, _, _| {})
        .with_context(|| format!("simulation failed at t = {} s", model.system.time()))?;
    if let Some(e) = report.failure {
        let t = report.t_end;
        return Err(anyhow::Error::new(e).context(format!("simulation failed at t = {t} s")));
    }
    Ok(frames.finish(&mut model.system))
}
