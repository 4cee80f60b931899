//! A slider's travel limit: the position of body b along the slider's axis on body a kept
//! within `[min, max]`, two inequality rows through the contact machinery (seed 004), as the
//! hinge's [`HingeLimit`](super::HingeLimit) keeps its angle; in 3D on a
//! [`Prismatic3d`](super::Prismatic3d), in 2D ([`SliderLimit::planar`]) on a
//! [`Prismatic`](super::Prismatic).
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

/// [`travel_points`] of a 2D slider, on 2D rigid bodies (`+x` where `axis` has no length).
pub(super) fn planar_travel_points(
    a: BodyId,
    b: BodyId,
    pivots: ([f64; 2], [f64; 2]),
    axis: [f64; 2],
) -> [Point; 3] {
    let u = normalized(&axis).unwrap_or([1.0, 0.0, 0.0]);
    let p = pivots.0;
    [
        Point::on_body(a, p),
        Point::on_body(b, pivots.1),
        Point::on_body(a, [p[0] + u[0], p[1] + u[1]]),
    ]
}

/// The check of a slider's motor or limit (`what`) on `points` with `axis`, in a 2D scene when
/// `planar`.
pub(super) fn check_travel(
    dim: usize,
    points: &[Point; 3],
    (axis, planar): ([f64; 3], bool),
    what: &str,
) -> Result<(), InvalidParameter> {
    let (a, b) = (points[0].body(), points[1].body());
    let expected = if planar { 2 } else { 3 };
    let what = if planar {
        format!("{what} built with `planar`")
    } else {
        what.to_string()
    };
    super::check_pair(dim, expected, a, b, &what)?;
    super::check_direction("axis", &axis[..expected])
}

/// Keeps the travel of a slider (3D, or 2D with [`SliderLimit::planar`]) within a range.
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
    /// Whether it joins 2D bodies ([`SliderLimit::planar`]).
    planar: bool,
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
            planar: false,
            range: [min, max],
        }
    }

    /// The same limit on a 2D slider ([`Prismatic`](super::Prismatic)): `min ≤ s ≤ max` for
    /// the travel of `b`'s point `pivots.1` along `axis` (in a's frame) from `a`'s point
    /// `pivots.0`.
    ///
    /// ```
    /// use bead::constraint::{Prismatic, SliderLimit};
    /// use bead::{force::Gravity, Point, RigidBody, System};
    /// let mut sys = System::new(2)?;
    /// let rail = sys.add_rigid_body(RigidBody::new(&[0.0, 0.0], 0.0).fixed())?;
    /// let carriage = sys.add_rigid_body(RigidBody::new(&[0.0, 0.0], 0.0))?;
    /// let (pa, pb) = (Point::on_body(rail, [0.0, 0.0]), Point::on_body(carriage, [0.0, 0.0]));
    /// sys.add_constraint(Prismatic::new(pa, pb, [0.0, 1.0], 0.0))?;
    /// let stop = SliderLimit::planar(rail.body(), carriage.body(), ([0.0; 2], [0.0; 2]), [0.0, 1.0], -0.3, 0.2);
    /// sys.add_constraint(stop)?;
    /// sys.add_force(Gravity::new(&[0.0, -9.81]))?;
    /// sys.set_integrator(bead::integrate::ImplicitEuler::default());
    /// for _ in 0..100 {
    ///     sys.step(0.01).unwrap();
    /// }
    /// assert!((sys.coordinates(carriage.body())[1] + 0.3).abs() < 1e-8);
    /// # Ok::<(), bead::ModelError>(())
    /// ```
    pub fn planar(
        a: BodyId,
        b: BodyId,
        pivots: ([f64; 2], [f64; 2]),
        axis: [f64; 2],
        min: f64,
        max: f64,
    ) -> Self {
        SliderLimit {
            points: planar_travel_points(a, b, pivots, axis),
            axis: [axis[0], axis[1], 0.0],
            planar: true,
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
        check_travel(
            dim,
            &self.points,
            (self.axis, self.planar),
            "a slider limit",
        )?;
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
