//! A parametric object under the implicit steppers: its part of the momentum residual, and its
//! own block of their Newton matrix.
//!
//! An object's points step as particles held to it would (seed 000 §5.1: the parametrization
//! `x(u, t)` is a constraint built into the coordinates): the change of each point's momentum
//! over the step is the impulse of the forces on it, taken at the step's end, and only its part
//! along the object's own motions, `J_iᵀ`, counts:
//!
//! ```text
//! G(u) = Σ_i J_i(u)ᵀ [ m_i ĥ (ẋ_i(u, u̇) − ẋ_b,i) − ĥ² f_i ] = ĥ² J_Cᵀ λ,   u̇ = (u − u_b)/ĥ
//! ```
//!
//! with `ẋ_b,i` the point's velocities of the past states in the stepper's combination
//! (implicit Euler: `ẋ_i(uₙ, u̇ₙ)`; BDF2: `(4 ẋ_i,ₙ − ẋ_i,ₙ₋₁)/3`). This is the stepper's own
//! formula applied to the points' momenta, with the positions stepped in `u`; the
//! velocity-product terms of Lagrange's equations (seed 000 eq. 13) are in the difference of
//! the points' velocities, and nothing is left explicit. Its derivative,
//!
//! ```text
//! ∂G/∂u = M(u) + ĥ Σ_i m_i J_iᵀ (∂²x_i/∂u²)(u̇, ·) + Σ_i Σ_k g_ik ∂²x_ik/∂u²,
//! g_i = m_i ĥ (ẋ_i − ẋ_b,i) − ĥ² f_i
//! ```
//!
//! (plus the forces' own `−ĥ² J_iᵀ (∂f_i/∂x) J_i`, [`crate::force::ForceJacobian`]'s), goes
//! into the matrix by its symmetric part. The last term is the geometric stiffness of the
//! parametrization: `g_i` is `ĥ²` times the force that holds point `i` on the object, so for a
//! chain in joint angles it is the tension of its links, as a rod's. Where a light link makes
//! `M(u)` nearly singular that term is the stiff part of the motion, and a Newton matrix of
//! `M(u)` alone does not converge. The middle one (the Coriolis terms) is `ĥ ω` of the mass for
//! a part turning at `ω`, and its antisymmetric half is left out: Newton's method then gains
//! about that factor an iteration where it is large.

use crate::body::{Body, BodyKind, MassPoint, PointMotion};
use crate::force::ObjectForce;
use crate::math::bands::Bands;
use crate::math::inverse_mass::{DenseBlock, InverseMass};
use crate::model::Model;
use crate::point::Point;

/// One past state of the step's prediction (see [`predict_points`]): the weight of its
/// velocities, and the state `(t, q, q̇)`.
pub(crate) type Past<'a> = (f64, f64, &'a [f64], &'a [f64]);

/// Writes every object point's past velocity `ẋ_b,i = Σ_k b_k ẋ_i(q_k, q̇_k, t_k)` into `out`
/// (`dim` per point, objects in the order of `inv_mass`'s blocks), for the past states
/// `(b_k, t_k, q_k, q̇_k)`.
pub(crate) fn predict_points(
    model: &Model,
    inv_mass: &InverseMass,
    past: &[Past<'_>],
    out: &mut Vec<f64>,
) {
    out.clear();
    let mut x = [0.0; 3];
    for (_, body, points, dim) in objects(model, inv_mass) {
        for p in points {
            let start = out.len();
            out.resize(start + dim, 0.0);
            for &(b, t, q, v) in past {
                p.velocity(body.slice(q), body.slice(v), t, &mut x[..dim]);
                for (o, vk) in out[start..].iter_mut().zip(&x) {
                    *o += b * vk;
                }
            }
        }
    }
}

/// The parametric objects among `inv_mass`'s dense blocks: each block, its body, its points and
/// the dimension of their space.
fn objects<'a>(
    model: &'a Model,
    inv_mass: &'a InverseMass,
) -> impl Iterator<Item = (&'a DenseBlock, &'a Body, &'a [MassPoint], usize)> {
    inv_mass.blocks().iter().filter_map(|block| {
        let body = model.body(block.body);
        match &body.kind {
            BodyKind::Parametric { points, dim, .. } => {
                Some((block, body, points.as_slice(), *dim))
            }
            _ => None,
        }
    })
}

/// One object's point `p` at `(u, u̇)`: its velocity and Jacobian (`dim × n`, into
/// `jacobian`).
fn place(p: &MassPoint, (u, u_dot): (&[f64], &[f64]), t: f64, v: &mut [f64], jacobian: &mut [f64]) {
    let (mut x, mut a) = ([0.0; 3], [0.0; 3]);
    let dim = v.len();
    p.motion(
        u,
        u_dot,
        t,
        PointMotion {
            x: &mut x[..dim],
            v,
            jacobian,
            velocity_product: &mut a[..dim],
        },
    );
}

/// The world forces `object_forces` at the points of the object in `inv_mass`'s block `block`,
/// summed per point into `out` (`dim` per point).
fn point_forces(block: usize, object_forces: &[ObjectForce], dim: usize, out: &mut [f64]) {
    out.fill(0.0);
    for (point, f) in object_forces {
        if let Point::OfObject { body, index } = point
            && body.0 == block
            && (index + 1) * dim <= out.len()
        {
            for k in 0..dim {
                out[index * dim + k] += f[k];
            }
        }
    }
}

/// Adds to `applied` (which holds `Σ J_iᵀ f_i` and no velocity-product terms) what makes the
/// generic momentum residual `M(u) (u − ũ) − ĥ² Q` of each object equal to its `G(u)`:
/// `−(ĥ Σ_i J_iᵀ m_i (ẋ_i − ẋ_b,i) − M(u) (u − ũ)) / ĥ²`, at `(t, q, q̇)` with the mass blocks
/// of `inv_mass` taken there, the prediction `inertial` (`ũ`), the points' past velocities
/// `past` (`ẋ_b`) and `ĥ = h`. Writes into `holding` the force that holds each point on its
/// object there, `m_i (ẋ_i − ẋ_b,i)/ĥ − f_i` (`f_i` from `object_forces`), which weighs the
/// object's block of the Newton matrix as λ weighs a constraint's.
#[allow(clippy::too_many_arguments)]
pub(crate) fn add_object_inertia(
    model: &Model,
    inv_mass: &InverseMass,
    (t, q, v): (f64, &[f64], &[f64]),
    (inertial, past, h): (&[f64], &[f64], f64),
    object_forces: &[ObjectForce],
    applied: &mut [f64],
    holding: &mut Vec<f64>,
) {
    holding.clear();
    holding.resize(past.len(), 0.0);
    let mut next = 0;
    let mut xd = [0.0; 3];
    for (block, body, points, dim) in objects(model, inv_mass) {
        let (n, u) = (body.ndof, body.slice(q));
        let mut jacobian = vec![0.0; dim * n];
        let mut momentum = vec![0.0; n];
        let first = next;
        point_forces(
            block.body,
            object_forces,
            dim,
            &mut holding[first..first + points.len() * dim],
        );
        for p in points {
            place(p, (u, body.slice(v)), t, &mut xd[..dim], &mut jacobian);
            for k in 0..dim {
                let change = p.mass * (xd[k] - past[next + k]);
                for (r, m) in momentum.iter_mut().enumerate() {
                    *m += jacobian[k * n + r] * h * change;
                }
                holding[next + k] = change / h - holding[next + k];
            }
            next += dim;
        }
        let ui = body.slice(inertial);
        let out = body.slice_mut(applied);
        for r in 0..n {
            let generic: f64 = (0..n).map(|c| block.mass[r * n + c] * (u[c] - ui[c])).sum();
            out[r] -= (momentum[r] - generic) / (h * h);
        }
    }
}

/// Adds each parametric object's block `∂G/∂u − M(u)`, symmetrized (see the module docs), to
/// `bands`, at `(t, q, q̇)`, for `ĥ = h` and the forces `holding` each point on its object
/// there (`dim` per point, see [`add_object_inertia`]). The block is kept as it is, definite
/// or not: where a compressed light link makes `M(u) + block` indefinite, a positive bound in
/// its place points Newton's step away from the root (see [`crate::solve::kkt`]).
pub(crate) fn object_stiffness(
    model: &Model,
    inv_mass: &InverseMass,
    (t, q, v): (f64, &[f64], &[f64]),
    (holding, h): (&[f64], f64),
    bands: &mut Bands,
) {
    let mut next = 0;
    let mut xd = [0.0; 3];
    for (_, body, points, dim) in objects(model, inv_mass) {
        let (n, u, u_dot) = (body.ndof, body.slice(q), body.slice(v));
        let mut jacobian = vec![0.0; dim * n];
        let mut stiffness = vec![0.0; n * n];
        let mut hessian = vec![0.0; n * n];
        for p in points {
            let mut g = [0.0; 3];
            place(p, (u, u_dot), t, &mut xd[..dim], &mut jacobian);
            for k in 0..dim {
                g[k] = h * h * holding.get(next + k).copied().unwrap_or(0.0);
            }
            next += dim;
            p.add_curvature(u, t, &g[..dim], |r, c, value| {
                stiffness[r * n + c] += value;
            });
            // ĥ m J_kᵀ H_k(u̇, ·), one component k at a time, symmetrized.
            for k in 0..dim {
                hessian.fill(0.0);
                let mut unit = [0.0; 3];
                unit[k] = 1.0;
                p.add_curvature(u, t, &unit[..dim], |r, c, value| {
                    hessian[r * n + c] += value;
                });
                for r in 0..n {
                    for c in 0..n {
                        let along: f64 = (0..n).map(|a| u_dot[a] * hessian[a * n + c]).sum();
                        let term = h * p.mass * jacobian[k * n + r] * along;
                        stiffness[r * n + c] += 0.5 * term;
                        stiffness[c * n + r] += 0.5 * term;
                    }
                }
            }
        }
        let coordinates: Vec<usize> = (body.offset..body.offset + n).collect();
        bands
            .push(&coordinates, true, false)
            .copy_from_slice(&stiffness);
    }
}

#[cfg(test)]
mod tests {
    use super::{add_object_inertia, object_stiffness, predict_points};
    use crate::autodiff::DualNum;
    use crate::force::Gravity;
    use crate::math::bands::Bands;
    use crate::{Parametric, System};

    /// A two-link chain in joint angles under gravity, at `u = (0.7, −0.4)` moving at
    /// `u̇ = (2, −3)`.
    fn chain() -> System {
        let mut sys = System::new(2).unwrap_or_else(|e| panic!("{e}"));
        let (l1, l2) = (0.3, 0.8);
        sys.add_parametric(
            Parametric::new(&[0.7, -0.4])
                .rates(&[2.0, -3.0])
                .point("p1", 0.5, move |u, _t, x| {
                    x[0] = u[0].sin() * l1;
                    x[1] = -u[0].cos() * l1;
                })
                .point("p2", 1.5, move |u, _t, x| {
                    x[0] = u[0].sin() * l1 + u[1].sin() * l2;
                    x[1] = -u[0].cos() * l1 - u[1].cos() * l2;
                }),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        sys.add_force(Gravity::new(&[0.0, -9.81]))
            .unwrap_or_else(|e| panic!("{e}"));
        sys
    }

    /// The object's block of the Newton matrix, `M(u)` plus the block it adds, is the
    /// symmetric part of the derivative of its momentum residual `G(u)` (by central
    /// differences, `u̇ = (u − u_b)/ĥ` following `u`), at a large step and a fast motion.
    #[test]
    fn the_object_block_is_the_residuals_derivative() {
        let mut sys = chain();
        let (u, v) = (sys.q().to_vec(), sys.q_dot().to_vec());
        let h = 0.02;
        let base: Vec<f64> = u.iter().zip(&v).map(|(u, v)| u - h * v).collect();
        // A past state the step continues from, and its prediction ũ.
        let past_q = [0.62, -0.31];
        let past_v = [1.8, -2.6];
        let inertial: Vec<f64> = past_q.iter().zip(&past_v).map(|(q, v)| q + h * v).collect();
        let mut points = Vec::new();
        let residual =
            |sys: &mut System, u: &[f64], points: &mut Vec<f64>| -> (Vec<f64>, Vec<f64>) {
                let v: Vec<f64> = u.iter().zip(&base).map(|(u, b)| (u - b) / h).collect();
                let parts = sys.parts();
                predict_points(
                    parts.model,
                    &parts.evaluator.layout().inv_mass,
                    &[(1.0, 0.0, &past_q, &past_v)],
                    points,
                );
                let (applied, forces) = parts
                    .acceleration
                    .applied_force(parts.evaluator, parts.model, (0.0, u, &v), false)
                    .unwrap_or_else(|e| panic!("{e}"));
                let (mut q_force, forces) = (applied.to_vec(), forces.to_vec());
                let inv_mass = &parts.evaluator.layout().inv_mass;
                let mut holding = Vec::new();
                add_object_inertia(
                    parts.model,
                    inv_mass,
                    (0.0, u, &v),
                    (&inertial, points, h),
                    &forces,
                    &mut q_force,
                    &mut holding,
                );
                let mut g = vec![0.0; 2];
                inv_mass.apply_mass(&[u[0] - inertial[0], u[1] - inertial[1]], &mut g);
                for (g, q) in g.iter_mut().zip(&q_force) {
                    *g -= h * h * q;
                }
                (g, holding)
            };
        let (_, holding) = residual(&mut sys, &u, &mut points);
        let parts = sys.parts();
        let inv_mass = &parts.evaluator.layout().inv_mass;
        let mut bands = Bands::default();
        object_stiffness(
            parts.model,
            inv_mass,
            (0.0, &u, &v),
            (&holding, h),
            &mut bands,
        );
        let mass = inv_mass.blocks()[0].mass.clone();
        let block: Vec<f64> = bands
            .values()
            .iter()
            .zip(&mass)
            .map(|(b, m)| b + m)
            .collect();
        let step = 1e-6;
        let mut derivative = [0.0; 4];
        for c in 0..2 {
            let (mut plus, mut minus) = (u.clone(), u.clone());
            plus[c] += step;
            minus[c] -= step;
            let (a, _) = residual(&mut sys, &plus, &mut points);
            let (b, _) = residual(&mut sys, &minus, &mut points);
            for r in 0..2 {
                derivative[r * 2 + c] = (a[r] - b[r]) / (2.0 * step);
            }
        }
        for r in 0..2 {
            for c in 0..2 {
                let symmetric = 0.5 * (derivative[r * 2 + c] + derivative[c * 2 + r]);
                assert!(
                    (block[r * 2 + c] - symmetric).abs() <= 1e-7 * mass[0].abs(),
                    "entry ({r}, {c}): {}, the differences give {symmetric}",
                    block[r * 2 + c]
                );
            }
        }
        // The terms beyond the mass are not small at this step: the test sees them.
        let beyond = (block[0] - mass[0]).abs() + (block[3] - mass[3]).abs();
        assert!(beyond > 1e-3 * mass[0], "the block adds only {beyond}");
    }
}
