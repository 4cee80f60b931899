//! A 3D hinge's angle limit: the turn of body b about the hinge's axis relative to body a kept
//! within `[min, max]`, two inequality rows through the contact machinery (seed 004), as the 2D
//! [`AngleLimit`](super::AngleLimit) keeps a relative angle.
//!
//! The angle is the twist of [`twist`](super::twist)'s module: exact for any range short of a
//! whole turn, and on a ball joint it limits the twist about the axis whatever the swing. λ ≥ 0
//! is the stop's torque on b about the axis, N·m.

use super::twist::Twist;
use super::{Constraint, ConstraintError, ConstraintEval, ConstraintKind, InvalidParameter};
use crate::ids::BodyId;
use crate::point::Operand;

/// Keeps the angle of a 3D hinge (or a ball joint's twist about an axis) within a range.
///
/// ```
/// use bead::constraint::{Hinge, HingeLimit};
/// use bead::{force::Gravity, RigidBody3d, System};
/// let mut sys = System::new(3)?;
/// let frame = sys.add_rigid_body_3d(RigidBody3d::new([0.0; 3]).fixed())?;
/// let door = sys.add_rigid_body_3d(RigidBody3d::new([0.5, 0.0, 0.0]))?;
/// // A door on a vertical hinge at the origin, free to swing a quarter turn either way.
/// let (pivots, axes) = (([0.0; 3], [-0.5, 0.0, 0.0]), ([0.0, 0.0, 1.0], [0.0, 0.0, 1.0]));
/// sys.add_constraint(Hinge::new(frame.body(), door.body(), pivots, axes))?;
/// let limit = HingeLimit::new(frame.body(), door.body(), axes, -1.5, 1.5)
///     .zero(([1.0, 0.0, 0.0], [1.0, 0.0, 0.0]));
/// sys.add_constraint(limit)?;
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Debug)]
pub struct HingeLimit {
    a: BodyId,
    b: BodyId,
    axes: ([f64; 3], [f64; 3]),
    range: [f64; 2],
    twist: Twist,
}

impl HingeLimit {
    /// `min ≤ φ ≤ max` (radians) for the turn `φ` of `b` against `a` about `axes` (each in its
    /// body's frame, as given to [`Hinge::new`](super::Hinge::new)). `φ` is zero where each
    /// body's first direction across its axis (the one [`HingeLimit::zero`] would name) coincide;
    /// call `zero` to say where that is.
    pub fn new(a: BodyId, b: BodyId, axes: ([f64; 3], [f64; 3]), min: f64, max: f64) -> Self {
        let references = (
            Twist::default_reference(axes.0),
            Twist::default_reference(axes.1),
        );
        HingeLimit {
            a,
            b,
            axes,
            range: [min, max],
            twist: Twist::new(a, b, axes, references, [min, max]),
        }
    }

    /// Measures the angle from where `references` (a direction across the axis in each body's
    /// frame) point the same way.
    pub fn zero(self, references: ([f64; 3], [f64; 3])) -> Self {
        HingeLimit {
            twist: Twist::new(self.a, self.b, self.axes, references, self.range),
            ..self
        }
    }
}

impl Constraint for HingeLimit {
    fn rows(&self, _dim: usize) -> usize {
        2
    }

    fn operands(&self) -> Vec<Operand> {
        self.twist.points.iter().map(|&p| p.into()).collect()
    }

    fn kind(&self) -> ConstraintKind {
        ConstraintKind::Inequality
    }

    fn check(&self, dim: usize) -> Result<(), InvalidParameter> {
        super::check_pair(dim, 3, self.a, self.b, "a hinge limit")?;
        self.twist.check("max")
    }

    fn evaluate(&self, eval: &mut ConstraintEval<'_>) -> Result<(), ConstraintError> {
        self.twist.evaluate(eval, [0, 1, 2, 3, 4, 5], 6, 0)
    }
}
