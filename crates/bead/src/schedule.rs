//! The step sizes of a run that ends exactly at its duration.
//!
//! When `duration / dt` is a whole number up to rounding (1.0 / 0.001 is 999.999… in floating
//! point) that many steps of `dt` are taken; otherwise the last step is shortened so the run still
//! ends at `duration`.

/// The step sizes that take a run from 0 to `duration` with steps of `dt`.
///
/// ```
/// let steps: Vec<f64> = bead::step_sizes(1.0, 0.001).collect();
/// assert_eq!(steps.len(), 1000);
/// let steps: Vec<f64> = bead::step_sizes(0.25, 0.1).collect();
/// assert_eq!(steps.len(), 3);
/// assert!((steps[2] - 0.05).abs() < 1e-12);
/// ```
pub fn step_sizes(duration: f64, dt: f64) -> impl Iterator<Item = f64> {
    let (full, last) = split(duration, dt);
    (0..full).map(move |_| dt).chain(last)
}

/// The end times of the steps of [`step_sizes`]: `k·dt`, and `duration` for the last one (use with
/// [`System::step_to`](crate::System::step_to)).
///
/// ```
/// let times: Vec<f64> = bead::step_times(0.3, 0.1).collect();
/// assert_eq!(times, [0.1, 0.2, 0.3]);
/// ```
pub fn step_times(duration: f64, dt: f64) -> impl Iterator<Item = f64> {
    let n = step_count(duration, dt);
    (1..=n).map(move |k| if k == n { duration } else { k as f64 * dt })
}

/// Number of steps [`step_sizes`] yields.
pub fn step_count(duration: f64, dt: f64) -> u64 {
    let (full, last) = split(duration, dt);
    full + u64::from(last.is_some())
}

fn split(duration: f64, dt: f64) -> (u64, Option<f64>) {
    if !(dt > 0.0 && duration > 0.0 && dt.is_finite() && duration.is_finite()) {
        return (0, None);
    }
    let n = duration / dt;
    let whole = n.round();
    if (n - whole).abs() <= 1e-9 * whole.max(1.0) {
        return (whole as u64, None);
    }
    let full = n.floor();
    (full as u64, Some(duration - full * dt))
}
