//! The system's 3D rigid bodies: adding them, and reading their orientation, spin and angular
//! momentum (seed 003's six degrees of freedom of a body in space).

use crate::body::{BodyKind, RigidBody3d, RigidBody3dId};
use crate::error::ModelError;

use super::System;

impl System {
    /// Adds a 3D rigid body (3D systems only): see [`RigidBody3d`] for what it checks.
    pub fn add_rigid_body_3d(&mut self, body: RigidBody3d) -> Result<RigidBody3dId, ModelError> {
        let placed = body.place(self.model.dim, self.state.q.len())?;
        Ok(RigidBody3dId(self.push_body(placed)))
    }

    /// A 3D rigid body's orientation, a unit quaternion `[w, x, y, z]`.
    ///
    /// # Panics
    /// If `body` is a handle of another system.
    pub fn orientation(&self, body: RigidBody3dId) -> [f64; 4] {
        let view = self.view();
        view.orientation(body.0).unwrap_or_else(|| foreign(body))
    }

    /// A 3D rigid body's angular velocity, world frame, rad/s.
    ///
    /// # Panics
    /// If `body` is a handle of another system.
    pub fn angular_velocity(&self, body: RigidBody3dId) -> [f64; 3] {
        self.view().spin(body.0).unwrap_or_else(|| foreign(body)).0
    }

    /// A 3D rigid body's angular momentum about its centre of mass, world frame, kg·m²/s.
    ///
    /// # Panics
    /// If `body` is a handle of another system.
    pub fn angular_momentum(&self, body: RigidBody3dId) -> [f64; 3] {
        self.view().spin(body.0).unwrap_or_else(|| foreign(body)).1
    }

    /// The 3D rigid bodies, in the order they were added.
    pub fn rigid_bodies_3d(&self) -> impl Iterator<Item = RigidBody3dId> + '_ {
        self.bodies_where(|k| matches!(k, BodyKind::Rigid3d { .. }))
            .map(RigidBody3dId)
    }
}

/// A 3D body handle this system did not hand out.
fn foreign<T>(body: RigidBody3dId) -> T {
    panic!("{body:?} is not a 3D rigid body of this system")
}
