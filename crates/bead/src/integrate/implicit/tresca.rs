//! The bounded rows' problem ([`super::contact_problem`]) solved with each contact's cone frozen
//! at the normal force of the last pass (Tresca's friction), where Coulomb's cones, which follow
//! the normal forces, make the nonsmooth sweeps circle: a landing pile of balls hands the same
//! force back and forth around a ring of contacts, sweep after sweep.
//!
//! With the cones frozen the problem is a convex quadratic program over a box,
//!
//! ```text
//! min ½ Δμᵀ A Δμ + rᵀ Δμ   over   lo ≤ μ ≤ hi      (a contact: μ_n ≥ 0, |μ_t| ≤ μ_f μ̄_n)
//! ```
//!
//! `A` symmetric and positive semi-definite (definite with the contacts' compliance), so each
//! projected Gauss–Seidel step lowers the objective and the sweeps cannot circle; a direct solve
//! of the rows strictly inside their box, taken as far as the box allows, lowers it too, and ends
//! the problem once those rows are the right ones. Its normal forces set the next pass's cones;
//! where they no longer change, the rows meet Coulomb's law ([`error`]), which is the test.

use crate::solve::coulomb::contact_problem::{ContactProblem, error, move_row};
use crate::solve::coulomb::least_norm::symmetric_least_squares;
use crate::solve::coulomb::row_bounds::RowBounds;
use crate::solve::coulomb::subspace::DENSE_LARGEST;

/// Solves `p` in place, from its multipliers, by passes of Tresca's problem (see the module's
/// notes); returns whether every row meets its law (Coulomb's, with the cones following the
/// normal forces) to `tolerance`, as a displacement.
pub(super) fn solve(p: &mut ContactProblem, bounds: &RowBounds<'_>, tolerance: f64) -> bool {
    let b = p.rows.len();
    let mut boxes = vec![(0.0, 0.0); b];
    // The normal forces the cones are frozen at: the last pass's, until a pass fails to lower
    // the error; from then on each pass's average with the one before (the plain update can
    // circle between two sets of cones).
    let mut frozen = p.mu.clone();
    let (mut weight, mut last) = (1.0, f64::INFINITY);
    for _ in 0..PASSES {
        for &r in &p.rows {
            frozen[r] += weight * (p.mu[r] - frozen[r]);
        }
        for (k, row_box) in boxes.iter_mut().enumerate() {
            let (lo, hi) = bounds.get(p.rows[k], &frozen);
            *row_box = (lo, hi.max(lo));
        }
        box_problem(p, &boxes, tolerance);
        let now = error(p, bounds);
        if now <= tolerance {
            return true;
        }
        if now >= last {
            weight = 0.5;
        }
        last = now;
    }
    false
}

/// Passes of Tresca's problem before the solver gives up.
const PASSES: usize = 30;
/// Rounds of sweeps and direct solves for one pass.
const ROUNDS: usize = 60;
/// Sweeps between two direct solves.
const SWEEPS: usize = 20;
/// How far inside its box, relative to the largest multiplier, a row must be to count as free.
const INSIDE: f64 = 1e-12;

/// The convex problem of one pass, its rows held to `boxes`: projected Gauss–Seidel sweeps and
/// direct solves of the rows strictly inside, until every row is within `tolerance` of its
/// law (or the rounds run out).
fn box_problem(p: &mut ContactProblem, boxes: &[(f64, f64)], tolerance: f64) {
    for _ in 0..ROUNDS {
        for _ in 0..SWEEPS {
            if sweep(p, boxes) <= tolerance {
                return;
            }
        }
        face(p, boxes);
        if box_error(p, boxes) <= tolerance {
            return;
        }
    }
}

/// One projected Gauss–Seidel sweep; returns the largest change of a row's residual it made.
fn sweep(p: &mut ContactProblem, boxes: &[(f64, f64)]) -> f64 {
    let mut worst = 0.0_f64;
    for (k, &row_box) in boxes.iter().enumerate() {
        if let Some((delta, a)) = projected_step(p, k, row_box) {
            worst = worst.max((delta * a).abs());
            move_row(p, k, delta);
        }
    }
    worst
}

/// The largest error of a row against its box, as a displacement: how far one projected step
/// would move its residual.
fn box_error(p: &ContactProblem, boxes: &[(f64, f64)]) -> f64 {
    boxes
        .iter()
        .enumerate()
        .filter_map(|(k, &row_box)| projected_step(p, k, row_box))
        .map(|(delta, a)| (delta * a).abs())
        .fold(0.0, f64::max)
}

/// Row `k`'s projected step onto its box, `Π(μ − r/A_kk) − μ`, with `A_kk`; `None` for a row
/// that moves nothing.
fn projected_step(p: &ContactProblem, k: usize, (lo, hi): (f64, f64)) -> Option<(f64, f64)> {
    let a = p.diagonal(k);
    if !(a > 0.0) {
        return None;
    }
    let mu = p.mu[p.rows[k]];
    Some(((mu - p.residual[k] / a).clamp(lo, hi) - mu, a))
}

/// The rows strictly inside their boxes solved together (least squares on their symmetric
/// block of `A`: redundant rows keep their split), the others where they are, and the move
/// taken as far toward that solution as every row stays in its box.
fn face(p: &mut ContactProblem, boxes: &[(f64, f64)]) {
    let b = p.rows.len();
    let largest = p.rows.iter().fold(0.0_f64, |m, &r| m.max(p.mu[r].abs()));
    let margin = INSIDE * largest;
    let free: Vec<usize> = (0..b)
        .filter(|&k| {
            let mu = p.mu[p.rows[k]];
            let (lo, hi) = boxes[k];
            p.diagonal(k) > 0.0 && mu > lo + margin && mu < hi - margin
        })
        .collect();
    if free.is_empty() || free.len() > DENSE_LARGEST {
        return;
    }
    let a = p.block(&free, &mut Vec::new());
    let rhs: Vec<f64> = free.iter().map(|&k| -p.residual[k]).collect();
    let Some(delta) = symmetric_least_squares(&a, &rhs) else {
        return;
    };
    // The whole step, each row cut back to its box: taken where it lowers the objective
    // (`Δ(½ μᵀAμ + rᵀμ) = ½ (r + r')ᵀ d` for the move `d` from residuals `r` to `r'`), which
    // frees many rows at once; otherwise the step as far as every row stays in its box, which
    // always lowers it.
    let moves: Vec<f64> = free
        .iter()
        .zip(&delta)
        .map(|(&k, &d)| {
            let mu = p.mu[p.rows[k]];
            let (lo, hi) = boxes[k];
            (mu + d).clamp(lo, hi) - mu
        })
        .collect();
    let before: Vec<f64> = free.iter().map(|&k| p.residual[k]).collect();
    for (&k, &d) in free.iter().zip(&moves) {
        move_row(p, k, d);
    }
    let change = free
        .iter()
        .zip(&moves)
        .zip(&before)
        .map(|((&k, &d), &r)| 0.5 * (r + p.residual[k]) * d)
        .sum::<f64>();
    if change <= 0.0 {
        return;
    }
    for (&k, &d) in free.iter().zip(&moves) {
        move_row(p, k, -d);
    }
    let mut alpha = 1.0_f64;
    for (&k, &d) in free.iter().zip(&delta) {
        let mu = p.mu[p.rows[k]];
        let (lo, hi) = boxes[k];
        if d > 0.0 {
            alpha = alpha.min((hi - mu).max(0.0) / d);
        } else if d < 0.0 {
            alpha = alpha.min((lo - mu).min(0.0) / d);
        }
    }
    for (&k, &d) in free.iter().zip(&delta) {
        move_row(p, k, alpha * d);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solve::coulomb::contact_problem::tests::one_contact;

    #[test]
    fn one_contact_sticks_slides_or_parts_as_coulomb_says() {
        one_contact(|p, bounds| solve(p, bounds, 1e-14));
    }
}
