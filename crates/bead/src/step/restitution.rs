//! Restitution under the implicit steppers: a contact hit within a step leaves it at `e` times
//! the speed it approached with.
//!
//! The implicit steppers hold every contact at the step's end (seed 004's complementarity on the
//! end positions), so a contact hit within the step ends it touching and at rest against its
//! support: the impact is perfectly inelastic by construction. Restitution is then a velocity
//! jump at the step's end, as in the explicit integrators' impacts ([`super::impulses`]): a row
//! that approached at the step's start faster than the rest speed, `ġ⁻ < −v_rest`, and that
//! carries a force at its end, gets the impulse that sets it opening at `−e ġ⁻`, through the
//! joints' velocity subspace ([`super::equality_subspace`]); the other touching rows are then
//! swept so that none approaches, as at any impact.
//!
//! The approach is read at the step's start, not at the instant of the hit, which lies
//! somewhere within the step: the speed leaving is off by at most the step's change of `ġ`
//! (`g h` for a ball falling on a floor), an error of the stepper's own first order that halves
//! with the step.

use super::Pipeline;
use super::equality_subspace::ImpulseDirections;
use super::impulses::{row_restitution, sweep_impulses};
use crate::error::{StepError, StepFailure};
use crate::model::Model;
use crate::settings::Settings;
use crate::state::State;

/// Passes over the bouncing rows: their targets couple through shared bodies (a ball hitting two
/// others at once), and each pass sets every row to its target given the others.
const PASSES: usize = 50;

/// What each inequality row would leave its contact at if hit in the step from `state` (the
/// step's start): `−e ġ⁻` for a row approaching faster than the rest speed with `e > 0`, else
/// `None`; `None` for all when no row qualifies.
pub(super) fn bounce_targets(
    p: &mut Pipeline,
    model: &Model,
    state: &State,
    settings: &Settings,
) -> Result<Option<Vec<Option<f64>>>, StepError> {
    let layout = p.evaluator.layout();
    let restitution = row_restitution(layout, model, settings);
    // Most contact scenes bounce nothing: they pay no evaluation here.
    if !(0..layout.rows()).any(|k| layout.inequality[k] && restitution[k] > 0.0) {
        return Ok(None);
    }
    p.evaluate_constraints(model, state)?;
    let layout = p.evaluator.layout();
    let c_dot = p.evaluator.c_dot();
    let targets: Vec<Option<f64>> = (0..layout.rows())
        .map(|k| {
            let bounces =
                layout.inequality[k] && restitution[k] > 0.0 && c_dot[k] < -settings.rest_speed;
            bounces.then(|| -restitution[k] * c_dot[k])
        })
        .collect();
    Ok(targets.iter().any(Option::is_some).then_some(targets))
}

/// At the step's end (`state`), with `held` the rows that carry a force there: sets every held
/// row with a target opening at it, then sweeps the touching rows so that none approaches.
pub(super) fn bounce(
    p: &mut Pipeline,
    model: &Model,
    state: &mut State,
    settings: &Settings,
    (targets, held): (&[Option<f64>], &[bool]),
) -> Result<(), StepError> {
    let hits: Vec<(usize, f64)> = targets
        .iter()
        .enumerate()
        .filter_map(|(k, t)| {
            t.filter(|_| held.get(k).copied().unwrap_or(false))
                .map(|t| (k, t))
        })
        .collect();
    if hits.is_empty() {
        return Ok(());
    }
    p.evaluate_constraints(model, state)?;
    let layout = p.evaluator.layout();
    let (j, c_t) = (&layout.jacobian, p.evaluator.c_t());
    let step_error = |state: &State, cause: StepFailure| StepError {
        t: state.t,
        step: state.steps,
        worst: None,
        cause,
    };
    let mut directions = ImpulseDirections::new(layout);
    let g_dot = |k: usize, v: &[f64]| -> f64 {
        c_t[k]
            + j.row(k)
                .map(|(c, a)| a.iter().zip(&v[c..]).map(|(x, y)| x * y).sum::<f64>())
                .sum::<f64>()
    };
    // Each hit row's impulse so far: it only pushes (P ≥ 0).
    let mut pushed = vec![0.0; hits.len()];
    let scale = hits.iter().fold(0.0_f64, |m, &(_, t)| m.max(t));
    for _ in 0..PASSES {
        let mut largest = 0.0_f64;
        for (n, &(k, target)) in hits.iter().enumerate() {
            let a_kk = directions
                .effective_inverse_mass(layout, k, p.acceleration.solver_mut(), &settings.solve)
                .map_err(|e| step_error(state, e))?;
            if !(a_kk > 0.0) {
                continue;
            }
            let wanted = (target - g_dot(k, &state.v)) / a_kk;
            let impulse = wanted.max(-pushed[n]);
            pushed[n] += impulse;
            directions.apply(layout, k, impulse, &mut state.v);
            largest = largest.max((impulse * a_kk).abs());
        }
        if largest <= 1e-12 * scale {
            break;
        }
    }
    // The rows touching at the end that the bounces set approaching take their impulses (with
    // their own restitution, as at any impact); the bouncing rows open and are left alone.
    let touching: Vec<bool> = (0..layout.rows())
        .map(|k| layout.inequality[k] && held.get(k).copied().unwrap_or(false))
        .collect();
    let slack = vec![0.0; touching.len()];
    sweep_impulses(p, model, state, settings, &touching, &slack)
}
