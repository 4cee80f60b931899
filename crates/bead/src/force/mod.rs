//! Applied forces `Q` (step 2 of seed 000 §4.1: "loop over all force objects, allowing each to
//! add forces to the particles it influences").
//!
//! A force sees the state through [`ForceContext`] and adds world forces at points, which reach the
//! bodies' generalized coordinates as `Pᵀ f` (see [`Point`]). Conservative forces also
//! report their potential energy, so that the energy diagnostics can check conservation.

mod constant;
mod drag;
mod gravity;
mod jacobian;
mod mouse;
mod spring;
mod torque;
mod torsion_spring;

pub use constant::ConstantForce;
pub use drag::Drag;
pub use gravity::Gravity;
pub use jacobian::ForceJacobian;
pub use mouse::MouseSpring;
pub use spring::Spring;
pub use torque::Torque;
pub use torsion_spring::TorsionSpring;

use std::any::Any;
use std::fmt::Debug;

use crate::body::BodyId;
use crate::draw::Canvas;
pub use crate::error::InvalidParameter;
pub use crate::ids::ForceId;
use crate::math::vector::{Vec3, to_vec3};
use crate::point::{Point, add_point_force};
use crate::view::View;

/// A force law: adds to the applied generalized force `Q`.
///
/// ```
/// use bead::force::{Force, ForceContext};
/// use bead::{Particle, System};
///
/// /// A constant wind on every point of the model: f = m·a_wind would be gravity; this is not.
/// #[derive(Debug)]
/// struct Wind([f64; 2]);
///
/// impl Force for Wind {
///     fn apply(&self, ctx: &mut ForceContext<'_>) {
///         for i in 0..ctx.view().body_slots() {
///             for k in 0..ctx.view().mass_points(i) {
///                 if let Some((p, _mass)) = ctx.view().mass_point(i, k) {
///                     ctx.add_force(&p, &self.0);
///                 }
///             }
///         }
///     }
/// }
///
/// let mut sys = System::new(2)?;
/// let p = sys.add_particle(Particle::new(&[0.0, 0.0]).mass(2.0))?;
/// sys.add_force(Wind([1.0, 0.0]))?;
/// sys.step(0.1).unwrap();
/// assert!((sys.velocity(p)[0] - 0.05).abs() < 1e-12); // a = F/m = 0.5 m/s²
/// # Ok::<(), bead::ModelError>(())
/// ```
pub trait Force: Any + Debug + Send + Sync {
    /// Adds this force's contribution to `Q`.
    fn apply(&self, ctx: &mut ForceContext<'_>);

    /// Adds this force's Jacobians, `−∂f/∂x` and `−∂f/∂ẋ`, to the implicit steppers' Newton
    /// matrix (see [`ForceJacobian::add_points`], whose example gives one). The steppers
    /// evaluate every force at the step's end whether or not it gives them: without them a
    /// stiff force costs Newton iterations, or fails to converge where the step is many times
    /// its period. None by default.
    fn jacobian(&self, ctx: &mut ForceJacobian<'_>) {
        let _ = ctx;
    }

    /// Whether the generalized force this force adds can change with the positions or
    /// velocities (`true` by default). The implicit steppers evaluate the forces at every
    /// iterate of a step's end unless none of them varies (gravity, a constant force at a
    /// particle, a constant torque), and the model has no parametric object, whose points'
    /// lever arms make every force on them vary.
    ///
    /// ```
    /// use bead::force::{Drag, Force, Gravity};
    /// assert!(!Gravity::new(&[0.0, -9.81]).varies());
    /// assert!(Drag::new(0.1).varies());
    /// ```
    fn varies(&self) -> bool {
        true
    }

    /// Potential energy, in joules (0 for non-conservative forces).
    fn potential_energy(&self, view: &View<'_>) -> f64 {
        let _ = view;
        0.0
    }

    /// Draws the force (a spring's zigzag, a mouse line); nothing by default.
    fn draw(&self, view: &View<'_>, canvas: &mut dyn Canvas) {
        let _ = (view, canvas);
    }

    /// The points this force is attached to (checked to exist when the force is added).
    fn points(&self) -> Vec<Point> {
        Vec::new()
    }

    /// Checks the force's parameters against the system's dimension when it is added: an error
    /// names the parameter that is wrong ([`InvalidParameter`]), and the system refuses the force
    /// with it ([`ModelError::ForceParameter`](crate::ModelError)). Everything is valid by
    /// default.
    ///
    /// ```
    /// use bead::force::{Force, ForceContext, InvalidParameter};
    /// use bead::{ModelError, System};
    ///
    /// /// A uniform wind of `speed` m/s, which cannot be negative.
    /// #[derive(Debug)]
    /// struct Wind {
    ///     speed: f64,
    /// }
    ///
    /// impl Force for Wind {
    ///     fn apply(&self, _ctx: &mut ForceContext<'_>) {}
    ///     fn check(&self, _dim: usize) -> Result<(), InvalidParameter> {
    ///         if self.speed >= 0.0 {
    ///             return Ok(());
    ///         }
    ///         let reason = format!("must be zero or more, got {}", self.speed);
    ///         Err(InvalidParameter::new("speed", reason))
    ///     }
    /// }
    ///
    /// let mut sys = System::new(2)?;
    /// let err = sys.add_force(Wind { speed: -1.0 }).unwrap_err();
    /// assert!(matches!(&err, ModelError::ForceParameter(e) if e.parameter == "speed"));
    /// # Ok::<(), ModelError>(())
    /// ```
    fn check(&self, dim: usize) -> Result<(), InvalidParameter> {
        let _ = dim;
        Ok(())
    }
}

/// A world force added at a parametric object's point, as [`ForceContext::add_force`] records
/// it.
pub(crate) type ObjectForce = (Point, Vec3);

/// The accumulator `Q` a force adds to, and the state it reads ([`ForceContext::view`]).
#[derive(Debug)]
pub struct ForceContext<'a> {
    pub(crate) view: View<'a>,
    pub(crate) applied: &'a mut [f64],
    /// The world forces added at parametric objects' points, each as it was added: an object's
    /// own block of the implicit Newton matrix needs them apart from `Q`.
    pub(crate) object_forces: &'a mut Vec<ObjectForce>,
}

impl ForceContext<'_> {
    /// The state: time, point positions and velocities, masses.
    pub fn view(&self) -> &View<'_> {
        &self.view
    }

    /// Adds a torque (N·m) to a rigid body; ignored for a body that cannot turn.
    pub fn add_torque(&mut self, body: BodyId, torque: f64) {
        if let Some(Some(b)) = self.view.bodies.get(body.0)
            && let crate::body::BodyKind::Rigid2d { .. } = b.kind
        {
            b.slice_mut(self.applied)[2] += torque;
        }
    }

    /// Adds the world force `f` (newtons, `dim` components) acting at `point`.
    pub fn add_force(&mut self, point: &Point, f: &[f64]) {
        let dim = self.view.dim;
        if matches!(point, Point::OfObject { .. }) {
            self.object_forces.push((*point, to_vec3(&f[..dim])));
        }
        add_point_force(
            point,
            self.view.body(point),
            self.view.t,
            self.view.q,
            &f[..dim],
            self.applied,
        );
    }
}
