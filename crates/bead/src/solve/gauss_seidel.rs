//! Gauss-Seidel on `J W Jᵀ λ = b` (seed 002, "Large SLE solvers"), without forming the matrix.
//!
//! Row i of `A = J W Jᵀ` applied to λ is `J_i · (W Jᵀ λ)`. Keeping `u = W Jᵀ λ` up to date as each
//! λ_i changes makes one sweep cost O(nnz(J)), as in the sequential-impulse solvers of game
//! engines. Gauss-Seidel converges for any symmetric positive semi-definite system that has a
//! solution; it is slower than CG on long chains but simple and robust, and the natural base for
//! the projected variants that inequality constraints need.

use super::{LinearSolver, MultiplierMatrix, SolveError, SolveInfo, SolveParams, norm};

/// Matrix-free Gauss-Seidel sweeps, warm-started.
///
/// ```
/// use bead::{solve::GaussSeidel, System};
/// let mut sys = System::new(2)?;
/// sys.set_solver(GaussSeidel::default());
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct GaussSeidel {
    u: Vec<f64>,
    diag: Vec<f64>,
    ax: Vec<f64>,
}

impl LinearSolver for GaussSeidel {
    fn name(&self) -> &'static str {
        "gauss-seidel"
    }

    fn solve(
        &mut self,
        a: &MultiplierMatrix<'_>,
        b: &[f64],
        x: &mut [f64],
        params: &SolveParams,
    ) -> Result<SolveInfo, SolveError> {
        let m = a.size();
        let j = a.jacobian();
        let w = a.inv_mass();
        if !b.iter().all(|v| v.is_finite()) {
            return Err(SolveError::NonFinite);
        }
        let b_norm = norm(b);
        if b_norm == 0.0 {
            x.fill(0.0);
            return Ok(SolveInfo::default());
        }
        if !x.iter().all(|v| v.is_finite()) {
            x.fill(0.0);
        }
        self.diag.resize(m, 0.0);
        a.diagonal(&mut self.diag);
        if !self.diag.iter().all(|v| v.is_finite()) {
            return Err(SolveError::NonFinite);
        }
        for (xi, d) in x.iter_mut().zip(&self.diag) {
            if *d <= 0.0 {
                *xi = 0.0;
            }
        }
        // u = W Jᵀ λ
        self.u.resize(w.len(), 0.0);
        j.mul_transpose(x, &mut self.u);
        w.apply_in_place(&mut self.u);
        self.ax.resize(m, 0.0);

        let cap = params.iteration_cap(100 * m + 10_000);
        let threshold = params.threshold(b_norm);
        let mut previous = f64::INFINITY;
        let mut stalled = 0;
        for sweep in 1..=cap {
            for i in 0..m {
                if self.diag[i] <= 0.0 || !a.includes(i) {
                    continue;
                }
                let row_dot: f64 = j
                    .row(i)
                    .map(|(c, coef)| {
                        coef.iter()
                            .zip(&self.u[c..])
                            .map(|(a, u)| a * u)
                            .sum::<f64>()
                    })
                    .sum();
                let delta = (b[i] - row_dot) / self.diag[i];
                x[i] += delta;
                for (c, coef) in j.row(i) {
                    w.add_weighted_row(c, coef, delta, &mut self.u);
                }
            }
            // Residual with the current λ: A λ = J u (rows left out have no residual).
            j.mul(&self.u, &mut self.ax);
            for i in (0..m).filter(|&i| !a.includes(i)) {
                self.ax[i] = b[i];
            }
            let residual = self
                .ax
                .iter()
                .zip(b)
                .map(|(p, q)| (p - q).powi(2))
                .sum::<f64>()
                .sqrt();
            if !residual.is_finite() {
                return Err(SolveError::NonFinite);
            }
            if residual <= threshold {
                return Ok(SolveInfo {
                    iterations: sweep,
                    residual: residual / b_norm,
                });
            }
            // On an inconsistent system the residual settles at the least-squares floor instead of
            // going to zero; stop early once it no longer moves.
            if residual > (1.0 - 1e-9) * previous {
                stalled += 1;
                if stalled >= 100 {
                    return Err(SolveError::Inconsistent {
                        residual: residual / b_norm,
                    });
                }
            } else {
                stalled = 0;
            }
            previous = residual;
        }
        let residual = a.relative_residual(x, b);
        Err(SolveError::NoConvergence {
            iterations: cap,
            residual,
        })
    }
}
