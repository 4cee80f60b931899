//! A motor on a slider (3D, or 2D with [`SliderMotor::planar`]): the rate of body b's travel
//! along the slider's axis on body a held at `v`, a velocity-level row as the hinge's
//! [`HingeMotor`](super::HingeMotor) is (seed 002's bias term).
//!
//! The travel is [`SliderLimit`](super::SliderLimit)'s dot row `s = (P_b − P_a) · (E − P_a)`:
//!
//! ```text
//! Ċ   = ṡ − v = (Ṗ_b − Ṗ_a)·(E − P_a) + (P_b − P_a)·(Ė − Ṗ_a) − v       C ≡ 0,  ∂C/∂t = −v
//! J̇ẋ  = 2 (Ṗ_b − Ṗ_a)·(Ė − Ṗ_a)
//! ```
//!
//! On the slider's axis the second term of `ṡ` vanishes (`E − P_a` is a unit vector and its rate
//! is across it), so the row drives the relative velocity along the axis, and λ is the motor's
//! force on b along the axis, N. With a limit the row is bounded, `|λ| ≤ F_max`.

use super::InvalidParameter;
use super::dot_rows::DotSum;
use super::slider_limit::{TRAVEL, check_travel, planar_travel_points, travel_points};
use super::{Constraint, ConstraintError, ConstraintEval, ConstraintKind, HessianEval};
use crate::ids::BodyId;
use crate::point::{Operand, Point};

/// Drives the travel rate of a 3D slider.
///
/// ```
/// use bead::constraint::{Prismatic3d, SliderMotor};
/// use bead::{force::Gravity, RigidBody3d, System};
/// let mut sys = System::new(3)?;
/// let rail = sys.add_rigid_body_3d(RigidBody3d::new([0.0; 3]).fixed())?;
/// let carriage = sys.add_rigid_body_3d(RigidBody3d::new([0.0; 3]))?;
/// let (pivots, z) = (([0.0; 3], [0.0; 3]), [0.0, 0.0, 1.0]);
/// sys.add_constraint(Prismatic3d::new(rail.body(), carriage.body(), pivots, z, [1.0, 0.0, 0.0, 0.0]))?;
/// // A lift: up at 0.5 m/s against gravity.
/// sys.add_constraint(SliderMotor::new(rail.body(), carriage.body(), pivots, z, 0.5))?;
/// sys.add_force(Gravity::new(&[0.0, 0.0, -9.81]))?;
/// sys.set_integrator(bead::integrate::ImplicitEuler::default());
/// sys.step(0.01).unwrap();
/// assert!((sys.coordinate_velocities(carriage.body())[2] - 0.5).abs() < 1e-9);
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Debug)]
pub struct SliderMotor {
    /// `P_a, P_b, E`.
    points: [Point; 3],
    axis: [f64; 3],
    /// Whether it drives 2D bodies ([`SliderMotor::planar`]).
    planar: bool,
    speed: f64,
    max_force: f64,
}

impl SliderMotor {
    /// Drives `ṡ = speed` (m/s) for the travel `s` of `b`'s point `pivots.1` along `axis` (in
    /// a's frame) from `a`'s point `pivots.0`: the slider of
    /// [`Prismatic3d::new`](super::Prismatic3d::new) with the same bodies, pivots and axis.
    pub fn new(
        a: BodyId,
        b: BodyId,
        pivots: ([f64; 3], [f64; 3]),
        axis: [f64; 3],
        speed: f64,
    ) -> Self {
        SliderMotor {
            points: travel_points(a, b, pivots, axis),
            axis,
            planar: false,
            speed,
            max_force: f64::INFINITY,
        }
    }

    /// The same motor on a 2D slider ([`Prismatic`](super::Prismatic)): drives `ṡ = speed`
    /// (m/s) for the travel of `b`'s point `pivots.1` along `axis` (in a's frame) from `a`'s
    /// point `pivots.0`.
    ///
    /// ```
    /// use bead::constraint::{Prismatic, SliderMotor};
    /// use bead::{Point, RigidBody, System};
    /// let mut sys = System::new(2)?;
    /// let rail = sys.add_rigid_body(RigidBody::new(&[0.0, 0.0], 0.0).fixed())?;
    /// let carriage = sys.add_rigid_body(RigidBody::new(&[0.0, 0.0], 0.0))?;
    /// let (pa, pb) = (Point::on_body(rail, [0.0, 0.0]), Point::on_body(carriage, [0.0, 0.0]));
    /// sys.add_constraint(Prismatic::new(pa, pb, [1.0, 0.0], 0.0))?;
    /// sys.add_constraint(SliderMotor::planar(rail.body(), carriage.body(), ([0.0; 2], [0.0; 2]), [1.0, 0.0], 0.4))?;
    /// sys.set_integrator(bead::integrate::ImplicitEuler::default());
    /// sys.step(0.01).unwrap();
    /// assert!((sys.coordinate_velocities(carriage.body())[0] - 0.4).abs() < 1e-9);
    /// # Ok::<(), bead::ModelError>(())
    /// ```
    pub fn planar(
        a: BodyId,
        b: BodyId,
        pivots: ([f64; 2], [f64; 2]),
        axis: [f64; 2],
        speed: f64,
    ) -> Self {
        SliderMotor {
            points: planar_travel_points(a, b, pivots, axis),
            axis: [axis[0], axis[1], 0.0],
            planar: true,
            speed,
            max_force: f64::INFINITY,
        }
    }

    /// Limits the force to `max_force` N either way.
    pub fn max_force(mut self, max_force: f64) -> Self {
        self.max_force = max_force;
        self
    }

    /// The speed it drives, m/s.
    pub fn speed(&self) -> f64 {
        self.speed
    }

    /// Sets the speed it drives, m/s.
    pub fn set_speed(&mut self, speed: f64) {
        self.speed = speed;
    }
}

impl Constraint for SliderMotor {
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
        (-self.max_force, self.max_force)
    }

    fn check(&self, dim: usize) -> Result<(), InvalidParameter> {
        check_travel(
            dim,
            &self.points,
            (self.axis, self.planar),
            "a slider motor",
        )?;
        InvalidParameter::check_finite("speed", self.speed)?;
        if !(self.max_force > 0.0) {
            return Err(InvalidParameter::new(
                "max_force",
                format!("must be positive, got {}", self.max_force),
            ));
        }
        Ok(())
    }

    fn evaluate(&self, eval: &mut ConstraintEval<'_>) -> Result<(), ConstraintError> {
        DotSum::at(eval, 3, &[(1.0, TRAVEL)]).write(eval, 0, 0.0);
        // A velocity row: no position to hold, its rate is the travel's rate less the speed.
        eval.set_value(0, 0.0);
        eval.set_time_derivative(0, -self.speed);
        Ok(())
    }

    /// A velocity row has no position to be stiff in (as [`HingeMotor`](super::HingeMotor)).
    fn weighted_hessian(
        &self,
        _at: &HessianEval<'_>,
        _weights: &[f64],
        _hessian: &mut [f64],
    ) -> Result<(), ConstraintError> {
        Ok(())
    }
}
