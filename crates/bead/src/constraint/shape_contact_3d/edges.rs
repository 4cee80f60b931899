//! Two lines crossing, an edge of each body (two boxes' edges, two capsules' axes, a cylinder's
//! axis and a box's edge): their signed distance along the common normal, with its gradient by
//! hand and its curvature by dual numbers.

use super::sub3;
use crate::constraint::ConstraintError;
use crate::math::rotation::{Real, cross, dot};

/// The signed distance of the line through `x[0]`, `x[1]` from the line through `x[2]`, `x[3]`
/// along their common normal `(x₁ − x₀) × (x₃ − x₂)`.
fn distance<D: Real>(x: &[[D; 3]; 4]) -> D {
    let c = cross(&sub3(&x[1], &x[0]), &sub3(&x[3], &x[2]));
    dot(&c, &sub3(&x[0], &x[2])) / dot(&c, &c).sqrt()
}

/// [`distance`] and its gradient on the four points, by hand: with `c = u × w`,
/// `n = c/|c|`, `d = x₀ − x₂` and `d⊥ = d − (n·d) n`, `∂g/∂u = w × d⊥/|c|` and
/// `∂g/∂w = d⊥ × u/|c|`.
pub(super) struct EdgeRows {
    /// The lines' signed distance, m.
    pub(super) value: f64,
    /// Its gradient on the four points.
    pub(super) gradient: [[f64; 3]; 4],
}

/// [`distance`] and its gradient at `x`, or an error where the lines are parallel.
pub(super) fn rows(x: &[[f64; 3]; 4]) -> Result<EdgeRows, ConstraintError> {
    let (u, w) = (sub3(&x[1], &x[0]), sub3(&x[3], &x[2]));
    let c = cross(&u, &w);
    let len = dot(&c, &c).sqrt();
    if !(len > 0.0) {
        return Err(ConstraintError::new(
            "the two edges became parallel: they have no common normal",
        ));
    }
    let n = c.map(|v| v / len);
    let d = sub3(&x[0], &x[2]);
    let along = dot(&n, &d);
    let off = [0, 1, 2].map(|k| d[k] - along * n[k]);
    let du = cross(&w, &off).map(|v| v / len);
    let dw = cross(&off, &u).map(|v| v / len);
    Ok(EdgeRows {
        value: along,
        gradient: [
            [0, 1, 2].map(|k| n[k] - du[k]),
            du,
            [0, 1, 2].map(|k| -n[k] - dw[k]),
            dw,
        ],
    })
}

/// `J̇ẋ` of [`distance`] along the velocities `v`.
pub(super) fn curvature(x: &[[f64; 3]; 4], v: &[[f64; 3]; 4]) -> f64 {
    let moving = super::gradient::moving(x, v);
    distance(&moving).v2
}
