//! What `bead render` is asked for, and the checks that reject a request before anything runs
//! or is written.

use anyhow::{Result, ensure};
use bead::draw::projection::Camera;

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
    /// How 3D scenes are seen (`--view`); the default is the cabinet projection.
    pub camera: Camera,
    /// Draw 3D solids filled and shaded, their faces in depth order (`--solid`), rather than by
    /// their edges.
    pub solid: bool,
}

/// The camera of `--view`: `cabinet`, or `YAW,PITCH` in degrees for an orthographic view from
/// that side (yaw about the vertical z axis, 0 looking along +y; pitch above the horizon,
/// −90 to 90).
///
/// ```text
/// parse_view("cabinet") == Ok(Camera::Cabinet)
/// parse_view("-30,20")  == Ok(Camera::orbit(-30°, 20°))
/// ```
pub fn parse_view(text: &str) -> Result<Camera, String> {
    if text.trim().eq_ignore_ascii_case("cabinet") {
        return Ok(Camera::Cabinet);
    }
    let angles: Option<Vec<f64>> = text
        .split(',')
        .map(|a| a.trim().parse::<f64>().ok().filter(|a| a.is_finite()))
        .collect();
    match angles.as_deref() {
        Some(&[yaw, pitch]) if (-90.0..=90.0).contains(&pitch) => {
            Ok(Camera::orbit(yaw.to_radians(), pitch.to_radians()))
        }
        Some(&[_, pitch]) => Err(format!(
            "the pitch must be between -90 and 90 degrees, got {pitch}"
        )),
        _ => Err(format!(
            "expected `cabinet` or YAW,PITCH in degrees (such as -30,20), got '{text}'"
        )),
    }
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
