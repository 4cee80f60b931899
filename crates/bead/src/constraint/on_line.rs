//! On-line: a point kept on a straight line through a (possibly moving) point.
//!
//! The line is the intersection of the planes through `p(t)` normal to the directions orthogonal
//! to the line: one row in 2D (`n̂ = d̂` turned by 90°), two in 3D (an orthonormal pair ⊥ d̂).
//!
//! ```text
//! C_k  = n̂_k·(x − p(t))       ∂C_k/∂x = n̂_kᵀ,  ∂C_k/∂t = −n̂_k·ṗ,  J̇ẋ_k = −n̂_k·p̈
//! ```
//!
//! Each λ_k is the force along n̂_k, in newtons.

use super::on_plane::planar_row;
use super::{Constraint, ConstraintError, ConstraintEval, InvalidParameter};
use crate::draw::{Canvas, Element};
use crate::math::vector::{Vec3, normalized, orthonormal_pair};
use crate::motion::Motion;
use crate::point::{Operand, Point};
use crate::view::View;

/// Keeps a point on a line (a bead on a straight wire).
///
/// ```
/// use bead::{constraint::OnLine, Motion, Particle, System};
/// let mut sys = System::new(2)?;
/// let p = sys.add_particle(Particle::new(&[0.0, 0.0]))?;
/// // A wire along the diagonal.
/// sys.add_constraint(OnLine::new(p, Motion::fixed(&[0.0, 0.0]), &[1.0, 1.0]))?;
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Debug)]
pub struct OnLine {
    point: Point,
    through: Motion,
    direction: Vec<f64>,
    unit_direction: Option<Vec3>,
}

impl OnLine {
    /// Keeps `point` on the line through `through` along `direction` (any non-zero length).
    pub fn new(point: impl Into<Point>, through: Motion, direction: &[f64]) -> Self {
        OnLine {
            point: point.into(),
            through,
            direction: direction.to_vec(),
            unit_direction: normalized(direction),
        }
    }

    /// Unit normals of the line: one in 2D, two in 3D.
    fn normals(&self, dim: usize) -> Result<Vec<Vec3>, ConstraintError> {
        let d = self
            .unit_direction
            .ok_or_else(|| ConstraintError::new("line direction has zero length"))?;
        Ok(if dim == 2 {
            vec![[-d[1], d[0], 0.0]]
        } else {
            let (a, b) = orthonormal_pair(&d);
            vec![a, b]
        })
    }
}

impl Constraint for OnLine {
    fn rows(&self, dim: usize) -> usize {
        dim - 1
    }

    fn operands(&self) -> Vec<Operand> {
        vec![self.point.into()]
    }

    fn check(&self, dim: usize) -> Result<(), InvalidParameter> {
        super::check_location("through", &self.through, dim)?;
        InvalidParameter::check_direction("direction", &self.direction, dim)
    }

    fn draw(&self, view: &View<'_>, canvas: &mut dyn Canvas) {
        // A long segment centred on the point's projection: renderers clip to their view.
        let Some(d) = self.unit_direction else { return };
        let p = self.through.sample(view.time()).position;
        let x = view.position(&self.point);
        let s: f64 = (0..3).map(|i| (x[i] - p[i]) * d[i]).sum();
        let end = |k: f64| std::array::from_fn(|i| p[i] + (s + k) * d[i]);
        canvas.line(end(-100.0), end(100.0), Element::Wire);
    }

    fn evaluate(&self, eval: &mut ConstraintEval<'_>) -> Result<(), ConstraintError> {
        let through = self.through.sample(eval.time());
        for (row, n) in self.normals(eval.dim())?.iter().enumerate() {
            planar_row(eval, row, n, &through);
        }
        Ok(())
    }

    /// Linear in its operands: no geometric stiffness.
    fn linear(&self) -> bool {
        true
    }
}
