//! Motor: a relative angular velocity held at ω — a velocity-level constraint with seed 002's
//! bias term (`Ċ = J q̇ + b`).
//!
//! There is no position to hold, so `C ≡ 0`; the row is
//!
//! ```text
//! Ċ   = ω_b − ω_a − ω          (world: ω_a − ω)      ∂Ċ/∂q̇_a = [0, 0, −1], ∂Ċ/∂q̇_b = [0, 0, 1]
//! ```
//!
//! written as a gradient and a time term `∂C/∂t = −ω`, so the multiplier system asks for
//! `d/dt(ω_b − ω_a) = −k_d (ω_b − ω_a − ω)`: the speed is held, and a speed error decays at the
//! feedback rate. λ is the motor torque on body b in N·m (body a feels −λ).

use super::{Constraint, ConstraintError, ConstraintEval, ConstraintKind};
use crate::body::BodyId;
use crate::point::Operand;

/// Drives a relative angular velocity.
///
/// ```
/// use bead::{constraint::Motor, RigidBody, System};
/// let mut sys = System::new(2)?;
/// let wheel = sys.add_rigid_body(RigidBody::new(&[0.0, 0.0], 0.0).velocity(&[0.0, 0.0], 2.0))?;
/// let motor = sys.add_constraint(Motor::to_world(wheel, 2.0))?;
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Motor {
    a: BodyId,
    b: Option<BodyId>,
    speed: f64,
}

impl Motor {
    /// Drives `ω_b − ω_a = speed` (rad/s).
    pub fn new(a: impl Into<BodyId>, b: impl Into<BodyId>, speed: f64) -> Self {
        Motor {
            a: a.into(),
            b: Some(b.into()),
            speed,
        }
    }

    /// Drives `ω_a = speed` (rad/s) against the world.
    pub fn to_world(a: impl Into<BodyId>, speed: f64) -> Self {
        Motor {
            a: a.into(),
            b: None,
            speed,
        }
    }

    /// The target speed, rad/s.
    pub fn speed(&self) -> f64 {
        self.speed
    }

    /// Changes the target speed, rad/s.
    pub fn set_speed(&mut self, speed: f64) {
        self.speed = speed;
    }
}

impl Constraint for Motor {
    fn rows(&self, _dim: usize) -> usize {
        1
    }

    fn operands(&self) -> Vec<Operand> {
        super::body_operands(self.a, self.b)
    }

    fn kind(&self) -> ConstraintKind {
        ConstraintKind::Velocity
    }

    fn check(&self, dim: usize) -> Result<(), String> {
        super::check_rigid_pair(dim, self.a, self.b, self.speed, "motor speed")
    }

    fn evaluate(&self, eval: &mut ConstraintEval<'_>) -> Result<(), ConstraintError> {
        match self.b {
            Some(_) => {
                eval.set_gradient(0, 0, &[0.0, 0.0, -1.0]);
                eval.set_gradient(0, 1, &[0.0, 0.0, 1.0]);
            }
            None => eval.set_gradient(0, 0, &[0.0, 0.0, 1.0]),
        }
        eval.set_time_derivative(0, -self.speed);
        Ok(())
    }
}
