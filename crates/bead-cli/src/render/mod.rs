//! `bead render`: runs a scene's model and writes what it draws (through [`bead::draw::Canvas`])
//! as an animated GIF.
//!
//! The model steps through [`bead_scene::run::run`], the loop of `bead run` and the Python
//! package, so a render shows the trajectory a run of the same scene writes. The run is recorded
//! first, as projected primitives, so that the view can be fitted to the whole animation (the
//! camera never moves; see `viewport` for how still bodies larger than the action are framed)
//! and forces can share one arrow scale; each frame is then rasterised with
//! tiny-skia and encoded as it is drawn, so only one image is held at a time.
//!
//! The stages, one a file, each using only those before it: `options` (the request and its
//! checks), `canvas` (the recording canvas), `frames` (when frames are taken), `viewport` (the
//! fitted view), `raster` (pixels) and `encode` (the GIF).

mod canvas;
mod encode;
mod frames;
mod options;
mod raster;
#[cfg(test)]
mod tests;
mod viewport;

use std::path::Path;

use anyhow::Result;
use bead_scene::Model;

use encode::encode;
use frames::simulate;
use options::validate;
pub use options::{RenderOptions, parse_view};
use viewport::Viewport;

/// What was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RenderSummary {
    /// Number of frames in the GIF.
    pub frames: usize,
}

/// Runs `model` from its current state for its duration (`model.run`) and writes an animated GIF
/// of it to `output`.
///
/// Frames are taken at simulated times 0, 1/fps, 2/fps, … up to the duration (each when the
/// simulation first reaches it), so the GIF plays in real time. Nothing is written if the options
/// are invalid or the simulation fails.
pub fn render(model: &mut Model, options: &RenderOptions, output: &Path) -> Result<RenderSummary> {
    validate(model.run.dt, model.run.duration, options)?;
    let look = canvas::Look {
        show_forces: options.show_forces,
        camera: options.camera,
        solid: options.solid,
    };
    let snapshots = simulate(model, options.fps, look)?;
    let view = Viewport::fit(&snapshots, options.width, options.height);
    encode(&snapshots, &view, options, output)?;
    Ok(RenderSummary {
        frames: snapshots.len(),
    })
}
