//! How a Newton iteration that failed is reported ([`super::newton`]): as the constraints that
//! no position satisfies together, where that is what stopped it (seed 000's conflicting
//! constraints, found as the part of `C` no change of `q` reaches), or else as what it left:
//! its iterations and residuals, or the divergence that ended it.

use super::residual::row_residuals;
use super::work::Work;
use crate::error::EvalError;
use crate::integrate::{ConstrainedModel, Role};

/// The error of an iteration that diverged: an iterate that turned a body by a whole turn, or
/// was not finite, where no step back helped. Constraints that no position satisfies together
/// (a motor without a torque limit driving its hinge into a stop) make Newton's first step
/// huge: read at the step's prediction, they are named instead.
pub(super) fn diverged(
    model: &mut dyn ConstrainedModel,
    w: &mut Work,
    (t, h): (f64, f64),
    q_base: &[f64],
    q: &mut [f64],
    v: &mut [f64],
    error: EvalError,
) -> EvalError {
    q.copy_from_slice(&w.inertial);
    for ((v, q), b) in v.iter_mut().zip(q.iter()).zip(q_base) {
        *v = (q - b) / h;
    }
    if model.assemble(t, q, v).is_err() {
        return error;
    }
    row_residuals(model, w, q, q_base, h);
    conflict(model, w).unwrap_or(error)
}

/// The constraints among the rows held whose residuals no change of `q` removes, if any. A
/// row without a role yet (a failure before the iteration began) counts as held.
fn conflict(model: &dyn ConstrainedModel, w: &Work) -> Option<EvalError> {
    let held: Vec<bool> = (0..w.residual.len())
        .map(|r| w.roles.get(r).is_none_or(Role::holds))
        .collect();
    model.conflict(&w.residual, &held)
}

/// The error of an iteration that ran out of iterations, with residuals `(max |C|, momentum)`.
/// Constraints that no position satisfies together stall Newton's method too: it says which,
/// rather than suggest a smaller step (only when they are what is off: where the constraints
/// hold and the momentum balance stalls, the residuals left are rounding, whose spread says
/// nothing of a conflict).
pub(super) fn stalled(
    model: &dyn ConstrainedModel,
    w: &Work,
    (max_c, momentum): (f64, f64),
    tolerance: f64,
) -> EvalError {
    if let Some(conflict) = (max_c > tolerance).then(|| conflict(model, w)).flatten() {
        return conflict;
    }
    if w.contact_lcp {
        return EvalError::ContactsUnsettled {
            iterations: w.iterations,
            max_abs_c: max_c,
        };
    }
    EvalError::NoConvergence {
        iterations: w.iterations,
        max_abs_c: max_c,
        momentum_residual: momentum,
        role_changes: w.role_changes,
    }
}
