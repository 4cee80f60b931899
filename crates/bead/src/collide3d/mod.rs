//! Collision geometry of 3D shapes (issue 33): each body's shape as a [`Collider3d`] (a core —
//! a point, a segment or a convex polytope — swept by a radius), and the points where two of
//! them touch as exact gap functions ([`ContactPoint3d`]) for the 3D contact constraints
//! ([`crate::constraint::ShapeContact3d`]).
//!
//! As in 2D ([`crate::collide`]), exact contact needs the *features* that touch, fixed in their
//! bodies, so that each gap is a smooth function of the coordinates within a step. The narrow
//! phase is written here rather than taken from dimforge's parry3d-f64, which we measured first
//! (0.31.1): its points and normals were exact, but its feature ids did not name the touching
//! features (a cube's vertex ids depended on the face parry had chosen internally, and differed
//! again against a sphere), exactly aligned stacks came back with every corner twice, box–box
//! manifolds held points 0.3–1.2 m beyond the prediction distance, and a capsule standing on a
//! box had a point 0.2 m inside the capsule. parry3d-f64 stays as the tests' oracle for the
//! distances and normals.

mod bowl;
mod collider;
mod contact_point;
mod cylinder;
mod manifold;
mod overlap;
mod polytopes;
mod segments;

pub(crate) use collider::{Collider3d, Core, Pose3d};
pub(crate) use contact_point::{ContactPoint3d, flat_rim};
pub(crate) use manifold::manifold;

#[cfg(test)]
mod tests;
