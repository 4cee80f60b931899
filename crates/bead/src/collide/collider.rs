//! A body's shape as collision geometry: its *core* (a point, a segment or a convex polygon)
//! swept by a radius, as Box2D v3 represents every shape.

use crate::body::Shape;
use crate::body::positive;

/// A shape ready to collide: its core's vertices and face normals in the body's frame, and the
/// radius that sweeps the core.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Collider {
    /// The core's vertices, counter-clockwise: one (the centre) for a disc, two for a capsule's
    /// segment, three or more for a polygon.
    pub(crate) vertices: Vec<[f64; 2]>,
    /// The outward unit normal of each face of the core (face `k` runs from vertex `k` to
    /// `k + 1`); none for a disc, the segment's two sides for a capsule.
    pub(crate) normals: Vec<[f64; 2]>,
    /// The radius that sweeps the core (0 for a box or a polygon).
    pub(crate) radius: f64,
}

/// A body's placement: position and angle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Pose {
    pub(crate) position: [f64; 2],
    pub(crate) cos: f64,
    pub(crate) sin: f64,
}

impl Pose {
    /// The pose at `position` turned by `angle`.
    pub(crate) fn new(position: [f64; 2], angle: f64) -> Pose {
        let (sin, cos) = angle.sin_cos();
        Pose { position, cos, sin }
    }

    /// A point of the body's frame in the world.
    pub(crate) fn apply(&self, p: [f64; 2]) -> [f64; 2] {
        let r = self.rotate(p);
        [self.position[0] + r[0], self.position[1] + r[1]]
    }

    /// A direction of the body's frame in the world.
    pub(crate) fn rotate(&self, d: [f64; 2]) -> [f64; 2] {
        [
            self.cos * d[0] - self.sin * d[1],
            self.sin * d[0] + self.cos * d[1],
        ]
    }
}

impl Collider {
    /// The collider of `shape`, or why it cannot collide.
    pub(crate) fn of(shape: &Shape) -> Result<Collider, String> {
        Ok(match shape {
            Shape::Disc { radius } => Collider::disc(positive("radius", *radius)?),
            Shape::Box { width, height } => {
                let (w, h) = (
                    positive("width", *width)? / 2.0,
                    positive("height", *height)? / 2.0,
                );
                Collider::polygon(vec![[-w, -h], [w, -h], [w, h], [-w, h]])
            }
            Shape::Capsule { radius, length } => {
                Collider::capsule(positive("radius", *radius)?, *length)?
            }
            Shape::Rod { length } => Collider::capsule(0.0, *length)?,
            Shape::Polygon { vertices } => Collider::polygon(vertices.clone()),
        })
    }

    /// A disc of `radius`: a particle's collider.
    pub(crate) fn disc(radius: f64) -> Collider {
        Collider {
            vertices: vec![[0.0, 0.0]],
            normals: Vec::new(),
            radius,
        }
    }

    fn polygon(vertices: Vec<[f64; 2]>) -> Collider {
        Collider {
            normals: normals(&vertices),
            vertices,
            radius: 0.0,
        }
    }

    fn capsule(radius: f64, length: f64) -> Result<Collider, String> {
        if !(length > 0.0 && length.is_finite()) {
            return Err(format!("length must be positive and finite, got {length}"));
        }
        let h = length / 2.0;
        let vertices = vec![[-h, 0.0], [h, 0.0]];
        Ok(Collider {
            normals: normals(&vertices),
            vertices,
            radius,
        })
    }

    /// Whether the core is a single point (a disc).
    pub(crate) fn is_round(&self) -> bool {
        self.vertices.len() == 1
    }

    /// The axis-aligned box around the shape at `pose`, grown by `margin`: `[min, max]`.
    pub(crate) fn bounds(&self, pose: &Pose, margin: f64) -> [[f64; 2]; 2] {
        let grow = self.radius + margin;
        let mut b = [[f64::INFINITY; 2], [f64::NEG_INFINITY; 2]];
        for v in &self.vertices {
            let w = pose.apply(*v);
            for k in 0..2 {
                b[0][k] = b[0][k].min(w[k] - grow);
                b[1][k] = b[1][k].max(w[k] + grow);
            }
        }
        b
    }

    /// The largest distance of the shape from its body's origin.
    pub(crate) fn extent(&self) -> f64 {
        self.vertices
            .iter()
            .map(|v| (v[0] * v[0] + v[1] * v[1]).sqrt())
            .fold(0.0_f64, f64::max)
            + self.radius
    }
}

/// The outward unit normals of a counter-clockwise polygon's faces (of a segment's two sides).
fn normals(v: &[[f64; 2]]) -> Vec<[f64; 2]> {
    (0..v.len())
        .map(|k| {
            let (a, b) = (v[k], v[(k + 1) % v.len()]);
            let e = [b[0] - a[0], b[1] - a[1]];
            let len = (e[0] * e[0] + e[1] * e[1]).sqrt();
            [e[1] / len, -e[0] / len]
        })
        .collect()
}
