//! On-plane: a point kept on a plane through a (possibly moving) point, in 3D.
//!
//! ```text
//! C   = n̂·(x − p(t))          ∂C/∂x = n̂ᵀ,  ∂C/∂t = −n̂·ṗ
//! J̇ẋ  = −n̂·p̈                  (a flat constraint has no velocity-product term)
//! ```
//!
//! λ is the force along n̂, in newtons.

use super::{Constraint, ConstraintError, ConstraintEval, InvalidParameter};
use crate::draw::{Canvas, Element};
use crate::math::vector::{Vec3, dot, normalized, sub};
use crate::motion::{Motion, MotionSample};
use crate::point::{Operand, Point};
use crate::view::View;

/// Keeps a 3D point on a plane.
///
/// ```
/// use bead::{constraint::OnPlane, Motion, Particle, System};
/// let mut sys = System::new(3)?;
/// let p = sys.add_particle(Particle::new(&[0.0, 0.0, 0.0]))?;
/// sys.add_constraint(OnPlane::new(p, Motion::fixed(&[0.0, 0.0, 0.0]), &[0.0, 0.0, 1.0]))?;
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Debug)]
pub struct OnPlane {
    point: Point,
    through: Motion,
    normal: Vec<f64>,
    unit_normal: Option<Vec3>,
}

impl OnPlane {
    /// Keeps `point` on the plane through `through` with normal `normal` (any non-zero length).
    pub fn new(point: impl Into<Point>, through: Motion, normal: &[f64]) -> Self {
        OnPlane {
            point: point.into(),
            through,
            normal: normal.to_vec(),
            unit_normal: normalized(normal),
        }
    }
}

impl Constraint for OnPlane {
    fn rows(&self, _dim: usize) -> usize {
        1
    }

    fn operands(&self) -> Vec<Operand> {
        vec![self.point.into()]
    }

    fn check(&self, dim: usize) -> Result<(), InvalidParameter> {
        if dim != 3 {
            return Err(InvalidParameter::new(
                "dimension",
                "on-plane is for 3D systems; in 2D use on-line",
            ));
        }
        super::check_location("through", &self.through, dim)?;
        InvalidParameter::check_direction("normal", &self.normal, dim)
    }

    fn draw(&self, view: &View<'_>, canvas: &mut dyn Canvas) {
        // A disc of the plane around the point, drawn as its outline.
        let Some(n) = self.unit_normal else { return };
        canvas.circle(view.position(&self.point), 0.5, n, Element::Wire);
    }

    fn evaluate(&self, eval: &mut ConstraintEval<'_>) -> Result<(), ConstraintError> {
        let n = self
            .unit_normal
            .ok_or_else(|| ConstraintError::new("plane normal has zero length"))?;
        planar_row(eval, 0, &n, &self.through.sample(eval.time()));
        Ok(())
    }

    /// Linear in its operands: no geometric stiffness.
    fn linear(&self) -> bool {
        true
    }
}

/// Writes row `row` as `n̂·(x₀ − p(t))` for operand 0 (shared with [`OnLine`](super::OnLine)).
pub(super) fn planar_row(
    eval: &mut ConstraintEval<'_>,
    row: usize,
    n: &Vec3,
    through: &MotionSample,
) {
    let dim = eval.dim();
    let d = sub(eval.x(0), &through.position[..dim]);
    eval.set_value(row, dot(n, &d));
    eval.set_gradient(row, 0, &n[..dim]);
    eval.set_time_derivative(row, -dot(n, &through.velocity));
    eval.set_jdot_xdot(row, -dot(n, &through.acceleration));
}
