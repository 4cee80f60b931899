//! A 3D slider's travel limit: the position of body b along the slider's axis on body a kept
//! within `[min, max]`, two inequality rows through the contact machinery (seed 004), as the
//! hinge's [`HingeLimit`](super::HingeLimit) keeps its angle.
//!
//! With `P_a` the axis's point on a, `P_b` the sliding point on b and `E` the point of a one
//! metre along the axis from `P_a`, the travel is a dot row of chords (see `dot_rows`):
//!
//! ```text
//! s   = (P_b − P_a) · (E − P_a)
//! g₀  = s − min ≥ 0,   g₁ = max − s ≥ 0
//! ```
//!
//! `s` is exact as the axis turns with body a; on the slider's axis `E − P_a` is the unit axis,
//! so λ ≥ 0 is the stop's force on b along the axis, N.

use super::InvalidParameter;
use super::dot_rows::{Chords, DotSum};
use super::{Constraint, ConstraintError, ConstraintEval, ConstraintKind, HessianEval};
use crate::ids::BodyId;
use crate::math::vector::normalized;
use crate::point::{Operand, Point};

/// `s = (P_b − P_a) · (E − P_a)` over the points `[P_a, P_b, E]`.
pub(super) const TRAVEL: Chords = Chords::new([1, 0], [2, 0]);

/// The points a slider's travel is read from: `P_a`, `P_b`, and `E` one metre from `P_a` along
/// `axis` (in a's frame; any nonzero length, `+z` where it has none).
pub(super) fn travel_points(
    a: BodyId,
    b: BodyId,
    pivots: ([f64; 3], [f64; 3]),
    axis: [f64; 3],
) -> [Point; 3] {
    let u = normalized(&axis).unwrap_or([0.0, 0.0, 1.0]);
    let p = pivots.0;
    [
        Point::on_body_3d(a, p),
        Point::on_body_3d(b, pivots.1),
        Point::on_body_3d(a, [p[0] + u[0], p[1] + u[1], p[2] + u[2]]),
    ]
}

/// Keeps the travel of a 3D slider within a range.
///
/// ```
/// use bead::constraint::{Prismatic3d, SliderLimit};
/// use bead::{force::Gravity, RigidBody3d, System};
/// let mut sys = System::new(3)?;
/// let rail = sys.add_rigid_body_3d(RigidBody3d::new([0.0; 3]).fixed())?;
/// let carriage = sys.add_rigid_body_3d(RigidBody3d::new([0.0; 3]))?;
/// // A vertical rail whose carriage may fall 0.3 m below where it starts, and rise 0.2 m.
/// let (pivots, z) = (([0.0; 3], [0.0; 3]), [0.0, 0.0, 1.0]);
/// sys.add_constraint(Prismatic3d::new(rail.body(), carriage.body(), pivots, z, [1.0, 0.0, 0.0, 0.0]))?;
/// sys.add_constraint(SliderLimit::new(rail.body(), carriage.body(), pivots, z, -0.3, 0.2))?;
/// sys.add_force(Gravity::new(&[0.0, 0.0, -9.81]))?;
/// sys.set_integrator(bead::integrate::ImplicitEuler::default());
/// for _ in 0..100 {
///     sys.step(0.01).unwrap();
/// }
/// assert!((sys.coordinates(carriage.body())[2] + 0.3).abs() < 1e-8);
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Debug)]
pub struct SliderLimit {
    /// `P_a, P_b, E`.
    points: [Point; 3],
    axis: [f64; 3],
    range: [f64; 2],
}

impl SliderLimit {
    /// `min ≤ s ≤ max` (metres) for the travel `s = (P_b − P_a) · u` of `b`'s point `pivots.1`
    /// along `axis` (`u`, in a's frame) from `a`'s point `pivots.0`: the slider of
    /// [`Prismatic3d::new`](super::Prismatic3d::new) with the same bodies, pivots and axis.
    pub fn new(
        a: BodyId,
        b: BodyId,
        pivots: ([f64; 3], [f64; 3]),
        axis: [f64; 3],
        min: f64,
        max: f64,
    ) -> Self {
        SliderLimit {
            points: travel_points(a, b, pivots, axis),
            axis,
            range: [min, max],
        }
    }
}

impl Constraint for SliderLimit {
    fn rows(&self, _dim: usize) -> usize {
        2
    }

    fn operands(&self) -> Vec<Operand> {
        self.points.iter().map(|&p| p.into()).collect()
    }

    fn kind(&self) -> ConstraintKind {
        ConstraintKind::Inequality
    }

    fn check(&self, dim: usize) -> Result<(), InvalidParameter> {
        let (a, b) = (self.points[0].body(), self.points[1].body());
        super::check_3d_pair(dim, a, b, "a slider limit")?;
        super::check_direction("axis", &self.axis)?;
        InvalidParameter::check_range(self.range)
    }

    fn evaluate(&self, eval: &mut ConstraintEval<'_>) -> Result<(), ConstraintError> {
        let [min, max] = self.range;
        DotSum::at(eval, 3, &[(1.0, TRAVEL)]).write(eval, 0, -min);
        DotSum::at(eval, 3, &[(-1.0, TRAVEL)]).write(eval, 1, max);
        Ok(())
    }

    fn weighted_hessian(
        &self,
        at: &HessianEval<'_>,
        weights: &[f64],
        hessian: &mut [f64],
    ) -> Result<(), ConstraintError> {
        TRAVEL.add_hessian(at, weights[0] - weights[1], hessian);
        Ok(())
    }
}
