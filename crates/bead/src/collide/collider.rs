//! A body's shape as collision geometry: parry's shape for the manifolds, and the shape's core
//! (its vertices and face normals, swept by a radius) to classify the features that touch.

use parry2d_f64::math::{Pose, Vector};
use parry2d_f64::shape::SharedShape;

use crate::body::Shape;

/// A shape ready to collide.
#[derive(Clone)]
pub(crate) struct Collider {
    /// parry's shape, in the body's frame.
    pub(crate) shape: SharedShape,
    /// The core's vertices in the body's frame, counter-clockwise (one, the centre, for a disc;
    /// two for a capsule's segment).
    pub(crate) vertices: Vec<[f64; 2]>,
    /// The outward unit normal of each face of the core (face `k` runs from vertex `k` to
    /// `k + 1`); none for a disc.
    pub(crate) normals: Vec<[f64; 2]>,
    /// The radius that sweeps the core (0 for a box or a polygon).
    pub(crate) radius: f64,
}

impl std::fmt::Debug for Collider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Collider")
            .field("vertices", &self.vertices)
            .field("radius", &self.radius)
            .finish()
    }
}

impl Collider {
    /// The collider of `shape`, or why it cannot collide.
    pub(crate) fn of(shape: &Shape) -> Result<Collider, String> {
        let positive = |name: &str, v: f64| {
            if v > 0.0 && v.is_finite() {
                Ok(v)
            } else {
                Err(format!("{name} must be positive and finite, got {v}"))
            }
        };
        Ok(match shape {
            Shape::Disc { radius } => Collider::disc(positive("radius", *radius)?),
            Shape::Box { width, height } => {
                let (w, h) = (
                    positive("width", *width)? / 2.0,
                    positive("height", *height)? / 2.0,
                );
                let vertices = vec![[-w, -h], [w, -h], [w, h], [-w, h]];
                Collider {
                    shape: SharedShape::cuboid(w, h),
                    normals: normals(&vertices),
                    vertices,
                    radius: 0.0,
                }
            }
            Shape::Capsule { radius, length } => {
                Collider::capsule(positive("radius", *radius)?, *length)?
            }
            Shape::Rod { length } => Collider::capsule(0.0, *length)?,
            Shape::Polygon { vertices } => {
                let points = vertices.iter().map(|v| Vector::new(v[0], v[1])).collect();
                let shape = SharedShape::convex_polyline_unmodified(points)
                    .ok_or("the polygon is not convex or is degenerate")?;
                Collider {
                    shape,
                    normals: normals(vertices),
                    vertices: vertices.clone(),
                    radius: 0.0,
                }
            }
        })
    }

    /// A disc of `radius`: a particle's collider.
    pub(crate) fn disc(radius: f64) -> Collider {
        Collider {
            shape: SharedShape::ball(radius),
            vertices: vec![[0.0, 0.0]],
            normals: Vec::new(),
            radius,
        }
    }

    fn capsule(radius: f64, length: f64) -> Result<Collider, String> {
        if !(length > 0.0 && length.is_finite()) {
            return Err(format!("length must be positive and finite, got {length}"));
        }
        let h = length / 2.0;
        Ok(Collider {
            shape: SharedShape::capsule_x(h, radius),
            vertices: vec![[-h, 0.0], [h, 0.0]],
            // The segment's two sides.
            normals: vec![[0.0, -1.0], [0.0, 1.0]],
            radius,
        })
    }

    /// The axis-aligned box around the shape at `pose`, grown by `margin`: `[min, max]`.
    pub(crate) fn bounds(&self, pose: &Pose, margin: f64) -> [[f64; 2]; 2] {
        let b = self.shape.compute_aabb(pose);
        [
            [b.mins.x - margin, b.mins.y - margin],
            [b.maxs.x + margin, b.maxs.y + margin],
        ]
    }
}

/// The outward unit normals of a counter-clockwise polygon's faces.
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
