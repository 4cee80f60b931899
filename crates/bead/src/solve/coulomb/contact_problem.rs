//! The bounded rows as a complementarity problem of their own — one Newton iteration's, in
//! displacements (the implicit steppers' `contact_lcp` says where it comes from and why), or
//! one evaluation's, in accelerations (the explicit integrators' cones, [`crate::dynamics`]): its
//! matrix by compressed columns, its residuals and multipliers, and the measures of its error.
//! It is solved by nonsmooth Gauss–Seidel ([`super::gauss_seidel`]) with direct solves of the
//! rows inside their bounds ([`super::subspace`]), a 3D contact's two friction rows on its
//! circular cone ([`super::disk`]). Where the sweeps stall, the implicit steppers' Lemke pivots
//! on the same law; [`super::split`] splits redundant rows' forces by least norm.
//!
//! ```text
//! r(μ_b) = c + A (μ_b − μ_b⁰):   r_n ≥ 0 ⊥ μ_n ≥ 0,   |μ_t| ≤ μ_f μ_n,  r_t = 0 inside the cone,
//!                                r_t opposite μ_t at its edge
//! ```

use super::row_bounds::RowBounds;

/// The buffers of the bounded rows' problem.
#[derive(Clone, Debug, Default)]
pub(crate) struct ContactProblem {
    /// The bounded rows, in row order.
    pub(crate) rows: Vec<usize>,
    /// The sweeps' blocks: a row (its position in `rows`) and, for a contact's normal row, its
    /// friction row's position and coefficient.
    pub(crate) blocks: Vec<(usize, Option<(usize, f64)>)>,
    /// The 3D contacts, apart from `blocks`: a normal row, its two friction rows and their
    /// coefficient, solved on Coulomb's circle ([`super::disk`]).
    pub(crate) disks: Vec<(usize, [usize; 2], f64)>,
    /// Each row's other friction row where it is one of a 3D contact's two (by their positions
    /// in `rows`; `usize::MAX` for every other row).
    pub(crate) sibling: Vec<usize>,
    /// `A` by its compressed columns: the rows (positions in `rows`, ascending) where column `k`
    /// is not zero, and its diagonal, `column_rows[column_start[k]..column_start[k + 1]]`, with
    /// their values in `column_values`; `diagonal_at[k]` is where column `k`'s diagonal lies.
    /// A pile's contacts touch a few others each, so a multiplier's change moves a few dozen
    /// residuals, not all of them, and the matrix of a landing pile's 12,000 rows takes a few
    /// megabytes where its dense form would take a gigabyte.
    pub(crate) column_start: Vec<usize>,
    pub(crate) column_rows: Vec<usize>,
    pub(crate) column_values: Vec<f64>,
    pub(crate) diagonal_at: Vec<usize>,
    /// `r` of every bounded row at the multipliers of `mu` (kept up to date as they change).
    pub(crate) residual: Vec<f64>,
    /// The multipliers of every row (the bounded rows' as they are solved for).
    pub(crate) mu: Vec<f64>,
    /// Scratch: a unit multiplier, its force `−Jᵀe`, zero multipliers, a column's `Δq` and
    /// `J Δq`.
    pub(crate) unit: Vec<f64>,
    pub(crate) force: Vec<f64>,
    pub(crate) zero_lambda: Vec<f64>,
    pub(crate) dq: Vec<f64>,
    pub(crate) dmu: Vec<f64>,
    pub(crate) j_dq: Vec<f64>,
}

impl ContactProblem {
    /// `A[j, k]`: the response of bounded row `j` (a position in `rows`) to a unit multiplier
    /// on row `k`.
    pub(crate) fn entry(&self, j: usize, k: usize) -> f64 {
        let start = self.column_start[k];
        let rows = &self.column_rows[start..self.column_start[k + 1]];
        rows.binary_search(&j)
            .map_or(0.0, |i| self.column_values[start + i])
    }

    /// `A[k, k]`.
    pub(crate) fn diagonal(&self, k: usize) -> f64 {
        self.column_values[self.diagonal_at[k]]
    }

    /// Adds `value` to `A[k, k]`.
    pub(crate) fn add_to_diagonal(&mut self, k: usize, value: f64) {
        self.column_values[self.diagonal_at[k]] += value;
    }

    /// Column `k` of `A`: its rows that are not zero (and its diagonal), with their values.
    pub(crate) fn column(&self, k: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
        let range = self.column_start[k]..self.column_start[k + 1];
        self.column_rows[range.clone()]
            .iter()
            .copied()
            .zip(self.column_values[range].iter().copied())
    }

    /// Sets `A` from its compressed columns (`entries` as `(column, row, value)`, sorted by
    /// column and then row, every diagonal among them).
    pub(crate) fn set_columns(&mut self, entries: &[(usize, usize, f64)]) {
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
    pub(crate) fn block(&self, of: &[usize], index: &mut Vec<usize>) -> faer::Mat<f64> {
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

/// The largest complementarity error of the bounded rows, as a displacement: how far one
/// projected step would move each row's residual (0 where every row meets its law).
pub(crate) fn error(p: &ContactProblem, bounds: &RowBounds<'_>) -> f64 {
    (0..p.rows.len())
        .map(|k| row_error(p, bounds, k))
        .fold(0.0, f64::max)
}

/// The root of the sum of the squares of the rows' complementarity errors: where [`error`]
/// sees the worst row, this sees them all.
pub(crate) fn total_error(p: &ContactProblem, bounds: &RowBounds<'_>) -> f64 {
    (0..p.rows.len())
        .map(|k| row_error(p, bounds, k).powi(2))
        .sum::<f64>()
        .sqrt()
}

/// Row `k`'s complementarity error (see [`error`]).
pub(crate) fn row_error(p: &ContactProblem, bounds: &RowBounds<'_>, k: usize) -> f64 {
    let a = p.diagonal(k);
    if !(a > 0.0) {
        return 0.0;
    }
    let r = p.rows[k];
    if let Some((s, _, radius)) = disk_row(p, bounds, k) {
        // The projected step of the contact's friction force onto its disk, one scale for
        // both rows: with a scale of each its own, the step would turn a slide's force off
        // its slip and never vanish.
        let scale = a.max(p.diagonal(s));
        let mu = [p.mu[r], p.mu[p.rows[s]]];
        let trial = [mu[0] - p.residual[k] / scale, mu[1] - p.residual[s] / scale];
        let step = super::disk::project(trial, radius);
        return (step[0] - mu[0]).hypot(step[1] - mu[1]) * scale;
    }
    let (lo, hi) = bounds.get(r, &p.mu);
    ((p.mu[r] - p.residual[k] / a).clamp(lo, hi) - p.mu[r]).abs() * a
}

/// Changes bounded row `k`'s multiplier by `delta`, and every residual with it.
pub(crate) fn move_row(p: &mut ContactProblem, k: usize, delta: f64) {
    if delta == 0.0 {
        return;
    }
    p.mu[p.rows[k]] += delta;
    for i in p.column_start[k]..p.column_start[k + 1] {
        p.residual[p.column_rows[i]] += p.column_values[i] * delta;
    }
}

/// Each row's position in `p.rows` (`usize::MAX` for a row that is not bounded).
pub(crate) fn positions(p: &ContactProblem) -> Vec<usize> {
    let mut index = vec![usize::MAX; p.mu.len()];
    for (k, &r) in p.rows.iter().enumerate() {
        index[r] = k;
    }
    index
}

/// The bounded rows' blocks for the sweeps: each contact's normal row with its friction row
/// (by their positions in `rows`), every other bounded row alone; a 3D contact's normal row
/// with its two friction rows among the disks.
pub(crate) fn blocks(p: &mut ContactProblem, bounds: &RowBounds<'_>) {
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
pub(crate) fn disk_row(
    p: &ContactProblem,
    bounds: &RowBounds<'_>,
    k: usize,
) -> Option<(usize, usize, f64)> {
    let s = *p.sibling.get(k)?;
    if s == usize::MAX {
        return None;
    }
    let (normal, coefficient) = bounds.cone(p.rows[k])?;
    Some((s, normal, coefficient * p.mu[normal].max(0.0)))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::super::gauss_seidel::gauss_seidel;
    use super::super::least_norm::{least_squares, symmetric_least_squares};
    use super::super::subspace::{FreeRows, with_edges};
    use super::*;
    use crate::solve::Bounds;

    /// A problem of `rows` bounded rows (all of the model's rows) with matrix `a` and residuals
    /// `r` at multipliers zero.
    pub(crate) fn problem(a: &[f64], r: &[f64]) -> ContactProblem {
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
    pub(crate) fn violation(p: &ContactProblem, pairs: &[(usize, usize)], mu_f: f64) -> f64 {
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
    pub(crate) fn one_contact(solve: impl Fn(&mut ContactProblem, &RowBounds<'_>) -> bool) {
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
