//! How a Newton iteration whose contacts are solved as their own problem
//! ([`super::contact_lcp`]) judges its progress: one that came near its answer and then moved
//! steadily away has diverged, and one that circles without coming nearer takes damped steps.
//!
//! Each iteration there solves the contacts exactly on the step's linearization at the iterate.
//! Where that linearization changes faster than Newton's matrix describes (a capsule struck in a
//! frictional pile at 2 ms), the full steps can leave the answer they had nearly found, or
//! switch for ever between two sets of contact forces, each exact on the other's linearization.
//! A diverged iteration ends unconverged, and the step is taken again in halves
//! ([`super::halving`]); a circling one takes a share of each step along its line (Newton's
//! method damped, as a line search would): half brings a two-cycle to its middle.

use super::work::Work;

/// How near its tolerances (as their multiple) an iteration must have come, by how many times
/// its residual must have grown since, and for how many iterations without coming nearer, for
/// it to have diverged. A frictional pile's capsule, its contacts solved to 4e-12 and its
/// residual at 520 times the tolerance, then grew by 1.6 times an iteration; after 50
/// iterations the step "converged" to a turn of 3 rad in 1 ms (3000 rad/s, out of nothing).
/// A single jump is no divergence: dominoes' contacts, changing sets, jump by more than a
/// million times and settle.
const NEAR: f64 = 1e4;
const DIVERGED: f64 = 1e6;
const GROWING: usize = 20;

/// Iterations without coming nearer after which the Newton steps are damped.
const CIRCLING: usize = 8;

/// The share of a step a circling iteration takes, squared and cubed as it goes on circling.
const DAMPED: f64 = 0.5;

/// The least residual of one step's iteration so far, relative to its tolerances, and the
/// iterations since it last fell by a tenth.
#[derive(Clone, Copy, Debug)]
pub(super) struct Progress {
    best: f64,
    since_best: usize,
}

impl Default for Progress {
    fn default() -> Self {
        Progress {
            best: f64::INFINITY,
            since_best: 0,
        }
    }
}

impl Progress {
    /// Notes an iteration's residual, `relative` to its tolerances (1 is converged); returns
    /// whether the iteration has diverged (see [`NEAR`]).
    pub(super) fn observe(&mut self, relative: f64) -> bool {
        if relative < 0.9 * self.best {
            self.since_best = 0;
        } else {
            self.since_best += 1;
        }
        self.best = self.best.min(relative);
        self.best <= NEAR && self.since_best >= GROWING && relative > DIVERGED * self.best
    }

    /// The share of its Newton step the next iteration takes: whole; [`DAMPED`] once
    /// [`CIRCLING`] iterations have not brought it nearer, its square after three times as
    /// many, its cube after six (halving faster, to 1/16 within 32 iterations, failed a
    /// frictional box stack that these steps carry).
    pub(super) fn damping(&self) -> f64 {
        match self.since_best {
            k if k < CIRCLING => 1.0,
            k if k < 3 * CIRCLING => DAMPED,
            k if k < 6 * CIRCLING => DAMPED * DAMPED,
            _ => DAMPED * DAMPED * DAMPED,
        }
    }
}

/// Takes back all but `alpha` of the Newton step just taken from `(q, before)` (`before` the
/// multipliers then), along the line to where the whole step went.
pub(super) fn damp(w: &mut Work, q: &mut [f64], (before, alpha): (&[f64], f64), h2: f64) {
    for (qi, dq) in q.iter_mut().zip(&w.dq) {
        *qi -= (1.0 - alpha) * dq;
    }
    for ((mu, b), l) in w.mu.iter_mut().zip(before).zip(w.lambda.iter_mut()) {
        *mu = b + alpha * (*mu - b);
        *l = *mu / h2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Steady growth after coming near is divergence; a jump that then falls is not, nor is
    /// growth far from the answer.
    #[test]
    fn divergence_is_steady_growth_after_coming_near() {
        let mut p = Progress::default();
        let mut relative = 500.0;
        let diverged = (0..60).any(|_| {
            relative *= 1.6;
            p.observe(relative)
        });
        assert!(diverged);
        let mut p = Progress::default();
        assert!(!p.observe(100.0) && !p.observe(1e9) && !p.observe(50.0));
        let mut p = Progress::default();
        let far = (0..60).any(|k| p.observe(1e5 * 1.6_f64.powi(k)));
        assert!(!far, "never near, so never diverged");
    }

    /// Circling without coming nearer damps the steps; coming nearer takes them whole again.
    #[test]
    fn circling_damps_and_progress_undamps() {
        let mut p = Progress::default();
        p.observe(10.0);
        for _ in 0..CIRCLING {
            assert_eq!(p.damping(), 1.0);
            p.observe(20.0);
        }
        assert_eq!(p.damping(), DAMPED);
        p.observe(1.0);
        assert_eq!(p.damping(), 1.0);
    }
}
