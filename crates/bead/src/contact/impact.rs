//! Impacts: locating the first activation inside a step, and resolving it with impulses.
//!
//! Seed 004 assumes the engine "may rewind time until the first constraint activation is
//! detected". The rows that can activate inside a step are the inequality rows left out of the
//! set chosen at its start ([`super::active_set`]): apart (`g > tolerance`), or touching but
//! separating. A row apart that ends the step with `g < 0`, or one touching that ends it deeper
//! than the tolerance, has crossed its boundary inside the step. The step is then redone from its
//! start to a shorter end time found by bisection (each trial is a full integrator step, so the
//! motion up to the impact is integrated as accurately as any other step), until the crossing
//! rows are touching. Only rows touching at that instant receive impulses: a row still apart,
//! however fast it closes, is the next event's.
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

use crate::error::{StepError, StepFailure};
use crate::settings::StepStats;
use crate::solve::MultiplierMatrix;
use crate::solve::complementarity::{self, Problem, RowState};
use crate::system::System;

/// More events than this in one step means the model keeps re-colliding (a Zeno cascade the rest
/// rule did not stop); the step fails rather than loop.
const MAX_EVENTS: usize = 1000;
/// Sweeps of sequential impulses before the rest is solved exactly (a stack's pulse needs about
/// as many sweeps as the stack has contacts to travel back and forth).
const MAX_SWEEPS: usize = 200;
/// Bisection halvings of the step when locating an impact.
const MAX_BISECTIONS: usize = 60;

impl System {
    /// Advances to `t_end`, stopping at every impact on the way to resolve it.
    pub(crate) fn advance_with_events(&mut self, t_end: f64) -> Result<StepStats, StepError> {
        let mut total = StepStats::default();
        for _ in 0..MAX_EVENTS {
            self.resolve_touching_approaches()?;
            // The first stage at the start state: it chooses the rows held through the step.
            self.evaluate_current_for_events()?;
            let tol = self.settings.contact_tolerance;
            let ev = &self.evaluator;
            // Rows that may hit within the step: the inequality rows left out of the chosen set.
            // A row already below zero is the solve's to correct (its feedback), not an event.
            let free: Vec<Option<f64>> = (0..ev.c.len())
                .map(|k| {
                    let event = ev.layout.inequality[k] && !ev.active.is_held(k) && ev.c[k] >= 0.0;
                    // Apart: any crossing of zero. Touching (and separating, or it would be
                    // held): a dip below the tolerance that the solve did not see coming.
                    event.then_some(if ev.c[k] > tol { 0.0 } else { -tol })
                })
                .collect();
            let start = (self.t, self.q.clone(), self.v.clone());
            accumulate(&mut total, self.integrate_to(t_end)?);
            let crossing = self.crossing(&free)?;
            if crossing.is_none() {
                return Ok(total);
            }
            // Bisect the end time: `lo` keeps every crossing row at g ≥ 0, `hi` has one below 0.
            let (mut lo, mut hi) = (start.0, t_end);
            for _ in 0..MAX_BISECTIONS {
                let mid = 0.5 * (lo + hi);
                if !(mid > lo && mid < hi) {
                    break;
                }
                self.restore(&start);
                accumulate(&mut total, self.integrate_to(mid)?);
                match self.crossing(&free)? {
                    Some(_) => hi = mid,
                    None => {
                        lo = mid;
                        if self.touching_and_closing(&free, tol) {
                            break;
                        }
                    }
                }
            }
            self.restore(&start);
            accumulate(&mut total, self.integrate_to(lo)?);
            // The rows touching now: the located crossing ones among them. A row still apart
            // gets no impulse, however fast it closes (an impulse acts at contact, never at a
            // distance); if it crosses later in the step, the next event finds it.
            self.evaluator
                .evaluate_constraints(&self.model, self.t, &self.q, &self.v)
                .map_err(|e| self.step_error(e.into()))?;
            let touching: Vec<bool> = (0..free.len())
                .map(|k| self.evaluator.layout.inequality[k] && self.evaluator.c[k] <= tol)
                .collect();
            self.resolve_impacts(&touching, &vec![0.0; touching.len()])?;
            if self.t >= t_end {
                return Ok(total);
            }
        }
        Err(self.step_error(StepFailure::TooManyImpacts(MAX_EVENTS)))
    }

    /// Advances to `t_end` in one step with speculative contacts (see [`Impacts::Speculative`](crate::contact::Impacts::Speculative)):
    /// at the step's start, touching rows that approach get their impulse (with restitution),
    /// and rows apart that would cross zero within the step at their current speed
    /// (`g + ġ h < 0`) are slowed to close their gap exactly over it (`ġ⁺ ≥ −g/h`), or, if they
    /// bounce (`e > 0`), bounce at once. Then one integrator step, with no rewind.
    pub(crate) fn advance_speculative(&mut self, t_end: f64) -> Result<StepStats, StepError> {
        let h = t_end - self.t;
        if let Err(e) = self
            .evaluator
            .evaluate_constraints(&self.model, self.t, &self.q, &self.v)
        {
            return Err(self.step_error(e.into()));
        }
        let (tol, rest) = (self.settings.contact_tolerance, self.settings.rest_speed);
        let restitution = self.row_restitution();
        let ev = &self.evaluator;
        let m = ev.c.len();
        // Every inequality row takes part: an impulse on one contact can set another pair
        // closing, and a row far apart has a slack no impulse reaches.
        let rows = ev.layout.inequality.clone();
        let mut slack = vec![0.0; m];
        let mut any = false;
        for k in (0..m).filter(|&k| rows[k]) {
            let (g, g_dot) = (ev.c[k], ev.c_dot[k]);
            if g <= tol {
                any |= g_dot < -rest;
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
            self.resolve_impacts(&rows, &slack)?;
        }
        self.integrate_to(t_end)
    }

    /// Rows already touching (`g ≤ tolerance`) but still approaching (`ġ < 0`) are impacts too:
    /// a step ended just short of contact, or a pulse arrived through another contact. Left to the
    /// active-set solve, the feedback term would stop them softly over a step and leak momentum.
    fn resolve_touching_approaches(&mut self) -> Result<(), StepError> {
        if let Err(e) = self
            .evaluator
            .evaluate_constraints(&self.model, self.t, &self.q, &self.v)
        {
            return Err(self.step_error(e.into()));
        }
        let tol = self.settings.contact_tolerance;
        let ev = &self.evaluator;
        // Slower approaches are resting contacts: the solve's feedback settles them.
        let rest = self.settings.rest_speed;
        let touching: Vec<bool> = (0..ev.c.len())
            .map(|k| ev.layout.inequality[k] && ev.c[k] <= tol)
            .collect();
        if (0..touching.len()).any(|k| touching[k] && ev.c_dot[k] < -rest) {
            self.resolve_impacts(&touching, &vec![0.0; touching.len()])?;
        }
        Ok(())
    }

    fn evaluate_current_for_events(&mut self) -> Result<(), StepError> {
        self.acceleration().map(|_| ())
    }

    fn restore(&mut self, start: &(f64, Vec<f64>, Vec<f64>)) {
        self.t = start.0;
        self.q.copy_from_slice(&start.1);
        self.v.copy_from_slice(&start.2);
        self.current_acceleration = None;
    }

    /// The rows among `free` that are now below their threshold, if any (evaluates C at the
    /// current state).
    fn crossing(&mut self, free: &[Option<f64>]) -> Result<Option<usize>, StepError> {
        if let Err(e) = self
            .evaluator
            .evaluate_constraints(&self.model, self.t, &self.q, &self.v)
        {
            return Err(self.step_error(e.into()));
        }
        let c = &self.evaluator.c;
        Ok((0..free.len()).find(|&k| free[k].is_some_and(|limit| c[k] < limit)))
    }

    /// Whether a `free` row is within `tol` of contact and closing (`ġ = J q̇ + ∂g/∂t < 0`), at
    /// the last evaluation.
    fn touching_and_closing(&self, free: &[Option<f64>], tol: f64) -> bool {
        let ev = &self.evaluator;
        (0..free.len()).any(|k| free[k].is_some() && ev.c[k] <= tol && ev.c_dot[k] < 0.0)
    }

    /// Sequential impulses on the `touching` rows until none approaches (see the module docs).
    ///
    /// `slack[k]` is how fast row `k` may still close (0 for a row that touches; `g/h` for a
    /// speculative row, which may close its gap `g` over the step `h` but no faster, and which
    /// takes no restitution: it has not hit anything yet).
    fn resolve_impacts(&mut self, touching: &[bool], slack: &[f64]) -> Result<(), StepError> {
        let restitution = self.row_restitution();
        let rest_speed = self.settings.rest_speed;
        // A copy of J, W and ∂C/∂t: the equality projection below borrows the evaluator mutably.
        // Positions do not change during an impact, so neither do they.
        let layout = &self.evaluator.layout;
        let (j, w) = (&layout.jacobian.clone(), &layout.inv_mass.clone());
        let c_t = self.evaluator.c_t.clone();
        let has_equalities = impulsive_rows(layout).contains(&true);
        let row_band: Vec<usize> = j
            .bands()
            .iter()
            .enumerate()
            .flat_map(|(b, (rows, _))| rows.clone().map(move |_| b))
            .collect();
        // ġ_k = J_k q̇ + ∂g_k/∂t.
        let g_dot = |k: usize, v: &[f64]| -> f64 {
            c_t[k]
                + j.band_row(row_band[k], k)
                    .map(|(c, a)| a.iter().zip(&v[c..]).map(|(x, y)| x * y).sum::<f64>())
                    .sum::<f64>()
        };
        let diag = |k: usize| -> f64 {
            j.band_row(row_band[k], k)
                .map(|(c, a)| w.weighted_dot(c, a, a))
                .sum()
        };
        // Approaches below a millionth of the rest speed are left to the solve as resting
        // contact: in a stack, sequential impulses converge only linearly toward zero.
        let scale = 1.0
            + self.v.iter().fold(0.0_f64, |m, x| m.max(x.abs()))
            + c_t.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
        let eps = (1e-12 * scale).max(1e-6 * rest_speed);
        let rows: Vec<usize> = (0..touching.len()).filter(|&k| touching[k]).collect();
        for _sweep in 0..MAX_SWEEPS {
            let mut any = false;
            for &k in &rows {
                let approach = g_dot(k, &self.v) + slack[k];
                let a_kk = diag(k);
                if approach < -eps && a_kk > 0.0 {
                    let e = if slack[k] == 0.0 && -approach > rest_speed {
                        restitution[k]
                    } else {
                        0.0
                    };
                    let impulse = -(1.0 + e) * approach / a_kk;
                    for (c, a) in j.band_row(row_band[k], k) {
                        w.add_weighted_row(c, a, impulse, &mut self.v);
                    }
                    any = true;
                }
            }
            if has_equalities {
                any |= project_equality_velocities(
                    &mut self.evaluator,
                    &mut self.v,
                    &self.settings.solve,
                )
                .map_err(|e| StepError {
                    t: self.t,
                    step: self.steps + 1,
                    worst: None,
                    cause: e,
                })?;
            }
            if !any {
                self.current_acceleration = None;
                return Ok(());
            }
        }
        // Out of sweeps: in a stack or a pile, sequential impulses converge only linearly (the
        // pulse goes back and forth through the column). What still approaches is removed
        // exactly and at once.
        self.finish_impacts_inelastic(touching, slack)
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
    fn finish_impacts_inelastic(
        &mut self,
        touching: &[bool],
        slack: &[f64],
    ) -> Result<(), StepError> {
        let ev = &mut self.evaluator;
        let layout = &ev.layout;
        let m = touching.len();
        let equality = impulsive_rows(layout);
        let mut g_dot = vec![0.0; m];
        layout.jacobian.mul(&self.v, &mut g_dot);
        let (mut b, mut lo, mut hi) = (vec![0.0; m], vec![0.0; m], vec![0.0; m]);
        for k in 0..m {
            if equality[k] {
                (lo[k], hi[k]) = (f64::NEG_INFINITY, f64::INFINITY);
                b[k] = -(g_dot[k] + ev.c_t[k]);
            } else if touching[k] {
                (lo[k], hi[k]) = (0.0, f64::INFINITY);
                b[k] = -(g_dot[k] + ev.c_t[k] + slack[k]);
            }
        }
        let eps = crate::contact::active_set::threshold(&b);
        let allowance: Vec<f64> = (0..m)
            .map(|k| if touching[k] { eps } else { 0.0 })
            .collect();
        let problem = Problem {
            a: MultiplierMatrix::new(&layout.jacobian, &layout.inv_mass),
            b: &b,
            lo: &lo,
            hi: &hi,
            allowance: &allowance,
        };
        let (mut impulse, mut w) = (vec![0.0; m], vec![0.0; m]);
        let mut state = vec![RowState::Lower; m];
        let mut workspace = complementarity::Workspace::default();
        let solved = complementarity::solve(
            &problem,
            ev.solver.as_mut(),
            &self.settings.solve,
            eps,
            &mut state,
            &mut impulse,
            &mut w,
            &mut workspace,
        );
        if let Err(failure) = solved {
            let cause = StepFailure::Eval(ev.complementarity_error(&self.model, failure));
            return Err(self.step_error(cause));
        }
        let mut dv = vec![0.0; self.v.len()];
        layout.jacobian.mul_transpose(&impulse, &mut dv);
        layout.inv_mass.apply_in_place(&mut dv);
        for (vi, d) in self.v.iter_mut().zip(&dv) {
            *vi += d;
        }
        self.current_acceleration = None;
        Ok(())
    }

    /// Each row's coefficient of restitution.
    fn row_restitution(&self) -> Vec<f64> {
        let mut out = vec![0.0; self.evaluator.c.len()];
        for slot in &self.evaluator.layout.constraints {
            if let Some(entry) = self.model.constraints.get(slot.id) {
                out[slot.rows.clone()].fill(entry.restitution.unwrap_or(self.settings.restitution));
            }
        }
        out
    }
}

/// The rows an impact's velocity projection keeps: equalities and motors, but not inequalities
/// (the impulses handle them) nor rows with a force limit (a finite force gives no impulse).
fn impulsive_rows(layout: &crate::derivative::Layout) -> Vec<bool> {
    let bounds = layout.bounds();
    (0..layout.inequality.len())
        .map(|k| !bounds.inequality(k) && !bounds.limited(k))
        .collect()
}

/// Removes the equality rows' velocity errors `Ċ = J q̇ + ∂C/∂t` (mass-weighted, as projection
/// does); returns whether anything changed noticeably.
fn project_equality_velocities(
    ev: &mut crate::derivative::Evaluator,
    v: &mut [f64],
    params: &crate::solve::SolveParams,
) -> Result<bool, StepFailure> {
    let layout = &ev.layout;
    let mask = impulsive_rows(layout);
    let mut c_dot = vec![0.0; mask.len()];
    layout.jacobian.mul(v, &mut c_dot);
    let scale = 1.0 + v.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
    for k in 0..c_dot.len() {
        c_dot[k] = if mask[k] { c_dot[k] + ev.c_t[k] } else { 0.0 };
    }
    if c_dot.iter().all(|x| x.abs() <= 1e-12 * scale) {
        return Ok(false);
    }
    let mut mu = vec![0.0; mask.len()];
    let matrix = MultiplierMatrix::new(&layout.jacobian, &layout.inv_mass).masked(&mask);
    ev.solver
        .solve(&matrix, &c_dot, &mut mu, params)
        .map_err(|e| StepFailure::Eval(e.into()))?;
    let mut correction = vec![0.0; v.len()];
    layout.jacobian.mul_transpose(&mu, &mut correction);
    layout.inv_mass.apply_in_place(&mut correction);
    for (vi, c) in v.iter_mut().zip(&correction) {
        *vi -= c;
    }
    Ok(true)
}

fn accumulate(total: &mut StepStats, s: StepStats) {
    total.evaluations += s.evaluations;
    total.solver_iterations = total.solver_iterations.max(s.solver_iterations);
    total.solver_residual = total.solver_residual.max(s.solver_residual);
    total.active_set_passes = total.active_set_passes.max(s.active_set_passes);
}
