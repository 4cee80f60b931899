//! A circle fixed in one body (a cylinder's rim) against a plane fixed in another: the plane's
//! distance from the circle's lowest point, less the radii,
//!
//! ```text
//! g = n̂·(x_c − x_f) − ρ √(1 − (n̂·û)²) − (r_a + r_b),
//!     n̂ = (x_n − x_f)/|x_n − x_f|,  û = (x_t − x_c)/|x_t − x_c|
//! ```
//!
//! with `x_c` the circle's centre and `x_t` the point one metre along its axis (both in a), `x_f`
//! a point of the plane and `x_n` one metre along its outward normal (both in b). The circle's
//! lowest point, `x_c − ρ (n̂ − (n̂·û) û)/√(1 − (n̂·û)²)`, is no point of a: it runs round the rim
//! as a rolls, so the gap is exact for a cylinder rolling on its side, a coin rolling on its
//! edge, and a can tipped on its rim, as they roll and turn. It has no lowest point where the
//! circle lies flat on the plane (`n̂·û = ±1`) and bends sharply near it, so the narrow phase
//! holds a rim that nearly lies flat by points fixed on it instead. Its derivatives come by dual
//! numbers through the one formula, as [`super::rim`]'s do.

use super::sub3;
use crate::constraint::ConstraintError;
use crate::math::rotation::{Real, dot};

/// The height of the circle's lowest point over the plane: `x` holds the circle's centre, the
/// plane's point, the point along the plane's normal and the point along the circle's axis.
pub(super) fn height<D: Real>(x: &[[D; 3]; 4], rho: f64) -> D {
    let (n, u) = (unit(sub3(&x[2], &x[1])), unit(sub3(&x[3], &x[0])));
    let tilt = dot(&n, &u);
    // The tilt's sine as the length of n's part across u, never the root of a negative.
    let across: [D; 3] = std::array::from_fn(|k| n[k] - tilt * u[k]);
    dot(&n, &sub3(&x[0], &x[1])) - D::from(rho) * dot(&across, &across).sqrt()
}

/// The circle's lowest point towards the plane (world), or `None` where it lies flat.
pub(super) fn lowest(x: &[[f64; 3]; 4], rho: f64) -> Option<[f64; 3]> {
    let (n, u) = (unit(sub3(&x[2], &x[1])), unit(sub3(&x[3], &x[0])));
    let tilt = dot(&n, &u);
    let across: [f64; 3] = std::array::from_fn(|k| n[k] - tilt * u[k]);
    let s = dot(&across, &across).sqrt();
    (s > 0.0).then(|| std::array::from_fn(|k| x[0][k] - rho * across[k] / s))
}

/// `d` over its length, in any scalar.
fn unit<D: Real>(d: [D; 3]) -> [D; 3] {
    let len = dot(&d, &d).sqrt();
    d.map(|c| c / len)
}

/// The height and its gradient on the four points, or an error where the circle lies flat on
/// the plane (no lowest point).
pub(super) fn rows(x: &[[f64; 3]; 4], rho: f64) -> Result<(f64, [[f64; 3]; 4]), ConstraintError> {
    if lowest(x, rho).is_none() {
        return Err(ConstraintError::new(
            "the circle lies flat on the plane it touches: it has no lowest point",
        ));
    }
    let gradient = super::gradient::seeded(x, |at| height(at, rho));
    Ok((height(x, rho), gradient))
}

/// `J̇ẋ` of the height: its second derivative along the velocities `v`.
pub(super) fn curvature(x: &[[f64; 3]; 4], v: &[[f64; 3]; 4], rho: f64) -> f64 {
    let moving = super::gradient::moving(x, v);
    height(&moving, rho).v2
}
