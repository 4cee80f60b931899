//! The Newton solve shared by the position-level implicit steppers ([`super::ImplicitEuler`],
//! [`super::Bdf2`]).
//!
//! Both reduce a step to one problem: given a base `q_b`, a velocity scale `ĥ` (so that
//! `q̇ₙ₊₁ = (q − q_b)/ĥ`) and a prediction `q̃` (where the applied forces alone would take the
//! state), find `q` and `λ` with
//!
//! ```text
//! M (q − q̃) − ĥ² J(q)ᵀ λ = 0,   C(q, tₙ₊₁) = 0
//! ```
//!
//! (a velocity row holds `J (q − q_b) + ĥ ∂C/∂t = 0`; inequality and bounded rows are kept
//! complementary). Implicit Euler has `q_b = qₙ`, `ĥ = h`; BDF2 `q_b = (4qₙ − qₙ₋₁)/3`,
//! `ĥ = 2h/3`.
//!
//! Newton's method on this system, with `μ = ĥ² λ`, solves the KKT system (seed 004 eq. 6)
//!
//! ```text
//! [ M + ĥ² K̃   Jᵀ ] [  Δq ]     [ M (q − q̃) − Jᵀμ ]
//! [ J         0  ] [ −Δμ ] = − [ r                ]
//! ```
//!
//! with `K̃ = −K` the geometric stiffness of the constraints (`K = Σ λ ∇²C`), each constraint's
//! part kept where it is positive (a rod in tension) and bounded by a positive diagonal where not
//! (a rod in compression), factored by a sparse LDLᵀ whose analysis is reused while the structure
//! holds (without the stiffness between bodies where that is small against their masses, as on
//! a cloth: see [`crate::solve::kkt`]). Chord iterations reuse a factor, across steps too, while
//! the residual falls fast; a backtracking line search keeps far starts from wandering.
//!
//! Inequalities and bounded rows (a motor's limit) enter first by a primal-dual active set: each
//! iteration holds the rows whose trial multiplier lies within their bounds and fixes the others
//! at the bound they cross (a semismooth Newton method for the complementarity). It settles in a
//! few iterations where contacts come and go one by one, but the packed, redundant contacts of a
//! pile make it cycle (a landing 200-ball pile needed more than 200 iterations a step). A step
//! whose contacts still change their roles after [`INTERIOR_AFTER`] iterations starts again with
//! a primal-dual interior-point iteration (Mehrotra's predictor-corrector), which has no active
//! set to choose: each contact `g(q) ≥ 0` gets a slack `s > 0` with `g(q) = s` and
//! `s μ = σ̂/(J W Jᵀ)_rr`, the barrier `σ̂` falling to zero; eliminating `Δs` leaves the contact
//! a held row with the compliance `s/μ` in the same KKT matrix ([`Role::Compliant`]), so each
//! iteration is one factorization and two solves. The next steps start with it, but for one in
//! [`RETRY_ACTIVE_SET`], which tries the active set again. While it runs, contacts have a
//! compliance of [`CONTACT_COMPLIANCE`] times `(J W Jᵀ)_rr`: a row of balls that fits its box
//! exactly can hold any compression, and without it rounding drifts that compression without
//! bound. Other bounded rows keep the active set; after [`ONE_AT_A_TIME_AFTER`] iterations only
//! the most violated of them changes, as in a pivoting method.
//!
//! The iteration stops when `|C|∞` (complementarity aware: a multiplier past its bound counts;
//! under the interior-point iteration a contact counts `min(|g|, μ (J W Jᵀ)_rr)` and any
//! penetration) and the momentum residual `|W (M (q − q̃) − Jᵀμ)|∞` are both within the
//! tolerance. Where it starts is [`super::warm_start`]'s.

use super::warm_start::WarmStart;
use super::{ConstrainedModel, Dynamics, Factorization, Role, resize};
use crate::error::EvalError;
use crate::math::inverse_mass::InverseMass;
use crate::math::vector::max_abs;
use crate::solve::Bounds;

/// The momentum residual allowed relative to the constraints' correction `W Jᵀμ`.
const RELATIVE_MOMENTUM: f64 = 1e-8;

/// The Newton solve's buffers and what it carries from step to step.
#[derive(Clone, Debug, Default)]
pub(super) struct Work {
    /// `q̃`, written by the stepper before [`Work::advance`].
    pub(super) predicted: Vec<f64>,
    /// The last steps' ends, which the next step's Newton iteration starts from.
    warm: WarmStart,
    /// The rows' right-hand sides as the Newton step takes them (see [`Role`]).
    rows: Vec<f64>,
    /// Each row's `(J W Jᵀ)_rr`.
    mass: Vec<f64>,
    roles: Vec<Role>,
    /// The rows the interior-point iteration solves, set as it starts: contacts (inequalities
    /// without an upper bound) that something can move, `(J W Jᵀ)_rr > 0`.
    contact: Vec<bool>,
    /// Each contact's slack `s` while the interior-point iteration runs (see [`interior_step`]).
    slack: Vec<f64>,
    /// The slacks' step, or the predictor's `Δs Δμ` between the predictor and the corrector.
    dslack: Vec<f64>,
    /// Consecutive steps that ended in the interior-point iteration.
    interior_steps: usize,
    /// Where this step's Newton iteration started.
    start_q: Vec<f64>,
    start_mu: Vec<f64>,
    /// Whether this step's contacts are solved by the interior-point iteration.
    interior: bool,
    /// Whether any row of this step has a bound (an inequality, a motor's limit): without,
    /// every row is held, and the roles need no choosing.
    bounded: bool,
    /// Whether any row of this step holds a velocity (a motor).
    velocity_rows: bool,
    mu: Vec<f64>,
    lambda: Vec<f64>,
    force: Vec<f64>,
    residual: Vec<f64>,
    momentum: Vec<f64>,
    /// Scratch for the residuals' measures; never `dq`, which the line search still needs.
    scratch: Vec<f64>,
    dq: Vec<f64>,
    dmu: Vec<f64>,
    /// Newton iterations of the last step.
    pub(super) iterations: usize,
    /// Rows whose role (held, or at a bound) the last iteration changed.
    role_changes: usize,
    /// Numeric factorizations of the KKT matrix so far.
    pub(super) factorizations: usize,
    /// The next iteration must factor afresh (the last step ended on a slow iteration).
    refactor: bool,
}

/// Writes `W Q`, the acceleration of the applied forces alone: the constrained model's, or a
/// plain ODE's accelerations.
pub(super) fn free_acceleration(
    f: &mut dyn Dynamics,
    t: f64,
    q: &[f64],
    v: &[f64],
    out: &mut [f64],
) -> Result<(), EvalError> {
    match f.constrained() {
        Some(model) => model.free_acceleration(t, q, v, out),
        None => f.acceleration(t, q, v, out),
    }
}

impl Work {
    /// Whether a step from `(q, v)` continues the last one (starts where it ended).
    pub(super) fn continues(&self, q: &[f64], v: &[f64]) -> bool {
        self.warm.continues(q, v)
    }

    /// Ends the step from `(q_start, v_start)` to time `t_end`, for the base `q_base`, velocity
    /// scale `hv` and the prediction in [`Work::predicted`]: a constrained model by the Newton
    /// solve, a plain ODE (nothing to hold) at the prediction. Writes `q_out` and
    /// `v_out = (q_out − q_base)/hv`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn advance(
        &mut self,
        f: &mut dyn Dynamics,
        t_end: f64,
        hv: f64,
        q_start: &[f64],
        v_start: &[f64],
        q_base: &[f64],
        q_out: &mut [f64],
        v_out: &mut [f64],
        tolerance: f64,
        max_iterations: usize,
    ) -> Result<(), EvalError> {
        self.iterations = 0;
        let mut history = 0;
        let constrained = match f.constrained() {
            Some(model) => {
                // Newton starts from the prediction moved on by the constraint acceleration the
                // last steps extrapolate to this one's end, when this step continues them: q̃
                // alone ignores the constraint forces, which change little from step to step.
                history = self.warm.usable(q_start, v_start, t_end);
                if history > 0 {
                    self.warm.acceleration(history, q_out);
                    for (q, p) in q_out.iter_mut().zip(&self.predicted) {
                        *q = p + hv * hv * *q;
                    }
                } else {
                    q_out.copy_from_slice(&self.predicted);
                }
                newton(
                    model,
                    self,
                    t_end,
                    hv,
                    q_base,
                    q_out,
                    v_out,
                    tolerance,
                    max_iterations,
                    history,
                )?;
                true
            }
            None => {
                q_out.copy_from_slice(&self.predicted);
                false
            }
        };
        for ((v, q), b) in v_out.iter_mut().zip(q_out.iter()).zip(q_base) {
            *v = (q - b) / hv;
        }
        if constrained {
            self.warm.record(
                history > 0,
                t_end,
                q_out,
                v_out,
                &self.predicted,
                hv,
                &self.lambda,
            );
        } else {
            self.warm.record_end(q_out, v_out);
        }
        Ok(())
    }
}

/// Solves `M (q − q̃) − ĥ² J(q)ᵀ λ = 0`, `C(q, t) = 0` from the `q` given, in place.
#[allow(clippy::too_many_arguments)]
fn newton(
    model: &mut dyn ConstrainedModel,
    w: &mut Work,
    t: f64,
    h: f64,
    q_base: &[f64],
    q: &mut [f64],
    v: &mut [f64],
    tolerance: f64,
    max_iterations: usize,
    history: usize,
) -> Result<(), EvalError> {
    let n = q.len();
    let h2 = h * h;
    resize(
        n,
        &mut [&mut w.force, &mut w.momentum, &mut w.scratch, &mut w.dq],
    );
    let mut previous = f64::INFINITY;
    let mut first = true;
    // The interior-point iteration starts at this iterate.
    let mut start_barrier = false;
    // Newton steps of this time step that fell by less than a quarter.
    let mut slow_steps = 0;
    // The length of the Newton step on trial, while a line search is under way.
    let mut trial: Option<f64> = None;
    loop {
        for ((v, q), b) in v.iter_mut().zip(q.iter()).zip(q_base) {
            *v = (q - b) / h;
        }
        model.assemble(t, q, v)?;
        let m = model.values().len();
        if first {
            // λ of the last steps is the first guess of this one's: extrapolated on the rows
            // that move smoothly, as the start of q is.
            w.lambda.clear();
            w.lambda.extend_from_slice(model.last_multipliers());
            w.lambda.resize(m, 0.0);
            let (bounds, inequality) = (model.multiplier_bounds(), model.inequality_rows());
            let smooth =
                |r: usize| !inequality[r] && bounds[r] == (f64::NEG_INFINITY, f64::INFINITY);
            w.warm.multipliers(history, smooth, &mut w.lambda);
            w.mu.clear();
            w.mu.extend(w.lambda.iter().map(|l| l * h2));
            for buffer in [&mut w.residual, &mut w.rows, &mut w.dmu, &mut w.mass] {
                buffer.resize(m, 0.0);
            }
            w.roles.resize(m, Role::Held);
            w.bounded = RowBounds::of(model, h2).any_bounded();
            if !w.bounded {
                w.roles.fill(Role::Held);
            }
            w.velocity_rows = model.velocity_rows().contains(&true);
            // A step after one that needed the interior-point iteration starts with it, but for
            // one step in RETRY_ACTIVE_SET, which tries the active set again.
            w.interior = w.interior_steps > 0
                && !w.interior_steps.is_multiple_of(RETRY_ACTIVE_SET)
                && (0..m).any(|r| interior_row(model, r));
            start_barrier = w.interior;
            w.start_q.clear();
            w.start_q.extend_from_slice(q);
            w.start_mu.clone_from(&w.mu);
        }
        // The rows' residuals: C (g for an inequality), or a velocity row's J (q − q_b) + ĥ ∂C/∂t.
        if w.velocity_rows {
            for i in 0..n {
                w.force[i] = q[i] - q_base[i];
            }
            model.jacobian().mul(&w.force, &mut w.residual);
        }
        {
            let (c, c_t, velocity) = (
                model.values(),
                model.time_derivatives(),
                model.velocity_rows(),
            );
            for r in 0..m {
                w.residual[r] = if velocity[r] {
                    w.residual[r] + h * c_t[r]
                } else {
                    c[r]
                };
            }
        }
        // The momentum residual F₁ = M (q − q̃) − Jᵀμ, measured as W F₁ (metres).
        model.jacobian().mul_transpose(&w.mu, &mut w.force);
        let (momentum, correction) = measured_momentum_residual(model.inv_mass(), q, w);
        // The momentum balance is met to the tolerance, or to a relative 1e-8 of the
        // constraints' own correction W Jᵀμ when that is larger (a whipping cloth corner moves
        // centimetres in a step under forces that rounding alone puts 1e-10 m off).
        let momentum_tolerance = tolerance.max(RELATIVE_MOMENTUM * correction);
        // How far each row is from holding: an inequality apart (μ = 0) holds while g ≥ 0, and a
        // row at one of its bounds has given up its target. A multiplier beyond its bounds (a
        // contact that pulls) is as far off as the displacement its excess makes, μ (J W Jᵀ)_rr:
        // a held row's Newton step can carry it there, and only the next iteration's roles
        // bring it back.
        let mut max_c = 0.0_f64;
        if !w.bounded {
            max_c = max_abs(&w.residual);
        } else {
            let bounds = RowBounds::of(model, h2);
            // Also what `choose_roles` reads below, at this same iterate.
            row_masses(model, &mut w.mass);
            if start_barrier {
                start_interior(model, w);
                start_barrier = false;
            }
            for r in 0..m {
                if w.interior && w.contact[r] {
                    // Either the gap is closed or the force is too small to move anything by
                    // the tolerance; the slack and μ stay positive.
                    w.residual[r] += CONTACT_COMPLIANCE * w.mass[r] * w.mu[r];
                    let (raw, mu) = (w.residual[r], w.mu[r]);
                    let off = (-raw).max(raw.abs().min(mu * w.mass[r]));
                    max_c = max_c.max(off);
                    continue;
                }
                let (raw, mu) = (w.residual[r], w.mu[r]);
                let (lo, hi) = bounds.get(r);
                let off = if (mu >= hi && raw <= 0.0) || (mu <= lo && raw >= 0.0) {
                    0.0
                } else {
                    raw.abs()
                };
                let beyond = if mu < lo {
                    (lo - mu) * w.mass[r]
                } else if mu > hi {
                    (mu - hi) * w.mass[r]
                } else {
                    0.0
                };
                max_c = max_c.max(off).max(beyond);
            }
        }
        if !(max_c.is_finite() && momentum.is_finite()) {
            return Err(EvalError::NonFinite("the implicit step's residual".into()));
        }
        if max_c <= tolerance && momentum <= momentum_tolerance {
            break;
        }
        let residual = max_c.max(momentum);
        // A safeguard against divergence: a Newton step that more than doubles the residual is
        // halved, from the same start (a few times at most). A stricter line search (demanding
        // a decrease) stalls the modified Newton iteration where compression leaves its matrix
        // an overestimate, as on a whipping cloth, whose steps may raise one residual while
        // lowering the other.
        if let Some(alpha) = trial.take()
            && !w.interior
            && residual > 2.0 * previous
            && alpha > 1.0 / 16.0
        {
            // The iterate is the start plus `alpha` times the step: half of that back, rather
            // than a copy of the start kept at every iteration (on a 10⁵-link chain those
            // copies were megabytes an iteration, for a line search that rarely runs).
            let alpha = alpha / 2.0;
            for (qi, d) in q.iter_mut().zip(&w.dq) {
                *qi -= alpha * d;
            }
            for ((mu, d), l) in w.mu.iter_mut().zip(&w.dmu).zip(w.lambda.iter_mut()) {
                *mu -= alpha * d;
                *l = *mu / h2;
            }
            // The factor did not serve: the next step gets a fresh one.
            w.refactor = true;
            trial = Some(alpha);
            continue;
        }
        if w.iterations >= max_iterations {
            // Constraints that no position satisfies together stall Newton's method too; say
            // which, rather than suggest a smaller step. (Only when they are what is off: where
            // the constraints hold and the momentum balance stalls, the residuals left are
            // rounding, whose spread says nothing of a conflict.)
            let held: Vec<bool> = w.roles.iter().map(Role::holds).collect();
            if let Some(conflict) = (max_c > tolerance)
                .then(|| model.conflict(&w.residual, &held))
                .flatten()
            {
                return Err(conflict);
            }
            return Err(EvalError::NoConvergence {
                iterations: w.iterations,
                max_abs_c: max_c,
                momentum_residual: momentum,
                role_changes: w.role_changes,
            });
        }
        w.iterations += 1;
        if !w.interior
            && w.iterations > INTERIOR_AFTER
            && w.role_changes > 0
            && (0..m).any(|r| interior_row(model, r))
        {
            // The contacts' active set has not settled: packed, redundant contacts make the
            // semismooth iteration cycle. The interior-point iteration, which has no active set
            // to choose, starts again from where this step started.
            w.interior = true;
            start_barrier = true;
            q.copy_from_slice(&w.start_q);
            w.mu.clone_from(&w.start_mu);
            for (l, mu) in w.lambda.iter_mut().zip(&w.mu) {
                *l = mu / h2;
            }
            previous = f64::INFINITY;
            slow_steps = 0;
            continue;
        }
        // Which rows hold their target in this iteration, and which keep a fixed multiplier
        // (an inequality apart, a motor at its limit): the primal-dual active set, a
        // semismooth Newton method for the complementarity. Each row's trial multiplier
        // μ − m_eff r tells: below its lower bound the row is left at it, above its upper bound
        // at that, in between the row is held.
        let changed = if w.bounded {
            choose_roles(model, w, h2)
        } else {
            0
        };
        w.role_changes = changed;
        let changed = changed > 0;
        // A fixed row's multiplier takes its value now, and the momentum residual with it: the
        // step then leaves it be (its column of Jᵀ is out of the matrix).
        if w.bounded && w.roles.iter().any(|r| matches!(r, Role::Fixed(_))) {
            for r in 0..m {
                if let Role::Fixed(target) = w.roles[r] {
                    w.mu[r] = target;
                    w.lambda[r] = target / h2;
                }
            }
            model.jacobian().mul_transpose(&w.mu, &mut w.force);
            momentum_residual(model.inv_mass(), q, w);
        }
        // Chord iterations: the factor is kept, across steps too, while it keeps the residual
        // falling fast; a step that falls by less than a quarter, or a new active set, asks for
        // a fresh one. A step slow twice asks for the whole geometric stiffness: the matrix
        // without the coupling between bodies did not serve (a cloth's whip).
        let slow = !first && residual > 0.25 * previous;
        slow_steps += usize::from(slow);
        let factorization = if w.interior {
            Factorization::Fresh
        } else if !(w.refactor || changed || slow) {
            Factorization::Reuse
        } else if slow_steps >= 2 {
            Factorization::Full
        } else {
            Factorization::Fresh
        };
        previous = residual;
        first = false;
        for r in 0..m {
            w.rows[r] = match w.roles[r] {
                Role::Held | Role::Compliant(_) => w.residual[r],
                Role::Fixed(target) => w.mu[r] - target,
            };
        }
        let complementarity = if w.interior { barrier_rows(w) } else { 0.0 };
        let factored = newton_step(model, w, factorization, h2)?;
        w.refactor = false;
        w.factorizations += usize::from(factored);
        // Mehrotra's predictor-corrector: the step just solved, with no barrier, tells how far
        // the complementarity can fall; the barrier is set from it, and the same factor solves
        // again with the second-order term of the complementarity.
        let barrier = if w.interior {
            let barrier = centering(w, complementarity, tolerance);
            newton_step(model, w, Factorization::Reuse, h2)?;
            barrier
        } else {
            0.0
        };
        let alpha = if w.interior {
            interior_step(w, barrier)
        } else {
            1.0
        };
        for (qi, dq) in q.iter_mut().zip(&w.dq) {
            *qi += alpha * dq;
        }
        for (mu, dmu) in w.mu.iter_mut().zip(&w.dmu) {
            *mu += alpha * dmu;
        }
        for (l, mu) in w.lambda.iter_mut().zip(&w.mu) {
            *l = mu / h2;
        }
        if w.interior {
            recenter(w, h2, tolerance);
        }
        // The first step of each time step projects the prediction onto the constraints,
        // which a merit that starts at M (q − q̃) = 0 would always refuse: it is taken whole.
        trial = (w.iterations > 1).then_some(1.0);
    }
    w.interior_steps = if w.interior { w.interior_steps + 1 } else { 0 };
    if w.interior {
        // A contact apart keeps the small force the barrier left it, below what could move
        // anything by the tolerance: it is reported as none.
        for r in 0..w.lambda.len() {
            if w.contact[r] && w.residual[r] > w.mu[r] * w.mass[r] {
                w.lambda[r] = 0.0;
            }
        }
    }
    model.record(&w.lambda);
    Ok(())
}

/// One Newton step for the residuals and roles in `w`, into `w.dq` and `w.dmu`; returns whether
/// it factored.
fn newton_step(
    model: &mut dyn ConstrainedModel,
    w: &mut Work,
    factorization: Factorization,
    h2: f64,
) -> Result<bool, EvalError> {
    model.newton_step(
        factorization,
        h2,
        &w.lambda,
        &w.roles,
        &w.momentum,
        &w.rows,
        &mut w.dq,
        &mut w.dmu,
    )
}

/// Whether row `r` is a contact the interior-point iteration solves: an inequality without an
/// upper bound.
fn interior_row(model: &dyn ConstrainedModel, r: usize) -> bool {
    model.inequality_rows()[r] && model.multiplier_bounds()[r].1 == f64::INFINITY
}

/// The smallest slack and multiplier (as the displacement `μ (J W Jᵀ)_rr` it makes, in metres)
/// the interior-point iteration starts from.
const INTERIOR_START: f64 = 1e-6;
/// The contacts' compliance under the interior-point iteration, relative to `(J W Jᵀ)_rr`.
const CONTACT_COMPLIANCE: f64 = 1e-8;
/// Iterations after which a step whose contacts still change their roles goes over to the
/// interior-point iteration.
const INTERIOR_AFTER: usize = 8;
/// While steps need the interior-point iteration, one in this many tries the active set first.
const RETRY_ACTIVE_SET: usize = 10;
/// The fraction of the way to the boundary an interior-point step may go.
const TO_BOUNDARY: f64 = 0.995;

/// Starts the interior-point iteration: each contact's slack at its gap and its multiplier at
/// the last one, or at the push that would close it where it penetrates, both at least
/// [`INTERIOR_START`].
fn start_interior(model: &dyn ConstrainedModel, w: &mut Work) {
    let m = w.mu.len();
    w.contact.clear();
    w.contact
        .extend((0..m).map(|r| interior_row(model, r) && w.mass[r] > 0.0));
    w.slack.clear();
    w.slack.resize(m, 0.0);
    for r in 0..m {
        if w.contact[r] {
            // A contact that penetrates needs about the push that closes it.
            let g = w.residual[r];
            w.slack[r] = g.max(INTERIOR_START);
            w.mu[r] = w.mu[r].max((-g).max(INTERIOR_START) / w.mass[r]);
        }
    }
}

/// Sets the contacts' roles and rows for the predictor step: each holds
/// `J Δq + (s/μ) Δμ = −g`, the linearized `g(q) = s` with `Δs` eliminated from the linearized
/// complementarity `s Δμ + μ Δs = −s μ`. Returns the mean complementarity (in m², as
/// `s μ (J W Jᵀ)_rr`).
fn barrier_rows(w: &mut Work) -> f64 {
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
fn centering(w: &mut Work, complementarity: f64, tolerance: f64) -> f64 {
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
fn interior_step(w: &mut Work, barrier: f64) -> f64 {
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
fn recenter(w: &mut Work, h2: f64, tolerance: f64) {
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
fn barrier_floor(tolerance: f64) -> f64 {
    (1e-2 * tolerance).powi(2)
}

/// How far (as a factor) a contact's complementarity may stray from the mean.
const CENTRAL: f64 = 1e10;

/// Each row's bounds on `μ = h² λ`: its own (a motor's limit), and `μ ≥ 0` for an inequality.
struct RowBounds<'a> {
    bounds: Bounds<'a>,
    h2: f64,
}

impl<'a> RowBounds<'a> {
    fn of(model: &'a dyn ConstrainedModel, h2: f64) -> Self {
        RowBounds {
            bounds: Bounds::new(model.inequality_rows(), model.multiplier_bounds()),
            h2,
        }
    }

    /// Whether any row has a bound (an inequality, a motor's limit).
    fn any_bounded(&self) -> bool {
        self.bounds.any()
    }

    fn get(&self, r: usize) -> (f64, f64) {
        let (lo, hi) = self.bounds.get(r);
        (lo * self.h2, hi * self.h2)
    }
}

/// `F₁ = M (q − q̃) − Jᵀμ` into `w.momentum` (0 where nothing moves), from `w.force = Jᵀμ`;
/// `w.scratch` is scratch.
fn momentum_residual(inv_mass: &InverseMass, q: &[f64], w: &mut Work) {
    for ((d, qi), p) in w.scratch.iter_mut().zip(q).zip(&w.predicted) {
        *d = qi - p;
    }
    inv_mass.apply_mass(&w.scratch, &mut w.momentum);
    for (i, (r, f)) in w.momentum.iter_mut().zip(&w.force).enumerate() {
        *r = if inv_mass.movable(i) { *r - f } else { 0.0 };
    }
}

/// [`momentum_residual`], and how large it is: `(max |W F₁|, max |W Jᵀμ|)`, in metres.
fn measured_momentum_residual(inv_mass: &InverseMass, q: &[f64], w: &mut Work) -> (f64, f64) {
    if inv_mass.blocks().is_empty() {
        // A diagonal W: one pass, in the arithmetic of the general one below.
        let mut lanes = [[0.0_f64; 2]; 4];
        let rows = w
            .momentum
            .iter_mut()
            .zip(&w.force)
            .zip(q.iter().zip(&w.predicted));
        for (i, ((r, f), (qi, p))) in rows.enumerate() {
            let wi = inv_mass.diagonal()[i];
            *r = if wi > 0.0 { (qi - p) / wi - f } else { 0.0 };
            let lane = &mut lanes[i % 4];
            lane[0] = lane[0].max((wi * *r).abs());
            lane[1] = lane[1].max((wi * f).abs());
        }
        return lanes
            .iter()
            .fold((0.0, 0.0), |(m, c), l| (l[0].max(m), l[1].max(c)));
    }
    momentum_residual(inv_mass, q, w);
    inv_mass.apply(&w.momentum, &mut w.scratch);
    let momentum = max_abs(&w.scratch);
    inv_mass.apply(&w.force, &mut w.scratch);
    (momentum, max_abs(&w.scratch))
}

/// Writes each row's `(J W Jᵀ)_rr` into `mass`.
fn row_masses(model: &dyn ConstrainedModel, mass: &mut [f64]) {
    mass.fill(0.0);
    let (j, inv_mass) = (model.jacobian(), model.inv_mass());
    for block in j.blocks() {
        let values = &j.values()[block.offset..block.offset + block.nrows * block.ncols];
        for r in 0..block.nrows {
            let row = &values[r * block.ncols..(r + 1) * block.ncols];
            mass[block.row + r] += inv_mass.weighted_dot(block.col, row, row);
        }
    }
}

/// Sets each row's role for the next Newton step (see [`Role`]); returns how many changed.
/// A bounded row's effective mass, `1 / (J W Jᵀ)_rr`, turns its gap into a multiplier: it reads
/// `w.mass`, which the convergence test wrote at this iterate when any row is bounded (rows
/// without bounds are held and read nothing).
fn choose_roles(model: &dyn ConstrainedModel, w: &mut Work, h2: f64) -> usize {
    let m = w.roles.len();
    let bounds = RowBounds::of(model, h2);
    let one_at_a_time = w.iterations > ONE_AT_A_TIME_AFTER;
    let mut changed = 0;
    // The largest change when only one is allowed: (row, its new role, how far off it is).
    let mut largest: Option<(usize, Role, f64)> = None;
    for r in 0..m {
        if w.interior && w.contact[r] {
            // The barrier sets these (see `barrier_rows`).
            w.roles[r] = Role::Compliant(0.0);
            continue;
        }
        let (lo, hi) = bounds.get(r);
        let (role, off) = if lo == f64::NEG_INFINITY && hi == f64::INFINITY {
            (Role::Held, 0.0)
        } else {
            let effective = if w.mass[r] > 0.0 {
                1.0 / w.mass[r]
            } else {
                0.0
            };
            let trial = w.mu[r] - effective * w.residual[r];
            let off = (trial - trial.clamp(lo, hi))
                .abs()
                .max(w.residual[r].abs() * effective);
            if trial <= lo {
                (Role::Fixed(lo), off)
            } else if trial >= hi {
                (Role::Fixed(hi), off)
            } else {
                (Role::Held, off)
            }
        };
        if role != w.roles[r] {
            changed += 1;
            if one_at_a_time {
                if largest.is_none_or(|(_, _, o)| off > o) {
                    largest = Some((r, role, off));
                }
                continue;
            }
        }
        w.roles[r] = role;
    }
    if let Some((r, role, _)) = largest {
        w.roles[r] = role;
    }
    changed
}

/// Iterations after which the active set changes one row at a time, the most violated, as a
/// pivoting method does: changing every row whose trial multiplier says so can cycle among
/// packed, redundant contacts.
const ONE_AT_A_TIME_AFTER: usize = 20;
