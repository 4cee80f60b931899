//! The points where two colliders touch, each as the exact gap of the features that touch
//! (see the module above).

use parry2d_f64::math::{Pose, Vector};
use parry2d_f64::query::{ContactManifold, DefaultQueryDispatcher, PersistentQueryDispatcher};

use super::Collider;
use crate::constraint::Gap;

/// A face normal matches the manifold's normal when they agree to this (a cosine's defect).
const SAME_DIRECTION: f64 = 1e-9;
/// A best face farther than this from the manifold's normal is no face of the contact.
const NEAR_DIRECTION: f64 = 0.1;

/// One point of contact between collider 1 and collider 2.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ContactPoint {
    /// Names the two features that touch: the same while they do.
    pub(crate) key: u64,
    /// Whether the constraint's body `a` (the point, or the first round feature) is collider 1.
    pub(crate) first_is_a: bool,
    /// The features' gap, `a` then `b`.
    pub(crate) gap: Gap,
    /// The radii that sweep `a`'s and `b`'s cores.
    pub(crate) radii: [f64; 2],
}

/// The contact points of collider `c1` at `pose1` with `c2` at `pose2` that are within `margin`
/// of touching (up to two), appended to `out`; `scratch` holds parry's manifolds.
pub(crate) fn manifold(
    (c1, pose1): (&Collider, &Pose),
    (c2, pose2): (&Collider, &Pose),
    margin: f64,
    scratch: &mut Vec<ContactManifold<(), ()>>,
    out: &mut Vec<ContactPoint>,
) -> Result<(), String> {
    scratch.clear();
    DefaultQueryDispatcher
        .contact_manifolds(
            &pose1.inv_mul(pose2),
            &*c1.shape,
            &*c2.shape,
            margin,
            scratch,
            &mut None,
        )
        .map_err(|e| format!("parry has no contact query for this pair of shapes: {e:?}"))?;
    for m in scratch.iter() {
        let (n1, n2) = (arr(m.local_n1), arr(m.local_n2));
        for p in &m.points {
            if p.dist > margin {
                continue;
            }
            let (p1, p2) = (arr(p.local_p1), arr(p.local_p2));
            let k1 = [p1[0] - c1.radius * n1[0], p1[1] - c1.radius * n1[1]];
            let k2 = [p2[0] - c2.radius * n2[0], p2[1] - c2.radius * n2[1]];
            if let Some(point) = classify((c1, k1, n1), (c2, k2, n2)) {
                out.push(point);
            }
        }
    }
    Ok(())
}

fn arr(v: Vector) -> [f64; 2] {
    [v.x, v.y]
}

/// The features behind a manifold point: each side's core point `k` and outward normal `n`, in
/// its own frame.
fn classify(
    (c1, k1, n1): (&Collider, [f64; 2], [f64; 2]),
    (c2, k2, n2): (&Collider, [f64; 2], [f64; 2]),
) -> Option<ContactPoint> {
    let (v1, v2) = (vertex(c1, k1), vertex(c2, k2));
    let (f1, f2) = (face(c1, n1), face(c2, n2));
    let exact = |f: Option<(usize, f64)>| f.filter(|(_, defect)| *defect <= SAME_DIRECTION);
    let near = |f: Option<(usize, f64)>| f.filter(|(_, defect)| *defect <= NEAR_DIRECTION);
    let point_on_face = |first_is_a: bool, v: usize, f: usize| {
        let (pc, fc, fk) = if first_is_a {
            (c1, c2, k2)
        } else {
            (c2, c1, k1)
        };
        let (ra, rb) = (pc.radius, fc.radius);
        ContactPoint {
            key: key(if first_is_a { 0 } else { 1 }, v, f),
            first_is_a,
            gap: Gap::Face {
                a: pc.vertices[v],
                b: fk,
                normal: fc.normals[f],
            },
            radii: [ra, rb],
        }
    };
    match (v1, v2) {
        (Some(v), _) if exact(f2).is_some() => Some(point_on_face(true, v, exact(f2)?.0)),
        (_, Some(v)) if exact(f1).is_some() => Some(point_on_face(false, v, exact(f1)?.0)),
        (Some(a), Some(b)) => Some(ContactPoint {
            key: key(2, a, b),
            first_is_a: true,
            gap: Gap::Round {
                a: c1.vertices[a],
                b: c2.vertices[b],
            },
            radii: [c1.radius, c2.radius],
        }),
        // A vertex on a face that the manifold's normal only nearly is (a corner under a
        // slightly tilted face): the face's own normal is the exact one.
        (None, Some(v)) => near(f1).map(|(f, _)| point_on_face(false, v, f)),
        (Some(v), None) => near(f2).map(|(f, _)| point_on_face(true, v, f)),
        (None, None) => None,
    }
}

/// The core vertex at `k`, if `k` is one.
fn vertex(c: &Collider, k: [f64; 2]) -> Option<usize> {
    let size = c
        .vertices
        .iter()
        .flatten()
        .fold(c.radius, |m, x| m.max(x.abs()));
    let tol = 1e-9 * (1.0 + size);
    c.vertices
        .iter()
        .position(|v| (v[0] - k[0]).abs() <= tol && (v[1] - k[1]).abs() <= tol)
}

/// The face whose normal is nearest `n`, with `1 − cos` of the angle between them.
fn face(c: &Collider, n: [f64; 2]) -> Option<(usize, f64)> {
    c.normals
        .iter()
        .enumerate()
        .map(|(i, m)| (i, 1.0 - (m[0] * n[0] + m[1] * n[1])))
        .min_by(|a, b| a.1.total_cmp(&b.1))
}

fn key(kind: u64, a: usize, b: usize) -> u64 {
    (kind << 62) | ((a as u64 & 0x7fff_ffff) << 31) | (b as u64 & 0x7fff_ffff)
}
