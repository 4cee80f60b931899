//! Where the implicit steppers' Newton iteration starts: the constraint accelerations
//! `W Jᵀλ` and the multipliers `λ` of the last steps, extrapolated to the end of this one.
//!
//! The Newton solve ([`super::newton`]) finds `q = q̃ + ĥ² W Jᵀλ`; only `q̃` is known
//! before it. Starting from `q̃` plus the last step's constraint acceleration leaves an error
//! of `ĥ²` times that acceleration's change over a step, `O(h³)`; on a swinging 1,000-link chain
//! that is 1e-8 m, a hundred times the tolerance, so most steps paid two chord iterations.
//! A polynomial through the last `k` steps' accelerations leaves `O(h^(k+2))`: a line or a
//! quadratic starts a smooth motion within a few times the tolerance, and on a falling cloth,
//! whose accelerations change faster, a cubic or a quartic does better still (the viewer's
//! curtain took 3.58 evaluations a step with at most a quadratic over its first 2,000 steps,
//! 3.01 with up to a quartic).
//!
//! Which polynomial depends on the motion: a higher degree follows a whipping cloth better but
//! amplifies the small step-to-step noise of a chain's damped fast modes (a quadratic weighs the
//! last three values by 3, −3, 1, a quartic the last five by 5, −10, 10, −5, 1). So each step
//! judges the degrees on the step just ended — how far each would have been from where that
//! step actually ended — and the next step uses the best, a higher degree only where it was
//! clearly better ([`HIGHER_DEGREE_GAIN`]). The start changes only the cost: the
//! iteration still runs until the residuals are within the tolerance, so an abrupt change (an
//! impact, a grab) costs the iterations that a worse start costs, and nothing else.
//!
//! Multipliers are extrapolated only on rows without bounds: an inequality's or a bounded
//! row's `λ` switches on and off rather than moving smoothly, so it starts from its last value,
//! and the active-set iteration takes it from there.

/// The most points a polynomial goes through: a quartic in time.
const MOST_POINTS: usize = 5;
/// Steps kept: enough to judge the quartic on the newest.
const DEPTH: usize = MOST_POINTS + 1;
/// How many times better than every lower degree a higher one must have predicted the step just
/// ended to be taken for the next: it amplifies noise more (a quartic weighs five values by up
/// to 10), and one step's judgement is noisy. With the best degree taken outright, a swinging
/// chain of 10⁵ links took 2.80 evaluations a step; with this, 2.56, and the curtain 3.01
/// instead of 2.86.
const HIGHER_DEGREE_GAIN: f64 = 4.0;

/// `WEIGHTS[k − 1][..k]`: the polynomial through `k` equally spaced values, newest first, at
/// the next point, `Σ_j (−1)ʲ C(k, j + 1) x_j`: `x₀`, `2x₀ − x₁`, `3x₀ − 3x₁ + x₂`, ….
const WEIGHTS: [[f64; MOST_POINTS]; MOST_POINTS] = [
    [1.0, 0.0, 0.0, 0.0, 0.0],
    [2.0, -1.0, 0.0, 0.0, 0.0],
    [3.0, -3.0, 1.0, 0.0, 0.0],
    [4.0, -6.0, 4.0, -1.0, 0.0],
    [5.0, -10.0, 10.0, -5.0, 1.0],
];

/// The end of each of the last steps, newest first.
#[derive(Clone, Debug, Default)]
pub(super) struct WarmStart {
    /// `W Jᵀλ` at the end of each step, `(q − q̃)/ĥ²`.
    accelerations: Vec<Vec<f64>>,
    /// `λ` at the end of each step.
    multipliers: Vec<Vec<f64>>,
    /// The end time of each step.
    times: Vec<f64>,
    /// How many of the newest steps the next step's polynomial goes through (1 to 5).
    points: usize,
    /// The state the newest step ended at: the next one must start there to continue it.
    end_q: Vec<f64>,
    end_v: Vec<f64>,
}

impl WarmStart {
    /// Whether a step from `(q, v)` continues the newest recorded one (starts where it ended).
    pub(super) fn continues(&self, q: &[f64], v: &[f64]) -> bool {
        !self.end_q.is_empty() && self.end_q.as_slice() == q && self.end_v.as_slice() == v
    }

    /// How many of the newest recorded steps a step from `(q, v)` ending at `t_end`
    /// extrapolates from: 0 unless it continues them; at most the consecutive, equally spaced
    /// ones, and the number the last judgement chose.
    pub(super) fn usable(&self, q: &[f64], v: &[f64], t_end: f64) -> usize {
        if self.times.is_empty() || !self.continues(q, v) {
            return 0;
        }
        self.spaced(t_end - self.times[0], q.len()).min(self.points)
    }

    /// How many of the newest steps are spaced by `h` in time (the newest counts as one) and
    /// have `n` coordinates.
    fn spaced(&self, h: f64, n: usize) -> usize {
        let spaced = |a: f64, b: f64| ((a - b) - h).abs() <= 1e-9 * h.abs();
        let mut count = 1;
        while count < self.times.len()
            && spaced(self.times[count - 1], self.times[count])
            && self.accelerations[count].len() == n
        {
            count += 1;
        }
        count
    }

    /// Writes the constraint acceleration `W Jᵀλ` extrapolated from the newest `usable`
    /// steps ([`WarmStart::usable`], at least 1) into `out`.
    pub(super) fn acceleration(&self, usable: usize, out: &mut [f64]) {
        extrapolate_into(&self.accelerations[..usable], out, |_| true);
    }

    /// Overwrites the multipliers of the rows marked `smooth` in `lambda` (the model's last
    /// multipliers, in its current rows) with their extrapolation from the newest `usable`
    /// steps, when the newest step ended with exactly these multipliers, so that its rows are
    /// these.
    pub(super) fn multipliers(
        &self,
        mut usable: usize,
        smooth: impl Fn(usize) -> bool,
        lambda: &mut [f64],
    ) {
        if usable < 2 || self.multipliers[0].as_slice() != &*lambda {
            return;
        }
        while self.multipliers[usable - 1].len() != lambda.len() {
            usable -= 1;
        }
        extrapolate_into(&self.multipliers[..usable], lambda, smooth);
    }

    /// Records the end of a step: its time, state, prediction `q̃`, velocity scale `ĥ`, and
    /// multipliers; `continued` says whether the step started where the newest recorded one
    /// ended (else the older ones are forgotten: they belong to another motion).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn record(
        &mut self,
        continued: bool,
        t_end: f64,
        q: &[f64],
        v: &[f64],
        predicted: &[f64],
        hv: f64,
        lambda: &[f64],
    ) {
        if !continued {
            self.forget();
        }
        let (mut a, mut l) = if self.times.len() == DEPTH {
            // Reuse the oldest entry's buffers for the newest.
            self.times.pop();
            (
                self.accelerations.pop().unwrap_or_default(),
                self.multipliers.pop().unwrap_or_default(),
            )
        } else {
            (Vec::new(), Vec::new())
        };
        a.clear();
        a.extend(q.iter().zip(predicted).map(|(q, p)| (q - p) / (hv * hv)));
        l.clear();
        l.extend_from_slice(lambda);
        self.times.insert(0, t_end);
        self.accelerations.insert(0, a);
        self.multipliers.insert(0, l);
        self.points = self.judge();
        self.set_end(q, v);
    }

    /// The number of points whose polynomial, through the steps before the newest, came
    /// closest to the newest's acceleration, a higher degree only by [`HIGHER_DEGREE_GAIN`] (1
    /// when there is nothing to judge by).
    fn judge(&self) -> usize {
        if self.times.len() < 2 {
            return 1;
        }
        let newest = &self.accelerations[0];
        let available = self.spaced(self.times[0] - self.times[1], newest.len()) - 1;
        // The candidates' largest errors (a missing older value reads as 0: its candidate is
        // not chosen).
        let older = |k: usize| self.accelerations.get(1 + k).filter(|_| k < available);
        let (a, b, c, dd, ee) = (older(0), older(1), older(2), older(3), older(4));
        // Two coordinates abreast, and a plain comparison (the values are finite): five
        // running maxima, each waiting on itself, were a tenth of a chain's step.
        let mut lanes = [[0.0_f64; MOST_POINTS]; 2];
        for (i, x) in newest.iter().enumerate() {
            let at = |v: Option<&Vec<f64>>| v.map_or(0.0, |v| v[i]);
            let past = [at(a), at(b), at(c), at(dd), at(ee)];
            for (k, m) in lanes[i % 2].iter_mut().enumerate() {
                let error = (polynomial(&WEIGHTS[k], &past, k + 1) - x).abs();
                if error > *m {
                    *m = error;
                }
            }
        }
        let errors: [f64; MOST_POINTS] = std::array::from_fn(|k| lanes[0][k].max(lanes[1][k]));
        let mut best = (1, f64::INFINITY);
        for (points, error) in errors.iter().enumerate().take(available.min(MOST_POINTS)) {
            if *error * HIGHER_DEGREE_GAIN < best.1 {
                best = (points + 1, *error);
            }
        }
        best.0
    }

    /// Records the end `(q, v)` of a step with nothing to extrapolate (a plain ODE's): the next
    /// step continues it, but starts from its prediction alone.
    pub(super) fn record_end(&mut self, q: &[f64], v: &[f64]) {
        self.forget();
        self.set_end(q, v);
    }

    /// The newest step's end was moved to `(q, v)` (projected onto the constraints): the next
    /// step continues it from there, with the history kept. Only an end that was recorded moves.
    pub(super) fn moved_end(&mut self, q: &[f64], v: &[f64]) {
        if self.end_q.len() == q.len() && self.end_v.len() == v.len() {
            self.set_end(q, v);
        }
    }

    fn forget(&mut self) {
        self.times.clear();
        self.accelerations.clear();
        self.multipliers.clear();
        self.points = 1;
    }

    fn set_end(&mut self, q: &[f64], v: &[f64]) {
        self.end_q.clear();
        self.end_q.extend_from_slice(q);
        self.end_v.clear();
        self.end_v.extend_from_slice(v);
    }
}

/// For each entry `i` of `out` that `keep` marks, the polynomial through `past[..][i]` (at most
/// [`MOST_POINTS`] values, newest first) at the next point (see [`WEIGHTS`]).
fn extrapolate_into(past: &[Vec<f64>], out: &mut [f64], keep: impl Fn(usize) -> bool) {
    // One loop per degree, whose weights are then constants.
    fn through<const K: usize>(
        past: [&Vec<f64>; K],
        out: &mut [f64],
        keep: impl Fn(usize) -> bool,
    ) {
        let values = |i: usize| std::array::from_fn(|k| if k < K { past[k][i] } else { 0.0 });
        for (i, o) in out.iter_mut().enumerate() {
            if keep(i) {
                *o = polynomial(&WEIGHTS[K - 1], &values(i), K);
            }
        }
    }
    match past {
        [] => {}
        [a] => through([a], out, keep),
        [a, b] => through([a, b], out, keep),
        [a, b, c] => through([a, b, c], out, keep),
        [a, b, c, d] => through([a, b, c, d], out, keep),
        [a, b, c, d, e, ..] => through([a, b, c, d, e], out, keep),
    }
}

/// `Σ_{j < k} weights_j x_j`, summed newest first.
#[inline(always)]
fn polynomial(weights: &[f64; MOST_POINTS], past: &[f64; MOST_POINTS], k: usize) -> f64 {
    let mut sum = weights[0] * past[0];
    for j in 1..k {
        sum += weights[j] * past[j];
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records `steps` steps of size `h` of a motion whose constraint acceleration (and
    /// multiplier) is `f(k, t)` on one coordinate at its `k`th step.
    fn run(f: impl Fn(usize, f64) -> f64, steps: usize, h: f64) -> WarmStart {
        let mut w = WarmStart::default();
        for k in 1..=steps {
            let t = k as f64 * h;
            // q − q̃ = ĥ² a, with ĥ = h and q̃ = 0.
            let q = [h * h * f(k, t)];
            w.record(k > 1, t, &q, &[0.0], &[0.0], h, &[f(k, t)]);
        }
        w
    }

    #[test]
    fn a_quartic_acceleration_is_extrapolated_exactly() {
        let h = 0.1;
        let f = |_, t: f64| 1.0 + 2.0 * t - 3.0 * t * t + t.powi(3) - 0.5 * t.powi(4);
        let w = run(f, 7, h);
        let q = [h * h * f(7, 7.0 * h)];
        let usable = w.usable(&q, &[0.0], 0.8);
        assert_eq!(usable, 5);
        let mut a = [0.0];
        w.acceleration(usable, &mut a);
        assert!(
            (a[0] - f(8, 0.8)).abs() < 1e-12,
            "{} against {}",
            a[0],
            f(8, 0.8)
        );
        let mut lambda = [f(7, 7.0 * h)];
        w.multipliers(usable, |_| true, &mut lambda);
        assert!((lambda[0] - f(8, 0.8)).abs() < 1e-12);
    }

    #[test]
    fn the_error_of_a_smooth_motion_falls_as_h_to_the_points() {
        // sin t through k points: the error is h^k times the k-th derivative (the next term),
        // so halving h divides it by 2^k: 8 through the three points four steps give, 32
        // through the five that six steps give.
        let error = |h: f64, steps: usize| {
            let w = run(|_, t| t.sin(), steps, h);
            let t = steps as f64 * h;
            let q = [h * h * t.sin()];
            let mut a = [0.0];
            w.acceleration(w.usable(&q, &[0.0], t + h), &mut a);
            (a[0] - (t + h).sin()).abs()
        };
        for (steps, expected) in [(4, 8.0), (6, 32.0)] {
            let ratio = error(0.02, steps) / error(0.01, steps);
            assert!(
                (ratio / expected - 1.0).abs() < 0.1,
                "{steps} steps: ratio {ratio}, expected {expected}"
            );
        }
    }

    #[test]
    fn a_noisy_motion_starts_from_its_last_value() {
        // A value that alternates by ±ε: the last value is 2ε off, a line 4ε, a quadratic 8ε,
        // a quartic 32ε.
        let h = 0.01;
        let noisy = |k: usize, _| 1.0 + if k.is_multiple_of(2) { 1e-6 } else { -1e-6 };
        let w = run(noisy, 8, h);
        let q = [h * h * noisy(8, 0.0)];
        assert_eq!(w.usable(&q, &[0.0], 9.0 * h), 1);
    }

    #[test]
    fn a_step_that_does_not_continue_or_changes_its_size_extrapolates_less() {
        let h = 0.1;
        let w = run(|_, t| t * t, 4, h);
        let last = (4.0 * h) * (4.0 * h);
        let q = [h * h * last];
        // Another start: nothing to extrapolate from.
        assert_eq!(w.usable(&[1.0], &[0.0], 0.5), 0);
        // Another step size: the newest value alone.
        let usable = w.usable(&q, &[0.0], 0.45);
        assert_eq!(usable, 1);
        let mut a = [7.0];
        w.acceleration(usable, &mut a);
        assert!((a[0] - last).abs() < 1e-12);
        let usable = w.usable(&q, &[0.0], 0.5);
        assert_eq!(usable, 3);
        // Rows that are not these: multipliers stay as given.
        let mut lambda = [0.5];
        w.multipliers(usable, |_| true, &mut lambda);
        assert_eq!(lambda[0], 0.5);
        // Rows that are not smooth keep their last value.
        let mut lambda = [last];
        w.multipliers(usable, |_| false, &mut lambda);
        assert_eq!(lambda[0], last);
        // Smooth rows extrapolate: t² at 0.5.
        w.multipliers(usable, |_| true, &mut lambda);
        assert!((lambda[0] - 0.25).abs() < 1e-12);
    }

    #[test]
    fn a_step_from_elsewhere_forgets_the_steps_before_it() {
        let h = 0.1;
        let mut w = run(|_, t| t * t, 4, h);
        // The user moved the point: the next step did not continue; its successor extrapolates
        // from that step alone.
        w.record(false, 0.5, &[3.0], &[0.0], &[0.0], h, &[1.0]);
        assert_eq!(w.usable(&[3.0], &[0.0], 0.6), 1);
    }
}
