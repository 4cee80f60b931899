//! The least-norm split of redundant contacts' forces once their problem
//! ([`super::contact_problem`]) is solved: at the end of an implicit step, and after each
//! explicit evaluation with 3D friction.
//!
//! A box on two others pressing them apart with its two corners' friction is as good a solution
//! as one that does not: redundant rows leave part of their multipliers free, and a step may end
//! anywhere in that freedom. What the contacts report should not depend on where: of all the
//! multipliers of the rows inside their bounds that put the same generalized force on every
//! body, `G μ_F = G μ_F⁰` (`G` the rows' `Jᵀ`, an edge's friction row folded into its normal
//! row), the step keeps the one of least weighted norm,
//!
//! ```text
//! μ_F = D² Gᵀ (G D² Gᵀ)⁺ G μ_F⁰,     D² = 1 for a friction row, 1/NORMAL_WEIGHT for a normal row
//! ```
//!
//! (the normal forces follow from the loads; it is friction that a redundant set can squeeze),
//! moved towards as far as the rows' bounds allow, a pass at a time as rows reach them. The
//! matrix is the bodies' (`ndof × ndof`, three a rigid body), not the rows': a 20-row pyramid's
//! 1,600 rows made each pass a singular value decomposition of 1,580 × 1,580 (1.4 s, 16 of
//! them in its first two steps); its 630 coordinates make each an eigendecomposition of at most
//! 630 × 630. Unchanged forces leave every residual where it was, so the step stays converged;
//! the move is kept only if the rows still meet their law to the tolerance.

use super::contact_problem::{ContactProblem, error};
use super::row_bounds::RowBounds;
use super::subspace::{FreeRows, free_rows, move_within_bounds};

/// The model's coordinates `n`, and `x ↦ Jᵀ x` from its rows' multipliers to the generalized
/// force on them.
pub(crate) type Forces<'a> = (usize, &'a dyn Fn(&[f64], &mut [f64]));

/// Passes of the least-norm split, each until a row reaches a bound.
const SPLIT_PASSES: usize = 8;

/// The weight of a normal row's multiplier, against a friction row's 1, in the least-norm
/// split.
const NORMAL_WEIGHT: f64 = 1e-6;

/// Eigenvalues of `G D² Gᵀ` below this fraction of the largest are its null space (coordinates
/// the free rows do not move independently) and rounding.
const EIGEN_CUTOFF: f64 = 1e-13;

/// Refinements of the least-norm multipliers against the force they make.
const REFINEMENTS: usize = 2;

/// The least-norm split of `p`'s multipliers (see the module's notes), `force` being
/// `x ↦ Jᵀ x` from the model's rows to its `n` coordinates. Kept only if every row's
/// complementarity error stays within `tolerance`.
pub(crate) fn settle_split(
    p: &mut ContactProblem,
    bounds: &RowBounds<'_>,
    (n, force): Forces<'_>,
    tolerance: f64,
) {
    let (mu, residual) = (p.mu.clone(), p.residual.clone());
    let jacobian = row_columns(p, (n, force));
    // A row the move stops at leaves the free rows; the rest move on.
    for _ in 0..SPLIT_PASSES {
        if split_pass(p, bounds, n, &jacobian) >= 1.0 {
            break;
        }
    }
    if error(p, bounds) > tolerance {
        p.mu = mu;
        p.residual = residual;
    }
}

/// One pass: the free rows towards their least-norm split, as far as their bounds allow;
/// returns the fraction of the way taken (1 when no row was in the way).
fn split_pass(
    p: &mut ContactProblem,
    bounds: &RowBounds<'_>,
    n: usize,
    jacobian: &[Vec<(usize, f64)>],
) -> f64 {
    let rows = free_rows(p, bounds);
    let f = rows.free.len();
    if f == 0 {
        return 1.0;
    }
    let columns = columns(p, bounds, &rows, n, jacobian);
    // The coordinates any free row moves, and each one's place among them.
    let mut place = vec![usize::MAX; n];
    let mut used = Vec::new();
    for (entries, _) in &columns {
        for &(i, _) in entries {
            if place[i] == usize::MAX {
                place[i] = used.len();
                used.push(i);
            }
        }
    }
    let u = used.len();
    if u == 0 {
        return 1.0;
    }
    // N = G D² Gᵀ and G μ_F, on the coordinates used.
    let mut normal = faer::Mat::<f64>::zeros(u, u);
    let mut total = vec![0.0; u];
    for ((entries, weight), &k) in columns.iter().zip(&rows.free) {
        let mu = p.mu[p.rows[k]];
        for &(i, gi) in entries {
            total[place[i]] += gi * mu;
            for &(j, gj) in entries {
                normal[(place[i], place[j])] += weight * gi * gj;
            }
        }
    }
    let evd = normal.self_adjoint_eigen(faer::Side::Lower);
    crate::math::vector_state::clear_upper_state();
    let Ok(evd) = evd else {
        return 1.0;
    };
    let (vectors, values) = (evd.U(), evd.S().column_vector());
    let largest = (0..u).fold(0.0_f64, |m, k| m.max(values[k]));
    // z = N⁺ b, dropping the eigenvalues of rounding.
    let pinv = |b: &[f64], z: &mut [f64]| {
        for k in 0..u {
            if values[k] > EIGEN_CUTOFF * largest {
                let along = (0..u).map(|i| vectors[(i, k)] * b[i]).sum::<f64>() / values[k];
                for (i, zi) in z.iter_mut().enumerate() {
                    *zi += along * vectors[(i, k)];
                }
            }
        }
    };
    let mut z = vec![0.0; u];
    pinv(&total, &mut z);
    // μ_F = D² Gᵀ z. The weights span six orders of magnitude, so one solve leaves G μ_F off
    // G μ_F⁰ by 1e-11 of it (enough to unsettle the rows): refined against the force it makes.
    let targets = |z: &[f64]| -> Vec<f64> {
        columns
            .iter()
            .map(|(entries, weight)| {
                weight * entries.iter().map(|&(i, gi)| gi * z[place[i]]).sum::<f64>()
            })
            .collect()
    };
    let mut target = targets(&z);
    for _ in 0..REFINEMENTS {
        let mut mismatch = total.iter().map(|t| -t).collect::<Vec<f64>>();
        for ((entries, _), mu) in columns.iter().zip(&target) {
            for &(i, gi) in entries {
                mismatch[place[i]] += gi * mu;
            }
        }
        let mut correction = vec![0.0; u];
        pinv(&mismatch, &mut correction);
        for (zi, ci) in z.iter_mut().zip(&correction) {
            *zi -= ci;
        }
        target = targets(&z);
    }
    let delta: Vec<f64> = target
        .iter()
        .zip(&rows.free)
        .map(|(t, &k)| t - p.mu[p.rows[k]])
        .collect();
    move_within_bounds(p, bounds, &rows, &delta)
}

/// Each bounded row's `Jᵀ` (by its position in `rows`), as its nonzero coordinates in order:
/// made once per split, the passes fold them.
fn row_columns(p: &ContactProblem, (n, force): Forces<'_>) -> Vec<Vec<(usize, f64)>> {
    let mut unit = vec![0.0; p.mu.len()];
    let mut out = vec![0.0; n];
    p.rows
        .iter()
        .map(|&r| {
            unit[r] = 1.0;
            force(&unit, &mut out);
            unit[r] = 0.0;
            (0..n)
                .filter(|&i| out[i] != 0.0)
                .map(|i| (i, out[i]))
                .collect()
        })
        .collect()
}

/// Each free row's column of `G` (its `Jᵀ`, with the edges that follow it folded in: `±μ_f`
/// times theirs), as the nonzero coordinates in order, and its weight `D²`.
fn columns(
    p: &ContactProblem,
    bounds: &RowBounds<'_>,
    rows: &FreeRows,
    n: usize,
    jacobian: &[Vec<(usize, f64)>],
) -> Vec<(Vec<(usize, f64)>, f64)> {
    let mut sum = vec![0.0; n];
    let mut touched = Vec::new();
    rows.free
        .iter()
        .enumerate()
        .map(|(j, &k)| {
            touched.clear();
            let folded = std::iter::once((k, 1.0)).chain(
                rows.edges
                    .iter()
                    .filter(|e| e.1 == j)
                    .map(|&(e, _, s)| (e, s)),
            );
            for (row, scale) in folded {
                for &(i, g) in &jacobian[row] {
                    if !touched.contains(&i) {
                        touched.push(i);
                    }
                    sum[i] += scale * g;
                }
            }
            touched.sort_unstable();
            let entries = touched
                .iter()
                .filter(|&&i| sum[i] != 0.0)
                .map(|&i| (i, sum[i]))
                .collect();
            for &i in &touched {
                sum[i] = 0.0;
            }
            let weight = if bounds.cone(p.rows[k]).is_some() {
                1.0
            } else {
                1.0 / NORMAL_WEIGHT
            };
            (entries, weight)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solve::Bounds;
    use crate::solve::coulomb::contact_problem::tests::{problem, violation};
    use crate::solve::coulomb::gauss_seidel::gauss_seidel;

    #[test]
    fn redundant_contacts_settle_and_their_free_friction_goes_to_the_least_norm_split() {
        // A body on two contacts whose rows repeat one another: contact 2's rows equal
        // contact 1's, so A is singular and any split of the load between them holds.
        let inequality = [true, false, true, false];
        let own = [(0.0, f64::INFINITY), (f64::NEG_INFINITY, f64::INFINITY)].repeat(2);
        let friction = [None, Some((0, 0.5)), None, Some((2, 0.5))];
        let bounds = RowBounds::new(Bounds::new(&inequality, &own, &friction), 1.0);
        let block = [1.0, 0.2, 0.2, 1.5];
        // A = J Jᵀ: each contact's two rows are the rows of block's Cholesky factor, on a body
        // of two coordinates of unit mass.
        let factor = [[1.0, 0.0], [0.2, (1.5_f64 - 0.04).sqrt()]];
        let force = |x: &[f64], out: &mut [f64]| {
            for (c, o) in out.iter_mut().enumerate() {
                *o = (0..4).map(|r| factor[r % 2][c] * x[r]).sum();
            }
        };
        let mut a = vec![0.0; 16];
        for i in 0..4 {
            for j in 0..4 {
                a[i * 4 + j] = block[(i % 2) * 2 + j % 2];
            }
        }
        let mut p = problem(&a, &[-1.0, 0.0, -1.0, 0.0]);
        // Start with the two frictions squeezing against each other, inside their cones.
        p.mu = vec![0.5, 0.2, 0.5, -0.2];
        for k in 0..4 {
            for j in 0..4 {
                p.residual[j] += a[j * 4 + k] * p.mu[k];
            }
        }
        assert!(gauss_seidel(&mut p, &bounds, 1e-13, 1e-13));
        assert!(
            violation(&p, &[(0, 1), (2, 3)], 0.5) < 1e-12,
            "{:?} {:?}",
            p.mu,
            p.residual
        );
        settle_split(&mut p, &bounds, (2, &force), 1e-13);
        assert!(
            violation(&p, &[(0, 1), (2, 3)], 0.5) < 1e-12,
            "{:?} {:?}",
            p.mu,
            p.residual
        );
        // Statics fixes the sums (the coupling A_nt asks for friction F = f₁ + f₂ with
        // A_tn N + A_tt F = 0 and A_nn N + A_nt F = 1); the squeeze f₁ − f₂ is free, and the
        // least-norm split takes it out: the two contacts share the friction equally.
        let (n, f) = (p.mu[0] + p.mu[2], p.mu[1] + p.mu[3]);
        assert!((0.2 * n + 1.5 * f).abs() < 1e-12 && (n + 0.2 * f - 1.0).abs() < 1e-12);
        assert!((p.mu[1] - p.mu[3]).abs() < 1e-12, "{:?}", p.mu);
    }
}
