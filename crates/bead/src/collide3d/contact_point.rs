//! A point of contact as the narrow phase hands it on: the features that touch, named by a
//! key that stays the same while they do, and their gap.

use super::collider::{Collider3d, Pose3d};
use crate::constraint::Gap3d;
use crate::math::vector::{Vec3, cross, dot, norm, sub};

/// One point of contact between collider 1 and collider 2.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ContactPoint3d {
    /// Names the two features that touch: the same while they do.
    pub(crate) key: u64,
    /// Whether the constraint's body `a` is collider 1.
    pub(crate) first_is_a: bool,
    /// The features' gap, `a` then `b`.
    pub(crate) gap: Gap3d,
    /// The radii that sweep `a`'s and `b`'s cores.
    pub(crate) radii: [f64; 2],
    /// The gap now, m.
    pub(crate) separation: f64,
}

/// A collider at its pose, and whether it is the first of the pair.
#[derive(Clone, Copy)]
pub(super) struct Placed<'a> {
    pub(super) c: &'a Collider3d,
    pub(super) pose: &'a Pose3d,
    pub(super) first: bool,
}

/// The case a key names, in its top byte (with which side is which where it matters).
pub(super) mod kind {
    /// Two round cores.
    pub(crate) const ROUND: u64 = 0;
    /// A round core against a polytope, the round one first (then second).
    pub(crate) const ROUND_ON_POLYTOPE: [u64; 2] = [1, 2];
    /// A face's clipped points, the reference face's body first (then second).
    pub(crate) const FACE: [u64; 2] = [3, 4];
    /// Two edges crossing.
    pub(crate) const EDGES: u64 = 5;
    /// A corner of the first (then second) polytope against the other's nearest feature.
    pub(crate) const CORNER: [u64; 2] = [6, 7];
    /// A point of a core inside a bowl.
    pub(crate) const BOWL: u64 = 8;
    /// A point of a core against a bowl's rim.
    pub(crate) const RIM: u64 = 9;
    /// A point of a core against a cylinder, the cylinder first (then second).
    pub(crate) const CYLINDER_POINT: [u64; 2] = [10, 11];
    /// A cylinder's rim against a plane, the cylinder first (then second).
    pub(crate) const RIM_PLANE: [u64; 2] = [12, 13];
    /// A line against a cylinder's side, the cylinder first (then second).
    pub(crate) const SIDE: [u64; 2] = [14, 15];
    /// A point of a line against a cylinder's rim, the cylinder first (then second).
    pub(crate) const SEGMENT_RIM: [u64; 2] = [16, 17];
    /// A point of a cylinder's rim against another cylinder's side or rim, the rim's cylinder
    /// first (then second).
    pub(crate) const RIM_CYLINDER: [u64; 2] = [18, 19];
    /// Two shapes cut deep into each other where no features see it (parry's deepest points).
    pub(crate) const OVERLAP: u64 = 20;
}

/// The key of a pair of features: its [`kind`], then a code for each feature.
pub(super) fn key(kind: u64, a: u64, b: u64) -> u64 {
    (kind << 56) | ((a & 0x0fff_ffff) << 28) | (b & 0x0fff_ffff)
}

/// Whether `key` names a point of a cylinder's rim against a plane, and if so whether the
/// cylinder is the first of the pair: its normal force tells where the rim's pressure leans.
pub(crate) fn flat_rim(key: u64) -> Option<bool> {
    let case = kind_of(key);
    (kind::RIM_PLANE.contains(&case)).then_some(case == kind::RIM_PLANE[0])
}

/// The [`kind`] of a key.
pub(super) fn kind_of(key: u64) -> u64 {
    key >> 56
}

/// `pair[0]` for the first body of the pair, `pair[1]` for the second.
pub(super) fn sided(pair: [u64; 2], first: bool) -> u64 {
    pair[usize::from(!first)]
}

/// The gap between the closest points `x` of `r` and `y` of `p` (world), each a point of its
/// body or a point inside a line of it (`Some(direction)`, a world unit vector), with whether
/// `r` is the gap's `a`. Two points are round against round; a point and a line, the point
/// against the line; two lines crossing, the distance between the lines along their common
/// normal. Each stays exact as the features slide along their lines and as they turn (a plane
/// through one edge with its normal fixed in that body, tried first, let a spinning cube sink
/// 0.3 mm into another's edge over 6 ms).
pub(super) fn pair_gap(
    r: &Placed<'_>,
    x: Vec3,
    x_line: Option<Vec3>,
    p: &Placed<'_>,
    y: Vec3,
    y_line: Option<Vec3>,
) -> (Gap3d, bool) {
    match (x_line, y_line) {
        (None, None) => (
            Gap3d::Round {
                a: r.pose.local(&x),
                b: p.pose.local(&y),
            },
            true,
        ),
        (None, Some(e)) => (
            Gap3d::Line {
                a: r.pose.local(&x),
                b: p.pose.local(&y),
                direction: p.pose.rotate_back(&e),
            },
            true,
        ),
        (Some(e), None) => (
            Gap3d::Line {
                a: p.pose.local(&y),
                b: r.pose.local(&x),
                direction: r.pose.rotate_back(&e),
            },
            false,
        ),
        (Some(d), Some(e)) => {
            // The lines' common normal, from p to r: towards r's point, or its centre where
            // the cores cross.
            let towards = match norm(&sub(&x, &y)) {
                gap if gap > 0.0 => sub(&x, &y),
                _ => sub(&r.pose.position, &p.pose.position),
            };
            (crossing_gap((r, x, d), (p, y, e), towards), true)
        }
    }
}

/// Two lines crossing: `r`'s through `x` along `d` and `p`'s through `y` along `e` (world), their
/// common normal turned to point along `towards` (from p to r); the plane through `p`'s line,
/// its normal fixed in `p`, where they are parallel.
pub(super) fn crossing_gap(
    (r, x, d): (&Placed<'_>, Vec3, Vec3),
    (p, y, e): (&Placed<'_>, Vec3, Vec3),
    towards: Vec3,
) -> Gap3d {
    let c = cross(&d, &e);
    if !(norm(&c) > 1e-9 * norm(&d) * norm(&e)) {
        let l = norm(&towards);
        return Gap3d::Face {
            a: r.pose.local(&x),
            b: p.pose.local(&y),
            normal: p.pose.rotate_back(&towards.map(|v| v / l)),
        };
    }
    let e = if dot(&c, &towards) < 0.0 {
        e.map(|v| -v)
    } else {
        e
    };
    let tip = |o: &Vec3, t: &Vec3| [0, 1, 2].map(|k| o[k] + t[k]);
    Gap3d::Edges {
        a: [r.pose.local(&x), r.pose.local(&tip(&x, &d))],
        b: [p.pose.local(&y), p.pose.local(&tip(&y, &e))],
    }
}
