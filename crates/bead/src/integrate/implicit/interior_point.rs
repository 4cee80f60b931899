//! The primal-dual interior-point iteration for contacts (Mehrotra's predictor-corrector), which
//! a step goes over to when the semismooth active set cycles on packed, redundant contacts.
//!
//! Each contact `g(q) ≥ 0` gets a slack `s > 0` with `g(q) = s` and `s μ = σ̂/(J W Jᵀ)_rr`, the
//! barrier `σ̂` falling to zero. Eliminating `Δs` from the linearized complementarity
//! `s Δμ + μ Δs = −s μ` leaves the contact a held row with the compliance `s/μ` in the same KKT
//! matrix ([`Role::Compliant`]), so each iteration is one factorization and two solves: the
//! predictor with no barrier tells how far the complementarity can fall, the barrier is set
//! from it, and the corrector solves again with the second-order term `Δs Δμ`. Steps keep every
//! slack and contact multiplier positive (a fraction [`TO_BOUNDARY`] of the way to the
//! boundary), and each contact's complementarity stays within [`CENTRAL`] of the mean.

use super::work::Work;
use crate::integrate::ConstrainedModel;
use crate::solve::Role;

/// Whether row `r` is a contact the interior-point iteration solves: an inequality without an
/// upper bound.
pub(super) fn interior_row(model: &dyn ConstrainedModel, r: usize) -> bool {
    model.inequality_rows()[r] && model.multiplier_bounds()[r].1 == f64::INFINITY
}

/// The smallest slack and multiplier (as the displacement `μ (J W Jᵀ)_rr` it makes, in metres)
/// the interior-point iteration starts from.
const INTERIOR_START: f64 = 1e-6;
/// The fraction of the deepest penetration below which no slack or contact force starts (see
/// [`start_interior`]): of 0.003, 0.01, 0.03, 0.1 and 1, 0.03 took the fewest iterations on the
/// 500-ball pile's landing.
const START_SHIFT: f64 = 0.03;
/// The contacts' compliance under the interior-point iteration, relative to `(J W Jᵀ)_rr`.
pub(super) const CONTACT_COMPLIANCE: f64 = 1e-8;
/// Iterations after which a step whose contacts still change their roles goes over to the
/// interior-point iteration.
pub(super) const INTERIOR_AFTER: usize = 8;
/// While steps need the interior-point iteration, one in this many tries the active set first.
pub(super) const RETRY_ACTIVE_SET: usize = 10;
/// The fraction of the way to the boundary an interior-point step may go.
const TO_BOUNDARY: f64 = 0.995;

/// Starts the interior-point iteration: each contact's slack at its gap and its multiplier at
/// the last one, or at the push that would close it where it penetrates, both at least
/// [`INTERIOR_START`] and at least [`START_SHIFT`] of the deepest penetration.
///
/// The second floor is Mehrotra's starting point heuristic: the iterate starts as far inside
/// the barrier's domain as the iteration has to travel. A slack of 1e-6 m beside contacts that
/// must open by 5 cm (a landing pile's prediction) keeps every step to the boundary's
/// fraction of that: the 500-ball pile's landing steps took 28 iterations of step lengths from
/// 4e-10 to 0.04 before the first long one, and 45 iterations a step in all; 30 from here.
pub(super) fn start_interior(model: &dyn ConstrainedModel, w: &mut Work) {
    let m = w.mu.len();
    mark_contacts(model, w);
    w.slack.clear();
    w.slack.resize(m, 0.0);
    let deepest = (0..m)
        .filter(|&r| w.contact[r])
        .fold(0.0_f64, |d, r| d.max(-w.residual[r]));
    let start = INTERIOR_START.max(START_SHIFT * deepest);
    for r in 0..m {
        if w.contact[r] {
            // A contact that penetrates needs about the push that closes it.
            let g = w.residual[r];
            w.slack[r] = g.max(start);
            w.mu[r] = w.mu[r].max((-g).max(start) / w.mass[r]);
        }
    }
}

/// Marks the rows the interior-point iteration solves as contacts in `w.contact`: its
/// inequalities without an upper bound that something can move.
pub(super) fn mark_contacts(model: &dyn ConstrainedModel, w: &mut Work) {
    let m = w.mu.len();
    w.contact.clear();
    w.contact
        .extend((0..m).map(|r| compliant_contact(model, &w.mass, r).is_some()));
}

/// Row `r`'s compliance as a contact, [`CONTACT_COMPLIANCE`] times its `(J W Jᵀ)_rr` (`mass`),
/// if it is one of the rows the interior-point iteration solves; `None` otherwise.
/// The active set and the contacts' own problem give their contacts the same, once a step
/// needed it (see `Work::contact_compliance`).
pub(super) fn compliant_contact(
    model: &dyn ConstrainedModel,
    mass: &[f64],
    r: usize,
) -> Option<f64> {
    (mass[r] > 0.0 && interior_row(model, r)).then(|| CONTACT_COMPLIANCE * mass[r])
}

/// Sets the contacts' roles and rows for the predictor step: each holds
/// `J Δq + (s/μ) Δμ = −g`, the linearized `g(q) = s` with `Δs` eliminated from the linearized
/// complementarity `s Δμ + μ Δs = −s μ`. Returns the mean complementarity (in m², as
/// `s μ (J W Jᵀ)_rr`).
pub(super) fn barrier_rows(w: &mut Work) -> f64 {
    for r in 0..w.mu.len() {
        if w.contact[r] {
            w.roles[r] = Role::Compliant(w.slack[r] / w.mu[r] + CONTACT_COMPLIANCE * w.mass[r]);
            w.rows[r] = w.residual[r];
        }
    }
    mean_complementarity(w, None)
}

/// The contacts' mean `s μ (J W Jᵀ)_rr` (m²), at the iterate or, given `α`, after a step of
/// that length along `(Δs, Δμ)`.
fn mean_complementarity(w: &Work, alpha: Option<f64>) -> f64 {
    let (mut sum, mut count) = (0.0, 0usize);
    for r in 0..w.mu.len() {
        if w.contact[r] {
            let (s, mu) = match alpha {
                Some(a) => (w.slack[r] + a * w.dslack[r], w.mu[r] + a * w.dmu[r]),
                None => (w.slack[r], w.mu[r]),
            };
            sum += s * mu * w.mass[r];
            count += 1;
        }
    }
    sum / count.max(1) as f64
}

/// The largest step `≤ 1` along `(Δs, Δμ)` that keeps every slack and contact multiplier
/// positive, going `fraction` of the way to the boundary.
fn to_boundary(w: &Work, fraction: f64) -> f64 {
    let mut alpha = 1.0_f64;
    for r in 0..w.mu.len() {
        if w.contact[r] {
            let (ds, dmu) = (w.dslack[r], w.dmu[r]);
            if dmu < 0.0 {
                alpha = alpha.min(-fraction * w.mu[r] / dmu);
            }
            if ds < 0.0 {
                alpha = alpha.min(-fraction * w.slack[r] / ds);
            }
        }
    }
    alpha
}

/// From the predictor step in `w.dmu`: the barrier `σ̂ = σ · mean(s μ)` with Mehrotra's
/// `σ = (mean complementarity after the predictor step / before)³`, and the corrector's rows
/// `g − (σ̂/(J W Jᵀ)_rr − Δs Δμ)/μ`. Leaves the predictor's `Δs Δμ` in `w.dslack`.
pub(super) fn centering(w: &mut Work, complementarity: f64, tolerance: f64) -> f64 {
    let m = w.mu.len();
    w.dslack.clear();
    w.dslack.resize(m, 0.0);
    for r in 0..m {
        if w.contact[r] {
            w.dslack[r] = -w.slack[r] - w.slack[r] / w.mu[r] * w.dmu[r];
        }
    }
    let predicted = mean_complementarity(w, Some(to_boundary(w, 1.0)));
    let sigma = if complementarity > 0.0 {
        (predicted / complementarity).clamp(0.0, 1.0).powi(3)
    } else {
        0.0
    };
    let barrier = (sigma * complementarity).max(barrier_floor(tolerance));
    for r in 0..m {
        if w.contact[r] {
            w.dslack[r] *= w.dmu[r];
            w.rows[r] = w.residual[r] - (barrier / w.mass[r] - w.dslack[r]) / w.mu[r];
        }
    }
    barrier
}

/// The slacks' step for the corrector step in `w.dmu` and the step length that keeps every
/// slack and contact multiplier positive; moves the slacks by it and returns it.
pub(super) fn interior_step(w: &mut Work, barrier: f64) -> f64 {
    let m = w.mu.len();
    for r in 0..m {
        if w.contact[r] {
            let (s, mu, dmu) = (w.slack[r], w.mu[r], w.dmu[r]);
            w.dslack[r] = (barrier / w.mass[r] - w.dslack[r]) / mu - s - s / mu * dmu;
        }
    }
    let alpha = to_boundary(w, TO_BOUNDARY);
    for (s, ds) in w.slack.iter_mut().zip(&w.dslack) {
        *s += alpha * ds;
    }
    alpha
}

/// Keeps each contact's complementarity within a factor [`CENTRAL`] of the mean (as IPOPT
/// bounds its multipliers): a contact far below it, left behind by a step that went most of the
/// way to the boundary, would otherwise ask the next centering for a step that overflows.
pub(super) fn recenter(w: &mut Work, h2: f64, tolerance: f64) {
    let mean = mean_complementarity(w, None).max(barrier_floor(tolerance));
    for r in 0..w.mu.len() {
        if w.contact[r] && w.slack[r] > 0.0 && mean > 0.0 {
            let (lo, hi) = (mean / CENTRAL / w.slack[r], CENTRAL * mean / w.slack[r]);
            w.mu[r] = (w.mu[r] * w.mass[r]).clamp(lo, hi) / w.mass[r];
            w.lambda[r] = w.mu[r] / h2;
        }
    }
}

/// The smallest barrier (m²): `s μ (J W Jᵀ)_rr` a hundredth of the tolerance squared leaves
/// every contact within the tolerance of complementarity, and a barrier that fell further would
/// only drive multipliers of contacts apart towards underflow, and their compliance `s/μ` past
/// what a factorization can hold.
pub(super) fn barrier_floor(tolerance: f64) -> f64 {
    (1e-2 * tolerance).powi(2)
}

/// How far (as a factor) a contact's complementarity may stray from the mean.
const CENTRAL: f64 = 1e10;
