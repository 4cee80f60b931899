//! The bounded rows of one Newton iteration as a complementarity problem of their own, and its
//! solver (see [`super::contact_lcp`] for where it comes from and why): nonsmooth Gauss–Seidel
//! over the contacts — each contact's normal and friction rows solved together by the cases of
//! Coulomb's law, as in Moreau and Jean's nonsmooth contact dynamics, a 3D contact's two friction
//! rows on its circular cone ([`super::disk`]) — accelerated by direct solves of the rows inside
//! their bounds. Where the sweeps stall, [`super::lemke`] pivots on
//! the same law; [`super::split`] splits redundant rows' forces by least norm at the step's end.
//!
//! ```text
//! r(μ_b) = c + A (μ_b − μ_b⁰):   r_n ≥ 0 ⊥ μ_n ≥ 0,   |μ_t| ≤ μ_f μ_n,  r_t = 0 inside the cone,
//!                                r_t opposite μ_t at its edge
//! ```

use super::least_norm::{least_squares, symmetric_pseudo_inverse};
use super::row_bounds::RowBounds;

/// The buffers of the bounded rows' problem.
#[derive(Clone, Debug, Default)]
pub(super) struct ContactProblem {
    /// The bounded rows, in row order.
    pub(super) rows: Vec<usize>,
    /// The sweeps' blocks: a row (its position in `rows`) and, for a contact's normal row, its
    /// friction row's position and coefficient.
    pub(super) blocks: Vec<(usize, Option<(usize, f64)>)>,
    /// The 3D contacts, apart from `blocks`: a normal row, its two friction rows and their
    /// coefficient, solved on Coulomb's circle ([`super::disk`]).
    pub(super) disks: Vec<(usize, [usize; 2], f64)>,
    /// Each row's other friction row where it is one of a 3D contact's two (by their positions
    /// in `rows`; `usize::MAX` for every other row).
    pub(super) sibling: Vec<usize>,
    /// `A` by its compressed columns: the rows (positions in `rows`, ascending) where column `k`
    /// is not zero, and its diagonal, `column_rows[column_start[k]..column_start[k + 1]]`, with
    /// their values in `column_values`; `diagonal_at[k]` is where column `k`'s diagonal lies.
    /// A pile's contacts touch a few others each, so a multiplier's change moves a few dozen
    /// residuals, not all of them, and the matrix of a landing pile's 12,000 rows takes a few
    /// megabytes where its dense form would take a gigabyte.
    pub(super) column_start: Vec<usize>,
    pub(super) column_rows: Vec<usize>,
    pub(super) column_values: Vec<f64>,
    pub(super) diagonal_at: Vec<usize>,
    /// `r` of every bounded row at the multipliers of `mu` (kept up to date as they change).
    pub(super) residual: Vec<f64>,
    /// The multipliers of every row (the bounded rows' as they are solved for).
    pub(super) mu: Vec<f64>,
    /// Scratch: a unit multiplier, its force `−Jᵀe`, zero multipliers, a column's `Δq` and
    /// `J Δq`.
    pub(super) unit: Vec<f64>,
    pub(super) force: Vec<f64>,
    pub(super) zero_lambda: Vec<f64>,
    pub(super) dq: Vec<f64>,
    pub(super) dmu: Vec<f64>,
    pub(super) j_dq: Vec<f64>,
}

impl ContactProblem {
    /// `A[j, k]`: the response of bounded row `j` (a position in `rows`) to a unit multiplier
    /// on row `k`.
    pub(super) fn entry(&self, j: usize, k: usize) -> f64 {
        let start = self.column_start[k];
        let rows = &self.column_rows[start..self.column_start[k + 1]];
        rows.binary_search(&j)
            .map_or(0.0, |i| self.column_values[start + i])
    }

    /// `A[k, k]`.
    pub(super) fn diagonal(&self, k: usize) -> f64 {
        self.column_values[self.diagonal_at[k]]
    }

    /// Adds `value` to `A[k, k]`.
    pub(super) fn add_to_diagonal(&mut self, k: usize, value: f64) {
        self.column_values[self.diagonal_at[k]] += value;
    }

    /// Column `k` of `A`: its rows that are not zero (and its diagonal), with their values.
    pub(super) fn column(&self, k: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
        let range = self.column_start[k]..self.column_start[k + 1];
        self.column_rows[range.clone()]
            .iter()
            .copied()
            .zip(self.column_values[range].iter().copied())
    }

    /// Sets `A` from its compressed columns (`entries` as `(column, row, value)`, sorted by
    /// column and then row, every diagonal among them).
    pub(super) fn set_columns(&mut self, entries: &[(usize, usize, f64)]) {
        let b = self.rows.len();
        self.column_start.clear();
        self.column_rows.clear();
        self.column_values.clear();
        self.diagonal_at.clear();
        self.diagonal_at.resize(b, usize::MAX);
        self.column_start.push(0);
        let mut entries = entries.iter().peekable();
        for k in 0..b {
            while let Some(&(_, j, value)) = entries.next_if(|&&(column, _, _)| column == k) {
                if j == k {
                    self.diagonal_at[k] = self.column_rows.len();
                }
                self.column_rows.push(j);
                self.column_values.push(value);
            }
            self.column_start.push(self.column_rows.len());
        }
        debug_assert!(self.diagonal_at.iter().all(|&d| d != usize::MAX));
    }

    /// The block of `A` on the rows and columns `of` (positions in `rows`), dense; `index` is
    /// left holding each position's place in `of` (`usize::MAX` for the others), which callers
    /// that read more of `A` on the same rows use.
    pub(super) fn block(&self, of: &[usize], index: &mut Vec<usize>) -> faer::Mat<f64> {
        index.clear();
        index.resize(self.rows.len(), usize::MAX);
        for (i, &k) in of.iter().enumerate() {
            index[k] = i;
        }
        let mut block = faer::Mat::<f64>::zeros(of.len(), of.len());
        for (j, &k) in of.iter().enumerate() {
            for (row, value) in self.column(k) {
                if index[row] != usize::MAX {
                    block[(index[row], j)] = value;
                }
            }
        }
        block
    }
}

/// Nonsmooth Gauss–Seidel on `r = residual + A Δμ` over the bounded rows, in place on `p.mu`
/// (and `p.residual` with it): a contact's two rows move together to where Coulomb's law holds
/// for them ([`contact`]), any other bounded row to where its residual vanishes, then back
/// within its bounds.
/// Where the sweeps slow down (an arch's stiff loop of blocks: the sweeps need about as many
/// passes as the matrix's condition number), the rows strictly inside their bounds are solved
/// together directly ([`subspace`]) and the sweeps resume from there, which ends them once
/// those rows are the right ones. Returns whether every row's complementarity error, as a
/// displacement, fell below `tolerance`.
///
/// The iteration also ends, unsettled, where going on would buy nothing: once the error is
/// within `enough` and the sweeps no longer move the rows, or a direct solve has not halved
/// it, or [`STALLED_ROUNDS`] direct solves in a row have not halved it. Redundant rows whose
/// residuals rounding has left inconsistent (a pyramid's 1,600 rows on 630 coordinates, off
/// by 8e-12 m) hold no closer however long the sweeps run, and each direct solve of theirs
/// costs a second; the caller reads [`error`] to judge what is left.
pub(super) fn gauss_seidel(
    p: &mut ContactProblem,
    bounds: &RowBounds<'_>,
    tolerance: f64,
    enough: f64,
) -> bool {
    blocks(p, bounds);
    let (mut best, mut stalled) = (f64::INFINITY, 0);
    for _ in 0..SUBSPACE_ROUNDS {
        let mut moved = f64::INFINITY;
        for _ in 0..SWEEPS_PER_ROUND {
            moved = sweep(p, bounds);
            if moved <= tolerance {
                return true;
            }
        }
        let before = error(p, bounds);
        if before <= enough && moved <= 1e-3 * before {
            return false;
        }
        subspace(p, bounds);
        let now = error(p, bounds);
        if now <= tolerance {
            return true;
        }
        if now <= enough && now > 0.5 * before {
            return false;
        }
        if now < 0.5 * best {
            (best, stalled) = (now, 0);
        } else {
            stalled += 1;
            if stalled >= STALLED_ROUNDS {
                return false;
            }
        }
    }
    false
}

/// Direct solves in a row that do not halve the complementarity error before the sweeps stop
/// (see [`gauss_seidel`]).
const STALLED_ROUNDS: usize = 3;

/// The largest complementarity error of the bounded rows, as a displacement: how far one
/// projected step would move each row's residual (0 where every row meets its law).
pub(super) fn error(p: &ContactProblem, bounds: &RowBounds<'_>) -> f64 {
    (0..p.rows.len())
        .map(|k| {
            let a = p.diagonal(k);
            if !(a > 0.0) {
                return 0.0;
            }
            let r = p.rows[k];
            if let Some((s, _, radius)) = disk_row(p, bounds, k) {
                // The projected step of the contact's friction force onto its disk, one scale
                // for both rows: with a scale of each its own, the step would turn a slide's
                // force off its slip and never vanish.
                let scale = a.max(p.diagonal(s));
                let mu = [p.mu[r], p.mu[p.rows[s]]];
                let trial = [mu[0] - p.residual[k] / scale, mu[1] - p.residual[s] / scale];
                let step = super::disk::project(trial, radius);
                return (step[0] - mu[0]).hypot(step[1] - mu[1]) * scale;
            }
            let (lo, hi) = bounds.get(r, &p.mu);
            ((p.mu[r] - p.residual[k] / a).clamp(lo, hi) - p.mu[r]).abs() * a
        })
        .fold(0.0, f64::max)
}

/// Rounds of sweeps and direct solves before the iteration gives up.
const SUBSPACE_ROUNDS: usize = 60;
/// Sweeps between two direct solves of the rows inside their bounds.
const SWEEPS_PER_ROUND: usize = 30;

/// One nonsmooth Gauss–Seidel sweep over the blocks (see [`blocks`]); returns the largest
/// change of a row's residual it made.
fn sweep(p: &mut ContactProblem, bounds: &RowBounds<'_>) -> f64 {
    let mut worst = 0.0_f64;
    for block in 0..p.blocks.len() {
        let (k, friction) = p.blocks[block];
        let next = match friction {
            Some((t, coefficient)) => contact(p, k, t, coefficient),
            None => {
                let a = p.diagonal(k);
                if !(a > 0.0) {
                    continue;
                }
                let r = p.rows[k];
                let (lo, hi) = bounds.get(r, &p.mu);
                [
                    (k, (p.mu[r] - p.residual[k] / a).clamp(lo, hi)),
                    (usize::MAX, 0.0),
                ]
            }
        };
        for (k, value) in next {
            if k == usize::MAX {
                continue;
            }
            let delta = value - p.mu[p.rows[k]];
            worst = worst.max((delta * p.diagonal(k)).abs());
            move_row(p, k, delta);
        }
    }
    for disk in 0..p.disks.len() {
        let (k, [t1, t2], coefficient) = p.disks[disk];
        let rows = [k, t1, t2];
        let a: [[f64; 3]; 3] =
            std::array::from_fn(|i| std::array::from_fn(|j| p.entry(rows[i], rows[j])));
        let mu = rows.map(|r| p.mu[p.rows[r]]);
        // The residuals with the contact's own force taken out.
        let free: [f64; 3] = std::array::from_fn(|i| {
            p.residual[rows[i]] - (0..3).map(|j| a[i][j] * mu[j]).sum::<f64>()
        });
        let x = super::disk::contact(&a, &free, coefficient, &mu);
        for (k, value) in rows.into_iter().zip(x) {
            let delta = value - p.mu[p.rows[k]];
            worst = worst.max((delta * p.diagonal(k)).abs());
            move_row(p, k, delta);
        }
    }
    worst
}

/// Changes bounded row `k`'s multiplier by `delta`, and every residual with it.
pub(super) fn move_row(p: &mut ContactProblem, k: usize, delta: f64) {
    if delta == 0.0 {
        return;
    }
    p.mu[p.rows[k]] += delta;
    for i in p.column_start[k]..p.column_start[k + 1] {
        p.residual[p.column_rows[i]] += p.column_values[i] * delta;
    }
}

/// One contact's normal row `k` and friction row `t` solved together, the other rows where they
/// are: the 2D Coulomb law's cases in turn — sticking (both residuals zero, inside the cone),
/// sliding either way (normal residual zero, friction at the edge against the slip), apart
/// (no force, the gap opening) — and the first that holds.
fn contact(p: &ContactProblem, k: usize, t: usize, coefficient: f64) -> [(usize, f64); 2] {
    let (nn, nt, tn, tt) = (p.diagonal(k), p.entry(k, t), p.entry(t, k), p.diagonal(t));
    let (mu_n, mu_t) = (p.mu[p.rows[k]], p.mu[p.rows[t]]);
    // Residuals with this contact's force taken out: r(μ) = free + A_loc μ.
    let free_n = p.residual[k] - nn * mu_n - nt * mu_t;
    let free_t = p.residual[t] - tn * mu_n - tt * mu_t;
    let det = nn * tt - nt * tn;
    if det > 0.0 {
        let n = (-free_n * tt + nt * free_t) / det;
        let f = (-tt * 0.0 - free_t * nn + tn * free_n) / det;
        if n >= 0.0 && f.abs() <= coefficient * n {
            return [(k, n), (t, f)];
        }
    }
    for side in [1.0, -1.0] {
        // μ_t = side μ_f μ_n; the normal residual zero.
        let slope = nn + nt * side * coefficient;
        if slope > 0.0 {
            let n = -free_n / slope;
            let slip = free_t + (tn + tt * side * coefficient) * n;
            if n >= 0.0 && side * slip <= 0.0 {
                return [(k, n), (t, side * coefficient * n)];
            }
        }
    }
    [(k, 0.0), (t, 0.0)]
}

/// Each row's position in `p.rows` (`usize::MAX` for a row that is not bounded).
pub(super) fn positions(p: &ContactProblem) -> Vec<usize> {
    let mut index = vec![usize::MAX; p.mu.len()];
    for (k, &r) in p.rows.iter().enumerate() {
        index[r] = k;
    }
    index
}

/// The bounded rows' blocks for the sweeps: each contact's normal row with its friction row
/// (by their positions in `rows`), every other bounded row alone; a 3D contact's normal row
/// with its two friction rows among the disks.
pub(super) fn blocks(p: &mut ContactProblem, bounds: &RowBounds<'_>) {
    let index = positions(p);
    let b = p.rows.len();
    // Each normal row's friction rows (one in 2D, two in 3D) and their coefficient.
    let mut friction_of: Vec<Option<(usize, Option<usize>, f64)>> = vec![None; b];
    let mut paired = vec![false; b];
    for (t, &r) in p.rows.iter().enumerate() {
        if let Some((normal, coefficient)) = bounds.cone(r)
            && let Some(&k) = index.get(normal)
            && k != usize::MAX
        {
            friction_of[k] = match friction_of[k] {
                Some((first, _, _)) => Some((first, Some(t), coefficient)),
                None => Some((t, None, coefficient)),
            };
            paired[t] = true;
        }
    }
    p.blocks.clear();
    p.disks.clear();
    p.sibling.clear();
    p.sibling.resize(b, usize::MAX);
    for k in (0..b).filter(|&k| !paired[k]) {
        match friction_of[k] {
            Some((t1, Some(t2), coefficient)) => {
                p.disks.push((k, [t1, t2], coefficient));
                (p.sibling[t1], p.sibling[t2]) = (t2, t1);
            }
            Some((t, None, coefficient)) => p.blocks.push((k, Some((t, coefficient)))),
            None => p.blocks.push((k, None)),
        }
    }
}

/// A 3D contact's friction row at position `k`, with its sibling's position, its normal row
/// and its cone's radius `μ_f μ_n` at the multipliers of `p`; `None` for any other row.
fn disk_row(p: &ContactProblem, bounds: &RowBounds<'_>, k: usize) -> Option<(usize, usize, f64)> {
    let s = *p.sibling.get(k)?;
    if s == usize::MAX {
        return None;
    }
    let (normal, coefficient) = bounds.cone(p.rows[k])?;
    Some((s, normal, coefficient * p.mu[normal].max(0.0)))
}

/// The rows strictly inside their bounds (by their positions in `rows`), and each friction row
/// at its cone's edge whose normal row is among them: its position, its normal row's index in
/// `free`, and `±μ_f`, so that it follows its normal row, `μ_t = ±μ_f μ_n`.
pub(super) struct FreeRows {
    pub(super) free: Vec<usize>,
    pub(super) edges: Vec<(usize, usize, f64)>,
}

/// The bounded rows of `p` strictly inside their bounds (by more than [`INSIDE`] of the largest
/// multiplier: rounding leaves rows a hair from the bound they belong at), and the edges that
/// follow them.
pub(super) fn free_rows(p: &ContactProblem, bounds: &RowBounds<'_>) -> FreeRows {
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
fn subspace(p: &mut ContactProblem, bounds: &RowBounds<'_>) -> f64 {
    let rows = free_rows(p, bounds);
    let (free, edges) = (&rows.free, &rows.edges);
    let f = free.len();
    if f == 0 || f > DENSE_LARGEST {
        return 1.0;
    }
    let whole = || {
        let mut index = Vec::new();
        let mut block = p.block(free, &mut index);
        // Each edge's column, times its sign and coefficient, joins its normal row's.
        for &(k, j, s) in edges {
            for (row, value) in p.column(k) {
                if index[row] != usize::MAX {
                    block[(index[row], j)] += value * s;
                }
            }
        }
        block
    };
    let residual: Vec<f64> = free.iter().map(|&k| -p.residual[k]).collect();
    // On a large block with a few edges, the symmetric block's eigenvectors and a splitting
    // are cheaper than the whole block's singular values; on a small one, or with many edges
    // (a landing pile's sliding contacts), the splitting's rounds cost more than they save.
    let solved = if f >= SPLITTING_FROM && EDGES_AT_MOST * edges.len() <= f {
        with_edges(p, &rows, &residual).or_else(|| least_squares(&whole(), &residual))
    } else {
        least_squares(&whole(), &residual)
    };
    let Some(delta) = solved else {
        return 1.0;
    };
    move_within_bounds(p, bounds, &rows, &delta)
}

/// `(A_FF + A_FE S) Δ_F = rhs` by the splitting `A_FF Δ⁽ᵏ⁺¹⁾ = rhs − A_FE S Δ⁽ᵏ⁾`, each
/// round on one eigendecomposition of the symmetric `A_FF` (a third of the singular values'
/// cost on the 20-row pyramid's 1,586 free rows: 0.29 s against 0.82 s). A few edges couple
/// little: the pyramid's 14 took 17 rounds to 10⁻¹² of the right-hand side. `None` where the
/// rounds do not get there in [`EDGE_ROUNDS`] (the caller then takes the singular values).
fn with_edges(p: &ContactProblem, rows: &FreeRows, rhs: &[f64]) -> Option<Vec<f64>> {
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
pub(super) const DENSE_LARGEST: usize = 4096;
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
pub(super) fn move_within_bounds(
    p: &mut ContactProblem,
    bounds: &RowBounds<'_>,
    rows: &FreeRows,
    delta: &[f64],
) -> f64 {
    let b = p.rows.len();
    let index = positions(p);
    let mut change = vec![0.0; b];
    for (i, &k) in rows.free.iter().enumerate() {
        change[k] = delta[i];
    }
    for &(k, j, s) in &rows.edges {
        change[k] = s * delta[j];
    }
    let mut alpha = 1.0_f64;
    for &k in &rows.free {
        let r = p.rows[k];
        let d = change[k];
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
    }
    for (k, change) in change.iter().enumerate() {
        move_row(p, k, change * alpha);
    }
    alpha
}

/// How far inside its bounds, relative to the largest multiplier, a row must be to count as
/// free (rounding leaves rows a hair from the bound they belong at).
const INSIDE: f64 = 1e-12;

#[cfg(test)]
pub(super) mod tests {
    use super::super::least_norm::{least_squares, symmetric_least_squares};
    use super::*;
    use crate::solve::Bounds;

    /// A problem of `rows` bounded rows (all of the model's rows) with matrix `a` and residuals
    /// `r` at multipliers zero.
    pub(in super::super) fn problem(a: &[f64], r: &[f64]) -> ContactProblem {
        let b = r.len();
        let mut p = ContactProblem {
            rows: (0..b).collect(),
            residual: r.to_vec(),
            mu: vec![0.0; b],
            ..ContactProblem::default()
        };
        let entries: Vec<(usize, usize, f64)> = (0..b)
            .flat_map(|k| (0..b).map(move |j| (k, j, a[j * b + k])))
            .filter(|&(k, j, value)| j == k || value != 0.0)
            .collect();
        p.set_columns(&entries);
        p
    }

    /// Coulomb's law on row pairs `(normal, friction)`, as displacements: the largest
    /// violation.
    pub(in super::super) fn violation(
        p: &ContactProblem,
        pairs: &[(usize, usize)],
        mu_f: f64,
    ) -> f64 {
        let mut worst = 0.0_f64;
        for &(n, t) in pairs {
            let (rn, rt, ln, lt) = (p.residual[n], p.residual[t], p.mu[n], p.mu[t]);
            worst = worst.max((-rn).max(0.0)).max((-ln).max(0.0));
            if ln > 0.0 {
                worst = worst.max(rn.abs());
            }
            worst = worst.max((lt.abs() - mu_f * ln).max(0.0));
            if lt.abs() < mu_f * ln * (1.0 - 1e-12) {
                worst = worst.max(rt.abs());
            } else if lt != 0.0 {
                // At the edge the slip runs against the force.
                worst = worst.max((rt * lt.signum()).max(0.0));
            }
        }
        worst
    }

    /// One contact, a coupled 2 × 2 block with μ = 0.5, solved by `solve`: pressed in and
    /// pushed sideways a little it sticks (both residuals closed, the friction inside the
    /// cone); pushed hard it slides (the friction at the edge, against the slip); pulled apart it
    /// has no force.
    pub(in super::super) fn one_contact(
        solve: impl Fn(&mut ContactProblem, &RowBounds<'_>) -> bool,
    ) {
        let inequality = [true, false];
        let own = [(0.0, f64::INFINITY), (f64::NEG_INFINITY, f64::INFINITY)];
        let friction = [None, Some((0, 0.5))];
        let bounds = RowBounds::new(Bounds::new(&inequality, &own, &friction), 1.0);
        let a = [2.0, 0.3, 0.3, 1.0];
        let mut p = problem(&a, &[-1.0, 0.1]);
        assert!(solve(&mut p, &bounds));
        assert!(
            p.residual.iter().all(|r| r.abs() < 1e-14),
            "{:?}",
            p.residual
        );
        assert!(p.mu[1].abs() < 0.5 * p.mu[0]);
        let mut p = problem(&a, &[-1.0, 2.0]);
        assert!(solve(&mut p, &bounds));
        assert!((p.mu[1] + 0.5 * p.mu[0]).abs() < 1e-14, "{:?}", p.mu);
        assert!(p.residual[0].abs() < 1e-14 && p.residual[1] > 0.0);
        let mut p = problem(&a, &[1.0, 2.0]);
        assert!(solve(&mut p, &bounds));
        assert_eq!(p.mu, vec![0.0, 0.0]);
    }

    #[test]
    fn one_contact_sticks_slides_or_parts_as_coulomb_says() {
        one_contact(|p, bounds| gauss_seidel(p, bounds, 1e-14, 1e-14));
    }

    /// The splitting of [`with_edges`] solves `(A_FF + A_FE S) Δ = rhs` as the singular values
    /// of the whole block do, where the edge couples weakly; where it couples so strongly that
    /// the rounds grow, it gives up (and the caller takes the singular values).
    #[test]
    fn the_splitting_solves_the_block_with_its_edges_or_gives_up() {
        // Four rows, a definite symmetric A; rows 0–2 free, row 3 an edge following row 0.
        let a = [
            4.0, 1.0, 0.5, 0.8, //
            1.0, 3.0, 0.2, 0.1, //
            0.5, 0.2, 2.0, 0.3, //
            0.8, 0.1, 0.3, 1.5,
        ];
        let p = problem(&a, &[0.0; 4]);
        let rhs = [1.0, -2.0, 0.5];
        for (scale, converges) in [(0.5, true), (-0.3, true), (40.0, false)] {
            let rows = FreeRows {
                free: vec![0, 1, 2],
                edges: vec![(3, 0, scale)],
            };
            let whole = faer::Mat::<f64>::from_fn(3, 3, |i, j| {
                a[i * 4 + j] + if j == 0 { a[i * 4 + 3] * scale } else { 0.0 }
            });
            let expected = least_squares(&whole, &rhs).unwrap();
            match with_edges(&p, &rows, &rhs) {
                Some(x) => {
                    assert!(converges, "scale {scale}: the rounds should have grown");
                    for (x, e) in x.iter().zip(&expected) {
                        assert!((x - e).abs() < 1e-10, "scale {scale}: {x} against {e}");
                    }
                }
                None => assert!(!converges, "scale {scale}: the splitting gave up"),
            }
        }
    }

    /// A definite block is solved exactly (by Cholesky's factors); a singular one, two rows
    /// that are one (two contacts of the same pair), by least norm: the force split evenly.
    #[test]
    fn symmetric_least_squares_splits_redundant_rows_evenly() {
        let definite = faer::Mat::<f64>::from_fn(2, 2, |i, j| [[4.0, 1.0], [1.0, 3.0]][i][j]);
        let x = symmetric_least_squares(&definite, &[1.0, 2.0]).unwrap();
        assert!((4.0 * x[0] + x[1] - 1.0).abs() < 1e-14 && (x[0] + 3.0 * x[1] - 2.0).abs() < 1e-14);
        let singular = faer::Mat::<f64>::from_fn(2, 2, |_, _| 1.0);
        let x = symmetric_least_squares(&singular, &[2.0, 2.0]).unwrap();
        assert!(
            (x[0] - 1.0).abs() < 1e-12 && (x[1] - 1.0).abs() < 1e-12,
            "{x:?}"
        );
    }
}
