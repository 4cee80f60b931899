//! Collision geometry of 2D shapes (issue 29): each body's shape as a [`Collider`], and the
//! points where two of them touch as exact gap functions ([`ContactPoint`]) for the contact
//! constraints ([`crate::constraint::ShapeContact`]).
//!
//! The contact manifolds (up to two points a pair, polygon clipping included) come from
//! dimforge's parry2d (`parry2d-f64`): well kept, double precision, the geometry Rapier runs on.
//! What parry does not give is what exact contact needs: which *features* touch, as points fixed
//! in the bodies, so that the gap is a smooth function of the coordinates within the step and
//! the implicit steppers and the rewinds can evaluate it anywhere. Its feature ids did not serve
//! (a box's two corners on a floor both came back as vertex 0 in parry 0.31), so
//! [`manifold`] classifies each point itself: a vertex against the face whose normal the
//! manifold's normal is, or two round features (discs, capsule ends, vertices) along the line of
//! their centres. The classification gives each point a key that persists while the same
//! features touch, for the multipliers' warm start.

mod collider;
mod manifold;

pub(crate) use collider::Collider;
pub(crate) use manifold::{ContactPoint, manifold};
