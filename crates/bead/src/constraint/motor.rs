//! Motor: a relative angular velocity held at ω — a velocity-level constraint with seed 002's
//! bias term (`Ċ = J q̇ + b`).
//!
//! There is no position to hold, so `C ≡ 0`; the row is
//!
//! ```text
//! Ċ   = ω_b − ω_a − ω          (world: ω_a − ω)      ∂Ċ/∂q̇_a = [0, 0, −1], ∂Ċ/∂q̇_b = [0, 0, 1]
//! J̇q̇  = 0
//! ```
//!
//! written as a gradient and a time term `∂C/∂t = −ω`. Being a velocity-level row
//! ([`ConstraintKind::Velocity`]), its target is its own law, `d/dt(ω_b − ω_a) = −r Ċ`, with the
//! rate r of [`Settings::motor_rate`](crate::Settings::motor_rate) (by default `1/dt`: the speed
//! is reached within about a step), not the position rows' Baumgarte gains, so it turns with
//! feedback off too. λ is the motor torque on body b in N·m (body a feels −λ).
//!
//! With a torque limit (Box2D's `maxMotorTorque`) the row is bounded, `|λ| ≤ τ_max`: a motor that
//! cannot keep its speed applies exactly ±τ_max, and its λ reports it (seed 004's multipliers
//! with bounds; see [`crate::contact`]).

use super::{Constraint, ConstraintError, ConstraintEval, ConstraintKind, InvalidParameter};
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
    max_torque: f64,
}

impl Motor {
    /// Drives `ω_b − ω_a = speed` (rad/s).
    pub fn new(a: impl Into<BodyId>, b: impl Into<BodyId>, speed: f64) -> Self {
        Motor {
            a: a.into(),
            b: Some(b.into()),
            speed,
            max_torque: f64::INFINITY,
        }
    }

    /// Drives `ω_a = speed` (rad/s) against the world.
    pub fn to_world(a: impl Into<BodyId>, speed: f64) -> Self {
        Motor {
            a: a.into(),
            b: None,
            speed,
            max_torque: f64::INFINITY,
        }
    }

    /// Limits the torque to `max_torque` N·m either way (infinity: no limit, the default).
    ///
    /// ```
    /// use bead::{constraint::Motor, RigidBody, System};
    /// let mut sys = System::new(2)?;
    /// let wheel = sys.add_rigid_body(RigidBody::new(&[0.0, 0.0], 0.0).inertia(0.5))?;
    /// let motor = sys.add_constraint(Motor::to_world(wheel, 10.0).max_torque(2.0))?;
    /// sys.step(1e-3).unwrap();
    /// // Spinning up from rest, it is at its limit: α = τ_max / I.
    /// let lambda = sys.diagnostics().unwrap().constraint(motor).unwrap().lambda[0];
    /// assert_eq!(lambda, 2.0);
    /// assert!((sys.coordinate_velocities(wheel)[2] - 2.0 / 0.5 * 1e-3).abs() < 1e-12);
    /// # Ok::<(), bead::ModelError>(())
    /// ```
    pub fn max_torque(mut self, max_torque: f64) -> Self {
        self.max_torque = max_torque;
        self
    }

    /// The torque limit, N·m (infinity for none).
    pub fn torque_limit(&self) -> f64 {
        self.max_torque
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

    fn multiplier_bounds(&self) -> (f64, f64) {
        (-self.max_torque, self.max_torque)
    }

    fn check(&self, dim: usize) -> Result<(), InvalidParameter> {
        super::check_rigid_pair(dim, self.a, self.b, "between")?;
        InvalidParameter::check_finite("speed", self.speed)?;
        // Infinity is the default: no limit.
        if !(self.max_torque > 0.0) {
            return Err(InvalidParameter::new(
                "max_torque",
                format!("must be positive, got {}", self.max_torque),
            )
            .hint("a torque in N·m either way; leave it out (infinity) for no limit"));
        }
        Ok(())
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

    /// Linear in its operands: no geometric stiffness.
    fn linear(&self) -> bool {
        true
    }
}
