//! A constant force at a point: `f` fixed; potential `V = −f·x` (so energy checks include it).

use super::{Force, ForceContext, InvalidParameter};
use crate::draw::{Canvas, Element};
use crate::math::vector::{Vec3, dot, to_vec3};
use crate::point::Point;
use crate::view::View;

/// A constant world force applied at one point.
///
/// ```
/// use bead::{force::ConstantForce, Particle, System};
/// let mut sys = System::new(2)?;
/// let p = sys.add_particle(Particle::new(&[0.0, 0.0]))?;
/// sys.add_force(ConstantForce::new(p, &[2.0, -1.0]))?;
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Debug)]
pub struct ConstantForce {
    point: Point,
    force: Vec3,
    len: usize,
}

impl ConstantForce {
    /// A force of `force` newtons at `point`.
    pub fn new(point: impl Into<Point>, force: &[f64]) -> Self {
        ConstantForce {
            point: point.into(),
            force: to_vec3(force),
            len: force.len(),
        }
    }
}

impl Force for ConstantForce {
    fn apply(&self, ctx: &mut ForceContext<'_>) {
        ctx.add_force(&self.point, &self.force);
    }

    fn varies(&self) -> bool {
        // At a particle the generalized force is the force; at a body's point its lever arm
        // turns with the body.
        !matches!(self.point, Point::Particle(_))
    }

    fn potential_energy(&self, view: &View<'_>) -> f64 {
        -dot(&self.force, &view.position(&self.point))
    }

    fn draw(&self, view: &View<'_>, canvas: &mut dyn Canvas) {
        canvas.arrow(view.position(&self.point), self.force, Element::Force);
    }

    fn points(&self) -> Vec<Point> {
        vec![self.point]
    }

    fn check(&self, dim: usize) -> Result<(), InvalidParameter> {
        InvalidParameter::check_vector("force", &self.force[..self.len], dim)
    }
}
