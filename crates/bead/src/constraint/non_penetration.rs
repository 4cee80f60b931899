//! Non-penetration of two balls, and the rope (a maximum distance): the two inequality forms of
//! the distance constraint.
//!
//! ```text
//! non-penetration   g = |x₁ − x₂| − (r₁ + r₂) ≥ 0
//! rope              g = L − |x₁ − x₂| ≥ 0
//! ```
//!
//! with the derivatives of [`Distance`](super::Distance) (signs flipped for the rope). λ ≥ 0 is the
//! contact force (the rope's tension), in newtons.

use super::distance::{separation_hessian, separation_row};
use super::{Constraint, ConstraintError, ConstraintEval, ConstraintKind, Separation};
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

    fn check(&self, _dim: usize) -> Result<(), String> {
        if self.points[0] == self.points[1] {
            return Err("needs two different points".into());
        }
        let ok = if self.rope {
            self.distance > 0.0
        } else {
            self.distance >= 0.0
        };
        if !(ok && self.distance.is_finite()) {
            return Err(format!(
                "distance must be positive and finite, got {}",
                self.distance
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
        separation_row(eval, self.distance, if self.rope { -1.0 } else { 1.0 })
    }

    fn weighted_hessian(
        &self,
        at: &super::HessianEval<'_>,
        weights: &[f64],
        hessian: &mut [f64],
    ) -> Result<(), ConstraintError> {
        let sign = if self.rope { -1.0 } else { 1.0 };
        separation_hessian(at, sign * weights[0], hessian)
    }
}
