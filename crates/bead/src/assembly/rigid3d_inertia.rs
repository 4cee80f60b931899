//! A 3D rigid body under the implicit steppers: its rotation's part of the momentum residual,
//! and its own block of their Newton matrix ([`crate::body::chart`] derives both).
//!
//! The steppers' generic residual `M(q) (q − q̃) − ĥ² Q` would step the chart's coordinates
//! with the chart's mass, and a spinning body would lose or gain spin to the chart's
//! curvature. Instead its rotation steps its world angular momentum, as a parametric object's
//! points step theirs ([`super::object_stiffness`]):
//!
//! ```text
//! G(θ) = ĥ J_lᵀ (I_w(θ) J_l(θ) θ̇ − L_b) − ĥ² J_lᵀ τ = ĥ² J_Cᵀ λ,    θ̇ = (θ − θ_b)/ĥ
//! ```
//!
//! `L_b` combining the past states' momenta by the stepper's weights `b_k`. The gyroscopic term
//! is in `L(θ, θ̇)` and nothing of it is left explicit; its derivative goes into the Newton
//! matrix by its symmetric part. The antisymmetric rest costs iterations where it is large,
//! never the answer. It has two parts: the gyroscopic one, `ĥ [ω]× I` in size, and the chart's
//! `½ [ĥ (L − L_b)]×` from the turn of `J_lᵀ`, which for small bodies under large joint torques
//! is many times their inertia (the 3D chain of docs/performance.md).

use crate::body::{Body, BodyKind, chart::Chart};
use crate::math::bands::Bands;
use crate::math::inverse_mass::{DenseBlock, InverseMass};
use crate::model::Model;

/// The 3D bodies among `inv_mass`'s dense blocks: each block, its body and its chart.
fn bodies<'a>(
    model: &'a Model,
    inv_mass: &'a InverseMass,
) -> impl Iterator<Item = (&'a DenseBlock, &'a Body, &'a Chart)> {
    inv_mass.blocks().iter().filter_map(|block| {
        let body = model.body(block.body);
        match &body.kind {
            BodyKind::Rigid3d { chart, .. } => Some((block, body, chart.as_ref())),
            _ => None,
        }
    })
}

/// Writes every 3D body's past momentum `L_b = Σ_k b_k L(θ_k, θ̇_k)` into `out` (three per body,
/// in the order of `inv_mass`'s blocks), for the past states `(b_k, q_k, q̇_k)`.
pub(crate) fn predict_momenta(
    model: &Model,
    inv_mass: &InverseMass,
    past: &[(f64, &[f64], &[f64])],
    out: &mut Vec<f64>,
) {
    out.clear();
    for (_, body, chart) in bodies(model, inv_mass) {
        let mut sum = [0.0; 3];
        for &(b, q, v) in past {
            let (l, _) = chart.angular_state(body.slice(q), body.slice(v));
            for k in 0..3 {
                sum[k] += b * l[k];
            }
        }
        out.extend_from_slice(&sum);
    }
}

/// Adds to `applied` (which holds `J_lᵀ τ` and no inertial terms) what makes the generic
/// momentum residual of each 3D body's rotation its `G(θ)`:
/// `−(G_L − M_θ (θ − θ̃)) / ĥ²`, `G_L = ĥ J_lᵀ (L − L_b)`, at `(q, q̇)` with the mass blocks of
/// `inv_mass` taken there, the prediction `inertial` (`θ̃`), the past momenta `past` and `ĥ = h`.
pub(crate) fn add_rotation_inertia(
    model: &Model,
    inv_mass: &InverseMass,
    (q, v): (&[f64], &[f64]),
    (inertial, past, h): (&[f64], &[f64], f64),
    applied: &mut [f64],
) {
    for (k, (block, body, chart)) in bodies(model, inv_mass).enumerate() {
        let Some(l_b) = past.get(3 * k..3 * k + 3) else {
            continue;
        };
        let g = chart.momentum_residual(body.slice(q), body.slice(v), &[l_b[0], l_b[1], l_b[2]], h);
        let o = block.offset;
        for r in 0..3 {
            let generic: f64 = (0..3)
                .map(|c| block.mass[3 * r + c] * (q[o + c] - inertial[o + c]))
                .sum();
            applied[o + r] -= (g[r] - generic) / (h * h);
        }
    }
}

/// Adds each 3D body's block `sym(∂G/∂θ) − M_θ` to `bands`, at `(q, q̇)` for the past momenta
/// `past` and `ĥ = h` (see the module docs).
pub(crate) fn rotation_stiffness(
    model: &Model,
    inv_mass: &InverseMass,
    (q, v): (&[f64], &[f64]),
    (past, h): (&[f64], f64),
    bands: &mut Bands,
) {
    for (k, (block, body, chart)) in bodies(model, inv_mass).enumerate() {
        let Some(l_b) = past.get(3 * k..3 * k + 3) else {
            continue;
        };
        let d =
            chart.residual_derivative(body.slice(q), body.slice(v), &[l_b[0], l_b[1], l_b[2]], h);
        let coordinates: Vec<usize> = (block.offset..block.offset + 3).collect();
        let out = bands.push(&coordinates, false, false);
        for r in 0..3 {
            for c in 0..3 {
                out[3 * r + c] = 0.5 * (d[r][c] + d[c][r]) - block.mass[3 * r + c];
            }
        }
    }
}
