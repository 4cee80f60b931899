//! The residuals the Newton iteration of the implicit steppers drives to zero, and how they are
//! measured: the momentum balance `F₁ = M (q − q̃) − ĥ² Q − Jᵀμ`, measured as the displacement `W F₁`
//! (metres), and each row's `(J W Jᵀ)_rr`, which turns a row's gap into a multiplier and back.

use super::work::Work;
use crate::integrate::ConstrainedModel;
use crate::math::inverse_mass::InverseMass;
use crate::math::vector::max_abs;

/// `F₁ = M (q − q̃) − ĥ² Q − Jᵀμ` into `w.momentum` (0 where nothing moves), from
/// `w.force = ĥ² Q + Jᵀμ` and the inertial prediction `q̃`;
/// `w.scratch` is scratch.
pub(super) fn momentum_residual(inv_mass: &InverseMass, q: &[f64], w: &mut Work) {
    for ((d, qi), p) in w.scratch.iter_mut().zip(q).zip(&w.inertial) {
        *d = qi - p;
    }
    inv_mass.apply_mass(&w.scratch, &mut w.momentum);
    for (i, (r, f)) in w.momentum.iter_mut().zip(&w.force).enumerate() {
        *r = if inv_mass.movable(i) { *r - f } else { 0.0 };
    }
}

/// [`momentum_residual`], and how large it is: `(max |W F₁|, max |W Jᵀμ|, floor)`, in
/// metres, with `floor` what the rounding of its terms leaves of `W F₁` on the coordinates of
/// dense mass blocks: `4 ε |W| (|M| |q − q̃| + |ĥ² Q + Jᵀμ| + ĥ² |Q|)`. A parametric object
/// whose mass is nearly singular (a light link) amplifies that rounding by `|W|`, a million
/// times on a two-link chain whose first link weighs 1 g and is 1 mm long. (A diagonal `W`
/// amplifies nothing: 0.)
pub(super) fn measured_momentum_residual(
    inv_mass: &InverseMass,
    q: &[f64],
    w: &mut Work,
    h2: f64,
) -> (f64, f64, f64) {
    if inv_mass.blocks().is_empty() {
        // A diagonal W: one pass, in the arithmetic of the general one below.
        let mut lanes = [[0.0_f64; 2]; 4];
        let rows = w
            .momentum
            .iter_mut()
            .zip(w.force.iter().zip(&w.applied_force))
            .zip(q.iter().zip(&w.inertial));
        for (i, ((r, (f, applied)), (qi, p))) in rows.enumerate() {
            let wi = inv_mass.diagonal()[i];
            *r = if wi > 0.0 { (qi - p) / wi - f } else { 0.0 };
            let lane = &mut lanes[i % 4];
            lane[0] = lane[0].max((wi * *r).abs());
            // The constraints' own part, Jᵀμ.
            lane[1] = lane[1].max((wi * (f - h2 * applied)).abs());
        }
        let (momentum, correction) = lanes
            .iter()
            .fold((0.0, 0.0), |(m, c), l| (l[0].max(m), l[1].max(c)));
        return (momentum, correction, 0.0);
    }
    momentum_residual(inv_mass, q, w);
    inv_mass.apply(&w.momentum, &mut w.scratch);
    let momentum = max_abs(&w.scratch);
    let mut floor = 0.0_f64;
    let mut terms = Vec::new();
    for b in inv_mass.blocks() {
        let range = b.offset..b.offset + b.n;
        terms.clear();
        terms.extend(range.clone().map(|i| {
            // The rounding of the difference q − q̃ itself is `M δq` with `δq ≈ ε |q|`, which
            // `W` maps back to `δq`: the floor on `|q|` covers it. What `|W|` amplifies is the
            // rounding of the products and the forces.
            let inertia: f64 = (0..b.n)
                .map(|c| {
                    let d = q[b.offset + c] - w.inertial[b.offset + c];
                    (b.mass[(i - b.offset) * b.n + c] * d).abs()
                })
                .sum();
            inertia + w.force[i].abs() + h2 * w.applied_force[i].abs()
        }));
        for r in 0..b.n {
            let row: f64 = (0..b.n)
                .map(|c| b.inverse[r * b.n + c].abs() * terms[c])
                .sum();
            floor = floor.max(row);
        }
    }
    for ((s, f), applied) in w.scratch.iter_mut().zip(&w.force).zip(&w.applied_force) {
        *s = f - h2 * applied;
    }
    inv_mass.apply_in_place(&mut w.scratch);
    (momentum, max_abs(&w.scratch), 4.0 * f64::EPSILON * floor)
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

/// The momentum residual allowed (metres), and the rows' error allowed where that is below the
/// tolerance: `relative` of the displacement the forces make in the step (`forces`: the
/// constraints' `W Jᵀμ` or the applied forces' `ĥ² W Q`, whichever is larger); never below what
/// rounding leaves of the positions, `4 ε |q|∞`, amplified by the forces' stiffness against
/// the mass (`stiffness`, see [`ConstrainedModel::stiffness_ratio`]): a spring of 1e7 N/m on
/// 1 kg at `h` = 1 ms turns the rounding of a position of 1 m into 2e-15 m of residual.
///
/// Not an absolute length: a force moves the state by only `ĥ² W f` in a step, so a residual
/// of fixed size (say 1e-10 m) is an error of `m · 1e-10 / ĥ²` newtons in λ, which at
/// `h = 1e-6` is larger than the pendulum rod's own force. At `h = 1e-6` on a 1 m pendulum the
/// rounding floor, not the relative measure, decides: λ then comes out within about 1e-3 N.
pub(super) fn momentum_tolerance(relative: f64, forces: f64, q: &[f64], stiffness: f64) -> f64 {
    let rounding = 4.0 * f64::EPSILON * max_abs(q) * (1.0 + stiffness);
    (relative * forces).max(rounding)
}

/// The rows' residuals into `w.residual`: `C` (`g` for an inequality), or a velocity row's
/// `J (q − q_b) + ĥ ∂C/∂t` (see [`Targets`](crate::solve::Targets)). Sized here to the model's
/// rows: a failure's report reads them before any Newton iteration has begun.
pub(super) fn row_residuals(
    model: &dyn ConstrainedModel,
    w: &mut Work,
    q: &[f64],
    q_base: &[f64],
    h: f64,
) {
    w.residual.resize(model.values().len(), 0.0);
    if w.velocity_rows {
        for i in 0..q.len() {
            w.force[i] = q[i] - q_base[i];
        }
        model.jacobian().mul(&w.force, &mut w.residual);
    }
    let targets = crate::solve::Targets::new(model.velocity_rows());
    let (c, c_t) = (model.values(), model.time_derivatives());
    for r in 0..c.len() {
        w.residual[r] = targets.position(r, c[r], w.residual[r], c_t[r], h);
    }
}
