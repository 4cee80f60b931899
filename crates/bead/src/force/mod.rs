//! Applied forces `Q` (step 2 of seed 000 §4.1: "loop over all force objects, allowing each to
//! add forces to the particles it influences").
//!
//! A force sees the state through [`ForceContext`] and adds world forces at points, which reach the
//! bodies' generalized coordinates as `Pᵀ f` (see [`crate::point`]). Conservative forces also
//! report their potential energy, so that the energy diagnostics can check conservation.

mod constant;
mod drag;
mod gravity;
mod mouse;
mod spring;

pub use constant::ConstantForce;
pub use drag::Drag;
pub use gravity::Gravity;
pub use mouse::MouseSpring;
pub use spring::Spring;

use std::any::Any;
use std::fmt::Debug;

use crate::body::{Body, BodyId, BodyKind, ParticleId};
use crate::point::{Point, add_point_force, point_position, point_velocity};

/// Handle of a force in a [`System`](crate::System). Never reused within one system.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ForceId(pub(crate) usize);

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
///         for i in 0..ctx.body_slots() {
///             if let Some((p, _mass)) = ctx.mass_point(i) {
///                 ctx.add_force(&p, &self.0);
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

    /// Potential energy, in joules (0 for non-conservative forces).
    fn potential_energy(&self, ctx: &ForceContext<'_>) -> f64 {
        let _ = ctx;
        0.0
    }

    /// The points this force is attached to (checked to exist when the force is added).
    fn points(&self) -> Vec<Point> {
        Vec::new()
    }

    /// Checks the force's parameters against the system's dimension when it is added.
    fn check(&self, dim: usize) -> Result<(), String> {
        let _ = dim;
        Ok(())
    }
}

/// The state a force reads, and the accumulator `Q` it adds to.
#[derive(Debug)]
pub struct ForceContext<'a> {
    pub(crate) t: f64,
    pub(crate) dim: usize,
    pub(crate) bodies: &'a [Option<Body>],
    pub(crate) q: &'a [f64],
    pub(crate) v: &'a [f64],
    pub(crate) applied: &'a mut [f64],
}

impl ForceContext<'_> {
    /// Time, in seconds.
    pub fn time(&self) -> f64 {
        self.t
    }

    /// Dimension of the space (2 or 3).
    pub fn dim(&self) -> usize {
        self.dim
    }

    fn body(&self, point: &Point) -> &Body {
        match &self.bodies[point.body().0] {
            Some(b) => b,
            None => unreachable!("points are checked to exist when a force is added"),
        }
    }

    /// World position of a point, in metres (components past the dimension are 0).
    pub fn position(&self, point: &Point) -> [f64; 3] {
        point_position(point, self.body(point), self.q)
    }

    /// World velocity of a point, in metres per second.
    pub fn velocity(&self, point: &Point) -> [f64; 3] {
        point_velocity(point, self.body(point), self.v)
    }

    /// Adds the world force `f` (newtons, `dim` components) acting at `point`.
    pub fn add_force(&mut self, point: &Point, f: &[f64]) {
        let body = match &self.bodies[point.body().0] {
            Some(b) => b,
            None => unreachable!("points are checked to exist when a force is added"),
        };
        add_point_force(point, body, &f[..self.dim], self.applied);
    }

    /// Every body with finite mass, as (its centre of mass, its mass in kg).
    pub fn masses(&self) -> impl Iterator<Item = (Point, f64)> + '_ {
        (0..self.body_slots()).filter_map(|i| self.mass_point(i))
    }

    /// Number of body slots; [`ForceContext::mass_point`] takes indices below it. Lets a force
    /// loop over bodies while adding forces, without collecting them first.
    pub fn body_slots(&self) -> usize {
        self.bodies.len()
    }

    /// Body slot `i`'s centre of mass and mass (kg), if the slot holds a body of finite mass.
    pub fn mass_point(&self, i: usize) -> Option<(Point, f64)> {
        let b = self.bodies.get(i)?.as_ref()?;
        if !b.mass.is_finite() {
            return None;
        }
        let center = match b.kind {
            BodyKind::Particle => Point::Particle(ParticleId(BodyId(i))),
        };
        Some((center, b.mass))
    }
}
