//! The points where two 3D colliders touch, each named by the features that touch: round cores
//! (points and segments) by their closest points, a round core against a polytope by the
//! polytope's closest face, edge or vertex, and two polytopes by separating axes and clipping
//! ([`super::polytopes`]), and a core inside a bowl by its points ([`super::bowl`]).

use super::bowl::{self, Bowl};
use super::collider::{Collider3d, Core, Nearest, Polytope, Pose3d, nearest};
use super::contact_point::{ContactPoint3d, Placed, key, kind, pair_gap, sided};
use super::cylinder::{self, Cylinder};
use super::polytopes;
use super::segments::{along, closest_on_segments};
use crate::constraint::Gap3d;
use crate::math::vector::{Vec3, cross, dot, norm, sub};

/// The contact points of `c1` at `pose1` with `c2` at `pose2` within `margin` of touching
/// (up to four), appended to `out`. `lean` is where the pair's pressure was centred at the last
/// step, if a cylinder's rim lay flat on a plane there (see [`super::cylinder`]).
pub(crate) fn manifold(
    (c1, pose1): (&Collider3d, &Pose3d),
    (c2, pose2): (&Collider3d, &Pose3d),
    (margin, lean): (f64, Option<Vec3>),
    out: &mut Vec<ContactPoint3d>,
) {
    let one = Placed {
        c: c1,
        pose: pose1,
        first: true,
    };
    let two = Placed {
        c: c2,
        pose: pose2,
        first: false,
    };
    match (&c1.core, &c2.core) {
        // A bowl has no outside: two never touch. Contact groups refuse a cylinder in a bowl.
        (Core::Bowl { .. }, Core::Bowl { .. } | Core::Cylinder { .. })
        | (Core::Cylinder { .. }, Core::Bowl { .. }) => {}
        (&Core::Bowl { radius, rim }, _) => {
            bowl::inside((Bowl { radius, rim }, &one), &two, margin, out)
        }
        (_, &Core::Bowl { radius, rim }) => {
            bowl::inside((Bowl { radius, rim }, &two), &one, margin, out)
        }
        (&Core::Cylinder { radius, half, .. }, _) => cylinder::manifold(
            Cylinder {
                at: one,
                radius,
                half,
                lean,
            },
            two,
            margin,
            out,
        ),
        (_, &Core::Cylinder { radius, half, .. }) => cylinder::manifold(
            Cylinder {
                at: two,
                radius,
                half,
                lean,
            },
            one,
            margin,
            out,
        ),
        (Core::Polytope(a), Core::Polytope(b)) => {
            polytopes::manifold((one, a), (two, b), margin, out)
        }
        (_, Core::Polytope(p)) => round_polytope(one, (two, p), margin, out),
        (Core::Polytope(p), _) => round_polytope(two, (one, p), margin, out),
        _ => round_round(one, two, margin, out),
    }
}

/// A round core's ends in the world: a point twice for a point.
fn ends(b: &Placed<'_>) -> [Vec3; 2] {
    match &b.c.core {
        Core::Segment([p, q]) => [b.pose.apply(p), b.pose.apply(q)],
        _ => [b.pose.position; 2],
    }
}

/// Where on a segment a parameter falls: its end 0 or 1, or inside (2).
fn end_code(s: f64) -> u64 {
    if s <= 0.0 {
        0
    } else if s >= 1.0 {
        1
    } else {
        2
    }
}

/// Two round cores (points or segments): their closest points, or the two ends of the overlap
/// of two parallel segments (a capsule lying along another).
fn round_round(one: Placed<'_>, two: Placed<'_>, margin: f64, out: &mut Vec<ContactPoint3d>) {
    let ([p0, p1], [q0, q1]) = (ends(&one), ends(&two));
    let (d1, d2) = (sub(&p1, &p0), sub(&q1, &q0));
    let radii = [one.c.radius, two.c.radius];
    let (l1, l2) = (norm(&d1), norm(&d2));
    let mut push = |s: f64, t: f64, code: (u64, u64)| {
        let (x, y) = (along(&p0, &d1, s), along(&q0, &d2, t));
        let separation = norm(&sub(&x, &y)) - radii[0] - radii[1];
        if separation > margin {
            return;
        }
        let line =
            |u: f64, d: &Vec3, l: f64| (u > 0.0 && u < 1.0 && l > 0.0).then(|| d.map(|x| x / l));
        let (gap, one_is_a) = pair_gap(&one, x, line(s, &d1, l1), &two, y, line(t, &d2, l2));
        out.push(ContactPoint3d {
            key: key(kind::ROUND, code.0, code.1),
            first_is_a: one_is_a,
            gap,
            radii: if one_is_a {
                radii
            } else {
                [radii[1], radii[0]]
            },
            separation,
        });
    };
    let parallel = l1 > 0.0 && l2 > 0.0 && norm(&cross(&d1, &d2)) <= 1e-3 * l1 * l2;
    if parallel {
        // The overlap of the second along the first, in the first's parameter.
        let at = |q: &Vec3| dot(&sub(q, &p0), &d1) / (l1 * l1);
        let (u0, u1) = (at(&q0), at(&q1));
        let (lo, lo_code) = if u0.min(u1) > 0.0 {
            (u0.min(u1), (2, if u0 < u1 { 0 } else { 1 }))
        } else {
            (0.0, (0, 2))
        };
        let (hi, hi_code) = if u0.max(u1) < 1.0 {
            (u0.max(u1), (2, if u0 > u1 { 0 } else { 1 }))
        } else {
            (1.0, (1, 2))
        };
        if hi - lo > 1e-9 {
            for (s, code) in [(lo, lo_code), (hi, hi_code)] {
                let x = along(&p0, &d1, s);
                let t = (dot(&sub(&x, &q0), &d2) / (l2 * l2)).clamp(0.0, 1.0);
                push(s, t, code);
            }
            return;
        }
    }
    let (s, t) = closest_on_segments(&p0, &d1, &q0, &d2);
    push(s, t, (end_code(s), end_code(t)));
}

/// A round core (`r`: a point or a segment) against a polytope.
fn round_polytope(
    r: Placed<'_>,
    (p, poly): (Placed<'_>, &Polytope),
    margin: f64,
    out: &mut Vec<ContactPoint3d>,
) {
    let radius = r.c.radius;
    let case = sided(kind::ROUND_ON_POLYTOPE, r.first);
    // Everything in the polytope's frame.
    let [e0, e1] = ends(&r).map(|x| p.pose.local(&x));
    let d = sub(&e1, &e0);
    let length = norm(&d);
    // The segment's direction in the world, for a point inside it.
    let axis = (length > 0.0).then(|| p.pose.rotate(&d.map(|x| x / length)));
    let mut push = |x: Vec3, feature: Nearest, y: Vec3, depth: f64, code: u64, inside: bool| {
        let separation = depth - radius;
        if separation > margin {
            return;
        }
        let (gap, r_is_a) = match feature {
            Nearest::Face(f) => {
                let face = &poly.faces[f];
                let gap = Gap3d::Face {
                    a: r.pose.local(&p.pose.apply(&x)),
                    b: poly.vertices[face.vertices[0]],
                    normal: face.normal,
                };
                (gap, true)
            }
            Nearest::Edge(e) | Nearest::Vertex(e) => {
                let edge = match feature {
                    Nearest::Edge(_) => {
                        let [i, j] = poly.edges[e];
                        let along = sub(&poly.vertices[j], &poly.vertices[i]);
                        let l = norm(&along);
                        Some(p.pose.rotate(&along.map(|v| v / l)))
                    }
                    _ => None,
                };
                let line = if inside { axis } else { None };
                pair_gap(&r, p.pose.apply(&x), line, &p, p.pose.apply(&y), edge)
            }
        };
        out.push(ContactPoint3d {
            key: key(case, code, feature.code()),
            first_is_a: if r_is_a { r.first } else { !r.first },
            gap,
            radii: if r_is_a { [radius, 0.0] } else { [0.0, radius] },
            separation,
        });
    };
    if length == 0.0 {
        let (feature, y, depth) = nearest(poly, &e0);
        push(e0, feature, y, depth, 0, false);
        return;
    }
    let at_ends = [0.0, 1.0].map(|s| {
        let x = along(&e0, &d, s);
        let (feature, y, depth) = nearest(poly, &x);
        (s, x, feature, y, depth)
    });
    // The closest point may lie inside the segment, over an edge or a corner of the polytope (a
    // capsule across a box's ridge): then it is the segment's closest point to that edge.
    let mut inside: Option<(f64, Vec3, Nearest, Vec3, f64)> = None;
    for &[i, j] in &poly.edges {
        let (a, b) = (poly.vertices[i], poly.vertices[j]);
        let de = sub(&b, &a);
        let (s, _) = closest_on_segments(&e0, &d, &a, &de);
        if !(s > 0.0 && s < 1.0) {
            continue;
        }
        let x = along(&e0, &d, s);
        let (feature, y, depth) = nearest(poly, &x);
        let best_so_far = inside.as_ref().map_or(f64::INFINITY, |c| c.4);
        if depth < best_so_far {
            inside = Some((s, x, feature, y, depth));
        }
    }
    let closest = at_ends
        .iter()
        .chain(inside.iter())
        .min_by(|a, b| a.4.total_cmp(&b.4))
        .copied()
        .unwrap_or(at_ends[0]);
    // Lying along a face: the segment clipped to the face, its two ends on it.
    let normal = match closest.2 {
        Nearest::Face(f) => poly.faces[f].normal,
        _ => {
            let n = sub(&closest.1, &closest.3);
            let len = norm(&n);
            if len > 0.0 {
                n.map(|x| x / len)
            } else {
                [0.0; 3]
            }
        }
    };
    let (face, facing) = poly
        .faces
        .iter()
        .enumerate()
        .map(|(f, face)| (f, dot(&face.normal, &normal)))
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .unwrap_or((0, 0.0));
    if facing > 0.99 && dot(&poly.faces[face].normal, &d).abs() <= 0.02 * length {
        let sides = poly.faces[face].vertices.len();
        let (mut lo, mut hi) = ((0.0, 0_u64), (1.0, 1_u64));
        for k in 0..sides {
            let m = poly.side_normal(face, k);
            let v = poly.vertices[poly.faces[face].vertices[k]];
            // m·(e0 + s d − v) ≤ 0.
            let (c0, c1) = (dot(&m, &sub(&e0, &v)), dot(&m, &d));
            if c1.abs() < 1e-300 {
                if c0 > 0.0 {
                    lo.0 = 2.0;
                }
                continue;
            }
            let s = -c0 / c1;
            if c1 > 0.0 && s < hi.0 {
                hi = (s, 10 + k as u64);
            } else if c1 < 0.0 && s > lo.0 {
                lo = (s, 10 + k as u64);
            }
        }
        if lo.0 <= hi.0 {
            let n = poly.faces[face].normal;
            let v = poly.vertices[poly.faces[face].vertices[0]];
            let corners = &poly.faces[face].vertices;
            for (s, code) in if hi.0 - lo.0 > 1e-9 {
                vec![lo, hi]
            } else {
                vec![lo]
            } {
                if code >= 10 {
                    // Cut by side k: the segment's nearest point to that side's edge, which is
                    // the cut itself when the segment lies flat, and just past it when it tilts
                    // down over the edge.
                    let k = (code - 10) as usize;
                    let (i, j) = (corners[k], corners[(k + 1) % corners.len()]);
                    let (a, b) = (poly.vertices[i], poly.vertices[j]);
                    let de = sub(&b, &a);
                    let (s, t) = closest_on_segments(&e0, &d, &a, &de);
                    let (x, y) = (along(&e0, &d, s), along(&a, &de, t));
                    let dist = norm(&sub(&x, &y));
                    let feature = if t <= 0.0 {
                        Nearest::Vertex(i)
                    } else if t >= 1.0 {
                        Nearest::Vertex(j)
                    } else {
                        Nearest::Edge(poly.edge_index(i, j))
                    };
                    push(x, feature, y, dist, code, s > 0.0 && s < 1.0);
                    continue;
                }
                let x = along(&e0, &d, s);
                let depth = dot(&n, &sub(&x, &v));
                let y = [0, 1, 2].map(|k| x[k] - depth * n[k]);
                push(x, Nearest::Face(face), y, depth, code, s > 0.0 && s < 1.0);
            }
            return;
        }
    }
    let mut pushed_inside = false;
    if let Some(c) = inside
        && c.4 <= closest.4
    {
        push(c.1, c.2, c.3, c.4, 2, true);
        pushed_inside = true;
    }
    if !pushed_inside {
        for (k, (_, x, feature, y, depth)) in at_ends.into_iter().enumerate() {
            push(x, feature, y, depth, k as u64, false);
        }
    }
}
