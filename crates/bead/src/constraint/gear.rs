//! Gear: two rigid bodies whose pitch circles roll on each other without slipping, the tooth
//! force acting on the line of centres — right on a fixed frame and on a moving carrier alike.
//!
//! Gear a (centre `p_a`, angle `θ_a`, pitch radius `r_a`) meshes with gear b (`p_b`, `θ_b`,
//! `r_b`). A negative radius makes that gear an internal one (a ring, or the far side of a belt):
//! the two then turn the same way. With `d = p_b − p_a = (x, y)`, `φ` its angle,
//! `t̂ = perp(d)/|d|` and `Σ = r_a + r_b`:
//!
//! ```text
//! C        = r_a (θ_a − φ) + r_b (θ_b − φ) − c
//! Ċ        = r_a ω_a + r_b ω_b − Σ φ̇,        φ̇ = t̂·ḋ / |d|
//! ∂C/∂q_a  = [ Σ perp(d)/|d|²,  r_a]        ∂C/∂q_b = [−Σ perp(d)/|d|²,  r_b]
//! J̇q̇       = −Σ ḋᵀ ∇²φ ḋ,        ∇²φ = [[2xy, y² − x²], [y² − x², −2xy]] / |d|⁴
//! ```
//!
//! Why this `C`: the gears roll on each other in the frame that turns with their line of
//! centres, where their angles are `θ − φ`. When the pitch circles touch (`|d| = |Σ|`), `Ċ` is
//! the slip of the teeth along `t̂` at the pitch point (`r_a ω_a + r_b ω_b − t̂·ḋ` for an external
//! mesh). With both centres fixed `φ̇ = 0` and `C` is the familiar `r_a θ_a + r_b θ_b − c`; on a
//! planetary carrier it gives Willis' relation `(ω_s − ω_c)/(ω_r − ω_c) = −R/r_s`. `C` depends on
//! the bodies only through `d` and angles relative to `φ`, so turning or moving the whole
//! mechanism leaves it unchanged.
//!
//! `φ` comes from `atan2`, which jumps by 2π as the line of centres turns; `C` is evaluated as
//! `Σ · wrap((r_a θ_a + r_b θ_b − c)/Σ − φ)` with `wrap` to `(−π, π]`, which is the continuous `C`
//! as long as `|C| < π|Σ|` (half a turn of slip) however many turns the carrier makes. When
//! `Σ = 0` `C` does not depend on `φ`, and is the plain `r_a θ_a + r_b θ_b − c`.
//!
//! λ is the tooth force in newtons: gear a feels the force `(Σ/|d|) λ t̂` and the torque `r_a λ`,
//! gear b the opposite force and the torque `r_b λ` — one force pair acting on one line, which
//! crosses the line of centres at `p_a + (r_a/Σ) d` (the pitch point when the circles touch), so
//! momentum and angular momentum are conserved. Coinciding centres (`d = 0`, `Σ ≠ 0`) leave
//! `φ` undefined: evaluation fails with an error rather than a NaN.

use std::f64::consts::{PI, TAU};

use super::{Constraint, ConstraintError, ConstraintEval, InvalidParameter};
use crate::body::BodyId;
use crate::error::ModelError;
use crate::point::Operand;
use crate::view::View;

/// Two meshing gears.
///
/// Build it with [`Gear::meshing`], which reads the constant from the bodies as they stand, or
/// with [`Gear::new`] and [`Gear::with_constant`].
///
/// ```
/// use bead::{constraint::Gear, RigidBody, System};
/// let mut sys = System::new(2)?;
/// let a = sys.add_rigid_body(RigidBody::new(&[0.0, 0.0], 0.0))?;
/// let b = sys.add_rigid_body(RigidBody::new(&[0.3, 0.0], 0.0))?;
/// // Pitch radii 0.1 m and 0.2 m: b turns at −½ a's speed while the centres stay put.
/// sys.add_constraint(Gear::meshing(&sys, a, b, 0.1, 0.2)?)?;
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Gear {
    bodies: [BodyId; 2],
    radii: [f64; 2],
    constant: f64,
}

impl Gear {
    /// Gears `a` and `b` of pitch radii `r_a`, `r_b` (m; a negative one is internal), with
    /// `c = 0` until [`Gear::with_constant`] says otherwise.
    ///
    /// ```
    /// use bead::{constraint::Gear, RigidBody, System};
    /// let mut sys = System::new(2)?;
    /// let planet = sys.add_rigid_body(RigidBody::new(&[0.2, 0.0], 0.0))?;
    /// let ring = sys.add_rigid_body(RigidBody::new(&[0.0, 0.0], 0.0))?;
    /// // A planet of radius 0.1 m inside a ring of radius 0.3 m: the line of centres points
    /// // from the planet to the ring's centre, φ = π, so C = 0.1 (0 − π) − 0.3 (0 − π) − c.
    /// let c = 0.2 * std::f64::consts::PI;
    /// sys.add_constraint(Gear::new(planet, ring, 0.1, -0.3).with_constant(c))?;
    /// # Ok::<(), bead::ModelError>(())
    /// ```
    pub fn new(a: impl Into<BodyId>, b: impl Into<BodyId>, r_a: f64, r_b: f64) -> Self {
        Gear {
            bodies: [a.into(), b.into()],
            radii: [r_a, r_b],
            constant: 0.0,
        }
    }

    /// The same gears holding `C = 0` with the constant `c` (m).
    ///
    /// ```
    /// use bead::constraint::{evaluate_at, Gear};
    /// use bead::{RigidBody, System};
    /// let mut sys = System::new(2)?;
    /// let a = sys.add_rigid_body(RigidBody::new(&[0.0, 0.0], 0.0))?;
    /// let b = sys.add_rigid_body(RigidBody::new(&[0.0, 0.3], 0.0))?;
    /// // Line of centres along +y: φ = π/2.
    /// let c = -0.3 * std::f64::consts::FRAC_PI_2;
    /// let gear = Gear::new(a, b, 0.1, 0.2).with_constant(c);
    /// let e = evaluate_at(&gear, 2, 0.0, &[0.0, 0.0, 0.0, 0.0, 0.3, 0.0], &[0.0; 6]).unwrap();
    /// assert!(e.c[0].abs() < 1e-15);
    /// # Ok::<(), bead::ModelError>(())
    /// ```
    pub fn with_constant(mut self, constant: f64) -> Self {
        self.constant = constant;
        self
    }

    /// The gears as they stand in `system`, with the constant that makes `C = 0` now.
    ///
    /// # Errors
    /// [`ModelError::UnknownBody`] if either is not a rigid body of `state` (a
    /// [`System`](crate::System) or its [`View`]);
    /// [`ModelError::ConstraintParameter`] if the two are the same body or a radius is zero or
    /// not finite (it names the parameter: `between`, `radii[1]`);
    /// [`ModelError::Constraint`] if the centres coincide while `r_a + r_b ≠ 0` (the line of
    /// centres has no direction).
    ///
    /// ```
    /// use bead::{constraint::Gear, RigidBody, System};
    /// let mut sys = System::new(2)?;
    /// let a = sys.add_rigid_body(RigidBody::new(&[0.0, 0.0], 0.4))?;
    /// let b = sys.add_rigid_body(RigidBody::new(&[0.3, 0.0], -1.0))?;
    /// let gear = Gear::meshing(&sys, a, b, 0.1, 0.2)?;
    /// assert!((gear.constant() - (0.1 * 0.4 - 0.2 * 1.0)).abs() < 1e-15);
    /// let same_place = sys.add_rigid_body(RigidBody::new(&[0.0, 0.0], 0.0))?;
    /// assert!(Gear::meshing(&sys, a, same_place, 0.1, 0.2).is_err());
    /// # Ok::<(), bead::ModelError>(())
    /// ```
    pub fn meshing<'a>(
        state: impl Into<View<'a>>,
        a: impl Into<BodyId>,
        b: impl Into<BodyId>,
        r_a: f64,
        r_b: f64,
    ) -> Result<Self, ModelError> {
        let state = state.into();
        let mut gear = Gear::new(a, b, r_a, r_b);
        gear.check(state.dim())
            .map_err(|e| ModelError::ConstraintParameter(Box::new(e)))?;
        let qa = state.rigid_coordinates(gear.bodies[0])?;
        let qb = state.rigid_coordinates(gear.bodies[1])?;
        let sum = r_a + r_b;
        let phi = if sum == 0.0 {
            0.0
        } else {
            line_of_centres([qb[0] - qa[0], qb[1] - qa[1]])
                .map_err(|e| ModelError::Constraint(e.reason))?
        };
        gear.constant = r_a * qa[2] + r_b * qb[2] - sum * phi;
        // Angles far beyond any mechanism's could still overflow the constant.
        gear.check(state.dim())
            .map_err(|e| ModelError::ConstraintParameter(Box::new(e)))?;
        Ok(gear)
    }

    /// The pitch radii `[r_a, r_b]`, in metres.
    ///
    /// ```
    /// use bead::{constraint::Gear, RigidBody, System};
    /// let mut sys = System::new(2)?;
    /// let a = sys.add_rigid_body(RigidBody::new(&[0.0, 0.0], 0.0))?;
    /// let b = sys.add_rigid_body(RigidBody::new(&[0.3, 0.0], 0.0))?;
    /// assert_eq!(Gear::new(a, b, 0.1, 0.2).radii(), [0.1, 0.2]);
    /// # Ok::<(), bead::ModelError>(())
    /// ```
    pub fn radii(&self) -> [f64; 2] {
        self.radii
    }

    /// The constant `c`, in metres.
    ///
    /// ```
    /// use bead::{constraint::Gear, RigidBody, System};
    /// let mut sys = System::new(2)?;
    /// let a = sys.add_rigid_body(RigidBody::new(&[0.0, 0.0], 0.0))?;
    /// let b = sys.add_rigid_body(RigidBody::new(&[0.3, 0.0], 0.0))?;
    /// assert_eq!(Gear::new(a, b, 0.1, 0.2).with_constant(0.02).constant(), 0.02);
    /// # Ok::<(), bead::ModelError>(())
    /// ```
    pub fn constant(&self) -> f64 {
        self.constant
    }
}

/// The angle of `d`, or an error when it has no direction.
fn line_of_centres(d: [f64; 2]) -> Result<f64, ConstraintError> {
    if !(d[0] * d[0] + d[1] * d[1] > 0.0) {
        return Err(ConstraintError::new(
            "the two gears' centres coincide: the line of centres, along which the teeth roll, \
             has no direction",
        ));
    }
    Ok(d[1].atan2(d[0]))
}

/// `x` shifted by a whole number of turns into `(−π, π]`.
fn wrap(x: f64) -> f64 {
    x - TAU * ((x - PI) / TAU).ceil()
}

impl Constraint for Gear {
    fn rows(&self, _dim: usize) -> usize {
        1
    }

    fn operands(&self) -> Vec<Operand> {
        self.bodies
            .iter()
            .map(|&b| Operand::Coordinates(b))
            .collect()
    }

    fn check(&self, dim: usize) -> Result<(), InvalidParameter> {
        super::check_rigid_pair(dim, self.bodies[0], Some(self.bodies[1]), "between")?;
        for (k, r) in self.radii.iter().enumerate() {
            if *r == 0.0 || !r.is_finite() {
                return Err(InvalidParameter::new(
                    format!("radii[{k}]"),
                    format!("must be non-zero and finite, got {r}"),
                )
                .hint("pitch radii in metres; a negative radius makes an internal mesh"));
            }
        }
        InvalidParameter::check_finite("constant", self.constant).map_err(|e| {
            e.hint("meshing takes it from the bodies' angles, which must be of a mechanism's size")
        })
    }

    fn evaluate(&self, eval: &mut ConstraintEval<'_>) -> Result<(), ConstraintError> {
        let [ra, rb] = self.radii;
        let sum = ra + rb;
        let (qa, qb) = (eval.x(0), eval.x(1));
        let rolled = ra * qa[2] + rb * qb[2] - self.constant;
        if sum == 0.0 {
            eval.set_value(0, rolled);
            eval.set_gradient(0, 0, &[0.0, 0.0, ra]);
            eval.set_gradient(0, 1, &[0.0, 0.0, rb]);
            return Ok(());
        }
        let (va, vb) = (eval.v(0), eval.v(1));
        let [x, y] = [qb[0] - qa[0], qb[1] - qa[1]];
        let [dx, dy] = [vb[0] - va[0], vb[1] - va[1]];
        let phi = line_of_centres([x, y])?;
        let r2 = x * x + y * y;
        // ∇φ = perp(d)/|d|², and ḋᵀ∇²φ ḋ from the Hessian in the module docs.
        let grad_phi = [-y / r2, x / r2];
        let hess =
            (2.0 * x * y * (dx * dx - dy * dy) + 2.0 * (y * y - x * x) * dx * dy) / (r2 * r2);
        eval.set_value(0, sum * wrap(rolled / sum - phi));
        eval.set_gradient(0, 0, &[sum * grad_phi[0], sum * grad_phi[1], ra]);
        eval.set_gradient(0, 1, &[-sum * grad_phi[0], -sum * grad_phi[1], rb]);
        eval.set_jdot_xdot(0, -sum * hess);
        Ok(())
    }
}
