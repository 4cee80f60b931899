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
/// `k·dt` is taken in decimal, as the user wrote `dt`, then rounded once to the nearest double:
/// step 1900 of `dt = 0.001` ends at 1.9, where the floating-point product is
/// 1.9000000000000001 (and would print so in every output file).
///
/// ```
/// let times: Vec<f64> = bead::step_times(0.3, 0.1).collect();
/// assert_eq!(times, [0.1, 0.2, 0.3]);
/// let t = bead::step_times(2.0, 0.001).nth(1899);
/// assert_eq!(t.map(|t| t.to_string()).as_deref(), Some("1.9"));
/// ```
pub fn step_times(duration: f64, dt: f64) -> impl Iterator<Item = f64> {
    let n = step_count(duration, dt);
    let dt_decimal = Decimal::of(dt);
    (1..=n).map(move |k| {
        if k == n {
            duration
        } else {
            dt_decimal.map_or(k as f64 * dt, |d| d.times(k))
        }
    })
}

/// A finite positive double as the shortest decimal that reads back as it: `digits × 10^exponent`.
#[derive(Clone, Copy)]
struct Decimal {
    digits: u128,
    exponent: i32,
}

impl Decimal {
    fn of(x: f64) -> Option<Decimal> {
        // `{:e}` is Rust's shortest round-trip form: "1e-3", "2.5e-4".
        let text = format!("{x:e}");
        let (mantissa, exponent) = text.split_once('e')?;
        let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let digits = format!("{whole}{fraction}").parse().ok()?;
        let exponent = exponent.parse::<i32>().ok()? - i32::try_from(fraction.len()).ok()?;
        Some(Decimal { digits, exponent })
    }

    /// `k` times this decimal, correctly rounded to a double (the product of at most 17 digits
    /// and a u64 fits in a u128).
    fn times(self, k: u64) -> f64 {
        let digits = self.digits.saturating_mul(u128::from(k));
        format!("{digits}e{}", self.exponent)
            .parse()
            .unwrap_or(f64::NAN)
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_times_are_the_decimal_multiples_of_dt() {
        for (dt, k, expected) in [
            (0.001, 1900, "1.9"),
            // 3 × 0.1 is 0.3 in decimal; the double product is 0.30000000000000004.
            (0.1, 3, "0.3"),
            (2.5e-4, 12_345, "3.08625"),
            (1.0 / 3.0, 3, "0.9999999999999999"),
            (0.01, 7, "0.07"),
        ] {
            let shown = Decimal::of(dt).map(|d| d.times(k).to_string());
            assert_eq!(shown.as_deref(), Some(expected), "{k} × {dt}");
        }
    }

    #[test]
    fn a_decimal_multiple_is_within_an_ulp_of_the_product() {
        for dt in [1e-3, 0.02, 1.0 / 3.0, 7.3e-5, 0.1] {
            let d = Decimal::of(dt).expect("finite");
            for k in [1, 17, 999, 123_456] {
                let (a, b) = (d.times(k), k as f64 * dt);
                assert!(
                    (a - b).abs() <= 2.0 * f64::EPSILON * b,
                    "{k} × {dt}: {a} vs {b}"
                );
            }
        }
    }
}
