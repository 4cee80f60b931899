//! A 3D rigid body's coordinates: its centre `p` and exponential coordinates `θ` of its
//! orientation about a reference `R₀` that moves with it, `R = Exp(θ) R₀`
//! ([`crate::math::rotation`]).
//!
//! The reference is re-centred after every step (`R₀ ← Exp(θ) R₀`, `θ ← 0`), so `θ` stays
//! within a step's turn of zero, far from the chart's singularity at `|θ| = 2π`, and every
//! integrator, explicit or implicit, advances a smooth ODE in `(p, θ)` at its own order. Within
//! a step the body is a Lagrangian system (seed 000 §5) in those coordinates, with
//! `ω = J_l(θ) θ̇` and the world inertia `I_w(θ) = R I Rᵀ`:
//!
//! ```text
//! T = ½ m |ṗ|² + ½ θ̇ᵀ M_θ θ̇,    M_θ = J_lᵀ I_w J_l
//! M_θ θ̈ = J_lᵀ (τ − ω × I_w ω − I_w J̇_l θ̇)           (Euler's equations, in the chart)
//! ```
//!
//! A world torque `τ` acts on `θ` as `J_lᵀ τ`, which is what a force at a body point gives by
//! the chain rule ([`crate::Point`]); the gyroscopic and chart terms are a generalized inertial
//! force, as a parametric object's velocity-product terms are. At `θ = 0`, where every step
//! starts, `J_l = I` and `θ̇ = ω`.
//!
//! The implicit steppers step the body's world angular momentum `L = I_w ω`:
//!
//! ```text
//! G(θ) = J_lᵀ [ ĥ (I_w(θ) J_l(θ) θ̇ − L_b) ] − ĥ² J_lᵀ τ = ĥ² J_Cᵀ λ,    θ̇ = (θ − θ_b)/ĥ
//! ```
//!
//! with `L_b` the past momenta in the stepper's combination (implicit Euler: `Lₙ`). For
//! implicit Euler from `θ = 0` this is `L_{n+1} = Lₙ + h τ` with `R_{n+1} = Exp(h ω_{n+1}) Rₙ`:
//! a free body keeps its world angular momentum exactly, and its energy never grows, since
//! `ω_{n+1}ᵀ I ω_{n+1} = ω_{n+1}ᵀ I ωₙ` (the step's rotation leaves `ω_{n+1}` fixed) bounds it by
//! Cauchy–Schwarz. This is the gyroscopic term taken implicitly, in the body frame's invariant
//! form.

use num_dual::{Dual64, HyperDual64};

use crate::math::rotation::{
    Real, V3, apply, cross, left_jacobian, left_jacobian_inverse, left_jacobian_transpose, log,
    matrix, multiply, normalized, quaternion_of, rotate, rotate_back, rotation_matrix,
};

/// A 3D rigid body's reference orientation and inertia.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Chart {
    /// `R₀` as a unit quaternion `[w, x, y, z]`.
    pub(crate) reference: [f64; 4],
    /// The inertia about the centre of mass in the body's frame, kg·m² (symmetric).
    pub(crate) inertia: [[f64; 3]; 3],
    /// `R₀ I R₀ᵀ`, the inertia at `θ = 0` in the world frame.
    reference_inertia: [[f64; 3]; 3],
    /// `R₀`, body to world.
    reference_rotation: [[f64; 3]; 3],
}

/// A point of a 3D body at a state: position, velocity, Jacobian `∂x/∂(p, θ)` (row-major
/// 3 × 6) and velocity-product term `(J̇_l θ̇) × d + ω × (ω × d)`, `d = R r`.
pub(crate) struct BodyPoint {
    pub(crate) x: [f64; 3],
    pub(crate) v: [f64; 3],
    pub(crate) jacobian: [f64; 18],
    pub(crate) velocity_product: [f64; 3],
}

/// The rotational part `θ` (or `θ̇`) of a 3D body's slice.
fn angular(s: &[f64]) -> [f64; 3] {
    [s[3], s[4], s[5]]
}

/// `ω = J_l(θ) θ̇` and `J̇_l θ̇`, by a dual number along `θ̇`.
fn rates(theta: &[f64; 3], rate: &[f64; 3]) -> ([f64; 3], [f64; 3]) {
    let moving: V3<Dual64> = [0, 1, 2].map(|i| Dual64::new(theta[i], rate[i]));
    let omega = left_jacobian(&moving, &rate.map(Dual64::from));
    (omega.map(|w| w.re), omega.map(|w| w.eps))
}

impl Chart {
    /// A chart at the unit quaternion `reference` for the body-frame `inertia`.
    pub(crate) fn new(reference: [f64; 4], inertia: [[f64; 3]; 3]) -> Chart {
        let mut chart = Chart {
            reference,
            inertia,
            reference_inertia: [[0.0; 3]; 3],
            reference_rotation: [[0.0; 3]; 3],
        };
        chart.set_reference(reference);
        chart
    }

    fn set_reference(&mut self, reference: [f64; 4]) {
        self.reference = reference;
        let r = rotation_matrix(&reference);
        self.reference_rotation = r;
        // R I Rᵀ, column by column.
        self.reference_inertia = matrix(|e| {
            let back = [0, 1, 2].map(|c| r[0][c] * e[0] + r[1][c] * e[1] + r[2][c] * e[2]);
            apply(&r, &apply(&self.inertia, &back))
        });
    }

    /// The orientation at `θ`, a unit quaternion.
    pub(crate) fn orientation(&self, theta: &[f64; 3]) -> [f64; 4] {
        let q = multiply(&quaternion_of(theta), &self.reference);
        normalized(&q).unwrap_or(self.reference)
    }

    /// `I_w(θ) x`.
    fn world_inertia<D: Real>(&self, theta: &V3<D>, x: &V3<D>) -> V3<D> {
        rotate(
            theta,
            &apply(&self.reference_inertia, &rotate_back(theta, x)),
        )
    }

    /// The world angular momentum `I_w(θ) J_l(θ) θ̇`.
    fn momentum<D: Real>(&self, theta: &V3<D>, rate: &V3<D>) -> V3<D> {
        self.world_inertia(theta, &left_jacobian(theta, rate))
    }

    /// The world angular momentum `L` and angular velocity `ω` of a body's slices.
    pub(crate) fn angular_state(&self, qb: &[f64], vb: &[f64]) -> ([f64; 3], [f64; 3]) {
        let (theta, rate) = (angular(qb), angular(vb));
        (self.momentum(&theta, &rate), left_jacobian(&theta, &rate))
    }

    /// The rotational kinetic energy `½ ωᵀ I_w ω`, J.
    pub(crate) fn rotational_energy(&self, qb: &[f64], vb: &[f64]) -> f64 {
        let (l, w) = self.angular_state(qb, vb);
        0.5 * (l[0] * w[0] + l[1] * w[1] + l[2] * w[2])
    }

    /// The mass block of `θ`, `M_θ = J_lᵀ I_w J_l` (row-major 3 × 3).
    pub(crate) fn mass_block(&self, qb: &[f64], out: &mut [f64]) {
        let theta = angular(qb);
        let m = matrix(|e| left_jacobian_transpose(&theta, &self.momentum(&theta, e)));
        for r in 0..3 {
            out[3 * r..3 * r + 3].copy_from_slice(&m[r]);
        }
    }

    /// The generalized inertial force on `θ`, `J_lᵀ (−ω × I_w ω − I_w J̇_l θ̇)`.
    pub(crate) fn inertial_force(&self, qb: &[f64], vb: &[f64]) -> [f64; 3] {
        let (theta, rate) = (angular(qb), angular(vb));
        let (omega, chart_rate) = rates(&theta, &rate);
        let gyro = cross(&omega, &self.world_inertia(&theta, &omega));
        let chart = self.world_inertia(&theta, &chart_rate);
        let torque = [0, 1, 2].map(|i| -gyro[i] - chart[i]);
        left_jacobian_transpose(&theta, &torque)
    }

    /// The kinematics of the body point at `local` (body frame) at the body's slices.
    pub(crate) fn point(&self, qb: &[f64], vb: &[f64], local: &[f64; 3]) -> BodyPoint {
        let (theta, rate) = (angular(qb), angular(vb));
        let d0 = apply(&self.reference_rotation, local);
        let d = rotate(&theta, &d0);
        let (omega, chart_rate) = rates(&theta, &rate);
        let wd = cross(&omega, &d);
        let wwd = cross(&omega, &wd);
        let ad = cross(&chart_rate, &d);
        let mut jacobian = [0.0; 18];
        for r in 0..3 {
            jacobian[6 * r + r] = 1.0;
        }
        // ∂x/∂θ = −[d]× J_l: column c is J_l e_c × d.
        for c in 0..3 {
            let mut e = [0.0; 3];
            e[c] = 1.0;
            let col = cross(&left_jacobian(&theta, &e), &d);
            for r in 0..3 {
                jacobian[6 * r + 3 + c] = col[r];
            }
        }
        BodyPoint {
            x: [0, 1, 2].map(|i| qb[i] + d[i]),
            v: [0, 1, 2].map(|i| vb[i] + wd[i]),
            jacobian,
            velocity_product: [0, 1, 2].map(|i| ad[i] + wwd[i]),
        }
    }

    /// `Σ_k g_k ∂²x_k/∂θ²` of the point at `local`, given to `add(r, c, value)` on the body's
    /// coordinates (the centre enters linearly), by hyper-dual numbers.
    pub(crate) fn add_curvature(
        &self,
        qb: &[f64],
        local: &[f64; 3],
        g: &[f64],
        mut add: impl FnMut(usize, usize, f64),
    ) {
        let theta = angular(qb);
        let d0 = apply(&self.reference_rotation, local).map(HyperDual64::from);
        for r in 0..3 {
            for c in r..3 {
                let th: V3<HyperDual64> = [0, 1, 2].map(|i| {
                    let e1 = if i == r { 1.0 } else { 0.0 };
                    let e2 = if i == c { 1.0 } else { 0.0 };
                    HyperDual64::new(theta[i], e1, e2, 0.0)
                });
                let x = rotate(&th, &d0);
                let value: f64 = (0..3).map(|k| g[k] * x[k].eps1eps2).sum();
                add(3 + r, 3 + c, value);
                if c != r {
                    add(3 + c, 3 + r, value);
                }
            }
        }
    }

    /// The implicit momentum residual's rotational part without its applied torques,
    /// `ĥ J_lᵀ (I_w J_l θ̇ − L_b)`, on any scalar.
    fn residual<D: Real>(&self, theta: &V3<D>, rate: &V3<D>, past: &[f64; 3], h: f64) -> V3<D> {
        let l = self.momentum(theta, rate);
        let change = [0, 1, 2].map(|i| (l[i] - past[i]) * h);
        left_jacobian_transpose(theta, &change)
    }

    /// The implicit momentum residual's rotational part `ĥ J_lᵀ (I_w J_l θ̇ − L_b)` at the
    /// body's slices, for past momenta `past` (`L_b`) and `ĥ = h`.
    pub(crate) fn momentum_residual(
        &self,
        qb: &[f64],
        vb: &[f64],
        past: &[f64; 3],
        h: f64,
    ) -> [f64; 3] {
        self.residual(&angular(qb), &angular(vb), past, h)
    }

    /// The derivative of [`Chart::momentum_residual`] with `θ`, `θ̇ = (θ − θ_b)/ĥ` following
    /// it (row-major 3 × 3), by dual numbers.
    pub(crate) fn residual_derivative(
        &self,
        qb: &[f64],
        vb: &[f64],
        past: &[f64; 3],
        h: f64,
    ) -> [[f64; 3]; 3] {
        let (theta, rate) = (angular(qb), angular(vb));
        let mut m = [[0.0; 3]; 3];
        for c in 0..3 {
            let th: V3<Dual64> =
                [0, 1, 2].map(|i| Dual64::new(theta[i], if i == c { 1.0 } else { 0.0 }));
            let rt: V3<Dual64> =
                [0, 1, 2].map(|i| Dual64::new(rate[i], if i == c { 1.0 / h } else { 0.0 }));
            let g = self.residual(&th, &rt, past, h);
            for r in 0..3 {
                m[r][c] = g[r].eps;
            }
        }
        m
    }

    /// Moves the reference to the body's orientation at its slices and sets `θ = 0`, `θ̇ = ω`
    /// there; returns the chart the slices were in, for [`Chart::carry`].
    pub(crate) fn recentre(&mut self, qb: &mut [f64], vb: &mut [f64]) -> Chart {
        let old = self.clone();
        let (theta, rate) = (angular(qb), angular(vb));
        let omega = left_jacobian(&theta, &rate);
        self.set_reference(self.orientation(&theta));
        qb[3..6].fill(0.0);
        vb[3..6].copy_from_slice(&omega);
        old
    }

    /// Re-expresses slices given in the chart `old` in this one: the same orientation and
    /// angular velocity (a past state kept by a stepper with history).
    pub(crate) fn carry(&self, old: &Chart, qb: &mut [f64], vb: &mut [f64]) {
        let (theta, rate) = (angular(qb), angular(vb));
        let omega = left_jacobian(&theta, &rate);
        let orientation = old.orientation(&theta);
        let inverse = [
            self.reference[0],
            -self.reference[1],
            -self.reference[2],
            -self.reference[3],
        ];
        let new_theta = log(&multiply(&orientation, &inverse));
        let new_rate = left_jacobian_inverse(&new_theta, &omega).unwrap_or(omega);
        qb[3..6].copy_from_slice(&new_theta);
        vb[3..6].copy_from_slice(&new_rate);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart() -> Chart {
        let reference = normalized(&[0.9, 0.2, -0.3, 0.1]).unwrap_or([1.0, 0.0, 0.0, 0.0]);
        Chart::new(
            reference,
            [[0.3, 0.02, 0.0], [0.02, 0.5, -0.01], [0.0, -0.01, 0.8]],
        )
    }

    const Q: [f64; 6] = [0.1, -0.2, 0.3, 0.25, -0.4, 0.15];
    const V: [f64; 6] = [1.0, 0.5, -0.2, 3.0, -1.5, 2.2];

    /// A point's Jacobian and velocity-product term against dual numbers on its position
    /// `p + Exp(θ) R₀ r` (first and second derivatives along `q̇`).
    #[test]
    fn point_kinematics_agree_with_autodiff() {
        let c = chart();
        let local = [0.3, -0.1, 0.5];
        let k = c.point(&Q, &V, &local);
        let d0 = apply(&c.reference_rotation, &local).map(HyperDual64::from);
        let th: V3<HyperDual64> =
            [0, 1, 2].map(|i| HyperDual64::new(Q[3 + i], V[3 + i], V[3 + i], 0.0));
        let x = rotate(&th, &d0);
        for r in 0..3 {
            let along: f64 = (0..6).map(|c| k.jacobian[6 * r + c] * V[c]).sum();
            assert!((along - k.v[r]).abs() < 1e-13);
            assert!((x[r].eps1 + V[r] - k.v[r]).abs() < 1e-13);
            assert!((x[r].eps1eps2 - k.velocity_product[r]).abs() < 1e-12);
            assert!((x[r].re + Q[r] - k.x[r]).abs() < 1e-15);
        }
    }

    /// The explicit equations in the chart are Euler's: `M_θ θ̈ = J_lᵀ(τ − ω × I_w ω − I_w J̇_l θ̇)`
    /// gives `d/dt (I_w ω) = τ` (world angular momentum changes by the torque alone), checked
    /// by differentiating `L(θ, θ̇)` along `(θ̇, θ̈)` with dual numbers.
    #[test]
    fn the_chart_equations_are_eulers() {
        let c = chart();
        let torque = [0.3, -0.7, 0.2];
        let mut m = [0.0; 9];
        c.mass_block(&Q, &mut m);
        let mm = [[m[0], m[1], m[2]], [m[3], m[4], m[5]], [m[6], m[7], m[8]]];
        let theta = angular(&Q);
        let force = c.inertial_force(&Q, &V);
        let generalized = left_jacobian_transpose(&theta, &torque);
        let rhs = [0, 1, 2].map(|i| force[i] + generalized[i]);
        let accel = crate::math::rotation::solve3(&mm, &rhs).unwrap_or([f64::NAN; 3]);
        let rate = angular(&V);
        let th: V3<Dual64> = [0, 1, 2].map(|i| Dual64::new(theta[i], rate[i]));
        let rt: V3<Dual64> = [0, 1, 2].map(|i| Dual64::new(rate[i], accel[i]));
        let l = c.momentum(&th, &rt);
        for i in 0..3 {
            assert!(
                (l[i].eps - torque[i]).abs() < 1e-12,
                "{i}: {} vs {}",
                l[i].eps,
                torque[i]
            );
        }
    }

    /// Re-centring keeps the orientation and the angular velocity; carrying a state into the
    /// new chart keeps them too.
    #[test]
    fn recentring_keeps_the_motion() {
        let mut c = chart();
        let (mut q, mut v) = (Q, V);
        let before = c.orientation(&angular(&Q));
        let (_, omega) = c.angular_state(&Q, &V);
        let old = c.recentre(&mut q, &mut v);
        let after = c.orientation(&angular(&q));
        assert!(
            before
                .iter()
                .zip(&after)
                .all(|(a, b)| (a - b).abs() < 1e-15)
        );
        assert!((0..3).all(|i| (v[3 + i] - omega[i]).abs() < 1e-14));
        let (mut qp, mut vp) = (
            [0.0, 0.0, 0.0, -0.1, 0.05, 0.2],
            [0.0, 0.0, 0.0, 1.0, 2.0, 3.0],
        );
        let (_, w_old) = old.angular_state(&qp, &vp);
        let o_old = old.orientation(&angular(&qp));
        c.carry(&old, &mut qp, &mut vp);
        let (_, w_new) = c.angular_state(&qp, &vp);
        let o_new = c.orientation(&angular(&qp));
        assert!((0..3).all(|i| (w_old[i] - w_new[i]).abs() < 1e-13));
        assert!(o_old.iter().zip(&o_new).all(|(a, b)| (a - b).abs() < 1e-14));
    }

    /// The residual's derivative against central differences.
    #[test]
    fn the_residual_derivative_is_its_derivative() {
        let c = chart();
        let (h, past) = (0.02, [0.4, -0.3, 0.9]);
        let base: Vec<f64> = (0..6).map(|i| Q[i] - h * V[i]).collect();
        let at = |q: &[f64]| {
            let v: Vec<f64> = (0..6).map(|i| (q[i] - base[i]) / h).collect();
            c.momentum_residual(q, &v, &past, h)
        };
        let m = c.residual_derivative(&Q, &V, &past, h);
        let eps = 1e-6;
        for col in 0..3 {
            let (mut plus, mut minus) = (Q, Q);
            plus[3 + col] += eps;
            minus[3 + col] -= eps;
            let (a, b) = (at(&plus), at(&minus));
            for r in 0..3 {
                let fd = (a[r] - b[r]) / (2.0 * eps);
                assert!(
                    (fd - m[r][col]).abs() < 1e-7 * (1.0 + fd.abs()),
                    "{r},{col}: {fd} vs {}",
                    m[r][col]
                );
            }
        }
    }
}
