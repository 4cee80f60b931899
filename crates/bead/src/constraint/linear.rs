//! Linear inequality `g = a·x + b ≥ 0` on a point — seed 004's own form (fig. 1:
//! `g₁ = x − y`, `g₂ = y`).
//!
//! ```text
//! g = a·x + b          ∂g/∂x = aᵀ,  J̇ẋ = 0
//! ```
//!
//! The gradient is `a` as given, not normalized, so that λ matches the paper's numbers (the force
//! is `λ a`; with a unit `a`, λ is in newtons).

use super::{Constraint, ConstraintError, ConstraintEval, ConstraintKind, InvalidParameter};
use crate::math::vector::dot;
use crate::point::{Operand, Point};

/// `a·x + b ≥ 0` for a point.
///
/// ```
/// use bead::{constraint::Linear, Particle, System};
/// let mut sys = System::new(2)?;
/// let p = sys.add_particle(Particle::new(&[0.0, 0.0]))?;
/// sys.add_constraint(Linear::new(p, &[0.0, 1.0], 0.0))?; // y ≥ 0
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Linear {
    point: Point,
    a: Vec<f64>,
    b: f64,
}

impl Linear {
    /// `a·x + b ≥ 0`.
    pub fn new(point: impl Into<Point>, a: &[f64], b: f64) -> Self {
        Linear {
            point: point.into(),
            a: a.to_vec(),
            b,
        }
    }
}

impl Constraint for Linear {
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
        InvalidParameter::check_non_zero("a", &self.a, dim)?;
        InvalidParameter::check_finite("b", self.b)
    }

    fn evaluate(&self, eval: &mut ConstraintEval<'_>) -> Result<(), ConstraintError> {
        eval.set_value(0, dot(&self.a, eval.x(0)) + self.b);
        eval.set_gradient(0, 0, &self.a);
        Ok(())
    }

    /// Linear in its operands: no geometric stiffness.
    fn linear(&self) -> bool {
        true
    }
}
