//! The last resort for a cylinder cut deep into another shape where no feature pair of the
//! narrow phase sees it: dimforge's parry3d-f64 (its EPA) gives the deepest points and normal,
//! held as one body's point against the plane through the other's, its normal fixed in that
//! body ([`Gap3d::Face`]).
//!
//! A cylinder's rims meet edges and other rims at points found numerically, and cut in by more
//! than a few millimetres a rim's two nearest points to an edge can both lie inside the other
//! body, with neither the pair's least depth (1 pair in 2,500 of the narrow phase's random
//! checks between 1 and 20 mm deep). Bodies come together within the contact margin before they
//! touch, so this is for bodies placed overlapping: it sees the overlap and pushes them apart
//! along parry's normal, to within its tolerance of about 1e-5 m.

use parry3d_f64::math::{Matrix, Pose, Rotation, Vector};
use parry3d_f64::query;
use parry3d_f64::shape::{Ball, Capsule, ConvexPolyhedron, Cylinder, Shape};

use super::collider::{Core, Pose3d};
use super::contact_point::{ContactPoint3d, Placed, key, kind};
use crate::constraint::Gap3d;
use crate::math::vector::Vec3;

/// The shape as parry's, with the turn that takes parry's frame of it onto the body's (a
/// cylinder stands along parry's y axis, along the body's z); `None` for a bowl.
fn parry_shape(body: &Placed<'_>) -> Option<(Box<dyn Shape>, Pose3d)> {
    let r = body.c.radius;
    let v = |p: &Vec3| Vector::new(p[0], p[1], p[2]);
    let mut frame = Pose3d::at([0.0; 3]);
    let shape: Box<dyn Shape> = match &body.c.core {
        Core::Point => Box::new(Ball::new(r)),
        Core::Segment([p, q]) => Box::new(Capsule::new(v(p), v(q), r)),
        Core::Polytope(poly) => {
            let points: Vec<Vector> = poly.vertices.iter().map(v).collect();
            Box::new(ConvexPolyhedron::from_convex_hull(&points)?)
        }
        &Core::Cylinder { radius, half, .. } => {
            // Parry's y onto the body's z: a quarter turn about x.
            frame.rotation = [[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]];
            Box::new(Cylinder::new(half, radius))
        }
        Core::Bowl { .. } => return None,
    };
    Some((shape, frame))
}

/// Parry's pose of a body at `pose`, its shape turned by `frame` in the body.
fn parry_pose(pose: &Pose3d, frame: &Pose3d) -> Pose {
    let m = &pose.rotation;
    let f = &frame.rotation;
    let turned: [[f64; 3]; 3] =
        std::array::from_fn(|i| std::array::from_fn(|j| (0..3).map(|k| m[i][k] * f[k][j]).sum()));
    let column = |j: usize| Vector::new(turned[0][j], turned[1][j], turned[2][j]);
    let rotation = Rotation::from_mat3(&Matrix::from_cols(column(0), column(1), column(2)));
    let p = pose.position;
    Pose::from_parts(Vector::new(p[0], p[1], p[2]), rotation)
}

/// The deepest points of `one` and `two` where they overlap, as `two`'s point against the plane
/// through `one`'s with `one`'s outward normal; `None` where parry finds them apart or cannot
/// take a shape.
pub(super) fn deepest(one: &Placed<'_>, two: &Placed<'_>) -> Option<(Vec3, ContactPoint3d)> {
    let (s1, f1) = parry_shape(one)?;
    let (s2, f2) = parry_shape(two)?;
    let (p1, p2) = (parry_pose(one.pose, &f1), parry_pose(two.pose, &f2));
    let contact = query::contact(&p1, s1.as_ref(), &p2, s2.as_ref(), 0.0).ok()??;
    if !(contact.dist < 0.0) {
        return None;
    }
    let w = |v: Vector| [v.x, v.y, v.z];
    let (x1, x2, n) = (w(contact.point1), w(contact.point2), w(contact.normal1));
    // The two bodies' radii are in parry's points already.
    let gap = Gap3d::Face {
        a: two.pose.local(&x2),
        b: one.pose.local(&x1),
        normal: one.pose.rotate_back(&n),
    };
    Some((
        x2,
        ContactPoint3d {
            key: key(kind::OVERLAP, 0, 0),
            first_is_a: two.first,
            gap,
            radii: [0.0, 0.0],
            separation: contact.dist,
        },
    ))
}
