//! The exact multipliers of rows with bounds: a mixed linear complementarity problem solved by
//! Dantzig's principal pivoting, in the form Baraff gave it for contact forces ("Fast contact
//! force computation for nonpenetrating rigid bodies", SIGGRAPH 1994), with boxed rows as in
//! Cottle and Dantzig's algorithm.
//!
//! With `A = J W Jᵀ` and `w = A λ − b` (for the dynamics, `w_k = J_k q̈ − d_k`, a row's
//! acceleration minus its target: seed 004's violation tendency), each row has bounds
//! `lo_k ≤ λ_k ≤ hi_k` and
//!
//! ```text
//! lo_k < λ_k < hi_k   ⇒  w_k = 0          (the row holds: an equality, a contact that pushes,
//!                                           a motor below its torque limit)
//! λ_k = lo_k          ⇒  w_k ≥ 0          (a contact that separates: λ = 0)
//! λ_k = hi_k          ⇒  w_k ≤ 0          (a motor at its limit that cannot keep up)
//! lo_k = hi_k         ⇒  λ_k = lo_k       (a row left out: an inactive inequality)
//! ```
//!
//! An equality row is `(−∞, ∞)`, an inequality `[0, ∞)`, a motor with a torque limit `[−τ, τ]`.
//!
//! Why this algorithm: each step moves one row between "held" (`w = 0`, in the solve) and "at a
//! bound", keeping every row already processed complementary, so it terminates (Cottle and
//! Dantzig; for a positive semi-definite `A` with consistent constraints, after finitely many
//! pivots). Its unit of work is a solve of the held rows, which the engine's solvers do for any
//! size and structure ([`MultiplierMatrix::masked`]): the equality rows of a 1,000-link chain do
//! not make a dense 1,000² problem. Lemke's method would need the problem dense; projected
//! Gauss-Seidel only approximates.
//!
//! Redundant rows (four contacts under a box, a duplicated constraint) make `A` singular. A row
//! that depends on the held ones already has `w = 0` when they hold, so it is never driven; the
//! held set stays independent, and the solvers' least-squares behaviour absorbs rounding. A row
//! that cannot be satisfied whatever its multiplier (conflicting constraints) is reported by index.

pub(crate) mod small;

use crate::math::vector::max_abs;
use crate::solve::{LinearSolver, MultiplierMatrix, SolveError, SolveInfo, SolveParams};

/// Where a row stands in a solution.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) enum RowState {
    /// Held: in the solve, `w = 0`, λ strictly inside its bounds.
    #[default]
    Solve,
    /// λ at its lower bound.
    Lower,
    /// λ at its upper bound.
    Upper,
    /// λ kept where it is, strictly inside its bounds, out of the solve: a boxed row (friction)
    /// that depends on the held ones and agrees with them (a box's second corner on a floor,
    /// whose friction the first corner's already gives). Held, it would make the held rows
    /// singular; at a bound, it would push against the first.
    Pinned,
}

/// A problem `w = A λ − b` with bounds on λ.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Problem<'a> {
    /// `A = J W Jᵀ`, unmasked.
    pub(crate) a: MultiplierMatrix<'a>,
    /// The right-hand side.
    pub(crate) b: &'a [f64],
    /// Lower bounds (`−∞` for none).
    pub(crate) lo: &'a [f64],
    /// Upper bounds (`∞` for none).
    pub(crate) hi: &'a [f64],
    /// How far each held row's `w` may stay from zero when the held rows are redundant and
    /// their targets disagree (see [`solve_held`]); 0 for a row that must hold to the solve's
    /// tolerance.
    pub(crate) allowance: &'a [f64],
    /// How far from zero each row's `w` may be and still count as zero (empty: ε for all).
    pub(crate) slack: &'a [f64],
}

/// What a solve did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Info {
    /// Linear solves done (the first solve, one per pivot, and the final one).
    pub(crate) solves: usize,
    /// Pivots: rows moved between held and bounded.
    pub(crate) pivots: usize,
    /// Solver iterations summed over the solves.
    pub(crate) iterations: usize,
    /// Largest relative residual among the solves.
    pub(crate) residual: f64,
}

/// Why a complementarity solve failed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub(crate) enum Failure {
    /// A linear solve failed.
    #[error(transparent)]
    Solve(#[from] SolveError),
    /// Row `row` cannot reach `w = 0` or a bound whatever its multiplier: it conflicts with the
    /// rows held.
    #[error("row {row} conflicts with the rows held")]
    Unbounded {
        /// The row being driven.
        row: usize,
    },
    /// Coulomb's cones did not settle: the friction rows' bounds `±μ λ_n` still moved after
    /// this many passes.
    #[error("friction did not settle after {passes} passes")]
    Friction {
        /// Passes done.
        passes: usize,
        /// The friction rows whose bounds still moved.
        rows: Vec<usize>,
    },
    /// The active-set method cannot carry friction (Platt's and the improved algorithm decide
    /// their set from the last step, with no cone to bound): `row` is a friction row.
    #[error("{method} does not carry friction")]
    NoFriction {
        /// The method's name.
        method: &'static str,
        /// A friction row.
        row: usize,
    },
    /// The contacts' problem with their cones ([`crate::dynamics`]'s cones: a 3D contact's
    /// circle, a 2D contact's box) did not settle:
    /// the rows whose laws still fail, the largest error, and the tolerance (the rows'
    /// accelerations).
    #[error("3D friction did not settle: error {error:e} against {tolerance:e}")]
    Cones {
        /// The rows that fail their laws.
        rows: Vec<usize>,
        /// The largest row error.
        error: f64,
        /// What a row may be off by.
        tolerance: f64,
    },
    /// The pivot cap was reached (cycling on a degenerate problem).
    #[error("no complementary solution after {pivots} pivots")]
    PivotLimit {
        /// Pivots done.
        pivots: usize,
        /// Rows still not complementary.
        rows: Vec<usize>,
    },
}

/// Internal state of a row while the algorithm runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    Solve,
    Lower,
    Upper,
    /// Not processed yet: λ held at its current value, `w` unconstrained.
    Pending,
}

/// Buffers reused from one solve to the next.
#[derive(Debug, Default)]
pub(crate) struct Workspace {
    status: Vec<Status>,
    mask: Vec<bool>,
    rhs: Vec<f64>,
    x: Vec<f64>,
    fixed: Vec<f64>,
    column: Vec<f64>,
    /// `A x` of a least-squares answer, to check it.
    product: Vec<f64>,
    d_lambda: Vec<f64>,
    d_w: Vec<f64>,
    unit: Vec<f64>,
    tmp: Vec<f64>,
    queue: Vec<usize>,
    /// Rows found to depend on the held ones while off their target by no more than rounding:
    /// satisfied as they are (see [`drive`]).
    excused: Vec<bool>,
    /// Pivots a solve may take before it gives up, if fewer than its own limit (see
    /// [`pivot_limit`]).
    pub(crate) pivot_limit: Option<usize>,
}

impl Workspace {
    fn resize(&mut self, m: usize, n: usize) {
        self.status.resize(m, Status::Solve);
        self.mask.resize(m, false);
        self.excused.clear();
        self.excused.resize(m, false);
        for v in [
            &mut self.rhs,
            &mut self.x,
            &mut self.fixed,
            &mut self.column,
            &mut self.product,
            &mut self.d_lambda,
            &mut self.d_w,
            &mut self.unit,
        ] {
            v.resize(m, 0.0);
        }
        self.tmp.resize(n, 0.0);
    }
}

/// A driven row whose Schur complement is below this fraction of its diagonal entry depends on
/// the held rows (to rounding: independent rows in a pile leave far more).
const DEPENDENT: f64 = 1e-10;
/// How many times ε a dependent row may be off its target and still count as agreeing with the
/// rows it depends on: the rounding of held sets whose condition number reaches ~1e10 (a pile's
/// contacts), still a millionth of the accelerations involved.
pub(crate) const DEPENDENT_ROUNDING: f64 = 1e3;

/// Changes of λ or w along a drive direction below this fraction of its largest one are the
/// rounding of the held rows' solve, not motion. Redundant contacts make that solve nearly
/// singular, and its rounding reaches ~1e-8 of the direction there: a row sitting at λ = 0 and
/// w = 0 at once (degenerate) would otherwise leave and re-enter the held set at zero step on
/// the sign of that rounding, forever.
const ROUNDING: f64 = 1e-7;

/// How many times ε the final solve's rounding may leave a row off complementarity.
const FINAL_ROUNDING: f64 = 10.0;

/// Passes over the pending rows at most, before giving up on a degenerate problem.
const MAX_ROUNDS: usize = 8;

/// Pivots a solve of `m` rows takes at most before it reports [`Failure::PivotLimit`]: twenty a
/// row, far more than a problem that is not cycling needs, unless the caller asked for fewer.
/// Each pivot is a solve of the held rows, which with a direct solver is a factorization of the
/// whole system: a cycling 1,600-row problem took 32,100 of them, half a minute.
fn pivot_limit(ws: &Workspace, m: usize) -> usize {
    let own = 20 * m + 100;
    ws.pivot_limit.map_or(own, |limit| limit.min(own))
}

/// Solves the problem. `state` holds a guess on entry (the last solution is a good one: one solve
/// confirms it) and the solution's states on return; `lambda` the multipliers, `w` the residuals
/// `A λ − b`. `eps` is the tolerance on `w` (below it a row counts as satisfied).
#[allow(clippy::too_many_arguments)]
pub(crate) fn solve(
    p: &Problem<'_>,
    solver: &mut dyn LinearSolver,
    params: &SolveParams,
    eps: f64,
    state: &mut [RowState],
    lambda: &mut [f64],
    w: &mut [f64],
    ws: &mut Workspace,
) -> Result<Info, Failure> {
    let m = p.b.len();
    ws.resize(m, p.a.inv_mass().len());
    let mut info = Info::default();
    // The guess, made consistent with the bounds.
    for i in 0..m {
        let (lo, hi) = (p.lo[i], p.hi[i]);
        ws.status[i] = if lo == hi {
            Status::Lower
        } else if lo == f64::NEG_INFINITY && hi == f64::INFINITY {
            Status::Solve
        } else {
            match state[i] {
                RowState::Lower if lo.is_finite() => Status::Lower,
                RowState::Upper if hi.is_finite() => Status::Upper,
                RowState::Solve => Status::Solve,
                _ => Status::Pending,
            }
        };
        lambda[i] = match ws.status[i] {
            Status::Lower => lo,
            Status::Upper => hi,
            _ => 0.0_f64.clamp(lo, hi),
        };
    }
    let tol_lambda = |lambda: &[f64]| 1e-9 * (1.0 + max_abs(lambda));
    // A guess whose held rows conflict, or leave their bounds, is no good: start from λ = 0
    // with only the free rows held instead.
    let guess_fits = match solve_held(p, solver, params, lambda, w, ws, &mut info) {
        Ok(()) => {
            let tl = tol_lambda(lambda);
            (0..m).all(|i| held_within_bounds(p, ws, lambda, i, tl))
        }
        Err(Failure::Solve(SolveError::Inconsistent { .. } | SolveError::NoConvergence { .. })) => {
            false
        }
        Err(e) => return Err(e),
    };
    if !guess_fits {
        for i in 0..m {
            if ws.status[i] == Status::Solve && is_bounded(p, i) {
                ws.status[i] = if p.lo[i] == 0.0 {
                    Status::Lower
                } else {
                    Status::Pending
                };
                lambda[i] = 0.0_f64.clamp(p.lo[i], p.hi[i]);
            }
        }
        solve_held(p, solver, params, lambda, w, ws, &mut info)?;
    }
    let cap = pivot_limit(ws, m);
    for _round in 0..MAX_ROUNDS {
        // Rows at a bound with the wrong sign of w are not complementary: drive them, one after
        // the other, most violated first.
        ws.queue.clear();
        for i in 0..m {
            if !satisfied(p, ws, i, w[i], eps) {
                ws.status[i] = Status::Pending;
                ws.queue.push(i);
            }
        }
        if ws.queue.is_empty() {
            break;
        }
        let mut queue = std::mem::take(&mut ws.queue);
        queue.sort_by(|&a, &b| w[a].abs().total_cmp(&w[b].abs()).reverse().then(a.cmp(&b)));
        for &d in &queue {
            drive(p, solver, params, eps, d, lambda, w, ws, &mut info)?;
            if info.pivots > cap {
                let rows: Vec<usize> = (0..m)
                    .filter(|&i| !satisfied(p, ws, i, w[i], eps))
                    .collect();
                // Every row complementary already (the queue's later rows were satisfied on the
                // way): the final solve below confirms it.
                if rows.is_empty() {
                    break;
                }
                return Err(Failure::PivotLimit {
                    pivots: info.pivots,
                    rows,
                });
            }
        }
        ws.queue = queue;
        // The pivots accumulate rounding (and an iterative solver's tolerance): solve the held
        // rows afresh with the final sets, then check them.
        solve_held(p, solver, params, lambda, w, ws, &mut info)?;
        let tl = tol_lambda(lambda);
        let mut clamped = false;
        for i in 0..m {
            if ws.status[i] == Status::Solve && is_bounded(p, i) {
                if lambda[i] < p.lo[i] - tl {
                    ws.status[i] = Status::Lower;
                    lambda[i] = p.lo[i];
                    clamped = true;
                } else if lambda[i] > p.hi[i] + tl {
                    ws.status[i] = Status::Upper;
                    lambda[i] = p.hi[i];
                    clamped = true;
                }
            }
        }
        if clamped {
            // A row moved to its bound changes every other row's w: the held ones' targets
            // are met no more until they are solved again, and the next round (or the check
            // below) must read the w of the λ returned. Read stale, an 8-row pyramid's held
            // contacts came out 547 m/s² off with the solve reported complete.
            solve_held(p, solver, params, lambda, w, ws, &mut info)?;
        }
    }
    // The rounds end with a fresh solve of the held rows, whose rounding on nearly singular sets
    // (an arch's wedged joints) can leave a row a little beyond ε: up to FINAL_ROUNDING ε is
    // that rounding, not a violation. A held row's λ must also be within its bounds: the last
    // round's solve after moving rows to them may leave another outside.
    let tl = tol_lambda(lambda);
    let remaining: Vec<usize> = (0..m)
        .filter(|&i| {
            !satisfied(p, ws, i, w[i], FINAL_ROUNDING * eps)
                || !held_within_bounds(p, ws, lambda, i, tl)
        })
        .collect();
    if !remaining.is_empty() {
        return Err(Failure::PivotLimit {
            pivots: info.pivots,
            rows: remaining,
        });
    }
    for i in 0..m {
        state[i] = match ws.status[i] {
            Status::Lower => RowState::Lower,
            Status::Upper => RowState::Upper,
            Status::Pending if ws.excused[i] && boxed(p, i) => RowState::Pinned,
            Status::Solve | Status::Pending => RowState::Solve,
        };
    }
    Ok(info)
}

/// Solves the rows `state` holds, with every other λ kept at its value in `lambda` (the set
/// chosen at a step's start, kept through its stages); `w = A λ − b` on return.
pub(crate) fn solve_fixed(
    p: &Problem<'_>,
    solver: &mut dyn LinearSolver,
    params: &SolveParams,
    state: &[RowState],
    lambda: &mut [f64],
    w: &mut [f64],
    ws: &mut Workspace,
) -> Result<Info, Failure> {
    let m = p.b.len();
    ws.resize(m, p.a.inv_mass().len());
    for i in 0..m {
        ws.status[i] = match state[i] {
            RowState::Solve => Status::Solve,
            RowState::Lower => Status::Lower,
            RowState::Upper => Status::Upper,
            RowState::Pinned => Status::Pending,
        };
    }
    let mut info = Info::default();
    solve_held(p, solver, params, lambda, w, ws, &mut info)?;
    Ok(info)
}

/// Whether a row is boxed: both its bounds finite and apart (friction, a limited motor).
fn boxed(p: &Problem<'_>, i: usize) -> bool {
    p.lo[i].is_finite() && p.hi[i].is_finite() && p.lo[i] < p.hi[i]
}

/// Whether a row with bounds is a complementarity row (rather than free or pinned).
fn is_bounded(p: &Problem<'_>, i: usize) -> bool {
    p.lo[i] != p.hi[i] && (p.lo[i].is_finite() || p.hi[i].is_finite())
}

/// Whether row `i` satisfies its condition: a pinned row always does, and an excused one
/// within the rounding of a nearly singular solve.
fn satisfied(p: &Problem<'_>, ws: &Workspace, i: usize, w: f64, eps: f64) -> bool {
    let eps = if ws.excused[i] {
        DEPENDENT_ROUNDING * eps
    } else {
        eps.max(p.slack.get(i).copied().unwrap_or(0.0))
    };
    p.lo[i] == p.hi[i] || complementary(ws.status[i], w, eps)
}

/// Whether row `i`, if held, has its λ within its bounds (to `tl`).
fn held_within_bounds(p: &Problem<'_>, ws: &Workspace, lambda: &[f64], i: usize, tl: f64) -> bool {
    ws.status[i] != Status::Solve || (lambda[i] >= p.lo[i] - tl && lambda[i] <= p.hi[i] + tl)
}

/// Whether a status and residual satisfy the complementarity condition.
fn complementary(status: Status, w: f64, eps: f64) -> bool {
    match status {
        Status::Solve => true,
        Status::Lower => w >= -eps,
        Status::Upper => w <= eps,
        Status::Pending => w.abs() <= eps,
    }
}

/// Solves the held rows with every other λ at its current value, then `w = A λ − b`.
fn solve_held(
    p: &Problem<'_>,
    solver: &mut dyn LinearSolver,
    params: &SolveParams,
    lambda: &mut [f64],
    w: &mut [f64],
    ws: &mut Workspace,
    info: &mut Info,
) -> Result<(), Failure> {
    let m = p.b.len();
    let mut any_held = false;
    for i in 0..m {
        let held = ws.status[i] == Status::Solve;
        ws.mask[i] = held;
        any_held |= held;
        ws.fixed[i] = if held { 0.0 } else { lambda[i] };
    }
    // rhs = b − A λ_fixed, on the held rows.
    p.a.apply(&ws.fixed, &mut ws.rhs, &mut ws.tmp);
    for i in 0..m {
        ws.rhs[i] = if ws.mask[i] { p.b[i] - ws.rhs[i] } else { 0.0 };
        ws.x[i] = if ws.mask[i] { lambda[i] } else { 0.0 };
    }
    if any_held {
        solve_masked(p, solver, params, ws, info)?;
    }
    for i in 0..m {
        if ws.mask[i] {
            lambda[i] = ws.x[i];
        }
    }
    p.a.apply(lambda, w, &mut ws.tmp);
    for i in 0..m {
        w[i] -= p.b[i];
        if ws.mask[i] {
            // Held rows satisfy w = 0 up to the solve's tolerance; treat it as exact.
            w[i] = 0.0;
        }
    }
    Ok(())
}

/// Solves `A_SS x = rhs` over the rows in `ws.mask`, accepting a least-squares `x` when the
/// rows are redundant and inconsistent only within their allowances.
///
/// Contacts in a pile are hyperstatic: in 2D a ball resting in a hexagonal packing touches six
/// neighbours with two degrees of freedom, so the held rows depend on each other. Their targets
/// are consistent at the velocity level (`J q̇` lies in the range of `J`), but not quite at the
/// acceleration level: the curvature terms `J̇q̇` and the feedback on each contact's own tiny
/// penetration are not differences of positions that any motion can produce, and no λ meets
/// every target. What no force can do better is the least-squares answer. Write the held rows'
/// right-hand side as `J y + n`, with `n` the terms that need not be in the range of `J`: the
/// least-squares residual is the part of `n` orthogonal to that range, so its norm is at most
/// `‖n‖`, and `allowance` bounds `|n|` row by row. A residual within `‖allowance‖` is that
/// disagreement and is accepted (the rows are left that far off their targets, metres per second
/// squared); one beyond it — constraints that truly conflict — is still an error.
fn solve_masked(
    p: &Problem<'_>,
    solver: &mut dyn LinearSolver,
    params: &SolveParams,
    ws: &mut Workspace,
    info: &mut Info,
) -> Result<(), Failure> {
    let a = p.a.masked(&ws.mask);
    match solver.solve(&a, &ws.rhs, &mut ws.x, params) {
        Ok(s) => {
            count(info, s);
            Ok(())
        }
        Err(error @ SolveError::Inconsistent { residual }) => {
            let m = p.b.len();
            let floor = params.consistency_threshold(crate::solve::norm(&ws.rhs));
            if !ws.x.iter().all(|x| x.is_finite()) {
                return Err(Failure::Solve(error));
            }
            a.apply(&ws.x, &mut ws.product, &mut ws.tmp);
            let (mut off, mut allowed) = (0.0, 0.0);
            for i in (0..m).filter(|&i| ws.mask[i]) {
                off += (ws.product[i] - ws.rhs[i]).powi(2);
                allowed += p.allowance[i].powi(2);
            }
            if off.sqrt() > floor + allowed.sqrt() {
                return Err(Failure::Solve(error));
            }
            count(
                info,
                SolveInfo {
                    iterations: 1,
                    residual,
                },
            );
            Ok(())
        }
        Err(e) => Err(e.into()),
    }
}

fn count(info: &mut Info, s: SolveInfo) {
    info.solves += 1;
    info.iterations += s.iterations;
    info.residual = info.residual.max(s.residual);
}

/// What stops a drive step.
#[derive(Clone, Copy, Debug)]
enum Block {
    /// The driven row reaches `w = 0`: it becomes held.
    DrivenHeld,
    /// The driven row reaches a bound.
    DrivenLower,
    DrivenUpper,
    /// A held row reaches a bound.
    HeldToLower(usize),
    HeldToUpper(usize),
    /// A row at a bound reaches `w = 0`: it becomes held.
    BoundToHeld(usize),
}

/// Drives row `d` until it is complementary, moving blocking rows between the sets on the way.
#[allow(clippy::too_many_arguments)]
fn drive(
    p: &Problem<'_>,
    solver: &mut dyn LinearSolver,
    params: &SolveParams,
    eps: f64,
    d: usize,
    lambda: &mut [f64],
    w: &mut [f64],
    ws: &mut Workspace,
    info: &mut Info,
) -> Result<(), Failure> {
    let m = p.b.len();
    loop {
        if complementary(ws.status[d], w[d], eps) {
            if ws.status[d] == Status::Pending {
                // Inside its bounds with w = 0 (within eps): a held row.
                ws.status[d] = Status::Solve;
            }
            return Ok(());
        }
        let sigma = if w[d] < 0.0 { 1.0 } else { -1.0 };
        // Direction: λ_d moves by σ, the held rows follow so that they keep w = 0:
        // A_SS Δλ_S = −σ A_Sd.
        ws.unit.fill(0.0);
        ws.unit[d] = 1.0;
        p.a.apply(&ws.unit, &mut ws.column, &mut ws.tmp);
        let mut any_held = false;
        for i in 0..m {
            let held = ws.status[i] == Status::Solve;
            ws.mask[i] = held;
            any_held |= held;
            ws.rhs[i] = if held { -sigma * ws.column[i] } else { 0.0 };
            ws.x[i] = 0.0;
        }
        if any_held {
            solve_masked(p, solver, params, ws, info)?;
        }
        for i in 0..m {
            ws.d_lambda[i] = if ws.mask[i] { ws.x[i] } else { 0.0 };
        }
        ws.d_lambda[d] = sigma;
        p.a.apply(&ws.d_lambda, &mut ws.d_w, &mut ws.tmp);
        for i in 0..m {
            if ws.mask[i] {
                ws.d_w[i] = 0.0;
            }
        }
        // A row whose Schur complement `A_dd − A_dS A_SS⁻¹ A_Sd` vanishes depends on the held
        // rows: no λ_d changes its w without breaking them. Off its target by no more than the
        // rounding of a nearly singular solve, it is a redundant contact that agrees with the
        // others and stays as it is; driven instead, it only swaps held rows in and out at zero
        // step, forever. Off by more, it conflicts with them (reported below).
        let a_dd = ws.column[d];
        if ws.d_w[d] * sigma <= DEPENDENT * a_dd && w[d].abs() <= DEPENDENT_ROUNDING * eps {
            ws.excused[d] = true;
            ws.status[d] = if lambda[d] <= p.lo[d] {
                Status::Lower
            } else if lambda[d] >= p.hi[d] {
                Status::Upper
            } else if boxed(p, d) {
                // Pinned where it is (see `RowState::Pinned`).
                Status::Pending
            } else {
                Status::Solve
            };
            return Ok(());
        }
        // Changes smaller than this are rounding, not motion.
        let tiny_lambda = ROUNDING * (1.0 + max_abs(&ws.d_lambda));
        let tiny_w = ROUNDING * (1.0 + max_abs(&ws.d_w));
        let mut best: Option<(f64, Block)> = None;
        let mut consider = |alpha: f64, block: Block| {
            let alpha = alpha.max(0.0);
            if best.is_none_or(|(a, _)| alpha < a) {
                best = Some((alpha, block));
            }
        };
        // The driven row first, so that on a tie it finishes.
        if ws.d_w[d] * sigma > tiny_w {
            consider(-w[d] / ws.d_w[d], Block::DrivenHeld);
        }
        if sigma > 0.0 && p.hi[d].is_finite() {
            consider(p.hi[d] - lambda[d], Block::DrivenUpper);
        }
        if sigma < 0.0 && p.lo[d].is_finite() {
            consider(lambda[d] - p.lo[d], Block::DrivenLower);
        }
        for i in 0..m {
            if i == d {
                continue;
            }
            match ws.status[i] {
                Status::Solve if is_bounded(p, i) => {
                    let dl = ws.d_lambda[i];
                    if dl < -tiny_lambda && p.lo[i].is_finite() {
                        consider((lambda[i] - p.lo[i]) / -dl, Block::HeldToLower(i));
                    } else if dl > tiny_lambda && p.hi[i].is_finite() {
                        consider((p.hi[i] - lambda[i]) / dl, Block::HeldToUpper(i));
                    }
                }
                Status::Lower if p.lo[i] != p.hi[i] && ws.d_w[i] < -tiny_w => {
                    consider(w[i].max(0.0) / -ws.d_w[i], Block::BoundToHeld(i));
                }
                Status::Upper if p.lo[i] != p.hi[i] && ws.d_w[i] > tiny_w => {
                    consider((-w[i]).max(0.0) / ws.d_w[i], Block::BoundToHeld(i));
                }
                _ => {}
            }
        }
        let Some((alpha, block)) = best else {
            return Err(Failure::Unbounded { row: d });
        };
        for i in 0..m {
            lambda[i] += alpha * ws.d_lambda[i];
            w[i] += alpha * ws.d_w[i];
        }
        info.pivots += 1;
        match block {
            Block::DrivenHeld => {
                ws.status[d] = Status::Solve;
                w[d] = 0.0;
                return Ok(());
            }
            Block::DrivenLower => {
                ws.status[d] = Status::Lower;
                lambda[d] = p.lo[d];
                return Ok(());
            }
            Block::DrivenUpper => {
                ws.status[d] = Status::Upper;
                lambda[d] = p.hi[d];
                return Ok(());
            }
            Block::HeldToLower(i) => {
                ws.status[i] = Status::Lower;
                lambda[i] = p.lo[i];
            }
            Block::HeldToUpper(i) => {
                ws.status[i] = Status::Upper;
                lambda[i] = p.hi[i];
            }
            Block::BoundToHeld(i) => {
                ws.status[i] = Status::Solve;
                w[i] = 0.0;
            }
        }
        if info.pivots > pivot_limit(ws, m) {
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests;
