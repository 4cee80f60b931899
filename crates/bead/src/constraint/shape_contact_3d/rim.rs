//! A point against a circle fixed in another body, a bowl's rim: the distance from the point to
//! the circle, less the radii,
//!
//! ```text
//! g = √((|p⊥| − ρ)² + (p·û)²) − (r_a + r_b),   p = x_a − x_c,  û = (x_t − x_c)/|x_t − x_c|
//! ```
//!
//! with `x_c` the circle's centre and `x_t` the point one metre along its axis, both fixed in
//! b, and `p⊥ = p − (p·û) û`. It is exact as the point moves round the rim and as b turns; its
//! derivatives come by dual numbers through the one formula (a rim contact is rare and small,
//! and the closed form of the circle's nearest point moving with b is long).

use super::sub3;
use crate::constraint::ConstraintError;
use crate::math::rotation::{Real, dot};

/// The distance from `x[0]` to the circle of radius `rho` about `x[1]` with axis `x[2] − x[1]`.
pub(super) fn distance<D: Real>(x: &[[D; 3]; 3], rho: f64) -> D {
    let (p, u) = (sub3(&x[0], &x[1]), sub3(&x[2], &x[1]));
    let along = dot(&p, &u) / dot(&u, &u).sqrt();
    let across = (dot(&p, &p) - along * along).sqrt();
    let out = across - D::from(rho);
    (out * out + along * along).sqrt()
}

/// The unit normal from the circle's nearest point to `x[0]`, in any scalar; `None` on the
/// circle itself or on its axis.
pub(super) fn normal<D: Real>(x: &[[D; 3]; 3], rho: f64) -> Option<[D; 3]> {
    let (p, u) = (sub3(&x[0], &x[1]), sub3(&x[2], &x[1]));
    let unit_u = {
        let len = dot(&u, &u).sqrt();
        u.map(|c| c / len)
    };
    let along = dot(&p, &unit_u);
    let off: [D; 3] = std::array::from_fn(|k| p[k] - along * unit_u[k]);
    let across = dot(&off, &off).sqrt();
    if !(across.re() > 0.0) {
        return None;
    }
    let d: [D; 3] = std::array::from_fn(|k| p[k] - off[k] * D::from(rho) / across);
    let len = dot(&d, &d).sqrt();
    (len.re() > 0.0).then(|| d.map(|c| c / len))
}

/// The distance and its gradient on the three points, or an error where the point lies on the
/// circle or its axis (no normal).
pub(super) fn rows(x: &[[f64; 3]; 3], rho: f64) -> Result<(f64, [[f64; 3]; 3]), ConstraintError> {
    if normal(x, rho).is_none() {
        return Err(ConstraintError::new(
            "the point lies on the rim it touches, or on its axis: the contact has no normal",
        ));
    }
    let gradient = super::gradient::seeded(x, |at| distance(at, rho));
    Ok((distance(x, rho), gradient))
}

/// `J̇ẋ` of the distance: its second derivative along the velocities `v`.
pub(super) fn curvature(x: &[[f64; 3]; 3], v: &[[f64; 3]; 3], rho: f64) -> f64 {
    let moving = super::gradient::moving(x, v);
    distance(&moving, rho).v2
}
