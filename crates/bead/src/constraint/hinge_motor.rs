//! A motor on a 3D hinge: the relative angular velocity of two 3D bodies about the hinge's axis
//! held at ω, a velocity-level row as the 2D [`Motor`](super::Motor) is (seed 002's bias term).
//!
//! Each body's turn about the axis `u` is read from three of its points, the pivot `P` and `E₁`,
//! `E₂` one metre from it across the axis (`e₁ × e₂ = u`): `(Ė₁ − Ṗ) · (E₂ − P) = (ω × e₁) · e₂
//! = ω · u`. So
//!
//! ```text
//! Ċ   = (Ė₁ᵇ − Ṗᵇ)·(E₂ᵇ − Pᵇ) − (Ė₁ᵃ − Ṗᵃ)·(E₂ᵃ − Pᵃ) − ω          C ≡ 0,  ∂C/∂t = −ω
//! J̇ẋ  = (Ė₁ᵇ − Ṗᵇ)·(Ė₂ᵇ − Ṗᵇ) − (Ė₁ᵃ − Ṗᵃ)·(Ė₂ᵃ − Ṗᵃ)
//! ```
//!
//! The force `Jᵀλ` on `E₁ᵇ` is λ along `e₂` at one metre along `e₁`: a torque `λ u` on body b
//! (and `−λ u` on a), so λ is the motor's torque, N·m. With a limit the row is bounded,
//! `|λ| ≤ τ_max`.

use super::{Constraint, ConstraintError, ConstraintEval, ConstraintKind, HessianEval};
use super::{Hinge, InvalidParameter};
use crate::math::vector::{dot, sub as diff};
use crate::point::{Operand, Point};

/// Drives a 3D hinge's relative angular velocity about its axis.
///
/// ```
/// use bead::constraint::{Hinge, HingeMotor};
/// use bead::{RigidBody3d, System};
/// let mut sys = System::new(3)?;
/// let frame = sys.add_rigid_body_3d(RigidBody3d::new([0.0; 3]).fixed())?;
/// let wheel = sys.add_rigid_body_3d(RigidBody3d::new([0.0; 3]))?;
/// let frames = (([0.0; 3], [0.0; 3]), ([0.0, 0.0, 1.0], [0.0, 0.0, 1.0]));
/// sys.add_constraint(Hinge::new(frame.body(), wheel.body(), frames.0, frames.1))?;
/// sys.add_constraint(HingeMotor::new(frame.body(), wheel.body(), frames.0, frames.1, 3.0))?;
/// // The implicit steppers hold a velocity row at the step's end.
/// sys.set_integrator(bead::integrate::ImplicitEuler::default());
/// sys.step(0.01).unwrap();
/// assert!((sys.angular_velocity(wheel)[2] - 3.0).abs() < 1e-9);
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Debug)]
pub struct HingeMotor {
    /// `Pᵃ, E₁ᵃ, E₂ᵃ, Pᵇ, E₁ᵇ, E₂ᵇ`.
    points: [Point; 6],
    speed: f64,
    max_torque: f64,
}

impl HingeMotor {
    /// Drives `(ω_b − ω_a) · u = speed` (rad/s) for the hinge of [`Hinge::new`] with the same
    /// bodies, pivots and axes.
    pub fn new(
        a: crate::BodyId,
        b: crate::BodyId,
        pivots: ([f64; 3], [f64; 3]),
        axes: ([f64; 3], [f64; 3]),
        speed: f64,
    ) -> Self {
        let frame = |body, pivot: [f64; 3], axis| {
            let (e1, e2) = Hinge::across_axis(axis);
            let at = |e: [f64; 3]| [pivot[0] + e[0], pivot[1] + e[1], pivot[2] + e[2]];
            [
                Point::on_body_3d(body, pivot),
                Point::on_body_3d(body, at(e1)),
                Point::on_body_3d(body, at(e2)),
            ]
        };
        let [pa, e1a, e2a] = frame(a, pivots.0, axes.0);
        let [pb, e1b, e2b] = frame(b, pivots.1, axes.1);
        HingeMotor {
            points: [pa, e1a, e2a, pb, e1b, e2b],
            speed,
            max_torque: f64::INFINITY,
        }
    }

    /// Limits the torque to `max_torque` N·m either way.
    pub fn max_torque(mut self, max_torque: f64) -> Self {
        self.max_torque = max_torque;
        self
    }

    /// The speed it drives, rad/s.
    pub fn speed(&self) -> f64 {
        self.speed
    }

    /// Sets the speed it drives, rad/s.
    pub fn set_speed(&mut self, speed: f64) {
        self.speed = speed;
    }
}

impl Constraint for HingeMotor {
    fn rows(&self, _dim: usize) -> usize {
        1
    }

    fn operands(&self) -> Vec<Operand> {
        self.points.iter().map(|&p| p.into()).collect()
    }

    fn kind(&self) -> ConstraintKind {
        ConstraintKind::Velocity
    }

    fn multiplier_bounds(&self) -> (f64, f64) {
        (-self.max_torque, self.max_torque)
    }

    fn check(&self, dim: usize) -> Result<(), InvalidParameter> {
        if dim != 3 {
            return Err(InvalidParameter::new(
                "dimension",
                "a hinge motor drives 3D bodies",
            ));
        }
        InvalidParameter::check_finite("speed", self.speed)?;
        if !(self.max_torque > 0.0) {
            return Err(InvalidParameter::new(
                "max_torque",
                format!("must be positive, got {}", self.max_torque),
            ));
        }
        Ok(())
    }

    fn evaluate(&self, eval: &mut ConstraintEval<'_>) -> Result<(), ConstraintError> {
        // Body a's points are operands 0..3 and count negatively, body b's 3..6.
        let mut jdot = 0.0;
        for (first, sign) in [(0, -1.0), (3, 1.0)] {
            let (p, e1, e2) = (first, first + 1, first + 2);
            let across = diff(eval.x(e2), eval.x(p));
            let turn = diff(eval.v(e1), eval.v(p));
            let turn_across = diff(eval.v(e2), eval.v(p));
            eval.set_gradient(0, e1, &across.map(|x| sign * x));
            eval.set_gradient(0, p, &across.map(|x| -sign * x));
            eval.set_gradient(0, e2, &[0.0; 3]);
            jdot += sign * dot(&turn, &turn_across);
        }
        eval.set_value(0, 0.0);
        eval.set_time_derivative(0, -self.speed);
        eval.set_jdot_xdot(0, jdot);
        Ok(())
    }

    /// A velocity row has no position to be stiff in: the turn of its Jacobian with the bodies
    /// is left out of the implicit steppers' matrix (it costs iterations where the torque is
    /// large, never the answer).
    fn weighted_hessian(
        &self,
        _at: &HessianEval<'_>,
        _weights: &[f64],
        _hessian: &mut [f64],
    ) -> Result<(), ConstraintError> {
        Ok(())
    }
}
