//! Joint limit: the relative angle of two rigid bodies kept within `[min, max]`, two inequality
//! rows through the contact machinery (seed 004).
//!
//! ```text
//! g₀ = (θ_b − θ_a) − min ≥ 0,   g₁ = max − (θ_b − θ_a) ≥ 0     (world: θ_a alone)
//! ```
//!
//! λ ≥ 0 is the stop's torque on body b (N·m).

use super::{Constraint, ConstraintError, ConstraintEval, ConstraintKind, InvalidParameter};
use crate::body::BodyId;
use crate::point::Operand;

/// Limits a relative angle.
///
/// ```
/// use bead::{constraint::AngleLimit, RigidBody, System};
/// let mut sys = System::new(2)?;
/// let arm = sys.add_rigid_body(RigidBody::new(&[0.0, 0.0], 0.0))?;
/// sys.add_constraint(AngleLimit::to_world(arm, -0.5, 0.5))?;
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Debug)]
pub struct AngleLimit {
    a: BodyId,
    b: Option<BodyId>,
    range: [f64; 2],
}

impl AngleLimit {
    /// `min ≤ θ_b − θ_a ≤ max` (radians).
    pub fn new(a: impl Into<BodyId>, b: impl Into<BodyId>, min: f64, max: f64) -> Self {
        AngleLimit {
            a: a.into(),
            b: Some(b.into()),
            range: [min, max],
        }
    }

    /// `min ≤ θ_a ≤ max` (radians).
    pub fn to_world(a: impl Into<BodyId>, min: f64, max: f64) -> Self {
        AngleLimit {
            a: a.into(),
            b: None,
            range: [min, max],
        }
    }
}

impl Constraint for AngleLimit {
    fn rows(&self, _dim: usize) -> usize {
        2
    }

    fn operands(&self) -> Vec<Operand> {
        super::body_operands(self.a, self.b)
    }

    fn kind(&self) -> ConstraintKind {
        ConstraintKind::Inequality
    }

    fn check(&self, dim: usize) -> Result<(), InvalidParameter> {
        super::check_rigid_pair(dim, self.a, self.b, "between")?;
        InvalidParameter::check_range(self.range)
    }

    fn evaluate(&self, eval: &mut ConstraintEval<'_>) -> Result<(), ConstraintError> {
        let (angle, grads): (f64, &[(usize, f64)]) = match self.b {
            Some(_) => (eval.x(1)[2] - eval.x(0)[2], &[(0, -1.0), (1, 1.0)]),
            None => (eval.x(0)[2], &[(0, 1.0)]),
        };
        for (row, sign, bound) in [(0, 1.0, self.range[0]), (1, -1.0, self.range[1])] {
            eval.set_value(row, sign * (angle - bound));
            for &(op, g) in grads {
                eval.set_gradient(row, op, &[0.0, 0.0, sign * g]);
            }
        }
        Ok(())
    }
}
