//! Bodies: the owners of slices of the generalized state `q`.
//!
//! Seed 000 §3 lumps every particle's coordinates into one state vector `q` with a block-diagonal
//! mass matrix `M` (`W = M⁻¹`). Each body owns a contiguous slice of `q` of whatever length it needs
//! (a 2D particle: x y; a 3D particle: x y z; later a 2D rigid body: x y θ, or a parametric
//! object's `u`), and one diagonal block of `W`. The solver and the integrators only ever see `q`,
//! `q̇` and `W`; what a body's coordinates mean is known here and in [`crate::Point`] alone.

pub(crate) mod chart;
pub(crate) mod hull;
mod parametric;
mod particle;
mod rigid2d;
mod rigid3d;

pub use parametric::{MassPoint, Parametric, ParametricId, PositionFn};
pub(crate) use parametric::{PointMotion, generalized_mass};
pub use particle::{Particle, ParticleId};
pub use rigid2d::{RigidBody, RigidBodyId, Shape};
pub(crate) use rigid3d::bowl_rim;
pub use rigid3d::{RigidBody3d, RigidBody3dId, Shape3d};

use crate::error::ModelError;
pub use crate::ids::BodyId;

/// What kind of body owns a slice of `q`; each kind maps its coordinates to world points.
#[derive(Clone, Debug)]
pub(crate) enum BodyKind {
    Particle,
    /// `[x, y, θ]`, with its moment of inertia (kg·m²) and outline.
    Rigid2d {
        inertia: f64,
        shape: Option<Shape>,
    },
    /// `[p, θ]`: the centre of mass and the exponential coordinates of the orientation about a
    /// reference that follows it ([`chart`]). Its block of `W` on `θ` is dense and depends on
    /// `θ`.
    Rigid3d {
        chart: Box<chart::Chart>,
        shape: Option<Shape3d>,
    },
    /// Coordinates `u`; mass points at `x_i(u, t)` (seed 000 §5). Its block of `W` is dense
    /// and depends on `u` ([`crate::math::inverse_mass::InverseMass`]).
    Parametric {
        /// Its name, for errors.
        name: String,
        points: Vec<MassPoint>,
        /// The dimension of the space its points live in.
        dim: usize,
        /// The range of `u` a drawing traces a one-coordinate object's curve over.
        trace: Option<(f64, f64)>,
    },
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

/// `v` where it is a shape's positive, finite dimension named `name`; else the message saying so.
pub(crate) fn positive(name: &str, v: f64) -> Result<f64, String> {
    if v > 0.0 && v.is_finite() {
        Ok(v)
    } else {
        Err(format!("{name} must be positive and finite, got {v}"))
    }
}

/// `(mass, moments)` if each is positive and finite: a shape so large (or so small) for its
/// density that its mass overflows (or underflows) would otherwise make a body that gravity
/// cannot move (infinite mass) or one that nothing can hold (zero mass), silently.
pub(crate) fn representable<M: AsRef<[f64]>>(
    density: f64,
    (mass, moments): (f64, M),
) -> Result<(f64, M), String> {
    let all = std::iter::once(mass).chain(moments.as_ref().iter().copied());
    if all.into_iter().any(|x| !(x > 0.0 && x.is_finite())) {
        return Err(format!(
            "at density {density} its mass is {mass} kg and its moments of inertia {:?} kg·m²: \
             the shape is too large or too small for floating point",
            moments.as_ref()
        ));
    }
    Ok((mass, moments))
}

impl Body {
    /// Writes the diagonal of this body's block of `W = M⁻¹` (zeros for what cannot move).
    pub(crate) fn write_inv_mass(&self, out: &mut [f64]) {
        let inv = |m: f64| if m.is_infinite() { 0.0 } else { 1.0 / m };
        match &self.kind {
            BodyKind::Particle => out.fill(inv(self.mass)),
            BodyKind::Rigid2d { inertia, .. } => {
                out.copy_from_slice(&[inv(self.mass), inv(self.mass), inv(*inertia)])
            }
            // A placeholder until the first evaluation sets the dense block from `u`.
            BodyKind::Parametric { .. } => out.fill(1.0),
            // The rotation's block too is set at each evaluation.
            BodyKind::Rigid3d { .. } => {
                out.fill(inv(self.mass));
                if self.mass.is_finite() {
                    out[3..].fill(1.0);
                }
            }
        }
    }

    /// Kinetic energy `½ q̇ᵀ M q̇` at `(t, q, q̇)`, J (0 for kinematic bodies); a parametric
    /// object's is its points' `Σ ½ m_i |ẋ_i|²`.
    pub(crate) fn kinetic_energy(&self, dim: usize, t: f64, q: &[f64], v: &[f64]) -> f64 {
        let (u, v) = (self.slice(q), self.slice(v));
        let finite = |m: f64| if m.is_finite() { m } else { 0.0 };
        match &self.kind {
            BodyKind::Particle => 0.5 * finite(self.mass) * v.iter().map(|x| x * x).sum::<f64>(),
            BodyKind::Rigid2d { inertia, .. } => {
                0.5 * finite(self.mass) * (v[0] * v[0] + v[1] * v[1])
                    + 0.5 * finite(*inertia) * v[2] * v[2]
            }
            BodyKind::Rigid3d { chart, .. } if self.mass.is_finite() => {
                0.5 * self.mass * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
                    + chart.rotational_energy(u, v)
            }
            BodyKind::Rigid3d { .. } => 0.0,
            BodyKind::Parametric { points, .. } => points
                .iter()
                .map(|p| {
                    let mut xd = [0.0; 3];
                    p.velocity(u, v, t, &mut xd[..dim]);
                    0.5 * p.mass * xd.iter().map(|x| x * x).sum::<f64>()
                })
                .sum(),
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

/// A body ready to join a model: its entry, and its initial coordinates and velocities, which
/// go at the end of `q` and `q̇`.
#[derive(Debug)]
pub(crate) struct Placed {
    pub(crate) body: Body,
    pub(crate) q: Vec<f64>,
    pub(crate) v: Vec<f64>,
}

/// Checks that `v` has `dim` finite components (`what` names it in the error).
pub(crate) fn check_vector(what: &'static str, v: &[f64], dim: usize) -> Result<(), ModelError> {
    if v.len() != dim {
        return Err(ModelError::WrongLength {
            what,
            got: v.len(),
            dim,
        });
    }
    if !v.iter().all(|x| x.is_finite()) {
        return Err(ModelError::NonFinite(what));
    }
    Ok(())
}
