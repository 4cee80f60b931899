//! Non-penetration of two balls, and the rope (a maximum distance): the two inequality forms of
//! the distance constraint.
//!
//! ```text
//! non-penetration   g = |x₁ − x₂| − (r₁ + r₂) ≥ 0
//! rope              g = L − |x₁ − x₂| ≥ 0
//! ```
//!
//! with the derivatives of [`Distance`](super::Distance) (signs flipped for the rope). λ ≥ 0 is the
//! contact force (the rope's tension), in newtons. Under the implicit steppers a contact is held
//! along the normal `n₀` of the step's start, `g = n₀·(x₁ − x₂) − (r₁ + r₂)` (see
//! [`ConstraintEval::step_start`]): linear, so a pile's compressed contacts put no curvature into
//! Newton's matrix, and never above the true gap.

use super::distance::{contact_row, separation_hessian, separation_row};
use super::{
    Constraint, ConstraintError, ConstraintEval, ConstraintKind, InvalidParameter, Separation,
};
use crate::draw::{Canvas, Element};
use crate::point::{Operand, Point};
use crate::view::View;

/// Two balls that may touch but not overlap.
///
/// ```
/// use bead::{constraint::NonPenetration, Particle, System};
/// let mut sys = System::new(2)?;
/// let a = sys.add_particle(Particle::new(&[0.0, 0.0]).radius(0.1))?;
/// let b = sys.add_particle(Particle::new(&[0.3, 0.0]).radius(0.1))?;
/// sys.add_constraint(NonPenetration::new(a, b, 0.2))?;
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Debug)]
pub struct NonPenetration {
    points: [Point; 2],
    distance: f64,
    rope: bool,
}

impl NonPenetration {
    /// Keeps `a` and `b` at least `distance` (the sum of the radii) apart.
    pub fn new(a: impl Into<Point>, b: impl Into<Point>, distance: f64) -> Self {
        NonPenetration {
            points: [a.into(), b.into()],
            distance,
            rope: false,
        }
    }

    /// A rope of `length`: keeps `a` and `b` at most `length` apart.
    pub fn rope(a: impl Into<Point>, b: impl Into<Point>, length: f64) -> Self {
        NonPenetration {
            points: [a.into(), b.into()],
            distance: length,
            rope: true,
        }
    }
}

impl Constraint for NonPenetration {
    fn rows(&self, _dim: usize) -> usize {
        1
    }

    fn operands(&self) -> Vec<Operand> {
        self.points.iter().map(|&p| p.into()).collect()
    }

    fn kind(&self) -> ConstraintKind {
        ConstraintKind::Inequality
    }

    fn check(&self, _dim: usize) -> Result<(), InvalidParameter> {
        // A rope's distance is its length; a contact's, the sum of the two radii.
        if self.rope {
            InvalidParameter::check_positive("length", self.distance)?;
        } else {
            InvalidParameter::check_non_negative("distance", self.distance)?;
        }
        if self.points[0] == self.points[1] {
            return Err(InvalidParameter::new(
                "between",
                "needs two different points",
            ));
        }
        Ok(())
    }

    fn draw(&self, view: &View<'_>, canvas: &mut dyn Canvas) {
        if self.rope {
            canvas.line(
                view.position(&self.points[0]),
                view.position(&self.points[1]),
                Element::Wire,
            );
        }
    }

    fn separation(&self) -> Option<Separation> {
        Some(Separation {
            length: self.distance,
            sign: if self.rope { -1.0 } else { 1.0 },
        })
    }

    fn evaluate(&self, eval: &mut ConstraintEval<'_>) -> Result<(), ConstraintError> {
        // A contact is held along its normal at the step's start where the stepper asks; a rope
        // is not (its chord would let the true length exceed it).
        if self.rope {
            separation_row(eval, self.distance, -1.0)
        } else {
            contact_row(eval, self.distance)
        }
    }

    fn weighted_hessian(
        &self,
        at: &super::HessianEval<'_>,
        weights: &[f64],
        hessian: &mut [f64],
    ) -> Result<(), ConstraintError> {
        if self.rope {
            return separation_hessian(at, -weights[0], hessian);
        }
        if at.step_start(0).is_some() {
            // Held along the start's normal, the row is linear.
            return Ok(());
        }
        separation_hessian(at, weights[0], hessian)
    }
}
