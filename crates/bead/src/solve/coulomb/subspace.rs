//! The direct solves that speed up [`super::contact_problem`]'s sweeps: the bounded rows
//! strictly inside their bounds solved together, the friction rows at their cones' edges
//! following their normal rows, by least squares of least norm (redundant contacts leave the
//! split of their forces free), then moved as far as their bounds allow, with active-set
//! pivots where a row at its bound would stop the step at once. Silcowitz, Niebe and
//! Erleben's projected Gauss–Seidel with subspace minimization is the same plan.

use super::contact_problem::{ContactProblem, disk_row, move_row, positions, total_error};
use super::least_norm::{least_squares, symmetric_pseudo_inverse};
use super::row_bounds::RowBounds;

/// The rows strictly inside their bounds (by their positions in `rows`), and each friction row
/// at its cone's edge whose normal row is among them: its position, its normal row's index in
/// `free`, and `±μ_f`, so that it follows its normal row, `μ_t = ±μ_f μ_n`.
pub(crate) struct FreeRows {
    pub(crate) free: Vec<usize>,
    pub(crate) edges: Vec<(usize, usize, f64)>,
}

/// The bounded rows of `p` strictly inside their bounds (by more than [`INSIDE`] of the largest
/// multiplier: rounding leaves rows a hair from the bound they belong at), and the edges that
/// follow them.
pub(crate) fn free_rows(p: &ContactProblem, bounds: &RowBounds<'_>) -> FreeRows {
    let b = p.rows.len();
    let index = positions(p);
    let largest_mu = p.rows.iter().fold(0.0_f64, |m, &r| m.max(p.mu[r].abs()));
    let margin = INSIDE * largest_mu;
    let inside = |k: usize| {
        let r = p.rows[k];
        if let Some((s, _, radius)) = disk_row(p, bounds, k) {
            // A 3D contact's friction rows are inside together: its force inside the circle.
            return p.diagonal(k) > 0.0 && p.mu[r].hypot(p.mu[p.rows[s]]) < radius - margin;
        }
        let (lo, hi) = bounds.get(r, &p.mu);
        p.diagonal(k) > 0.0 && p.mu[r] > lo + margin && p.mu[r] < hi - margin
    };
    let free: Vec<usize> = (0..b).filter(|&k| inside(k)).collect();
    let mut column = vec![usize::MAX; b];
    for (i, &k) in free.iter().enumerate() {
        column[k] = i;
    }
    let edges = (0..b)
        .filter_map(|k| {
            let r = p.rows[k];
            if let Some((normal, coupling)) = bounds.slide_edge(r) {
                // A sliding contact's friction follows its normal force along its slide.
                let j = *column.get(*index.get(normal)?)?;
                return (j != usize::MAX).then_some((k, j, coupling));
            }
            let (normal, coefficient) = bounds.cone(r)?;
            let n = *index.get(normal)?;
            let j = *column.get(n)?;
            if j == usize::MAX || inside(k) || p.mu[r] == 0.0 {
                return None;
            }
            if let Some((s, _, _)) = disk_row(p, bounds, k) {
                // On the circle: the force keeps its direction and follows its normal force.
                let force = p.mu[r].hypot(p.mu[p.rows[s]]);
                return Some((k, j, coefficient * p.mu[r] / force));
            }
            Some((k, j, coefficient * p.mu[r].signum()))
        })
        .collect();
    FreeRows { free, edges }
}

/// The rows strictly inside their bounds solved together, the others where they are, but for
/// a friction row at its cone's edge, which follows its normal row: `μ_t = ±μ_f μ_n`. With `F`
/// the free rows and `E` the edges, the change `Δ_F` solves `(A_FF + A_FE S) Δ_F = −r_F`, `S`
/// the edges' coupling, by least squares (from the singular values, or on a large block with
/// a few edges by [`with_edges`]' splitting: redundant rows keep their split).
pub(crate) fn subspace(p: &mut ContactProblem, bounds: &RowBounds<'_>) -> f64 {
    let mut rows = free_rows(p, bounds);
    let Some(delta) = solve_free(p, &rows) else {
        return 1.0;
    };
    let (change, room) = rooms(p, bounds, &rows, &delta);
    let alpha = least(&room);
    if alpha >= STUCK {
        move_by(p, &change, alpha);
        return alpha;
    }
    // Rows the step would carry past their bounds stop it short, however little they
    // matter: a 3D arch's redundant corners held its steps to 1e-4 of their length, and the
    // sweeps alone then took hundreds to settle a step. Where the step is stuck so, those rows
    // are held where they are and the others solved again (an active-set pivot), a few times.
    // The pivoted step is kept where it lowers the rows' errors taken together: held rows
    // can lose more than the others gain (a tumbling stack of boxes with friction, settled
    // to 2e-15, was thrown to 1e-10 and its step never settled).
    let before = total_error(p, bounds);
    let start = multipliers(p);
    let mut blocked: Vec<bool> = room.iter().map(|&a| a < 1.0).collect();
    let mut held: Vec<usize> = Vec::new();
    for pivot in 1..=PIVOTS {
        let (next, left) = without(p, bounds, &rows, &blocked);
        held.extend(left);
        rows = next;
        let Some(delta) = solve_held(p, &rows, &held) else {
            break;
        };
        let (change, room) = rooms(p, bounds, &rows, &delta);
        let pivoted = least(&room);
        if pivot == PIVOTS || pivoted >= STUCK {
            move_by(p, &change, pivoted);
            if total_error(p, bounds) < before {
                return pivoted;
            }
            move_to(p, &start);
            break;
        }
        blocked = room.iter().map(|&a| a < 1.0).collect();
    }
    move_by(p, &change, alpha);
    alpha
}

/// A share of its length below which [`subspace`]'s step counts as stuck, and pivots.
const STUCK: f64 = 1e-2;

/// The bounded rows' multipliers, by their positions in `rows`.
fn multipliers(p: &ContactProblem) -> Vec<f64> {
    p.rows.iter().map(|&r| p.mu[r]).collect()
}

/// Every bounded row moved to its multiplier in `target` (by positions in `rows`).
fn move_to(p: &mut ContactProblem, target: &[f64]) {
    for (k, &goal) in target.iter().enumerate() {
        move_row(p, k, goal - p.mu[p.rows[k]]);
    }
}

/// Pivots of [`subspace`]: solves again without the rows that blocked the last one's step.
const PIVOTS: usize = 4;

/// The change `Δ_F` of the free rows that solves their residuals, the edges following; `None`
/// where there are none, too many for a dense solve, or the solve fails.
fn solve_free(p: &ContactProblem, rows: &FreeRows) -> Option<Vec<f64>> {
    let (free, edges) = (&rows.free, &rows.edges);
    let f = free.len();
    if f == 0 || f > DENSE_LARGEST {
        return None;
    }
    let whole = || equations(p, rows, &[]);
    let residual: Vec<f64> = free.iter().map(|&k| -p.residual[k]).collect();
    // On a large block with a few edges, the symmetric block's eigenvectors and a splitting
    // are cheaper than the whole block's singular values; on a small one, or with many edges
    // (a landing pile's sliding contacts), the splitting's rounds cost more than they save.
    if f >= SPLITTING_FROM && EDGES_AT_MOST * edges.len() <= f {
        with_edges(p, rows, &residual).or_else(|| least_squares(&whole(), &residual))
    } else {
        least_squares(&whole(), &residual)
    }
}

/// The change `Δ_F` of the free rows that solves, by least squares, their residuals and those
/// of the `held` rows, which stay where they are: a pivot's rows keep their equations, since
/// they are inside their bounds and their residuals must vanish too.
fn solve_held(p: &ContactProblem, rows: &FreeRows, held: &[usize]) -> Option<Vec<f64>> {
    let f = rows.free.len();
    if f == 0 || f + held.len() > DENSE_LARGEST {
        return None;
    }
    let residual: Vec<f64> = rows
        .free
        .iter()
        .chain(held)
        .map(|&k| -p.residual[k])
        .collect();
    least_squares(&equations(p, rows, held), &residual)
}

/// The free rows' columns of `A` on the rows of the free ones then the `held` ones, each
/// edge's column, times its sign and coefficient, joined to its normal row's.
fn equations(p: &ContactProblem, rows: &FreeRows, held: &[usize]) -> faer::Mat<f64> {
    let mut index = vec![usize::MAX; p.rows.len()];
    for (i, &k) in rows.free.iter().chain(held).enumerate() {
        index[k] = i;
    }
    let mut block = faer::Mat::<f64>::zeros(rows.free.len() + held.len(), rows.free.len());
    for (j, &k) in rows.free.iter().enumerate() {
        for (row, value) in p.column(k) {
            if index[row] != usize::MAX {
                block[(index[row], j)] = value;
            }
        }
    }
    for &(k, j, s) in &rows.edges {
        for (row, value) in p.column(k) {
            if index[row] != usize::MAX {
                block[(index[row], j)] += value * s;
            }
        }
    }
    block
}

/// `rows` without the free rows marked `blocked` (by their places in `rows.free`), a 3D
/// contact's two friction rows together, and without the edges whose normal row left; with
/// the free rows that left.
fn without(
    p: &ContactProblem,
    bounds: &RowBounds<'_>,
    rows: &FreeRows,
    blocked: &[bool],
) -> (FreeRows, Vec<usize>) {
    let mut drop = vec![false; p.rows.len()];
    for (i, &k) in rows.free.iter().enumerate() {
        if blocked[i] {
            drop[k] = true;
            if let Some((s, _, _)) = disk_row(p, bounds, k) {
                drop[s] = true;
            }
        }
    }
    let mut place = vec![usize::MAX; rows.free.len()];
    let mut free = Vec::with_capacity(rows.free.len());
    let mut left = Vec::new();
    for (i, &k) in rows.free.iter().enumerate() {
        if drop[k] {
            left.push(k);
        } else {
            place[i] = free.len();
            free.push(k);
        }
    }
    let edges = rows
        .edges
        .iter()
        .filter(|&&(_, j, _)| place[j] != usize::MAX)
        .map(|&(k, j, s)| (k, place[j], s))
        .collect();
    (FreeRows { free, edges }, left)
}

/// `(A_FF + A_FE S) Δ_F = rhs` by the splitting `A_FF Δ⁽ᵏ⁺¹⁾ = rhs − A_FE S Δ⁽ᵏ⁾`, each
/// round on one eigendecomposition of the symmetric `A_FF` (a third of the singular values'
/// cost on the 20-row pyramid's 1,586 free rows: 0.29 s against 0.82 s). A few edges couple
/// little: the pyramid's 14 took 17 rounds to 10⁻¹² of the right-hand side. `None` where the
/// rounds do not get there in [`EDGE_ROUNDS`] (the caller then takes the singular values).
pub(crate) fn with_edges(p: &ContactProblem, rows: &FreeRows, rhs: &[f64]) -> Option<Vec<f64>> {
    let (free, edges) = (&rows.free, &rows.edges);
    let f = free.len();
    let mut index = Vec::new();
    let block = p.block(free, &mut index);
    let solve = symmetric_pseudo_inverse(&block)?;
    let scale = rhs.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
    let mut delta = solve(rhs);
    let mut shifted = vec![0.0; f];
    for _ in 0..EDGE_ROUNDS {
        // `rhs − A_FE S Δ`, and how far `Δ` is from solving the whole system.
        shifted.copy_from_slice(rhs);
        for &(k, j, s) in edges {
            let moved = s * delta[j];
            for (row, value) in p.column(k) {
                if index[row] != usize::MAX {
                    shifted[index[row]] -= value * moved;
                }
            }
        }
        let off = (0..f).fold(0.0_f64, |m, i| {
            let row = (0..f).map(|j| block[(i, j)] * delta[j]).sum::<f64>();
            m.max((shifted[i] - row).abs())
        });
        if !off.is_finite() {
            return None;
        }
        if off <= EDGE_ACCURACY * scale {
            return Some(delta);
        }
        delta = solve(&shifted);
    }
    None
}

/// The most free rows solved together as a dense block (128 MB, and minutes of its
/// decomposition): a larger face is left to the sweeps, rather than take the machine's memory
/// (the 5,050 touching boxes of Box2D's `large_pyramid` give faces of tens of thousands of
/// rows).
pub(crate) const DENSE_LARGEST: usize = 4096;
/// The fewest free rows [`subspace`] solves by [`with_edges`]' splitting.
const SPLITTING_FROM: usize = 400;
/// [`subspace`] takes the splitting for at most one edge in this many free rows.
const EDGES_AT_MOST: usize = 16;
/// The most rounds of [`with_edges`]' splitting.
const EDGE_ROUNDS: usize = 40;
/// How closely, relative to its right-hand side, [`with_edges`] solves its system.
const EDGE_ACCURACY: f64 = 1e-12;

/// Moves the free rows of `rows` by `delta` (an edge with its normal row), as far along it as
/// every free row stays within its bounds (a friction row's move with its normal row's
/// multiplier), with the residuals: the rows the move would carry past a bound stop at it, and
/// what follows decides whether they stay there. Returns the fraction of `delta` taken.
pub(crate) fn move_within_bounds(
    p: &mut ContactProblem,
    bounds: &RowBounds<'_>,
    rows: &FreeRows,
    delta: &[f64],
) -> f64 {
    let (change, room) = rooms(p, bounds, rows, delta);
    let alpha = least(&room);
    move_by(p, &change, alpha);
    alpha
}

/// The share of a step every row's `room` allows (1 at most).
fn least(room: &[f64]) -> f64 {
    room.iter().fold(1.0_f64, |m, &a| m.min(a))
}

/// Every row's change from `delta` (the free rows', the edges following their normal rows),
/// and for each free row the share of it that keeps the row within its bounds (1 where all of
/// it does; a 3D contact's disk at its first friction row).
fn rooms(
    p: &ContactProblem,
    bounds: &RowBounds<'_>,
    rows: &FreeRows,
    delta: &[f64],
) -> (Vec<f64>, Vec<f64>) {
    let b = p.rows.len();
    let index = positions(p);
    let mut change = vec![0.0; b];
    for (i, &k) in rows.free.iter().enumerate() {
        change[k] = delta[i];
    }
    for &(k, j, s) in &rows.edges {
        change[k] = s * delta[j];
    }
    let room = rows
        .free
        .iter()
        .map(|&k| {
            let r = p.rows[k];
            let d = change[k];
            let mut alpha = 1.0_f64;
            if let Some((s, normal, radius)) = disk_row(p, bounds, k) {
                // A 3D contact's force and its disk move together (once, from its first row).
                if s > k {
                    let coefficient = bounds.cone(r).map_or(0.0, |(_, c)| c);
                    let n = index.get(normal).copied().unwrap_or(usize::MAX);
                    let d_n = if n == usize::MAX { 0.0 } else { change[n] };
                    let u = [p.mu[r], p.mu[p.rows[s]]];
                    alpha = alpha.min(super::disk::room(
                        u,
                        [d, change[s]],
                        radius,
                        coefficient * d_n,
                    ));
                }
            } else if let Some((normal, coefficient)) = bounds.cone(r) {
                let n = index.get(normal).copied().unwrap_or(usize::MAX);
                let (mu_n, d_n) = if n == usize::MAX {
                    (p.mu[normal], 0.0)
                } else {
                    (p.mu[normal], change[n])
                };
                let room_hi = coefficient * mu_n - p.mu[r];
                let room_lo = p.mu[r] + coefficient * mu_n;
                let rate_hi = d - coefficient * d_n;
                let rate_lo = -d - coefficient * d_n;
                if rate_hi > 0.0 {
                    alpha = alpha.min(room_hi.max(0.0) / rate_hi);
                }
                if rate_lo > 0.0 {
                    alpha = alpha.min(room_lo.max(0.0) / rate_lo);
                }
            } else {
                let (lo, hi) = bounds.get(r, &p.mu);
                if d < 0.0 && lo > f64::NEG_INFINITY {
                    alpha = alpha.min((p.mu[r] - lo).max(0.0) / -d);
                }
                if d > 0.0 && hi < f64::INFINITY {
                    alpha = alpha.min((hi - p.mu[r]).max(0.0) / d);
                }
            }
            alpha
        })
        .collect();
    (change, room)
}

/// Every row moved by `alpha` of its `change`.
fn move_by(p: &mut ContactProblem, change: &[f64], alpha: f64) {
    for (k, change) in change.iter().enumerate() {
        move_row(p, k, change * alpha);
    }
}

/// How far inside its bounds, relative to the largest multiplier, a row must be to count as
/// free (rounding leaves rows a hair from the bound they belong at).
const INSIDE: f64 = 1e-12;
