//! Dense direct solve of `J W Jᵀ λ = b`: Cholesky, falling back to a least-squares solve.
//!
//! For small systems (up to a few hundred rows) forming `J W Jᵀ` and factoring it (faer) beats
//! iterating. When the matrix is singular or nearly so (redundant constraints), Cholesky either
//! fails or produces a tiny pivot and a huge, meaningless λ; we then solve by the symmetric
//! eigendecomposition `A = U S Uᵀ` with small eigenvalues dropped: `λ = U S⁺ Uᵀ b`, the
//! minimum-norm least-squares solution (redundant constraints share the load equally).

use faer::Side;
use faer::linalg::solvers::Solve;

use super::{LinearSolver, MultiplierMatrix, SolveError, SolveInfo, SolveParams};

/// Dense Cholesky with a least-squares fallback for singular systems.
///
/// ```
/// use bead::{solve::Dense, System};
/// let mut sys = System::new(3)?;
/// sys.set_solver(Dense::default());
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct Dense {
    _private: (),
}

/// Relative pivot below which Cholesky is not trusted (the matrix is treated as singular).
const PIVOT_RATIO: f64 = 1e-11;

impl LinearSolver for Dense {
    fn name(&self) -> &'static str {
        "dense"
    }

    fn solve(
        &mut self,
        a: &MultiplierMatrix<'_>,
        b: &[f64],
        lambda: &mut [f64],
        params: &SolveParams,
    ) -> Result<SolveInfo, SolveError> {
        let m = a.size();
        if !b.iter().all(|v| v.is_finite()) {
            return Err(SolveError::NonFinite);
        }
        let mat = a.dense();
        if !(0..m).all(|i| (0..m).all(|j| mat[(i, j)].is_finite())) {
            return Err(SolveError::NonFinite);
        }
        let rhs = faer::Mat::<f64>::from_fn(m, 1, |i, _| b[i]);
        let max_diag = (0..m).map(|i| mat[(i, i)]).fold(0.0, f64::max);

        let well_conditioned = mat.llt(Side::Lower).ok().filter(|llt| {
            let l = llt.L();
            (0..m).all(|i| l[(i, i)] * l[(i, i)] > PIVOT_RATIO * max_diag)
        });
        match well_conditioned {
            Some(llt) => {
                let x = llt.solve(&rhs);
                for i in 0..m {
                    lambda[i] = x[(i, 0)];
                }
            }
            None => least_squares(&mat, b, lambda, max_diag)?,
        }
        crate::math::vector_state::clear_upper_state();
        let residual = a.relative_residual(lambda, b);
        if !lambda.iter().all(|v| v.is_finite()) {
            return Err(SolveError::NonFinite);
        }
        let b_norm = super::norm(b);
        if residual * b_norm > params.consistency_threshold(b_norm) {
            return Err(SolveError::Inconsistent { residual });
        }
        Ok(SolveInfo {
            iterations: 1,
            residual,
        })
    }
}

/// Minimum-norm least squares by the symmetric eigendecomposition.
fn least_squares(
    mat: &faer::Mat<f64>,
    b: &[f64],
    lambda: &mut [f64],
    max_diag: f64,
) -> Result<(), SolveError> {
    let m = b.len();
    let evd = mat
        .self_adjoint_eigen(Side::Lower)
        .map_err(|_| SolveError::NonFinite);
    crate::math::vector_state::clear_upper_state();
    let evd = evd?;
    let (u, s) = (evd.U(), evd.S().column_vector());
    let cutoff = max_diag.max(f64::MIN_POSITIVE) * 1e-12 * m as f64;
    lambda.fill(0.0);
    for k in 0..m {
        if s[k] > cutoff {
            let coef: f64 = (0..m).map(|i| u[(i, k)] * b[i]).sum::<f64>() / s[k];
            for i in 0..m {
                lambda[i] += coef * u[(i, k)];
            }
        }
    }
    Ok(())
}
