//! A ball joint's cone-twist limit: b's axis kept within a cone of half-angle α about a's
//! axis, and optionally b's twist about its axis within `[min, max]`, inequality rows through
//! the contact machinery (seed 004), as ragdoll shoulders and hips are limited.
//!
//! With `U_a`, `U_b` one metre along each body's axis from its centre `O`:
//!
//! ```text
//! g₀ = (U_a − O_a) · (U_b − O_b) − cos α ≥ 0        the swing angle is at most α
//! g₁, g₂                                            the twist rows of [`twist`](super::twist)
//! ```
//!
//! `g₀` is a dot row of chords (see `dot_rows`), the cosine of the swing: its λ ≥ 0 is the
//! stop's torque divided by `sin α`; each body's reported reaction (`Jᵀλ`) gives the torque.

use super::dot_rows::{Chords, DotSum};
use super::twist::Twist;
use super::{Constraint, ConstraintError, ConstraintEval, ConstraintKind, InvalidParameter};
use crate::ids::BodyId;
use crate::math::vector::normalized;
use crate::point::{Operand, Point};

/// Limits the swing (and optionally the twist) of a ball joint.
///
/// ```
/// use bead::constraint::{ConeLimit, Revolute};
/// use bead::{Point, RigidBody3d, System};
/// let mut sys = System::new(3)?;
/// let torso = sys.add_rigid_body_3d(RigidBody3d::new([0.0; 3]).fixed())?;
/// let arm = sys.add_rigid_body_3d(RigidBody3d::new([0.0, 0.0, -0.3]))?;
/// // A shoulder: the arm hangs along −z, swings up to 45° from it, twists ±30°.
/// let shoulder = (Point::on_body_3d(torso.body(), [0.0; 3]), Point::on_body_3d(arm.body(), [0.0, 0.0, 0.3]));
/// sys.add_constraint(Revolute::new(shoulder.0, shoulder.1))?;
/// let down = ([0.0, 0.0, -1.0], [0.0, 0.0, -1.0]);
/// let limit = ConeLimit::new(torso.body(), arm.body(), down, 45f64.to_radians()).twist(-0.5, 0.5);
/// sys.add_constraint(limit)?;
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Debug)]
pub struct ConeLimit {
    a: BodyId,
    b: BodyId,
    axes: ([f64; 3], [f64; 3]),
    /// `O_a, U_a, O_b, U_b`.
    points: [Point; 4],
    half_angle: f64,
    references: ([f64; 3], [f64; 3]),
    twist: Option<Twist>,
}

impl ConeLimit {
    /// b's axis within `half_angle` (radians, in `(0, π)`) of a's, the axes `axes` each in its
    /// body's frame. The twist is free until [`ConeLimit::twist`] limits it.
    pub fn new(a: BodyId, b: BodyId, axes: ([f64; 3], [f64; 3]), half_angle: f64) -> Self {
        let unit = |v: [f64; 3]| normalized(&v).unwrap_or(v);
        ConeLimit {
            a,
            b,
            axes,
            points: [
                Point::on_body_3d(a, [0.0; 3]),
                Point::on_body_3d(a, unit(axes.0)),
                Point::on_body_3d(b, [0.0; 3]),
                Point::on_body_3d(b, unit(axes.1)),
            ],
            half_angle,
            references: (
                Twist::default_reference(axes.0),
                Twist::default_reference(axes.1),
            ),
            twist: None,
        }
    }

    /// Also keeps b's twist about its axis within `[min, max]` (radians), zero where the
    /// references of [`ConeLimit::zero`] coincide.
    pub fn twist(self, min: f64, max: f64) -> Self {
        let twist = Twist::new(self.a, self.b, self.axes, self.references, [min, max]);
        ConeLimit {
            twist: Some(twist),
            ..self
        }
    }

    /// Measures the twist from where `references` (a direction across the axis in each body's
    /// frame) point the same way; by default each axis's first direction across (see
    /// [`HingeLimit::new`](super::HingeLimit::new)).
    pub fn zero(self, references: ([f64; 3], [f64; 3])) -> Self {
        let twist = self
            .twist
            .as_ref()
            .map(|t| Twist::new(self.a, self.b, self.axes, references, t.range()));
        ConeLimit {
            references,
            twist,
            ..self
        }
    }
}

impl Constraint for ConeLimit {
    fn rows(&self, _dim: usize) -> usize {
        if self.twist.is_some() { 3 } else { 1 }
    }

    fn operands(&self) -> Vec<Operand> {
        let twist = self
            .twist
            .iter()
            .flat_map(|t| [1, 2, 4, 5].map(|k| t.points[k]));
        self.points
            .iter()
            .copied()
            .chain(twist)
            .map(Operand::from)
            .collect()
    }

    fn kind(&self) -> ConstraintKind {
        ConstraintKind::Inequality
    }

    fn check(&self, dim: usize) -> Result<(), InvalidParameter> {
        super::check_pair(dim, 3, self.a, self.b, "a cone limit")?;
        super::check_direction("axes[0]", &self.axes.0)?;
        super::check_direction("axes[1]", &self.axes.1)?;
        let alpha = self.half_angle;
        if !(alpha > 0.0 && alpha < std::f64::consts::PI) {
            return Err(InvalidParameter::new(
                "cone",
                format!("the cone's half-angle must be in (0, π) radians, got {alpha}"),
            ));
        }
        self.twist.as_ref().map_or(Ok(()), |t| t.check("twist"))
    }

    fn evaluate(&self, eval: &mut ConstraintEval<'_>) -> Result<(), ConstraintError> {
        let count = if self.twist.is_some() { 8 } else { 4 };
        let swing = DotSum::at(eval, count, &[(1.0, Chords::new([1, 0], [3, 2]))]);
        swing.write(eval, 0, -self.half_angle.cos());
        if let Some(twist) = &self.twist {
            twist.evaluate(eval, [0, 4, 5, 2, 6, 7], count, 1)?;
        }
        Ok(())
    }
}
