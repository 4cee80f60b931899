//! How 3D rigid bodies look: each by the edges and circles of its solid, drawn from its pose,
//! with its body axes at the centre so that a spin shows on a round body too.
//!
//! The primitives are world segments and circles ([`Canvas`]); each renderer projects them
//! ([`super::projection`]). Outlines need no depth order, so a body never hides what is behind
//! it. A renderer that fills solids in depth order ([`Canvas::draws_faces`]) gets their faces
//! instead ([`super::surfaces`]); a body without a solid is drawn by its axes either way.

use super::{Canvas, Element};
use crate::body::hull::hull_faces;
use crate::body::{BodyId, Shape3d};
use crate::math::vector::norm;
use crate::point::Point;
use crate::view::View;

/// Segments of a capsule's hemispheres' profile arcs.
const ARC: usize = 8;

/// The 3D body `i` by its shape (its axes alone when it has none).
pub(crate) fn draw_solid(
    view: &View<'_>,
    i: usize,
    shape: Option<&Shape3d>,
    canvas: &mut dyn Canvas,
) {
    if canvas.draws_faces()
        && let Some(shape) = shape
        && super::surfaces::draw_faces(view, i, shape, canvas)
    {
        return;
    }
    let world = |local: [f64; 3]| view.position(&Point::on_body_3d(BodyId(i), local));
    let centre = world([0.0; 3]);
    // A body direction in the world: the difference of two of its points.
    let direction = |local: [f64; 3]| {
        let (a, b) = (world(local), centre);
        [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
    };
    let size = match shape {
        Some(Shape3d::Sphere { radius }) => {
            // Three great circles, one across each body axis.
            for axis in [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]] {
                canvas.circle(centre, *radius, direction(axis), Element::Body);
            }
            *radius
        }
        Some(Shape3d::Box { size }) => {
            let h = size.map(|s| s / 2.0);
            let corner = |k: usize| {
                world([
                    if k & 1 == 0 { -h[0] } else { h[0] },
                    if k & 2 == 0 { -h[1] } else { h[1] },
                    if k & 4 == 0 { -h[2] } else { h[2] },
                ])
            };
            // The twelve edges: corners that differ in one coordinate's sign.
            for k in 0..8 {
                for bit in [1, 2, 4] {
                    if k & bit == 0 {
                        canvas.line(corner(k), corner(k | bit), Element::Body);
                    }
                }
            }
            h.iter().fold(0.0_f64, |m, x| m.max(*x))
        }
        Some(Shape3d::ConvexHull { points }) => {
            // Each edge once: the faces run along it both ways.
            for face in hull_faces(points).unwrap_or_default() {
                let c = &face.corners;
                for k in 0..c.len() {
                    let (i, j) = (c[k], c[(k + 1) % c.len()]);
                    if i < j {
                        canvas.line(world(points[i]), world(points[j]), Element::Body);
                    }
                }
            }
            points.iter().map(|p| norm(p)).fold(0.0_f64, f64::max)
        }
        Some(Shape3d::Cylinder { radius, length }) => {
            round_along_z(&world, &direction, *radius, length / 2.0, canvas);
            radius.max(length / 2.0)
        }
        Some(Shape3d::Capsule { radius, length }) => {
            let half = length / 2.0;
            round_along_z(&world, &direction, *radius, half, canvas);
            // The hemispheres' profiles in the body's x–z and y–z planes.
            for (u, v) in [(0, 2), (1, 2)] {
                for end in [1.0, -1.0] {
                    let point = |k: usize| {
                        let a = std::f64::consts::PI * k as f64 / ARC as f64;
                        let mut p = [0.0; 3];
                        p[u] = radius * a.cos();
                        p[v] = end * (half + radius * a.sin());
                        world(p)
                    };
                    for k in 0..ARC {
                        canvas.line(point(k), point(k + 1), Element::Body);
                    }
                }
            }
            radius + half
        }
        Some(Shape3d::Bowl { radius, depth }) => {
            // Its rim, two circles of latitude below it and eight meridians from the rim to
            // the lowest point; no axes, which would hang at the sphere's centre above it.
            let radius = *radius;
            let top = ((depth - radius) / radius).clamp(-1.0, 1.0).acos();
            let at = |polar: f64, longitude: f64| {
                let (sp, cp) = polar.sin_cos();
                let (sl, cl) = longitude.sin_cos();
                world([radius * sp * cl, radius * sp * sl, radius * cp])
            };
            let axis = direction([0.0, 0.0, 1.0]);
            for j in 0..3 {
                let polar = top + (std::f64::consts::PI - top) * j as f64 / 3.0;
                let c = world([0.0, 0.0, radius * polar.cos()]);
                canvas.circle(c, radius * polar.sin(), axis, Element::Body);
            }
            for m in 0..8 {
                let longitude = std::f64::consts::TAU * m as f64 / 8.0;
                let polar = |k: usize| top + (std::f64::consts::PI - top) * k as f64 / ARC as f64;
                for k in 0..ARC {
                    canvas.line(
                        at(polar(k), longitude),
                        at(polar(k + 1), longitude),
                        Element::Body,
                    );
                }
            }
            return;
        }
        None => 0.1,
    };
    // The body's axes, a third of its size: x, y and z from the centre.
    let reach = size / 3.0;
    for axis in [[reach, 0.0, 0.0], [0.0, reach, 0.0], [0.0, 0.0, reach]] {
        canvas.line(centre, world(axis), Element::Body);
    }
}

/// A round solid along the body's z axis: its end circles at `±half` and four lines between.
fn round_along_z(
    world: &dyn Fn([f64; 3]) -> [f64; 3],
    direction: &dyn Fn([f64; 3]) -> [f64; 3],
    radius: f64,
    half: f64,
    canvas: &mut dyn Canvas,
) {
    let axis = direction([0.0, 0.0, 1.0]);
    for end in [half, -half] {
        canvas.circle(world([0.0, 0.0, end]), radius, axis, Element::Body);
    }
    for (x, y) in [(1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0)] {
        canvas.line(
            world([radius * x, radius * y, half]),
            world([radius * x, radius * y, -half]),
            Element::Body,
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::draw::{Canvas, Element};
    use crate::{RigidBody3d, Shape3d, System};

    /// Segments and circles drawn, with their lengths and radii.
    #[derive(Default)]
    struct Record {
        lines: Vec<f64>,
        circles: Vec<f64>,
    }

    impl Canvas for Record {
        fn disc(&mut self, _: [f64; 3], _: f64, _: Element) {}
        fn line(&mut self, a: [f64; 3], b: [f64; 3], _: Element) {
            self.lines
                .push((0..3).map(|k| (a[k] - b[k]).powi(2)).sum::<f64>().sqrt());
        }
        fn zigzag(&mut self, _: [f64; 3], _: [f64; 3], _: Element) {}
        fn circle(&mut self, _: [f64; 3], radius: f64, _: [f64; 3], _: Element) {
            self.circles.push(radius);
        }
        fn marker(&mut self, _: [f64; 3], _: Element) {}
        fn arrow(&mut self, _: [f64; 3], _: [f64; 3], _: Element) {}
    }

    /// A turned box is drawn by its twelve edges, of its own lengths, and its three axes; a
    /// sphere by three great circles.
    #[test]
    fn solids_are_drawn_by_their_edges_and_circles() {
        let mut sys = System::new(3).unwrap_or_else(|e| panic!("{e}"));
        let turn = [0.8, 0.3, -0.4, 0.2];
        sys.add_rigid_body_3d(RigidBody3d::new([1.0, 2.0, 3.0]).orientation(turn).shape(
            Shape3d::Box {
                size: [0.3, 0.2, 0.1],
            },
            1.0,
        ))
        .unwrap_or_else(|e| panic!("{e}"));
        sys.add_rigid_body_3d(
            RigidBody3d::new([0.0; 3]).shape(Shape3d::Sphere { radius: 0.5 }, 1.0),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let mut record = Record::default();
        sys.draw(&mut record, None);
        let edges: f64 = record.lines[..12].iter().sum();
        assert!(
            (edges - 4.0 * (0.3 + 0.2 + 0.1)).abs() < 1e-12,
            "{:?}",
            record.lines
        );
        assert_eq!(record.lines.len(), 12 + 3 + 3);
        assert_eq!(record.circles, [0.5; 3]);
    }
}
