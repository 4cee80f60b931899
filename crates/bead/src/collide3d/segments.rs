//! The closest points of two segments, which every round core's contact and two crossing edges
//! come down to.

use crate::math::vector::{Vec3, dot, sub};

/// The parameters `(s, t)` of the closest points of segments `p0 + s d1` and `q0 + t d2`, both in
/// `[0, 1]` (Ericson, *Real-Time Collision Detection* §5.1.9); a zero-length segment is a point.
pub(super) fn closest_on_segments(p0: &Vec3, d1: &Vec3, q0: &Vec3, d2: &Vec3) -> (f64, f64) {
    let r = sub(p0, q0);
    let (a, e, f) = (dot(d1, d1), dot(d2, d2), dot(d2, &r));
    let tiny = 1e-24;
    if a <= tiny && e <= tiny {
        return (0.0, 0.0);
    }
    if a <= tiny {
        return (0.0, (f / e).clamp(0.0, 1.0));
    }
    let c = dot(d1, &r);
    if e <= tiny {
        return ((-c / a).clamp(0.0, 1.0), 0.0);
    }
    let b = dot(d1, d2);
    let denom = a * e - b * b;
    let mut s = if denom > 1e-14 * a * e {
        ((b * f - c * e) / denom).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let mut t = (b * s + f) / e;
    if t < 0.0 {
        t = 0.0;
        s = (-c / a).clamp(0.0, 1.0);
    } else if t > 1.0 {
        t = 1.0;
        s = ((b - c) / a).clamp(0.0, 1.0);
    }
    (s, t)
}

/// The point `p + s d`.
pub(super) fn along(p: &Vec3, d: &Vec3, s: f64) -> Vec3 {
    [0, 1, 2].map(|k| p[k] + s * d[k])
}
