//! Impulses: the instant an inequality row is hit, its approach velocity is removed (or
//! reversed, with restitution), at a located impact ([`super::events`]) or at the start of a step
//! with speculative contacts.
//!
//! At that instant the approach velocities are removed by impulses. A row's approach speed is
//! `ġ = J q̇ + ∂g/∂t`: against a floor that rises, a wall that moves, a point carried by a moving
//! nail, the relative speed, not the speed in the world. Newton's law applied to all contacts at
//! once gives a three-ball Newton's cradle the velocities (−⅓, ⅔, ⅔)·v; the toy gives (0, 0, v).
//! So impulses are applied contact by contact, sweeping until no contact approaches (sequential
//! impulses, as in game engines): each approaching row gets the impulse
//! `P = −(1 + e) ġ / (J W Jᵀ)_kk`, so that `J q̇⁺ + ∂g/∂t = −e (J q̇⁻ + ∂g/∂t)`: its *current*
//! approach reversed with restitution `e` in the frame of whatever it touches, which propagates a
//! pulse pair by pair through the contact graph exactly as the cradle does. Equality constraints
//! are kept by projecting the velocities onto `J q̇ + ∂C/∂t = 0` after each sweep, so a motor keeps
//! its speed and a point on a moving nail moves with it; a motor with a torque limit takes no part
//! (a finite torque gives no impulse).
//!
//! In a stack or a pile the pulse travels back and forth through the column, and sequential
//! impulses converge only linearly; after a few hundred sweeps what still approaches (already
//! slower than what the sweeps reversed) is removed at once by the exact perfectly inelastic
//! impulse: the velocity-level complementarity problem `0 ≤ P ⊥ ġ + J W Jᵀ P ≥ 0` on the
//! touching rows, with the equalities held, solved by the contact forces' principal pivoting.
//!
//! Rest rule (no Zeno loop): an approach slower than `rest_speed` is resolved with `e = 0`, so a
//! bouncing ball's geometric series of ever shorter bounces ends, after finitely many impacts, in
//! resting contact, which the active-set algorithm then holds.

use super::Pipeline;
use super::equality_subspace::{ImpulseDirections, impulsive_rows};
use crate::assembly::Layout;
use crate::dynamics::conflicts::conflict_among;
use crate::error::{EvalError, StepError, StepFailure};
use crate::model::Model;
use crate::settings::{Settings, StepStats};
use crate::solve::MultiplierMatrix;
use crate::solve::complementarity::{self, Problem, RowState};
use crate::state::State;

/// Sweeps of sequential impulses before the rest is solved exactly (a stack's pulse needs about
/// as many sweeps as the stack has contacts to travel back and forth).
const MAX_SWEEPS: usize = 200;

/// Advances to `t_end` in one step with speculative contacts (see [`Impacts::Speculative`](crate::contact::Impacts::Speculative)):
/// at the step's start, touching rows that approach get their impulse (with restitution),
/// and rows apart that would cross zero within the step at their current speed
/// (`g + ġ h < 0`) are slowed to close their gap exactly over it (`ġ⁺ ≥ −g/h`), or, if they
/// bounce (`e > 0`), bounce at once. Then one integrator step, with no rewind.
pub(super) fn advance_speculative(
    p: &mut Pipeline,
    model: &Model,
    state: &mut State,
    settings: &Settings,
    t_end: f64,
) -> Result<StepStats, StepError> {
    let h = t_end - state.t;
    p.evaluate_constraints(model, state)?;
    let (tol, rest) = (settings.contact_tolerance, settings.rest_speed);
    let ev = &p.evaluator;
    let restitution = row_restitution(ev.layout(), model, settings);
    let (c, c_dot) = (ev.c(), ev.c_dot());
    let m = c.len();
    // Every inequality row takes part: an impulse on one contact can set another pair
    // closing, and a row far apart has a slack no impulse reaches.
    let rows = ev.layout().inequality.clone();
    let mut slack = vec![0.0; m];
    let mut any = false;
    for k in (0..m).filter(|&k| rows[k]) {
        let (g, g_dot) = (c[k], c_dot[k]);
        // A contact resting on its support within what the last step leaves approaches by that
        // step's integration error, which its feedback holds (see
        // `Acceleration::find_candidates`): no impact, and no speculative slowing, which would
        // remove that approach every step and let the gap the step leaves grow unopposed.
        if g <= tol {
            any |= p.acceleration.approach_is_impact(k, g_dot, settings);
        } else if p.acceleration.in_contact(k, g, settings) {
            any |= p.acceleration.approach_is_impact(k, g_dot, settings);
            slack[k] = g / h;
        } else if g + g_dot * h < 0.0 {
            any = true;
            // A bouncing row that hits within the step bounces now, at its full speed,
            // up to `|ġ| h` early; an inelastic one only closes its gap.
            if restitution[k] == 0.0 || -g_dot <= rest {
                slack[k] = g / h;
            }
        } else {
            slack[k] = g / h;
        }
    }
    if any {
        resolve_impacts(p, model, state, settings, &rows, &slack)?;
    }
    p.integrate_to(model, state, settings, t_end)
}

/// Sequential impulses on the `touching` rows until none approaches (see the module docs).
///
/// `slack[k]` is how fast row `k` may still close (0 for a row that touches; `g/h` for a
/// speculative row, which may close its gap `g` over the step `h` but no faster, and which
/// takes no restitution: it has not hit anything yet).
///
/// A contact resting on its support that the impulses set opening faster than the rest speed
/// was thrown off it: it rests no more, and is judged by its gap and speed again.
pub(super) fn resolve_impacts(
    p: &mut Pipeline,
    model: &Model,
    state: &mut State,
    settings: &Settings,
    touching: &[bool],
    slack: &[f64],
) -> Result<(), StepError> {
    let before = row_speeds(p, &state.v);
    sweep_impulses(p, model, state, settings, touching, slack)?;
    let after = row_speeds(p, &state.v);
    // What the row already opened at was the last step's integration error, not the impact's.
    p.acceleration
        .end_rest_if_leaving(|k| after[k] - before[k].max(0.0), settings.rest_speed);
    Ok(())
}

/// Each row's speed `ġ = J q̇ + ∂g/∂t` at velocities `v` (the positions of the last evaluation).
fn row_speeds(p: &Pipeline, v: &[f64]) -> Vec<f64> {
    let layout = p.evaluator.layout();
    let mut g_dot = vec![0.0; layout.rows()];
    layout.jacobian.mul(v, &mut g_dot);
    for (s, c_t) in g_dot.iter_mut().zip(p.evaluator.c_t()) {
        *s += c_t;
    }
    g_dot
}

/// The sequential impulses of [`resolve_impacts`], finished exactly where they do not converge.
fn sweep_impulses(
    p: &mut Pipeline,
    model: &Model,
    state: &mut State,
    settings: &Settings,
    touching: &[bool],
    slack: &[f64],
) -> Result<(), StepError> {
    let layout = p.evaluator.layout();
    let restitution = row_restitution(layout, model, settings);
    let rest_speed = settings.rest_speed;
    // Positions do not change during an impact, so neither do J, W and ∂C/∂t.
    let j = &layout.jacobian;
    let c_t = p.evaluator.c_t();
    let mut directions = ImpulseDirections::new(layout);
    let step_error = |state: &State, cause| StepError {
        t: state.t,
        step: state.steps + 1,
        worst: None,
        cause,
    };
    directions
        .hold_equalities(
            layout,
            c_t,
            p.acceleration.solver_mut(),
            &mut state.v,
            &settings.solve,
        )
        .map_err(|e| step_error(state, e))?;
    // ġ_k = J_k q̇ + ∂g_k/∂t.
    let g_dot = |k: usize, v: &[f64]| -> f64 {
        c_t[k]
            + j.row(k)
                .map(|(c, a)| a.iter().zip(&v[c..]).map(|(x, y)| x * y).sum::<f64>())
                .sum::<f64>()
    };
    // Approaches below a millionth of the rest speed are left to the solve as resting
    // contact: in a stack, sequential impulses converge only linearly toward zero.
    let scale = 1.0
        + state.v.iter().fold(0.0_f64, |m, x| m.max(x.abs()))
        + c_t.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
    let eps = (1e-12 * scale).max(1e-6 * rest_speed);
    let rows: Vec<usize> = (0..touching.len()).filter(|&k| touching[k]).collect();
    for _sweep in 0..MAX_SWEEPS {
        let mut any = false;
        for &k in &rows {
            let approach = g_dot(k, &state.v) + slack[k];
            if approach >= -eps {
                continue;
            }
            let a_kk = directions
                .effective_inverse_mass(layout, k, p.acceleration.solver_mut(), &settings.solve)
                .map_err(|e| step_error(state, e))?;
            if a_kk > 0.0 {
                let e = if slack[k] == 0.0 && -approach > rest_speed {
                    restitution[k]
                } else {
                    0.0
                };
                let impulse = -(1.0 + e) * approach / a_kk;
                if !directions.doubtful(k) {
                    directions.apply(layout, k, impulse, &mut state.v);
                    any = true;
                    continue;
                }
                // Tried first: where the equalities truly hold the row still, the impulse
                // along the projection's error moves only what they take back.
                let mut trial = state.v.clone();
                directions.apply(layout, k, impulse, &mut trial);
                directions
                    .hold_equalities(
                        layout,
                        c_t,
                        p.acceleration.solver_mut(),
                        &mut trial,
                        &settings.solve,
                    )
                    .map_err(|e| step_error(state, e))?;
                let after = g_dot(k, &trial) + slack[k];
                let held_still = after < -eps && (after - approach).abs() < 0.5 * approach.abs();
                // An impulse in the equalities' subspace takes kinetic energy away (with e ≤ 1);
                // one that multiplies it went along a near conflict (the hinge's own error
                // leaving its motor and its stop not quite parallel), not along a motion.
                let free = directions.free_inverse_mass(layout, k);
                let scale = kinetic_energy(layout, &state.v) + 0.5 * approach * approach / free;
                if held_still || kinetic_energy(layout, &trial) > ENERGY_JUMP * scale {
                    return Err(step_error(state, blocked(layout, model, k, approach)));
                }
                state.v.copy_from_slice(&trial);
                any = true;
            } else {
                // The equalities leave the row no motion of its own, and they drive it in: a
                // motor without a force limit pushing a slider into its stop. No impulse stops
                // it; going on would carry the body through the stop.
                return Err(step_error(state, blocked(layout, model, k, approach)));
            }
        }
        directions
            .hold_equalities(
                layout,
                c_t,
                p.acceleration.solver_mut(),
                &mut state.v,
                &settings.solve,
            )
            .map_err(|e| step_error(state, e))?;
        if !any {
            p.current_acceleration = None;
            return Ok(());
        }
    }
    // Out of sweeps: in a stack or a pile, sequential impulses converge only linearly (the
    // pulse goes back and forth through the column). What still approaches is removed
    // exactly and at once.
    finish_inelastic(p, model, state, settings, touching, slack)
}

/// The impulses `P` on the `touching` rows (and the equality rows) that leave no row
/// approaching (faster than its `slack`), solved exactly: with `A = J W Jᵀ` and `ġ` the
/// rows' current speeds,
///
/// ```text
/// touching inequality rows   0 ≤ P ⊥ ġ + slack + A P ≥ 0
/// equality rows, motors      ġ + A P = 0          (P free)
/// ```
///
/// the velocity-level complementarity problem of a perfectly inelastic impact, solved by
/// the same principal pivoting as the contact forces (so redundant contacts are handled as
/// there). It finishes what the sequential sweeps left, which is already slower than the
/// approaches they reversed: the restitution of those approaches has been applied.
fn finish_inelastic(
    p: &mut Pipeline,
    model: &Model,
    state: &mut State,
    settings: &Settings,
    touching: &[bool],
    slack: &[f64],
) -> Result<(), StepError> {
    let layout = p.evaluator.layout();
    let c_t = p.evaluator.c_t();
    let m = touching.len();
    let equality = impulsive_rows(layout);
    let mut g_dot = vec![0.0; m];
    layout.jacobian.mul(&state.v, &mut g_dot);
    let (mut b, mut lo, mut hi) = (vec![0.0; m], vec![0.0; m], vec![0.0; m]);
    for k in 0..m {
        if equality[k] {
            (lo[k], hi[k]) = (f64::NEG_INFINITY, f64::INFINITY);
            b[k] = -(g_dot[k] + c_t[k]);
        } else if touching[k] {
            (lo[k], hi[k]) = (0.0, f64::INFINITY);
            b[k] = -(g_dot[k] + c_t[k] + slack[k]);
        }
    }
    let eps = crate::dynamics::active_set::threshold(&b);
    let allowance: Vec<f64> = (0..m)
        .map(|k| if touching[k] { eps } else { 0.0 })
        .collect();
    let problem = Problem {
        a: MultiplierMatrix::new(&layout.jacobian, &layout.inv_mass),
        b: &b,
        lo: &lo,
        hi: &hi,
        allowance: &allowance,
        slack: &[],
    };
    let (mut impulse, mut w) = (vec![0.0; m], vec![0.0; m]);
    let mut state_of_rows = vec![RowState::Lower; m];
    let mut workspace = complementarity::Workspace::default();
    let solved = complementarity::solve(
        &problem,
        p.acceleration.solver_mut(),
        &settings.solve,
        eps,
        &mut state_of_rows,
        &mut impulse,
        &mut w,
        &mut workspace,
    );
    if let Err(failure) = solved {
        let cause = StepFailure::Eval(crate::dynamics::conflicts::complementarity_error(
            layout, model, failure,
        ));
        return Err(p.step_error(model, state, cause));
    }
    let mut dv = vec![0.0; state.v.len()];
    layout.jacobian.mul_transpose(&impulse, &mut dv);
    layout.inv_mass.apply_in_place(&mut dv);
    for (vi, d) in state.v.iter_mut().zip(&dv) {
        *vi += d;
    }
    p.current_acceleration = None;
    Ok(())
}

/// How many times the kinetic energy (with the row's own at its approach speed) an impulse
/// of doubtful direction may leave before it counts as a conflict's. With equalities at rest
/// an impulse in their subspace never raises it; a motor without a force limit can: its paddle
/// of mass m sends a ball of mass M at rest off at twice its speed (e = 1), `4 M/m` times the
/// paddle's energy. The elbow driven by its motor into its stop (see
/// [`ImpulseDirections::doubtful`]) left velocities 7·10⁴ times its speed before.
const ENERGY_JUMP: f64 = 1e4;

/// `½ vᵀ M v`.
fn kinetic_energy(layout: &Layout, v: &[f64]) -> f64 {
    let mut momentum = vec![0.0; v.len()];
    layout.inv_mass.apply_mass(v, &mut momentum);
    0.5 * v.iter().zip(&momentum).map(|(a, b)| a * b).sum::<f64>()
}

/// Why an approaching row `k` that the equalities hold still (zero effective inverse mass)
/// cannot be stopped: the equalities and the row's constraint conflict, named from the part of
/// the impact's targets no impulse produces ([`conflict_among`]).
fn blocked(layout: &Layout, model: &Model, k: usize, approach: f64) -> StepFailure {
    let mut mask = impulsive_rows(layout);
    mask[k] = true;
    let a = MultiplierMatrix::new(&layout.jacobian, &layout.inv_mass).masked(&mask);
    let mut b = vec![0.0; mask.len()];
    b[k] = -approach;
    let stop = layout
        .row_constraint(k)
        .and_then(|slot| model.constraints.get(slot.id))
        .map_or_else(|| format!("row {k}"), |entry| entry.name.clone());
    let drivers = match conflict_among(layout, model, &a, &b, 0.0) {
        Some(EvalError::Conflict { constraints, .. }) => constraints,
        _ => Vec::new(),
    };
    let drivers: Vec<String> = drivers.into_iter().filter(|name| *name != stop).collect();
    StepFailure::Eval(if drivers.is_empty() {
        EvalError::Conflict {
            constraints: vec![stop],
            residual: 1.0,
        }
    } else {
        EvalError::DrivenIntoStop {
            stop,
            drivers,
            speed: -approach,
        }
    })
}

/// Each row's coefficient of restitution: its constraint's, or the settings' default.
fn row_restitution(layout: &Layout, model: &Model, settings: &Settings) -> Vec<f64> {
    let mut out = vec![0.0; layout.rows()];
    for slot in &layout.constraints {
        if let Some(entry) = model.constraints.get(slot.id) {
            out[slot.rows.clone()].fill(entry.restitution.unwrap_or(settings.restitution));
        }
    }
    out
}
