//! Points: what constraints and forces act on (DESIGN.md, "Points, the hybrid idea").
//!
//! A constraint written on world points works on any body kind by the chain rule
//! (seed 000 §5.1; Witkin, Gleicher & Welch 1990). For a point `x(q_b)` of body `b`:
//!
//! ```text
//! ẋ = P q̇_b                     P = ∂x/∂q_b            (the point's Jacobian block)
//! ẍ = P q̈_b + a_vp              a_vp = (∂²x/∂q_b²)(q̇_b, q̇_b)   (velocity-product term)
//! ```
//!
//! so a constraint that knows its gradient `G = ∂C/∂x` contributes `J_b = G P` to the Jacobian and
//! `G a_vp` to `J̇q̇`. For a particle `P = I` and `a_vp = 0`; for a rigid-body anchor (later)
//! `P = [I | ∂(R r)/∂θ]` and `a_vp = −ω² R r`. Forces applied at a point reach the body as `Pᵀ f`.

use crate::body::{Body, BodyId, BodyKind, ParticleId};
use crate::vector::Vec3;

/// A point of the model that constraints and forces can refer to.
///
/// ```
/// use bead::{Particle, Point, System};
/// let mut sys = System::new(2)?;
/// let p = sys.add_particle(Particle::new(&[0.0, 1.0]))?;
/// let point = Point::from(p);
/// assert_eq!(point.body(), p.body());
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum Point {
    /// A particle's position.
    Particle(ParticleId),
}

impl Point {
    /// The body whose coordinates move this point.
    pub fn body(&self) -> BodyId {
        match self {
            Point::Particle(p) => p.body(),
        }
    }
}

impl From<ParticleId> for Point {
    fn from(p: ParticleId) -> Self {
        Point::Particle(p)
    }
}

/// Something a constraint depends on.
///
/// Constraints on positions depend on points; constraints on angles (motors, gears, later) will
/// depend on a body's own coordinates, as another variant of this enum.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum Operand {
    /// A world point; its coordinates are its position (length = the system's dimension).
    Point(Point),
}

impl Operand {
    /// The body this operand belongs to.
    pub fn body(&self) -> BodyId {
        match self {
            Operand::Point(p) => p.body(),
        }
    }
}

impl From<Point> for Operand {
    fn from(p: Point) -> Self {
        Operand::Point(p)
    }
}

impl From<ParticleId> for Operand {
    fn from(p: ParticleId) -> Self {
        Operand::Point(Point::Particle(p))
    }
}

/// Number of coordinates an operand presents to its constraint.
pub(crate) fn operand_size(op: &Operand, dim: usize) -> usize {
    match op {
        Operand::Point(_) => dim,
    }
}

/// Buffers receiving one operand's kinematics at a state.
pub(crate) struct OperandKinematics<'a> {
    /// Coordinates (`k`).
    pub x: &'a mut [f64],
    /// Velocity (`k`).
    pub v: &'a mut [f64],
    /// `∂x/∂q_b`, row-major `k × ndof`.
    pub jacobian: &'a mut [f64],
    /// Velocity-product term `(∂²x/∂q_b²)(q̇_b, q̇_b)` (`k`).
    pub velocity_product: &'a mut [f64],
}

/// Writes an operand's coordinates, velocity, Jacobian block and velocity-product term.
pub(crate) fn write_operand(
    op: &Operand,
    body: &Body,
    q: &[f64],
    v: &[f64],
    out: OperandKinematics<'_>,
) {
    match (op, &body.kind) {
        (Operand::Point(Point::Particle(_)), BodyKind::Particle) => {
            out.x.copy_from_slice(body.slice(q));
            out.v.copy_from_slice(body.slice(v));
            let n = body.ndof;
            out.jacobian.fill(0.0);
            for i in 0..n {
                out.jacobian[i * n + i] = 1.0;
            }
            out.velocity_product.fill(0.0);
        }
    }
}

/// World position of a point.
pub(crate) fn point_position(point: &Point, body: &Body, q: &[f64]) -> Vec3 {
    match (point, &body.kind) {
        (Point::Particle(_), BodyKind::Particle) => crate::vector::to_vec3(body.slice(q)),
    }
}

/// World velocity of a point.
pub(crate) fn point_velocity(point: &Point, body: &Body, v: &[f64]) -> Vec3 {
    match (point, &body.kind) {
        (Point::Particle(_), BodyKind::Particle) => crate::vector::to_vec3(body.slice(v)),
    }
}

/// Adds a world force `f` acting at a point to the generalized force `Q` (as `Pᵀ f`).
pub(crate) fn add_point_force(point: &Point, body: &Body, f: &[f64], big_q: &mut [f64]) {
    match (point, &body.kind) {
        (Point::Particle(_), BodyKind::Particle) => {
            for (qi, fi) in body.slice_mut(big_q).iter_mut().zip(f) {
                *qi += fi;
            }
        }
    }
}
