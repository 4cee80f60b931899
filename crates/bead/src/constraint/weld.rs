//! Weld: two rigid bodies glued at a point — a revolute joint plus a held relative angle.
//!
//! ```text
//! C₀,₁ = x_a − x_b                 (points in the two bodies; see Revolute)
//! C₂   = θ_b − θ_a − θ₀            (see Angle)
//! ```
//!
//! λ₀,₁ is the force on body a (N), λ₂ the torque on body b (N·m). A weld to the world is a nail
//! on the body point plus [`Angle::to_world`](super::Angle::to_world).

use super::{Constraint, ConstraintError, ConstraintEval, InvalidParameter};
use crate::draw::{Canvas, Element};
use crate::point::{Operand, Point};
use crate::view::View;

/// Glues two rigid bodies together.
///
/// ```
/// use bead::{constraint::Weld, Point, RigidBody, System};
/// let mut sys = System::new(2)?;
/// let a = sys.add_rigid_body(RigidBody::new(&[0.0, 0.0], 0.0))?;
/// let b = sys.add_rigid_body(RigidBody::new(&[1.0, 0.0], 0.0))?;
/// sys.add_constraint(Weld::new(Point::on_body(a, [0.5, 0.0]), Point::on_body(b, [-0.5, 0.0]), 0.0))?;
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Weld {
    points: [Point; 2],
    angle: f64,
}

impl Weld {
    /// Glues point `a` (on body A) to point `b` (on body B) with `θ_b − θ_a = angle`.
    pub fn new(a: Point, b: Point, angle: f64) -> Self {
        Weld {
            points: [a, b],
            angle,
        }
    }
}

impl Constraint for Weld {
    fn rows(&self, _dim: usize) -> usize {
        3
    }

    fn operands(&self) -> Vec<Operand> {
        let [a, b] = self.points;
        vec![
            a.into(),
            b.into(),
            Operand::Coordinates(a.body()),
            Operand::Coordinates(b.body()),
        ]
    }

    fn check(&self, dim: usize) -> Result<(), InvalidParameter> {
        let both_on_bodies = self
            .points
            .iter()
            .all(|p| matches!(p, Point::OnBody { .. }));
        if !both_on_bodies || self.points[0].body() == self.points[1].body() {
            return Err(InvalidParameter::new(
                "between",
                "a weld joins points of two different rigid bodies",
            ));
        }
        super::check_rigid_pair(
            dim,
            self.points[0].body(),
            Some(self.points[1].body()),
            "between",
        )?;
        InvalidParameter::check_finite("angle", self.angle)
    }

    fn draw(&self, view: &View<'_>, canvas: &mut dyn Canvas) {
        canvas.marker(view.position(&self.points[0]), Element::Joint);
    }

    fn evaluate(&self, eval: &mut ConstraintEval<'_>) -> Result<(), ConstraintError> {
        for r in 0..2 {
            eval.set_value(r, eval.x(0)[r] - eval.x(1)[r]);
            let mut e = [0.0; 2];
            e[r] = 1.0;
            eval.set_gradient(r, 0, &e);
            e[r] = -1.0;
            eval.set_gradient(r, 1, &e);
        }
        eval.set_value(2, eval.x(3)[2] - eval.x(2)[2] - self.angle);
        eval.set_gradient(2, 2, &[0.0, 0.0, -1.0]);
        eval.set_gradient(2, 3, &[0.0, 0.0, 1.0]);
        Ok(())
    }
}
