//! Coulomb's circular cone in the explicit integrators: seed 004's multiplier system with a 3D
//! contact's friction (issue 33's exact cone, at the level of accelerations).
//!
//! A 3D contact has a normal row and two friction rows along its tangents, and its friction
//! force `λ_t = (λ₁, λ₂)` lies in the disk `|λ_t| ≤ μ λ_n`. Dantzig's pivoting
//! ([`crate::solve::complementarity`]) bounds each row by a box of its own: a square around the
//! circle, up to √2 times too strong along its diagonals. So where a contact has two friction
//! rows, the evaluation states its rows as one complementarity problem over the accelerations,
//!
//! ```text
//! w = J W Jᵀ λ − b:   w_n ≥ 0 ⊥ λ_n ≥ 0                   (a contact: seed 004)
//!                     stick:  w_t = 0,  |λ_t| ≤ μ λ_n      (no tangential acceleration)
//!                     onset:  λ_t = −μ λ_n w_t/|w_t|       (at the circle, against the slip it
//!                                                           would start)
//!                     slide:  λ_t = −μ λ_n ŝ               (ŝ the slip's direction at the
//!                                                           step's start, aimed again at each
//!                                                           stage)
//!                     w = 0 for an equality, a motor within its limit
//! ```
//!
//! and solves it with the implicit steppers' own solver ([`crate::solve::coulomb`]): nonsmooth
//! Gauss–Seidel over the contacts, each 3D contact on its circle, with direct solves of the rows
//! inside their bounds, which settles redundant contacts (a box's four corners) where bounds
//! passed from row to row would circle. A 2D step whose pivoting does not settle its friction
//! (an arch's wedged joints) comes here too, its cones the boxes of its rows' bounds
//! ([`super::active_set`]).
//!
//! Redundant contacts leave the split of their forces free, and the sweeps' split depends on
//! where they start: from zero, or from the last evaluation's forces, a crate's four corners
//! on an incline ended up squeezing it sideways, friction that cancels, and drifted further
//! from step to step. So each solve starts from the forces of least norm with every contact
//! sticking, brought onto the cones, the rows left inside solved again with the edges
//! following their normal forces; the sweeps then only trim what still breaks a law, and a
//! sticking set's forces are split by least norm at the end, as the implicit steppers split
//! theirs. The same state gives the same forces, whatever came before (up to
//! [`STICKING_START_LARGEST`] rows; a larger problem's sweeps start from the last forces).
//!
//! Every stage of a step solves again (where Dantzig's set is kept through the step): a sliding
//! contact's friction follows its slip's direction and its normal force at each stage, and a
//! sticking contact's stays within its circle. A contact that starts to slip inside a step does
//! so at the acceleration level, against the tangential acceleration it would have.

use super::rows::{Effort, Rows};
use crate::solve::complementarity::{Failure, RowState};
use crate::solve::coulomb::RowBounds;
use crate::solve::coulomb::contact_problem::{
    ContactProblem, blocks, error, move_row, positions, row_error,
};
use crate::solve::coulomb::disk::project;
use crate::solve::coulomb::gauss_seidel::gauss_seidel_restarted;
use crate::solve::coulomb::least_norm::symmetric_least_squares;
use crate::solve::coulomb::split::settle_split;
use crate::solve::coulomb::subspace::DENSE_LARGEST;
use crate::solve::coulomb::subspace::subspace;

/// The explicit integrators' problem with circular cones, and its buffers.
#[derive(Debug, Default)]
pub(crate) struct Cones {
    problem: ContactProblem,
    /// Each row's own bounds for this solve: an inequality's where it is a candidate, `(0, 0)`
    /// where it is not.
    own: Vec<(f64, f64)>,
    /// `A`'s entries `(column, row, value)`, scratch.
    entries: Vec<(usize, usize, f64)>,
    /// A unit multiplier.
    unit: Vec<f64>,
    /// A column of `J W Jᵀ` (or its product with λ).
    column: Vec<f64>,
    /// The coordinates' scratch for the products.
    tmp: Vec<f64>,
}

impl Cones {
    /// Solves `rows` with their cones from the multipliers in `lambda` (the last evaluation's),
    /// leaving the multipliers in `lambda`, each row's `w` in `w` and each row's state in
    /// `state`. `stick` takes every contact as sticking, whatever its slide (after slides
    /// that wedged the bodies: see [`super::active_set`]).
    pub(crate) fn solve(
        &mut self,
        rows: &Rows<'_>,
        stick: bool,
        lambda: &mut [f64],
        w: &mut [f64],
        state: &mut [RowState],
    ) -> Result<Effort, Failure> {
        let m = rows.b.len();
        let n = rows.a.inv_mass().len();
        self.own.clear();
        self.own.extend((0..m).map(|r| {
            if rows.bounds.inequality(r) && !rows.candidates[r] {
                (0.0, 0.0)
            } else {
                rows.bounds.get(r)
            }
        }));
        let slides = if stick { &[][..] } else { rows.slide };
        let bounds = RowBounds::with_slides(rows.bounds.with_own(&self.own), slides);
        let p = &mut self.problem;
        // Every row but the inequalities left out, whose λ is 0: the equalities (joints) are
        // solved with the contacts, in the direct solves of the rows inside their bounds.
        // A friction row is left out with its normal row: a contact apart has no friction.
        let left_out = |r: usize| match rows.bounds.friction(r) {
            Some((normal, _)) => self.own[normal] == (0.0, 0.0),
            None => self.own[r] == (0.0, 0.0),
        };
        p.rows.clear();
        p.rows.extend((0..m).filter(|&r| !left_out(r)));
        for r in (0..m).filter(|&r| left_out(r)) {
            lambda[r] = 0.0;
        }
        p.mu.clear();
        p.mu.extend_from_slice(lambda);
        let index = positions(p);
        // A's columns, one product with J W Jᵀ each: the explicit integrators' contact scenes
        // have rows in the hundreds, where this costs less than the sweeps.
        self.unit.clear();
        self.unit.resize(m, 0.0);
        self.column.resize(m, 0.0);
        self.tmp.resize(n, 0.0);
        self.entries.clear();
        for (k, &r) in p.rows.iter().enumerate() {
            self.unit[r] = 1.0;
            rows.a.apply(&self.unit, &mut self.column, &mut self.tmp);
            self.unit[r] = 0.0;
            for (j, &value) in self.column.iter().enumerate() {
                if index[j] != usize::MAX && (value != 0.0 || j == r) {
                    self.entries.push((k, index[j], value));
                }
            }
        }
        p.set_columns(&self.entries);
        rows.a.apply(lambda, &mut self.column, &mut self.tmp);
        p.residual.clear();
        p.residual
            .extend(p.rows.iter().map(|&r| self.column[r] - rows.b[r]));
        let tolerance = rows.eps;
        if p.rows.len() <= STICKING_START_LARGEST {
            sticking_start(p, &bounds);
        }
        gauss_seidel_restarted(p, &bounds, 1e-3 * tolerance, tolerance);
        // A row meets its law to the sweeps' rounding on redundant rows, or to what redundant
        // rows whose targets disagree leave.
        let accepted = SETTLED * tolerance;
        let (mut unsettled, mut worst) = (Vec::new(), 0.0_f64);
        for k in 0..p.rows.len() {
            let r = p.rows[k];
            let slack = rows.allowance.get(r).copied().unwrap_or(0.0)
                + rows.slack_w.get(r).copied().unwrap_or(0.0);
            let error = row_error(p, &bounds, k);
            if !(error <= accepted + slack) {
                unsettled.push(r);
                worst = worst.max(error);
            }
        }
        if !unsettled.is_empty() {
            return Err(Failure::Cones {
                rows: unsettled,
                error: worst,
                tolerance: accepted,
            });
        }
        // A sticking set's split of its forces does not move the bodies: the least-norm one is
        // what the contacts report. A sliding contact's friction follows its normal force, so
        // its split is the motion's, and is left where the sweeps put it.
        let sliding = slides.iter().any(|&s| s != 0.0);
        if !sliding && n <= DENSE_LARGEST {
            let jacobian = rows.a.jacobian();
            let force = |x: &[f64], out: &mut [f64]| jacobian.mul_transpose(x, out);
            // Kept where it leaves the rows as near their laws as the sweeps did.
            let reached = error(p, &bounds).max(tolerance);
            settle_split(p, &bounds, (n, &force), reached);
        }
        lambda.copy_from_slice(&p.mu);
        rows.a.apply(lambda, w, &mut self.tmp);
        for r in 0..m {
            w[r] -= rows.b[r];
            let (lo, hi) = bounds.get(r, lambda);
            state[r] = if index[r] == usize::MAX || lo == hi || lambda[r] <= lo {
                RowState::Lower
            } else if lambda[r] >= hi {
                RowState::Upper
            } else {
                RowState::Solve
            };
        }
        Ok(Effort {
            solves: 1,
            iterations: 0,
            residual: 0.0,
        })
    }
}

/// How many times the threshold ε a row's law may be off once the sweeps have stopped: the
/// rounding of redundant, wedged rows (a 2D arch's joints stalled at 4e-8 against an ε of
/// 1e-8). It is 1e-8 of the accelerations in play (ε is 1e-9 of them), which a step of dt
/// turns into `1e-8 |b| dt²` of a contact's position, where the contact tolerance is 1e-9 m.
const SETTLED: f64 = 10.0;

/// The most rows whose problem starts from its sticking solution of least norm (an
/// eigendecomposition of their block of `A`).
const STICKING_START_LARGEST: usize = 600;

/// Starts `p` where every row holds (every contact sticks and pushes, each sliding contact's
/// friction where it is), by least norm: the sweeps, started from forces of zero, push the
/// contacts they meet first towards their cones' edges, where a box's four corners can end up
/// squeezing the box between them (friction that cancels, which the least-norm split cannot
/// take back from rows at their edges); from the least-norm forces they only trim what leaves
/// the cones.
fn sticking_start(p: &mut ContactProblem, bounds: &RowBounds<'_>) {
    // Every row from zero, a sliding contact's friction too: its normal force is split as the
    // others' are, and its friction follows.
    for k in 0..p.rows.len() {
        let delta = -p.mu[p.rows[k]];
        move_row(p, k, delta);
    }
    let held: Vec<usize> = (0..p.rows.len())
        .filter(|&k| bounds.slide_edge(p.rows[k]).is_none())
        .collect();
    let mut index = Vec::new();
    let block = p.block(&held, &mut index);
    let rhs: Vec<f64> = held.iter().map(|&k| -p.residual[k]).collect();
    let Some(delta) = symmetric_least_squares(&block, &rhs) else {
        return;
    };
    for (i, &k) in held.iter().enumerate() {
        move_row(p, k, delta[i]);
    }
    // Onto the cones, each friction force along its own direction (no contact pulls), and the
    // rows left inside solved together with those at their edges following their normal
    // forces: the least-norm share of what the edges gave up.
    blocks(p, bounds);
    for k in 0..p.rows.len() {
        let r = p.rows[k];
        if bounds.inequality(r) && p.mu[r] < 0.0 {
            move_row(p, k, -p.mu[r]);
        }
    }
    for (k, [t1, t2], coefficient) in p.disks.clone() {
        let (r1, r2) = (p.rows[t1], p.rows[t2]);
        let radius = coefficient * p.mu[p.rows[k]].max(0.0);
        let [f1, f2] = project([p.mu[r1], p.mu[r2]], radius);
        move_row(p, t1, f1 - p.mu[r1]);
        move_row(p, t2, f2 - p.mu[r2]);
    }
    for k in 0..p.rows.len() {
        let r = p.rows[k];
        if let Some((normal, coupling)) = bounds.slide_edge(r) {
            let target = coupling * p.mu[normal].max(0.0);
            move_row(p, k, target - p.mu[r]);
        }
    }
    subspace(p, bounds);
}
