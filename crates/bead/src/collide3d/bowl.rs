//! A body in a bowl ([`Core::Bowl`](super::collider::Core)): each point of its core against
//! the sphere from within, or against the rim.
//!
//! The sphere's inside is convex, so a body's distance from the sphere's centre is largest at a
//! point of its core: a ball's centre, a capsule's ends (the distance grows along a segment
//! towards one end), a polytope's corners. Each such point is a gap exact in the bodies'
//! coordinates, `g = R − |x − c| − r` ([`Gap3d::Within`]), with no feature to slide off: a
//! ball rolling round the bowl keeps one contact. It holds while the point is inside the sphere
//! (a corner may be a thousandth of the radius past it: a cube resting on four corners has
//! them exactly on it) and the sphere's radius through it meets the surface below the rim.
//! Elsewhere — over the rim, or outside the sphere — the point meets the rim, a circle, by its
//! distance from it ([`Gap3d::Rim`]): a ball dropped on the rim lands on it, and a point moves
//! from the wall to the rim where the two gaps are equal. The bowl has no outside and its rim
//! no thickness: a box's edge or face laid across the rim is not held by it.

use super::contact_point::{ContactPoint3d, Placed, key, kind};
use crate::constraint::Gap3d;
use crate::math::vector::norm;

/// The bowl's sphere and rim in its body's frame: radius `radius` about the origin, its surface
/// below `z = rim`.
#[derive(Clone, Copy)]
pub(super) struct Bowl {
    pub(super) radius: f64,
    pub(super) rim: f64,
}

/// How far past the sphere (a share of its radius) a corner still touches it from within.
const PAST: f64 = 1e-3;

/// The contact points of `other`'s core with `bowl` (placed at `at`) within `margin` of
/// touching, appended to `out`.
pub(super) fn inside(
    (bowl, at): (Bowl, &Placed<'_>),
    other: &Placed<'_>,
    margin: f64,
    out: &mut Vec<ContactPoint3d>,
) {
    let r = other.c.radius;
    // The rim: a circle of this radius about the axis, at height `rim`.
    let rho = (bowl.radius * bowl.radius - bowl.rim * bowl.rim)
        .max(0.0)
        .sqrt();
    for (k, p) in other.c.points().iter().enumerate() {
        let x = at.pose.local(&other.pose.apply(p));
        let distance = norm(&x);
        // At the centre the gap has no normal, and a point there is a radius from the surface.
        if !(distance > 0.0) {
            continue;
        }
        let below = bowl.radius * x[2] / distance <= bowl.rim;
        if below && distance < bowl.radius * (1.0 + PAST) {
            let separation = bowl.radius - distance - r;
            if separation <= margin {
                out.push(ContactPoint3d {
                    key: key(kind::BOWL, k as u64, 0),
                    first_is_a: other.first,
                    gap: Gap3d::Within {
                        a: *p,
                        b: [0.0; 3],
                        radius: bowl.radius,
                    },
                    radii: [r, 0.0],
                    separation,
                });
            }
            continue;
        }
        let across = x[0].hypot(x[1]);
        if !(rho > 0.0 && across > 0.0) {
            continue;
        }
        let separation = (across - rho).hypot(x[2] - bowl.rim) - r;
        if separation <= margin {
            out.push(ContactPoint3d {
                key: key(kind::RIM, k as u64, 0),
                first_is_a: other.first,
                gap: Gap3d::Rim {
                    a: *p,
                    b: [0.0, 0.0, bowl.rim],
                    axis: [0.0, 0.0, 1.0],
                    radius: rho,
                },
                radii: [r, 0.0],
                separation,
            });
        }
    }
}
