//! A contact group of shapes (issue 29): which bodies and particles collide with each other,
//! with what friction and restitution. The engine's broad and narrow phases turn it into
//! [`ShapeContact`](crate::constraint::ShapeContact) constraints step by step.

use crate::constraint::ContactBody;

/// The members of a shape contact group and its coefficients, for
/// [`System::add_shape_contacts`](crate::System::add_shape_contacts).
///
/// Each member carries its own Coulomb coefficient; two members' coefficients combine as
/// `√(μ_a μ_b)` (Box2D's rule) unless the group sets one for all its contacts. Bodies joined by a
/// constraint do not collide unless [`ShapeContacts::collide_connected`] says so; two bodies
/// that cannot move (infinite mass and inertia) never do.
///
/// ```
/// use bead::contact::ShapeContacts;
/// use bead::{force::Gravity, Particle, RigidBody, Shape, System};
/// let mut sys = System::new(2)?;
/// let ground = sys.add_rigid_body(
///     RigidBody::new(&[0.0, -0.5], 0.0).fixed().outline(Shape::Box { width: 10.0, height: 1.0 }),
/// )?;
/// let crate_ = sys.add_rigid_body(
///     RigidBody::new(&[0.0, 0.25], 0.0).shape(Shape::Box { width: 0.5, height: 0.5 }, 100.0),
/// )?;
/// let group = ShapeContacts::new().body(ground, 0.5).body(crate_, 0.5);
/// sys.add_shape_contacts(group)?;
/// sys.add_force(Gravity::new(&[0.0, -9.81]))?;
/// for _ in 0..100 {
///     sys.step(1e-3).unwrap();
/// }
/// // It rests on the ground, exactly.
/// assert!((sys.coordinates(crate_.body())[1] - 0.25).abs() < 1e-9);
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ShapeContacts {
    pub(crate) members: Vec<(ContactBody, f64)>,
    /// The members' names in messages (by index; `None`: "member k").
    pub(crate) labels: Vec<Option<String>>,
    /// The group's name in messages (`None`: "contact").
    pub(crate) name: Option<String>,
    pub(crate) friction: Option<f64>,
    pub(crate) restitution: Option<f64>,
    pub(crate) collide_connected: bool,
}

impl ShapeContacts {
    /// An empty group.
    pub fn new() -> Self {
        ShapeContacts::default()
    }

    /// Adds a rigid body (its shape collides) or a particle (a disc of its radius) with its
    /// Coulomb coefficient `mu`.
    pub fn body(mut self, body: impl Into<ContactBody>, mu: f64) -> Self {
        self.members.push((body.into(), mu));
        self.labels.push(None);
        self
    }

    /// Names the group and its members in messages: a contact between the second and the
    /// first member of a group named `road` is `road: rear/road` when they are labelled so
    /// (`labels` in the order the members were added), `road: member 1/member 0` otherwise.
    ///
    /// ```
    /// use bead::contact::ShapeContacts;
    /// use bead::{Particle, System};
    /// let mut sys = System::new(2)?;
    /// let a = sys.add_particle(Particle::new(&[0.0, 0.0]).radius(0.1))?;
    /// let b = sys.add_particle(Particle::new(&[0.2, 0.0]).radius(0.1))?;
    /// let group = ShapeContacts::new().body(a, 0.5).body(b, 0.5).named("pile", &["a", "b"]);
    /// sys.add_shape_contacts(group)?;
    /// let names: Vec<String> = sys.diagnostics().unwrap().constraints.iter().map(|c| c.name.clone()).collect();
    /// assert_eq!(names, ["pile: a/b"]);
    /// # Ok::<(), bead::ModelError>(())
    /// ```
    pub fn named(mut self, name: &str, labels: &[&str]) -> Self {
        self.name = Some(name.to_string());
        for (slot, label) in self.labels.iter_mut().zip(labels) {
            *slot = Some(label.to_string());
        }
        self
    }

    /// One coefficient for every contact of the group, instead of the members' combined.
    pub fn friction(mut self, mu: f64) -> Self {
        self.friction = Some(mu);
        self
    }

    /// The coefficient of restitution of the group's impacts (the system's default otherwise).
    pub fn restitution(mut self, e: f64) -> Self {
        self.restitution = Some(e);
        self
    }

    /// Whether bodies joined by a constraint collide with each other (no by default).
    pub fn collide_connected(mut self, yes: bool) -> Self {
        self.collide_connected = yes;
        self
    }
}

/// What a shape contact group's contacts do at one instant: the columns `NAME.contacts`,
/// `NAME.normal_force`, `NAME.friction_force` and `NAME.max_penetration` of a scene's output.
///
/// ```
/// let s = bead::contact::ContactSummary::default();
/// assert_eq!((s.contacts, s.normal_force, s.max_penetration), (0, 0.0, 0.0));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ContactSummary {
    /// Pairs of members that touch (a contact within the contact tolerance, or pushing).
    pub contacts: usize,
    /// The sum of the normal forces λ_n, N.
    pub normal_force: f64,
    /// The sum of the friction forces' magnitudes |λ_t|, N.
    pub friction_force: f64,
    /// The deepest penetration, max(0, −g), m.
    pub max_penetration: f64,
}
