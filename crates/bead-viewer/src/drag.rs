//! `bead-viewer --frames N --drag PARTICLE DX,DY[,DZ]`: a pull scripted as a hand would make it
//! (seed 000 §4, the Tinkertoys answering the mouse while they run), so that the frame rate
//! through a hard pull and its release can be measured rather than eyeballed.
//!
//! The particle is grabbed with the viewer's own mouse spring when the measured frames start.
//! The spring's target moves by `(DX, DY, DZ)` metres in world coordinates over the first
//! [`PULL_FRAMES`] frames, stays there until frame `N/2`, and the spring is then let go. Each
//! phase (pull, hold, release) keeps its own simulate and whole-frame times.

use std::fmt;
use std::time::Instant;

use crate::timing::Series;
use crate::{App, WARM_UP_FRAMES};

/// Frames over which the target moves from the particle to the particle plus the offset.
pub const PULL_FRAMES: usize = 60;

/// The phases of a scripted drag.
///
/// ```
/// use bead_viewer::drag::{Phase, DragScript};
/// assert_eq!(DragScript::phase(0, 200), Phase::Pull);
/// assert_eq!(DragScript::phase(60, 200), Phase::Hold);
/// assert_eq!(DragScript::phase(100, 200), Phase::Release);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// The target moves.
    Pull,
    /// The target stays where the pull left it.
    Hold,
    /// The spring is let go.
    Release,
}

impl Phase {
    const ALL: [Phase; 3] = [Phase::Pull, Phase::Hold, Phase::Release];

    fn name(self) -> &'static str {
        match self {
            Phase::Pull => "pull",
            Phase::Hold => "hold",
            Phase::Release => "release",
        }
    }
}

/// The times of one phase's frames.
#[derive(Debug, Default)]
struct PhaseTimes {
    /// Simulation per frame, ms.
    simulate: Series,
    /// From the end of one frame to the end of the next, ms: everything the frame did, drawing
    /// and the window's work included.
    frame: Series,
    /// Wall time from the end of the frame before the phase to the end of its last, s.
    elapsed: f64,
}

/// A scripted drag and what it measured.
///
/// ```
/// use bead_viewer::drag::DragScript;
/// let script = DragScript::parse("n29_29", "1.0,0.0,0.5", 3, 600).unwrap();
/// assert_eq!(script.particle(), "n29_29");
/// assert_eq!(script.target([0.0, 0.0, 0.0], 29), [0.5, 0.0, 0.25]);
/// assert!(DragScript::parse("n29_29", "1.0,0.0,0.5", 2, 600).is_err()); // a 2D scene
/// assert!(DragScript::parse("n29_29", "1.0,x", 3, 600).is_err());
/// assert!(DragScript::parse("n29_29", "1.0,0.0", 3, 100).is_err()); // no frames to hold
/// ```
#[derive(Debug)]
pub struct DragScript {
    particle: String,
    offset: [f64; 3],
    frames: usize,
    phases: [PhaseTimes; 3],
    last_end: Option<Instant>,
    max_c: f64,
    steps_per_frame: f64,
    failure: Option<String>,
}

impl DragScript {
    /// The script for `--drag PARTICLE OFFSET` in a scene of `dimension` played for `frames`
    /// frames; an error says what is wrong with the arguments.
    pub fn parse(
        particle: &str,
        offset: &str,
        dimension: usize,
        frames: usize,
    ) -> Result<DragScript, String> {
        let parts: Vec<&str> = offset.split(',').collect();
        let numbers: Option<Vec<f64>> = parts
            .iter()
            .map(|p| p.trim().parse::<f64>().ok().filter(|x| x.is_finite()))
            .collect();
        let Some(numbers) = numbers else {
            return Err(format!(
                "--drag: the offset '{offset}' is not DX,DY or DX,DY,DZ in metres"
            ));
        };
        let mut xyz = [0.0; 3];
        match numbers.len() {
            2 | 3 if numbers.len() <= dimension => xyz[..numbers.len()].copy_from_slice(&numbers),
            3 => {
                return Err(format!(
                    "--drag: the scene is {dimension}D, so the offset is DX,DY, not '{offset}'"
                ));
            }
            _ => {
                return Err(format!(
                    "--drag: the offset '{offset}' is not DX,DY or DX,DY,DZ in metres"
                ));
            }
        }
        if frames / 2 <= PULL_FRAMES {
            return Err(format!(
                "--drag needs --frames of at least {}: {PULL_FRAMES} frames of pull, then a hold \
                 to half the frames, then the release",
                2 * (PULL_FRAMES + 1)
            ));
        }
        Ok(DragScript {
            particle: particle.to_string(),
            offset: xyz,
            frames,
            phases: Default::default(),
            last_end: None,
            max_c: 0.0,
            steps_per_frame: 0.0,
            failure: None,
        })
    }

    /// The particle's name.
    pub fn particle(&self) -> &str {
        &self.particle
    }

    /// Frames the script plays.
    pub fn frames(&self) -> usize {
        self.frames
    }

    /// The phase of measured frame `frame` (from 0) of `frames`.
    pub fn phase(frame: usize, frames: usize) -> Phase {
        if frame < PULL_FRAMES {
            Phase::Pull
        } else if frame < frames / 2 {
            Phase::Hold
        } else {
            Phase::Release
        }
    }

    /// The spring's target at measured frame `frame` for a particle grabbed at `start`: it
    /// reaches the whole offset at the pull's last frame.
    pub fn target(&self, start: [f64; 3], frame: usize) -> [f64; 3] {
        let s = ((frame + 1) as f64 / PULL_FRAMES as f64).min(1.0);
        std::array::from_fn(|i| start[i] + s * self.offset[i])
    }

    /// Records measured frame `frame`: its simulation time (ms), the model's largest
    /// constraint error after it (m) and the steps it took; the whole frame's time runs from the
    /// last call.
    pub fn record(&mut self, frame: usize, simulate_ms: f64, max_c: f64, steps: usize) {
        let now = Instant::now();
        let phase = &mut self.phases[Self::phase(frame, self.frames) as usize];
        phase.simulate.push_ms(simulate_ms);
        if let Some(last) = self.last_end {
            let d = now - last;
            phase.frame.push(d);
            phase.elapsed += d.as_secs_f64();
        }
        self.last_end = Some(now);
        self.max_c = self.max_c.max(max_c);
        let n = (frame + 1) as f64;
        self.steps_per_frame += (steps as f64 - self.steps_per_frame) / n;
    }

    /// Notes that the model stopped at measured frame `frame`, and why: the summary says so.
    pub fn fail(&mut self, frame: usize, why: &str) {
        if self.failure.is_none() {
            self.failure = Some(format!("the model stopped at frame {frame}: {why}"));
        }
    }

    /// What the drag measured.
    pub fn summary(&self) -> DragSummary {
        DragSummary {
            phases: std::array::from_fn(|k| {
                let p = &self.phases[k];
                PhaseSummary {
                    simulate: [
                        p.simulate.percentile(0.5),
                        p.simulate.percentile(0.95),
                        p.simulate.max(),
                    ],
                    frame: [
                        p.frame.percentile(0.5),
                        p.frame.percentile(0.95),
                        p.frame.max(),
                    ],
                    fps: if p.elapsed > 0.0 {
                        p.frame.len() as f64 / p.elapsed
                    } else {
                        0.0
                    },
                }
            }),
            max_c: self.max_c,
            steps_per_frame: self.steps_per_frame,
            failure: self.failure.clone(),
        }
    }
}

/// One phase's figures: simulate and whole-frame times (p50, p95, max, ms) and frames per
/// second (frames over elapsed time).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PhaseSummary {
    /// Simulation per frame, ms: p50, p95, max.
    pub simulate: [f64; 3],
    /// Whole frame, ms: p50, p95, max.
    pub frame: [f64; 3],
    /// Frames per second.
    pub fps: f64,
}

/// What a scripted drag measured, printed by `bead-viewer --drag`: a line per phase, then
/// `pull: p95 simulate A ms, B fps; hold: …; release: …; max |C| G m; steps per frame H`.
///
/// ```
/// use bead_viewer::drag::DragSummary;
/// let text = DragSummary::default().to_string();
/// assert!(text.ends_with("max |C| 0.0e0 m; steps per frame 0"));
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DragSummary {
    /// Pull, hold, release.
    pub phases: [PhaseSummary; 3],
    /// The largest constraint error after any frame, m.
    pub max_c: f64,
    /// Steps of the scene's dt a frame, on average.
    pub steps_per_frame: f64,
    /// Why the model stopped before the drag's end, if it did.
    pub failure: Option<String>,
}

impl fmt::Display for DragSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (phase, p) in Phase::ALL.iter().zip(&self.phases) {
            writeln!(
                f,
                "{:<8} simulate p50 {:7.2} ms  p95 {:7.2} ms  max {:7.2} ms   frame p50 {:7.2} ms  \
                 p95 {:7.2} ms  max {:7.2} ms   {:5.1} fps",
                phase.name(),
                p.simulate[0],
                p.simulate[1],
                p.simulate[2],
                p.frame[0],
                p.frame[1],
                p.frame[2],
                p.fps
            )?;
        }
        if let Some(failure) = &self.failure {
            writeln!(f, "{failure}")?;
        }
        let phases: Vec<String> = Phase::ALL
            .iter()
            .zip(&self.phases)
            .map(|(phase, p)| {
                format!(
                    "{}: p95 simulate {:.2} ms, {:.1} fps",
                    phase.name(),
                    p.simulate[1],
                    p.fps
                )
            })
            .collect();
        let steps = self.steps_per_frame;
        let steps = if (steps - steps.round()).abs() < 1e-9 {
            format!("{steps:.0}")
        } else {
            format!("{steps:.1}")
        };
        write!(
            f,
            "{}; max |C| {:.1e} m; steps per frame {steps}",
            phases.join("; "),
            self.max_c,
        )
    }
}

impl App {
    /// Plays `script.frames()` frames with the scripted pull (`bead-viewer --frames N --drag
    /// PARTICLE DX,DY[,DZ]`), prints the frame times and the drag's summary (its last line as
    /// [`DragSummary`] shows it) and closes the window. An error names a particle the scene
    /// does not have.
    ///
    /// ```
    /// use bead_viewer::{App, drag::DragScript};
    /// let scene = "format = 1\n[simulation]\ndimension = 2\ndt = 0.01\nduration = 1.0\n\
    ///     [[particles]]\nname = \"bob\"\nposition = [1.0, 0.0]\n";
    /// let mut app = App::from_scene_text(scene, bead_scene::Format::Toml, "one particle");
    /// assert_eq!(app.model().particles.len(), 1, "{}", app.status());
    /// let script = DragScript::parse("bob", "0.5,0.0", 2, 200).unwrap();
    /// assert!(app.drag_frames(script).is_ok());
    /// let script = DragScript::parse("nobody", "0.5,0.0", 2, 200).unwrap();
    /// assert!(app.drag_frames(script).unwrap_err().contains("'nobody'"));
    /// ```
    pub fn drag_frames(&mut self, script: DragScript) -> Result<(), String> {
        if self.particle_named(script.particle()).is_none() {
            let names: Vec<&str> = self
                .model()
                .particles
                .iter()
                .map(|(n, _)| n.as_str())
                .take(5)
                .collect();
            return Err(format!(
                "--drag: the scene '{}' has no particle named '{}' (its particles: {}{})",
                self.document().name(),
                script.particle(),
                names.join(", "),
                if self.model().particles.len() > names.len() {
                    ", …"
                } else {
                    ""
                }
            ));
        }
        self.measure_frames(script.frames());
        self.drag = Some((script, None));
        Ok(())
    }

    /// What the scripted drag has measured so far, if one runs.
    pub fn drag_summary(&self) -> Option<DragSummary> {
        self.drag.as_ref().map(|(script, _)| script.summary())
    }

    fn particle_named(&self, name: &str) -> Option<bead::ParticleId> {
        let particles = &self.model().particles;
        particles.iter().find(|(n, _)| n == name).map(|(_, p)| *p)
    }

    /// Before a frame simulates: grabs the particle at the first measured frame, moves the
    /// spring's target, and lets go at the release.
    pub(crate) fn drive_drag(&mut self) {
        self.last_simulation = (0, 0.0);
        let (Some(m), Some((script, start))) = (&self.measure, &self.drag) else {
            return;
        };
        let Some(frame) = m.done.checked_sub(WARM_UP_FRAMES) else {
            return;
        };
        let frames = script.frames();
        if frame >= frames {
            return;
        }
        if DragScript::phase(frame, frames) == Phase::Release {
            if frame == frames / 2 {
                self.release();
            }
            return;
        }
        let mut start = *start;
        if frame == 0
            && let Some(p) = self.particle_named(script.particle())
        {
            let x = self.model().system.position(p);
            let position = std::array::from_fn(|i| x.get(i).copied().unwrap_or(0.0));
            if self.grab_point(bead::Point::from(p))
                && let Some(grab) = &mut self.grab
            {
                grab.scripted = true;
                start = Some(position);
            }
        }
        let Some((script, slot)) = &mut self.drag else {
            return;
        };
        *slot = start;
        let target = start.map(|s| script.target(s, frame));
        if let (Some(target), Some(grab)) = (target, self.grab) {
            self.set_grab_target(&grab, &target);
        }
    }

    /// After measured frame `frame`: records its times, the constraint error and a failure.
    pub(crate) fn record_drag(&mut self, frame: usize) {
        let max_c = match &self.diagnostics {
            Some(d) => d.max_abs_c,
            None => self
                .doc
                .model_mut()
                .system
                .constraint_error()
                .map_or(f64::INFINITY, |(c, _)| c),
        };
        let (steps, ms) = self.last_simulation;
        let stopped = (!self.running).then(|| self.status().to_string());
        let Some((script, _)) = &mut self.drag else {
            return;
        };
        if frame >= script.frames() {
            return;
        }
        script.record(frame, ms, max_c, steps);
        if let Some(why) = stopped {
            script.fail(frame, &why);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_target_moves_over_the_pull_and_then_stays() {
        let script = DragScript::parse("p", "1.0,-2.0", 2, 200).unwrap();
        assert_eq!(
            script.target([1.0, 1.0, 0.0], 0),
            [1.0 + 1.0 / 60.0, 1.0 - 2.0 / 60.0, 0.0]
        );
        assert_eq!(script.target([1.0, 1.0, 0.0], 59), [2.0, -1.0, 0.0]);
        assert_eq!(script.target([1.0, 1.0, 0.0], 150), [2.0, -1.0, 0.0]);
        assert_eq!(DragScript::phase(59, 200), Phase::Pull);
        assert_eq!(DragScript::phase(99, 200), Phase::Hold);
        assert_eq!(DragScript::phase(199, 200), Phase::Release);
    }

    #[test]
    fn each_phase_keeps_its_own_frames() {
        let mut script = DragScript::parse("p", "1.0,0.0", 2, 130).unwrap();
        for frame in 0..130 {
            let simulate = match DragScript::phase(frame, 130) {
                Phase::Pull => 1.0,
                Phase::Hold => 2.0,
                Phase::Release => 3.0,
            };
            script.record(frame, simulate, 1e-11 * frame as f64, 10);
        }
        let s = script.summary();
        assert_eq!(s.phases.map(|p| p.simulate[1]), [1.0, 2.0, 3.0]);
        assert_eq!(s.max_c, 1e-11 * 129.0);
        assert_eq!(s.steps_per_frame, 10.0);
        // The first frame has no frame before it to time from.
        assert!(s.phases[0].fps > 0.0 && s.phases[2].fps > 0.0);
        let text = s.to_string();
        let last = text.lines().last().unwrap();
        assert!(last.starts_with("pull: p95 simulate 1.00 ms, "), "{last}");
        assert!(last.contains("; hold: p95 simulate 2.00 ms, "), "{last}");
        assert!(
            last.ends_with("max |C| 1.3e-9 m; steps per frame 10"),
            "{last}"
        );
    }
}
