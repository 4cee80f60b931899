//! Rack and pinion: a rack's travel along a fixed world axis coupled to a pinion's rotation
//! (seed 002's contraption).
//!
//! ```text
//! C   = û·p_rack + r θ_pinion − c   ∂C/∂q_rack = [û_x, û_y, 0],  ∂C/∂q_pinion = [0, 0, r],  J̇q̇ = 0
//! ```
//!
//! The rack is expected to slide along û (hold it with an on-line constraint and an angle); when
//! the pinion turns by Δθ the rack moves by −r Δθ along û. λ is the tooth force in newtons: the
//! rack feels λ û, the pinion the torque r λ.

use super::{Constraint, ConstraintError, ConstraintEval};
use crate::body::BodyId;
use crate::point::Operand;
use crate::vector::normalized;

/// Couples a rack's travel to a pinion's rotation.
///
/// ```
/// use bead::{constraint::RackAndPinion, RigidBody, System};
/// let mut sys = System::new(2)?;
/// let rack = sys.add_rigid_body(RigidBody::new(&[0.0, 0.0], 0.0))?;
/// let pinion = sys.add_rigid_body(RigidBody::new(&[0.0, 0.2], 0.0))?;
/// sys.add_constraint(RackAndPinion::new(rack, pinion, &[1.0, 0.0], 0.2, 0.0))?;
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Debug)]
pub struct RackAndPinion {
    rack: BodyId,
    pinion: BodyId,
    axis: Vec<f64>,
    radius: f64,
    constant: f64,
}

impl RackAndPinion {
    /// A pinion of pitch radius `radius` (m) driving `rack` along the world direction `axis`,
    /// holding `û·p_rack + r θ_pinion = constant` (m).
    pub fn new(
        rack: impl Into<BodyId>,
        pinion: impl Into<BodyId>,
        axis: &[f64],
        radius: f64,
        constant: f64,
    ) -> Self {
        RackAndPinion {
            rack: rack.into(),
            pinion: pinion.into(),
            axis: axis.to_vec(),
            radius,
            constant,
        }
    }
}

impl Constraint for RackAndPinion {
    fn rows(&self, _dim: usize) -> usize {
        1
    }

    fn operands(&self) -> Vec<Operand> {
        vec![
            Operand::Coordinates(self.rack),
            Operand::Coordinates(self.pinion),
        ]
    }

    fn check(&self, dim: usize) -> Result<(), String> {
        super::check_rigid_pair(
            dim,
            self.rack,
            Some(self.pinion),
            self.constant,
            "rack-and-pinion constant",
        )?;
        super::check_len("rack axis", &self.axis, dim)?;
        if normalized(&self.axis).is_none() {
            return Err("rack axis has zero length".into());
        }
        if !(self.radius > 0.0 && self.radius.is_finite()) {
            return Err(format!(
                "pinion radius must be positive and finite, got {}",
                self.radius
            ));
        }
        Ok(())
    }

    fn evaluate(&self, eval: &mut ConstraintEval<'_>) -> Result<(), ConstraintError> {
        let u = normalized(&self.axis)
            .ok_or_else(|| ConstraintError::new("rack axis has zero length"))?;
        let p = eval.x(0);
        eval.set_value(
            0,
            u[0] * p[0] + u[1] * p[1] + self.radius * eval.x(1)[2] - self.constant,
        );
        eval.set_gradient(0, 0, &[u[0], u[1], 0.0]);
        eval.set_gradient(0, 1, &[0.0, 0.0, self.radius]);
        Ok(())
    }
}
