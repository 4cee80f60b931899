//! Angle: the relative angle of two rigid bodies held fixed (or one body's angle, against the
//! world).
//!
//! ```text
//! C   = θ_b − θ_a − θ₀          (world: C = θ_a − θ₀)
//! ∂C/∂q_a = [0, 0, −1],  ∂C/∂q_b = [0, 0, 1],  J̇q̇ = 0
//! ```
//!
//! λ is the torque on body b, in N·m (body a feels −λ; against the world, λ is body a's torque).

use super::{Constraint, ConstraintError, ConstraintEval, InvalidParameter};
use crate::body::BodyId;
use crate::point::Operand;

/// Holds a relative angle.
///
/// ```
/// use bead::{constraint::Angle, RigidBody, System};
/// let mut sys = System::new(2)?;
/// let a = sys.add_rigid_body(RigidBody::new(&[0.0, 0.0], 0.3))?;
/// sys.add_constraint(Angle::to_world(a, 0.3))?; // never turns
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Angle {
    a: BodyId,
    b: Option<BodyId>,
    angle: f64,
}

impl Angle {
    /// Holds `θ_b − θ_a = angle` (radians).
    pub fn new(a: impl Into<BodyId>, b: impl Into<BodyId>, angle: f64) -> Self {
        Angle {
            a: a.into(),
            b: Some(b.into()),
            angle,
        }
    }

    /// Holds `θ_a = angle` (radians).
    pub fn to_world(a: impl Into<BodyId>, angle: f64) -> Self {
        Angle {
            a: a.into(),
            b: None,
            angle,
        }
    }
}

impl Constraint for Angle {
    fn rows(&self, _dim: usize) -> usize {
        1
    }

    fn operands(&self) -> Vec<Operand> {
        super::body_operands(self.a, self.b)
    }

    fn check(&self, dim: usize) -> Result<(), InvalidParameter> {
        super::check_rigid_pair(dim, self.a, self.b, "between")?;
        InvalidParameter::check_finite("angle", self.angle)
    }

    fn evaluate(&self, eval: &mut ConstraintEval<'_>) -> Result<(), ConstraintError> {
        match self.b {
            Some(_) => {
                eval.set_value(0, eval.x(1)[2] - eval.x(0)[2] - self.angle);
                eval.set_gradient(0, 0, &[0.0, 0.0, -1.0]);
                eval.set_gradient(0, 1, &[0.0, 0.0, 1.0]);
            }
            None => {
                eval.set_value(0, eval.x(0)[2] - self.angle);
                eval.set_gradient(0, 0, &[0.0, 0.0, 1.0]);
            }
        }
        Ok(())
    }

    /// Linear in its operands: no geometric stiffness.
    fn linear(&self) -> bool {
        true
    }
}
