//! The points where two colliders touch, each named by the features that touch (see the module
//! above): separating axes over the cores' faces, then the incident face clipped to the
//! reference face's sides, as Box2D's `b2CollidePolygons` does — with each point kept as the
//! vertex and the face it comes from, rather than as a position.

use super::collider::{Collider, Pose};
use crate::constraint::Gap;

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
    /// The gap now, m.
    pub(crate) separation: f64,
}

/// Which side of the pair a feature belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    First,
    Second,
}

/// The contact points of collider `c1` at `pose1` with `c2` at `pose2` that are within `margin`
/// of touching (up to two), appended to `out`.
pub(crate) fn manifold(
    (c1, pose1): (&Collider, &Pose),
    (c2, pose2): (&Collider, &Pose),
    margin: f64,
    out: &mut Vec<ContactPoint>,
) {
    let one = Body {
        c: c1,
        pose: pose1,
        side: Side::First,
    };
    let two = Body {
        c: c2,
        pose: pose2,
        side: Side::Second,
    };
    match (c1.is_round(), c2.is_round()) {
        (true, true) => round_round(one, two, margin, out),
        (true, false) => point_against(one, two, margin, out),
        (false, true) => point_against(two, one, margin, out),
        (false, false) => polygons(one, two, margin, out),
    }
}

/// A collider at its pose, and which of the pair it is.
#[derive(Clone, Copy)]
struct Body<'a> {
    c: &'a Collider,
    pose: &'a Pose,
    side: Side,
}

impl Body<'_> {
    fn vertex(&self, k: usize) -> [f64; 2] {
        self.pose.apply(self.c.vertices[k % self.c.vertices.len()])
    }

    fn normal(&self, k: usize) -> [f64; 2] {
        self.pose.rotate(self.c.normals[k])
    }

    fn count(&self) -> usize {
        self.c.vertices.len()
    }
}

fn sub(a: [f64; 2], b: [f64; 2]) -> [f64; 2] {
    [a[0] - b[0], a[1] - b[1]]
}

fn dot(a: [f64; 2], b: [f64; 2]) -> f64 {
    a[0] * b[0] + a[1] * b[1]
}

fn length(a: [f64; 2]) -> f64 {
    dot(a, a).sqrt()
}

fn key(kind: u64, a: usize, b: usize) -> u64 {
    (kind << 62) | ((a as u64 & 0x7fff_ffff) << 31) | (b as u64 & 0x7fff_ffff)
}

/// A point of `a` (its vertex `v`) against the face `f` of `b`, if within the margin.
fn point_on_face(
    a: Body<'_>,
    v: usize,
    b: Body<'_>,
    f: usize,
    margin: f64,
    out: &mut Vec<ContactPoint>,
) {
    let r = a.c.radius + b.c.radius;
    let separation = dot(b.normal(f), sub(a.vertex(v), b.vertex(f))) - r;
    if separation > margin {
        return;
    }
    let first_is_a = a.side == Side::First;
    out.push(ContactPoint {
        key: key(if first_is_a { 0 } else { 1 }, v, f),
        first_is_a,
        gap: Gap::Face {
            a: a.c.vertices[v],
            b: b.c.vertices[f],
            normal: b.c.normals[f],
        },
        radii: [a.c.radius, b.c.radius],
        separation,
    });
}

/// Vertex `v` of `a` against vertex `w` of `b`, both round (swept by a radius), if within the
/// margin.
fn vertex_vertex(
    a: Body<'_>,
    v: usize,
    b: Body<'_>,
    w: usize,
    margin: f64,
    out: &mut Vec<ContactPoint>,
) {
    let separation = length(sub(a.vertex(v), b.vertex(w))) - a.c.radius - b.c.radius;
    if separation > margin {
        return;
    }
    let (first, second, i, j) = if a.side == Side::First {
        (a, b, v, w)
    } else {
        (b, a, w, v)
    };
    out.push(ContactPoint {
        key: key(2, i, j),
        first_is_a: true,
        gap: Gap::Round {
            a: first.c.vertices[i],
            b: second.c.vertices[j],
        },
        radii: [first.c.radius, second.c.radius],
        separation,
    });
}

fn round_round(a: Body<'_>, b: Body<'_>, margin: f64, out: &mut Vec<ContactPoint>) {
    vertex_vertex(a, 0, b, 0, margin, out);
}

/// A disc (its centre, swept by its radius) against a segment or a polygon: the face of most
/// separation, or the vertex at its end where the centre lies beyond it (Box2D's
/// `b2CollidePolygonAndCircle`).
fn point_against(p: Body<'_>, q: Body<'_>, margin: f64, out: &mut Vec<ContactPoint>) {
    let centre = p.vertex(0);
    let (mut face, mut most) = (0, f64::NEG_INFINITY);
    for k in 0..q.count() {
        let s = dot(q.normal(k), sub(centre, q.vertex(k)));
        if s > most {
            (face, most) = (k, s);
        }
    }
    if most - p.c.radius - q.c.radius > margin {
        return;
    }
    let (v1, v2) = (q.vertex(face), q.vertex(face + 1));
    let e = sub(v2, v1);
    let u = dot(sub(centre, v1), e) / dot(e, e);
    // Beyond an end of the face, its vertex is nearest (round against round); inside, the face.
    let beyond = most > 0.0;
    if beyond && u < 0.0 {
        vertex_vertex(p, 0, q, face, margin, out);
    } else if beyond && u > 1.0 {
        vertex_vertex(p, 0, q, (face + 1) % q.count(), margin, out);
    } else {
        point_on_face(p, 0, q, face, margin, out);
    }
}

/// The face of `a` that separates the cores most, and by how much: over `a`'s faces, the
/// least distance of `b`'s vertices beyond it.
fn max_separation(a: Body<'_>, b: Body<'_>) -> (usize, f64) {
    let (mut best, mut most) = (0, f64::NEG_INFINITY);
    for k in 0..a.count() {
        let (n, v) = (a.normal(k), a.vertex(k));
        let s = (0..b.count())
            .map(|j| dot(n, sub(b.vertex(j), v)))
            .fold(f64::INFINITY, f64::min);
        if s > most {
            (best, most) = (k, s);
        }
    }
    (best, most)
}

/// The closest points of segments `p1 p2` and `q1 q2`: their parameters along each, in [0, 1].
fn segment_closest(p1: [f64; 2], p2: [f64; 2], q1: [f64; 2], q2: [f64; 2]) -> (f64, f64) {
    let (d1, d2, r) = (sub(p2, p1), sub(q2, q1), sub(p1, q1));
    let (a, e, f) = (dot(d1, d1), dot(d2, d2), dot(d2, r));
    let c = dot(d1, r);
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

/// The distance between two cores of two or more vertices when they are apart, with the edges
/// of each that are nearest and the parameters along them of the nearest points; `None` when
/// they overlap or touch.
#[allow(clippy::type_complexity)]
fn core_distance(a: Body<'_>, b: Body<'_>) -> Option<(f64, (usize, f64), (usize, f64))> {
    let edges = |x: Body<'_>| if x.count() == 2 { 1 } else { x.count() };
    let mut best: Option<(f64, (usize, f64), (usize, f64))> = None;
    for i in 0..edges(a) {
        let (a1, a2) = (a.vertex(i), a.vertex(i + 1));
        for j in 0..edges(b) {
            let (b1, b2) = (b.vertex(j), b.vertex(j + 1));
            let (s, t) = segment_closest(a1, a2, b1, b2);
            let pa = [a1[0] + s * (a2[0] - a1[0]), a1[1] + s * (a2[1] - a1[1])];
            let pb = [b1[0] + t * (b2[0] - b1[0]), b1[1] + t * (b2[1] - b1[1])];
            let d = length(sub(pa, pb));
            if best.is_none_or(|(e, _, _)| d < e) {
                best = Some((d, (i, s), (j, t)));
            }
        }
    }
    // Edges that come near may still have one core inside the other.
    let inside = |x: Body<'_>, y: Body<'_>| {
        x.count() > 2
            && (0..x.count()).all(|k| dot(x.normal(k), sub(y.vertex(0), x.vertex(k))) <= 0.0)
    };
    best.filter(|(d, _, _)| *d > 0.0 && !inside(a, b) && !inside(b, a))
}

/// Two cores of two or more vertices (segments, polygons): the reference face is the one that
/// separates them most (the first collider's on a tie, within rounding), the incident face the
/// other's most opposed to it, clipped to the reference face's sides. Each point is an incident
/// vertex on the reference face or, where the clip cut the incident face, the reference face's
/// end vertex on the incident face. Rounded cores that are apart and nearest at two vertices
/// touch there, round against round.
fn polygons(one: Body<'_>, two: Body<'_>, margin: f64, out: &mut Vec<ContactPoint>) {
    let r = one.c.radius + two.c.radius;
    let (e1, s1) = max_separation(one, two);
    let (e2, s2) = max_separation(two, one);
    if s1.max(s2) - r > margin {
        return;
    }
    let size = one.c.extent().max(two.c.extent());
    let (reference, incident, e) = if s2 > s1 + 1e-9 * size {
        (two, one, e2)
    } else {
        (one, two, e1)
    };
    let normal = reference.normal(e);
    // The incident face: the most opposed to the reference normal.
    let f = (0..incident.count())
        .min_by(|&i, &j| {
            dot(incident.normal(i), normal).total_cmp(&dot(incident.normal(j), normal))
        })
        .unwrap_or(0);
    let (r1, r2) = (reference.vertex(e), reference.vertex(e + 1));
    let (i1, i2) = (incident.vertex(f), incident.vertex(f + 1));
    let (f_next, e_next) = ((f + 1) % incident.count(), (e + 1) % reference.count());
    if r > 0.0 {
        // Rounded cores that are apart may be nearest at two vertices (capsules end to end,
        // where no face separates them): there they touch round against round.
        if let Some((d, (ea, sa), (eb, tb))) = core_distance(one, two) {
            if d - r > margin {
                return;
            }
            let end = |x: f64| x == 0.0 || x == 1.0;
            if end(sa) && end(tb) {
                let va = if sa == 0.0 {
                    ea
                } else {
                    (ea + 1) % one.count()
                };
                let vb = if tb == 0.0 {
                    eb
                } else {
                    (eb + 1) % two.count()
                };
                let dir = sub(two.vertex(vb), one.vertex(va));
                // Unless that line is a face's normal (a corner resting on a face).
                let along_face = (0..one.count())
                    .map(|k| dot(one.normal(k), dir))
                    .chain((0..two.count()).map(|k| -dot(two.normal(k), dir)))
                    .any(|c| c >= (1.0 - 1e-9) * length(dir));
                if !along_face {
                    vertex_vertex(one, va, two, vb, margin, out);
                    return;
                }
            }
        }
    }
    let tangent = {
        let t = sub(r2, r1);
        let l = length(t);
        [t[0] / l, t[1] / l]
    };
    let (lo, hi) = (dot(tangent, r1), dot(tangent, r2));
    let along = |p: [f64; 2]| dot(tangent, p);
    // The incident vertices within the reference face's sides.
    for (iv, p) in [(f, i1), (f_next, i2)] {
        if (lo..=hi).contains(&along(p)) {
            point_on_face(incident, iv, reference, e, margin, out);
        }
    }
    // Where the incident face runs past a side, that side's reference vertex on it.
    let (a1, a2) = (along(i1), along(i2));
    for (rv, side) in [(e, lo), (e_next, hi)] {
        let crosses = (a1 - side) * (a2 - side) < 0.0;
        if crosses {
            point_on_face(reference, rv, incident, f, margin, out);
        }
    }
}

/// The gap of `point` with the colliders at `pose1` and `pose2`, as the contact constraint
/// evaluates it.
#[cfg(test)]
pub(crate) fn gap_at(point: &ContactPoint, pose1: &Pose, pose2: &Pose) -> f64 {
    let (pa, pb) = if point.first_is_a {
        (pose1, pose2)
    } else {
        (pose2, pose1)
    };
    let r = point.radii[0] + point.radii[1];
    match point.gap {
        Gap::Round { a, b } => length(sub(pa.apply(a), pb.apply(b))) - r,
        Gap::Face { a, b, normal } => dot(pb.rotate(normal), sub(pa.apply(a), pb.apply(b))) - r,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::Shape;

    fn points(s1: &Shape, pose1: Pose, s2: &Shape, pose2: Pose, margin: f64) -> Vec<ContactPoint> {
        let (c1, c2) = (Collider::of(s1).unwrap(), Collider::of(s2).unwrap());
        let mut out = Vec::new();
        manifold((&c1, &pose1), (&c2, &pose2), margin, &mut out);
        for p in &out {
            // The gap the constraint will evaluate is the separation found here.
            let g = gap_at(p, &pose1, &pose2);
            assert!((g - p.separation).abs() < 1e-12, "{p:?}: gap {g}");
        }
        out
    }

    const GROUND: Shape = Shape::Box {
        width: 10.0,
        height: 1.0,
    };

    #[test]
    fn a_box_resting_on_the_ground_touches_at_its_two_corners_on_the_ground_face() {
        let crate_ = Shape::Box {
            width: 0.5,
            height: 0.5,
        };
        let out = points(
            &GROUND,
            Pose::new([0.0, -0.5], 0.0),
            &crate_,
            Pose::new([1.0, 0.25], 0.0),
            1e-3,
        );
        assert_eq!(out.len(), 2);
        assert_ne!(out[0].key, out[1].key);
        for p in &out {
            assert!(p.separation.abs() < 1e-15);
            assert!(
                matches!(p.gap, Gap::Face { normal, .. } if normal == [0.0, 1.0] || normal == [0.0, -1.0])
            );
        }
    }

    #[test]
    fn two_voussoirs_sharing_a_face_touch_along_it_not_through_a_third() {
        // The case parry2d 0.31 got 31 cm deep: the keystone and its neighbour of a nine-block
        // arch, sharing the radial face at 80°.
        let block = |k: usize| {
            let (r1, r2) = (1.0, 1.3);
            let (a0, a1) = (
                std::f64::consts::PI * k as f64 / 9.0,
                std::f64::consts::PI * (k + 1) as f64 / 9.0,
            );
            let pts = [
                [r2 * a0.cos(), r2 * a0.sin()],
                [r2 * a1.cos(), r2 * a1.sin()],
                [r1 * a1.cos(), r1 * a1.sin()],
                [r1 * a0.cos(), r1 * a0.sin()],
            ];
            let c = [
                pts.iter().map(|p| p[0]).sum::<f64>() / 4.0,
                pts.iter().map(|p| p[1]).sum::<f64>() / 4.0,
            ];
            let local = pts.iter().map(|p| [p[0] - c[0], p[1] - c[1]]).collect();
            (Shape::Polygon { vertices: local }, Pose::new(c, 0.0))
        };
        let ((s3, p3), (s4, p4)) = (block(3), block(4));
        let out = points(&s3, p3, &s4, p4, 1e-3);
        assert_eq!(out.len(), 2, "{out:?}");
        let radial = [-(80f64.to_radians().sin()), 80f64.to_radians().cos()];
        for p in &out {
            assert!(p.separation.abs() < 1e-12, "{p:?}");
            let Gap::Face { normal, .. } = p.gap else {
                panic!("{p:?}")
            };
            // Along the shared face's normal (either body's).
            assert!((normal[0] * radial[0] + normal[1] * radial[1]).abs() > 1.0 - 1e-12);
        }
    }

    #[test]
    fn a_disc_touches_a_face_inside_it_and_a_corner_beyond_it() {
        let disc = Shape::Disc { radius: 0.1 };
        let on_face = points(
            &GROUND,
            Pose::new([0.0, -0.5], 0.0),
            &disc,
            Pose::new([1.0, 0.1], 0.0),
            1e-3,
        );
        assert_eq!(on_face.len(), 1);
        assert!(matches!(on_face[0].gap, Gap::Face { .. }));
        // Beyond the ground's right end, near its corner: round against the corner.
        let corner = points(
            &GROUND,
            Pose::new([0.0, -0.5], 0.0),
            &disc,
            Pose::new([5.06, 0.06], 0.0),
            1e-3,
        );
        assert_eq!(corner.len(), 1);
        assert!(matches!(corner[0].gap, Gap::Round { .. }), "{corner:?}");
        let d = (0.06f64 * 0.06 * 2.0).sqrt() - 0.1;
        assert!((corner[0].separation - d).abs() < 1e-12);
    }

    #[test]
    fn capsules_end_to_end_touch_at_their_round_ends() {
        let capsule = Shape::Capsule {
            radius: 0.1,
            length: 1.0,
        };
        // Collinear, their ends' centres 0.2005 m apart: 0.5 mm from touching.
        let out = points(
            &capsule,
            Pose::new([0.0, 0.0], 0.0),
            &capsule,
            Pose::new([1.2005, 0.0], 0.0),
            1e-3,
        );
        assert_eq!(out.len(), 1, "{out:?}");
        assert!(matches!(out[0].gap, Gap::Round { .. }));
        assert!((out[0].separation - 0.0005).abs() < 1e-12);
        // Farther than the margin: nothing.
        let none = points(
            &capsule,
            Pose::new([0.0, 0.0], 0.0),
            &capsule,
            Pose::new([1.3, 0.0], 0.0),
            1e-3,
        );
        assert!(none.is_empty());
    }

    #[test]
    fn every_point_of_random_pairs_is_its_features_gap() {
        // `points` checks each point's gap against its separation; here over random shapes
        // and poses, including overlapping ones.
        let shapes = [
            Shape::Disc { radius: 0.3 },
            Shape::Box {
                width: 0.8,
                height: 0.4,
            },
            Shape::Capsule {
                radius: 0.2,
                length: 0.6,
            },
            Shape::Rod { length: 1.0 },
            Shape::Polygon {
                vertices: vec![[-0.3, -0.2], [0.4, -0.2], [-0.1, 0.4]],
            },
        ];
        let mut seed = 12345_u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut found = 0;
        for _ in 0..2000 {
            let (i, j) = ((next() * 5.0) as usize, (next() * 5.0) as usize);
            let pose = |next: &mut dyn FnMut() -> f64| {
                Pose::new([next() * 1.2 - 0.6, next() * 1.2 - 0.6], next() * 6.0)
            };
            let (p1, p2) = (pose(&mut next), pose(&mut next));
            found += points(&shapes[i.min(4)], p1, &shapes[j.min(4)], p2, 0.05).len();
        }
        assert!(found > 500, "only {found} points");
    }
}
