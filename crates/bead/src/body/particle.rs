//! A point mass: its coordinates are its position, in 2D or 3D.

use super::{Body, BodyId, BodyKind, Placed, check_vector};
use crate::error::ModelError;

/// Handle of a particle in a [`System`](crate::System).
///
/// ```
/// use bead::{Particle, System};
/// let mut sys = System::new(2)?;
/// let p = sys.add_particle(Particle::new(&[1.0, 0.0]).mass(2.0))?;
/// assert_eq!(sys.position(p), &[1.0, 0.0]);
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ParticleId(pub(crate) BodyId);

impl ParticleId {
    /// The body handle of this particle.
    pub fn body(self) -> BodyId {
        self.0
    }
}

/// Description of a particle to add to a system: position, velocity and mass.
///
/// ```
/// use bead::Particle;
/// let bob = Particle::new(&[0.0, -1.0]).velocity(&[1.0, 0.0]).mass(0.5);
/// let pivot = Particle::anchor(&[0.0, 0.0]); // infinite mass: never moves
/// assert!(pivot.mass.is_infinite());
/// # let _ = bob;
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Particle {
    /// Initial position, in metres (length = the system's dimension).
    pub position: Vec<f64>,
    /// Initial velocity, in metres per second (empty means zero).
    pub velocity: Vec<f64>,
    /// Mass, in kilograms; `f64::INFINITY` makes a kinematic anchor (`W = 0`).
    pub mass: f64,
    /// Radius, in metres, for drawing (and later contact); 0 by default.
    pub radius: f64,
}

impl Particle {
    /// A particle of mass 1 kg at rest at `position`.
    pub fn new(position: &[f64]) -> Self {
        Particle {
            position: position.to_vec(),
            velocity: Vec::new(),
            mass: 1.0,
            radius: 0.0,
        }
    }

    /// A kinematic anchor (infinite mass) at `position`: forces and constraints never move it.
    pub fn anchor(position: &[f64]) -> Self {
        Particle {
            mass: f64::INFINITY,
            ..Particle::new(position)
        }
    }

    /// Sets the mass, in kilograms.
    pub fn mass(mut self, mass: f64) -> Self {
        self.mass = mass;
        self
    }

    /// Sets the radius, in metres.
    pub fn radius(mut self, radius: f64) -> Self {
        self.radius = radius;
        self
    }

    /// Sets the initial velocity, in metres per second.
    pub fn velocity(mut self, velocity: &[f64]) -> Self {
        self.velocity = velocity.to_vec();
        self
    }

    /// The particle checked for a `dim`-dimensional system (`dim` finite components of position
    /// and velocity, a positive mass, a radius zero or positive), as a body whose coordinates
    /// start at `offset` in `q`.
    pub(crate) fn place(&self, dim: usize, offset: usize) -> Result<Placed, ModelError> {
        let particle = self;
        check_vector("particle position", &particle.position, dim)?;
        let velocity = if particle.velocity.is_empty() {
            vec![0.0; dim]
        } else {
            particle.velocity.clone()
        };
        check_vector("particle velocity", &velocity, dim)?;
        if !(particle.mass > 0.0) || particle.mass.is_nan() {
            return Err(ModelError::Mass(particle.mass));
        }
        if !(particle.radius >= 0.0 && particle.radius.is_finite()) {
            return Err(ModelError::Radius(particle.radius));
        }
        let body = Body {
            kind: BodyKind::Particle,
            offset,
            ndof: dim,
            mass: particle.mass,
            radius: particle.radius,
        };
        Ok(Placed {
            body,
            q: particle.position.clone(),
            v: velocity,
        })
    }
}
