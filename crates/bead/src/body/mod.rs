//! Bodies: the owners of slices of the generalized state `q`.
//!
//! Seed 000 §3 lumps every particle's coordinates into one state vector `q` with a block-diagonal
//! mass matrix `M` (`W = M⁻¹`). Each body owns a contiguous slice of `q` of whatever length it needs
//! (a 2D particle: x y; a 3D particle: x y z; later a 2D rigid body: x y θ, or a parametric
//! object's `u`), and one diagonal block of `W`. The solver and the integrators only ever see `q`,
//! `q̇` and `W`; what a body's coordinates mean is known here and in [`crate::Point`] alone.

mod particle;

pub use particle::{Particle, ParticleId};

/// Handle of any body in a [`System`](crate::System).
///
/// Handles are never reused within one system, so a stale handle cannot name a different body.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BodyId(pub(crate) usize);

impl BodyId {
    /// Position of the body in insertion order (stable; used for output columns).
    pub fn index(self) -> usize {
        self.0
    }
}

/// What kind of body owns a slice of `q`; each kind maps its coordinates to world points.
#[derive(Clone, Debug)]
pub(crate) enum BodyKind {
    Particle,
}

/// One body's place in the system: its kind, its slice of `q` and its inverse mass.
#[derive(Clone, Debug)]
pub(crate) struct Body {
    pub(crate) kind: BodyKind,
    /// Offset of the body's coordinates in `q`.
    pub(crate) offset: usize,
    /// Number of generalized coordinates.
    pub(crate) ndof: usize,
    /// Mass in kilograms; `f64::INFINITY` for a kinematic anchor.
    pub(crate) mass: f64,
    /// Radius in metres (drawing, contact).
    pub(crate) radius: f64,
}

impl Body {
    /// The diagonal of this body's block of `W = M⁻¹` (zero for an anchor).
    pub(crate) fn inv_mass(&self) -> f64 {
        if self.mass.is_infinite() {
            0.0
        } else {
            1.0 / self.mass
        }
    }

    /// The body's slice of a global vector (q, q̇, Q ...).
    pub(crate) fn slice<'a>(&self, global: &'a [f64]) -> &'a [f64] {
        &global[self.offset..self.offset + self.ndof]
    }

    /// The body's mutable slice of a global vector.
    pub(crate) fn slice_mut<'a>(&self, global: &'a mut [f64]) -> &'a mut [f64] {
        &mut global[self.offset..self.offset + self.ndof]
    }
}
