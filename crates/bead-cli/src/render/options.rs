//! What `bead render` is asked for, and the checks that reject a request before anything runs
//! or is written.

use anyhow::{Result, ensure};

/// How to draw the animation.
#[derive(Clone, Debug, PartialEq)]
pub struct RenderOptions {
    /// Frames per second, both of simulated time and of playback (real-time animation).
    pub fps: u32,
    /// Image width, in pixels.
    pub width: u32,
    /// Image height, in pixels.
    pub height: u32,
    /// Draw each constraint force `Jᵀλ` as an arrow on the body it acts on.
    pub show_forces: bool,
}

/// Smallest and largest image side, in pixels (4096 also keeps sides within GIF's u16).
const SIDES: std::ops::RangeInclusive<u32> = 16..=4096;

/// Rejects options no GIF can be made with, and a time step or duration no run can have, with
/// a message that names the setting.
pub(super) fn validate(dt: f64, duration: f64, options: &RenderOptions) -> Result<()> {
    ensure!(
        options.fps >= 1,
        "the frame rate must be at least 1 frame per second, got {}",
        options.fps
    );
    for (what, side) in [("width", options.width), ("height", options.height)] {
        ensure!(
            SIDES.contains(&side),
            "the image {what} must be between {} and {} pixels, got {side}",
            SIDES.start(),
            SIDES.end()
        );
    }
    ensure!(
        dt > 0.0 && dt.is_finite(),
        "the time step must be a positive, finite number of seconds, got {dt}"
    );
    ensure!(
        duration >= 0.0 && duration.is_finite(),
        "the duration must be zero or a positive, finite number of seconds, got {duration}"
    );
    Ok(())
}
