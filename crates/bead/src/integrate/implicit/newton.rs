//! Newton's method on one implicit step (see the [module overview](super)): the iteration, its
//! line search, the policy that decides when the KKT matrix is factored afresh, and the step
//! framing that warm-starts it from the last steps ([`super::warm_start`]) and records where it
//! ended. Each of its phases is a function below; the contacts' interior-point iteration is
//! [`super::interior_point`]'s, the bounded rows' roles [`super::roles`]'s, the residuals'
//! measures [`super::residual`]'s.

use super::cone_coupling::coupled_step;
use super::contact_lcp::{contact_step, split_at_end};
use super::exact_step::exact_step;
use super::failure::{diverged, stalled};
use super::interior_point::{
    CONTACT_COMPLIANCE, HOT_BLOCKED, HOT_ITERATIONS, HOT_START, INTERIOR_AFTER, RETRY_ACTIVE_SET,
    barrier_rows, centering, compliant_contact, cone_gaps, count_interior_steps, interior_row,
    interior_step, mark_contacts, recenter, retry_due, start_interior,
};
use super::lemke;
use super::progress::{Progress, damp};
use super::residual::{
    measured_momentum_residual, momentum_residual, momentum_tolerance, row_masses, row_residuals,
};
use super::roles::choose_roles;
use super::work::Work;
use crate::error::EvalError;
use crate::integrate::{ConstrainedModel, Dynamics, Factorization, PastState, Role, resize};
use crate::math::vector::max_abs;
use crate::solve::Bounds;
use crate::solve::coulomb::disk;
use crate::solve::kkt::PROXIMAL;

/// Slow Newton iterations in a row kept on one factor of the whole stiffness.
const KEPT_SLOW: usize = 8;
/// Iterations in a row, the contacts solved as their own problem, within the tolerance but not
/// falling by 1 %, that end the step: redundant frictional contacts hold no closer (a 5-row
/// pyramid at 1/60 s stalled at 3.4e-11 m against 2.7e-11 m and failed).
const LCP_STALLS: usize = 4;

/// When the Newton iteration of a step stops, and when it gives up.
#[derive(Clone, Copy, Debug)]
pub(super) struct Stopping {
    /// The largest `|C|∞` (metres), complementarity aware.
    pub(super) tolerance: f64,
    /// The momentum residual allowed, relative to the displacement the step's forces make:
    /// `|W F₁|∞ ≤ relative · max(|W Jᵀμ|∞, ĥ² |W Q|∞)`, so that λ (in newtons) and `q̇` are
    /// accurate to this fraction of the forces in play at every `h` (see [`super::residual::momentum_tolerance`]).
    pub(super) relative: f64,
    /// Newton iterations allowed before the step fails.
    pub(super) max_iterations: usize,
}

/// Ends the step from `(q_start, v_start)` at `t_start` to time `t_end`, for the base `q_base`, velocity
/// scale `hv` and the prediction `w.inertial`, formed from the `past` states: a constrained
/// model by the Newton solve, a plain ODE (nothing to hold) under its accelerations at the
/// step's start. Writes `q_out` and `v_out = (q_out − q_base)/hv`.
#[allow(clippy::too_many_arguments)]
pub(super) fn advance(
    w: &mut Work,
    f: &mut dyn Dynamics,
    (t_start, t_end): (f64, f64),
    hv: f64,
    (q_start, v_start): (&[f64], &[f64]),
    (q_base, past): (&[f64], &[PastState<'_>]),
    q_out: &mut [f64],
    v_out: &mut [f64],
    stop: Stopping,
) -> Result<(), EvalError> {
    w.iterations = 0;
    let mut history = 0;
    let constrained = match f.constrained() {
        Some(model) => {
            model.predict(hv, &w.inertial, past);
            // Newton starts from the prediction moved on by the acceleration the last steps
            // extrapolate to this one's end, when this step continues them: q̃ alone ignores
            // the forces, which change little from step to step.
            history = w.warm.usable(q_start, v_start, t_end);
            if history > 0 {
                w.warm.acceleration(history, q_out);
                for (q, p) in q_out.iter_mut().zip(&w.inertial) {
                    *q = p + hv * hv * *q;
                }
            } else {
                q_out.copy_from_slice(&w.inertial);
            }
            // Contacts are held along their normals at the step's start: linear rows, which
            // neither a pile's heavy loads turn indefinite nor a fast ball crosses.
            model.hold_contact_normals(Some((t_start, q_start)));
            let solved = newton(model, w, t_end, hv, q_base, q_out, v_out, stop, history).map_err(
                |e| match e {
                    EvalError::WholeTurn { .. } | EvalError::NonFinite(_) => {
                        diverged(model, w, (t_end, hv), q_base, q_out, v_out, e)
                    }
                    e => e,
                },
            );
            model.hold_contact_normals(None);
            solved?;
            true
        }
        None => {
            // A plain ODE: explicit in its accelerations at the step's start.
            f.acceleration(t_start, q_start, v_start, q_out)?;
            for (q, p) in q_out.iter_mut().zip(&w.inertial) {
                *q = p + hv * hv * *q;
            }
            false
        }
    };
    for ((v, q), b) in v_out.iter_mut().zip(q_out.iter()).zip(q_base) {
        *v = (q - b) / hv;
    }
    if constrained {
        w.warm
            .record(history > 0, t_end, q_out, v_out, &w.inertial, hv, &w.lambda);
    } else {
        w.warm.record_end(q_out, v_out);
    }
    Ok(())
}

/// Where the Newton iteration of one step stands between iterations.
struct Iteration {
    /// The residual of the last iteration (`∞` before the first).
    previous: f64,
    /// Whether this is the first iteration of the step.
    first: bool,
    /// The interior-point iteration starts at this iterate.
    start_barrier: bool,
    /// Newton steps of this time step that fell by less than a quarter.
    slow_steps: usize,
    /// Slow iterations kept on the factor since this step's last whole-stiffness one.
    kept: Option<usize>,
    /// The length of the Newton step on trial, while a line search is under way.
    trial: Option<f64>,
    /// With the contacts solved as their own problem: the rows' error of the last iteration,
    /// and how many iterations in a row it has not fallen (see [`LCP_STALLS`]).
    lcp_error: f64,
    lcp_stalls: usize,
    /// How many times this step has solved that problem.
    contact_solves: usize,
    /// The iteration after which a hot-started interior-point iteration starts again cold (at
    /// once, after a blocked step: [`HOT_BLOCKED`]).
    hot_until: Option<usize>,
    /// How near its answer the iteration has come, and how long ago.
    progress: Progress,
}

/// Solves `M(q) (q − q̃) − ĥ² (Q(q, q̇) + J(q)ᵀ λ) = 0`, `C(q, t) = 0`, with
/// `q̇ = (q − q_base)/ĥ`, from the `q` given, in place.
#[allow(clippy::too_many_arguments)]
fn newton(
    model: &mut dyn ConstrainedModel,
    w: &mut Work,
    t: f64,
    h: f64,
    q_base: &[f64],
    q: &mut [f64],
    v: &mut [f64],
    stop: Stopping,
    history: usize,
) -> Result<(), EvalError> {
    let Stopping {
        tolerance,
        relative,
        max_iterations,
    } = stop;
    let n = q.len();
    let h2 = h * h;
    resize(
        n,
        &mut [
            &mut w.force,
            &mut w.momentum,
            &mut w.scratch,
            &mut w.dq,
            &mut w.applied_force,
        ],
    );
    let varies = model.forces_vary();
    let mut it = Iteration {
        previous: f64::INFINITY,
        first: true,
        start_barrier: false,
        slow_steps: 0,
        kept: None,
        trial: None,
        lcp_error: f64::INFINITY,
        lcp_stalls: 0,
        contact_solves: 0,
        hot_until: None,
        progress: Progress::default(),
    };
    loop {
        for ((v, q), b) in v.iter_mut().zip(q.iter()).zip(q_base) {
            *v = (q - b) / h;
        }
        match model.assemble(t, q, v) {
            Ok(()) => {}
            // A trial step that turned a body by a whole turn (constraints that conflict make
            // Newton's steps huge) is stepped back as one that raised the residual would be.
            Err(EvalError::WholeTurn { .. }) if back_off(w, q, h2, &mut it, f64::INFINITY) => {
                continue;
            }
            Err(e) => return Err(e),
        }
        // The applied forces at the iterate (and a parametric object's mass there): implicit,
        // as the constraint forces are; once a step where they cannot change.
        if it.first || varies {
            model.applied_force(t, q, v, &mut w.applied_force)?;
            w.applied_scale = applied_displacement(model, w, h2);
        }
        if it.first {
            it.start_barrier = begin(model, w, q, h2, history);
        }
        row_residuals(model, w, q, q_base, h);
        // The momentum residual F₁ = M (q − q̃) − ĥ² Q − Jᵀμ, measured as W F₁ (metres).
        total_force(model, w, h2);
        let (momentum, correction, floor) = measured_momentum_residual(model.inv_mass(), q, w, h2);
        // The rows' own displacements `μ_r (J W Jᵀ)_rr`, the largest of which sets the KKT
        // solve's proximal weight below (the masses are also what `choose_roles` reads, at this
        // same iterate). On a hanging cloth they are hundreds of times the net `W Jᵀμ`.
        row_masses(model, &mut w.mass);
        let rows =
            w.mu.iter()
                .zip(&w.mass)
                .fold(0.0_f64, |m, (mu, mass)| m.max((mu * mass).abs()));
        let forces = correction.max(w.applied_scale);
        let momentum_tolerance =
            momentum_tolerance(relative, forces, q, model.stiffness_ratio()).max(floor);
        // The rows must hold as closely: a row off by δ is an error of δ/((J W Jᵀ)_rr ĥ²) in
        // its λ (at h = 1e-6 a pendulum's bob falls off its rod by only 1e-11 m a step, well
        // within 1e-10 m, and λ read 0). The interior-point iteration's contacts keep the
        // absolute tolerance that its barrier's floor is set from.
        let c_tolerance = if w.interior {
            tolerance
        } else {
            tolerance.min(momentum_tolerance)
        };
        // The KKT solve's proximal term leaves each held row off by `p μ_r (J W Jᵀ)_rr`: at
        // most a tenth of the rows' tolerance.
        w.proximal = if rows > 0.0 {
            PROXIMAL.min(0.1 * c_tolerance / rows)
        } else {
            PROXIMAL
        };
        // A step that begins in the interior-point iteration may be solved already: a resting
        // pile's warm start (the last step's forces, none on the contacts apart) can meet every
        // tolerance, and the barrier's cold start (every slack and force at least 1e-6 m) would
        // undo it, for about ten iterations to find it again. One that comes near starts hot.
        let warm_error = (w.bounded && it.start_barrier && w.iterations == 0).then(|| {
            mark_contacts(model, w);
            constraint_error(model, w, h2)
        });
        let within = |factor: f64, error: f64| {
            error <= factor * c_tolerance && momentum <= factor * momentum_tolerance
        };
        if warm_error.is_some_and(|e| within(1.0, e)) {
            break;
        }
        if w.bounded && it.start_barrier {
            let hot = warm_error.is_some_and(|e| within(HOT_START, e));
            #[cfg(test)]
            let hot = hot && HOT_STARTS.with(std::cell::Cell::get);
            // The test above added the compliance to the rows' residuals in place.
            row_residuals(model, w, q, q_base, h);
            start_interior(model, w, hot.then_some(tolerance));
            it.start_barrier = false;
            if hot {
                it.hot_until = Some(w.iterations + HOT_ITERATIONS);
            }
        }
        let max_c = constraint_error(model, w, h2);
        if !(max_c.is_finite() && momentum.is_finite()) {
            return Err(EvalError::NonFinite("the implicit step's residual".into()));
        }
        if (max_c <= c_tolerance || lcp_stalled(w, &mut it, max_c, tolerance))
            && momentum <= momentum_tolerance
        {
            // Only a step that solved the problem has its matrix to split on.
            if w.contact_lcp && it.contact_solves > 0 {
                split_at_end(model, w, h2, c_tolerance);
            }
            break;
        }
        let residual = max_c.max(momentum);
        // With the contacts as their own problem, from its first iteration (the active set's
        // before it say nothing of it): one that came near and then moved away has diverged.
        let relative = (max_c / c_tolerance).max(momentum / momentum_tolerance);
        if w.contact_lcp && it.progress.observe(relative) {
            return Err(stalled(model, w, (max_c, momentum), c_tolerance));
        }
        if back_off(w, q, h2, &mut it, residual) {
            continue;
        }
        if w.iterations >= max_iterations {
            return Err(stalled(model, w, (max_c, momentum), c_tolerance));
        }
        w.iterations += 1;
        if it.hot_until.is_some_and(|until| w.iterations > until) {
            // A hot start whose step was blocked, or that has not found its answer in many
            // iterations, has stalled on a boundary (a friction force its warm start left at
            // its cone's edge with no slip, which the step must take past it): the step starts
            // again, cold.
            it.hot_until = None;
            it.start_barrier = true;
            it.previous = f64::INFINITY;
            it.slow_steps = 0;
            w.restart(q, h2);
            continue;
        }
        if restart_contact_lcp(model, w, q, h2) {
            it.previous = f64::INFINITY;
            it.slow_steps = 0;
            continue;
        }
        if w.contact_lcp {
            it.first = false;
            it.contact_solves += 1;
            // Circling, not nearer its answer for a while, it damps its steps (`progress`).
            let damping = it.progress.damping();
            let before = (damping < 1.0).then(|| w.mu.clone());
            contact_step(model, w, h2, (c_tolerance, tolerance))?;
            take_fixed(model, w, q, h2);
            step(model, w, q, (Factorization::Reuse, h2, tolerance))?;
            if let Some(before) = before {
                damp(w, q, (&before, damping), h2);
            }
            it.trial = None;
            continue;
        }
        if restart_interior(model, w, q, h2) {
            it.start_barrier = true;
            it.previous = f64::INFINITY;
            it.slow_steps = 0;
            continue;
        }
        let changed = set_roles(model, w, q, h2);
        let factorization = factorization(w, &mut it, changed, residual);
        let alpha = step(model, w, q, (factorization, h2, tolerance))?;
        if it.hot_until.is_some() && alpha < HOT_BLOCKED {
            // Blocked: the warm start left a force against an edge it must leave. Stalled so,
            // a resting pyramid's step once took its 200 iterations without moving.
            it.hot_until = Some(0);
        }
        // The first step of each time step projects the prediction onto the constraints,
        // which a merit that starts at M (q − q̃) = 0 would always refuse: it is taken whole.
        it.trial = (w.iterations > 1).then_some(1.0);
    }
    finish(model, w);
    Ok(())
}

/// Whether the contacts, solved as their own problem, hold within `tolerance` (the step's
/// own, in metres) and have stopped closing in: [`LCP_STALLS`] iterations in a row without the
/// rows' error `max_c` falling by 1 %.
fn lcp_stalled(w: &Work, it: &mut Iteration, max_c: f64, tolerance: f64) -> bool {
    if !w.contact_lcp || max_c > tolerance {
        it.lcp_stalls = 0;
        it.lcp_error = f64::INFINITY;
        return false;
    }
    if max_c >= 0.99 * it.lcp_error {
        it.lcp_stalls += 1;
    } else {
        it.lcp_stalls = 0;
    }
    it.lcp_error = max_c;
    it.lcp_stalls >= LCP_STALLS
}

/// The first iteration of a step: λ and μ from the last steps, the buffers sized, whether any
/// row is bounded or holds a velocity, and whether the contacts start in the interior-point
/// iteration (returned: it starts at this iterate).
fn begin(model: &dyn ConstrainedModel, w: &mut Work, q: &[f64], h2: f64, history: usize) -> bool {
    let m = model.values().len();
    // λ of the last steps is the first guess of this one's: extrapolated on the rows that move
    // smoothly, as the start of q is.
    w.lambda.clear();
    w.lambda.extend_from_slice(model.last_multipliers());
    w.lambda.resize(m, 0.0);
    let bounds = Bounds::new(
        model.inequality_rows(),
        model.multiplier_bounds(),
        model.friction_rows(),
    );
    w.warm
        .multipliers(history, |r| bounds.free(r), &mut w.lambda);
    w.mu.clear();
    w.mu.extend(w.lambda.iter().map(|l| l * h2));
    for buffer in [&mut w.residual, &mut w.rows, &mut w.dmu, &mut w.mass] {
        buffer.resize(m, 0.0);
    }
    w.roles.resize(m, Role::Held);
    w.bounded = super::row_bounds(model, h2).any_bounded();
    if !w.bounded {
        w.roles.fill(Role::Held);
    }
    w.velocity_rows = model.velocity_rows().contains(&true);
    // A step after one that needed the interior-point iteration starts with it, but for one
    // step in RETRY_ACTIVE_SET (more after retries that failed), which tries the active set again.
    w.retrying = retry_due(w);
    w.interior = w.interior_steps > 0 && !w.retrying && (0..m).any(|r| interior_row(model, r));
    // So does a step after one whose frictional contacts needed their own problem: the active
    // set that cycled then (a pyramid's redundant corners) cycles again, and its iterations
    // wander far (metres) before the step turns to the problem.
    // Contacts keep the compliance once a step has needed it (see `Work::compliant_contacts`).
    w.contact_compliance = w.compliant_contacts;
    w.contact_lcp = !w.interior
        && w.contact_lcp_steps > 0
        && !w.contact_lcp_steps.is_multiple_of(RETRY_ACTIVE_SET);
    // Unless its rows have grown past that problem's size since (a tumbler's boxes landing on
    // one another): the barrier takes them, cones and all.
    if w.contact_lcp && cones_in_interior(model) && (0..m).any(|r| interior_row(model, r)) {
        w.contact_lcp = false;
        w.interior = true;
    }
    // 3D contacts' circular cones are solved in the contacts' own problem only: the barrier
    // and the active set bound each friction row on its own.
    if (0..m).any(|r| bounds.sibling(r).is_some()) {
        w.interior = false;
        w.contact_lcp = true;
    }
    w.sliding_compliance = false;
    w.start_q.clear();
    w.start_q.extend_from_slice(q);
    w.start_mu.clone_from(&w.mu);
    w.interior
}

/// How far the rows are from holding, `|C|∞`, complementarity aware: an inequality apart
/// (`μ = 0`) holds while `g ≥ 0`, and a row at one of its bounds has given up its target. A
/// multiplier beyond its bounds (a contact that pulls) is as far off as the displacement its
/// excess makes, `μ (J W Jᵀ)_rr`: a held row's Newton step can carry it there, and only the next
/// iteration's roles bring it back. Under the interior-point iteration a contact counts
/// `min(|g|, μ (J W Jᵀ)_rr)` and any penetration (and its residual takes the contacts'
/// compliance).
fn constraint_error(model: &dyn ConstrainedModel, w: &mut Work, h2: f64) -> f64 {
    if !w.bounded {
        return max_abs(&w.residual);
    }
    let bounds = super::row_bounds(model, h2);
    let mut max_c = 0.0_f64;
    for r in 0..w.residual.len() {
        // The contacts' compliance: under the interior-point iteration, and in the contacts'
        // own problem once it needed it (see `contact_step`).
        let compliance = if w.interior {
            w.contact[r].then(|| CONTACT_COMPLIANCE * w.mass[r])
        } else if w.contact_compliance {
            compliant_contact(model, &w.mass, r)
        } else {
            None
        };
        if let Some(compliance) = compliance {
            w.residual[r] += compliance * w.mu[r];
        }
        if w.interior && w.contact[r] {
            // Either the gap is closed or the force is too small to move anything by the
            // tolerance; the slack and μ stay positive.
            let (raw, mu) = (w.residual[r], w.mu[r]);
            let off = (-raw).max(raw.abs().min(mu * w.mass[r]));
            max_c = max_c.max(off);
            continue;
        }
        if w.interior
            && let Some(cone) = w.cone[r]
        {
            // Either the row does not slip, or its force is within the tolerance's
            // displacement of the edge its slip asks for; the force stays inside the cone.
            let (lower, upper) = cone_gaps(w, r, cone, 0.0);
            let raw = w.residual[r];
            let edge = if raw >= 0.0 { lower } else { upper };
            let off = raw.abs().min(edge.max(0.0) * w.mass[r]);
            let beyond = (-lower).max(-upper).max(0.0) * w.mass[r];
            max_c = max_c.max(off).max(beyond);
            continue;
        }
        let (raw, mu) = (w.residual[r], w.mu[r]);
        let (lo, hi) = bounds.get(r, &w.mu);
        if w.contact_lcp && w.mass[r] > 0.0 {
            // As the contacts' own problem measures its rows (the displacement one projected
            // step would make): a contact that has let go with a force of 1e-40 left over, or
            // a friction row inside a cone of that size, is off by what that force moves, not
            // by its gap or its slip. Counting the gap would ask the problem for a precision
            // it has already passed, and the iteration would never end.
            let mass = w.mass[r];
            if let Some(s) = bounds.sibling(r) {
                // A 3D contact's friction: its projected step onto the circle, and how far
                // its force lies beyond it.
                // One scale for both rows (see `contact_problem::error`).
                let scale = mass.max(w.mass[s]);
                let radius = hi.max(0.0);
                let trial = [mu - raw / scale, w.mu[s] - w.residual[s] / scale];
                let step = disk::project(trial, radius);
                let off = (step[0] - mu).hypot(step[1] - w.mu[s]) * scale;
                let beyond = (mu.hypot(w.mu[s]) - radius).max(0.0) * scale;
                max_c = max_c.max(off).max(beyond);
                continue;
            }
            let off = ((mu - raw / mass).clamp(lo, hi.max(lo)) - mu).abs() * mass;
            let beyond = ((mu - hi).max(lo - mu)).max(0.0) * mass;
            max_c = max_c.max(off).max(beyond);
            continue;
        }
        if bounds.friction(r)
            && let Role::Fixed(edge) = w.roles[r]
        {
            // A slide at the cone's edge, fixed at the edge its normal force gave when the
            // roles were set: off by how far the slide runs the wrong way, and by how far the
            // edge has moved since, as the displacement that difference makes.
            // A contact that did not push had no friction (edge 0): fine while its cone stays
            // shut; once it opens, the row must be chosen again.
            let (at, wrong_way) = if edge > 0.0 {
                (hi, raw > 0.0)
            } else if edge < 0.0 {
                (lo, raw < 0.0)
            } else {
                (0.0, hi > 0.0)
            };
            let off = if wrong_way { raw.abs() } else { 0.0 };
            max_c = max_c.max(off).max((mu - at).abs() * w.mass[r]);
            continue;
        }
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
    max_c
}

/// A safeguard against divergence: a Newton step that more than doubles the residual is
/// halved, from the same start (a few times at most). Returns whether it stepped back. A
/// stricter line search (demanding a decrease) stalls the modified Newton iteration where
/// compression leaves its matrix an overestimate, as on a whipping cloth, whose steps may raise
/// one residual while lowering the other.
fn back_off(w: &mut Work, q: &mut [f64], h2: f64, it: &mut Iteration, residual: f64) -> bool {
    let Some(alpha) = it.trial.take() else {
        return false;
    };
    if w.interior || !(residual > 2.0 * it.previous) || !(alpha > 1.0 / 16.0) {
        return false;
    }
    // The iterate is the start plus `alpha` times the step: half of that back, rather than a
    // copy of the start kept at every iteration (on a 10⁵-link chain those copies were
    // megabytes an iteration, for a line search that rarely runs).
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
    it.trial = Some(alpha);
    true
}

/// Whether the step goes over to solving its bounded rows as their own complementarity problem
/// ([`contact_step`]) now: its roles have not settled after [`INTERIOR_AFTER`] iterations, some
/// row is a friction row, and the rows are few enough for that problem's dense matrix (else
/// the interior-point iteration takes them, cones and all: [`cones_in_interior`]). It starts
/// again from where this step started.
fn restart_contact_lcp(model: &dyn ConstrainedModel, w: &mut Work, q: &mut [f64], h2: f64) -> bool {
    if w.contact_lcp
        || w.interior
        || w.iterations <= INTERIOR_AFTER
        || !model.friction_rows().iter().any(Option::is_some)
        || cones_in_interior(model)
    {
        return false;
    }
    w.contact_lcp = true;
    w.restart(q, h2);
    true
}

/// Whether a frictional step whose roles do not settle goes over to the interior-point
/// iteration, with a barrier for each friction row's cone, rather than solve its bounded rows
/// as their own dense problem: where there are more of them than Lemke's pivoting takes
/// ([`lemke::LARGEST`]).
fn cones_in_interior(model: &dyn ConstrainedModel) -> bool {
    let contacts = model.inequality_rows().iter().filter(|&&i| i).count();
    let friction = model.friction_rows().iter().flatten().count();
    #[cfg(test)]
    if let Some(forced) = CONES_IN_INTERIOR.with(std::cell::Cell::get) {
        return friction > 0 && forced;
    }
    friction > 0 && contacts + friction > lemke::LARGEST
}

#[cfg(test)]
thread_local! {
    /// The way a test's frictional steps go when their roles do not settle, whatever their
    /// size: `Some(true)` to the barrier, `Some(false)` to the contacts' own problem.
    pub(super) static CONES_IN_INTERIOR: std::cell::Cell<Option<bool>> =
        const { std::cell::Cell::new(None) };
    /// Whether a test's steps that begin in the barrier near their answer start hot.
    pub(super) static HOT_STARTS: std::cell::Cell<bool> = const { std::cell::Cell::new(true) };
    /// The Newton iterations of a test's steps, counted as each step ends.
    pub(super) static ITERATIONS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Whether the step goes over to the interior-point iteration now: the contacts' active set
/// has not settled after [`INTERIOR_AFTER`] iterations (packed, redundant contacts make the
/// semismooth iteration cycle; a large frictional step goes over whatever the reason, as a
/// small one goes to its own problem). The interior-point iteration, which has no active set
/// to choose, then starts again from where this step started.
fn restart_interior(model: &dyn ConstrainedModel, w: &mut Work, q: &mut [f64], h2: f64) -> bool {
    let m = w.mu.len();
    if w.interior
        || w.iterations <= INTERIOR_AFTER
        || (w.role_changes == 0 && !cones_in_interior(model))
        || !(0..m).any(|r| interior_row(model, r))
    {
        return false;
    }
    w.interior = true;
    w.restart(q, h2);
    true
}

/// Which rows hold their target in this iteration, and which keep a fixed multiplier (an
/// inequality apart, a motor at its limit): the primal-dual active set, a semismooth Newton
/// method for the complementarity ([`choose_roles`]). A fixed row's multiplier takes its value
/// now, and the momentum residual with it: the step then leaves it be (its column of `Jᵀ` is
/// out of the matrix). Returns whether any role changed.
fn set_roles(model: &dyn ConstrainedModel, w: &mut Work, q: &[f64], h2: f64) -> bool {
    let changed = if w.bounded {
        choose_roles(model, w, h2)
    } else {
        0
    };
    w.role_changes = changed;
    if w.bounded {
        take_fixed(model, w, q, h2);
    }
    changed > 0
}

/// Each fixed row's multiplier takes its value, and the momentum residual with them.
fn take_fixed(model: &dyn ConstrainedModel, w: &mut Work, q: &[f64], h2: f64) {
    if w.roles.iter().any(|r| matches!(r, Role::Fixed(_))) {
        for r in 0..w.mu.len() {
            if let Role::Fixed(target) = w.roles[r] {
                w.mu[r] = target;
                w.lambda[r] = target / h2;
            }
        }
        total_force(model, w, h2);
        momentum_residual(model.inv_mass(), q, w);
    }
}

/// Chord iterations: the factor is kept, across steps too, while the residual falls by 4×; a new
/// active set or a slow step refactors, twice slow with the whole stiffness (a cloth's whip).
fn factorization(w: &Work, it: &mut Iteration, changed: bool, residual: f64) -> Factorization {
    let slow = !it.first && residual > 0.25 * it.previous;
    it.slow_steps += usize::from(slow);
    // With the whole stiffness factored, a slow step still falling keeps its factor a while: the
    // rate is the matrix's own (compressed rods bounded); a held curtain refactored 150 times a
    // step. A stall (a whipping cloth's rounding) still refactors, as at every KEPT_SLOW.
    let keep = it
        .kept
        .filter(|&k| k < KEPT_SLOW && residual < 0.98 * it.previous);
    let factorization = if w.interior {
        Factorization::Fresh
    } else if !(w.refactor || changed || slow) {
        Factorization::Reuse
    } else if let (Some(k), false) = (keep, w.refactor || changed) {
        it.kept = Some(k + 1);
        Factorization::Reuse
    } else if it.slow_steps >= 2 {
        it.kept = Some(0);
        Factorization::Full
    } else {
        Factorization::Fresh
    };
    it.previous = residual;
    it.first = false;
    factorization
}

/// One Newton step: the rows' right-hand sides for their roles, the solve (Mehrotra's
/// predictor and corrector under the interior-point iteration: the step solved with no barrier
/// tells how far the complementarity can fall, the barrier is set from it, and the same factor
/// solves again with the second-order term), and the update of `q`, `μ` and `λ`. Returns the
/// length of the step taken (1 but under the interior-point iteration).
fn step(
    model: &mut dyn ConstrainedModel,
    w: &mut Work,
    q: &mut [f64],
    (factorization, h2, tolerance): (Factorization, f64, f64),
) -> Result<f64, EvalError> {
    for r in 0..w.rows.len() {
        w.rows[r] = match w.roles[r] {
            Role::Held | Role::Compliant(_) => w.residual[r],
            Role::Fixed(target) => w.mu[r] - target,
        };
    }
    let complementarity = if w.interior {
        barrier_rows(w, tolerance)
    } else {
        0.0
    };
    let factored = if w.interior {
        coupled_step(model, w, factorization, h2)?
    } else {
        exact_step(model, w, factorization, h2)?
    };
    w.refactor = false;
    w.factorizations += usize::from(factored);
    let barrier = if w.interior {
        let barrier = centering(w, complementarity, tolerance);
        coupled_step(model, w, Factorization::Reuse, h2)?;
        barrier
    } else {
        0.0
    };
    let alpha = if w.interior {
        interior_step(w, barrier, tolerance)
    } else {
        1.0
    };
    apply_step(w, q, alpha, h2);
    if w.interior {
        recenter(w, h2, tolerance);
    }
    Ok(alpha)
}

/// Takes `alpha` of the step in `w.dq` and `w.dmu`.
fn apply_step(w: &mut Work, q: &mut [f64], alpha: f64, h2: f64) {
    for (qi, dq) in q.iter_mut().zip(&w.dq) {
        *qi += alpha * dq;
    }
    for (mu, dmu) in w.mu.iter_mut().zip(&w.dmu) {
        *mu += alpha * dmu;
    }
    for (l, mu) in w.lambda.iter_mut().zip(&w.mu) {
        *l = mu / h2;
    }
}

/// Ends a converged step: counts the steps that needed the interior-point iteration, and
/// records λ. A contact apart keeps the small force the barrier left it, below what could move
/// anything by the tolerance: it is reported as none.
fn finish(model: &mut dyn ConstrainedModel, w: &mut Work) {
    #[cfg(test)]
    ITERATIONS.with(|n| n.set(n.get() + w.iterations));
    count_interior_steps(w);
    // A step whose compliance only chose a slide's split (see `contact_lcp`) leaves the next
    // ones rigid: a slide that stops sticks without it.
    w.compliant_contacts |= w.interior || (w.contact_compliance && !w.sliding_compliance);
    w.contact_lcp_steps = if w.contact_lcp {
        w.contact_lcp_steps + 1
    } else {
        0
    };
    if w.interior {
        for r in 0..w.lambda.len() {
            if w.contact[r] && w.residual[r] > w.mu[r] * w.mass[r] {
                w.lambda[r] = 0.0;
            }
        }
        // And a contact reported apart has no friction.
        for r in 0..w.lambda.len() {
            if let Some((n, _)) = w.cone[r]
                && w.lambda[n] == 0.0
            {
                w.lambda[r] = 0.0;
            }
        }
    }
    model.record(&w.lambda);
}

/// `Jᵀμ + ĥ² Q` into `w.force`: the forces of the momentum residual at the iterate.
fn total_force(model: &dyn ConstrainedModel, w: &mut Work, h2: f64) {
    model.jacobian().mul_transpose(&w.mu, &mut w.force);
    for (f, q) in w.force.iter_mut().zip(&w.applied_force) {
        *f += h2 * q;
    }
}

/// `ĥ² |W Q|∞`, the displacement the applied forces make in the step (metres): the scale of
/// the momentum residual beside the constraints' own. `w.scratch` is scratch.
fn applied_displacement(model: &dyn ConstrainedModel, w: &mut Work, h2: f64) -> f64 {
    model.inv_mass().apply(&w.applied_force, &mut w.scratch);
    h2 * max_abs(&w.scratch)
}
