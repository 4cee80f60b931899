//! 3D solids as flat faces, for renderers that fill them in depth order
//! ([`Canvas::draws_faces`]): a box by its six sides, round solids by facets — a sphere by bands
//! of latitude and sectors of longitude, a cylinder by the strips of its side and the wedges of
//! its ends, a capsule by a cylinder's side and two hemispheres, a convex hull by its faces, a
//! bowl by its sphere's bands below the rim, inside and out.
//!
//! Only edges a reader needs are drawn as lines: a box's or a hull's edges and a cylinder's
//! rims. The facets
//! of round solids alternate two tones in stripes, so that a spin shows where a uniform surface
//! would hide it (the wireframe shows it by the body's axes, which a filled solid covers).

use std::f64::consts::{FRAC_PI_2, PI, TAU};

use super::{Canvas, Element, Face};
use crate::body::hull::hull_faces;
use crate::body::{BodyId, Shape3d};
use crate::math::rotation::rotation_matrix;
use crate::point::Point;
use crate::view::View;

/// Sectors of longitude of a sphere, and bands of latitude from pole to pole.
const SPHERE_SECTORS: usize = 16;
const SPHERE_BANDS: usize = 8;
/// Sectors of a cylinder's or a capsule's round side.
const ROUND_SECTORS: usize = 24;
/// Bands of latitude of a capsule's hemisphere, from its pole to its rim.
const CAP_BANDS: usize = 4;
/// Bands of latitude of a bowl, from its rim to its lowest point.
const BOWL_BANDS: usize = 6;

/// A face in the body's frame: its corners, its outward normal, its drawn sides and tone.
struct Local {
    corners: Vec<[f64; 3]>,
    normal: [f64; 3],
    edges: u32,
    tone: u8,
}

/// Draws 3D body `i` as the faces of `shape`, in the pose it has in `view`. Returns false if
/// body `i` is not a 3D body (nothing is drawn).
pub(crate) fn draw_faces(
    view: &View<'_>,
    i: usize,
    shape: &Shape3d,
    canvas: &mut dyn Canvas,
) -> bool {
    let Some(q) = view.orientation(BodyId(i)) else {
        return false;
    };
    let rotation = rotation_matrix(&q);
    let centre = view.position(&Point::on_body_3d(BodyId(i), [0.0; 3]));
    let turn = |v: [f64; 3]| -> [f64; 3] {
        std::array::from_fn(|r| (0..3).map(|c| rotation[r][c] * v[c]).sum())
    };
    let mut world = Vec::new();
    for face in faces(shape) {
        world.clear();
        world.extend(face.corners.iter().map(|c| {
            let v = turn(*c);
            std::array::from_fn(|k| centre[k] + v[k])
        }));
        let face = Face {
            vertices: &world,
            normal: turn(face.normal),
            edges: face.edges,
            tone: face.tone,
        };
        canvas.face(&face, Element::Body);
    }
    true
}

/// The faces of `shape`, in the body's frame.
fn faces(shape: &Shape3d) -> Vec<Local> {
    match *shape {
        Shape3d::Sphere { radius } => sphere(radius),
        Shape3d::Box { size } => cuboid(size.map(|s| s / 2.0)),
        Shape3d::Cylinder { radius, length } => {
            let half = length / 2.0;
            let mut faces = round_side(radius, half);
            for end in [1.0, -1.0] {
                faces.extend(end_wedges(radius, end * half, end));
            }
            faces
        }
        Shape3d::Capsule { radius, length } => {
            let half = length / 2.0;
            let mut faces = round_side(radius, half);
            for end in [1.0, -1.0] {
                faces.extend(hemisphere(radius, end * half, end));
            }
            faces
        }
        Shape3d::ConvexHull { ref points } => hull(points),
        Shape3d::Bowl { radius, depth } => bowl(radius, depth),
    }
}

/// A bowl: bands of the sphere from its rim down to its lowest point, each facet twice, facing
/// in and out, so that it shows from above and below; its rim drawn.
fn bowl(radius: f64, depth: f64) -> Vec<Local> {
    let top = ((depth - radius) / radius).clamp(-1.0, 1.0).acos();
    let polar = |j: f64| top + (PI - top) * j / BOWL_BANDS as f64;
    let longitude = |k: f64| TAU * k / ROUND_SECTORS as f64;
    let at =
        |j: usize, k: usize| direction(polar(j as f64), longitude(k as f64)).map(|c| radius * c);
    let mut faces = Vec::with_capacity(2 * ROUND_SECTORS * BOWL_BANDS);
    for j in 0..BOWL_BANDS {
        for k in 0..ROUND_SECTORS {
            let mut corners = vec![at(j, k), at(j + 1, k), at(j + 1, k + 1), at(j, k + 1)];
            // At the lowest point two corners are the point itself.
            if j + 1 == BOWL_BANDS {
                corners.remove(1);
            }
            let out = direction(polar(j as f64 + 0.5), longitude(k as f64 + 0.5));
            // The rim is the side from the last corner to the first.
            let edges = if j == 0 { 1 << (corners.len() - 1) } else { 0 };
            // Reversed, the rim is still the side from the last corner to the first.
            let mut inner = corners.clone();
            inner.reverse();
            faces.push(Local {
                corners,
                normal: out,
                edges,
                tone: stripe(k),
            });
            faces.push(Local {
                corners: inner,
                normal: out.map(|c| -c),
                edges,
                tone: stripe(k),
            });
        }
    }
    faces
}

/// A convex hull: its faces, each with all its sides drawn (a hull that does not close draws
/// nothing: adding its body reports why).
fn hull(points: &[[f64; 3]]) -> Vec<Local> {
    let faces = hull_faces(points).unwrap_or_default();
    faces
        .into_iter()
        .map(|f| Local {
            corners: f.corners.iter().map(|&k| points[k]).collect(),
            normal: f.normal,
            edges: u32::MAX,
            tone: 0,
        })
        .collect()
}

/// The unit vector at polar angle `polar` from +z and longitude `longitude` about z.
fn direction(polar: f64, longitude: f64) -> [f64; 3] {
    let (sp, cp) = polar.sin_cos();
    let (sl, cl) = longitude.sin_cos();
    [sp * cl, sp * sl, cp]
}

/// A box of half-sides `h`: six sides, each with its four edges.
fn cuboid(h: [f64; 3]) -> Vec<Local> {
    let mut faces = Vec::with_capacity(6);
    for axis in 0..3 {
        // The other two axes, in the order that makes (u, v, axis) right-handed.
        let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
        for sign in [1.0, -1.0] {
            let corner = |a: f64, b: f64| {
                let mut p = [0.0; 3];
                p[axis] = sign * h[axis];
                p[u] = a * h[u];
                p[v] = sign * b * h[v];
                p
            };
            let mut normal = [0.0; 3];
            normal[axis] = sign;
            faces.push(Local {
                corners: vec![
                    corner(-1.0, -1.0),
                    corner(1.0, -1.0),
                    corner(1.0, 1.0),
                    corner(-1.0, 1.0),
                ],
                normal,
                edges: 0b1111,
                tone: 0,
            });
        }
    }
    faces
}

/// A sphere: quadrilateral facets between bands of latitude and sectors of longitude
/// (triangles at the poles), in a checker of two tones, eight sectors by two hemispheres.
fn sphere(radius: f64) -> Vec<Local> {
    let mut faces = Vec::with_capacity(SPHERE_SECTORS * SPHERE_BANDS);
    let polar = |j: usize| PI * j as f64 / SPHERE_BANDS as f64;
    let longitude = |k: usize| TAU * k as f64 / SPHERE_SECTORS as f64;
    let at = |j: usize, k: usize| direction(polar(j), longitude(k)).map(|c| radius * c);
    for j in 0..SPHERE_BANDS {
        for k in 0..SPHERE_SECTORS {
            let mut corners = vec![at(j, k), at(j + 1, k), at(j + 1, k + 1), at(j, k + 1)];
            // At a pole two corners are the pole itself.
            if j == 0 {
                corners.remove(3);
            } else if j + 1 == SPHERE_BANDS {
                corners.remove(1);
            }
            faces.push(Local {
                corners,
                normal: direction(PI * (j as f64 + 0.5) / SPHERE_BANDS as f64, {
                    TAU * (k as f64 + 0.5) / SPHERE_SECTORS as f64
                }),
                edges: 0,
                tone: ((k / 2 + 2 * j / SPHERE_BANDS) % 2) as u8,
            });
        }
    }
    faces
}

/// Which tone sector `k` of a round side has: stripes three sectors wide.
fn stripe(k: usize) -> u8 {
    ((k / 3) % 2) as u8
}

/// The point at `radius` and angle of sector boundary `k` about z, at height `z`.
fn rim(radius: f64, k: usize, z: f64) -> [f64; 3] {
    let (s, c) = (TAU * k as f64 / ROUND_SECTORS as f64).sin_cos();
    [radius * c, radius * s, z]
}

/// The round side of a cylinder along z from `-half` to `half`: one strip a sector.
fn round_side(radius: f64, half: f64) -> Vec<Local> {
    (0..ROUND_SECTORS)
        .map(|k| Local {
            corners: vec![
                rim(radius, k, -half),
                rim(radius, k + 1, -half),
                rim(radius, k + 1, half),
                rim(radius, k, half),
            ],
            normal: direction(FRAC_PI_2, TAU * (k as f64 + 0.5) / ROUND_SECTORS as f64),
            edges: 0,
            tone: stripe(k),
        })
        .collect()
}

/// A flat end of a cylinder at height `z`, facing `side` (+1 up z, −1 down): a wedge a sector
/// from the centre, whose outer side, the rim, is drawn.
fn end_wedges(radius: f64, z: f64, side: f64) -> Vec<Local> {
    (0..ROUND_SECTORS)
        .map(|k| {
            let (a, b) = (rim(radius, k, z), rim(radius, k + 1, z));
            // Counter-clockwise seen from outside.
            let (a, b) = if side > 0.0 { (a, b) } else { (b, a) };
            Local {
                corners: vec![[0.0, 0.0, z], a, b],
                normal: [0.0, 0.0, side],
                edges: 0b010,
                tone: stripe(k),
            }
        })
        .collect()
}

/// A capsule's hemisphere about `[0, 0, z]`, on the `side` of z (+1 or −1): bands from its rim to
/// its pole, striped as the side is.
fn hemisphere(radius: f64, z: f64, side: f64) -> Vec<Local> {
    let mut faces = Vec::with_capacity(ROUND_SECTORS * CAP_BANDS);
    // Polar angle from the hemisphere's own pole, along `side`.
    let polar = |j: usize| FRAC_PI_2 * j as f64 / CAP_BANDS as f64;
    let at = |j: usize, k: usize| {
        let d = direction(polar(j), TAU * k as f64 / ROUND_SECTORS as f64);
        [radius * d[0], radius * d[1], z + side * radius * d[2]]
    };
    for j in 0..CAP_BANDS {
        for k in 0..ROUND_SECTORS {
            let mut corners = vec![at(j, k), at(j + 1, k), at(j + 1, k + 1), at(j, k + 1)];
            if j == 0 {
                corners.remove(3);
            }
            let mid = direction(
                FRAC_PI_2 * (j as f64 + 0.5) / CAP_BANDS as f64,
                TAU * (k as f64 + 0.5) / ROUND_SECTORS as f64,
            );
            faces.push(Local {
                corners,
                normal: [mid[0], mid[1], side * mid[2]],
                edges: 0,
                tone: stripe(k),
            });
        }
    }
    faces
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every face is flat, lies on its solid's surface at its corners, and has an outward unit
    /// normal: the normal points away from the centre and is square to the face's sides
    /// (within the facets' flatness for round solids).
    #[test]
    fn faces_lie_on_their_solids_with_outward_normals() {
        let shapes = [
            Shape3d::Box {
                size: [0.4, 0.2, 0.1],
            },
            Shape3d::Sphere { radius: 0.3 },
            Shape3d::Cylinder {
                radius: 0.1,
                length: 0.5,
            },
            Shape3d::Capsule {
                radius: 0.1,
                length: 0.5,
            },
        ];
        let counts = [
            6,
            SPHERE_SECTORS * SPHERE_BANDS,
            3 * ROUND_SECTORS,
            ROUND_SECTORS * (1 + 2 * CAP_BANDS),
        ];
        for (shape, count) in shapes.iter().zip(counts) {
            let faces = faces(shape);
            assert_eq!(faces.len(), count, "{shape:?}");
            for face in &faces {
                let n = face.normal;
                let length = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
                assert!((length - 1.0).abs() < 1e-12, "{shape:?}");
                let mean: [f64; 3] = std::array::from_fn(|k| {
                    face.corners.iter().map(|c| c[k]).sum::<f64>() / face.corners.len() as f64
                });
                let outward = mean[0] * n[0] + mean[1] * n[1] + mean[2] * n[2];
                assert!(outward > 0.0, "{shape:?}: an inward normal");
                // The corners lie within a facet's flatness of the plane through their mean.
                for c in &face.corners {
                    let off = (0..3).map(|k| (c[k] - mean[k]) * n[k]).sum::<f64>();
                    assert!(off.abs() < 0.02, "{shape:?}: {off}");
                }
                let on_surface = |c: &[f64; 3]| match *shape {
                    Shape3d::Sphere { radius } => {
                        ((c[0] * c[0] + c[1] * c[1] + c[2] * c[2]).sqrt() - radius).abs() < 1e-12
                    }
                    Shape3d::Box { size } => {
                        (0..3).any(|k| (c[k].abs() - size[k] / 2.0).abs() < 1e-12)
                    }
                    _ => true,
                };
                assert!(face.corners.iter().all(on_surface), "{shape:?}");
            }
        }
    }

    /// A bowl's facets lie on its sphere below the rim, each twice, facing out and in, and
    /// only its rim is drawn as lines.
    #[test]
    fn a_bowl_is_its_sphere_below_the_rim_inside_and_out() {
        let (radius, depth) = (0.5, 0.3);
        let faces = faces(&Shape3d::Bowl { radius, depth });
        assert_eq!(faces.len(), 2 * ROUND_SECTORS * BOWL_BANDS);
        let rim = depth - radius;
        let mut drawn = 0;
        for pair in faces.chunks(2) {
            let (out, inner) = (&pair[0], &pair[1]);
            assert!((0..3).all(|k| (out.normal[k] + inner.normal[k]).abs() < 1e-15));
            for c in &out.corners {
                let r = (c[0] * c[0] + c[1] * c[1] + c[2] * c[2]).sqrt();
                assert!((r - radius).abs() < 1e-12 && c[2] <= rim + 1e-12, "{c:?}");
                // The facet's normal is the sphere's outward one, within a facet's spread.
                let along = (0..3).map(|k| c[k] * out.normal[k]).sum::<f64>() / r;
                assert!(along > 0.95, "{along}");
            }
            drawn += (out.edges.count_ones() + inner.edges.count_ones()) as usize;
        }
        // The rim's sectors, once from each side.
        assert_eq!(drawn, 2 * ROUND_SECTORS);
    }

    /// A box draws its edges; a sphere none, in two tones.
    #[test]
    fn only_a_reader_s_edges_are_lines() {
        let cube = faces(&Shape3d::Box { size: [1.0; 3] });
        assert!(cube.iter().all(|f| f.edges == 0b1111 && f.tone == 0));
        let ball = faces(&Shape3d::Sphere { radius: 1.0 });
        assert!(ball.iter().all(|f| f.edges == 0));
        let dark = ball.iter().filter(|f| f.tone == 1).count();
        assert_eq!(dark, ball.len() / 2);
    }

    /// A canvas that asks for faces gets a turned box's six sides where the box is, with its
    /// normals turned with it, and no edges or circles; one that does not gets the wireframe.
    #[test]
    fn a_turned_box_comes_as_its_faces_where_it_is() {
        use crate::{RigidBody3d, System};
        #[derive(Default)]
        struct Faces {
            wanted: bool,
            faces: Vec<(Vec<[f64; 3]>, [f64; 3])>,
            lines: usize,
        }
        impl Canvas for Faces {
            fn disc(&mut self, _: [f64; 3], _: f64, _: Element) {}
            fn line(&mut self, _: [f64; 3], _: [f64; 3], _: Element) {
                self.lines += 1;
            }
            fn zigzag(&mut self, _: [f64; 3], _: [f64; 3], _: Element) {}
            fn circle(&mut self, _: [f64; 3], _: f64, _: [f64; 3], _: Element) {}
            fn marker(&mut self, _: [f64; 3], _: Element) {}
            fn arrow(&mut self, _: [f64; 3], _: [f64; 3], _: Element) {}
            fn draws_faces(&self) -> bool {
                self.wanted
            }
            fn face(&mut self, face: &Face<'_>, _: Element) {
                self.faces.push((face.vertices.to_vec(), face.normal));
            }
        }
        let mut sys = System::new(3).unwrap_or_else(|e| panic!("{e}"));
        let (centre, size) = ([1.0, 2.0, 3.0], [0.3, 0.2, 0.1]);
        let turn = [0.8, 0.3, -0.4, 0.2];
        let id = sys
            .add_rigid_body_3d(
                RigidBody3d::new(centre)
                    .orientation(turn)
                    .shape(Shape3d::Box { size }, 1.0),
            )
            .unwrap_or_else(|e| panic!("{e}"));
        let mut canvas = Faces {
            wanted: true,
            ..Faces::default()
        };
        sys.draw(&mut canvas, None);
        assert_eq!((canvas.faces.len(), canvas.lines), (6, 0));
        for (corners, normal) in &canvas.faces {
            let mean: [f64; 3] =
                std::array::from_fn(|k| corners.iter().map(|c| c[k]).sum::<f64>() / 4.0);
            // The side's centre is half the box's size along its normal from the centre.
            let out: [f64; 3] = std::array::from_fn(|k| mean[k] - centre[k]);
            let reach = (0..3).map(|k| out[k] * normal[k]).sum::<f64>();
            assert!(
                size.iter().any(|s| (reach - s / 2.0).abs() < 1e-12),
                "{reach}"
            );
            // Every corner is one of the box's eight, as the body carries them.
            for c in corners {
                let is_corner = (0..8).any(|bits: usize| {
                    let local = std::array::from_fn(|k| {
                        let half = size[k] / 2.0;
                        if bits & (1 << k) == 0 { -half } else { half }
                    });
                    let x = sys
                        .point_position(&Point::on_body_3d(id, local))
                        .unwrap_or_else(|e| panic!("{e}"));
                    (0..3).all(|k| (x[k] - c[k]).abs() < 1e-12)
                });
                assert!(is_corner, "{c:?}");
            }
        }
        let mut wires = Faces::default();
        sys.draw(&mut wires, None);
        assert_eq!((wires.faces.len(), wires.lines), (0, 12 + 3));
    }
}
