//! Nail: a point held at a location that may move with time.
//!
//! ```text
//! C   = x − p(t)                    (dim rows; each row's gradient is a unit axis)
//! Ċ   = ẋ − ṗ(t)                    ∂C/∂x = I,   ∂C/∂t = −ṗ
//! C̈   = ẍ − p̈(t)                    J̇ẋ = −p̈  (the c_tt term of seed 003)
//! ```
//!
//! λ is the force the nail exerts on the point, in newtons, one component per axis. When the
//! location moves on a circle, λ supplies the centripetal force `m p̈` (minus the applied force).

use super::{Constraint, ConstraintError, ConstraintEval, InvalidParameter};
use crate::draw::{Canvas, Element};
use crate::motion::Motion;
use crate::point::{Operand, Point};
use crate::view::View;

/// Holds a point at a (possibly moving) location.
///
/// ```
/// use bead::{constraint::Nail, Motion, Particle, System};
/// let mut sys = System::new(2)?;
/// let p = sys.add_particle(Particle::new(&[1.0, 0.0]))?;
/// // Carry the particle round the unit circle at 1 rad/s.
/// sys.add_constraint(Nail::moving(p, Motion::circle(&[0.0, 0.0], 1.0, 1.0, 0.0)))?;
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Nail {
    point: Point,
    at: Motion,
}

impl Nail {
    /// Nails `point` at the fixed location `at` (metres).
    pub fn new(point: impl Into<Point>, at: &[f64]) -> Self {
        Nail {
            point: point.into(),
            at: Motion::fixed(at),
        }
    }

    /// Nails `point` to a location that follows `motion`.
    pub fn moving(point: impl Into<Point>, motion: Motion) -> Self {
        Nail {
            point: point.into(),
            at: motion,
        }
    }

    /// The location's motion.
    pub fn motion(&self) -> &Motion {
        &self.at
    }
}

impl Constraint for Nail {
    fn rows(&self, dim: usize) -> usize {
        dim
    }

    fn operands(&self) -> Vec<Operand> {
        vec![self.point.into()]
    }

    fn check(&self, dim: usize) -> Result<(), InvalidParameter> {
        super::check_location("at", &self.at, dim)
    }

    fn draw(&self, view: &View<'_>, canvas: &mut dyn Canvas) {
        canvas.marker(self.at.sample(view.time()).position, Element::Nail);
    }

    fn evaluate(&self, eval: &mut ConstraintEval<'_>) -> Result<(), ConstraintError> {
        let target = self.at.sample(eval.time());
        let mut axis = [0.0; 3];
        for r in 0..eval.dim() {
            let c = eval.x(0)[r] - target.position[r];
            eval.set_value(r, c);
            axis.fill(0.0);
            axis[r] = 1.0;
            eval.set_gradient(r, 0, &axis[..eval.dim()]);
            eval.set_time_derivative(r, -target.velocity[r]);
            eval.set_jdot_xdot(r, -target.acceleration[r]);
        }
        Ok(())
    }

    /// Linear in its operands: no geometric stiffness.
    fn linear(&self) -> bool {
        true
    }
}
