//! Matrix-free preconditioned conjugate gradient (seed 000 §4.4).
//!
//! `J W Jᵀ` is never formed: each iteration applies `Jᵀ`, scales by `W`, applies `J`
//! ([`MultiplierMatrix::apply`]), so a chain of n links costs O(n) per iteration. A Jacobi
//! (diagonal) preconditioner is used, and the previous λ is the initial guess (warm start): between
//! two evaluations of a smooth motion λ changes little.
//!
//! Written here rather than taken from faer's `conjugate_gradient`: faer's block CG treats a
//! semi-definite operator as an error (`NonPositiveDefiniteOperator`) and pays for a k×k Cholesky
//! per iteration, while `J W Jᵀ` is semi-definite by design whenever constraints are redundant,
//! and seed 000 relies on CG tolerating that. On a consistent singular system, CG started anywhere
//! keeps its residual in the range of the operator and converges to a solution; on an
//! inconsistent one the residual stalls and we report it, leaving in λ the iterate with the
//! smallest residual met on the way (within a factor of two): a least-squares answer the caller
//! may accept when the inconsistency is one it allows (redundant contacts).

use super::{LinearSolver, MultiplierMatrix, SolveError, SolveInfo, SolveParams, norm};

/// Jacobi-preconditioned conjugate gradient on `J W Jᵀ`, warm-started.
///
/// ```
/// use bead::{solve::ConjugateGradient, Particle, System};
/// let mut sys = System::new(2)?;
/// sys.set_solver(ConjugateGradient::default());
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct ConjugateGradient {
    r: Vec<f64>,
    z: Vec<f64>,
    p: Vec<f64>,
    ap: Vec<f64>,
    inv_diag: Vec<f64>,
    tmp: Vec<f64>,
    /// The iterate with the smallest residual so far (within a factor of two).
    best: Vec<f64>,
}

impl LinearSolver for ConjugateGradient {
    fn name(&self) -> &'static str {
        "cg"
    }

    fn solve(
        &mut self,
        a: &MultiplierMatrix<'_>,
        b: &[f64],
        x: &mut [f64],
        params: &SolveParams,
    ) -> Result<SolveInfo, SolveError> {
        let m = a.size();
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
        for v in [
            &mut self.r,
            &mut self.z,
            &mut self.p,
            &mut self.ap,
            &mut self.inv_diag,
            &mut self.best,
        ] {
            v.resize(m, 0.0);
        }
        self.tmp.resize(a.inv_mass().len(), 0.0);

        a.diagonal(&mut self.inv_diag);
        if !self.inv_diag.iter().all(|v| v.is_finite()) {
            return Err(SolveError::NonFinite);
        }
        // Rows with a zero diagonal touch only anchors; they cannot move anything, and keep λ = 0.
        for d in &mut self.inv_diag {
            *d = if *d > 0.0 { 1.0 / *d } else { 0.0 };
        }
        for (xi, d) in x.iter_mut().zip(&self.inv_diag) {
            if *d == 0.0 {
                *xi = 0.0;
            }
        }

        // r = b − A x
        a.apply(x, &mut self.r, &mut self.tmp);
        for (r, bi) in self.r.iter_mut().zip(b) {
            *r = bi - *r;
        }
        let threshold = params.threshold(b_norm);
        let cap = params.iteration_cap(10 * m + 100);
        for (z, (r, d)) in self.z.iter_mut().zip(self.r.iter().zip(&self.inv_diag)) {
            *z = r * d;
        }
        self.p.copy_from_slice(&self.z);
        let mut rz = dot(&self.r, &self.z);
        let mut residual = norm(&self.r);
        let initial_residual = residual;
        let mut iterations = 0;
        self.best.copy_from_slice(x);
        let mut best_residual = residual;
        while residual > threshold {
            if iterations == cap {
                return Err(SolveError::NoConvergence {
                    iterations,
                    residual: restore_best(x, &self.best, best_residual, residual) / b_norm,
                });
            }
            a.apply(&self.p, &mut self.ap, &mut self.tmp);
            let pap = dot(&self.p, &self.ap);
            if !(pap > 0.0) || !pap.is_finite() {
                // The search direction lies in the null space of J W Jᵀ while the residual is not
                // small: b has a component no λ can produce. The constraints conflict.
                if !pap.is_finite() {
                    return Err(SolveError::NonFinite);
                }
                return Err(SolveError::Inconsistent {
                    residual: restore_best(x, &self.best, best_residual, residual) / b_norm,
                });
            }
            let alpha = rz / pap;
            for i in 0..m {
                x[i] += alpha * self.p[i];
                self.r[i] -= alpha * self.ap[i];
                self.z[i] = self.r[i] * self.inv_diag[i];
            }
            let rz_new = dot(&self.r, &self.z);
            let beta = rz_new / rz;
            rz = rz_new;
            for (p, z) in self.p.iter_mut().zip(&self.z) {
                *p = z + beta * *p;
            }
            residual = norm(&self.r);
            iterations += 1;
            if residual < 0.5 * best_residual {
                self.best.copy_from_slice(x);
                best_residual = residual;
            }
            if residual > 1e8 * initial_residual {
                // On an inconsistent singular system the iterates run off along the null space
                // and the residual explodes instead of stalling: stop and say so.
                return Err(SolveError::Inconsistent {
                    residual: restore_best(x, &self.best, best_residual, residual) / b_norm,
                });
            }
            if rz == 0.0 && residual > threshold {
                // The preconditioned residual vanished but the residual did not: the remaining
                // residual sits on rows that only touch anchors, which no λ can reduce.
                return Err(SolveError::Inconsistent {
                    residual: restore_best(x, &self.best, best_residual, residual) / b_norm,
                });
            }
        }
        Ok(SolveInfo {
            iterations,
            residual: residual / b_norm,
        })
    }
}

/// Puts the best iterate back in `x` if it beats the current one; returns the residual of `x`.
fn restore_best(x: &mut [f64], best: &[f64], best_residual: f64, residual: f64) -> f64 {
    if best_residual < residual {
        x.copy_from_slice(best);
        best_residual
    } else {
        residual
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}
