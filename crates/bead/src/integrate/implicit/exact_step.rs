//! The Newton step on the exact Newton matrix, around a factor that had to leave part of it
//! out.
//!
//! The KKT factor must stay quasi-definite, so each constraint's indefinite geometric stiffness
//! that the masses do not outweigh is replaced by its diagonal bound (see
//! [`crate::solve::kkt`]). Where that bound is large it has the wrong sign along the block's
//! negative directions, and Newton's method slows to a crawl: a whipping 3D chain of 1000 bars,
//! whose joints carry 10 kN across its 1 mm bars, took 60 iterations a step. With `E` what the
//! factor left out (the model's [`stiffness_correction`]), the exact step is the fixed point
//! `Δq = S(F₁ + E Δq, F₂)`, `S` the solve with the factor (which solves `P Δq + … = −F₁`), so
//! `(I − S₀ E) Δq = S(F₁, F₂)`, `S₀` the solve of a right-hand side alone. GMRES
//! ([`crate::math::gmres`]) solves it with one more solve of the same factor per iteration,
//! and a last solve gives the step, as the friction cones' coupling does
//! ([`super::cone_coupling`]).
//!
//! [`stiffness_correction`]: crate::integrate::ConstrainedModel::stiffness_correction

use super::work::Work;
use crate::error::EvalError;
use crate::integrate::{ConstrainedModel, Factorization};
use crate::math::gmres::gmres;

/// The residual, relative to the factor's own step, to which the exact step is solved.
const EXACT_RELATIVE: f64 = 1e-6;
/// GMRES iterations at most for one step (each one solve of the factor); the iteration falls
/// back on the factor's own step if they do not reach [`EXACT_RELATIVE`].
const EXACT_ITERATIONS: usize = 30;

/// One Newton step for the residuals and roles in `w` on the exact Newton matrix (see the
/// module's notes): into `w.dq` and `w.dmu`. Returns whether it factored.
pub(super) fn exact_step(
    model: &mut dyn ConstrainedModel,
    w: &mut Work,
    factorization: Factorization,
    h2: f64,
) -> Result<bool, EvalError> {
    let factored = w.newton_step(model, factorization, h2)?;
    let n = w.dq.len();
    let mut product = vec![0.0; n];
    if !model.stiffness_correction(&w.dq, &mut product) {
        return Ok(factored);
    }
    let (plain_dq, plain_dmu) = (w.dq.clone(), w.dmu.clone());
    let mut dq = vec![0.0; n];
    let solved = w.bare(|w| {
        gmres(
            |v: &[f64], out: &mut [f64]| -> Result<(), EvalError> {
                w.momentum.fill(0.0);
                model.stiffness_correction(v, &mut w.momentum);
                w.newton_step(model, Factorization::Reuse, h2)?;
                for ((o, vi), s) in out.iter_mut().zip(v).zip(&w.dq) {
                    *o = vi - s;
                }
                Ok(())
            },
            &plain_dq,
            &mut dq,
            EXACT_RELATIVE,
            EXACT_ITERATIONS,
        )
    });
    let (_, residual) = solved?;
    if !(residual <= EXACT_RELATIVE) {
        // Not reached: the factor's own step, which the iteration around it still converges on.
        w.dq = plain_dq;
        w.dmu = plain_dmu;
        return Ok(factored);
    }
    product.fill(0.0);
    model.stiffness_correction(&dq, &mut product);
    let saved = w.momentum.clone();
    for (m, p) in w.momentum.iter_mut().zip(&product) {
        *m += p;
    }
    let stepped = w.newton_step(model, Factorization::Reuse, h2);
    w.momentum = saved;
    stepped?;
    Ok(factored)
}
