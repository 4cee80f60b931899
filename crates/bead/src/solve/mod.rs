//! Solving the multiplier system `(J W Jᵀ) λ = b` (seed 000 eq. 11), behind one trait.
//!
//! Every solver takes the same [`SolveParams`], returns [`SolveInfo`] or a [`SolveError`] that says
//! which breakdown happened (the Params / Info / Error triplet of faer's iterative solvers).
//!
//! `J W Jᵀ` is symmetric positive *semi*-definite: redundant constraints (a rod duplicated, a nail
//! and an on-circle that agree) make it singular. Seed 000 §4.4 chose conjugate gradient partly
//! because it "tolerates redundant constraints"; every solver here returns a finite λ for a
//! consistent singular system (any λ with the same `Jᵀλ`: the motion is unique even when λ is not),
//! and an error, never NaN, for an inconsistent one (constraints that conflict).

mod cg;
pub(crate) mod complementarity;
pub(crate) mod conflict;
pub(crate) mod coulomb;
mod dense;
mod gauss_seidel;
pub(crate) mod kkt;
mod ldlt;
mod rows;
mod sparse_ldlt;

pub use cg::ConjugateGradient;
pub use dense::Dense;
pub use gauss_seidel::GaussSeidel;
pub use sparse_ldlt::SparseLdlt;

pub use rows::Role;
pub(crate) use rows::{Bounds, Targets};

pub use crate::math::inverse_mass::InverseMass;

use std::fmt::Debug;

use crate::math::sparse::BlockSparse;

/// Relative residual above which a direct or least-squares solution is declared inconsistent.
const INCONSISTENT: f64 = 1e-8;

/// Settings of a multiplier solve.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SolveParams {
    /// Target relative residual `‖J W Jᵀ λ − b‖ / ‖b‖`.
    pub tolerance: f64,
    /// Iteration cap of iterative solvers; `None` lets each solver choose from the system size
    /// m (conjugate gradient: 10 m + 100; Gauss-Seidel, which needs O(m²) sweeps on a chain:
    /// 100 m + 10 000).
    pub max_iterations: Option<usize>,
    /// Residual norm below which any solve counts as converged, whatever `‖b‖`. When `b` is
    /// rounding noise (gravity exactly perpendicular to every rod, say) a relative target cannot
    /// be met; the engine sets this from the size of the terms `b` is made of.
    pub absolute_tolerance: f64,
}

impl Default for SolveParams {
    fn default() -> Self {
        SolveParams {
            tolerance: 1e-10,
            max_iterations: None,
            absolute_tolerance: 0.0,
        }
    }
}

impl SolveParams {
    pub(crate) fn iteration_cap(&self, default: usize) -> usize {
        self.max_iterations.unwrap_or(default)
    }

    /// The residual norm a solve must reach for a right-hand side of norm `b_norm`.
    pub(crate) fn threshold(&self, b_norm: f64) -> f64 {
        (self.tolerance * b_norm).max(self.absolute_tolerance)
    }

    /// The residual norm up to which a solve of redundant constraints counts as consistent: the
    /// threshold, or [`INCONSISTENT`] relative to `b_norm` if larger (rounding on a singular
    /// matrix).
    pub(crate) fn consistency_threshold(&self, b_norm: f64) -> f64 {
        self.threshold(b_norm).max(INCONSISTENT * b_norm)
    }
}

/// What a successful solve did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SolveInfo {
    /// Iterations (sweeps for Gauss-Seidel, 1 for a direct solve).
    pub iterations: usize,
    /// Final relative residual `‖J W Jᵀ λ − b‖ / ‖b‖` (0 when b = 0).
    pub residual: f64,
}

/// Why a solve failed.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SolveError {
    /// The iteration cap was reached before the tolerance.
    #[error("no convergence after {iterations} iterations (relative residual {residual:.3e})")]
    NoConvergence {
        /// Iterations done.
        iterations: usize,
        /// Relative residual reached.
        residual: f64,
    },
    /// No λ satisfies the system: the constraints conflict.
    #[error(
        "the constraints conflict: no multipliers satisfy them (least-squares relative residual {residual:.3e})"
    )]
    Inconsistent {
        /// Relative residual of the least-squares solution.
        residual: f64,
    },
    /// The right-hand side or the matrix holds a NaN or an infinity.
    #[error("the multiplier system has non-finite entries")]
    NonFinite,
}

/// A solver for `(J W Jᵀ) λ = b`.
///
/// `lambda` holds the previous solution on entry (a warm start for iterative solvers) and the new
/// one on return.
pub trait LinearSolver: Debug + Send {
    /// Short name (`"cg"`, `"dense"`, `"gauss-seidel"`, `"sparse"`).
    fn name(&self) -> &'static str;

    /// Solves `a λ = b` in place.
    fn solve(
        &mut self,
        a: &MultiplierMatrix<'_>,
        b: &[f64],
        lambda: &mut [f64],
        params: &SolveParams,
    ) -> Result<SolveInfo, SolveError>;
}

/// The solver called `name` in scene files and on the command line (`cg`, `dense`,
/// `gauss-seidel`, `sparse`).
///
/// ```
/// assert_eq!(bead::solve::by_name("dense").unwrap().name(), "dense");
/// assert!(bead::solve::by_name("magic").is_none());
/// ```
pub fn by_name(name: &str) -> Option<Box<dyn LinearSolver>> {
    SOLVERS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, make)| make())
}

/// Makes a solver with its default settings.
type MakeSolver = fn() -> Box<dyn LinearSolver>;

/// Every solver, by the name scene files and the command line give it, with its default
/// settings: the one list a new solver joins.
const SOLVERS: [(&str, MakeSolver); 4] = [
    ("cg", || Box::new(ConjugateGradient::default())),
    ("dense", || Box::new(Dense::default())),
    ("gauss-seidel", || Box::new(GaussSeidel::default())),
    ("sparse", || Box::new(SparseLdlt::default())),
];

/// The names [`by_name`] accepts, in the order scene files and the command line list them.
///
/// ```
/// for name in bead::solve::SOLVER_NAMES {
///     assert_eq!(bead::solve::by_name(name).unwrap().name(), name);
/// }
/// ```
pub const SOLVER_NAMES: [&str; SOLVERS.len()] = {
    let mut names = [""; SOLVERS.len()];
    let mut i = 0;
    while i < names.len() {
        names[i] = SOLVERS[i].0;
        i += 1;
    }
    names
};

/// The operator `J W Jᵀ`, applied without ever being formed (seed 000 §4.4), with the few
/// extra views direct and row-wise solvers need.
#[derive(Clone, Copy, Debug)]
pub struct MultiplierMatrix<'a> {
    jacobian: &'a BlockSparse,
    inv_mass: &'a InverseMass,
    /// Rows taking part (`None`: all). A row left out acts as if its row of `J` were zero, so
    /// its λ is 0 — how inequality constraints outside the active set are ignored.
    mask: Option<&'a [bool]>,
}

impl<'a> MultiplierMatrix<'a> {
    /// `J W Jᵀ` for a Jacobian and `W`.
    pub fn new(jacobian: &'a BlockSparse, inv_mass: &'a InverseMass) -> Self {
        debug_assert_eq!(jacobian.ncols(), inv_mass.len());
        MultiplierMatrix {
            jacobian,
            inv_mass,
            mask: None,
        }
    }

    /// The same operator restricted to the rows where `mask` is true.
    pub fn masked(self, mask: &'a [bool]) -> Self {
        MultiplierMatrix {
            mask: Some(mask),
            ..self
        }
    }

    /// Whether row `i` takes part.
    pub fn includes(&self, i: usize) -> bool {
        self.mask.is_none_or(|m| m[i])
    }

    /// Number of rows (constraint rows).
    pub fn size(&self) -> usize {
        self.jacobian.nrows()
    }

    /// The Jacobian `J`.
    pub fn jacobian(&self) -> &'a BlockSparse {
        self.jacobian
    }

    /// `W = M⁻¹`.
    pub fn inv_mass(&self) -> &'a InverseMass {
        self.inv_mass
    }

    /// `out = J W Jᵀ x`, using `tmp` (length = number of coordinates) as scratch.
    pub fn apply(&self, x: &[f64], out: &mut [f64], tmp: &mut [f64]) {
        self.jacobian.mul_transpose_rows(x, self.mask, tmp);
        self.inv_mass.apply_in_place(tmp);
        self.jacobian.mul(tmp, out);
        if let Some(mask) = self.mask {
            out.iter_mut()
                .zip(mask)
                .filter(|(_, m)| !**m)
                .for_each(|(o, _)| *o = 0.0);
        }
    }

    /// The diagonal of `J W Jᵀ`.
    pub fn diagonal(&self, out: &mut [f64]) {
        out.fill(0.0);
        let j = self.jacobian;
        for (b, blk) in j.blocks().iter().enumerate() {
            for (r, row) in j.block_values(b).chunks_exact(blk.ncols).enumerate() {
                out[blk.row + r] += self.inv_mass.weighted_dot(blk.col, row, row);
            }
        }
        if let Some(mask) = self.mask {
            out.iter_mut()
                .zip(mask)
                .filter(|(_, m)| !**m)
                .for_each(|(o, _)| *o = 0.0);
        }
    }

    /// The matrix `J W Jᵀ`, formed densely (for small systems and direct solvers).
    pub fn dense(&self) -> faer::Mat<f64> {
        let m = self.size();
        let j = self.jacobian;
        let mut a = faer::Mat::<f64>::zeros(m, m);
        // Blocks touching the same columns (the same body) couple their rows.
        let mut by_col: Vec<usize> = (0..j.blocks().len()).collect();
        by_col.sort_by_key(|&b| j.blocks()[b].col);
        for group in by_col.chunk_by(|&x, &y| j.blocks()[x].col == j.blocks()[y].col) {
            for &bi in group {
                for &bj in group {
                    let (p, q) = (j.blocks()[bi], j.blocks()[bj]);
                    let (vp, vq) = (j.block_values(bi), j.block_values(bj));
                    for r in 0..p.nrows {
                        for s in 0..q.nrows {
                            let pr = &vp[r * p.ncols..(r + 1) * p.ncols];
                            let qs = &vq[s * q.ncols..(s + 1) * q.ncols];
                            a[(p.row + r, q.row + s)] += self.inv_mass.weighted_dot(p.col, pr, qs);
                        }
                    }
                }
            }
        }
        if let Some(mask) = self.mask {
            // A row left out is decoupled with a unit diagonal: with b = 0 there, its λ is 0 and
            // the rest of the matrix keeps its Cholesky factor.
            for i in (0..m).filter(|&i| !mask[i]) {
                for k in 0..m {
                    a[(i, k)] = 0.0;
                    a[(k, i)] = 0.0;
                }
                a[(i, i)] = 1.0;
            }
        }
        a
    }

    /// `‖J W Jᵀ λ − b‖ / ‖b‖` (the absolute residual when b = 0).
    pub fn relative_residual(&self, lambda: &[f64], b: &[f64]) -> f64 {
        let mut out = vec![0.0; self.size()];
        let mut tmp = vec![0.0; self.inv_mass.len()];
        self.apply(lambda, &mut out, &mut tmp);
        let r: f64 = out
            .iter()
            .zip(b)
            .map(|(x, y)| (x - y).powi(2))
            .sum::<f64>()
            .sqrt();
        let nb = norm(b);
        if nb > 0.0 { r / nb } else { r }
    }
}

pub(crate) fn norm(x: &[f64]) -> f64 {
    x.iter().map(|v| v * v).sum::<f64>().sqrt()
}

#[cfg(test)]
pub(crate) mod test_systems {
    //! Small multiplier systems shared by the solvers' tests.
    use crate::math::sparse::BlockSparse;
    use crate::solve::InverseMass;

    /// A pendulum chain of `n` links in 2D: rows are unit link directions.
    pub fn chain(n: usize) -> (BlockSparse, InverseMass) {
        let mut j = BlockSparse::new(2 * (n + 1));
        j.add_band(1, &[(0, 2), (2, 2)]);
        for k in 1..n {
            j.add_band(1, &[(2 * k, 2), (2 * k + 2, 2)]);
        }
        let vals = j.values_mut();
        for k in 0..n {
            let a = 0.3 * k as f64;
            let u = [a.cos(), a.sin()];
            vals[4 * k..4 * k + 4].copy_from_slice(&[-u[0], -u[1], u[0], u[1]]);
        }
        let mut w = vec![1.0; 2 * (n + 1)];
        w[0] = 0.0; // the first particle is an anchor
        w[1] = 0.0;
        (j, InverseMass::diagonal_of(w))
    }

    /// The chain with its last row duplicated: singular but consistent for b in the range.
    pub fn chain_with_duplicate(n: usize) -> (BlockSparse, InverseMass) {
        let (mut j, w) = chain(n);
        let last = j.bands()[n - 1].1.start;
        let vals: Vec<f64> = [j.block_values(last), j.block_values(last + 1)].concat();
        let cols = (j.blocks()[last].col, j.blocks()[last + 1].col);
        let b = j.add_band(1, &[(cols.0, 2), (cols.1, 2)]);
        j.block_values_mut(b).copy_from_slice(&vals[..2]);
        j.block_values_mut(b + 1).copy_from_slice(&vals[2..]);
        (j, w)
    }
}

#[cfg(test)]
mod tests {
    use super::test_systems::*;
    use super::*;

    fn solvers() -> Vec<Box<dyn LinearSolver>> {
        vec![
            Box::new(ConjugateGradient::default()),
            Box::new(Dense::default()),
            Box::new(GaussSeidel::default()),
            Box::new(SparseLdlt::default()),
        ]
    }

    /// Every solver reproduces a known λ on a well-posed chain.
    #[test]
    fn solvers_agree_on_a_chain() {
        let (j, w) = chain(12);
        let a = MultiplierMatrix::new(&j, &w);
        let exact: Vec<f64> = (0..12).map(|i| (i as f64 * 0.7).sin()).collect();
        let mut b = vec![0.0; 12];
        a.apply(&exact, &mut b, &mut vec![0.0; w.len()]);
        let params = SolveParams {
            tolerance: 1e-12,
            max_iterations: Some(100_000),
            ..SolveParams::default()
        };
        for mut s in solvers() {
            let mut lambda = vec![0.0; 12];
            let info = s.solve(&a, &b, &mut lambda, &params).unwrap();
            for (x, y) in lambda.iter().zip(&exact) {
                assert!((x - y).abs() < 1e-8, "{}: {x} vs {y}", s.name());
            }
            assert!(info.residual <= 1e-11, "{}", s.name());
        }
    }

    /// A duplicated row: finite λ with the right constraint force, never NaN.
    #[test]
    fn redundant_rows_give_finite_least_squares_multipliers() {
        let (j, w) = chain_with_duplicate(5);
        let a = MultiplierMatrix::new(&j, &w);
        // A right-hand side in the range: b = A λ₀.
        let l0: Vec<f64> = (0..6).map(|i| 1.0 + i as f64).collect();
        let mut b = vec![0.0; 6];
        a.apply(&l0, &mut b, &mut vec![0.0; w.len()]);
        let mut f0 = vec![0.0; w.len()];
        j.mul_transpose(&l0, &mut f0);
        for mut s in solvers() {
            let mut lambda = vec![0.0; 6];
            s.solve(&a, &b, &mut lambda, &SolveParams::default())
                .unwrap();
            assert!(lambda.iter().all(|x| x.is_finite()), "{}", s.name());
            let mut f = vec![0.0; w.len()];
            j.mul_transpose(&lambda, &mut f);
            for (x, y) in f.iter().zip(&f0) {
                assert!(
                    (x - y).abs() < 1e-7,
                    "{}: constraint force {x} vs {y}",
                    s.name()
                );
            }
            // The two copies share the load equally (minimum norm) for the direct solver.
            if s.name() == "dense" {
                assert!((lambda[4] - lambda[5]).abs() < 1e-9);
            }
        }
    }

    /// Duplicated rows that ask for different things: an error, not NaN.
    #[test]
    fn conflicting_rows_are_an_error() {
        let (j, w) = chain_with_duplicate(5);
        let a = MultiplierMatrix::new(&j, &w);
        let mut b = vec![0.0; 6];
        b[4] = 1.0;
        b[5] = -1.0;
        for mut s in solvers() {
            let mut lambda = vec![0.0; 6];
            let params = SolveParams {
                tolerance: 1e-10,
                max_iterations: Some(2000),
                ..SolveParams::default()
            };
            let err = s.solve(&a, &b, &mut lambda, &params).unwrap_err();
            assert!(
                matches!(
                    err,
                    SolveError::Inconsistent { .. } | SolveError::NoConvergence { .. }
                ),
                "{}: {err}",
                s.name()
            );
            assert!(lambda.iter().all(|x| x.is_finite()), "{}", s.name());
        }
    }

    #[test]
    fn non_finite_input_is_reported() {
        let (j, w) = chain(3);
        let a = MultiplierMatrix::new(&j, &w);
        for mut s in solvers() {
            let mut lambda = vec![0.0; 3];
            let err = s.solve(
                &a,
                &[1.0, f64::NAN, 0.0],
                &mut lambda,
                &SolveParams::default(),
            );
            assert_eq!(err, Err(SolveError::NonFinite), "{}", s.name());
        }
    }
}
