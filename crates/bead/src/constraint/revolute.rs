//! Revolute joint: two points — usually on two rigid bodies — pinned together (seed 002's
//! joints; a pin to the world is a [`Nail`](super::Nail) on a body point).
//!
//! ```text
//! C   = x_a − x_b                   (2 rows in 2D)
//! ∂C/∂x_a = I,  ∂C/∂x_b = −I,  J̇ẋ = 0 at the point level
//! ```
//!
//! Through the points' chain rule (`x = p + R(θ) r`) each body gets `J = [I | perp(R r)]` and
//! `J̇q̇` gains `−ω² R r`: the rotation terms live in the points, not here. λ is the force the
//! joint exerts on body a, in newtons (body b feels −λ); the torques follow from the lever arms
//! and appear in each body's `Jᵀλ`.

use super::{Constraint, ConstraintError, ConstraintEval, InvalidParameter};
use crate::draw::{Canvas, Element};
use crate::point::{Operand, Point};
use crate::view::View;

/// Two points held together: a hinge.
///
/// ```
/// use bead::{constraint::Revolute, Point, RigidBody, System};
/// let mut sys = System::new(2)?;
/// let a = sys.add_rigid_body(RigidBody::new(&[0.5, 0.0], 0.0))?;
/// let b = sys.add_rigid_body(RigidBody::new(&[1.5, 0.0], 0.0))?;
/// sys.add_constraint(Revolute::new(Point::on_body(a, [0.5, 0.0]), Point::on_body(b, [-0.5, 0.0])))?;
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Revolute {
    points: [Point; 2],
}

impl Revolute {
    /// Pins `a` to `b`.
    pub fn new(a: Point, b: Point) -> Self {
        Revolute { points: [a, b] }
    }
}

impl Constraint for Revolute {
    fn rows(&self, dim: usize) -> usize {
        dim
    }

    fn operands(&self) -> Vec<Operand> {
        self.points.iter().map(|&p| p.into()).collect()
    }

    fn check(&self, _dim: usize) -> Result<(), InvalidParameter> {
        if self.points[0] == self.points[1] {
            return Err(InvalidParameter::new(
                "between",
                "a revolute joint needs two different points",
            ));
        }
        Ok(())
    }

    fn draw(&self, view: &View<'_>, canvas: &mut dyn Canvas) {
        canvas.marker(view.position(&self.points[0]), Element::Joint);
    }

    fn evaluate(&self, eval: &mut ConstraintEval<'_>) -> Result<(), ConstraintError> {
        coincide(eval);
        Ok(())
    }

    /// Linear in its operands: no geometric stiffness.
    fn linear(&self) -> bool {
        true
    }
}

/// Writes rows `0..dim`, `x₀ − x₁`, of a constraint whose operands 0 and 1 are two points that
/// coincide: a pin, and the pivots of the 3D joints.
pub(crate) fn coincide(eval: &mut ConstraintEval<'_>) {
    let dim = eval.dim();
    let mut e = [0.0; 3];
    for r in 0..dim {
        eval.set_value(r, eval.x(0)[r] - eval.x(1)[r]);
        e.fill(0.0);
        e[r] = 1.0;
        eval.set_gradient(r, 0, &e[..dim]);
        e[r] = -1.0;
        eval.set_gradient(r, 1, &e[..dim]);
    }
}
