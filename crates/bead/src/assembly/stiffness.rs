//! The geometric stiffness `K = Σ_r λ_r ∇²C_r` in body coordinates, per constraint, for the
//! implicit steppers' Newton matrix `M − h² K` (see [`crate::integrate::ImplicitEuler`]).
//!
//! A rod under tension resists turning: its constraint force `Jᵀλ` changes with the positions at
//! the rate `K`, which for a hanging chain of N links reaches `λ/ℓ ~ N² m g` and is why every
//! explicit integrator fails on long chains. Each constraint gives its Hessian over its operands
//! ([`Constraint::weighted_hessian`]); the chain rule through each point adds its own curvature:
//! for a point `x = p + R(θ) r` on a rigid body, `∂²x/∂θ² = −R(θ) r`, the same term as the
//! velocity product `−ω² R r` of [`crate::point`].
//!
//! [`Constraint::weighted_hessian`]: crate::constraint::Constraint::weighted_hessian

use super::evaluator::Evaluator;
use super::pairs::separation_of;
use crate::constraint::HessianEval;
use crate::error::EvalError;
use crate::model::Model;

/// Calls `sink(band, K_c, definite)` for every constraint `c` whose multipliers are not all
/// zero, with `K_c = Σ_r λ_r ∇²C_r` over the coordinates of its band's blocks of `J` (in
/// block order), row-major, and `definite` whether `−K_c` is positive semi-definite where
/// that is known without factoring it (`None` elsewhere). The constraints must have been
/// evaluated at `(t, q)`.
pub(crate) fn constraint_stiffness(
    ev: &Evaluator,
    model: &Model,
    t: f64,
    q: &[f64],
    lambda: &[f64],
    mut sink: impl FnMut(usize, &[f64], Option<bool>),
) -> Result<(), EvalError> {
    let layout = ev.layout();
    let (mut hessian, mut body_hessian, mut weighted) = (Vec::new(), Vec::new(), Vec::new());
    let mut starts = Vec::new();
    for (band, slot) in layout.constraints.iter().enumerate() {
        let weights = &lambda[slot.rows.clone()];
        if weights.iter().all(|w| *w == 0.0) {
            continue;
        }
        let Some(entry) = model.constraints.get(slot.id) else {
            continue;
        };
        let fail = |source| EvalError::Constraint {
            id: slot.id,
            name: entry.name.clone(),
            source,
        };
        if let Some(pair) = &slot.pair {
            let separation = separation_of(entry.constraint.as_ref()).map_err(fail)?;
            let size = 2 * model.dim;
            body_hessian.clear();
            body_hessian.resize(size * size, 0.0);
            // A contact held along its normal at the step's start is linear: no stiffness.
            let held =
                ev.holds_normals() && separation.sign > 0.0 && layout.inequality[slot.rows.start];
            if !held {
                pair.stiffness(separation, model.dim, q, weights[0], &mut body_hessian)
                    .map_err(fail)?;
            }
            // K = sign λ [[A, −A], [−A, A]] with A = (I − u uᵀ)/|d| ⪰ 0: −K ⪰ 0 exactly
            // when sign λ ≤ 0 (a rod or rope in tension).
            sink(
                band,
                &body_hessian,
                Some(held || separation.sign * weights[0] <= 0.0),
            );
            continue;
        }
        let n = slot.offsets.last().copied().unwrap_or_default();
        hessian.clear();
        hessian.resize(n * n, 0.0);
        let at = HessianEval {
            t,
            dim: model.dim,
            offsets: &slot.offsets,
            x: ev.operand_coordinates(slot),
            start: ev.operand_start(slot),
        };
        entry
            .constraint
            .weighted_hessian(&at, weights, &mut hessian)
            .map_err(fail)?;
        // Body coordinates of the slot's blocks, one after the other.
        starts.clear();
        starts.push(0);
        for b in slot.blocks.clone() {
            let ndof = model.body(layout.block_bodies[b]).ndof;
            starts.push(starts.last().copied().unwrap_or_default() + ndof);
        }
        let m = starts.last().copied().unwrap_or_default();
        body_hessian.clear();
        body_hessian.resize(m * m, 0.0);
        let ops = &layout.operands[slot.operands.clone()];
        let nrows = slot.rows.len();
        let grad = ev.gradients(slot);
        for (i, oi) in ops.iter().enumerate() {
            let pi = ev.operand_jacobian(oi);
            let bi = starts[oi.block - slot.blocks.start];
            for (j, oj) in ops.iter().enumerate() {
                let pj = ev.operand_jacobian(oj);
                let bj = starts[oj.block - slot.blocks.start];
                // Pᵢᵀ H_ij Pⱼ
                for a in 0..oi.k {
                    for c in 0..oj.k {
                        let h = hessian[(slot.offsets[i] + a) * n + slot.offsets[j] + c];
                        if h == 0.0 {
                            continue;
                        }
                        for r in 0..oi.ndof {
                            let left = h * pi[a * oi.ndof + r];
                            if left == 0.0 {
                                continue;
                            }
                            for s in 0..oj.ndof {
                                body_hessian[(bi + r) * m + bj + s] += left * pj[c * oj.ndof + s];
                            }
                        }
                    }
                }
            }
            // The point's own curvature, weighted by Σ_r w_r ∂C_r/∂x_i.
            weighted.clear();
            weighted.resize(oi.k, 0.0);
            let gi = &grad[nrows * slot.offsets[i]..nrows * (slot.offsets[i] + oi.k)];
            for (r, w) in weights.iter().enumerate() {
                for (kk, g) in gi[r * oi.k..(r + 1) * oi.k].iter().enumerate() {
                    weighted[kk] += w * g;
                }
            }
            let body = model.body(oi.body);
            let x = &ev.operand_coordinates(slot)[slot.offsets[i]..][..oi.k];
            crate::point::curvature(&entry.operands[i], body, t, q, x, &weighted, |r, s, h| {
                body_hessian[(bi + r) * m + bi + s] += h;
            });
        }
        sink(band, &body_hessian, None);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::constraint::{Distance, OnCircle, Revolute};
    use crate::{Motion, Particle, Point, RigidBody, System};

    /// `Σ λ ∇²C` in body coordinates (with the rigid points' own curvature) equals the derivative
    /// of the generalized constraint force `J(q)ᵀλ`, by central differences.
    #[test]
    fn body_hessian_is_the_derivative_of_the_constraint_force() {
        let mut sys = System::new(2).unwrap();
        let a = sys
            .add_rigid_body(RigidBody::new(&[0.3, -0.2], 0.7).mass(2.0).inertia(0.1))
            .unwrap();
        let b = sys
            .add_rigid_body(RigidBody::new(&[1.1, 0.4], -0.4).mass(1.0).inertia(0.05))
            .unwrap();
        let p = sys.add_particle(Particle::new(&[-0.5, 0.9])).unwrap();
        sys.add_constraint(Distance::new(
            Point::on_body(a, [0.4, 0.1]),
            Point::on_body(b, [-0.2, 0.3]),
            1.0,
        ))
        .unwrap();
        sys.add_constraint(Distance::new(p, Point::on_body(a, [-0.3, 0.2]), 1.0))
            .unwrap();
        sys.add_constraint(OnCircle::new(
            Point::on_body(b, [0.1, -0.2]),
            Motion::fixed(&[0.0, 0.0]),
            1.3,
        ))
        .unwrap();
        sys.add_constraint(Revolute::new(
            Point::on_body(a, [0.2, 0.2]),
            Point::on_body(b, [0.1, 0.1]),
        ))
        .unwrap();
        // A parametric object's points are curved in its coordinates wherever x(u) is.
        let chain = sys
            .add_parametric(
                crate::primitives::pendulum_chain(
                    [0.2, 0.1],
                    &[0.5, 0.8],
                    &[1.0, 2.0],
                    &[0.4, -0.9],
                )
                .unwrap(),
            )
            .unwrap();
        let (first, tip) = (
            sys.parametric_point(chain, "p0").unwrap(),
            sys.parametric_point(chain, "p1").unwrap(),
        );
        sys.add_constraint(Distance::new(p, tip, 1.0)).unwrap();
        sys.add_constraint(Distance::new(Point::on_body(b, [0.3, 0.0]), first, 0.9))
            .unwrap();
        let q = sys.q().to_vec();
        let n = q.len();
        let m = sys.parts().evaluator.layout().rows();
        let lambda: Vec<f64> = (0..m).map(|r| 0.7 - 0.45 * r as f64).collect();
        let force = |sys: &mut System, q: &[f64]| {
            let v = vec![0.0; q.len()];
            let parts = sys.parts();
            parts
                .evaluator
                .evaluate_constraints(parts.model, 0.0, q, &v)
                .unwrap();
            let mut f = vec![0.0; q.len()];
            parts
                .evaluator
                .layout()
                .jacobian
                .mul_transpose(&lambda, &mut f);
            f
        };
        // K summed over constraints, assembled from each band's block.
        let _ = force(&mut sys, &q);
        let mut k = vec![0.0_f64; n * n];
        let parts = sys.parts();
        let ev = &*parts.evaluator;
        super::constraint_stiffness(ev, parts.model, 0.0, &q, &lambda, |band, h, _| {
            let j = &ev.layout().jacobian;
            let cols: Vec<usize> = j.bands()[band]
                .1
                .clone()
                .flat_map(|bk| {
                    let block = j.blocks()[bk];
                    block.col..block.col + block.ncols
                })
                .collect();
            let size = cols.len();
            for (i, ci) in cols.iter().enumerate() {
                for (j, cj) in cols.iter().enumerate() {
                    k[ci * n + cj] += h[i * size + j];
                }
            }
        })
        .unwrap();
        let eps = 1e-6;
        for c in 0..n {
            let (mut plus, mut minus) = (q.clone(), q.clone());
            plus[c] += eps;
            minus[c] -= eps;
            let (fp, fm) = (force(&mut sys, &plus), force(&mut sys, &minus));
            for r in 0..n {
                let fd = (fp[r] - fm[r]) / (2.0 * eps);
                assert!(
                    (fd - k[r * n + c]).abs() < 1e-7,
                    "K[{r}][{c}] = {} but d(Jᵀλ)/dq = {fd}",
                    k[r * n + c]
                );
            }
        }
    }
}
