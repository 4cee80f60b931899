//! What a step tells its caller: the diagnostics at the current state (energies, constraint
//! errors, each constraint's multipliers and forces) and, when it fails, the constraint that was
//! furthest from satisfied.

use crate::assembly::Evaluator;
use crate::constraint::ConstraintKind;
use crate::diagnostics::{ConstraintReport, Diagnostics};
use crate::dynamics::Acceleration;
use crate::error::{EvalError, StepError, StepFailure, WorstConstraint};
use crate::ids::BodyId;
use crate::model::Model;
use crate::state::State;

/// The error of a step from `state` that failed for `cause`, naming the constraint furthest from
/// satisfied at the last evaluation (or the one the cause names).
pub(super) fn step_error(
    ev: &Evaluator,
    model: &Model,
    state: &State,
    cause: StepFailure,
) -> StepError {
    let (c, layout) = (ev.c(), ev.layout());
    let worst = layout
        .constraints
        .iter()
        .filter(|slot| slot.rows.end <= c.len())
        .filter_map(|slot| {
            let entry = model.constraints.get(slot.id)?;
            // An inequality's error is its violation: a gap is not an error.
            let abs_c = slot
                .rows
                .clone()
                .map(|i| {
                    if layout.inequality[i] {
                        (-c[i]).max(0.0)
                    } else {
                        c[i].abs()
                    }
                })
                .fold(0.0_f64, f64::max);
            Some(WorstConstraint {
                id: slot.id,
                name: entry.name.clone(),
                abs_c,
            })
        })
        .max_by(|a, b| a.abs_c.total_cmp(&b.abs_c));
    let worst = match &cause {
        StepFailure::Eval(EvalError::Constraint { id, name, .. }) => Some(WorstConstraint {
            id: *id,
            name: name.clone(),
            abs_c: worst
                .as_ref()
                .filter(|w| w.id == *id)
                .map_or(f64::NAN, |w| w.abs_c),
        }),
        _ => worst,
    };
    StepError {
        t: state.t,
        step: state.steps + 1,
        worst,
        cause,
    }
}

/// The diagnostics at `state`, from an evaluation made there: λ is `step_lambda` when an
/// implicit step reached the state (the forces it applied), else the acceleration-level one.
pub(super) fn diagnostics(
    ev: &Evaluator,
    acceleration: &Acceleration,
    step_lambda: Option<&[f64]>,
    model: &Model,
    state: &State,
) -> Diagnostics {
    let kinetic_energy = model
        .bodies
        .iter()
        .flatten()
        .map(|b| b.kinetic_energy(model.dim, state.t, &state.q, &state.v))
        .sum();
    let view = state.view(model);
    let potential_energy = model
        .forces
        .iter()
        .flatten()
        .map(|f| f.potential_energy(&view))
        .sum();
    let layout = ev.layout();
    let (c, c_dot, jdot_qdot) = (ev.c(), ev.c_dot(), ev.jdot_qdot());
    // Which inequality rows take part: the acceleration-level active set, or, after an
    // implicit step (which chooses its contacts inside its Newton iteration and runs no active
    // set of its own here), the rows that carry a force.
    let held = |i: usize| match step_lambda {
        Some(lambda) => lambda.get(i).is_some_and(|l| *l != 0.0),
        None => acceleration.is_held(i),
    };
    let constraints = layout
        .constraints
        .iter()
        .enumerate()
        .filter_map(|(band, slot)| {
            let entry = model.constraints.get(slot.id)?;
            let j = &layout.jacobian;
            let lambda = &step_lambda.unwrap_or(acceleration.lambda())[slot.rows.clone()];
            // Jᵀλ restricted to this constraint's blocks (its band of J, one band per slot):
            // the generalized force on each body.
            let (_, blocks) = &j.bands()[band];
            let forces = blocks
                .clone()
                .map(|b| {
                    let blk = j.blocks()[b];
                    let vals = j.block_values(b);
                    let f: Vec<f64> = (0..blk.ncols)
                        .map(|col| {
                            (0..blk.nrows)
                                .map(|r| vals[r * blk.ncols + col] * lambda[r])
                                .sum()
                        })
                        .collect();
                    (BodyId(layout.block_bodies[b]), f)
                })
                .collect();
            Some(ConstraintReport {
                id: slot.id,
                name: entry.name.clone(),
                c: c[slot.rows.clone()].to_vec(),
                c_dot: c_dot[slot.rows.clone()].to_vec(),
                lambda: lambda.to_vec(),
                forces,
                jacobian: blocks
                    .clone()
                    .map(|b| (BodyId(layout.block_bodies[b]), j.block_values(b).to_vec()))
                    .collect(),
                jdot_qdot: jdot_qdot[slot.rows.clone()].to_vec(),
                active: (entry.constraint.kind() == ConstraintKind::Inequality)
                    .then(|| slot.rows.clone().map(held).collect()),
            })
        })
        .collect();
    let (max_abs_c, max_abs_c_dot) = ev.constraint_errors(held);
    let solve = acceleration.last_solve();
    Diagnostics {
        time: state.t,
        kinetic_energy,
        potential_energy,
        max_abs_c,
        max_abs_c_dot,
        solver_iterations: solve.iterations,
        solver_residual: solve.residual,
        constraints,
    }
}
