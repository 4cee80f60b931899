//! The residuals the Newton iteration of the implicit steppers drives to zero, and how they are
//! measured: the momentum balance `F₁ = M (q − q̃) − Jᵀμ`, measured as the displacement `W F₁`
//! (metres), and each row's `(J W Jᵀ)_rr`, which turns a row's gap into a multiplier and back.

use super::work::Work;
use crate::integrate::ConstrainedModel;
use crate::math::inverse_mass::InverseMass;
use crate::math::vector::max_abs;

/// `F₁ = M (q − q̃) − Jᵀμ` into `w.momentum` (0 where nothing moves), from `w.force = Jᵀμ`;
/// `w.scratch` is scratch.
pub(super) fn momentum_residual(inv_mass: &InverseMass, q: &[f64], w: &mut Work) {
    for ((d, qi), p) in w.scratch.iter_mut().zip(q).zip(&w.predicted) {
        *d = qi - p;
    }
    inv_mass.apply_mass(&w.scratch, &mut w.momentum);
    for (i, (r, f)) in w.momentum.iter_mut().zip(&w.force).enumerate() {
        *r = if inv_mass.movable(i) { *r - f } else { 0.0 };
    }
}

/// [`momentum_residual`], and how large it is: `(max |W F₁|, max |W Jᵀμ|)`, in metres.
pub(super) fn measured_momentum_residual(
    inv_mass: &InverseMass,
    q: &[f64],
    w: &mut Work,
) -> (f64, f64) {
    if inv_mass.blocks().is_empty() {
        // A diagonal W: one pass, in the arithmetic of the general one below.
        let mut lanes = [[0.0_f64; 2]; 4];
        let rows = w
            .momentum
            .iter_mut()
            .zip(&w.force)
            .zip(q.iter().zip(&w.predicted));
        for (i, ((r, f), (qi, p))) in rows.enumerate() {
            let wi = inv_mass.diagonal()[i];
            *r = if wi > 0.0 { (qi - p) / wi - f } else { 0.0 };
            let lane = &mut lanes[i % 4];
            lane[0] = lane[0].max((wi * *r).abs());
            lane[1] = lane[1].max((wi * f).abs());
        }
        return lanes
            .iter()
            .fold((0.0, 0.0), |(m, c), l| (l[0].max(m), l[1].max(c)));
    }
    momentum_residual(inv_mass, q, w);
    inv_mass.apply(&w.momentum, &mut w.scratch);
    let momentum = max_abs(&w.scratch);
    inv_mass.apply(&w.force, &mut w.scratch);
    (momentum, max_abs(&w.scratch))
}

/// Writes each row's `(J W Jᵀ)_rr` into `mass`.
pub(super) fn row_masses(model: &dyn ConstrainedModel, mass: &mut [f64]) {
    mass.fill(0.0);
    let (j, inv_mass) = (model.jacobian(), model.inv_mass());
    for block in j.blocks() {
        let values = &j.values()[block.offset..block.offset + block.nrows * block.ncols];
        for r in 0..block.nrows {
            let row = &values[r * block.ncols..(r + 1) * block.ncols];
            mass[block.row + r] += inv_mass.weighted_dot(block.col, row, row);
        }
    }
}
