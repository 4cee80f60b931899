//! A 3D body's shape as collision geometry: its *core* (a point, a segment or a convex
//! polytope) swept by a radius — a sphere is a point swept by its radius, a capsule a segment,
//! a box or a convex hull a polytope swept by nothing — or a bowl, the inside of a sphere.

use crate::body::Shape3d;
use crate::body::bowl_rim;
use crate::body::hull::hull_faces;
use crate::body::positive;
use crate::math::rotation::rotation_matrix;
use crate::math::vector::{Vec3, cross, dot, norm, sub};

/// A flat face of a polytope: its outward unit normal and its vertices, counter-clockwise seen
/// from outside.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Face {
    pub(crate) normal: Vec3,
    pub(crate) vertices: Vec<usize>,
}

/// A convex polytope: vertices, faces, and each edge once (`[i, j]`, `i < j`) with the two
/// faces it joins.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Polytope {
    pub(crate) vertices: Vec<Vec3>,
    pub(crate) faces: Vec<Face>,
    pub(crate) edges: Vec<[usize; 2]>,
    pub(crate) edge_faces: Vec<[usize; 2]>,
}

/// What the radius sweeps.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Core {
    /// The body's origin (a sphere, a particle).
    Point,
    /// A segment between two points of the body (a capsule).
    Segment([Vec3; 2]),
    /// A convex polytope (a box, a convex hull).
    Polytope(Polytope),
    /// The inside of a sphere of `radius` about the body's origin, below the plane `z = rim`
    /// of the body's frame (a bowl): the one concave core, touched from within.
    Bowl { radius: f64, rim: f64 },
    /// A cylinder of `radius` along the body's z axis from `−half` to `half`: its caps, side
    /// and rims are features of their own ([`super::cylinder`]), swept by nothing.
    Cylinder {
        radius: f64,
        half: f64,
        /// The caps' centres, `[0, 0, ∓half]`.
        ends: [Vec3; 2],
    },
}

/// A shape ready to collide: its core in the body's frame and the radius that sweeps it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Collider3d {
    pub(crate) core: Core,
    pub(crate) radius: f64,
}

/// A 3D body's placement: its centre and its rotation (body to world).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Pose3d {
    pub(crate) position: Vec3,
    pub(crate) rotation: [[f64; 3]; 3],
}

impl Pose3d {
    /// The pose at `position` turned by the unit quaternion `orientation` (`[w, x, y, z]`).
    pub(crate) fn new(position: Vec3, orientation: [f64; 4]) -> Pose3d {
        Pose3d {
            position,
            rotation: rotation_matrix(&orientation),
        }
    }

    /// A pose without a turn (a particle's).
    pub(crate) fn at(position: Vec3) -> Pose3d {
        Pose3d {
            position,
            rotation: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
        }
    }

    /// A point of the body's frame in the world.
    pub(crate) fn apply(&self, p: &Vec3) -> Vec3 {
        let r = self.rotate(p);
        [0, 1, 2].map(|k| self.position[k] + r[k])
    }

    /// A direction of the body's frame in the world.
    pub(crate) fn rotate(&self, d: &Vec3) -> Vec3 {
        let m = &self.rotation;
        [0, 1, 2].map(|k| m[k][0] * d[0] + m[k][1] * d[1] + m[k][2] * d[2])
    }

    /// A world direction in the body's frame.
    pub(crate) fn rotate_back(&self, d: &Vec3) -> Vec3 {
        let m = &self.rotation;
        [0, 1, 2].map(|k| m[0][k] * d[0] + m[1][k] * d[1] + m[2][k] * d[2])
    }

    /// A world point in the body's frame.
    pub(crate) fn local(&self, p: &Vec3) -> Vec3 {
        self.rotate_back(&sub(p, &self.position))
    }
}

impl Collider3d {
    /// The collider of `shape`, or why it cannot collide.
    pub(crate) fn of(shape: &Shape3d) -> Result<Collider3d, String> {
        Ok(match shape {
            Shape3d::Sphere { radius } => Collider3d::sphere(positive("radius", *radius)?),
            Shape3d::Box { size } => {
                let h = [
                    positive("size[0]", size[0])? / 2.0,
                    positive("size[1]", size[1])? / 2.0,
                    positive("size[2]", size[2])? / 2.0,
                ];
                Collider3d {
                    core: Core::Polytope(Polytope::cuboid(h)),
                    radius: 0.0,
                }
            }
            Shape3d::Capsule { radius, length } => {
                let r = positive("radius", *radius)?;
                if !(*length >= 0.0 && length.is_finite()) {
                    return Err(format!("length must be zero or more, got {length}"));
                }
                // A capsule of no length is a ball, as its mass properties say.
                let h = length / 2.0;
                Collider3d {
                    core: if h > 0.0 {
                        Core::Segment([[0.0, 0.0, -h], [0.0, 0.0, h]])
                    } else {
                        Core::Point
                    },
                    radius: r,
                }
            }
            Shape3d::ConvexHull { points } => Collider3d {
                core: Core::Polytope(Polytope::hull(points)?),
                radius: 0.0,
            },
            Shape3d::Bowl { radius, depth } => Collider3d {
                core: Core::Bowl {
                    radius: *radius,
                    rim: bowl_rim(*radius, *depth)?,
                },
                radius: 0.0,
            },
            Shape3d::Cylinder { radius, length } => {
                let half = positive("length", *length)? / 2.0;
                Collider3d {
                    core: Core::Cylinder {
                        radius: positive("radius", *radius)?,
                        half,
                        ends: [[0.0, 0.0, -half], [0.0, 0.0, half]],
                    },
                    radius: 0.0,
                }
            }
        })
    }

    /// A sphere of `radius` about the body's origin: a particle's collider.
    pub(crate) fn sphere(radius: f64) -> Collider3d {
        Collider3d {
            core: Core::Point,
            radius,
        }
    }

    /// The core's points in the body's frame (a polytope's vertices).
    pub(crate) fn points(&self) -> &[Vec3] {
        match &self.core {
            Core::Point => &[[0.0; 3]],
            Core::Segment(ends) => ends,
            Core::Polytope(p) => &p.vertices,
            // The sphere's centre: `bounds` and `extent` take its radius.
            Core::Bowl { .. } => &[[0.0; 3]],
            // The caps' centres: `bounds` grows them by the radius.
            Core::Cylinder { ends, .. } => ends,
        }
    }

    /// The axis-aligned box around the shape at `pose`, grown by `margin`: `[min, max]`. A
    /// bowl's is its sphere's, a bound however it is turned.
    pub(crate) fn bounds(&self, pose: &Pose3d, margin: f64) -> [Vec3; 2] {
        let grow = match self.core {
            Core::Bowl { radius, .. } | Core::Cylinder { radius, .. } => radius,
            _ => self.radius,
        } + margin;
        let mut b = [[f64::INFINITY; 3], [f64::NEG_INFINITY; 3]];
        for v in self.points() {
            let w = pose.apply(v);
            for k in 0..3 {
                b[0][k] = b[0][k].min(w[k] - grow);
                b[1][k] = b[1][k].max(w[k] + grow);
            }
        }
        b
    }

    /// The radius of a bowl's sphere; `None` for a solid.
    pub(crate) fn bowl_radius(&self) -> Option<f64> {
        match self.core {
            Core::Bowl { radius, .. } => Some(radius),
            _ => None,
        }
    }

    /// Half the largest distance between two points of the shape: no sphere of a smaller
    /// radius holds it (0 for a bowl, which holds rather than is held).
    pub(crate) fn half_width(&self) -> f64 {
        match self.core {
            Core::Bowl { .. } => return 0.0,
            Core::Cylinder { radius, half, .. } => return radius.hypot(half),
            _ => {}
        }
        let points = self.points();
        let widest = points
            .iter()
            .flat_map(|p| points.iter().map(move |q| norm(&sub(p, q))))
            .fold(0.0_f64, f64::max);
        widest / 2.0 + self.radius
    }

    /// The largest distance of the shape from its body's origin.
    pub(crate) fn extent(&self) -> f64 {
        match self.core {
            Core::Bowl { radius, .. } => return radius,
            Core::Cylinder { radius, half, .. } => return radius.hypot(half),
            _ => {}
        }
        self.points()
            .iter()
            .map(|v| norm(v))
            .fold(0.0_f64, f64::max)
            + self.radius
    }
}

impl Polytope {
    /// The box of half-edges `h` centred on the origin.
    pub(crate) fn cuboid(h: Vec3) -> Polytope {
        // Vertex k has the sign pattern of its bits: bit 0 → x, bit 1 → y, bit 2 → z.
        let vertices: Vec<Vec3> = (0..8)
            .map(|k| [0, 1, 2].map(|d| if k & (1 << d) != 0 { h[d] } else { -h[d] }))
            .collect();
        let face = |normal: Vec3, vertices: [usize; 4]| Face {
            normal,
            vertices: vertices.to_vec(),
        };
        let faces = vec![
            face([-1.0, 0.0, 0.0], [0, 4, 6, 2]),
            face([1.0, 0.0, 0.0], [1, 3, 7, 5]),
            face([0.0, -1.0, 0.0], [0, 1, 5, 4]),
            face([0.0, 1.0, 0.0], [2, 6, 7, 3]),
            face([0.0, 0.0, -1.0], [0, 2, 3, 1]),
            face([0.0, 0.0, 1.0], [4, 5, 7, 6]),
        ];
        Polytope::from_faces(vertices, faces)
    }

    /// The convex hull of `points` (body frame), or why they do not make one.
    pub(crate) fn hull(points: &[Vec3]) -> Result<Polytope, String> {
        let faces = hull_faces(points)?
            .into_iter()
            .map(|f| Face {
                normal: f.normal,
                vertices: f.corners,
            })
            .collect();
        Ok(Polytope::from_faces(points.to_vec(), faces))
    }

    /// The polytope of `vertices` and `faces`, its edges found from the faces.
    fn from_faces(vertices: Vec<Vec3>, faces: Vec<Face>) -> Polytope {
        let mut edges: Vec<[usize; 2]> = Vec::new();
        let mut edge_faces: Vec<[usize; 2]> = Vec::new();
        for (index, f) in faces.iter().enumerate() {
            for k in 0..f.vertices.len() {
                let (i, j) = (f.vertices[k], f.vertices[(k + 1) % f.vertices.len()]);
                let e = [i.min(j), i.max(j)];
                match edges.iter().position(|x| *x == e) {
                    Some(at) => edge_faces[at][1] = index,
                    None => {
                        edges.push(e);
                        edge_faces.push([index, index]);
                    }
                }
            }
        }
        Polytope {
            vertices,
            faces,
            edges,
            edge_faces,
        }
    }

    /// The index of edge `[i, j]` (either order).
    pub(crate) fn edge_index(&self, i: usize, j: usize) -> usize {
        let e = [i.min(j), i.max(j)];
        self.edges.iter().position(|x| *x == e).unwrap_or(0)
    }

    /// The outward normal of face `f`'s side `k` (from its vertex `k` to `k + 1`), in the
    /// body's frame: the side planes the incident face is clipped to.
    pub(crate) fn side_normal(&self, f: usize, k: usize) -> Vec3 {
        let face = &self.faces[f];
        let (a, b) = (
            self.vertices[face.vertices[k]],
            self.vertices[face.vertices[(k + 1) % face.vertices.len()]],
        );
        let along = sub(&b, &a);
        let out = cross(&along, &face.normal);
        let len = norm(&out);
        out.map(|x| x / len)
    }

    /// Whether `p` (body frame) lies on face `f`'s side of every side plane.
    pub(crate) fn within_face(&self, f: usize, p: &Vec3) -> bool {
        let face = &self.faces[f];
        (0..face.vertices.len()).all(|k| {
            let a = self.vertices[face.vertices[k]];
            dot(&self.side_normal(f, k), &sub(p, &a)) <= 0.0
        })
    }
}

/// A feature of a polytope nearest a point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Nearest {
    /// The point is over the face's interior (or inside the polytope, this face the shallowest).
    Face(usize),
    /// Closest to a point inside an edge.
    Edge(usize),
    /// Closest to a vertex.
    Vertex(usize),
}

impl Nearest {
    pub(crate) fn code(self) -> u64 {
        match self {
            Nearest::Face(f) => f as u64,
            Nearest::Edge(e) => (1 << 20) | e as u64,
            Nearest::Vertex(v) => (2 << 20) | v as u64,
        }
    }
}

/// The closest point and feature of polytope `p` to the point `x` (all in `p`'s frame), with
/// its signed distance: negative inside, where the feature is the face of least depth.
pub(crate) fn nearest(p: &Polytope, x: &Vec3) -> (Nearest, Vec3, f64) {
    let mut deepest = (0, f64::NEG_INFINITY);
    for (f, face) in p.faces.iter().enumerate() {
        let s = dot(&face.normal, &sub(x, &p.vertices[face.vertices[0]]));
        if s > deepest.1 {
            deepest = (f, s);
        }
        if s > 0.0 {
            let y: Vec3 = [0, 1, 2].map(|k| x[k] - s * face.normal[k]);
            if p.within_face(f, &y) {
                return (Nearest::Face(f), y, s);
            }
        }
    }
    if deepest.1 <= 0.0 {
        let (f, s) = deepest;
        let n = p.faces[f].normal;
        return (Nearest::Face(f), [0, 1, 2].map(|k| x[k] - s * n[k]), s);
    }
    let mut best = (Nearest::Vertex(0), p.vertices[0], f64::INFINITY);
    for (e, &[i, j]) in p.edges.iter().enumerate() {
        let (a, b) = (p.vertices[i], p.vertices[j]);
        let d = sub(&b, &a);
        let t = (dot(&sub(x, &a), &d) / dot(&d, &d)).clamp(0.0, 1.0);
        let y: Vec3 = [0, 1, 2].map(|k| a[k] + t * d[k]);
        let dist = norm(&sub(x, &y));
        if dist < best.2 {
            let feature = if t <= 0.0 {
                Nearest::Vertex(i)
            } else if t >= 1.0 {
                Nearest::Vertex(j)
            } else {
                Nearest::Edge(e)
            };
            best = (feature, y, dist);
        }
    }
    best
}
