//! A slider between two 3D rigid bodies: b moves along an axis fixed in a, without turning
//! against it, five rows that leave one degree of freedom (seed 002's prismatic joint, in space).
//!
//! With `P_a` a point of the axis on a, `P_b` the sliding point on b, and `E₁`, `E₂` one metre
//! from `P_a` across the axis on a:
//!
//! ```text
//! C₀ = (P_b − P_a) · (E₁ − P_a)      P_b has no part across the axis
//! C₁ = (P_b − P_a) · (E₂ − P_a)
//! C₂..₄                              the relative orientation held (see orientation_lock)
//! ```
//!
//! Every row is a dot row of chords (see `dot_rows`). λ₀, λ₁ are the force across the axis on b,
//! N; each body's reported reaction (`Jᵀλ`) gives the joint's whole force and torque on it.

use super::dot_rows::{Chords, add_hessians, write_rows};
use super::orientation_lock::{OrientationLock, unit_quaternion};
use super::{Constraint, ConstraintError, ConstraintEval, HessianEval, InvalidParameter};
use crate::draw::{Canvas, Element};
use crate::ids::BodyId;
use crate::math::vector::{cross, normalized, orthonormal_pair};
use crate::point::{Operand, Point};
use crate::view::View;

/// A slider: 3D body b moves along an axis of body a.
///
/// ```
/// use bead::{constraint::Prismatic3d, force::Gravity, RigidBody3d, System};
/// let mut sys = System::new(3)?;
/// let rail = sys.add_rigid_body_3d(RigidBody3d::new([0.0; 3]).fixed())?;
/// let carriage = sys.add_rigid_body_3d(RigidBody3d::new([0.0; 3]))?;
/// // A vertical rail: the carriage falls freely along it.
/// let z = [0.0, 0.0, 1.0];
/// sys.add_constraint(Prismatic3d::new(rail.body(), carriage.body(), ([0.0; 3], [0.0; 3]), z, [1.0, 0.0, 0.0, 0.0]))?;
/// sys.add_force(Gravity::new(&[0.0, 0.0, -9.81]))?;
/// sys.step(0.1).unwrap();
/// assert!((sys.coordinate_velocities(carriage.body())[2] + 0.981).abs() < 1e-9);
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Prismatic3d {
    /// `P_a, P_b`, then the lock's `E₁, E₂, F₁, U_b`.
    points: [Point; 6],
    axis: [f64; 3],
    relative: [f64; 4],
}

/// Rows 0 and 1 over the points `P_a, P_b, E₁, E₂, …`.
const SLIDE_ROWS: [Chords; 2] = [Chords::new([1, 0], [2, 0]), Chords::new([1, 0], [3, 0])];

impl Prismatic3d {
    /// `b`'s point `pivots.1` slides along the line through `a`'s point `pivots.0` with direction
    /// `axis` (in a's frame; any nonzero length), b's orientation in a's frame held at the
    /// quaternion `relative` (`[w, x, y, z]`, `R_aᵀ R_b`; `[1, 0, 0, 0]` keeps the two bodies'
    /// axes parallel).
    pub fn new(
        a: BodyId,
        b: BodyId,
        pivots: ([f64; 3], [f64; 3]),
        axis: [f64; 3],
        relative: [f64; 4],
    ) -> Self {
        let u = normalized(&axis).unwrap_or([0.0, 0.0, 1.0]);
        let (e1, e2) = orthonormal_pair(&u);
        let unit = unit_quaternion(relative).unwrap_or(relative);
        let lock = OrientationLock::new(a, b, pivots, [e1, e2, u], unit);
        let [e1, e2, f1, ub] = lock.points;
        Prismatic3d {
            points: [
                Point::on_body_3d(a, pivots.0),
                Point::on_body_3d(b, pivots.1),
                e1,
                e2,
                f1,
                ub,
            ],
            axis,
            relative,
        }
    }

    fn rows_as_chords() -> [Chords; 5] {
        let lock = OrientationLock::rows([0, 1], 2);
        [SLIDE_ROWS[0], SLIDE_ROWS[1], lock[0], lock[1], lock[2]]
    }
}

impl Constraint for Prismatic3d {
    fn rows(&self, _dim: usize) -> usize {
        5
    }

    fn operands(&self) -> Vec<Operand> {
        self.points.iter().map(|&p| p.into()).collect()
    }

    fn check(&self, dim: usize) -> Result<(), InvalidParameter> {
        let (a, b) = (self.points[0].body(), self.points[1].body());
        super::check_pair(dim, 3, a, b, "a 3D slider")?;
        super::check_direction("axis", &self.axis)?;
        super::check_direction("relative", &self.relative)
    }

    /// The sliding point, and the axis through it 5 cm either way.
    fn draw(&self, view: &View<'_>, canvas: &mut dyn Canvas) {
        let at = view.position(&self.points[1]);
        let origin = view.position(&self.points[0]);
        let (e1, e2) = (
            view.position(&self.points[2]),
            view.position(&self.points[3]),
        );
        let d1 = [0, 1, 2].map(|k| e1[k] - origin[k]);
        let d2 = [0, 1, 2].map(|k| e2[k] - origin[k]);
        let along = cross(&d1, &d2);
        let end = |s: f64| [0, 1, 2].map(|k| at[k] + s * along[k]);
        canvas.marker(at, Element::Joint);
        canvas.line(end(-0.05), end(0.05), Element::Rod);
    }

    fn evaluate(&self, eval: &mut ConstraintEval<'_>) -> Result<(), ConstraintError> {
        write_rows(eval, 6, 0, &Prismatic3d::rows_as_chords());
        Ok(())
    }

    fn weighted_hessian(
        &self,
        at: &HessianEval<'_>,
        weights: &[f64],
        hessian: &mut [f64],
    ) -> Result<(), ConstraintError> {
        add_hessians(at, weights, 0, &Prismatic3d::rows_as_chords(), hessian);
        Ok(())
    }
}
