//! Rack and pinion: a pinion rolling along a rack without slipping (seed 002's contraption), the
//! tooth force acting where the pinion's pitch circle meets the rack's pitch line.
//!
//! The rack is body r (centre `p_r`, angle `θ_r`), the pinion body p (`p_p`, `θ_p`), of pitch
//! radius ρ. The rack's direction of travel û is fixed in the rack's frame; in the world it is
//! `û_w = R(θ_r) û`, and `n̂ = perp(û_w) = (−û_w,y, û_w,x)` points to its left. The pinion meshes
//! on side `s = ±1` of the rack: `s = +1` on the left of û (above a rack running along +x). With
//! `d = p_p − p_r`:
//!
//! ```text
//! C        = û_w·d + s ρ (θ_p − θ_r) − c
//! Ċ        = û_w·ḋ + ω_r n̂·d + s ρ (ω_p − ω_r)
//! ∂C/∂q_r  = [−û_w,  −s ρ + n̂·d]          ∂C/∂q_p = [û_w,  s ρ]
//! J̇q̇       = −ω_r² û_w·d + 2 ω_r n̂·ḋ
//! ```
//!
//! Why this `C`: the pinion's pitch point is `k = p_p − s ρ n̂`. Along û_w, that point moves at
//! `û_w·ṗ_p + s ρ ω_p` as a point of the pinion and at `û_w·ṗ_r − ω_r n̂·d + s ρ ω_r` as a point of
//! the rack (`ω × (k − p_r)`, with `û_w·perp(d) = −n̂·d`). Their difference, the teeth's slip, is
//! exactly `Ċ`: `C = 0` is rolling without slipping, and it integrates to a position constraint.
//! `C` depends on the two bodies only through `d` and `θ_p − θ_r`, so moving or turning the whole
//! mechanism leaves it unchanged. (`J̇q̇` uses `dû_w/dt = ω_r n̂` and `dn̂/dt = −ω_r û_w`.)
//!
//! λ is the tooth force in newtons: the pinion feels `λ û_w` at `k` (the torque `s ρ λ` about its
//! centre), the rack `−λ û_w` at the same point (the torque `(n̂·d − s ρ) λ` about its centre) —
//! equal and opposite forces on one line, so momentum and angular momentum are conserved.
//!
//! Check: a pinion above a rack along +x turning counter-clockwise (ω_p > 0) pushes its lowest
//! tooth, and with it the rack, towards +x: `û·ṗ_r = ρ ω_p` with the pinion's axle held. Below the
//! rack the same turn moves the rack towards −x.

use super::{Constraint, ConstraintError, ConstraintEval, InvalidParameter};
use crate::body::BodyId;
use crate::error::ModelError;
use crate::point::Operand;
use crate::view::View;

/// Which side of the rack's direction of travel the pinion meshes on.
///
/// ```
/// use bead::constraint::PinionSide;
/// // A pinion above a rack that runs along +x is on the rack's left.
/// assert_eq!(PinionSide::Left.sign(), 1.0);
/// assert_eq!(PinionSide::Right.sign(), -1.0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PinionSide {
    /// On the left of the direction of travel û (`n̂ = perp(û)` points at the pinion): above a
    /// rack running along +x.
    Left,
    /// On the right of û: below a rack running along +x.
    Right,
}

impl PinionSide {
    /// `s` of the module's formulas: +1 on the left, −1 on the right.
    ///
    /// ```
    /// assert_eq!(bead::constraint::PinionSide::Right.sign(), -1.0);
    /// ```
    pub fn sign(self) -> f64 {
        match self {
            PinionSide::Left => 1.0,
            PinionSide::Right => -1.0,
        }
    }
}

/// A pinion rolling on a rack, tooth on tooth.
///
/// Build it with [`RackAndPinion::meshing`], which reads the side and the constant from the
/// bodies as they stand, or with [`RackAndPinion::new`] and the `with_` setters.
///
/// ```
/// use bead::{constraint::RackAndPinion, RigidBody, System};
/// let mut sys = System::new(2)?;
/// let rack = sys.add_rigid_body(RigidBody::new(&[0.0, -0.05], 0.0))?;
/// let pinion = sys.add_rigid_body(RigidBody::new(&[0.0, 0.2], 0.0))?;
/// // The rack runs along its own x axis; the pinion (pitch radius 0.2 m) sits on top of it.
/// let teeth = RackAndPinion::meshing(&sys, rack, pinion, [1.0, 0.0], 0.2)?;
/// sys.add_constraint(teeth)?;
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Debug)]
pub struct RackAndPinion {
    rack: BodyId,
    pinion: BodyId,
    /// Direction of travel in the rack's frame, as given (checked when the constraint is added).
    axis: [f64; 2],
    radius: f64,
    side: PinionSide,
    constant: f64,
}

impl RackAndPinion {
    /// A pinion of pitch radius `radius` (m) on `rack`, which travels along `axis` — a direction
    /// in the rack's own frame, any length. The pinion meshes on the rack's left
    /// ([`PinionSide::Left`]) and `c = 0` until the `with_` setters say otherwise.
    ///
    /// ```
    /// use bead::constraint::{PinionSide, RackAndPinion};
    /// use bead::{RigidBody, System};
    /// let mut sys = System::new(2)?;
    /// let rack = sys.add_rigid_body(RigidBody::new(&[0.0, 0.0], 0.0))?;
    /// let pinion = sys.add_rigid_body(RigidBody::new(&[0.0, -0.1], 0.0))?;
    /// // Under the rack: C = x_p − x_r − 0.1 (θ_p − θ_r) = 0 at this state.
    /// sys.add_constraint(RackAndPinion::new(rack, pinion, [1.0, 0.0], 0.1).with_side(PinionSide::Right))?;
    /// # Ok::<(), bead::ModelError>(())
    /// ```
    pub fn new(
        rack: impl Into<BodyId>,
        pinion: impl Into<BodyId>,
        axis: [f64; 2],
        radius: f64,
    ) -> Self {
        RackAndPinion {
            rack: rack.into(),
            pinion: pinion.into(),
            axis,
            radius,
            side: PinionSide::Left,
            constant: 0.0,
        }
    }

    /// The same constraint with the pinion on `side` of the rack.
    ///
    /// ```
    /// use bead::constraint::{PinionSide, RackAndPinion};
    /// use bead::{RigidBody, System};
    /// let mut sys = System::new(2)?;
    /// let rack = sys.add_rigid_body(RigidBody::new(&[0.0, 0.0], 0.0))?;
    /// let pinion = sys.add_rigid_body(RigidBody::new(&[0.0, -0.1], 0.0))?;
    /// let teeth = RackAndPinion::new(rack, pinion, [1.0, 0.0], 0.1).with_side(PinionSide::Right);
    /// assert_eq!(teeth.side(), PinionSide::Right);
    /// # Ok::<(), bead::ModelError>(())
    /// ```
    pub fn with_side(mut self, side: PinionSide) -> Self {
        self.side = side;
        self
    }

    /// The same constraint holding `C = 0` with the constant `c` (m): which tooth meets which.
    ///
    /// ```
    /// use bead::constraint::{evaluate_at, RackAndPinion};
    /// use bead::{RigidBody, System};
    /// let mut sys = System::new(2)?;
    /// let rack = sys.add_rigid_body(RigidBody::new(&[0.0, 0.0], 0.0))?;
    /// let pinion = sys.add_rigid_body(RigidBody::new(&[0.3, 0.1], 0.0))?;
    /// let teeth = RackAndPinion::new(rack, pinion, [1.0, 0.0], 0.1).with_constant(0.3);
    /// let e = evaluate_at(&teeth, 2, 0.0, &[0.0, 0.0, 0.0, 0.3, 0.1, 0.0], &[0.0; 6]).unwrap();
    /// assert!(e.c[0].abs() < 1e-15);
    /// # Ok::<(), bead::ModelError>(())
    /// ```
    pub fn with_constant(mut self, constant: f64) -> Self {
        self.constant = constant;
        self
    }

    /// The rack and pinion as they stand in `system`: the side is the one the pinion's centre is
    /// on (of the line along the axis through the rack's centre) and the constant makes `C = 0`
    /// now. `axis` is the direction of travel in the rack's frame, `radius` the pinion's pitch
    /// radius in metres.
    ///
    /// # Errors
    /// [`ModelError::UnknownBody`] if either is not a rigid body of `state` (a
    /// [`System`](crate::System) or its [`View`]);
    /// [`ModelError::ConstraintParameter`] if the two are the same body, the axis is zero or not
    /// finite or the radius is not positive (it names the parameter: `pinion`, `axis`, `radius`);
    /// [`ModelError::Constraint`] if the pinion's centre lies on the rack's line, where the side
    /// it meshes on is undefined.
    ///
    /// ```
    /// use bead::constraint::{PinionSide, RackAndPinion};
    /// use bead::{RigidBody, System};
    /// let mut sys = System::new(2)?;
    /// let rack = sys.add_rigid_body(RigidBody::new(&[0.0, 0.0], 0.0))?;
    /// let pinion = sys.add_rigid_body(RigidBody::new(&[0.4, -0.1], 0.0))?;
    /// let teeth = RackAndPinion::meshing(&sys, rack, pinion, [1.0, 0.0], 0.1)?;
    /// assert_eq!(teeth.side(), PinionSide::Right);
    /// let on_the_line = sys.add_rigid_body(RigidBody::new(&[0.4, 0.0], 0.0))?;
    /// assert!(RackAndPinion::meshing(&sys, rack, on_the_line, [1.0, 0.0], 0.1).is_err());
    /// # Ok::<(), bead::ModelError>(())
    /// ```
    pub fn meshing<'a>(
        state: impl Into<View<'a>>,
        rack: impl Into<BodyId>,
        pinion: impl Into<BodyId>,
        axis: [f64; 2],
        radius: f64,
    ) -> Result<Self, ModelError> {
        let state = state.into();
        let mut teeth = RackAndPinion::new(rack, pinion, axis, radius);
        teeth
            .check(state.dim())
            .map_err(|e| ModelError::ConstraintParameter(Box::new(e)))?;
        let qr = state.rigid_coordinates(teeth.rack)?;
        let qp = state.rigid_coordinates(teeth.pinion)?;
        let (u, n) = teeth.frame(qr[2]);
        let d = [qp[0] - qr[0], qp[1] - qr[1]];
        let across = n[0] * d[0] + n[1] * d[1];
        // Within a nanometre per metre of pitch radius of the line, the side is rounding noise.
        if !(across.abs() > 1e-9 * radius) {
            return Err(ModelError::Constraint(
                "the pinion's centre is on the rack's line of travel (the line along the axis \
                 through the rack's centre), so the side of the rack it meshes on is undefined"
                    .into(),
            ));
        }
        teeth.side = if across > 0.0 {
            PinionSide::Left
        } else {
            PinionSide::Right
        };
        let sr = teeth.side.sign() * radius;
        teeth.constant = u[0] * d[0] + u[1] * d[1] + sr * (qp[2] - qr[2]);
        // Positions far beyond any mechanism's size could still overflow the constant.
        teeth
            .check(state.dim())
            .map_err(|e| ModelError::ConstraintParameter(Box::new(e)))?;
        Ok(teeth)
    }

    /// The side of the rack the pinion meshes on.
    ///
    /// ```
    /// use bead::constraint::{PinionSide, RackAndPinion};
    /// use bead::{RigidBody, System};
    /// let mut sys = System::new(2)?;
    /// let rack = sys.add_rigid_body(RigidBody::new(&[0.0, 0.0], 0.0))?;
    /// let pinion = sys.add_rigid_body(RigidBody::new(&[0.0, 0.1], 0.0))?;
    /// assert_eq!(RackAndPinion::new(rack, pinion, [1.0, 0.0], 0.1).side(), PinionSide::Left);
    /// # Ok::<(), bead::ModelError>(())
    /// ```
    pub fn side(&self) -> PinionSide {
        self.side
    }

    /// The constant `c`, in metres.
    ///
    /// ```
    /// use bead::constraint::RackAndPinion;
    /// use bead::{RigidBody, System};
    /// let mut sys = System::new(2)?;
    /// let rack = sys.add_rigid_body(RigidBody::new(&[0.0, 0.0], 0.0))?;
    /// let pinion = sys.add_rigid_body(RigidBody::new(&[0.25, 0.1], 0.0))?;
    /// let teeth = RackAndPinion::meshing(&sys, rack, pinion, [1.0, 0.0], 0.1)?;
    /// assert!((teeth.constant() - 0.25).abs() < 1e-15);
    /// # Ok::<(), bead::ModelError>(())
    /// ```
    pub fn constant(&self) -> f64 {
        self.constant
    }

    /// `û_w` and `n̂` for the rack at angle `theta`. The axis is checked non-zero when the
    /// constraint is added; a zero axis gives NaN here, never a panic.
    fn frame(&self, theta: f64) -> ([f64; 2], [f64; 2]) {
        let len = self.axis[0].hypot(self.axis[1]);
        let (ux, uy) = (self.axis[0] / len, self.axis[1] / len);
        let (s, c) = theta.sin_cos();
        let u = [c * ux - s * uy, s * ux + c * uy];
        (u, [-u[1], u[0]])
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

    fn check(&self, dim: usize) -> Result<(), InvalidParameter> {
        super::check_rigid_pair(dim, self.rack, Some(self.pinion), "pinion")?;
        InvalidParameter::check_non_zero("axis", &self.axis, 2)?;
        InvalidParameter::check_positive("radius", self.radius)?;
        InvalidParameter::check_finite("constant", self.constant).map_err(|e| {
            e.hint(
                "meshing takes it from the bodies' positions and angles, which must be of a \
                 mechanism's size",
            )
        })
    }

    fn evaluate(&self, eval: &mut ConstraintEval<'_>) -> Result<(), ConstraintError> {
        let (qr, qp) = (eval.x(0), eval.x(1));
        let (vr, vp) = (eval.v(0), eval.v(1));
        let (u, n) = self.frame(qr[2]);
        let d = [qp[0] - qr[0], qp[1] - qr[1]];
        let d_dot = [vp[0] - vr[0], vp[1] - vr[1]];
        let dot = |a: [f64; 2], b: [f64; 2]| a[0] * b[0] + a[1] * b[1];
        let sr = self.side.sign() * self.radius;
        let wr = vr[2];
        let c = dot(u, d) + sr * (qp[2] - qr[2]) - self.constant;
        let jdot = -wr * wr * dot(u, d) + 2.0 * wr * dot(n, d_dot);
        eval.set_value(0, c);
        eval.set_gradient(0, 0, &[-u[0], -u[1], dot(n, d) - sr]);
        eval.set_gradient(0, 1, &[u[0], u[1], sr]);
        eval.set_jdot_xdot(0, jdot);
        Ok(())
    }
}
