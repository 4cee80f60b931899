//! Half-plane: a point (a ball of radius r) stays on one side of a line or plane through a
//! (possibly moving) point.
//!
//! ```text
//! g = n̂·(x − p(t)) − r ≥ 0     ∂g/∂x = n̂ᵀ,  ∂g/∂t = −n̂·ṗ,  J̇ẋ = −n̂·p̈   (see OnPlane)
//! ```
//!
//! λ ≥ 0 is the normal force in newtons.

use super::on_plane::planar_row;
use super::{Constraint, ConstraintError, ConstraintEval, ConstraintKind, InvalidParameter};
use crate::draw::{Canvas, Element};
use crate::math::vector::{Vec3, normalized};
use crate::motion::Motion;
use crate::point::{Operand, Point};
use crate::view::View;

/// A floor or a wall: `n̂·(x − through) ≥ radius`.
///
/// ```
/// use bead::{constraint::HalfPlane, Motion, Particle, System};
/// let mut sys = System::new(2)?;
/// let ball = sys.add_particle(Particle::new(&[0.0, 0.1]).radius(0.1))?;
/// sys.add_constraint(HalfPlane::new(ball, Motion::fixed(&[0.0, 0.0]), &[0.0, 1.0], 0.1))?;
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Debug)]
pub struct HalfPlane {
    point: Point,
    through: Motion,
    normal: Vec<f64>,
    unit_normal: Option<Vec3>,
    radius: f64,
}

impl HalfPlane {
    /// Keeps `point` at least `radius` metres on the side of `normal` of the plane through `through`.
    pub fn new(point: impl Into<Point>, through: Motion, normal: &[f64], radius: f64) -> Self {
        HalfPlane {
            point: point.into(),
            through,
            normal: normal.to_vec(),
            unit_normal: normalized(normal),
            radius,
        }
    }
}

impl Constraint for HalfPlane {
    fn rows(&self, _dim: usize) -> usize {
        1
    }

    fn operands(&self) -> Vec<Operand> {
        vec![self.point.into()]
    }

    fn kind(&self) -> ConstraintKind {
        ConstraintKind::Inequality
    }

    fn check(&self, dim: usize) -> Result<(), InvalidParameter> {
        super::check_location("through", &self.through, dim)?;
        InvalidParameter::check_direction("normal", &self.normal, dim)?;
        InvalidParameter::check_non_negative("radius", self.radius)
    }

    fn draw(&self, view: &View<'_>, canvas: &mut dyn Canvas) {
        let Some(n) = self.unit_normal else { return };
        let p = self.through.sample(view.time()).position;
        let t = [-n[1], n[0], 0.0];
        let end = |k: f64| std::array::from_fn(|i| p[i] + k * t[i]);
        canvas.line(end(-100.0), end(100.0), Element::Wire);
    }

    fn evaluate(&self, eval: &mut ConstraintEval<'_>) -> Result<(), ConstraintError> {
        let n = self
            .unit_normal
            .ok_or_else(|| ConstraintError::new("half-plane normal has zero length"))?;
        let through = self.through.sample(eval.time());
        planar_row(eval, 0, &n, &through);
        let g = crate::math::vector::dot(
            &n,
            &crate::math::vector::sub(eval.x(0), &through.position[..eval.dim()]),
        ) - self.radius;
        eval.set_value(0, g);
        Ok(())
    }

    /// Linear in its operands: no geometric stiffness.
    fn linear(&self) -> bool {
        true
    }
}
