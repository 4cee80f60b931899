//! A torsion spring between two rigid bodies' angles (or one body and the world).
//!
//! ```text
//! Δ = θ_b − θ_a − θ₀,   τ_b = −k Δ − c (ω_b − ω_a),   τ_a = −τ_b,   V = ½ k Δ²
//! ```
//! (against the world: `Δ = θ_a − θ₀`, `τ_a = −k Δ − c ω_a`).

use super::{Force, ForceContext, ForceJacobian, InvalidParameter};
use crate::body::BodyId;
use crate::point::Point;
use crate::view::View;

/// A damped torsion spring.
///
/// ```
/// use bead::{force::TorsionSpring, RigidBody, System};
/// let mut sys = System::new(2)?;
/// let wheel = sys.add_rigid_body(RigidBody::new(&[0.0, 0.0], 0.5))?;
/// sys.add_force(TorsionSpring::to_world(wheel, 10.0, 0.0, 0.0))?;
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Debug)]
pub struct TorsionSpring {
    a: BodyId,
    b: Option<BodyId>,
    stiffness: f64,
    damping: f64,
    rest_angle: f64,
}

impl TorsionSpring {
    /// A spring of `stiffness` N·m/rad and `damping` N·m·s/rad holding `θ_b − θ_a` near `rest_angle`.
    pub fn new(
        a: impl Into<BodyId>,
        b: impl Into<BodyId>,
        stiffness: f64,
        damping: f64,
        rest_angle: f64,
    ) -> Self {
        TorsionSpring {
            a: a.into(),
            b: Some(b.into()),
            stiffness,
            damping,
            rest_angle,
        }
    }

    /// A spring from `a` to the world, holding `θ_a` near `rest_angle`.
    pub fn to_world(a: impl Into<BodyId>, stiffness: f64, damping: f64, rest_angle: f64) -> Self {
        TorsionSpring {
            a: a.into(),
            b: None,
            stiffness,
            damping,
            rest_angle,
        }
    }

    fn stretch(&self, view: &View<'_>) -> (f64, f64) {
        match self.b {
            Some(b) => (
                view.angle(b) - view.angle(self.a) - self.rest_angle,
                view.angular_velocity(b) - view.angular_velocity(self.a),
            ),
            None => (
                view.angle(self.a) - self.rest_angle,
                view.angular_velocity(self.a),
            ),
        }
    }
}

impl Force for TorsionSpring {
    fn apply(&self, ctx: &mut ForceContext<'_>) {
        let (delta, rate) = self.stretch(ctx.view());
        let tau = -self.stiffness * delta - self.damping * rate;
        match self.b {
            Some(b) => {
                ctx.add_torque(b, tau);
                ctx.add_torque(self.a, -tau);
            }
            None => ctx.add_torque(self.a, tau),
        }
    }

    fn jacobian(&self, ctx: &mut ForceJacobian<'_>) {
        let (k, c) = (self.stiffness, self.damping);
        match self.b {
            Some(b) => ctx.add_angles(&[self.a, b], &[k, -k, -k, k], &[c, -c, -c, c]),
            None => ctx.add_angles(&[self.a], &[k], &[c]),
        }
    }

    fn potential_energy(&self, view: &View<'_>) -> f64 {
        0.5 * self.stiffness * self.stretch(view).0.powi(2)
    }

    fn points(&self) -> Vec<Point> {
        std::iter::once(self.a)
            .chain(self.b)
            .map(|b| Point::on_body(b, [0.0, 0.0]))
            .collect()
    }

    fn check(&self, _dim: usize) -> Result<(), InvalidParameter> {
        InvalidParameter::check_non_negative("stiffness", self.stiffness)?;
        InvalidParameter::check_non_negative("damping", self.damping)?;
        InvalidParameter::check_finite("rest_angle", self.rest_angle)?;
        if Some(self.a) == self.b {
            return Err(InvalidParameter::new(
                "between",
                "a torsion spring needs two different bodies",
            ));
        }
        Ok(())
    }
}
