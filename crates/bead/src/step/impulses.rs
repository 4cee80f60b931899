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
//! pulse pair by pair through the contact graph exactly as the cradle does. The points where one
//! pair of shapes touches (a box's four corners on a floor) are one contact and take their
//! impulses together, by the small complementarity problem of their rows solved exactly (see
//! [`manifolds`]): a box landing flat stops flat. Equality constraints
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

use std::collections::HashMap;

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
    let c_t = p.evaluator.c_t();
    let mut directions = ImpulseDirections::new(layout);
    directions
        .hold_equalities(
            layout,
            c_t,
            p.acceleration.solver_mut(),
            &mut state.v,
            &settings.solve,
        )
        .map_err(|e| Sweep::error(state, e))?;
    // Approaches below a millionth of the rest speed are left to the solve as resting
    // contact: in a stack, sequential impulses converge only linearly toward zero.
    let scale = 1.0
        + state.v.iter().fold(0.0_f64, |m, x| m.max(x.abs()))
        + c_t.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
    let eps = (1e-12 * scale).max(1e-6 * rest_speed);
    let units = manifolds(layout, touching);
    let sweep = Sweep {
        layout,
        model,
        c_t,
        slack,
        restitution: &restitution,
        rest_speed,
        eps,
    };
    for _sweep in 0..MAX_SWEEPS {
        let mut any = false;
        for unit in &units {
            if unit.len() > 1 {
                let solver = p.acceleration.solver_mut();
                // `None`: not solvable at once (a doubtful direction): row by row.
                if let Some(applied) =
                    sweep.manifold_impulse(unit, &mut directions, solver, settings, state)?
                {
                    any |= applied;
                    continue;
                }
            }
            for &k in unit {
                let solver = p.acceleration.solver_mut();
                any |= sweep.row_impulse(k, &mut directions, solver, settings, state)?;
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
            .map_err(|e| Sweep::error(state, e))?;
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

/// The touching rows grouped by the bodies they act on: the points of one contact manifold
/// (a box's corners on a floor, a pair of polygons' two points) form one unit, whose impulses
/// are taken at once; every other row is a unit of its own.
///
/// Why: a box landing flat on four corners hit one corner at a time stops that corner and
/// tips the box onto the others, so that it lands spinning, by an amount the order of the rows
/// decides (a 0.3 m cube dropped 5 mm under RK4 left at 0.09 rad/s and bounced for a second).
/// One pair's points are one contact of two rigid shapes; Newton's law on all of them at once
/// stops it flat. Distinct pairs stay sequential, so a pulse still travels through a
/// Newton's cradle pair by pair.
fn manifolds(layout: &Layout, touching: &[bool]) -> Vec<Vec<usize>> {
    let mut units: Vec<Vec<usize>> = Vec::new();
    // Each set of bodies' unit still open (below the small problem's size), by place in `units`.
    let mut open: HashMap<Vec<usize>, usize> = HashMap::new();
    for k in (0..touching.len()).filter(|&k| touching[k]) {
        let mut bodies: Vec<usize> = layout.jacobian.row(k).map(|(c, _)| c).collect();
        bodies.sort_unstable();
        bodies.dedup();
        match open.get(&bodies) {
            Some(&u) if units[u].len() < complementarity::small::MAX_ROWS => units[u].push(k),
            _ => {
                open.insert(bodies, units.len());
                units.push(vec![k]);
            }
        }
    }
    units
}

/// What one sweep of impulses reads: the impact's fixed data (positions do not change during
/// an impact, so neither do `J`, `W` and `∂C/∂t`).
struct Sweep<'a> {
    layout: &'a Layout,
    model: &'a Model,
    c_t: &'a [f64],
    slack: &'a [f64],
    restitution: &'a [f64],
    rest_speed: f64,
    /// Approaches slower than this are left to the solve as resting contact.
    eps: f64,
}

impl Sweep<'_> {
    /// `ġ_k + slack_k = J_k q̇ + ∂g_k/∂t + slack_k`: below zero, row `k` approaches.
    fn approach(&self, k: usize, v: &[f64]) -> f64 {
        self.c_t[k] + self.slack[k] + self.along(k, v)
    }

    /// `J_k v`: row `k`'s speed from the velocities `v` alone.
    fn along(&self, k: usize, v: &[f64]) -> f64 {
        self.layout
            .jacobian
            .row(k)
            .map(|(c, a)| a.iter().zip(&v[c..]).map(|(x, y)| x * y).sum::<f64>())
            .sum::<f64>()
    }

    /// Row `k`'s restitution for an approach at `approach`: its own for a touching row hit
    /// faster than the rest speed, else none (the rest rule, and a speculative row has hit
    /// nothing yet).
    fn restitution(&self, k: usize, approach: f64) -> f64 {
        if self.slack[k] == 0.0 && -approach > self.rest_speed {
            self.restitution[k]
        } else {
            0.0
        }
    }

    fn error(state: &State, cause: StepFailure) -> StepError {
        StepError {
            t: state.t,
            step: state.steps + 1,
            worst: None,
            cause,
        }
    }

    /// The impulses on one manifold's rows at once: `P ≥ 0` with every row leaving at no less
    /// than its restitution asks (`ġ⁺ ≥ −e ġ⁻` for a row that approaches, `ġ⁺ ≥ 0` for the
    /// others) and complementary to it, solved exactly
    /// ([`complementarity::small::solve_small`]). `Some(applied)`, or `None` where the unit
    /// must go row by row: a direction the equalities leave doubtful or blocked, which
    /// [`Sweep::row_impulse`] checks and reports.
    fn manifold_impulse(
        &self,
        unit: &[usize],
        directions: &mut ImpulseDirections,
        solver: &mut dyn crate::solve::LinearSolver,
        settings: &Settings,
        state: &mut State,
    ) -> Result<Option<bool>, StepError> {
        let approach: Vec<f64> = unit.iter().map(|&k| self.approach(k, &state.v)).collect();
        if approach.iter().all(|&a| a >= -self.eps) {
            return Ok(Some(false));
        }
        let n = unit.len();
        for &k in unit {
            let effective = directions
                .effective_inverse_mass(self.layout, k, solver, &settings.solve)
                .map_err(|e| Self::error(state, e))?;
            if !(effective > 0.0) || directions.doubtful(k) {
                return Ok(None);
            }
        }
        // Column j of A = J W_c Jᵀ: the rows' speeds from a unit impulse along row j.
        let mut a = vec![0.0; n * n];
        let mut u = vec![0.0; state.v.len()];
        for (j, &kj) in unit.iter().enumerate() {
            u.fill(0.0);
            directions.apply(self.layout, kj, 1.0, &mut u);
            for (i, &ki) in unit.iter().enumerate() {
                a[i * n + j] = self.along(ki, &u);
            }
        }
        let q: Vec<f64> = unit
            .iter()
            .zip(&approach)
            .map(|(&k, &s)| {
                if s < -self.eps {
                    (1.0 + self.restitution(k, s)) * s
                } else {
                    s
                }
            })
            .collect();
        let Some(impulse) = complementarity::small::solve_small(&a, &q, self.eps) else {
            return Ok(None);
        };
        for (&k, &p) in unit.iter().zip(&impulse) {
            if p > 0.0 {
                directions.apply(self.layout, k, p, &mut state.v);
            }
        }
        Ok(Some(true))
    }

    /// The impulse on row `k` alone, if it approaches: `P = −(1 + e) ġ / (J W Jᵀ)_kk`, or an
    /// error where the equalities hold it still while something drives it in. Whether one was
    /// applied.
    fn row_impulse(
        &self,
        k: usize,
        directions: &mut ImpulseDirections,
        solver: &mut dyn crate::solve::LinearSolver,
        settings: &Settings,
        state: &mut State,
    ) -> Result<bool, StepError> {
        let (layout, eps) = (self.layout, self.eps);
        let approach = self.approach(k, &state.v);
        if approach >= -eps {
            return Ok(false);
        }
        let a_kk = directions
            .effective_inverse_mass(layout, k, solver, &settings.solve)
            .map_err(|e| Self::error(state, e))?;
        if !(a_kk > 0.0) {
            // The equalities leave the row no motion of its own, and they drive it in: a
            // motor without a force limit pushing a slider into its stop. No impulse stops
            // it; going on would carry the body through the stop.
            return Err(Self::error(state, blocked(layout, self.model, k, approach)));
        }
        let impulse = -(1.0 + self.restitution(k, approach)) * approach / a_kk;
        if !directions.doubtful(k) {
            directions.apply(layout, k, impulse, &mut state.v);
            return Ok(true);
        }
        // Tried first: where the equalities truly hold the row still, the impulse along the
        // projection's error moves only what they take back.
        let mut trial = state.v.clone();
        directions.apply(layout, k, impulse, &mut trial);
        directions
            .hold_equalities(layout, self.c_t, solver, &mut trial, &settings.solve)
            .map_err(|e| Self::error(state, e))?;
        let after = self.approach(k, &trial);
        let held_still = after < -eps && (after - approach).abs() < 0.5 * approach.abs();
        // An impulse in the equalities' subspace takes kinetic energy away (with e ≤ 1); one
        // that multiplies it went along a near conflict (the hinge's own error leaving its
        // motor and its stop not quite parallel), not along a motion.
        let free = directions.free_inverse_mass(layout, k);
        let scale = kinetic_energy(layout, &state.v) + 0.5 * approach * approach / free;
        if held_still || kinetic_energy(layout, &trial) > ENERGY_JUMP * scale {
            return Err(Self::error(state, blocked(layout, self.model, k, approach)));
        }
        state.v.copy_from_slice(&trial);
        Ok(true)
    }
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
