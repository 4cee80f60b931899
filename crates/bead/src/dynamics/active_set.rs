//! Which rows take part in the multiplier solve, and with which multipliers fixed: seed 004's
//! algorithms (Platt's, the improved one, Jonquet's "right algorithm") and the exact
//! complementarity solve, over rows that may also carry bounds of their own (a motor's torque
//! limit).
//!
//! Seed 004 chooses the set `F⁺` once, at the start of a step ("At the beginning of each time
//! step, all active inequality constraints g_k are detected, and F⁺ is emptied", §4.2), then
//! integrates. So does this module: [`ActiveSet::choose`] runs at the first evaluation of a step
//! (and for a query at a state), [`ActiveSet::keep`] at every later stage of the step solves with
//! the rows held then and every other multiplier fixed at its value then. A row that becomes
//! violated inside the step is an event for the rewind ([`crate::step`]'s events), not a change of set
//! halfway through an RK4 step, whose right-hand side would then jump.
//!
//! Where a 3D contact has friction, or where the pivoting cannot settle 2D friction (an arch's
//! wedged joints), every stage instead solves the contacts' problem with their cones afresh
//! ([`cones`]): a sliding contact's friction follows its slip and its normal force at each
//! stage, and a sticking one's stays within its cone.
//!
//! One threshold ε decides every "violation tendency" `J_k q̈ − d_k < −ε` and every
//! complementarity test, for all methods alike (see [`threshold`]).

use super::cones::Cones;
pub(crate) use super::rows::{Effort, Rows};
use crate::contact::InequalityMethod;
use crate::solve::complementarity::{self, Failure, Info, Problem, RowState};
use crate::solve::{LinearSolver, SolveError, SolveParams};

/// The threshold ε below which a row's `w = J_k q̈ − d_k` counts as zero: relative to the size
/// of the right-hand side `b` of the multiplier system (its accelerations), as rounding is.
pub(crate) fn threshold(b: &[f64]) -> f64 {
    1e-9 * (1.0 + b.iter().fold(0.0_f64, |m, x| m.max(x.abs())))
}

/// How far below zero (relative to the largest |λ|, plus one) a held contact's λ may be before
/// it counts as pulling rather than as the rounding of a contact that just stops pushing.
const PULL_TOLERANCE: f64 = 1e-9;

/// Passes of the friction iteration before it gives up: each solves the multipliers with the
/// friction rows' bounds `±μ λ_n` from the last pass's normal forces.
const FRICTION_PASSES: usize = 200;

/// The chosen set and what it needs from one evaluation to the next.
#[derive(Debug, Default)]
pub(crate) struct ActiveSet {
    /// Each row's state in the solution chosen at the step's start.
    pub(crate) state: Vec<RowState>,
    /// λ of every row that is not held, fixed while the set is kept.
    fixed: Vec<f64>,
    /// Platt's and the improved algorithm's `F⁺`, kept from step to step (inequality rows only).
    handled: Vec<bool>,
    /// Whether `handled` has been initialised (at the first evaluation, seed 004 §3 and §4.1).
    initialized: bool,
    /// Whether a set has been chosen since the layout changed.
    chosen: bool,
    /// The bounds of each row's λ in the next solve: a row's own for every row that is not an
    /// inequality; for an inequality, `(0, 0)` (left out: λ = 0), `(−∞, ∞)` (held as an
    /// equality, λ of either sign: a row in seed 004's `F⁺`) or its bounds (complementary:
    /// `λ ≥ 0 ⊥ w ≥ 0`).
    lo: Vec<f64>,
    hi: Vec<f64>,
    workspace: complementarity::Workspace,
    /// Whether this step's contacts all choose their friction within their cones, slides
    /// included: set when edge forces against the slides wedged the bodies (see `choose`).
    stick: bool,
    /// Whether this step's rows are solved as the contacts' problem with their cones at every
    /// stage ([`cones`]): a 3D contact's friction, or 2D friction the pivoting did not settle.
    by_cones: bool,
    /// Whether the pivoting has failed on friction since the layout changed: the steps after
    /// go straight to the cones (an arch's joints that wedged once stay wedged).
    pivoting_failed: bool,
    cones: Cones,
}

impl ActiveSet {
    /// Forgets everything: a new layout of `m` rows.
    pub(crate) fn reset(&mut self, m: usize) {
        self.state.clear();
        self.state.resize(m, RowState::Solve);
        self.fixed.clear();
        self.fixed.resize(m, 0.0);
        self.handled.clear();
        self.handled.resize(m, false);
        self.lo.resize(m, 0.0);
        self.hi.resize(m, 0.0);
        self.initialized = false;
        self.chosen = false;
        self.pivoting_failed = false;
    }

    /// Whether row `i` took part in the last solve as a held row (for an inequality: is in `F⁺`).
    pub(crate) fn is_held(&self, i: usize) -> bool {
        self.state.get(i) == Some(&RowState::Solve)
    }

    /// Limits the pivots of each complementarity solve to come (`None`: the solve's own limit).
    pub(crate) fn set_pivot_limit(&mut self, limit: Option<usize>) {
        self.workspace.pivot_limit = limit;
    }

    /// Chooses the rows that take part at this state with `method`, and solves.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn choose(
        &mut self,
        method: InequalityMethod,
        rows: &Rows<'_>,
        solver: &mut dyn LinearSolver,
        params: &SolveParams,
        lambda: &mut [f64],
        w: &mut [f64],
    ) -> Result<Effort, Failure> {
        let m = rows.b.len();
        if method.persistent()
            && let Some(row) = (0..m).find(|&i| rows.bounds.friction(i).is_some())
        {
            return Err(Failure::NoFriction {
                method: method.name(),
                row,
            });
        }
        let start: Vec<f64> = lambda.to_vec();
        self.by_cones = self.pivoting_failed || rows.bounds.any_circle();
        let mut fallback = false;
        if !self.by_cones {
            match self.choose_by_pivoting(method, rows, solver, params, lambda, w) {
                // Where friction's passes or the pivots do not settle (a 2D arch's redundant,
                // wedged joints), the contacts' problem is solved as a 3D one's is, through the
                // step's stages: a 2D contact's cone is the box its row's bounds make.
                Err(Failure::Friction { .. } | Failure::PivotLimit { .. })
                    if rows.bounds.any_friction() =>
                {
                    lambda.copy_from_slice(&start);
                    self.by_cones = true;
                    fallback = true;
                }
                other => return other,
            }
        }
        self.stick = false;
        let effort = self.solve_cones(rows, lambda, w, &start)?;
        // Only a fallback that worked is kept to: where it fails too, a retry (an implicit
        // run's report by conjugate gradient) pivots again.
        self.pivoting_failed |= fallback;
        self.chosen = true;
        Ok(effort)
    }

    /// The contacts' problem with their cones ([`cones`]) from `start`: with the slides, or
    /// where slides wedge the bodies, as with pivoting, every contact choosing its friction
    /// within its cone (and so for the rest of the step).
    fn solve_cones(
        &mut self,
        rows: &Rows<'_>,
        lambda: &mut [f64],
        w: &mut [f64],
        start: &[f64],
    ) -> Result<Effort, Failure> {
        match self
            .cones
            .solve(rows, self.stick, lambda, w, &mut self.state)
        {
            Err(Failure::Cones { .. }) if !self.stick && rows.slide.iter().any(|s| *s != 0.0) => {
                self.stick = true;
                lambda.copy_from_slice(start);
                self.cones.solve(rows, true, lambda, w, &mut self.state)
            }
            other => other,
        }
    }

    /// [`ActiveSet::choose`] by seed 004's algorithms and Dantzig's pivoting, friction by
    /// passes of Baraff's dependent bounds.
    fn choose_by_pivoting(
        &mut self,
        method: InequalityMethod,
        rows: &Rows<'_>,
        solver: &mut dyn LinearSolver,
        params: &SolveParams,
        lambda: &mut [f64],
        w: &mut [f64],
    ) -> Result<Effort, Failure> {
        let m = rows.b.len();
        let mut effort = Effort::default();
        match method {
            InequalityMethod::Platt | InequalityMethod::Improved => {
                if !self.initialized {
                    // Platt: every active row; improved: the active rows with a violation
                    // tendency under the accelerations without any inequality (seed 004 §4.1).
                    for i in 0..m {
                        self.handled[i] = rows.bounds.inequality(i)
                            && rows.candidates[i]
                            && method == InequalityMethod::Platt;
                    }
                    if method == InequalityMethod::Improved {
                        self.hold_handled(rows);
                        effort.add(self.solve(rows, solver, params, lambda, w)?);
                        for i in 0..m {
                            self.handled[i] =
                                rows.bounds.inequality(i) && rows.candidates[i] && w[i] < -rows.eps;
                        }
                    }
                    self.initialized = true;
                }
                self.hold_handled(rows);
                effort.add(self.solve(rows, solver, params, lambda, w)?);
            }
            InequalityMethod::Jonquet => {
                // Alg. 3 empties F⁺ at every step and grows it a layer at a time: in a 20-row
                // pyramid each row learns it is pushed only once the row below holds, 20 solves
                // a step. The contacts that pushed at the last solve are almost always the
                // answer, so they are tried first, and what they grow into is kept only if it
                // is complementary (nothing held pulls, nothing left out is violated);
                // otherwise the step starts again from the empty set, as published.
                for i in 0..m {
                    self.handled[i] =
                        rows.bounds.inequality(i) && rows.candidates[i] && lambda[i] > 0.0;
                }
                let mut done = false;
                if self.handled.contains(&true) {
                    let start = lambda.to_vec();
                    match self.grow_handled(rows, solver, params, lambda, w, &mut effort) {
                        Ok(true) if !self.pulls(rows, lambda) => done = true,
                        Ok(_) | Err(Failure::Solve(SolveError::Inconsistent { .. })) => {
                            lambda.copy_from_slice(&start);
                        }
                        Err(e) => return Err(e),
                    }
                }
                if !done {
                    self.handled.fill(false);
                    let settled =
                        self.grow_handled(rows, solver, params, lambda, w, &mut effort)?;
                    // Alg. 3 never takes a row out of F⁺, so where handled contacts are coupled
                    // (a ball on two others, a pile) one of them can come out pulling, λ < 0: a
                    // contact that glues the bodies and feeds the pile energy — or, dependent
                    // on the others, it can make their equalities conflict. Alg. 1's rule — a
                    // constraint is handled while its multiplier holds the bodies apart —
                    // finishes the set: from Alg. 3's set, the complementarity pivots take such
                    // rows out (and whatever that uncovers in). Where no handled contact pulls,
                    // as in the paper's examples, Alg. 3's answer stands unchanged.
                    if !settled || self.pulls(rows, lambda) {
                        self.complete(rows, solver, params, lambda, w, &mut effort)?;
                    }
                }
            }
            InequalityMethod::Lcp => {
                self.bound_candidates(rows);
                if !self.chosen {
                    // No previous solution to start from: every contact at λ = 0.
                    for i in (0..m).filter(|&i| rows.bounds.inequality(i)) {
                        self.state[i] = RowState::Lower;
                    }
                }
                effort.add(self.solve(rows, solver, params, lambda, w)?);
            }
        }
        if rows.bounds.any_friction() {
            // Coulomb's cones bound the friction rows by the normal forces: the exact
            // complementarity solve over the candidates, with the bounds from the last pass's
            // normal forces, until they agree (Baraff 1994's dependent bounds).
            self.bound_candidates(rows);
            // A sticking contact's friction starts at zero, inside its cone, and enters the
            // solve only if it must: where contacts are redundant (a box's two corners on a
            // floor) the first corner's gives the friction needed and the second's stays
            // pinned, not a pair of opposite forces at the cones' edges.
            for i in 0..m {
                if rows.bounds.friction(i).is_some()
                    && rows.slide.get(i).copied().unwrap_or(0.0) == 0.0
                {
                    self.state[i] = RowState::Pinned;
                }
            }
            self.stick = false;
            let start: Vec<f64> = lambda.to_vec();
            let mut settle = |set: &mut Self, lambda: &mut [f64]| {
                set.settle_friction(rows, lambda, |set, lambda| {
                    let info = set.solve(rows, solver, params, lambda, w)?;
                    effort.add(info);
                    Ok(())
                })
            };
            match settle(self, lambda) {
                // Edge forces against slides can wedge bodies (an arch's voussoirs, a box
                // jammed between walls): the normal forces they raise raise them in turn, and at
                // the level of accelerations no forces agree (Painlevé's paradox). What happens
                // is a tangential impact: the slides stop. The contacts then choose their
                // friction within their cones, as sticking ones do, and a slide that cannot
                // stop takes the edge against its tendency.
                Err(Failure::Friction { .. }) if rows.slide.iter().any(|s| *s != 0.0) => {
                    self.stick = true;
                    lambda.copy_from_slice(&start);
                    for i in (0..m).filter(|&i| rows.bounds.friction(i).is_some()) {
                        self.state[i] = RowState::Pinned;
                    }
                    settle(self, lambda)?;
                }
                other => other?,
            }
        }
        for i in 0..m {
            self.fixed[i] = if self.state[i] == RowState::Solve {
                0.0
            } else {
                lambda[i]
            };
        }
        self.chosen = true;
        Ok(effort)
    }

    /// Alg. 3's loop from the handled set as it is: solve, add every candidate row with a
    /// violation tendency, until nothing is added (rows are never removed). `false` where the
    /// handled rows' equalities conflict (a ball wedged between others: no equality solve holds
    /// them all, and the complementarity solve must drop what has to go).
    fn grow_handled(
        &mut self,
        rows: &Rows<'_>,
        solver: &mut dyn LinearSolver,
        params: &SolveParams,
        lambda: &mut [f64],
        w: &mut [f64],
        effort: &mut Effort,
    ) -> Result<bool, Failure> {
        loop {
            self.hold_handled(rows);
            match self.solve(rows, solver, params, lambda, w) {
                Ok(info) => effort.add(info),
                Err(Failure::Solve(SolveError::Inconsistent { .. }))
                    if self.handled.contains(&true) =>
                {
                    return Ok(false);
                }
                Err(e) => return Err(e),
            }
            let mut added = false;
            for i in 0..rows.b.len() {
                if rows.candidates[i] && !self.handled[i] && w[i] < -rows.eps {
                    self.handled[i] = true;
                    added = true;
                }
            }
            if !added {
                return Ok(true);
            }
        }
    }

    /// Solves with `solve` until every friction row's bounds agree with its normal row's
    /// multiplier: a sliding contact's at `−s μ λ_n` exactly (against its slide `s`), a sticking
    /// one's within `±μ λ_n`.
    fn settle_friction(
        &mut self,
        rows: &Rows<'_>,
        lambda: &mut [f64],
        mut solve: impl FnMut(&mut Self, &mut [f64]) -> Result<(), Failure>,
    ) -> Result<(), Failure> {
        let m = rows.b.len();
        for _ in 0..FRICTION_PASSES {
            self.friction_bounds(rows, lambda);
            solve(self, lambda)?;
            // To the solve's own precision (that of its multipliers, 1e-9 of the largest), and
            // only where it matters: a sticking row inside its cone by more than that does not
            // care where exactly the edge is.
            let tol = 1e-9 * (1.0 + lambda.iter().fold(0.0_f64, |a, l| a.max(l.abs())));
            let moved = |i: usize| {
                rows.bounds.friction(i).is_some_and(|_| {
                    let limit = rows.bounds.coupled(i, lambda).1;
                    let old = self.hi[i].abs().max(self.lo[i].abs());
                    let inside = matches!(self.state[i], RowState::Solve | RowState::Pinned)
                        && lambda[i].abs() < limit.min(old) - tol;
                    !inside && (limit - old).abs() > tol
                })
            };
            if !(0..m).any(moved) {
                return Ok(());
            }
        }
        let rows_moved = (0..m)
            .filter(|&i| rows.bounds.friction(i).is_some())
            .collect();
        Err(Failure::Friction {
            passes: FRICTION_PASSES,
            rows: rows_moved,
        })
    }

    /// Each friction row's bounds from its normal row's multiplier in `lambda`: fixed at the
    /// cone's edge against a slide, the whole cone where the contact sticks.
    fn friction_bounds(&mut self, rows: &Rows<'_>, lambda: &[f64]) {
        for i in 0..rows.b.len() {
            if rows.bounds.friction(i).is_some() {
                let limit = rows.bounds.coupled(i, lambda).1;
                let slide = if self.stick {
                    0.0
                } else {
                    rows.slide.get(i).copied().unwrap_or(0.0)
                };
                (self.lo[i], self.hi[i]) = if slide != 0.0 {
                    (-slide * limit, -slide * limit)
                } else {
                    (-limit, limit)
                };
            }
        }
    }

    /// Whether a held inequality row pulls: λ below zero by more than rounding.
    fn pulls(&self, rows: &Rows<'_>, lambda: &[f64]) -> bool {
        let scale = 1.0 + lambda.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
        (0..rows.b.len()).any(|i| {
            rows.bounds.inequality(i) && self.handled[i] && lambda[i] < -PULL_TOLERANCE * scale
        })
    }

    /// The exact complementarity solve over the candidate rows, started from the handled set.
    fn complete(
        &mut self,
        rows: &Rows<'_>,
        solver: &mut dyn LinearSolver,
        params: &SolveParams,
        lambda: &mut [f64],
        w: &mut [f64],
        effort: &mut Effort,
    ) -> Result<(), Failure> {
        self.bound_candidates(rows);
        for i in (0..rows.b.len()).filter(|&i| rows.bounds.inequality(i) && rows.candidates[i]) {
            self.state[i] = if self.handled[i] && lambda[i] > 0.0 {
                RowState::Solve
            } else {
                RowState::Lower
            };
        }
        effort.add(self.solve(rows, solver, params, lambda, w)?);
        for i in 0..rows.b.len() {
            self.handled[i] = rows.bounds.inequality(i) && self.state[i] == RowState::Solve;
        }
        Ok(())
    }

    /// Solves with the set chosen at the step's start: the rows held then, every other λ at its
    /// value then.
    pub(crate) fn keep(
        &mut self,
        rows: &Rows<'_>,
        solver: &mut dyn LinearSolver,
        params: &SolveParams,
        lambda: &mut [f64],
        w: &mut [f64],
    ) -> Result<Effort, Failure> {
        if self.by_cones {
            let start = lambda.to_vec();
            return self.solve_cones(rows, lambda, w, &start);
        }
        for i in 0..rows.b.len() {
            if self.state[i] != RowState::Solve {
                lambda[i] = self.fixed[i];
            }
        }
        let info = self.solve_kept(rows, solver, params, lambda, w)?;
        let mut effort = Effort::default();
        effort.add(info);
        if rows.bounds.any_friction() {
            // A friction row at its cone's edge follows the normal force of this stage.
            self.settle_friction(rows, lambda, |set, lambda| {
                for i in 0..lambda.len() {
                    if rows.bounds.friction(i).is_some() {
                        lambda[i] = match set.state[i] {
                            RowState::Upper => set.hi[i],
                            RowState::Lower => set.lo[i],
                            RowState::Pinned => lambda[i].clamp(set.lo[i], set.hi[i]),
                            RowState::Solve => lambda[i],
                        };
                    }
                }
                let info = set.solve_kept(rows, solver, params, lambda, w)?;
                effort.add(info);
                Ok(())
            })?;
        }
        Ok(effort)
    }

    /// Solves the held rows with the states and bounds as they are, every other λ as it is.
    fn solve_kept(
        &mut self,
        rows: &Rows<'_>,
        solver: &mut dyn LinearSolver,
        params: &SolveParams,
        lambda: &mut [f64],
        w: &mut [f64],
    ) -> Result<Info, Failure> {
        let p = problem(rows, &self.lo, &self.hi);
        complementarity::solve_fixed(
            &p,
            solver,
            params,
            &self.state,
            lambda,
            w,
            &mut self.workspace,
        )
    }

    /// Seed 004 Alg. 1 (Platt) and Alg. 2 (improved), lines 3-9, after a step: a handled row whose
    /// λ at the step's start was ≤ 0 is dropped; an ignored row enters when it is now violated
    /// (Platt: `g_end < 0`) or had a violation tendency while active at the step's start
    /// (improved: `w < −ε`).
    pub(crate) fn after_step(
        &mut self,
        method: InequalityMethod,
        start: &StepStart,
        g_end: &[f64],
        inequality: &[bool],
    ) {
        let platt = method == InequalityMethod::Platt;
        for k in (0..self.handled.len()).filter(|&k| inequality[k]) {
            if self.handled[k] {
                if start.lambda[k] <= 0.0 {
                    self.handled[k] = false;
                }
            } else if (platt && g_end[k] < 0.0)
                || (!platt && start.candidates[k] && start.w[k] < -start.eps)
            {
                self.handled[k] = true;
            }
        }
    }

    /// Bounds for the complementarity solve: candidate inequalities complementary, the others
    /// left out (bounded rows such as torque-limited motors are complementary whatever the
    /// method).
    fn bound_candidates(&mut self, rows: &Rows<'_>) {
        for i in 0..rows.b.len() {
            (self.lo[i], self.hi[i]) = if rows.bounds.friction(i).is_some() {
                // Set by `friction_bounds` from the normal forces.
                (0.0, 0.0)
            } else if !rows.bounds.inequality(i) || rows.candidates[i] {
                rows.bounds.get(i)
            } else {
                (0.0, 0.0)
            };
        }
    }

    /// Bounds for Platt's, the improved and Jonquet's algorithms: inequality rows in `F⁺` are
    /// held (seed 004 solves them as equalities: λ may come out negative), the others left out.
    fn hold_handled(&mut self, rows: &Rows<'_>) {
        for i in 0..rows.b.len() {
            (self.lo[i], self.hi[i]) = if rows.bounds.friction(i).is_some() {
                // Friction waits for the normal forces (see `settle_friction`).
                (0.0, 0.0)
            } else if !rows.bounds.inequality(i) {
                rows.bounds.get(i)
            } else if self.handled[i] {
                (f64::NEG_INFINITY, f64::INFINITY)
            } else {
                (0.0, 0.0)
            };
        }
    }

    /// One complementarity solve with the bounds set last.
    fn solve(
        &mut self,
        rows: &Rows<'_>,
        solver: &mut dyn LinearSolver,
        params: &SolveParams,
        lambda: &mut [f64],
        w: &mut [f64],
    ) -> Result<Info, Failure> {
        let p = problem(rows, &self.lo, &self.hi);
        complementarity::solve(
            &p,
            solver,
            params,
            rows.eps,
            &mut self.state,
            lambda,
            w,
            &mut self.workspace,
        )
    }
}

/// What Platt's and the improved algorithm remember of a step's start to update `F⁺` after it.
#[derive(Clone, Debug, Default)]
pub(crate) struct StepStart {
    pub(crate) lambda: Vec<f64>,
    pub(crate) w: Vec<f64>,
    pub(crate) candidates: Vec<bool>,
    pub(crate) eps: f64,
}

/// The complementarity problem of `rows` with the bounds `lo` and `hi`.
fn problem<'a>(rows: &Rows<'a>, lo: &'a [f64], hi: &'a [f64]) -> Problem<'a> {
    Problem {
        a: rows.a,
        b: rows.b,
        lo,
        hi,
        allowance: rows.allowance,
        slack: rows.slack_w,
    }
}
