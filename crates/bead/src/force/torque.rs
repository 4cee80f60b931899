//! A constant torque on a rigid body: `τ` fixed; potential `V = −τ θ` (so energy checks include it).

use super::{Force, ForceContext, InvalidParameter};
use crate::body::BodyId;
use crate::point::Point;
use crate::view::View;

/// A constant torque, N·m (counter-clockwise positive).
///
/// ```
/// use bead::{force::Torque, RigidBody, System};
/// let mut sys = System::new(2)?;
/// let wheel = sys.add_rigid_body(RigidBody::new(&[0.0, 0.0], 0.0).inertia(2.0))?;
/// sys.add_force(Torque::new(wheel, 1.0))?;
/// sys.step(1.0).unwrap();
/// assert!((sys.coordinate_velocities(wheel)[2] - 0.5).abs() < 1e-12); // α = τ / I
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Torque {
    body: BodyId,
    torque: f64,
}

impl Torque {
    /// A torque of `torque` N·m on `body`.
    pub fn new(body: impl Into<BodyId>, torque: f64) -> Self {
        Torque {
            body: body.into(),
            torque,
        }
    }
}

impl Force for Torque {
    fn apply(&self, ctx: &mut ForceContext<'_>) {
        ctx.add_torque(self.body, self.torque);
    }

    fn varies(&self) -> bool {
        false
    }

    fn potential_energy(&self, view: &View<'_>) -> f64 {
        -self.torque * view.angle(self.body)
    }

    fn points(&self) -> Vec<Point> {
        vec![Point::on_body(self.body, [0.0, 0.0])]
    }

    fn check(&self, _dim: usize) -> Result<(), InvalidParameter> {
        InvalidParameter::check_finite("torque", self.torque)
    }
}
