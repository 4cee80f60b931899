//! Handles: how a [`System`](crate::System) names its bodies, forces, constraints and contact
//! groups.
//!
//! They live at the bottom of the engine so that every layer can name what it works on (errors
//! name the constraint that failed, drawings the piece being drawn) without importing the layer
//! that defines the piece.

/// Handle of any body in a [`System`](crate::System).
///
/// Handles are never reused within one system, so a stale handle cannot name a different body.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BodyId(pub(crate) usize);

impl BodyId {
    /// Position of the body in insertion order (stable; used for output columns).
    ///
    /// ```
    /// let mut sys = bead::System::new(2)?;
    /// let p = sys.add_particle(bead::Particle::new(&[0.0, 0.0]))?;
    /// assert_eq!(p.body().index(), 0);
    /// # Ok::<(), bead::ModelError>(())
    /// ```
    pub fn index(self) -> usize {
        self.0
    }
}

/// Handle of a constraint in a [`System`](crate::System).
///
/// A removed constraint's slot may be given to a constraint added later (contact groups add and
/// remove pairs at every step), but never its handle: the handle's generation differs, so a stale
/// handle names nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ConstraintId {
    /// The slot (32 bits, as the generation: the handle stays as small as a `usize`).
    pub(crate) index: u32,
    pub(crate) generation: u32,
}

impl ConstraintId {
    /// The constraint's slot: stable while it exists, and the order its rows and reports come in.
    /// Constraints added to a system that never removes any have slots 0, 1, 2 … in order.
    ///
    /// ```
    /// let (sys, _, rod) = bead::models::pendulum(1.0, 0.0, 1.0)?;
    /// assert_eq!(rod.index(), 0);
    /// # Ok::<(), bead::ModelError>(())
    /// ```
    pub fn index(self) -> usize {
        self.index as usize
    }
}

/// Handle of a force in a [`System`](crate::System). Never reused within one system.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ForceId(pub(crate) usize);

/// Handle of a contact group in a [`System`](crate::System).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ContactGroupId(pub(crate) usize);

/// Handle of a shape contact group in a [`System`](crate::System) (see
/// [`System::add_shape_contacts`](crate::System::add_shape_contacts)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ShapeGroupId(pub(crate) usize);
