//! Half-plane: a point (a ball of radius r) stays on one side of a line or plane through a
//! (possibly moving) point.
//!
//! ```text
//! g = n̂·(x − p(t)) − r ≥ 0     ∂g/∂x = n̂ᵀ,  ∂g/∂t = −n̂·ṗ,  J̇ẋ = −n̂·p̈   (see OnPlane)
//! ```
//!
//! λ ≥ 0 is the normal force in newtons.
//!
//! With friction μ > 0 (2D), a second row holds the point's tangential speed relative to the
//! plane's point, `Ċ_t = t̂·(ẋ − ṗ)` with `t̂` the normal turned +90°, and its multiplier is
//! Coulomb's friction force along `t̂`, bounded by `|λ_t| ≤ μ λ` ([`Friction`]): zero slip inside
//! the cone, `μ λ` against the slide at its edge.

use super::on_plane::planar_row;
use super::{
    Constraint, ConstraintError, ConstraintEval, ConstraintKind, Friction, InvalidParameter,
};
use crate::draw::{Canvas, Element};
use crate::math::vector::{Vec3, normalized};
use crate::motion::Motion;
use crate::point::{Operand, Point};
use crate::view::View;

/// A floor or a wall: `n̂·(x − through) ≥ radius`.
///
/// ```
/// use bead::{constraint::HalfPlane, Motion, Particle, System};
/// let mut sys = System::new(2)?;
/// let ball = sys.add_particle(Particle::new(&[0.0, 0.1]).radius(0.1))?;
/// sys.add_constraint(HalfPlane::new(ball, Motion::fixed(&[0.0, 0.0]), &[0.0, 1.0], 0.1))?;
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Debug)]
pub struct HalfPlane {
    point: Point,
    through: Motion,
    normal: Vec<f64>,
    unit_normal: Option<Vec3>,
    radius: f64,
    friction: f64,
}

impl HalfPlane {
    /// Keeps `point` at least `radius` metres on the side of `normal` of the plane through `through`.
    pub fn new(point: impl Into<Point>, through: Motion, normal: &[f64], radius: f64) -> Self {
        HalfPlane {
            point: point.into(),
            through,
            normal: normal.to_vec(),
            unit_normal: normalized(normal),
            radius,
            friction: 0.0,
        }
    }

    /// Coulomb friction with coefficient `mu` (2D): adds the tangential row `λ_t`, positive
    /// along the normal turned +90°, with `|λ_t| ≤ μ λ`. 0 (the default) leaves it out.
    ///
    /// ```
    /// use bead::{constraint::HalfPlane, force::Gravity, Motion, Particle, System};
    /// // A particle sliding at 1 m/s on a floor with μ = 0.5 stops after v/(μ g) seconds.
    /// let mut sys = System::new(2)?;
    /// let p = sys.add_particle(Particle::new(&[0.0, 0.0]).velocity(&[1.0, 0.0]))?;
    /// let floor = HalfPlane::new(p, Motion::fixed(&[0.0, 0.0]), &[0.0, 1.0], 0.0);
    /// let floor = sys.add_constraint(floor.friction(0.5))?;
    /// sys.add_force(Gravity::new(&[0.0, -9.81]))?;
    /// sys.step(1e-3).unwrap();
    /// let lambda = sys.diagnostics().unwrap().constraint(floor).unwrap().lambda.clone();
    /// // λ_t is along t = (−1, 0), the normal turned +90°: against the slide.
    /// assert!((lambda[0] - 9.81).abs() < 1e-9 && (lambda[1] - 0.5 * 9.81).abs() < 1e-9);
    /// # Ok::<(), bead::ModelError>(())
    /// ```
    pub fn friction(mut self, mu: f64) -> Self {
        self.friction = mu;
        self
    }
}

impl Constraint for HalfPlane {
    fn rows(&self, _dim: usize) -> usize {
        if self.friction > 0.0 { 2 } else { 1 }
    }

    fn row_kind(&self, row: usize) -> ConstraintKind {
        Friction::contact_row_kind(row)
    }

    fn friction(&self, row: usize) -> Option<Friction> {
        Friction::of_contact(row, self.friction)
    }

    fn operands(&self) -> Vec<Operand> {
        vec![self.point.into()]
    }

    fn kind(&self) -> ConstraintKind {
        ConstraintKind::Inequality
    }

    fn check(&self, dim: usize) -> Result<(), InvalidParameter> {
        super::check_location("through", &self.through, dim)?;
        InvalidParameter::check_direction("normal", &self.normal, dim)?;
        InvalidParameter::check_non_negative("radius", self.radius)?;
        InvalidParameter::check_non_negative("friction", self.friction)?;
        if self.friction > 0.0 && dim != 2 {
            return Err(InvalidParameter::new(
                "friction",
                "friction on a half-plane is two-dimensional for now",
            )
            .hint("leave friction out in a 3D scene"));
        }
        Ok(())
    }

    fn draw(&self, view: &View<'_>, canvas: &mut dyn Canvas) {
        let Some(n) = self.unit_normal else { return };
        let p = self.through.sample(view.time()).position;
        let t = [-n[1], n[0], 0.0];
        let end = |k: f64| std::array::from_fn(|i| p[i] + k * t[i]);
        canvas.line(end(-100.0), end(100.0), Element::Wire);
    }

    fn evaluate(&self, eval: &mut ConstraintEval<'_>) -> Result<(), ConstraintError> {
        let n = self
            .unit_normal
            .ok_or_else(|| ConstraintError::new("half-plane normal has zero length"))?;
        let through = self.through.sample(eval.time());
        planar_row(eval, 0, &n, &through);
        let g = crate::math::vector::dot(
            &n,
            &crate::math::vector::sub(eval.x(0), &through.position[..eval.dim()]),
        ) - self.radius;
        eval.set_value(0, g);
        if self.friction > 0.0 {
            // The tangent row holds a speed only: its value is no position.
            let t = [-n[1], n[0], 0.0];
            planar_row(eval, 1, &t, &through);
            eval.set_value(1, 0.0);
        }
        Ok(())
    }

    /// Linear in its operands: no geometric stiffness.
    fn linear(&self) -> bool {
        true
    }
}
