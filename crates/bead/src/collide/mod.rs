//! Collision geometry of 2D shapes (issue 29): each body's shape as a [`Collider`] (a core —
//! a point, a segment or a convex polygon — swept by a radius), and the points where two of
//! them touch as exact gap functions ([`ContactPoint`]) for the contact constraints
//! ([`crate::constraint::ShapeContact`]).
//!
//! Exact contact needs more than a manifold's positions: which *features* touch, as points fixed
//! in the bodies, so that each gap is a smooth function of the coordinates within a step, which
//! the implicit steppers and the rewinds evaluate anywhere. The narrow phase here is Box2D's
//! (separating axes over the faces, the incident face clipped to the reference face's sides),
//! written to return features rather than positions.
//!
//! Why not dimforge's parry2d, which we tried first: in parry2d-f64 0.31 two voussoirs of an
//! arch sharing a face came back 31 cm deep along a normal from a third face (its separating
//! axis search picked the keystone's top face on a tie), and its feature ids did not name the
//! touching features (a box's two corners on a floor both read vertex 0). The shapes are convex
//! polygons of a few vertices; the whole narrow phase is a few hundred lines.

mod collider;
mod manifold;

pub(crate) use collider::{Collider, Pose};
pub(crate) use manifold::{ContactPoint, manifold};
