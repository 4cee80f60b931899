//! On-circle: a bead on a circular wire whose centre may move (seed 000 §2, seed 001).
//!
//! In 2D one row, seed 001's implicit form with a unit gradient (see [`OnSphere`](super::OnSphere)
//! for C, Ċ, J̇ẋ):
//!
//! ```text
//! C₀ = |x − c(t)| − r
//! ```
//!
//! In 3D a circle is a sphere cut by the plane of the circle, so a second row is added
//! (see [`OnPlane`](super::OnPlane)):
//!
//! ```text
//! C₁ = n̂·(x − c(t))
//! ```
//!
//! λ₀ is the radial force (λ₀ < 0 pulls toward the centre, as for a whirling bead) and λ₁ the
//! force along the circle's axis, both in newtons. Seed 000's `C = ½(x·x − 1)` has the same zero
//! set; its λ is λ₀ divided by |x| (see the bead-on-a-wire tests).

use super::on_plane::planar_row;
use super::on_sphere::{radial_hessian, radial_row};
use super::{Constraint, ConstraintError, ConstraintEval, InvalidParameter};
use crate::draw::{Canvas, Element};
use crate::math::vector::{Vec3, normalized};
use crate::motion::Motion;
use crate::point::{Operand, Point};
use crate::view::View;

/// Keeps a point on a circle (2D), or on a circle in a plane (3D).
///
/// ```
/// use bead::{constraint::OnCircle, Motion, Particle, System};
/// let mut sys = System::new(2)?;
/// let bead = sys.add_particle(Particle::new(&[1.0, 0.0]))?;
/// sys.add_constraint(OnCircle::new(bead, Motion::fixed(&[0.0, 0.0]), 1.0))?;
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Debug)]
pub struct OnCircle {
    point: Point,
    center: Motion,
    radius: f64,
    normal: Vec<f64>,
    unit_normal: Option<Vec3>,
}

impl OnCircle {
    /// Keeps `point` on the circle of `radius` metres about `center`; in 3D the circle lies in the
    /// x-y plane unless [`OnCircle::with_normal`] says otherwise.
    pub fn new(point: impl Into<Point>, center: Motion, radius: f64) -> Self {
        OnCircle {
            point: point.into(),
            center,
            radius,
            normal: vec![0.0, 0.0, 1.0],
            unit_normal: Some([0.0, 0.0, 1.0]),
        }
    }

    /// Sets the axis of the circle (3D only).
    pub fn with_normal(mut self, normal: &[f64]) -> Self {
        self.unit_normal = normalized(normal);
        self.normal = normal.to_vec();
        self
    }
}

impl Constraint for OnCircle {
    fn rows(&self, dim: usize) -> usize {
        dim - 1
    }

    fn operands(&self) -> Vec<Operand> {
        vec![self.point.into()]
    }

    fn check(&self, dim: usize) -> Result<(), InvalidParameter> {
        super::check_location("center", &self.center, dim)?;
        InvalidParameter::check_positive("radius", self.radius)?;
        // In 2D the circle lies in the plane: the normal is +z whatever was given.
        if dim == 3 {
            InvalidParameter::check_direction("normal", &self.normal, dim)?;
        }
        Ok(())
    }

    fn draw(&self, view: &View<'_>, canvas: &mut dyn Canvas) {
        let normal = self.unit_normal.unwrap_or([0.0, 0.0, 1.0]);
        canvas.circle(
            self.center.sample(view.time()).position,
            self.radius,
            normal,
            Element::Wire,
        );
    }

    fn evaluate(&self, eval: &mut ConstraintEval<'_>) -> Result<(), ConstraintError> {
        let center = self.center.sample(eval.time());
        radial_row(eval, 0, &center, self.radius)?;
        if eval.dim() == 3 {
            let n = self
                .unit_normal
                .ok_or_else(|| ConstraintError::new("circle normal has zero length"))?;
            planar_row(eval, 1, &n, &center);
        }
        Ok(())
    }

    /// The radial row is curved; the plane row (3D) is linear.
    fn weighted_hessian(
        &self,
        at: &super::HessianEval<'_>,
        weights: &[f64],
        hessian: &mut [f64],
    ) -> Result<(), ConstraintError> {
        radial_hessian(at, &self.center.sample(at.time()), weights[0], hessian)
    }
}
