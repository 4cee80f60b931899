//! Prismatic joint: body b slides along an axis fixed in body a, without turning relative to it.
//!
//! With `n = R(θ_a) n_l` the axis normal in the world (`n_l` ⊥ the axis in a's frame),
//! `d = x_b − x_a` between a point of the axis (on a) and a point of b, `ḋ = ẋ_b − ẋ_a`,
//! `perp(v) = (−v_y, v_x)`:
//!
//! ```text
//! C₀  = n·d                  ∂C₀/∂x_a = −nᵀ,  ∂C₀/∂x_b = nᵀ,  ∂C₀/∂θ_a = perp(n)·d
//! J̇ẋ₀ = −ω_a² n·d + 2 ω_a perp(n)·ḋ        (from n̈ = α perp(n) − ω² n and ṅ = ω perp(n))
//! C₁  = θ_b − θ_a − θ₀        (see Angle)
//! ```
//!
//! The θ_a derivative comes from the axis turning with body a; the points' own dependence on the
//! bodies' angles is added by the chain rule. λ₀ is the normal force on b (N), λ₁ the torque on
//! b (N·m). A slider on a fixed world axis is an on-line constraint plus `Angle::to_world`.

use super::{Constraint, ConstraintError, ConstraintEval, InvalidParameter};
use crate::math::vector::normalized;
use crate::point::{Operand, Point};

/// A slider: b moves along an axis of a.
///
/// ```
/// use bead::{constraint::Prismatic, Point, RigidBody, System};
/// let mut sys = System::new(2)?;
/// let guide = sys.add_rigid_body(RigidBody::new(&[0.0, 0.0], 0.0))?;
/// let slider = sys.add_rigid_body(RigidBody::new(&[1.0, 0.0], 0.0))?;
/// sys.add_constraint(Prismatic::new(Point::on_body(guide, [0.0, 0.0]), Point::on_body(slider, [0.0, 0.0]), [1.0, 0.0], 0.0))?;
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Prismatic {
    points: [Point; 2],
    axis: [f64; 2],
    angle: f64,
}

impl Prismatic {
    /// b's point `b` slides along the line through `a` with direction `axis` in a's frame, with
    /// `θ_b − θ_a = angle`.
    pub fn new(a: Point, b: Point, axis: [f64; 2], angle: f64) -> Self {
        Prismatic {
            points: [a, b],
            axis,
            angle,
        }
    }
}

impl Constraint for Prismatic {
    fn rows(&self, _dim: usize) -> usize {
        2
    }

    fn operands(&self) -> Vec<Operand> {
        let [a, b] = self.points;
        vec![
            a.into(),
            b.into(),
            Operand::Coordinates(a.body()),
            Operand::Coordinates(b.body()),
        ]
    }

    fn check(&self, dim: usize) -> Result<(), InvalidParameter> {
        InvalidParameter::check_direction("axis", &self.axis, 2)?;
        if !matches!(self.points[0], Point::OnBody { .. })
            || self.points[0].body() == self.points[1].body()
        {
            return Err(InvalidParameter::new(
                "between",
                "a prismatic joint's axis is a point of a rigid body, and the slider another body",
            ));
        }
        super::check_rigid_pair(
            dim,
            self.points[0].body(),
            Some(self.points[1].body()),
            "between",
        )?;
        InvalidParameter::check_finite("angle", self.angle)
    }

    fn evaluate(&self, eval: &mut ConstraintEval<'_>) -> Result<(), ConstraintError> {
        let u = normalized(&self.axis)
            .ok_or_else(|| ConstraintError::new("prismatic axis has zero length"))?;
        let (theta, omega) = (eval.x(2)[2], eval.v(2)[2]);
        let (s, c) = theta.sin_cos();
        // n_l = perp(u) in a's frame, turned into the world.
        let nl = [-u[1], u[0]];
        let n = [c * nl[0] - s * nl[1], s * nl[0] + c * nl[1]];
        let pn = [-n[1], n[0]];
        let d = [eval.x(1)[0] - eval.x(0)[0], eval.x(1)[1] - eval.x(0)[1]];
        let dd = [eval.v(1)[0] - eval.v(0)[0], eval.v(1)[1] - eval.v(0)[1]];
        let dot = |a: [f64; 2], b: [f64; 2]| a[0] * b[0] + a[1] * b[1];
        eval.set_value(0, dot(n, d));
        eval.set_gradient(0, 0, &[-n[0], -n[1]]);
        eval.set_gradient(0, 1, &n);
        eval.set_gradient(0, 2, &[0.0, 0.0, dot(pn, d)]);
        eval.set_jdot_xdot(0, -omega * omega * dot(n, d) + 2.0 * omega * dot(pn, dd));
        eval.set_value(1, eval.x(3)[2] - eval.x(2)[2] - self.angle);
        eval.set_gradient(1, 2, &[0.0, 0.0, -1.0]);
        eval.set_gradient(1, 3, &[0.0, 0.0, 1.0]);
        Ok(())
    }
}
