//! The narrow phase against parry3d-f64's distances and normals, and against itself: every
//! point's gap, evaluated from its features at the pose, is the separation it reports.

use parry3d_f64::math::{Pose, Rotation, Vector};
use parry3d_f64::query;
use parry3d_f64::shape::{Ball, Capsule, ConvexPolyhedron, Cuboid, Cylinder, Shape};

use super::{Collider3d, ContactPoint3d, Pose3d, manifold};
use crate::body::Shape3d;
use crate::constraint::Gap3d;
use crate::math::vector::{Vec3, dot, norm, sub};

/// A deterministic scatter in [−1, 1].
struct Scatter(u64);

impl Scatter {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }

    fn quaternion(&mut self) -> [f64; 4] {
        let q = [self.next(), self.next(), self.next(), self.next()];
        let len = q.iter().map(|x| x * x).sum::<f64>().sqrt();
        q.map(|x| x / len)
    }
}

fn parry_shape(shape: &Shape3d) -> Box<dyn Shape> {
    match *shape {
        Shape3d::Sphere { radius } => Box::new(Ball::new(radius)),
        Shape3d::Box { size } => Box::new(Cuboid::new(Vector::new(
            size[0] / 2.0,
            size[1] / 2.0,
            size[2] / 2.0,
        ))),
        Shape3d::Capsule { radius, length } => Box::new(Capsule::new_z(length / 2.0, radius)),
        Shape3d::ConvexHull { ref points } => {
            let points: Vec<Vector> = points
                .iter()
                .map(|p| Vector::new(p[0], p[1], p[2]))
                .collect();
            Box::new(ConvexPolyhedron::from_convex_hull(&points).expect("a hull"))
        }
        // Along parry's y axis: `parry_pose_of` turns it onto our z.
        Shape3d::Cylinder { radius, length } => Box::new(Cylinder::new(length / 2.0, radius)),
        Shape3d::Bowl { .. } => unreachable!("parry has no bowl"),
    }
}

/// The parry pose of `shape` at `position` turned by `q`: a cylinder's turned a further quarter
/// about x first, which takes parry's y axis onto ours, z.
fn parry_pose_of(shape: &Shape3d, position: Vec3, q: [f64; 4]) -> Pose {
    let Shape3d::Cylinder { .. } = shape else {
        return parry_pose(position, q);
    };
    let h = std::f64::consts::FRAC_1_SQRT_2;
    let [w, x, y, z] = q;
    // q ⊗ (cos 45°, sin 45° x̂).
    let turned = [h * (w - x), h * (x + w), h * (y + z), h * (z - y)];
    parry_pose(position, turned)
}

fn parry_pose(position: Vec3, q: [f64; 4]) -> Pose {
    Pose::from_parts(
        Vector::new(position[0], position[1], position[2]),
        Rotation::from_xyzw(q[1], q[2], q[3], q[0]),
    )
}

/// The world gap of a contact point, evaluated from its features at the two poses.
fn gap_at(p: &ContactPoint3d, poses: [&Pose3d; 2]) -> (f64, Vec3) {
    let (pa, pb) = if p.first_is_a {
        (poses[0], poses[1])
    } else {
        (poses[1], poses[0])
    };
    let r = p.radii[0] + p.radii[1];
    match p.gap {
        Gap3d::Face { a, b, normal } => {
            let n = pb.rotate(&normal);
            (dot(&n, &sub(&pa.apply(&a), &pb.apply(&b))) - r, n)
        }
        Gap3d::Edges { a, b } => {
            let (a0, a1) = (pa.apply(&a[0]), pa.apply(&a[1]));
            let (b0, b1) = (pb.apply(&b[0]), pb.apply(&b[1]));
            let c = crate::math::vector::cross(&sub(&a1, &a0), &sub(&b1, &b0));
            let n = c.map(|v| v / norm(&c));
            (dot(&n, &sub(&a0, &b0)) - r, n)
        }
        Gap3d::Line { a, b, direction } => {
            let (x, y) = (pa.apply(&a), pb.apply(&b));
            let u = pb.rotate(&direction);
            let d = sub(&x, &y);
            let s = dot(&d, &u);
            let q: Vec3 = [0, 1, 2].map(|k| d[k] - s * u[k]);
            let len = norm(&q);
            (len - r, q.map(|v| v / len))
        }
        Gap3d::Round { a, b } => {
            let d = sub(&pa.apply(&a), &pb.apply(&b));
            let len = norm(&d);
            (len - r, d.map(|x| x / len))
        }
        Gap3d::Rim { a, b, axis, radius } => {
            let (x, c, u) = (pa.apply(&a), pb.apply(&b), pb.rotate(&axis));
            let p = sub(&x, &c);
            let along = dot(&p, &u);
            let off: Vec3 = [0, 1, 2].map(|k| p[k] - along * u[k]);
            let on: Vec3 = [0, 1, 2].map(|k| c[k] + radius * off[k] / norm(&off));
            let d = sub(&x, &on);
            let len = norm(&d);
            (len - r, d.map(|v| v / len))
        }
        Gap3d::Circle {
            a,
            axis,
            radius,
            b,
            normal,
        } => {
            let (c, u) = (pa.apply(&a), pa.rotate(&axis));
            let n = pb.rotate(&normal);
            let tilt = dot(&n, &u);
            let across: Vec3 = [0, 1, 2].map(|k| n[k] - tilt * u[k]);
            let s = norm(&across);
            let lowest: Vec3 = [0, 1, 2].map(|k| c[k] - radius * across[k] / s);
            (dot(&n, &sub(&lowest, &pb.apply(&b))) - r, n)
        }
        Gap3d::Within { a, b, radius } => {
            let d = sub(&pb.apply(&b), &pa.apply(&a));
            let len = norm(&d);
            (radius - len - r, d.map(|x| x / len))
        }
    }
}

/// The points of a hull moved so that their centroid is the origin.
fn centred(points: &[Vec3]) -> Vec<Vec3> {
    let faces = crate::body::hull::hull_faces(points).unwrap_or_else(|e| panic!("{e}"));
    let (_, c, _) = crate::body::hull::moments(points, &faces);
    points.iter().map(|p| sub(p, &c)).collect()
}

/// The shapes the narrow phase is checked on: round and flat, boxes and hulls (a wedge and
/// an irregular gem of nine corners).
fn shapes() -> Vec<Shape3d> {
    let wedge: Vec<Vec3> = [-0.2, 0.2]
        .iter()
        .flat_map(|&y| [[0.0, y, 0.0], [0.6, y, 0.0], [0.0, y, 0.3]])
        .collect();
    let gem = [
        [0.45, 0.0, 0.0],
        [-0.25, 0.02, 0.0],
        [0.0, 0.3, 0.05],
        [0.03, -0.22, 0.0],
        [0.0, 0.0, 0.3],
        [0.05, 0.0, -0.28],
        [0.2, 0.15, 0.18],
        [-0.12, -0.1, -0.17],
        [0.15, -0.14, 0.16],
    ];
    vec![
        Shape3d::Sphere { radius: 0.3 },
        Shape3d::Box {
            size: [0.8, 0.5, 0.3],
        },
        Shape3d::Capsule {
            radius: 0.15,
            length: 0.6,
        },
        Shape3d::Box {
            size: [0.4, 0.4, 0.4],
        },
        Shape3d::ConvexHull {
            points: centred(&wedge),
        },
        Shape3d::ConvexHull {
            points: centred(&gem),
        },
        Shape3d::Cylinder {
            radius: 0.2,
            length: 0.5,
        },
        Shape3d::Cylinder {
            radius: 0.3,
            length: 0.1,
        },
    ]
}

#[test]
fn the_deepest_point_is_parrys_distance_and_every_gap_is_its_separation() {
    let mut rng = Scatter(7);
    let mut compared = 0;
    let shapes = shapes();
    let n = shapes.len();
    for _ in 0..30000 {
        let (i, j) = (
            ((rng.next() + 1.0) * n as f64 / 2.0) as usize % n,
            ((rng.next() + 1.0) * n as f64 / 2.0) as usize % n,
        );
        let (s1, s2) = (&shapes[i], &shapes[j]);
        let (q1, q2) = (rng.quaternion(), rng.quaternion());
        let x1 = [rng.next(), rng.next(), rng.next()].map(|x| 0.2 * x);
        let x2 = [rng.next(), rng.next(), rng.next()].map(|x| 0.6 * x);
        let (p1, p2) = (Pose3d::new(x1, q1), Pose3d::new(x2, q2));
        let (c1, c2) = (
            Collider3d::of(s1).unwrap_or_else(|e| panic!("{e}")),
            Collider3d::of(s2).unwrap_or_else(|e| panic!("{e}")),
        );
        let margin = 0.05;
        let mut points = Vec::new();
        manifold((&c1, &p1), (&c2, &p2), (margin, None), &mut points);
        let (g1, g2) = (parry_shape(s1), parry_shape(s2));
        let contact = query::contact(
            &parry_pose_of(s1, x1, q1),
            g1.as_ref(),
            &parry_pose_of(s2, x2, q2),
            g2.as_ref(),
            margin,
        )
        .unwrap_or_else(|e| panic!("{e:?}"));
        let case = format!("{s1:?} at {x1:?} {q1:?} with {s2:?} at {x2:?} {q2:?}");
        // Four where a face rests on the other; up to eight (a box's corners) coming in.
        assert!(points.len() <= 8, "{case}: {} points", points.len());
        for p in &points {
            let (g, _) = gap_at(p, [&p1, &p2]);
            assert!(
                (g - p.separation).abs() < 1e-12,
                "{case}: gap {g} vs separation {}",
                p.separation
            );
            assert!(p.separation <= margin + 1e-12, "{case}: {p:?}");
        }
        let Some(contact) = contact else {
            assert!(
                points.is_empty(),
                "{case}: parry sees nothing, we see {points:?}"
            );
            continue;
        };
        let deepest = points
            .iter()
            .map(|p| p.separation)
            .fold(f64::INFINITY, f64::min);
        assert!(
            !points.is_empty(),
            "{case}: parry's {} missed",
            contact.dist
        );
        let cylinder = [s1, s2]
            .iter()
            .any(|s| matches!(s, Shape3d::Cylinder { .. }));
        if cylinder && (-0.02..-1e-3).contains(&contact.dist) {
            // Cut into a rim by millimetres, a rim's two nearest points to an edge or another
            // rim can both lie inside the other body, and the one kept need not be the pair's
            // least depth: of the 451 pairs with a cylinder between 1 and 20 mm deep, 3 keep a
            // point up to 7 mm deeper and 1 one 3.6 mm shallower. Bodies meet within the margin
            // before they touch; only bodies placed overlapping see it.
            assert!(
                deepest < 0.0 && deepest > contact.dist - 0.01,
                "{case}: deepest {deepest} vs parry {}",
                contact.dist
            );
            continue;
        }
        if contact.dist < -0.02 {
            // Deeper than a step leaves: the point need only see that they overlap.
            assert!(
                deepest < 0.0,
                "{case}: deepest {deepest} vs parry {}",
                contact.dist
            );
            continue;
        }
        // Parry's GJK and EPA stop at about 1e-5 m; where a round core takes part, the exact
        // distance is the minimum of a convex function along its segment.
        let (exact, tolerance) = match exact_distance((s1, &p1), (s2, &p2)) {
            Some(d) => (d, 1e-9),
            None => (contact.dist, 1e-5),
        };
        assert!(
            (exact - contact.dist).abs() < 1e-5,
            "{case}: exact {exact} vs parry {}",
            contact.dist
        );
        // Never shallower than the overlap. Deeper by at most the preference for a face's
        // axis over two edges' (a thousandth of the smaller body's reach): overlapping, a
        // face's clipped points then carry the overlap along its normal, deeper than along
        // the edges' axis (1.3e-4 and 1.5e-4 m at 1.1 and 1.7 cm deep, two hull pairs of
        // 18,000; no box pair).
        let preference = 1e-3 * c1.extent().min(c2.extent());
        assert!(
            deepest < exact + tolerance && deepest > exact - tolerance - preference,
            "{case}: deepest {deepest} vs exact {exact}"
        );
        compared += 1;
    }
    assert!(compared > 1000, "only {compared} cases touched");
}

/// The signed distance of a point from a shape's core (in the shape's frame): a box's signed
/// distance function, or the distance from a sphere's centre or a capsule's segment.
fn core_distance(shape: &Shape3d, x: &Vec3) -> f64 {
    match *shape {
        Shape3d::Box { size } => {
            let out: Vec3 = [0, 1, 2].map(|k| x[k].abs() - size[k] / 2.0);
            let outside = norm(&out.map(|o| o.max(0.0)));
            outside + out[0].max(out[1]).max(out[2]).min(0.0)
        }
        Shape3d::Sphere { .. } => norm(x),
        Shape3d::Capsule { length, .. } => {
            let z = x[2].clamp(-length / 2.0, length / 2.0);
            norm(&[x[0], x[1], x[2] - z])
        }
        Shape3d::Cylinder { radius, length } => {
            let out = [x[0].hypot(x[1]) - radius, x[2].abs() - length / 2.0];
            norm(&[out[0].max(0.0), out[1].max(0.0), 0.0]) + out[0].max(out[1]).min(0.0)
        }
        Shape3d::ConvexHull { .. } | Shape3d::Bowl { .. } => {
            unreachable!("not asked of hulls or bowls")
        }
    }
}

/// The two shapes' signed distance where one is round (a sphere or a capsule): the least
/// signed distance from the other's core along its segment, a convex function, found by
/// ternary search; `None` for two boxes, and where a hull takes part (parry is the oracle).
fn exact_distance((s1, p1): (&Shape3d, &Pose3d), (s2, p2): (&Shape3d, &Pose3d)) -> Option<f64> {
    let (round, pr, other, po) = match (s1, s2) {
        (Shape3d::ConvexHull { .. }, _) | (_, Shape3d::ConvexHull { .. }) => return None,
        (Shape3d::Box { .. }, Shape3d::Box { .. }) => return None,
        (Shape3d::Box { .. }, _) => (s2, p2, s1, p1),
        _ => (s1, p1, s2, p2),
    };
    let (radius, half) = match *round {
        Shape3d::Sphere { radius } => (radius, 0.0),
        Shape3d::Capsule { radius, length } => (radius, length / 2.0),
        _ => return None,
    };
    let other_radius = match *other {
        Shape3d::Sphere { radius } | Shape3d::Capsule { radius, .. } => radius,
        _ => 0.0,
    };
    let at = |s: f64| {
        let x = po.local(&pr.apply(&[0.0, 0.0, s]));
        core_distance(other, &x)
    };
    let (mut lo, mut hi) = (-half, half);
    for _ in 0..200 {
        let (m1, m2) = (lo + (hi - lo) / 3.0, hi - (hi - lo) / 3.0);
        if at(m1) < at(m2) {
            hi = m2;
        } else {
            lo = m1;
        }
    }
    Some(at(lo) - radius - other_radius)
}

/// The points of two shapes at their poses, within 1 cm.
fn points_of(
    (s1, x1, q1): (&Shape3d, Vec3, [f64; 4]),
    (s2, x2, q2): (&Shape3d, Vec3, [f64; 4]),
) -> Vec<ContactPoint3d> {
    let (c1, c2) = (
        Collider3d::of(s1).unwrap_or_else(|e| panic!("{e}")),
        Collider3d::of(s2).unwrap_or_else(|e| panic!("{e}")),
    );
    let mut points = Vec::new();
    manifold(
        (&c1, &Pose3d::new(x1, q1)),
        (&c2, &Pose3d::new(x2, q2)),
        (0.01, None),
        &mut points,
    );
    points
}

const LEVEL: [f64; 4] = [1.0, 0.0, 0.0, 0.0];

#[test]
fn resting_shapes_touch_at_the_features_statics_expects() {
    let floor = Shape3d::Box {
        size: [2.0, 2.0, 1.0],
    };
    let on_floor = |shape: &Shape3d, z: f64, q: [f64; 4]| {
        points_of((&floor, [0.0, 0.0, -0.5], LEVEL), (shape, [0.0, 0.0, z], q))
    };
    // Two equal cubes stacked square: each corner once, against the face below.
    let cube = Shape3d::Box { size: [0.2; 3] };
    let stacked = points_of((&cube, [0.0; 3], LEVEL), (&cube, [0.0, 0.0, 0.2], LEVEL));
    assert_eq!(stacked.len(), 4, "{stacked:?}");
    for p in &stacked {
        assert!(
            matches!(p.gap, Gap3d::Face { .. }) && p.separation.abs() < 1e-15,
            "{p:?}"
        );
    }
    // A cube on the floor: its four bottom corners.
    let points = on_floor(&cube, 0.1, LEVEL);
    assert_eq!(points.len(), 4);
    // A capsule lying along x on the floor: its two ends over the face.
    let log = Shape3d::Capsule {
        radius: 0.05,
        length: 0.4,
    };
    let lying = [0.5_f64.sqrt(), 0.0, 0.5_f64.sqrt(), 0.0];
    let points = on_floor(&log, 0.05, lying);
    assert_eq!(points.len(), 2, "{points:?}");
    for p in &points {
        assert!(
            matches!(p.gap, Gap3d::Face { .. }) && p.separation.abs() < 1e-15,
            "{p:?}"
        );
    }
    // Standing on its end: one point, its lower hemisphere's centre over the face.
    let points = on_floor(&log, 0.25, LEVEL);
    assert_eq!(points.len(), 1, "{points:?}");
    // A sphere on a cube's edge: the point against the edge's line, 1 mm off.
    let ball = Shape3d::Sphere { radius: 0.1 };
    let d = (0.1 + 0.001) / 2.0_f64.sqrt();
    let points = points_of(
        (&cube, [0.0; 3], LEVEL),
        (&ball, [0.1 + d, 0.0, 0.1 + d], LEVEL),
    );
    assert_eq!(points.len(), 1);
    assert!(matches!(points[0].gap, Gap3d::Line { .. }), "{points:?}");
    assert!((points[0].separation - 0.001).abs() < 1e-15);
    // A cube turned 45° about x, resting on its edge across the top of another turned 45°
    // about y: two edges crossing, 1 mm apart.
    let half = 0.1 * 2.0_f64.sqrt();
    let (c, s) = (
        (std::f64::consts::PI / 8.0).cos(),
        (std::f64::consts::PI / 8.0).sin(),
    );
    let points = points_of(
        (&cube, [0.0; 3], [c, 0.0, s, 0.0]),
        (&cube, [0.0, 0.0, 2.0 * half + 0.001], [c, s, 0.0, 0.0]),
    );
    assert_eq!(points.len(), 1, "{points:?}");
    assert!(matches!(points[0].gap, Gap3d::Edges { .. }), "{points:?}");
    assert!((points[0].separation - 0.001).abs() < 1e-12);
}

/// A sharp corner resting on another polytope's edge, at zero distance or a hair off, has a
/// gap with a normal: the plane through the edge, not the distance to its line, whose square
/// root of rounding was not a number (a frictionless 3D arch's corner came to rest on its
/// neighbour's edge at 1e-12 m and its step failed).
#[test]
fn a_corner_on_an_edge_has_a_finite_gap_and_normal() {
    let cube = Shape3d::Box { size: [0.2; 3] };
    // The upper cube turned 45° about x and about y, so that a corner points down, over the
    // lower cube's top edge along y at x = 0.1.
    let (c, s) = (
        (std::f64::consts::PI / 8.0).cos(),
        (std::f64::consts::PI / 8.0).sin(),
    );
    let q = [c * c, s * c, c * s, -s * s];
    let (c1, c2) = (
        Collider3d::of(&cube).unwrap_or_else(|e| panic!("{e}")),
        Collider3d::of(&cube).unwrap_or_else(|e| panic!("{e}")),
    );
    let turned = Pose3d::new([0.0; 3], q);
    let lowest = c2
        .points()
        .iter()
        .map(|v| turned.apply(v))
        .min_by(|a, b| a[2].total_cmp(&b[2]))
        .unwrap_or([0.0; 3]);
    for off in [0.0, 1e-13, 1e-6] {
        // The lowest corner at (0.1, 0, 0.1 + off): on the edge, or just above it.
        let at = [0.1 - lowest[0], -lowest[1], 0.1 + off - lowest[2]];
        let (p1, p2) = (Pose3d::new([0.0; 3], LEVEL), Pose3d::new(at, q));
        let mut points = Vec::new();
        manifold((&c1, &p1), (&c2, &p2), (0.01, None), &mut points);
        assert!(!points.is_empty(), "off {off}: nothing found");
        for p in &points {
            assert!(matches!(p.gap, Gap3d::Face { .. }), "{p:?}");
            let (g, n) = gap_at(p, [&p1, &p2]);
            assert!(g.is_finite() && n.iter().all(|x| x.is_finite()), "{p:?}");
            assert!((g - p.separation).abs() < 1e-12, "{g} vs {}", p.separation);
        }
        let deepest = points
            .iter()
            .map(|p| p.separation)
            .fold(f64::INFINITY, f64::min);
        assert!(
            (deepest - off).abs() < 1e-12,
            "off {off}: deepest {deepest}"
        );
    }
}

/// Every shape inside a turned hollow sphere (a bowl of depth twice its radius) touches it at
/// its farthest point from the centre: the deepest gap is the radius less the shape's reach,
/// the largest of parry's support points over 20,000 directions, and every point's gap
/// evaluated from its features is its separation.
#[test]
fn shapes_in_a_bowl_touch_it_at_their_farthest_points() {
    let radius = 1.0;
    let bowl = Collider3d::of(&Shape3d::Bowl {
        radius,
        depth: 2.0 * radius,
    })
    .unwrap_or_else(|e| panic!("{e}"));
    // Directions spread evenly over the sphere (a Fibonacci lattice).
    let count = 20_000;
    let golden = std::f64::consts::PI * (3.0 - 5.0_f64.sqrt());
    let directions: Vec<Vector> = (0..count)
        .map(|k| {
            let z = 1.0 - 2.0 * (k as f64 + 0.5) / count as f64;
            let (s, c) = (golden * k as f64).sin_cos();
            let w = (1.0 - z * z).sqrt();
            Vector::new(w * c, w * s, z)
        })
        .collect();
    let mut rng = Scatter(11);
    let (mut touched, mut apart) = (0, 0);
    // A bowl does not hold cylinders (contact groups refuse them).
    for shape in shapes()
        .into_iter()
        .filter(|s| !matches!(s, Shape3d::Cylinder { .. }))
    {
        let c = Collider3d::of(&shape).unwrap_or_else(|e| panic!("{e}"));
        let parry = parry_shape(&shape);
        let support = parry
            .as_support_map()
            .unwrap_or_else(|| panic!("{shape:?}"));
        for _ in 0..80 {
            let bowl_pose = Pose3d::new([rng.next(), rng.next(), rng.next()], rng.quaternion());
            // Near the wall, the shape's core inside the sphere.
            let d = [rng.next(), rng.next(), rng.next()];
            let along = (radius - c.extent() + 0.03 * (rng.next() - 1.0)) / norm(&d);
            let x: Vec3 = [0, 1, 2].map(|k| bowl_pose.position[k] + along * d[k]);
            let q = rng.quaternion();
            let pose = Pose3d::new(x, q);
            let margin = 0.05;
            let mut points = Vec::new();
            manifold(
                (&c, &pose),
                (&bowl, &bowl_pose),
                (margin, None),
                &mut points,
            );
            let at = parry_pose(x, q);
            let centre = bowl_pose.position;
            let reach = directions
                .iter()
                .map(|&u| {
                    let p = support.support_point(&at, u);
                    (p.x - centre[0]) * u.x + (p.y - centre[1]) * u.y + (p.z - centre[2]) * u.z
                })
                .fold(f64::NEG_INFINITY, f64::max);
            let case = format!("{shape:?} at {x:?} {q:?} in a bowl at {bowl_pose:?}");
            for p in &points {
                let (g, _) = gap_at(p, [&pose, &bowl_pose]);
                assert!((g - p.separation).abs() < 1e-12, "{case}: {g} vs {p:?}");
                assert!(p.separation <= margin + 1e-12, "{case}: {p:?}");
            }
            let deepest = points
                .iter()
                .map(|p| p.separation)
                .fold(f64::INFINITY, f64::min);
            // The lattice's spacing, 0.025 rad, leaves the reach short by up to about
            // reach · spacing² / 2 (3e-4 m); a corner's is nearer.
            let exact = radius - reach;
            if exact > margin + 1e-3 {
                assert!(points.is_empty(), "{case}: {points:?}");
                apart += 1;
            } else if exact < margin - 1e-3 {
                assert!(
                    deepest <= exact + 1e-12 && deepest > exact - 1e-3,
                    "{case}: deepest {deepest} vs {exact}"
                );
                touched += 1;
            }
        }
    }
    assert!(
        touched > 100 && apart > 20,
        "{touched} touched, {apart} apart"
    );
}

/// A ball touches a bowl's wall from inside below its rim, and the rim, a circle, from above
/// or from outside; under the bowl it touches nothing: a hemisphere of radius 1 about the
/// origin, its rim in the plane z = 0.
#[test]
fn a_bowl_is_touched_below_its_rim_and_from_inside() {
    let bowl = Collider3d::of(&Shape3d::Bowl {
        radius: 1.0,
        depth: 1.0,
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let ball = Collider3d::sphere(0.1);
    let at_origin = Pose3d::at([0.0; 3]);
    let touching = |x: Vec3| {
        let mut points = Vec::new();
        manifold(
            (&bowl, &at_origin),
            (&ball, &Pose3d::at(x)),
            (0.01, None),
            &mut points,
        );
        points
    };
    // Resting at the bottom: one point, the bowl second.
    let bottom = touching([0.0, 0.0, -0.9]);
    assert_eq!(bottom.len(), 1);
    assert!(!bottom[0].first_is_a && bottom[0].separation.abs() < 1e-12);
    // Against the wall just below the rim; just above it, against the rim, a circle of
    // radius 1 at z = 0, 0.10055 m from the ball's centre.
    let wall = |z: f64| [(0.81_f64 - z * z).sqrt(), 0.0, z];
    let below = touching(wall(-0.01));
    assert!(below.len() == 1 && matches!(below[0].gap, Gap3d::Within { .. }));
    let above = touching(wall(0.01));
    assert!(above.len() == 1 && matches!(above[0].gap, Gap3d::Rim { .. }));
    let (g, _) = gap_at(&above[0], [&at_origin, &Pose3d::at(wall(0.01))]);
    assert!(
        (g - above[0].separation).abs() < 1e-15 && (g - 5.54e-4).abs() < 1e-6,
        "{g}"
    );
    // Dropped straight onto the rim from above, and resting on its lip from outside.
    let on_rim = touching([1.0, 0.0, 0.105]);
    assert!(on_rim.len() == 1 && (on_rim[0].separation - 0.005).abs() < 1e-12);
    let outside = touching([1.0 + 0.06, 0.0, -0.08]);
    assert!(outside.len() == 1 && (outside[0].separation).abs() < 1e-12);
    // Outside the sphere, under the bowl: nothing; pressed past the surface from inside, a
    // negative gap.
    assert!(touching([0.0, 0.0, -1.05]).is_empty());
    let pressed = touching([0.0, 0.0, -0.95]);
    assert!(pressed.len() == 1 && (pressed[0].separation + 0.05).abs() < 1e-12);
    // Bad measures are refused.
    for (radius, depth) in [(0.0, 0.5), (1.0, 0.0), (1.0, 2.5), (f64::NAN, 1.0)] {
        assert!(Collider3d::of(&Shape3d::Bowl { radius, depth }).is_err());
    }
}

/// A cylinder rests on what statics expects: standing, on four points of its rim; lying, on
/// each rim's lowest point; tipped, on one; and it carries a cube on its cap by the cube's
/// corners, a coin by the rims (set off its axis or on it), another can beside it by the
/// sides' overlap, a ball on its side by the axis's distance.
#[test]
fn cylinders_rest_on_the_features_statics_expects() {
    use std::f64::consts::PI;
    let floor = Shape3d::Box {
        size: [2.0, 2.0, 1.0],
    };
    let can = Shape3d::Cylinder {
        radius: 0.05,
        length: 0.12,
    };
    let on_floor = |shape: &Shape3d, z: f64, q: [f64; 4]| {
        points_of((&floor, [0.0, 0.0, -0.5], LEVEL), (shape, [0.0, 0.0, z], q))
    };
    let resting = |points: &[ContactPoint3d], count: usize, circle: bool| {
        assert_eq!(points.len(), count, "{points:?}");
        for p in points {
            assert!(p.separation.abs() < 1e-15, "{p:?}");
            assert_eq!(matches!(p.gap, Gap3d::Circle { .. }), circle, "{p:?}");
        }
    };
    // Standing: four points of its bottom rim, each against the floor's face.
    resting(&on_floor(&can, 0.06, LEVEL), 4, false);
    // Lying along y: each rim's lowest point, which rolls round it.
    let lying = [0.5_f64.sqrt(), 0.5_f64.sqrt(), 0.0, 0.0];
    resting(&on_floor(&can, 0.05, lying), 2, true);
    // Tipped 30° onto its rim: that rim's lowest point alone (the rest lie 2.5 cm up or more).
    let (c, s) = ((PI / 12.0).cos(), (PI / 12.0).sin());
    let z = 0.06 * (PI / 6.0).cos() + 0.05 * (PI / 6.0).sin();
    resting(&on_floor(&can, z, [c, s, 0.0, 0.0]), 1, true);
    // A cube of 6 cm on the cap, 12 cm across: its four bottom corners on the cap.
    let cube = Shape3d::Box { size: [0.06; 3] };
    let on_cap = points_of((&can, [0.0; 3], LEVEL), (&cube, [0.0, 0.0, 0.09], LEVEL));
    resting(&on_cap, 4, false);
    // Two equal coins stacked, one turned about the axis: four points where the rims lie on
    // the caps.
    let coin = Shape3d::Cylinder {
        radius: 0.1,
        length: 0.02,
    };
    let turned = [(0.3_f64).cos(), 0.0, 0.0, (0.3_f64).sin()];
    let stack = points_of((&coin, [0.0; 3], LEVEL), (&coin, [0.0, 0.0, 0.02], turned));
    resting(&stack, 4, false);
    // Two equal coins stacked on one axis: four points of a rim on the cap, none against the
    // side (each rim lies on the other's to rounding).
    let coaxial = points_of((&coin, [0.0; 3], LEVEL), (&coin, [0.0, 0.0, 0.02], LEVEL));
    resting(&coaxial, 4, false);
    // Two equal cans standing side by side, touching: the sides' overlap, its two ends.
    let pair = points_of((&can, [0.0; 3], LEVEL), (&can, [0.1, 0.0, 0.0], LEVEL));
    assert_eq!(pair.len(), 2, "{pair:?}");
    for p in &pair {
        assert!(
            matches!(p.gap, Gap3d::Line { .. }) && p.separation.abs() < 1e-15,
            "{p:?}"
        );
    }
    // A ball 1 mm off the can's side: its distance from the axis.
    let ball = Shape3d::Sphere { radius: 0.03 };
    let side = points_of((&can, [0.0; 3], LEVEL), (&ball, [0.081, 0.0, 0.01], LEVEL));
    assert_eq!(side.len(), 1, "{side:?}");
    assert!(matches!(side[0].gap, Gap3d::Line { .. }), "{side:?}");
    assert!((side[0].separation - 0.001).abs() < 1e-15);
}

/// Two equal coins on one axis, the upper cut into the lower by rounding and tilted by it: every
/// rim point lies as near the other's side as its cap, and it rests on the cap. (Under BDF2 a
/// stack of five once drifted by 2e-12 m into this and lost a pair's every point.)
#[test]
fn equal_coins_on_one_axis_cut_by_rounding_rest_on_four_rim_points() {
    let coin = Shape3d::Cylinder {
        radius: 0.1,
        length: 0.02,
    };
    let tilts = [
        [1.0, 0.0, 0.0, 0.0],
        [1.0, 6e-16, -5e-16, 0.0],
        [1.0, 0.0, 1e-13, 0.0],
    ];
    for cut in [0.0, 2.4e-12, 1e-9, 5e-8] {
        for q in tilts {
            let n = norm(&[q[1], q[2], q[3]]).hypot(q[0]);
            let q = q.map(|x| x / n);
            let points = points_of(
                (&coin, [1e-18, -1e-18, 0.01], LEVEL),
                (&coin, [1e-20, 4e-21, 0.03 - cut], q),
            );
            assert_eq!(points.len(), 4, "cut {cut}, tilt {q:?}: {points:?}");
            for p in &points {
                assert!(matches!(p.gap, Gap3d::Face { .. }), "{p:?}");
                assert!((p.separation + cut).abs() < 1e-11, "cut {cut}: {p:?}");
            }
        }
    }
}
