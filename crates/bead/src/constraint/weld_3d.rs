//! A weld between two 3D rigid bodies: their pivots coincide and their relative orientation is
//! held, six rows that leave them moving as one (seed 002's weld, in space).
//!
//! ```text
//! C₀..₂ = P_a − P_b                the pivots coincide (3 rows)
//! C₃..₅                            the relative orientation held (see orientation_lock)
//! ```
//!
//! λ₀..₂ is the force on body a at the pivot, N; each body's reported reaction (`Jᵀλ`) gives
//! the weld's whole force and torque on it.

use super::dot_rows::{add_hessians, write_rows};
use super::orientation_lock::{OrientationLock, unit_quaternion};
use super::{Constraint, ConstraintError, ConstraintEval, HessianEval, InvalidParameter};
use crate::draw::{Canvas, Element};
use crate::ids::BodyId;
use crate::point::{Operand, Point};
use crate::view::View;

/// Glues two 3D rigid bodies together.
///
/// ```
/// use bead::{constraint::Weld3d, force::Gravity, RigidBody3d, System};
/// let mut sys = System::new(3)?;
/// let wall = sys.add_rigid_body_3d(RigidBody3d::new([0.0; 3]).fixed())?;
/// let shelf = sys.add_rigid_body_3d(RigidBody3d::new([0.5, 0.0, 0.0]))?;
/// // Welded at the wall, both unturned: the shelf hangs on as a cantilever.
/// sys.add_constraint(Weld3d::new(wall.body(), shelf.body(), ([0.0; 3], [-0.5, 0.0, 0.0]), [1.0, 0.0, 0.0, 0.0]))?;
/// sys.add_force(Gravity::new(&[0.0, 0.0, -9.81]))?;
/// sys.step(0.01).unwrap();
/// assert!(sys.coordinates(shelf.body())[2].abs() < 1e-9);
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Weld3d {
    /// `P_a, P_b`, then the lock's `E₁, E₂, F₁, U_b`.
    points: [Point; 6],
    relative: [f64; 4],
}

impl Weld3d {
    /// Welds `b` to `a` at the pivots `pivots` (each in its body's frame), holding b's
    /// orientation in a's frame at the quaternion `relative` (`[w, x, y, z]`, `R_aᵀ R_b`; any
    /// nonzero length: it is normalized; `[1, 0, 0, 0]` keeps the two bodies' axes parallel).
    pub fn new(a: BodyId, b: BodyId, pivots: ([f64; 3], [f64; 3]), relative: [f64; 4]) -> Self {
        let unit = unit_quaternion(relative).unwrap_or(relative);
        let frame = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
        let lock = OrientationLock::new(a, b, pivots, frame, unit);
        let [e1, e2, f1, ub] = lock.points;
        Weld3d {
            points: [
                Point::on_body_3d(a, pivots.0),
                Point::on_body_3d(b, pivots.1),
                e1,
                e2,
                f1,
                ub,
            ],
            relative,
        }
    }
}

impl Constraint for Weld3d {
    fn rows(&self, _dim: usize) -> usize {
        6
    }

    fn operands(&self) -> Vec<Operand> {
        self.points.iter().map(|&p| p.into()).collect()
    }

    fn check(&self, dim: usize) -> Result<(), InvalidParameter> {
        let (a, b) = (self.points[0].body(), self.points[1].body());
        super::check_pair(dim, 3, a, b, "a 3D weld")?;
        super::check_direction("relative", &self.relative)
    }

    fn draw(&self, view: &View<'_>, canvas: &mut dyn Canvas) {
        canvas.marker(view.position(&self.points[0]), Element::Joint);
    }

    fn evaluate(&self, eval: &mut ConstraintEval<'_>) -> Result<(), ConstraintError> {
        super::revolute::coincide(eval);
        write_rows(eval, 6, 3, &OrientationLock::rows([0, 1], 2));
        Ok(())
    }

    fn weighted_hessian(
        &self,
        at: &HessianEval<'_>,
        weights: &[f64],
        hessian: &mut [f64],
    ) -> Result<(), ConstraintError> {
        add_hessians(at, weights, 3, &OrientationLock::rows([0, 1], 2), hessian);
        Ok(())
    }
}
