//! The interior-point iteration's Newton step with friction: each friction row's coupling to
//! its contact's normal force, the one part of the step the symmetric KKT matrix cannot hold.
//!
//! Linearized, the complementarity of a friction row's slips `a`, `b` (towards its cone's lower
//! and upper edges) with its distances `y_l = μ_t + μ_f μ_n`, `y_u = μ_f μ_n − μ_t` from those
//! edges makes its row (see [`super::interior_point`])
//!
//! ```text
//! J Δq + c Δμ_t + e Δμ_n = −r,    c = a/y_l + b/y_u,    e = μ_f (a/y_l − b/y_u)
//! ```
//!
//! The KKT matrix is symmetric and holds `c` only. Leaving `e` out makes the Newton step
//! inexact: a sliding row (`b/y_u ≫ a/y_l`, so `e ≈ −μ_f c`) keeps its force where the edge
//! leaves it, and the iteration then takes the normal force's change into its friction one
//! iteration late. On a landing 100-ball pile (μ = 0.5) the momentum residual fell by only 0.88 an
//! iteration that way, 100 iterations a step. So the step is solved whole: with the
//! coupling's term moved to the right-hand side, `Δμ = S(F₁, F₂ + E Δμ)`, `S` the solve with
//! the symmetric factor and `E` the coupling. Only the contacts' normal multipliers `z = Δμ_n`
//! enter `E`, so the fixed point is the small system `(I − L) z = g₀`, `g₀` the normals of the
//! uncoupled step and `L z` those of `S(0, E z)`, which GMRES ([`crate::math::gmres`]) solves
//! with one more solve of the same factor per iteration; a last solve then gives the step.

use super::interior_point::{cone_gaps, live_cone};
use super::work::Work;
use crate::error::EvalError;
use crate::integrate::{ConstrainedModel, Factorization};
use crate::math::gmres::gmres;

/// The residual, relative to the uncoupled step's normals, to which the coupled step is solved:
/// the Newton iteration around it needs no more than the step's own accuracy.
const COUPLING_RELATIVE: f64 = 1e-8;
/// GMRES iterations at most for one step's coupling (each one solve of the factor).
const COUPLING_ITERATIONS: usize = 40;

/// One Newton step of the interior-point iteration for the residuals and roles in `w`, each
/// friction row coupled to its normal's multiplier (see the module's notes): into `w.dq` and
/// `w.dmu`. Returns whether it factored.
pub(super) fn coupled_step(
    model: &mut dyn ConstrainedModel,
    w: &mut Work,
    factorization: Factorization,
    h2: f64,
) -> Result<bool, EvalError> {
    let factored = w.newton_step(model, factorization, h2)?;
    if !w.cone.iter().any(Option::is_some) {
        return Ok(factored);
    }
    let m = w.mu.len();
    // Each coupled row: (row, its normal's place in `normals`, e).
    let mut coupling: Vec<(usize, usize, f64)> = Vec::new();
    let mut normals: Vec<usize> = Vec::new();
    let mut place = vec![usize::MAX; m];
    for t in 0..m {
        if let Some((n, f)) = live_cone(w, t) {
            let (lower, upper) = cone_gaps(w, t, (n, f), 0.0);
            let e = f * (w.slack[t] / lower - w.slack_up[t] / upper);
            if e != 0.0 && e.is_finite() {
                if place[n] == usize::MAX {
                    place[n] = normals.len();
                    normals.push(n);
                }
                coupling.push((t, place[n], e));
            }
        }
    }
    if coupling.is_empty() {
        return Ok(factored);
    }
    let uncoupled: Vec<f64> = normals.iter().map(|&n| w.dmu[n]).collect();
    // The products `(I − L) v`: the solve of the coupling's right-hand side alone (the proximal
    // term, a constant of the right-hand side, left out).
    let mut z = vec![0.0; normals.len()];
    let solved = w.bare(|w| {
        gmres(
            |v: &[f64], out: &mut [f64]| -> Result<(), EvalError> {
                w.rows.fill(0.0);
                for &(t, i, e) in &coupling {
                    w.rows[t] = e * v[i];
                }
                w.newton_step(model, Factorization::Reuse, h2)?;
                for (o, (vi, &n)) in out.iter_mut().zip(v.iter().zip(&normals)) {
                    *o = vi - w.dmu[n];
                }
                Ok(())
            },
            &uncoupled,
            &mut z,
            COUPLING_RELATIVE,
            COUPLING_ITERATIONS,
        )
    });
    solved?;
    // The step itself, with the coupling's term at the normals found.
    let uncoupled_rows: Vec<f64> = coupling.iter().map(|&(t, _, _)| w.rows[t]).collect();
    for &(t, i, e) in &coupling {
        w.rows[t] += e * z[i];
    }
    let stepped = w.newton_step(model, Factorization::Reuse, h2);
    for (&(t, _, _), r) in coupling.iter().zip(uncoupled_rows) {
        w.rows[t] = r;
    }
    stepped?;
    Ok(factored)
}

#[cfg(test)]
mod tests {
    use super::super::implicit_euler_states;
    use super::super::newton::CONES_IN_INTERIOR;
    use crate::math::vector::max_abs_difference;

    /// A landing frictional pile (30 balls, μ = 0.5, 240–290 bounded rows) stepped twice at
    /// 1/60 s: its frictional steps solved by the barrier with its cones, and by the contacts'
    /// own problem (the sweeps, Lemke's pivoting and Tresca's passes on the dense Delassus
    /// matrix). Both solve the same equations to the same tolerance, so the two runs' balls
    /// stay together.
    #[test]
    fn a_landing_frictional_pile_takes_the_same_steps_by_the_barrier_as_by_its_own_problem() {
        let run = |barrier: bool| -> Vec<Vec<f64>> {
            CONES_IN_INTERIOR.with(|c| c.set(Some(barrier)));
            let (mut sys, _) = crate::models::frictional_ball_pile(30, 0.02, 0.6, 0.5)
                .unwrap_or_else(|e| panic!("{e}"));
            let states = implicit_euler_states(&mut sys, 30);
            CONES_IN_INTERIOR.with(|c| c.set(None));
            states
        };
        let (barrier, problem) = (run(true), run(false));
        let mut farthest = 0.0_f64;
        for (step, (a, b)) in barrier.iter().zip(&problem).enumerate() {
            let apart = max_abs_difference(a, b);
            assert!(
                apart < 1e-9,
                "step {step}: the runs are {apart:.3e} m apart"
            );
            farthest = farthest.max(apart);
        }
        // They did go their two ways: their rounding differs (1.8e-10 m when written).
        assert!(
            farthest > 0.0,
            "the two runs are identical: neither needed help"
        );
    }
}
