//! Post-step projection onto the constraint manifold (an alternative to Baumgarte feedback).
//!
//! Positions: Newton's method on `C(q) = 0` with the minimum-kinetic-metric correction
//! `Δq = −W Jᵀ (J W Jᵀ)⁻¹ C`, repeated until `max |C| ≤ tolerance`. Velocities: the same
//! projection of `q̇` onto `Ċ = J q̇ + ∂C/∂t = 0` (one linear solve). Both reuse the multiplier
//! solver, so redundant constraints are handled the same way as in the dynamics.

use crate::derivative::Evaluator;
use crate::error::StepFailure;
use crate::solve::{MultiplierMatrix, SolveParams};
use crate::system::{Model, Projection};

impl Evaluator {
    /// Projects `(q, q̇)` at time `t` onto `C = 0`, `Ċ = 0`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn project(
        &mut self,
        model: &Model,
        params: &SolveParams,
        projection: &Projection,
        t: f64,
        q: &mut [f64],
        v: &mut [f64],
    ) -> Result<(), StepFailure> {
        let m = self.layout.rows();
        if m == 0 {
            return Ok(());
        }
        let mut mu = vec![0.0; m];
        let mut correction = vec![0.0; q.len()];
        let max_abs = |x: &[f64]| x.iter().fold(0.0_f64, |a, c| a.max(c.abs()));
        let mut iteration = 0;
        loop {
            self.evaluate_constraints(model, t, q, v)?;
            let error = max_abs(&self.c);
            if error <= projection.tolerance {
                break;
            }
            if iteration == projection.max_iterations {
                return Err(StepFailure::Projection(error));
            }
            self.correct(params, Target::Position, &mut mu, &mut correction)?;
            for (qi, d) in q.iter_mut().zip(&correction) {
                *qi -= d;
            }
            iteration += 1;
        }
        // Ċ at the projected positions was computed by the last evaluation.
        self.correct(params, Target::Velocity, &mut mu, &mut correction)?;
        for (vi, d) in v.iter_mut().zip(&correction) {
            *vi -= d;
        }
        Ok(())
    }

    /// `correction = W Jᵀ (J W Jᵀ)⁻¹ r` with r = C or Ċ.
    fn correct(
        &mut self,
        params: &SolveParams,
        target: Target,
        mu: &mut [f64],
        correction: &mut [f64],
    ) -> Result<(), StepFailure> {
        let r = match target {
            Target::Position => &self.c,
            Target::Velocity => &self.c_dot,
        };
        mu.fill(0.0);
        let matrix = MultiplierMatrix::new(&self.layout.jacobian, &self.layout.inv_mass);
        self.solver
            .solve(&matrix, r, mu, params)
            .map_err(|e| StepFailure::Eval(e.into()))?;
        self.layout.jacobian.mul_transpose(mu, correction);
        for (c, w) in correction.iter_mut().zip(&self.layout.inv_mass) {
            *c *= w;
        }
        Ok(())
    }
}

#[derive(Clone, Copy)]
enum Target {
    Position,
    Velocity,
}
