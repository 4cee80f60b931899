//! Nonsmooth Gauss–Seidel on [`super::contact_problem`]'s bounded rows, as in Moreau and Jean's
//! nonsmooth contact dynamics: each contact's normal and friction rows solved together by the
//! cases of Coulomb's law (a 3D contact's on its circle, [`super::disk`]), any other bounded
//! row to where its residual vanishes, then back within its bounds; rounds of sweeps between
//! direct solves of the rows inside their bounds ([`super::subspace`]).

use super::contact_problem::{ContactProblem, blocks, error, move_row};
use super::row_bounds::RowBounds;
use super::subspace::subspace;

/// Nonsmooth Gauss–Seidel on `r = residual + A Δμ` over the bounded rows, in place on `p.mu`
/// (and `p.residual` with it): a contact's two rows move together to where Coulomb's law holds
/// for them ([`contact`]), any other bounded row to where its residual vanishes, then back
/// within its bounds.
/// Where the sweeps slow down (an arch's stiff loop of blocks: the sweeps need about as many
/// passes as the matrix's condition number), the rows strictly inside their bounds are solved
/// together directly ([`super::subspace`]) and the sweeps resume from there, which ends them once
/// those rows are the right ones. Returns whether every row's complementarity error, as a
/// displacement, fell below `tolerance`.
///
/// The iteration also ends, unsettled, where going on would buy nothing: once the error is
/// within `enough` and the sweeps no longer move the rows, or a direct solve has not halved
/// it, or [`STALLED_ROUNDS`] direct solves in a row have not halved it. Redundant rows whose
/// residuals rounding has left inconsistent (a pyramid's 1,600 rows on 630 coordinates, off
/// by 8e-12 m) hold no closer however long the sweeps run, and each direct solve of theirs
/// costs a second; the caller reads [`error`] to judge what is left.
pub(crate) fn gauss_seidel(
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

/// [`gauss_seidel`] started again where it stopped unsettled, while each start halves the
/// complementarity error: a round of sweeps that has not halved it ends the iteration, and
/// started again from there the sweeps often settle at once (the direct solves had found the
/// rows' states). Returns whether the error fell below `tolerance`.
pub(crate) fn gauss_seidel_restarted(
    p: &mut ContactProblem,
    bounds: &RowBounds<'_>,
    tolerance: f64,
    enough: f64,
) -> bool {
    let mut last = f64::INFINITY;
    for _ in 0..RESTARTS {
        if gauss_seidel(p, bounds, tolerance, enough) {
            return true;
        }
        let now = error(p, bounds);
        if now <= tolerance {
            return true;
        }
        if now > 0.5 * last {
            return false;
        }
        last = now;
    }
    false
}

/// Starts of [`gauss_seidel_restarted`].
const RESTARTS: usize = 8;

/// Direct solves in a row that do not halve the complementarity error before the sweeps stop
/// (see [`gauss_seidel`]).
const STALLED_ROUNDS: usize = 3;

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
