//! A start moved onto its constraints before the first step
//! ([`System::assemble`](crate::System::assemble)), and how far a state is from each constraint
//! ([`System::violations`](crate::System::violations)).
//!
//! A model whose initial positions break a constraint (a rod's length swept without moving its
//! bob) is otherwise pulled onto it by the feedback within the first steps: a jump no force
//! explains, which shows in the energy and in `max |C|`. Assembly is the projection of
//! [`super::projection`] made once, at the start, with the equality rows alone in its velocity
//! pass ([`Purpose::Assembly`]).

use crate::assembly::Evaluator;
use crate::diagnostics::AssemblyReport;
use crate::dynamics::Acceleration;
use crate::error::{AssemblyError, StepFailure, Violation};
use crate::model::Model;
use crate::settings::{Assembly, Projection, Settings};
use crate::state::State;

use super::projection::{self, Purpose};

/// The larger of two errors, NaN if either is: a constraint that cannot be evaluated to a
/// number is as far off as can be, and `f64::max` would hide it.
fn worse(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
}

/// Each constraint's distance from holding at the last evaluation (see [`Violation`]), in slot
/// order.
pub(super) fn violations(ev: &Evaluator, model: &Model) -> Vec<Violation> {
    violations_and_kinds(ev, model)
        .into_iter()
        .map(|(v, _)| v)
        .collect()
}

/// [`violations`], each with whether its constraint is an inequality.
fn violations_and_kinds(ev: &Evaluator, model: &Model) -> Vec<(Violation, bool)> {
    let (c, c_dot, layout) = (ev.c(), ev.c_dot(), ev.layout());
    layout
        .constraints
        .iter()
        .filter(|slot| slot.rows.end <= c.len())
        .filter_map(|slot| {
            let entry = model.constraints.get(slot.id)?;
            let (mut abs_c, mut abs_c_dot) = (0.0, 0.0);
            let mut inequality = false;
            for i in slot.rows.clone() {
                if layout.velocity[i] {
                    continue;
                }
                if layout.inequality[i] {
                    inequality = true;
                    abs_c = worse(abs_c, -c[i]);
                } else {
                    abs_c = worse(abs_c, c[i].abs());
                    abs_c_dot = worse(abs_c_dot, c_dot[i].abs());
                }
            }
            let violation = Violation {
                id: slot.id,
                name: entry.name.clone(),
                abs_c,
                abs_c_dot,
            };
            Some((violation, inequality))
        })
        .collect()
}

/// The machinery an assembly borrows from the pipeline.
pub(super) struct Parts<'a> {
    pub(super) evaluator: &'a mut Evaluator,
    pub(super) acceleration: &'a mut Acceleration,
}

/// Moves `state` onto the constraints as `options` say; on error `state` is left as it was.
pub(super) fn assemble(
    parts: Parts<'_>,
    model: &Model,
    state: &mut State,
    settings: &Settings,
    options: &Assembly,
) -> Result<AssemblyReport, AssemblyError> {
    let Parts {
        evaluator,
        acceleration,
    } = parts;
    evaluator
        .evaluate_constraints(model, state.t, &state.q, &state.v)
        .map_err(|e| AssemblyError::Failed(e.into()))?;
    let before = violations(evaluator, model);
    let abs_c = before.iter().fold(0.0, |m, v| worse(m, v.abs_c));
    let abs_c_dot = before.iter().fold(0.0, |m, v| worse(m, v.abs_c_dot));
    let (mut q, mut v) = (state.q.clone(), state.v.clone());
    let projection = Projection {
        max_iterations: options.max_iterations,
        tolerance: options.tolerance,
    };
    let purpose = Purpose::Assembly {
        velocity_tolerance: options.velocity_tolerance,
    };
    let outcome = projection::project(
        evaluator,
        acceleration,
        model,
        settings,
        &projection,
        purpose,
        state.t,
        (&mut q, &mut v),
    );
    let iterations = match outcome {
        Ok(iterations) => iterations,
        Err(StepFailure::Projection(_)) => {
            // The evaluator holds the last iterate: name what is still off there (contacts
            // beyond the contact tolerance, which the projection allows them).
            let mut off: Vec<Violation> = violations_and_kinds(evaluator, model)
                .into_iter()
                .filter(|(v, inequality)| {
                    let slack = if *inequality {
                        settings.contact_tolerance
                    } else {
                        0.0
                    };
                    !(v.abs_c <= options.tolerance + slack)
                })
                .map(|(v, _)| v)
                .collect();
            off.sort_by(|a, b| b.abs_c.total_cmp(&a.abs_c));
            return Err(AssemblyError::NoConvergence {
                iterations: options.max_iterations,
                off,
            });
        }
        Err(failure) => return Err(AssemblyError::Failed(failure)),
    };
    let largest_change = |new: &[f64], old: &[f64]| {
        new.iter()
            .zip(old)
            .fold(0.0, |m, (a, b)| worse(m, (a - b).abs()))
    };
    let report = AssemblyReport {
        iterations,
        abs_c,
        abs_c_dot,
        displacement: largest_change(&q, &state.q),
        velocity_change: largest_change(&v, &state.v),
    };
    state.q = q;
    state.v = v;
    Ok(report)
}
