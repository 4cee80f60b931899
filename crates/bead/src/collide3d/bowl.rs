//! A body inside a bowl ([`Core::Bowl`](super::collider::Core)): each point of its core against
//! the sphere, from within.
//!
//! The sphere's inside is convex, so a body's distance from the sphere's centre is largest at a
//! point of its core: a ball's centre, a capsule's ends (the distance grows along a segment
//! towards one end), a polytope's corners. Each such point is a gap exact in the bodies'
//! coordinates, `g = R − |x − c| − r` ([`Gap3d::Within`]), with no feature to slide off: a
//! ball rolling round the bowl keeps one contact. A point touches the bowl where the sphere's
//! radius through it meets the surface below the rim. A body whose centre is outside the
//! sphere touches nothing: the bowl has no outside.

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

/// The contact points of `other`'s core with the inside of `bowl` (placed at `at`) within
/// `margin` of touching, appended to `out`.
pub(super) fn inside(
    (bowl, at): (Bowl, &Placed<'_>),
    other: &Placed<'_>,
    margin: f64,
    out: &mut Vec<ContactPoint3d>,
) {
    // Which side of the surface a body is on is its centre's side: its corners may be
    // pressed past the surface (a cube resting on four corners has them exactly on it).
    if !(norm(&at.pose.local(&other.pose.position)) < bowl.radius) {
        return;
    }
    let r = other.c.radius;
    for (k, p) in other.c.points().iter().enumerate() {
        let x = at.pose.local(&other.pose.apply(p));
        let distance = norm(&x);
        // At the centre the gap has no normal, and a point there is a radius from the surface.
        if !(distance > 0.0) {
            continue;
        }
        if bowl.radius * x[2] / distance > bowl.rim {
            continue;
        }
        let separation = bowl.radius - distance - r;
        if separation > margin {
            continue;
        }
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
}
