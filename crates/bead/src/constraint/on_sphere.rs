//! On-sphere: a point kept at distance r from a (possibly moving) centre, in 3D.
//!
//! ```text
//! d = x − c(t),  u = d / |d|,  w = ẋ − ċ
//! C   = |d| − r                                   (seed 001's |x| − r form)
//! Ċ   = u·w                ∂C/∂x = uᵀ,  ∂C/∂t = −u·ċ
//! J̇ẋ  = (|w|² − (u·w)²)/|d| − u·c̈
//! ```
//!
//! λ is the force along the outward normal u, in newtons (λ < 0 pulls the point inward).
//! In 2D the same row is [`OnCircle`](super::OnCircle).

use super::{Constraint, ConstraintError, ConstraintEval, InvalidParameter};
use crate::draw::{Canvas, Element};
use crate::math::vector::{dot, norm, sub};
use crate::motion::{Motion, MotionSample};
use crate::point::{Operand, Point};
use crate::view::View;

/// Keeps a 3D point on a sphere.
///
/// ```
/// use bead::{constraint::OnSphere, Motion, Particle, System};
/// let mut sys = System::new(3)?;
/// let p = sys.add_particle(Particle::new(&[0.0, 0.0, -1.0]))?;
/// sys.add_constraint(OnSphere::new(p, Motion::fixed(&[0.0, 0.0, 0.0]), 1.0))?;
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Debug)]
pub struct OnSphere {
    point: Point,
    center: Motion,
    radius: f64,
}

impl OnSphere {
    /// Keeps `point` at `radius` metres from `center`.
    pub fn new(point: impl Into<Point>, center: Motion, radius: f64) -> Self {
        OnSphere {
            point: point.into(),
            center,
            radius,
        }
    }
}

impl Constraint for OnSphere {
    fn rows(&self, _dim: usize) -> usize {
        1
    }

    fn operands(&self) -> Vec<Operand> {
        vec![self.point.into()]
    }

    fn check(&self, dim: usize) -> Result<(), InvalidParameter> {
        if dim != 3 {
            return Err(InvalidParameter::new(
                "dimension",
                "on-sphere is for 3D systems; in 2D use on-circle",
            ));
        }
        super::check_location("center", &self.center, dim)?;
        InvalidParameter::check_positive("radius", self.radius)
    }

    fn draw(&self, view: &View<'_>, canvas: &mut dyn Canvas) {
        // The sphere's outline as seen from +z, and its equator.
        let center = self.center.sample(view.time()).position;
        canvas.circle(center, self.radius, [0.0, 0.0, 1.0], Element::Wire);
        canvas.circle(center, self.radius, [0.0, 1.0, 0.0], Element::Wire);
    }

    fn evaluate(&self, eval: &mut ConstraintEval<'_>) -> Result<(), ConstraintError> {
        let center = self.center.sample(eval.time());
        radial_row(eval, 0, &center, self.radius)
    }

    fn weighted_hessian(
        &self,
        at: &super::HessianEval<'_>,
        weights: &[f64],
        hessian: &mut [f64],
    ) -> Result<(), ConstraintError> {
        radial_hessian(at, &self.center.sample(at.time()), weights[0], hessian)
    }
}

/// Writes row `row` as `|x₀ − c(t)| − r` for operand 0 (shared with [`OnCircle`](super::OnCircle)).
pub(super) fn radial_row(
    eval: &mut ConstraintEval<'_>,
    row: usize,
    center: &MotionSample,
    radius: f64,
) -> Result<(), ConstraintError> {
    let dim = eval.dim();
    let d = sub(eval.x(0), &center.position[..dim]);
    let w = sub(eval.v(0), &center.velocity[..dim]);
    let len = norm(&d);
    if !(len > 0.0) {
        return Err(ConstraintError::new(
            "the point is at the centre: the normal is undefined",
        ));
    }
    let u: [f64; 3] = std::array::from_fn(|i| d[i] / len);
    let uw = dot(&u, &w);
    eval.set_value(row, len - radius);
    eval.set_gradient(row, 0, &u[..dim]);
    eval.set_time_derivative(row, -dot(&u, &center.velocity));
    eval.set_jdot_xdot(
        row,
        (dot(&w, &w) - uw * uw) / len - dot(&u, &center.acceleration),
    );
    Ok(())
}

/// Adds `w ∂²C/∂x₀²` of [`radial_row`] into `hessian` (operand 0's block): `w (I − u uᵀ) / |d|`.
pub(super) fn radial_hessian(
    at: &super::HessianEval<'_>,
    center: &MotionSample,
    weight: f64,
    hessian: &mut [f64],
) -> Result<(), ConstraintError> {
    let dim = at.dim();
    let n = at.len();
    let d = sub(at.x(0), &center.position[..dim]);
    let len = norm(&d);
    if !(len > 0.0) {
        return Err(ConstraintError::new(
            "the point is at the centre: the normal is undefined",
        ));
    }
    for i in 0..dim {
        for j in 0..dim {
            let identity = if i == j { 1.0 } else { 0.0 };
            hessian[i * n + j] += weight * (identity - d[i] * d[j] / (len * len)) / len;
        }
    }
    Ok(())
}
