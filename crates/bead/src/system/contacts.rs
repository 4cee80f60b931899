//! The system's contacts: groups of particles that may not overlap, and groups of shapes that
//! collide with Coulomb friction, with what their forces sum to.

use crate::body::ParticleId;
use crate::contact::{ContactSummary, ShapeContacts, ShapeGroupId};
use crate::diagnostics::Diagnostics;
use crate::error::ModelError;
use crate::ids::ContactGroupId;

use super::System;

impl System {
    /// Makes every pair of `particles` non-penetrating (radii from the particles), generating the
    /// constraints for nearby pairs only, step by step. `restitution` defaults to the system's.
    ///
    /// ```
    /// use bead::{Particle, System};
    /// let mut sys = System::new(2)?;
    /// let balls: Vec<_> = (0..3)
    ///     .map(|k| sys.add_particle(Particle::new(&[k as f64 * 0.3, 0.0]).radius(0.1)))
    ///     .collect::<Result<_, _>>()?;
    /// sys.add_contacts(&balls, None)?;
    /// # Ok::<(), bead::ModelError>(())
    /// ```
    pub fn add_contacts(
        &mut self,
        particles: &[ParticleId],
        restitution: Option<f64>,
    ) -> Result<ContactGroupId, ModelError> {
        let group = self
            .pipeline
            .add_contacts(&self.model, particles, restitution)?;
        Ok(ContactGroupId(group))
    }

    /// Makes the shapes of a group of bodies and particles collide, with Coulomb friction
    /// (see [`ShapeContacts`](crate::contact::ShapeContacts)): a broad and a narrow phase find
    /// the touching features before each step and keep one
    /// [`ShapeContact`](crate::constraint::ShapeContact) constraint per point.
    ///
    /// ```
    /// use bead::contact::ShapeContacts;
    /// use bead::{Particle, RigidBody, Shape, System};
    /// let mut sys = System::new(2)?;
    /// let wall = sys.add_rigid_body(RigidBody::new(&[0.0, 0.0], 0.0).fixed())?;
    /// let ball = sys.add_particle(Particle::new(&[1.0, 0.0]).radius(0.1))?;
    /// // A body without a shape cannot collide: the error says which.
    /// let err = sys.add_shape_contacts(ShapeContacts::new().body(wall, 0.5).body(ball, 0.5));
    /// assert!(err.unwrap_err().to_string().contains("has no shape"));
    /// # Ok::<(), bead::ModelError>(())
    /// ```
    pub fn add_shape_contacts(&mut self, group: ShapeContacts) -> Result<ShapeGroupId, ModelError> {
        let index = self
            .pipeline
            .add_shape_contacts(&mut self.model, &self.state, &group)?;
        Ok(ShapeGroupId(index))
    }

    /// Gives every contact of shape group `group` the Coulomb coefficient `mu` from now on (as
    /// [`ShapeContacts::friction`](crate::contact::ShapeContacts::friction) would have): for a
    /// viewer's μ control, or a sweep that changes it mid-run.
    ///
    /// ```
    /// use bead::contact::ShapeContacts;
    /// use bead::{force::Gravity, RigidBody, Shape, System};
    /// let mut sys = System::new(2)?;
    /// let a = 0.3_f64; // an incline of 0.3 rad: tan 0.3 = 0.31
    /// let slope = sys.add_rigid_body(
    ///     RigidBody::new(&[0.5 * a.sin(), -0.5 * a.cos()], a).fixed().outline(Shape::Box { width: 10.0, height: 1.0 }),
    /// )?;
    /// let crate_ = sys.add_rigid_body(
    ///     RigidBody::new(&[-0.25 * a.sin(), 0.25 * a.cos()], a).shape(Shape::Box { width: 0.5, height: 0.5 }, 100.0),
    /// )?;
    /// let group = sys.add_shape_contacts(ShapeContacts::new().body(slope, 0.5).body(crate_, 0.5))?;
    /// sys.add_force(Gravity::new(&[0.0, -9.81]))?;
    /// sys.step(1e-3).unwrap();
    /// assert!(sys.coordinate_velocities(crate_.body())[0].abs() < 1e-12); // μ = 0.5 holds it
    /// sys.set_contact_friction(group, 0.2)?;
    /// sys.step(1e-3).unwrap();
    /// assert!(sys.coordinate_velocities(crate_.body())[0] < -1e-4); // μ = 0.2 lets it slide
    /// # Ok::<(), bead::ModelError>(())
    /// ```
    pub fn set_contact_friction(&mut self, group: ShapeGroupId, mu: f64) -> Result<(), ModelError> {
        self.pipeline
            .set_contact_friction(&mut self.model, &self.state, group.0, mu)
    }

    /// What a shape contact group's contacts do in `diagnostics` (of the current state, from
    /// [`System::diagnostics`]): touching pairs, the sums of their normal and friction forces,
    /// the deepest penetration (`None` for an unknown group).
    pub fn contact_summary(
        &self,
        group: ShapeGroupId,
        diagnostics: &Diagnostics,
    ) -> Option<ContactSummary> {
        let tolerance = self.settings.contact_tolerance;
        let pairs = self.pipeline.shape_groups().get(group.0)?.contact_pairs();
        let mut summary = ContactSummary::default();
        let mut touching = std::collections::HashSet::new();
        for (pair, id) in pairs {
            let Some(report) = diagnostics.constraint(id) else {
                continue;
            };
            let (g, lambda) = (report.c[0], &report.lambda);
            if g <= tolerance || lambda[0] > 0.0 {
                touching.insert(pair);
            }
            summary.normal_force += lambda[0];
            // A contact's friction force: one row in 2D, two tangents in 3D.
            summary.friction_force += lambda.iter().skip(1).map(|l| l * l).sum::<f64>().sqrt();
            summary.max_penetration = summary.max_penetration.max(-g);
        }
        summary.contacts = touching.len();
        Some(summary)
    }

    /// Number of pair constraints a contact group currently holds.
    pub fn contact_pairs(&self, group: ContactGroupId) -> usize {
        self.pipeline
            .contact_groups()
            .get(group.0)
            .map_or(0, |g| g.pairs())
    }
}
