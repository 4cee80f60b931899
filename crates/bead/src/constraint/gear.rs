//! Gear: two rigid bodies turning together, `r_a θ_a + r_b θ_b = const`.
//!
//! ```text
//! C   = r_a θ_a + r_b θ_b − c       ∂C/∂q_a = [0, 0, r_a],  ∂C/∂q_b = [0, 0, r_b],  J̇q̇ = 0
//! ```
//!
//! With positive radii the gears turn in opposite directions (external mesh), `ω_b = −(r_a/r_b) ω_a`;
//! give one radius negative for an internal mesh or a belt. λ is the tooth force in newtons: the
//! torques are `r_a λ` on a and `r_b λ` on b.

use super::{Constraint, ConstraintError, ConstraintEval};
use crate::body::BodyId;
use crate::point::Operand;

/// Couples two rotations like meshing gears.
///
/// ```
/// use bead::{constraint::Gear, RigidBody, System};
/// let mut sys = System::new(2)?;
/// let a = sys.add_rigid_body(RigidBody::new(&[0.0, 0.0], 0.0))?;
/// let b = sys.add_rigid_body(RigidBody::new(&[0.3, 0.0], 0.0))?;
/// sys.add_constraint(Gear::new(a, b, 0.1, 0.2, 0.0))?;
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Gear {
    bodies: [BodyId; 2],
    radii: [f64; 2],
    constant: f64,
}

impl Gear {
    /// Gears of pitch radii `r_a`, `r_b` (m) holding `r_a θ_a + r_b θ_b = constant` (m).
    pub fn new(
        a: impl Into<BodyId>,
        b: impl Into<BodyId>,
        r_a: f64,
        r_b: f64,
        constant: f64,
    ) -> Self {
        Gear {
            bodies: [a.into(), b.into()],
            radii: [r_a, r_b],
            constant,
        }
    }
}

impl Constraint for Gear {
    fn rows(&self, _dim: usize) -> usize {
        1
    }

    fn operands(&self) -> Vec<Operand> {
        self.bodies
            .iter()
            .map(|&b| Operand::Coordinates(b))
            .collect()
    }

    fn check(&self, dim: usize) -> Result<(), String> {
        super::check_rigid_pair(
            dim,
            self.bodies[0],
            Some(self.bodies[1]),
            self.constant,
            "gear constant",
        )?;
        if self.radii.iter().any(|r| *r == 0.0 || !r.is_finite()) {
            return Err(format!(
                "gear radii must be non-zero and finite, got {:?}",
                self.radii
            ));
        }
        Ok(())
    }

    fn evaluate(&self, eval: &mut ConstraintEval<'_>) -> Result<(), ConstraintError> {
        let [ra, rb] = self.radii;
        eval.set_value(0, ra * eval.x(0)[2] + rb * eval.x(1)[2] - self.constant);
        eval.set_gradient(0, 0, &[0.0, 0.0, ra]);
        eval.set_gradient(0, 1, &[0.0, 0.0, rb]);
        Ok(())
    }
}
