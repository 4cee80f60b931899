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
//!
//! A friction row in 2D lies in the box `−μ_f μ_n ≤ μ_t ≤ μ_f μ_n` (Coulomb's cone), and its
//! slip `r` (the displacement of the step's tangential velocity) is `a − b`, `a ≥ 0` at the lower
//! edge and `b ≥ 0` at the upper: `a (μ_t + μ_f μ_n) = σ̂/(J W Jᵀ)_rr` and
//! `b (μ_f μ_n − μ_t) = σ̂/(J W Jᵀ)_rr`. A sticking row ends with both slips nil, a sliding one
//! with its force at the edge its slip pushes against (maximal dissipation), exactly the
//! conditions the active set and the contacts' own problem solve. Eliminating `Δa`, `Δb` leaves
//! the row compliant again, `c = a/y_l + b/y_u` with `y` the force's distances from the edges;
//! the edges follow the normal force, which couples the row to its normal's multiplier, the one
//! term the symmetric KKT matrix cannot hold ([`super::cone_coupling`] solves the step with it).
//! Steps keep the force inside its moving cone, and a cone too small to matter (a contact
//! letting go) leaves its row at no friction. The barrier is the problem's tolerance apart from
//! Coulomb's law only by the tolerance itself; a pile's frictional landing takes 20 to 40
//! iterations a step where solving its bounded rows' dense problem ([`super::contact_lcp`])
//! took seconds.

use super::work::Work;
use crate::integrate::ConstrainedModel;
use crate::solve::Role;

/// Whether row `r` is a contact the interior-point iteration solves: an inequality without an
/// upper bound (its friction, if any, follows it: [`mark_contacts`]).
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
/// While steps need the interior-point iteration, one in this many tries the active set first
/// (twice as many after each retry that fails, up to [`RETRY_DOUBLINGS`] times).
pub(super) const RETRY_ACTIVE_SET: usize = 10;
/// The most times the steps between retries of the active set double: a resting pyramid's
/// redundant corners fail every retry (eight iterations of roles that cycle, then the barrier
/// again), and at one in ten steps those retries were a quarter of its run's time.
const RETRY_DOUBLINGS: u32 = 5;

/// The steps in the interior-point iteration between retries of the active set, after
/// `failed` retries in a row failed: [`RETRY_ACTIVE_SET`], doubled for each.
fn retry_interval(failed: u32) -> usize {
    RETRY_ACTIVE_SET << failed.min(RETRY_DOUBLINGS)
}

/// Whether the step about to begin, after steps in the interior-point iteration, tries the
/// active set again ([`retry_interval`] of them since the last retry).
pub(super) fn retry_due(w: &Work) -> bool {
    w.interior_steps > 0
        && w.interior_steps
            .is_multiple_of(retry_interval(w.failed_retries))
}

#[cfg(test)]
thread_local! {
    /// Whether a test's retries of the active set back off (see [`count_interior_steps`]).
    static RETRY_BACKOFF: std::cell::Cell<bool> = const { std::cell::Cell::new(true) };
}

/// Counts, as a step ends, the steps in a row in the interior-point iteration and the retries
/// of the active set that failed in a row. A retry that needed no iteration, its warm start
/// within the tolerance already, says nothing of whether the active set would settle: the
/// interior-point iteration goes on, the retries as far apart. (A resting pyramid's active set
/// met most steps so, and each that it did not cost eight iterations of roles that cycle.)
pub(super) fn count_interior_steps(w: &mut Work) {
    let untested = w.retrying && !w.interior && w.iterations == 0;
    #[cfg(test)]
    if !RETRY_BACKOFF.with(std::cell::Cell::get) {
        w.interior_steps = if w.interior { w.interior_steps + 1 } else { 0 };
        return;
    }
    w.interior_steps = match (w.interior || untested, w.retrying) {
        (false, _) => 0,
        (true, false) => w.interior_steps + 1,
        // A retry that failed: the count starts again, to a later retry.
        (true, true) => 1,
    };
    w.failed_retries = match (w.interior, w.retrying) {
        (false, _) if untested => w.failed_retries,
        (false, _) => 0,
        (true, retrying) => w.failed_retries + u32::from(retrying),
    };
}
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
///
/// Given the step's tolerance (`hot`), it starts hot instead: [`hot_start`].
pub(super) fn start_interior(model: &dyn ConstrainedModel, w: &mut Work, hot: Option<f64>) {
    let m = w.mu.len();
    mark_contacts(model, w);
    for slacks in [&mut w.slack, &mut w.slack_up] {
        slacks.clear();
        slacks.resize(m, 0.0);
    }
    if let Some(tolerance) = hot {
        hot_start(w, tolerance);
        return;
    }
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
    // Halfway inside the cone at most, whatever the last step's friction was: a force at the
    // edge would start on the barrier's boundary.
    start_cones(w, CONE_START, |_, _, _| (start, start));
}

/// Starts each friction row: its force within `within` of its cone, its slips `(a, b)` at
/// least the floors `floors(y_lower, y_upper, (J W Jᵀ)_rr)` gives from the force's distances to
/// the edges, and the row solved by the barrier from here (the active set may have left it
/// fixed).
fn start_cones(w: &mut Work, within: f64, floors: impl Fn(f64, f64, f64) -> (f64, f64)) {
    for r in 0..w.mu.len() {
        if let Some((n, f)) = w.cone[r] {
            let edge = f * w.mu[n];
            w.mu[r] = w.mu[r].clamp(-within * edge, within * edge);
            let (lower, upper) = cone_gaps(w, r, (n, f), 0.0);
            let (floor_lower, floor_upper) = floors(lower, upper, w.mass[r]);
            let slip = w.residual[r];
            w.slack[r] = slip.max(floor_lower);
            w.slack_up[r] = (-slip).max(floor_upper);
            w.roles[r] = Role::Compliant(0.0);
        }
    }
}

/// How near (as a multiple of the step's tolerances) a step's warm start must be to the answer
/// for the interior-point iteration to start from it hot ([`hot_start`]).
pub(super) const HOT_START: f64 = 100.0;
/// Iterations after which a hot start that has not found its answer starts again cold: a
/// safeguard, which no step of a 20-row pyramid's 60 s reached (most take 1 to 3).
pub(super) const HOT_ITERATIONS: usize = 20;
/// The step length below which a hot start counts as blocked and starts again cold.
pub(super) const HOT_BLOCKED: f64 = 0.1;

/// Starts the interior-point iteration (its slacks zeroed) from a warm start within
/// [`HOT_START`] tolerances of the answer (a resting pyramid's next step): every force and slip
/// kept, and each slack where the barrier `(HOT_START · tolerance)²`, the square of that
/// distance, puts it beside its row's force, or at the row's own gap or slip if larger.
///
/// The cold start (every slack at least 1e-6 m, each friction force within half its cone)
/// throws such a warm start away: the 20-row pyramid's steps in the barrier took 7 iterations
/// each to find their answer again, and most take 1 to 3 from here. A barrier started lower,
/// at the tolerance squared, took more (8 to 17): its rows' compliance so small that the
/// first step moved the redundant contacts' forces far from the warm start. A friction force
/// the warm start left at its cone's edge with no slip can block the steps (a step shorter
/// than [`HOT_BLOCKED`]): the Newton iteration then starts the step again, cold.
fn hot_start(w: &mut Work, tolerance: f64) {
    let m = w.mu.len();
    let barrier = (HOT_START * tolerance).powi(2);
    // The slack that puts a row with the distance `y` from its bound on the barrier's path
    // (the tolerance for a row at its bound, which the step must move anyway).
    let central = |y: f64, mass: f64| {
        if y * mass > 0.0 {
            barrier / (y * mass)
        } else {
            tolerance
        }
    };
    for r in 0..m {
        if w.contact[r] {
            w.slack[r] = w.residual[r].max(central(w.mu[r], w.mass[r]));
            w.mu[r] = w.mu[r].max(central(w.slack[r], w.mass[r]));
        }
    }
    // Strictly inside the cone, as every iterate is.
    start_cones(w, TO_BOUNDARY, |lower, upper, mass| {
        (central(lower, mass), central(upper, mass))
    });
}

/// The fraction of its cone a friction row's force starts within (see [`start_interior`]).
const CONE_START: f64 = 0.5;

/// Marks the rows the interior-point iteration solves as contacts in `w.contact`: its
/// inequalities without an upper bound that something can move; and in `w.cone` the friction
/// rows of those contacts.
pub(super) fn mark_contacts(model: &dyn ConstrainedModel, w: &mut Work) {
    let m = w.mu.len();
    w.contact.clear();
    w.contact
        .extend((0..m).map(|r| compliant_contact(model, &w.mass, r).is_some()));
    let friction = model.friction_rows();
    w.cone.clear();
    w.cone.extend((0..m).map(|r| {
        friction
            .get(r)
            .copied()
            .flatten()
            .filter(|&(n, _)| w.contact[n] && w.mass[r] > 0.0)
    }));
}

/// Friction row `r`'s cone, if the interior-point iteration solves it now (it is not waiting
/// in a cone too small to matter: see [`barrier_rows`]).
pub(super) fn live_cone(w: &Work, r: usize) -> Option<(usize, f64)> {
    w.cone[r].filter(|_| !matches!(w.roles[r], Role::Fixed(_)))
}

/// Whether row `r` is one the interior-point iteration solves, a contact or its friction (as
/// [`mark_contacts`] marked them).
pub(super) fn barrier_row(w: &Work, r: usize) -> bool {
    w.contact[r] || w.cone[r].is_some()
}

/// A friction row's distances from its cone's edges, `(μ_t + μ_f μ_n, μ_f μ_n − μ_t)`, after a
/// step of `alpha` along `Δμ` (both multipliers move).
pub(super) fn cone_gaps(w: &Work, r: usize, (n, f): (usize, f64), alpha: f64) -> (f64, f64) {
    let t = w.mu[r] + alpha * w.dmu[r];
    let edge = f * (w.mu[n] + alpha * w.dmu[n]);
    (t + edge, edge - t)
}

/// How fast a friction row's distances from its cone's edges change along `Δμ`:
/// `(Δμ_t + μ_f Δμ_n, μ_f Δμ_n − Δμ_t)`, both multipliers moving.
fn cone_steps(w: &Work, r: usize, (n, f): (usize, f64)) -> (f64, f64) {
    (w.dmu[r] + f * w.dmu[n], f * w.dmu[n] - w.dmu[r])
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
pub(super) fn barrier_rows(w: &mut Work, tolerance: f64) -> f64 {
    for r in 0..w.mu.len() {
        if w.contact[r] {
            w.roles[r] = Role::Compliant(w.slack[r] / w.mu[r] + CONTACT_COMPLIANCE * w.mass[r]);
            w.rows[r] = w.residual[r];
        } else if let Some((n, f)) = w.cone[r] {
            // A cone too small for its force to move anything by the tolerance (a contact
            // letting go, its normal force only the barrier's) has no friction to give: the
            // row waits at none, at its cone's centre. Solving it would leave its force in a
            // cone of 1e-15 whose edges each step crosses (a degenerate point, slip and force
            // both nil, where the barrier's steps shrink to nothing).
            if f * w.mu[n] * w.mass[r] <= CONE_CLEARANCE * tolerance {
                w.roles[r] = Role::Fixed(0.0);
                w.rows[r] = w.mu[r];
                continue;
            }
            if matches!(w.roles[r], Role::Fixed(_)) {
                // Back from waiting: its slips start from the slip it has.
                let slip = w.residual[r];
                w.slack[r] = slip.max(INTERIOR_START);
                w.slack_up[r] = (-slip).max(INTERIOR_START);
            }
            let cone = (n, f);
            // The slip `a − b`, each part complementary to one edge's distance `y`:
            // eliminating `Δa`, `Δb` leaves the compliance `a/y_l + b/y_u`.
            let (lower, upper) = cone_gaps(w, r, cone, 0.0);
            let compliance = w.slack[r] / lower + w.slack_up[r] / upper;
            w.roles[r] = Role::Compliant(compliance);
            w.rows[r] = w.residual[r];
        }
    }
    mean_complementarity(w, None, tolerance)
}

/// The contacts' mean `s μ (J W Jᵀ)_rr` (m²), at the iterate or, given `α`, after a step of
/// that length along `(Δs, Δμ)`.
fn mean_complementarity(w: &Work, alpha: Option<f64>, tolerance: f64) -> f64 {
    let (mut sum, mut count) = (0.0, 0usize);
    // The step's buffers are read only with a step: before the first, they are not sized.
    let moved = |value: &[f64], step: &[f64], r: usize| match alpha {
        Some(a) => value[r] + a * step[r],
        None => value[r],
    };
    for r in 0..w.mu.len() {
        if w.contact[r] {
            let (s, mu) = (moved(&w.slack, &w.dslack, r), moved(&w.mu, &w.dmu, r));
            sum += s * mu * w.mass[r];
            count += 1;
        } else if let Some(cone) = live_cone(w, r) {
            let (lower, upper) = cone_gaps(w, r, cone, alpha.unwrap_or(0.0));
            let s_lower = moved(&w.slack, &w.dslack, r);
            let s_upper = moved(&w.slack_up, &w.dslack_up, r);
            // Less the row's own floor (see `cone_barrier`): a sliding row held there would
            // otherwise keep the mean, and every contact's barrier with it, far above where
            // the contacts can end (a contact both 2.4e-10 m open and pushing as much).
            let floor = cone_barrier(w, r, 0.0, tolerance);
            let excess = |s: f64, y: f64| (s * y * w.mass[r] - floor).max(0.0);
            sum += excess(s_lower, lower) + excess(s_upper, upper);
            count += 2;
        }
    }
    sum / count.max(1) as f64
}

/// The largest step `≤ 1` along `(Δs, Δμ)` that keeps every slack and contact multiplier
/// positive, going `fraction` of the way to the boundary.
fn to_boundary(w: &Work, fraction: f64) -> f64 {
    let mut alpha = 1.0_f64;
    let mut keep_positive = |value: f64, step: f64| {
        if step < 0.0 {
            alpha = alpha.min(-fraction * value / step);
        }
    };
    for r in 0..w.mu.len() {
        if w.contact[r] {
            keep_positive(w.mu[r], w.dmu[r]);
            keep_positive(w.slack[r], w.dslack[r]);
        } else if let Some((n, f)) = live_cone(w, r) {
            // The cone's edges move with the normal force: both distances are linear in α.
            let (lower, upper) = cone_gaps(w, r, (n, f), 0.0);
            let (to_lower, to_upper) = cone_steps(w, r, (n, f));
            keep_positive(lower, to_lower);
            keep_positive(upper, to_upper);
            keep_positive(w.slack[r], w.dslack[r]);
            keep_positive(w.slack_up[r], w.dslack_up[r]);
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
    w.dslack_up.clear();
    w.dslack_up.resize(m, 0.0);
    for r in 0..m {
        if w.contact[r] {
            w.dslack[r] = -w.slack[r] - w.slack[r] / w.mu[r] * w.dmu[r];
        } else if let Some((n, f)) = live_cone(w, r) {
            let (lower, upper) = cone_gaps(w, r, (n, f), 0.0);
            let (a, b) = (w.slack[r], w.slack_up[r]);
            let (to_lower, to_upper) = cone_steps(w, r, (n, f));
            w.dslack[r] = -a - a / lower * to_lower;
            w.dslack_up[r] = -b - b / upper * to_upper;
        }
    }
    let predicted = mean_complementarity(w, Some(to_boundary(w, 1.0)), tolerance);
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
        } else if let Some((n, f)) = live_cone(w, r) {
            // The second-order terms with the edges' whole steps, the normal force's included.
            let (lower, upper) = cone_gaps(w, r, (n, f), 0.0);
            let per_row = cone_barrier(w, r, barrier, tolerance) / w.mass[r];
            let (to_lower, to_upper) = cone_steps(w, r, (n, f));
            w.dslack[r] *= to_lower;
            w.dslack_up[r] *= to_upper;
            w.rows[r] = w.residual[r] - (per_row - w.dslack[r]) / lower
                + (per_row - w.dslack_up[r]) / upper;
        }
    }
    barrier
}

/// The slacks' step for the corrector step in `w.dmu` and the step length that keeps every
/// slack and contact multiplier positive; moves the slacks by it and returns it.
pub(super) fn interior_step(w: &mut Work, barrier: f64, tolerance: f64) -> f64 {
    let m = w.mu.len();
    for r in 0..m {
        if w.contact[r] {
            let (s, mu, dmu) = (w.slack[r], w.mu[r], w.dmu[r]);
            w.dslack[r] = (barrier / w.mass[r] - w.dslack[r]) / mu - s - s / mu * dmu;
        } else if let Some((n, f)) = live_cone(w, r) {
            let (lower, upper) = cone_gaps(w, r, (n, f), 0.0);
            let (a, b) = (w.slack[r], w.slack_up[r]);
            let per_row = cone_barrier(w, r, barrier, tolerance) / w.mass[r];
            let (to_lower, to_upper) = cone_steps(w, r, (n, f));
            w.dslack[r] = (per_row - w.dslack[r]) / lower - a - a / lower * to_lower;
            w.dslack_up[r] = (per_row - w.dslack_up[r]) / upper - b - b / upper * to_upper;
        }
    }
    let alpha = to_boundary(w, TO_BOUNDARY);
    for (s, ds) in w.slack.iter_mut().zip(&w.dslack) {
        *s += alpha * ds;
    }
    for (s, ds) in w.slack_up.iter_mut().zip(&w.dslack_up) {
        *s += alpha * ds;
    }
    alpha
}

/// Keeps each contact's complementarity within a factor [`CENTRAL`] of the mean (as IPOPT
/// bounds its multipliers): a contact far below it, left behind by a step that went most of the
/// way to the boundary, would otherwise ask the next centering for a step that overflows.
pub(super) fn recenter(w: &mut Work, h2: f64, tolerance: f64) {
    let mean = mean_complementarity(w, None, tolerance).max(barrier_floor(tolerance));
    // A contact's friction keeps its place in the cone as the contact's force moves.
    for r in 0..w.mu.len() {
        if let Some((n, _)) = w.cone[r] {
            let moved = centred_contact(w, n, mean);
            if w.mu[n] > 0.0 && moved != w.mu[n] {
                w.mu[r] *= moved / w.mu[n];
            }
        }
    }
    for r in 0..w.mu.len() {
        if w.contact[r] {
            w.mu[r] = centred_contact(w, r, mean);
            w.lambda[r] = w.mu[r] / h2;
        }
    }
    // A friction row stays inside its cone where the normal's force fell below it (the step
    // keeps it inside; only the clamp above moves the normal without it).
    for r in 0..w.mu.len() {
        let Some((n, f)) = live_cone(w, r) else {
            continue;
        };
        let edge = f * w.mu[n];
        if w.mu[r].abs() >= edge {
            w.mu[r] = w.mu[r].signum() * TO_BOUNDARY * edge;
        }
        w.lambda[r] = w.mu[r] / h2;
    }
}

/// A friction row's barrier: at least the one of its slips times [`CONE_CLEARANCE`] of the
/// tolerance. A sliding row's force nears its cone's edge as `barrier / (slip (J W Jᵀ)_rr)`,
/// and the barrier's floor would take it to within 1e-21 m of it, below the rounding of the
/// edge's own value (`μ_f μ_n − μ_t` cancels): the force would cross the edge on rounding
/// alone. Its distance as a displacement need only be below the tolerance.
fn cone_barrier(w: &Work, r: usize, barrier: f64, tolerance: f64) -> f64 {
    barrier.max(CONE_CLEARANCE * tolerance * w.slack[r].max(w.slack_up[r]))
}

/// The fraction of the tolerance a sliding friction row's force keeps from its cone's edge
/// (see [`cone_barrier`]).
const CONE_CLEARANCE: f64 = 1e-2;

/// Contact `r`'s multiplier with its complementarity within [`CENTRAL`] of `mean`.
fn centred_contact(w: &Work, r: usize, mean: f64) -> f64 {
    if w.slack[r] > 0.0 && mean > 0.0 {
        let (lo, hi) = (mean / CENTRAL / w.slack[r], CENTRAL * mean / w.slack[r]);
        (w.mu[r] * w.mass[r]).clamp(lo, hi) / w.mass[r]
    } else {
        w.mu[r]
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

#[cfg(test)]
mod tests {
    use super::super::implicit_euler_states;
    use super::super::newton::{CONES_IN_INTERIOR, HOT_STARTS, ITERATIONS};
    use super::{
        RETRY_ACTIVE_SET, RETRY_BACKOFF, RETRY_DOUBLINGS, count_interior_steps, retry_interval,
    };
    use crate::math::vector::max_abs_difference;

    /// A standing 8-row pyramid (μ = 0.6, 1/60 s) stepped `steps` times with its frictional
    /// steps through the barrier and the test's `switch` set to `on`: its states and the
    /// Newton iterations they took.
    fn pyramid_in_the_barrier(
        steps: usize,
        switch: &'static std::thread::LocalKey<std::cell::Cell<bool>>,
        on: bool,
    ) -> (Vec<Vec<f64>>, usize) {
        CONES_IN_INTERIOR.with(|c| c.set(Some(true)));
        switch.with(|c| c.set(on));
        ITERATIONS.with(|n| n.set(0));
        let (mut sys, _, _) = crate::models::box_pyramid(8, 0.6).unwrap_or_else(|e| panic!("{e}"));
        let states = implicit_euler_states(&mut sys, steps);
        CONES_IN_INTERIOR.with(|c| c.set(None));
        switch.with(|c| c.set(true));
        (states, ITERATIONS.with(std::cell::Cell::get))
    }

    /// A standing 8-row pyramid (μ = 0.6, 1/60 s) with its frictional steps through the barrier,
    /// run twice: its resting steps, which begin in the barrier near their answer, start hot
    /// from it or cold. Both solve the same equations to the same tolerance, so the boxes stay
    /// together (and still); the hot start takes fewer iterations to get there.
    #[test]
    fn a_resting_pyramid_starts_its_barrier_hot_and_ends_where_a_cold_start_ends() {
        let run = |hot: bool| pyramid_in_the_barrier(90, &HOT_STARTS, hot);
        let ((hot, hot_iterations), (cold, cold_iterations)) = (run(true), run(false));
        let start = &cold[0];
        for (step, (a, b)) in hot.iter().zip(&cold).enumerate() {
            let apart = max_abs_difference(a, b);
            assert!(apart < 1e-9, "step {step}: the runs are {apart:.3e} apart");
            let moved = max_abs_difference(a, start);
            assert!(moved < 1e-8, "step {step}: the pyramid moved {moved:.3e}");
        }
        assert!(
            hot_iterations < cold_iterations,
            "hot {hot_iterations} iterations, cold {cold_iterations}"
        );
    }

    /// The same pyramid, its retries of the active set backing off or not. Its active set
    /// cycles on the redundant corners whenever a step needs iterating, so each retry that
    /// iterates fails, and one that needs no iteration proves nothing: backing off, the run
    /// takes fewer iterations, to the same answer.
    #[test]
    fn a_resting_pyramid_retries_its_active_set_less_often_after_each_failure() {
        let run = |backoff: bool| pyramid_in_the_barrier(300, &RETRY_BACKOFF, backoff);
        let ((backing, fewer), (every, more)) = (run(true), run(false));
        for (step, (a, b)) in backing.iter().zip(&every).enumerate() {
            let apart = max_abs_difference(a, b);
            assert!(apart < 1e-9, "step {step}: the runs are {apart:.3e} apart");
        }
        assert!(fewer < more, "backing off {fewer} iterations, not {more}");
    }

    /// The steps between retries double with each failure, up to a bound.
    #[test]
    fn retries_of_the_active_set_double_apart_and_no_further_than_the_bound() {
        assert_eq!(retry_interval(0), RETRY_ACTIVE_SET);
        assert_eq!(retry_interval(1), 2 * RETRY_ACTIVE_SET);
        assert_eq!(
            retry_interval(RETRY_DOUBLINGS + 3),
            retry_interval(RETRY_DOUBLINGS)
        );
        let mut w = super::super::work::Work::default();
        // A failed retry: counted, and the count of steps starts again.
        (w.interior_steps, w.retrying, w.interior, w.iterations) = (10, true, true, 9);
        count_interior_steps(&mut w);
        assert_eq!((w.interior_steps, w.failed_retries), (1, 1));
        // One that needed no iteration proves nothing: the barrier goes on.
        (w.interior_steps, w.retrying, w.interior, w.iterations) = (20, true, false, 0);
        count_interior_steps(&mut w);
        assert_eq!((w.interior_steps, w.failed_retries), (1, 1));
        // One that iterated and settled in the active set ends the backing off.
        (w.interior_steps, w.retrying, w.interior, w.iterations) = (20, true, false, 2);
        count_interior_steps(&mut w);
        assert_eq!((w.interior_steps, w.failed_retries), (0, 0));
    }
}
