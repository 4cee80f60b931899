//! A 2D rigid body (seed 002, "Extension to rigid bodies"): coordinates `[x, y, θ]`, the
//! position of its centre of mass and its angle; mass `m` and moment of inertia `I` about the
//! centre of mass, so that its block of `W` is `diag(1/m, 1/m, 1/I)`.
//!
//! Mass and inertia are given, or derived from a [`Shape`] and a density (uniform bodies):
//!
//! ```text
//! disc of radius r           m = ρ π r²      I = ½ m r²
//! box w × h                  m = ρ w h       I = m (w² + h²) / 12
//! thin rod of length L       m = ρ L         I = m L² / 12        (ρ in kg/m)
//! polygon (centroid at 0)    m = ρ A         I = ρ Σ (cross terms) (the polygon second moment)
//! ```

use super::{Body, BodyId, BodyKind, Placed, check_vector};
use super::{positive, representable};
use crate::error::ModelError;

/// Handle of a rigid body in a [`System`](crate::System).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RigidBodyId(pub(crate) BodyId);

impl RigidBodyId {
    /// The body handle of this rigid body.
    pub fn body(self) -> BodyId {
        self.0
    }
}

impl From<RigidBodyId> for BodyId {
    fn from(id: RigidBodyId) -> BodyId {
        id.0
    }
}

/// The outline of a rigid body, in its own frame (origin at the centre of mass), in metres.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Shape {
    /// A disc.
    Disc {
        /// Radius, m.
        radius: f64,
    },
    /// A rectangle centred on the origin, `width` along the body's x axis.
    Box {
        /// Extent along x, m.
        width: f64,
        /// Extent along y, m.
        height: f64,
    },
    /// A thin rod along the body's x axis, centred on the origin.
    Rod {
        /// Length, m.
        length: f64,
    },
    /// A capsule: the segment of `length` along the body's x axis, centred on the origin,
    /// swept by a disc of `radius` (a stadium).
    Capsule {
        /// Radius, m.
        radius: f64,
        /// Distance between the centres of its two round ends, m.
        length: f64,
    },
    /// A convex polygon, counter-clockwise, whose centroid is the origin (where it gives the
    /// mass: an outline alone may sit anywhere in the body's frame).
    Polygon {
        /// Vertices, m.
        vertices: Vec<[f64; 2]>,
    },
}

impl Shape {
    /// Mass (kg) and moment of inertia about the centroid (kg·m²) for a uniform `density`
    /// (kg/m² for areas, kg/m for a rod).
    ///
    /// ```
    /// use bead::Shape;
    /// let (m, i) = Shape::Rod { length: 2.0 }.mass_properties(3.0).unwrap();
    /// assert_eq!(m, 6.0);
    /// assert!((i - 6.0 * 4.0 / 12.0).abs() < 1e-12);
    /// ```
    pub fn mass_properties(&self, density: f64) -> Result<(f64, f64), String> {
        if !(density > 0.0 && density.is_finite()) {
            return Err(format!(
                "density must be positive and finite, got {density}"
            ));
        }
        let properties: Result<(f64, f64), String> = match self {
            Shape::Disc { radius } => {
                let r = positive("radius", *radius)?;
                let m = density * std::f64::consts::PI * r * r;
                Ok((m, 0.5 * m * r * r))
            }
            Shape::Box { width, height } => {
                let (w, h) = (positive("width", *width)?, positive("height", *height)?);
                let m = density * w * h;
                Ok((m, m * (w * w + h * h) / 12.0))
            }
            Shape::Rod { length } => {
                let l = positive("length", *length)?;
                let m = density * l;
                Ok((m, m * l * l / 12.0))
            }
            Shape::Capsule { radius, length } => {
                let r = positive("radius", *radius)?;
                if !(*length >= 0.0 && length.is_finite()) {
                    return Err(format!("length must be zero or more, got {length}"));
                }
                // A rectangle of length × 2r and two half discs whose flat sides are its ends,
                // each half disc carried to the centre by the parallel-axis theorem.
                let l = *length;
                let (m_rect, m_disc) = (
                    density * 2.0 * r * l,
                    density * std::f64::consts::PI * r * r,
                );
                let rect = m_rect * (l * l + 4.0 * r * r) / 12.0;
                let ends = m_disc
                    * (r * r / 2.0 + l * l / 4.0 + 4.0 * l * r / (3.0 * std::f64::consts::PI));
                Ok((m_rect + m_disc, rect + ends))
            }
            Shape::Polygon { vertices } => polygon_properties(vertices, density),
        };
        let (m, i) = properties?;
        let (m, i) = representable(density, (m, [i]))?;
        Ok((m, i[0]))
    }
}

/// Area, centroid and second moment of a simple polygon (shoelace formulas).
/// Checks a polygon's outline: at least three finite vertices, counter-clockwise, convex.
fn polygon_outline(v: &[[f64; 2]]) -> Result<(), String> {
    if v.len() < 3 {
        return Err(format!(
            "a polygon needs at least 3 vertices, got {}",
            v.len()
        ));
    }
    if v.iter().flatten().any(|x| !x.is_finite()) {
        return Err("a polygon vertex is not finite".into());
    }
    let area2: f64 = (0..v.len())
        .map(|k| {
            let (a, b) = (v[k], v[(k + 1) % v.len()]);
            a[0] * b[1] - b[0] * a[1]
        })
        .sum();
    if !(area2 > 0.0) {
        return Err("a polygon must be counter-clockwise with a positive area".into());
    }
    convex(v)
}

/// Whether the counter-clockwise polygon `v` is convex: it turns left, or goes straight, at
/// every vertex. Collision geometry takes convex shapes (a non-convex outline is several).
fn convex(v: &[[f64; 2]]) -> Result<(), String> {
    let n = v.len();
    let size = v
        .iter()
        .flatten()
        .fold(0.0_f64, |m, x| m.max(x.abs()))
        .max(1e-300);
    for k in 0..n {
        let (a, b, c) = (v[(k + n - 1) % n], v[k], v[(k + 1) % n]);
        let turn = (b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0]);
        if turn < -1e-12 * size * size {
            return Err(format!(
                "a polygon must be convex: it turns clockwise at vertex {k} ({}, {})",
                b[0], b[1]
            ));
        }
    }
    Ok(())
}

fn polygon_properties(v: &[[f64; 2]], density: f64) -> Result<(f64, f64), String> {
    polygon_outline(v)?;
    let (mut area2, mut cx, mut cy, mut j) = (0.0, 0.0, 0.0, 0.0);
    for k in 0..v.len() {
        let (a, b) = (v[k], v[(k + 1) % v.len()]);
        let cross = a[0] * b[1] - b[0] * a[1];
        area2 += cross;
        cx += (a[0] + b[0]) * cross;
        cy += (a[1] + b[1]) * cross;
        j += cross
            * (a[0] * a[0] + a[0] * b[0] + b[0] * b[0] + a[1] * a[1] + a[1] * b[1] + b[1] * b[1]);
    }
    let area = area2 / 2.0;
    let (cx, cy) = (cx / (6.0 * area), cy / (6.0 * area));
    let size = v.iter().flatten().fold(0.0_f64, |m, x| m.max(x.abs()));
    if (cx * cx + cy * cy).sqrt() > 1e-9 * size.max(1.0) {
        return Err(format!(
            "the polygon's centroid is at ({cx:.6}, {cy:.6}), not at the origin; give the vertices relative to the centroid"
        ));
    }
    let m = density * area;
    Ok((m, density * j / 12.0))
}

/// Description of a 2D rigid body to add to a system.
///
/// ```
/// use bead::{RigidBody, Shape, System};
/// let mut sys = System::new(2)?;
/// let arm = sys.add_rigid_body(RigidBody::new(&[0.5, 0.0], 0.0).shape(Shape::Rod { length: 1.0 }, 2.0))?;
/// assert_eq!(sys.coordinates(arm.body()), &[0.5, 0.0, 0.0]);
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct RigidBody {
    /// Position of the centre of mass, m.
    pub position: Vec<f64>,
    /// Angle, rad (counter-clockwise).
    pub angle: f64,
    /// Velocity of the centre of mass, m/s (empty means zero).
    pub velocity: Vec<f64>,
    /// Angular velocity, rad/s.
    pub angular_velocity: f64,
    /// Mass, kg (`f64::INFINITY`: a kinematic body).
    pub mass: f64,
    /// Moment of inertia about the centre of mass, kg·m² (`f64::INFINITY`: never turns).
    pub inertia: f64,
    /// Outline, for drawing (and later contact).
    pub shape: Option<Shape>,
}

impl RigidBody {
    /// A body at `position` turned by `angle`, of mass 1 kg and inertia 1 kg·m², at rest.
    pub fn new(position: &[f64], angle: f64) -> Self {
        RigidBody {
            position: position.to_vec(),
            angle,
            velocity: Vec::new(),
            angular_velocity: 0.0,
            mass: 1.0,
            inertia: 1.0,
            shape: None,
        }
    }

    /// Sets the mass, kg.
    pub fn mass(mut self, mass: f64) -> Self {
        self.mass = mass;
        self
    }

    /// Sets the moment of inertia about the centre of mass, kg·m².
    pub fn inertia(mut self, inertia: f64) -> Self {
        self.inertia = inertia;
        self
    }

    /// Sets the shape, and mass and inertia from it for a uniform `density`; an invalid shape or
    /// density leaves NaN mass, which [`System::add_rigid_body`](crate::System::add_rigid_body)
    /// rejects with the reason.
    pub fn shape(mut self, shape: Shape, density: f64) -> Self {
        match shape.mass_properties(density) {
            Ok((m, i)) => (self.mass, self.inertia) = (m, i),
            Err(_) => (self.mass, self.inertia) = (f64::NAN, f64::NAN),
        }
        self.shape = Some(shape);
        self
    }

    /// Sets the shape for drawing only, keeping mass and inertia.
    pub fn outline(mut self, shape: Shape) -> Self {
        self.shape = Some(shape);
        self
    }

    /// Sets the velocity (m/s) and angular velocity (rad/s).
    pub fn velocity(mut self, velocity: &[f64], angular_velocity: f64) -> Self {
        self.velocity = velocity.to_vec();
        self.angular_velocity = angular_velocity;
        self
    }

    /// Makes the body kinematic: infinite mass and inertia.
    pub fn fixed(mut self) -> Self {
        (self.mass, self.inertia) = (f64::INFINITY, f64::INFINITY);
        self
    }

    /// The body checked for a `dim`-dimensional system (2D only; finite position, angle and
    /// velocities; a positive mass and moment of inertia, or infinity), as a body whose
    /// coordinates `[x, y, θ]` start at `offset` in `q`.
    pub(crate) fn place(&self, dim: usize, offset: usize) -> Result<Placed, ModelError> {
        let body = self;
        if dim != 2 {
            return Err(ModelError::Setting(
                "rigid bodies are 2D; this system is 3D".into(),
            ));
        }
        check_vector("rigid body position", &body.position, 2)?;
        let velocity = if body.velocity.is_empty() {
            vec![0.0; 2]
        } else {
            body.velocity.clone()
        };
        check_vector("rigid body velocity", &velocity, 2)?;
        if !body.angle.is_finite() {
            return Err(ModelError::NonFinite("rigid body angle"));
        }
        if !body.angular_velocity.is_finite() {
            return Err(ModelError::NonFinite("rigid body angular velocity"));
        }
        if let Some(shape) = &body.shape
            && body.mass.is_nan()
        {
            // `RigidBody::shape` could not derive the mass: say why.
            let reason = shape
                .mass_properties(1.0)
                .err()
                .unwrap_or_else(|| "invalid density".into());
            return Err(ModelError::Setting(format!("rigid body shape: {reason}")));
        }
        if let Some(Shape::Polygon { vertices }) = &body.shape
            && let Err(reason) = polygon_outline(vertices)
        {
            return Err(ModelError::Setting(format!("rigid body shape: {reason}")));
        }
        if !(body.mass > 0.0) || body.mass.is_nan() {
            return Err(ModelError::Mass(body.mass));
        }
        if !(body.inertia > 0.0) || body.inertia.is_nan() {
            return Err(ModelError::Setting(format!(
                "moment of inertia must be positive (or infinity), got {}",
                body.inertia
            )));
        }
        let placed = Body {
            kind: BodyKind::Rigid2d {
                inertia: body.inertia,
                shape: body.shape.clone(),
            },
            offset,
            ndof: 3,
            mass: body.mass,
            radius: 0.0,
        };
        Ok(Placed {
            body: placed,
            q: vec![body.position[0], body.position[1], body.angle],
            v: vec![velocity[0], velocity[1], body.angular_velocity],
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A shape whose mass overflows at its density is refused rather than made immovable.
    #[test]
    fn a_mass_that_floating_point_cannot_hold_is_refused() {
        let huge = Shape::Box {
            width: 1e308,
            height: 10.0,
        };
        let e = huge.mass_properties(300.0).unwrap_err();
        assert!(e.contains("too large or too small"), "{e}");
        assert!(Shape::Disc { radius: 1e-200 }.mass_properties(1.0).is_err());
    }

    /// The polygon formulas reproduce the box's.
    #[test]
    fn polygon_matches_box() {
        let (w, h) = (2.0, 0.5);
        let square = vec![
            [-w / 2.0, -h / 2.0],
            [w / 2.0, -h / 2.0],
            [w / 2.0, h / 2.0],
            [-w / 2.0, h / 2.0],
        ];
        let (m1, i1) = Shape::Polygon { vertices: square }
            .mass_properties(3.0)
            .unwrap();
        let (m2, i2) = Shape::Box {
            width: w,
            height: h,
        }
        .mass_properties(3.0)
        .unwrap();
        assert!(
            (m1 - m2).abs() < 1e-12 && (i1 - i2).abs() < 1e-12,
            "{m1} {i1} vs {m2} {i2}"
        );
        let off = vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]];
        assert!(
            Shape::Polygon { vertices: off }
                .mass_properties(1.0)
                .unwrap_err()
                .contains("centroid")
        );
    }

    /// A polygon must be convex, whether it gives the mass or only the outline: a chevron,
    /// centred, is refused naming the vertex where it turns clockwise; a square with a vertex
    /// on an edge (a straight turn) is accepted.
    #[test]
    fn polygons_must_be_convex() {
        // A chevron (an arrowhead pointing up), its centroid moved to the origin.
        let raw = [[-1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.0, 0.5]];
        let raw_ccw: Vec<[f64; 2]> = raw.iter().rev().copied().collect();
        let (mut area2, mut cx, mut cy) = (0.0, 0.0, 0.0);
        for k in 0..raw_ccw.len() {
            let (a, b) = (raw_ccw[k], raw_ccw[(k + 1) % raw_ccw.len()]);
            let cross = a[0] * b[1] - b[0] * a[1];
            area2 += cross;
            cx += (a[0] + b[0]) * cross;
            cy += (a[1] + b[1]) * cross;
        }
        let (cx, cy) = (cx / (3.0 * area2), cy / (3.0 * area2));
        let chevron: Vec<[f64; 2]> = raw_ccw.iter().map(|p| [p[0] - cx, p[1] - cy]).collect();
        let reason = Shape::Polygon {
            vertices: chevron.clone(),
        }
        .mass_properties(1.0)
        .unwrap_err();
        assert!(
            reason.contains("convex") && reason.contains("vertex"),
            "{reason}"
        );
        let mut sys = crate::System::new(2).unwrap_or_else(|e| panic!("{e}"));
        let outline = RigidBody::new(&[0.0, 0.0], 0.0)
            .mass(1.0)
            .inertia(1.0)
            .outline(Shape::Polygon { vertices: chevron });
        let err = sys.add_rigid_body(outline).unwrap_err().to_string();
        assert!(err.contains("convex"), "{err}");
        let square = vec![
            [-1.0, -1.0],
            [1.0, -1.0],
            [1.0, 0.0],
            [1.0, 1.0],
            [-1.0, 1.0],
        ];
        let (m, _) = Shape::Polygon { vertices: square }
            .mass_properties(1.0)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!((m - 4.0).abs() < 1e-12);
    }
}
