//! Post-step projection onto the constraint manifold (an alternative to Baumgarte feedback).
//!
//! Positions: Newton's method on `C(q) = 0` with the minimum-kinetic-metric correction
//! `Δq = W Jᵀ μ`, repeated until every equality has `|C| ≤ tolerance` and every inequality
//! `g ≥ −tolerance`. Velocities: the same projection of `q̇` onto `Ċ = J q̇ + ∂C/∂t = 0`.
//!
//! Inequality rows are not equalities: projecting `g = 0` would snap a ball flying above a floor
//! onto it. Each Newton step is therefore a small complementarity problem (the same solver as the
//! dynamics, [`crate::contact`]): with `w = C + J Δq`, the linearized constraint after the step,
//!
//! ```text
//! equality rows              w = 0            (μ free)
//! inequality rows, g ≤ tol   0 ≤ μ ⊥ w ≥ 0    (pushed out to g ≥ 0, never pulled in)
//! inequality rows apart      μ = 0            (untouched; a row the step would violate
//!                                              joins at the next iteration)
//! velocity rows (motors)     μ = 0            (no position to project)
//! ```
//!
//! and for velocities, `w = J (q̇ + Δq̇) + ∂C/∂t`: equalities and unlimited motors to zero, active
//! inequality rows only if closing (`0 ≤ μ ⊥ w ≥ 0`, a separating contact keeps its speed), and
//! rows with a force limit untouched (a finite force gives no impulse). Both reuse the multiplier
//! solver, so redundant constraints are handled as in the dynamics.
//!
//! The same projection assembles a start ([`Purpose::Assembly`], for
//! [`System::assemble`](crate::System::assemble)); there the velocity pass holds the equality
//! rows alone (see [`Purpose`]).

use crate::assembly::Evaluator;
use crate::dynamics::Acceleration;
use crate::dynamics::conflicts::complementarity_error;
use crate::error::StepFailure;
use crate::model::Model;
use crate::settings::{Projection, Settings};
use crate::solve::MultiplierMatrix;
use crate::solve::SolveError;
use crate::solve::complementarity::{self, Failure, Problem, RowState};

/// What a projection is for, which decides the rows its velocity pass holds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Purpose {
    /// After a step: equalities and unlimited motors to `Ċ = 0`, touching contacts to `ġ ≥ 0`.
    Step,
    /// Before the first step: the equality rows alone, and only if some `|Ċ|` exceeds
    /// `velocity_tolerance`. A motor spins up as its law says, and a contact that approaches is
    /// an impact the first step resolves with its restitution; a start already on its
    /// constraints is left bit for bit.
    Assembly {
        /// Below this `max |Ċ|` of the equalities, the velocities are left as they are.
        velocity_tolerance: f64,
    },
}

/// Projects `(q, q̇)` at time `t` onto the constraints: `C = 0`, `g ≥ 0`, then `Ċ = 0` and
/// `ġ ≥ 0` for the contacts (for the rows `purpose` says). Returns the Newton iterations the
/// positions took.
#[allow(clippy::too_many_arguments)]
pub(super) fn project(
    ev: &mut Evaluator,
    acceleration: &mut Acceleration,
    model: &Model,
    settings: &Settings,
    projection: &Projection,
    purpose: Purpose,
    t: f64,
    (q, v): (&mut [f64], &mut [f64]),
) -> Result<usize, StepFailure> {
    let m = ev.layout().rows();
    if m == 0 {
        return Ok(0);
    }
    let mut work = ProjectionWork::new(m, q.len());
    let mut iteration = 0;
    loop {
        ev.evaluate_constraints(model, t, q, v)?;
        // Redundant contacts (a rack of balls) are solved to within the contact tolerance, not
        // to the projection's: an assembly, which must end, counts them held there.
        let slack = match purpose {
            Purpose::Step => 0.0,
            Purpose::Assembly { .. } => settings.contact_tolerance,
        };
        let error = position_error(ev, slack);
        if error <= projection.tolerance {
            break;
        }
        if iteration == projection.max_iterations {
            return Err(StepFailure::Projection(error));
        }
        let (c, layout) = (ev.c(), ev.layout());
        for i in 0..m {
            work.b[i] = -c[i];
            // Redundant contacts (a pile) cannot all be moved by their own gaps: each may
            // be left off by the contact tolerance.
            work.allowance[i] = if layout.inequality[i] {
                settings.contact_tolerance
            } else {
                0.0
            };
            (work.lo[i], work.hi[i]) = if layout.velocity[i] {
                (0.0, 0.0)
            } else if layout.inequality[i] {
                if c[i] <= projection.tolerance.max(settings.contact_tolerance) {
                    (0.0, f64::INFINITY)
                } else {
                    (0.0, 0.0)
                }
            } else {
                (f64::NEG_INFINITY, f64::INFINITY)
            };
        }
        correct(ev, acceleration, model, settings, purpose, &mut work)?;
        for (qi, d) in q.iter_mut().zip(&work.correction) {
            *qi += d;
        }
        iteration += 1;
    }
    // Ċ at the projected positions was computed by the last evaluation; J q̇ lies in the
    // range of J, so these rows are consistent.
    work.allowance.fill(0.0);
    let (c, c_dot, layout) = (ev.c(), ev.c_dot(), ev.layout());
    let equality = |i: usize| !layout.inequality[i] && !layout.velocity[i];
    if let Purpose::Assembly { velocity_tolerance } = purpose {
        let off = (0..m).any(|i| equality(i) && !(c_dot[i].abs() <= velocity_tolerance));
        if !off {
            return Ok(iteration);
        }
    }
    for i in 0..m {
        work.b[i] = -c_dot[i];
        (work.lo[i], work.hi[i]) = if matches!(purpose, Purpose::Assembly { .. }) && !equality(i) {
            (0.0, 0.0)
        } else if layout.inequality[i] {
            if c[i] <= projection.tolerance.max(settings.contact_tolerance) {
                (0.0, f64::INFINITY)
            } else {
                (0.0, 0.0)
            }
        } else if layout.bounds().limited(i) {
            (0.0, 0.0)
        } else {
            (f64::NEG_INFINITY, f64::INFINITY)
        };
    }
    correct(ev, acceleration, model, settings, purpose, &mut work)?;
    for (vi, d) in v.iter_mut().zip(&work.correction) {
        *vi += d;
    }
    Ok(iteration)
}

/// The error projection removes: `|C|` of equality rows, the violation `−g` of inequalities
/// beyond `slack`.
fn position_error(ev: &Evaluator, slack: f64) -> f64 {
    let (c, inequality) = (ev.c(), &ev.layout().inequality);
    (0..c.len())
        .map(|i| {
            if inequality[i] {
                -c[i] - slack
            } else {
                c[i].abs()
            }
        })
        .fold(0.0, f64::max)
}

/// `correction = W Jᵀ μ` with μ the solution of the complementarity problem in `work`.
///
/// A linearization with no solution fails a step's projection, which starts a hair off its
/// constraints; an assembly takes its least-squares μ instead (Gauss–Newton), because a start
/// far off meets such steps on its way (a point that must travel along a curve to its nail) and
/// reaches the constraints nonetheless, while constraints that truly conflict end the iteration
/// off them, and are named there.
fn correct(
    ev: &Evaluator,
    acceleration: &mut Acceleration,
    model: &Model,
    settings: &Settings,
    purpose: Purpose,
    work: &mut ProjectionWork,
) -> Result<(), StepFailure> {
    let layout = ev.layout();
    let a = MultiplierMatrix::new(&layout.jacobian, &layout.inv_mass);
    let mut outcome = solve_mu(&a, acceleration, settings, work);
    let inconsistent =
        |o: &Result<_, Failure>| matches!(o, Err(Failure::Solve(SolveError::Inconsistent { .. })));
    if inconsistent(&outcome) && matches!(purpose, Purpose::Assembly { .. }) {
        // The least-squares step: drop the part of −C that no μ produces, and solve again.
        let part = crate::solve::conflict::unreachable_part(&a, &work.b);
        for (b, p) in work.b.iter_mut().zip(&part) {
            *b -= p;
        }
        outcome = solve_mu(&a, acceleration, settings, work);
        if inconsistent(&outcome) && crate::math::vector::all_finite(&work.mu) {
            // What rounding leaves of the conflict: the step is as good as the solver's.
            outcome = Ok(());
        }
    }
    outcome.map_err(|f| StepFailure::Eval(complementarity_error(layout, model, f)))?;
    layout
        .jacobian
        .mul_transpose(&work.mu, &mut work.correction);
    layout.inv_mass.apply_in_place(&mut work.correction);
    Ok(())
}

/// μ of the complementarity problem `work` holds, from zero.
fn solve_mu(
    a: &MultiplierMatrix<'_>,
    acceleration: &mut Acceleration,
    settings: &Settings,
    work: &mut ProjectionWork,
) -> Result<(), Failure> {
    let problem = Problem {
        a: *a,
        b: &work.b,
        lo: &work.lo,
        hi: &work.hi,
        allowance: &work.allowance,
        slack: &[],
    };
    work.mu.fill(0.0);
    work.state.fill(RowState::Lower);
    let eps = crate::dynamics::active_set::threshold(&work.b);
    complementarity::solve(
        &problem,
        acceleration.solver_mut(),
        &settings.solve,
        eps,
        &mut work.state,
        &mut work.mu,
        &mut work.w,
        &mut work.workspace,
    )
    .map(|_| ())
}

/// Buffers of one projection.
struct ProjectionWork {
    b: Vec<f64>,
    lo: Vec<f64>,
    hi: Vec<f64>,
    allowance: Vec<f64>,
    mu: Vec<f64>,
    w: Vec<f64>,
    state: Vec<RowState>,
    correction: Vec<f64>,
    workspace: complementarity::Workspace,
}

impl ProjectionWork {
    fn new(m: usize, n: usize) -> Self {
        ProjectionWork {
            b: vec![0.0; m],
            lo: vec![0.0; m],
            hi: vec![0.0; m],
            allowance: vec![0.0; m],
            mu: vec![0.0; m],
            w: vec![0.0; m],
            state: vec![RowState::Lower; m],
            correction: vec![0.0; n],
            workspace: complementarity::Workspace::default(),
        }
    }
}
