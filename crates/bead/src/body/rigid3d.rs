//! A 3D rigid body (seed 003: six degrees of freedom, "extended for rotations"): its centre of
//! mass `p`, its orientation as a unit quaternion, a mass `m` and an inertia tensor about the
//! centre of mass, given as principal moments, as a full tensor, or from a [`Shape3d`] and a
//! density. Its six coordinates are `p` and the exponential coordinates of its turn from a
//! reference orientation that follows it ([`super::chart`]): increments live in the tangent
//! space, with no norm row and no drift off the unit sphere.
//!
//! ```text
//! sphere of radius r              m = ρ 4πr³/3         I = 2/5 m r² (each axis)
//! box of edges a × b × c          m = ρ a b c           I_x = m (b² + c²)/12, ...
//! cylinder r, length L (along z)  m = ρ π r² L          I_z = ½ m r², I_x = m (3r² + L²)/12
//! capsule r, L between its hemispheres' centres, along z: a cylinder and two half balls
//! convex hull of points           m = ρ V              I = ρ (tr S − S), S = ∫ x xᵀ dV
//! ```
//!
//! A convex hull's points are given about its centroid, as a polygon's are in 2D, so that the
//! body's position stays its centre of mass; its inertia is a full tensor.

use super::{hull, positive, representable};
use crate::math::vector::norm;
use std::f64::consts::PI;

use super::chart::Chart;
use super::{Body, BodyId, BodyKind, Placed};
use crate::error::ModelError;
use crate::math::rotation::normalized;

/// Handle of a 3D rigid body in a [`System`](crate::System).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RigidBody3dId(pub(crate) BodyId);

impl RigidBody3dId {
    /// The body handle of this rigid body.
    pub fn body(self) -> BodyId {
        self.0
    }
}

impl From<RigidBody3dId> for BodyId {
    fn from(id: RigidBody3dId) -> BodyId {
        id.0
    }
}

/// The solid shape of a 3D rigid body in its own frame (origin at the centre of mass), m.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Shape3d {
    /// A ball.
    Sphere {
        /// Radius, m.
        radius: f64,
    },
    /// A box centred on the origin.
    Box {
        /// Full edges along x, y and z, m.
        size: [f64; 3],
    },
    /// A cylinder along the body's z axis, centred on the origin.
    Cylinder {
        /// Radius, m.
        radius: f64,
        /// Distance between its end faces, m.
        length: f64,
    },
    /// A capsule along the body's z axis: a segment of `length`, centred, swept by a ball.
    Capsule {
        /// Radius, m.
        radius: f64,
        /// Distance between its hemispheres' centres, m.
        length: f64,
    },
    /// The convex hull of `points`, given in the body's frame about the hull's centroid.
    /// Every point must be a corner of the hull (one inside it, or on a face or an edge, is
    /// an error naming it), and at least four must not lie in one plane.
    ///
    /// ```
    /// use bead::Shape3d;
    /// // A wedge: a right triangle of legs 0.3 m (x) and 0.6 m (z), 0.2 m deep in y, its
    /// // centroid moved to the origin.
    /// let tri = [[0.0, 0.0], [0.3, 0.0], [0.0, 0.6]];
    /// let c = [0.1, 0.2];
    /// let points: Vec<[f64; 3]> = [-0.1, 0.1]
    ///     .iter()
    ///     .flat_map(|&y| tri.iter().map(move |p| [p[0] - c[0], y, p[1] - c[1]]))
    ///     .collect();
    /// let (m, _) = Shape3d::ConvexHull { points }.mass_properties(1000.0).unwrap();
    /// assert!((m - 1000.0 * 0.5 * 0.3 * 0.6 * 0.2).abs() < 1e-9);
    /// ```
    ConvexHull {
        /// The hull's corners, m.
        points: Vec<[f64; 3]>,
    },
    /// A bowl: the inside of a sphere of `radius` about the body's origin, from its lowest
    /// point `[0, 0, −radius]` up to the rim, `depth` above it (`depth = radius` is a
    /// hemisphere, `2 radius` a closed hollow sphere). A surface without thickness: a body's
    /// round points and corners touch its wall from inside below the rim, and its rim, a
    /// circle, from anywhere; nothing touches its outside, and a body that rises over the rim
    /// leaves it. It has no volume, so no mass of its own: make the body fixed, or give it a
    /// mass and inertia.
    ///
    /// ```
    /// use bead::{RigidBody3d, Shape3d, System};
    /// let mut sys = System::new(3)?;
    /// let bowl = Shape3d::Bowl { radius: 0.5, depth: 0.25 };
    /// assert!(bowl.mass_properties(1000.0).is_err());
    /// // Its lowest point at the origin.
    /// sys.add_rigid_body_3d(RigidBody3d::new([0.0, 0.0, 0.5]).outline(bowl).fixed())?;
    /// # Ok::<(), bead::ModelError>(())
    /// ```
    Bowl {
        /// Radius of the sphere, m.
        radius: f64,
        /// Height of the rim over the lowest point, m: more than 0, at most `2 radius`.
        depth: f64,
    },
}

impl Shape3d {
    /// Mass (kg) and inertia tensor about the centre of mass in the body's frame (kg·m²) for a
    /// uniform `density` (kg/m³). Every shape but a convex hull has its principal axes along
    /// the body's, so its tensor is diagonal.
    ///
    /// ```
    /// use bead::Shape3d;
    /// let (m, i) = Shape3d::Box { size: [1.0, 2.0, 3.0] }.mass_properties(2.0).unwrap();
    /// assert_eq!(m, 12.0);
    /// assert!((i[0][0] - 12.0 * (4.0 + 9.0) / 12.0).abs() < 1e-12);
    /// assert_eq!(i[0][1], 0.0);
    /// ```
    pub fn mass_properties(&self, density: f64) -> Result<(f64, [[f64; 3]; 3]), String> {
        let rho = positive("density", density)?;
        let properties: Result<(f64, [f64; 3]), String> = match self {
            Shape3d::Sphere { radius } => {
                let r = positive("radius", *radius)?;
                let m = rho * 4.0 / 3.0 * PI * r * r * r;
                Ok((m, [0.4 * m * r * r; 3]))
            }
            Shape3d::Box { size } => {
                let [a, b, c] = [
                    positive("size[0]", size[0])?,
                    positive("size[1]", size[1])?,
                    positive("size[2]", size[2])?,
                ];
                let m = rho * a * b * c;
                Ok((
                    m,
                    [
                        m * (b * b + c * c) / 12.0,
                        m * (a * a + c * c) / 12.0,
                        m * (a * a + b * b) / 12.0,
                    ],
                ))
            }
            Shape3d::Cylinder { radius, length } => {
                let (r, l) = (positive("radius", *radius)?, positive("length", *length)?);
                let m = rho * PI * r * r * l;
                let side = m * (3.0 * r * r + l * l) / 12.0;
                Ok((m, [side, side, 0.5 * m * r * r]))
            }
            Shape3d::Capsule { radius, length } => {
                let r = positive("radius", *radius)?;
                if !(*length >= 0.0 && length.is_finite()) {
                    return Err(format!("length must be zero or more, got {length}"));
                }
                let l = *length;
                // The cylinder, and each half ball carried from its own centre of mass (3r/8
                // from its flat face) by the parallel-axis theorem.
                let (m_c, m_h) = (rho * PI * r * r * l, rho * 2.0 / 3.0 * PI * r * r * r);
                let side = m_c * (l * l / 12.0 + r * r / 4.0)
                    + 2.0 * m_h * (0.4 * r * r + l * l / 4.0 + 3.0 * l * r / 8.0);
                let axial = 0.5 * m_c * r * r + 2.0 * 0.4 * m_h * r * r;
                Ok((m_c + 2.0 * m_h, [side, side, axial]))
            }
            // A full tensor, not principal moments along the body's axes.
            Shape3d::ConvexHull { points } => return hull_properties(points, rho),
            Shape3d::Bowl { .. } => {
                return Err(
                    "a bowl is a surface without volume and has no mass of its own: \
                            make the body fixed, or give it a mass and an inertia"
                        .into(),
                );
            }
        };
        let (m, moments) = representable(rho, properties?)?;
        Ok((m, diagonal(moments)))
    }
}

impl Shape3d {
    /// Why the shape's measures make no solid (or bowl), if they do not: what a body given it
    /// would be refused for.
    ///
    /// ```
    /// use bead::Shape3d;
    /// assert!(Shape3d::Bowl { radius: 0.5, depth: 0.5 }.check().is_ok());
    /// let deep = Shape3d::Bowl { radius: 0.5, depth: 1.5 }.check().unwrap_err();
    /// assert!(deep.contains("depth"));
    /// ```
    pub fn check(&self) -> Result<(), String> {
        match self {
            Shape3d::Bowl { radius, depth } => bowl_rim(*radius, *depth).map(|_| ()),
            _ => self.mass_properties(1.0).map(|_| ()),
        }
    }
}

/// The height of a bowl's rim over its sphere's centre, or why `radius` and `depth` make no
/// bowl.
pub(crate) fn bowl_rim(radius: f64, depth: f64) -> Result<f64, String> {
    let r = positive("radius", radius)?;
    if !(depth > 0.0 && depth <= 2.0 * r) {
        return Err(format!(
            "a bowl's depth must be more than 0 and at most twice its radius ({}), got {depth}",
            2.0 * r
        ));
    }
    Ok(depth - r)
}

/// A convex hull's mass and inertia tensor about its centroid, which must be the origin.
fn hull_properties(points: &[[f64; 3]], rho: f64) -> Result<(f64, [[f64; 3]; 3]), String> {
    let faces = hull::hull_faces(points)?;
    let (volume, centroid, s) = hull::moments(points, &faces);
    let reach = points.iter().flatten().fold(0.0_f64, |m, x| m.max(x.abs()));
    if norm(&centroid) > 1e-9 * reach {
        // Rounding's crumbs print as zeros, not as -0.000000000.
        let [x, y, z] = centroid.map(|c| if c.abs() < 5e-10 { 0.0 } else { c });
        return Err(format!(
            "the hull's centroid is at ({x:.9}, {y:.9}, {z:.9}), not at the origin; give the \
             points relative to the centroid (subtract it from each)"
        ));
    }
    let trace = s[0][0] + s[1][1] + s[2][2];
    let inertia: [[f64; 3]; 3] =
        [0, 1, 2].map(|i| [0, 1, 2].map(|j| rho * (if i == j { trace } else { 0.0 } - s[i][j])));
    let (m, _) = representable(
        rho,
        (rho * volume, [inertia[0][0], inertia[1][1], inertia[2][2]]),
    )?;
    Ok((m, inertia))
}

/// Description of a 3D rigid body to add to a 3D system.
///
/// ```
/// use bead::{RigidBody3d, Shape3d, System};
/// let mut sys = System::new(3)?;
/// let top = sys.add_rigid_body_3d(
///     RigidBody3d::new([0.0, 0.0, 0.1])
///         .shape(Shape3d::Cylinder { radius: 0.05, length: 0.02 }, 1000.0)
///         .angular_velocity([0.0, 0.0, 30.0]),
/// )?;
/// assert_eq!(sys.orientation(top), [1.0, 0.0, 0.0, 0.0]);
/// assert_eq!(sys.angular_velocity(top), [0.0, 0.0, 30.0]);
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct RigidBody3d {
    /// Position of the centre of mass, m.
    pub position: [f64; 3],
    /// Orientation, a quaternion `[w, x, y, z]` (normalized when the body is added).
    pub orientation: [f64; 4],
    /// Velocity of the centre of mass, m/s.
    pub velocity: [f64; 3],
    /// Angular velocity in the world frame, rad/s.
    pub angular_velocity: [f64; 3],
    /// Mass, kg (`f64::INFINITY`: a fixed body).
    pub mass: f64,
    /// Inertia about the centre of mass in the body's frame, kg·m² (symmetric, positive
    /// definite).
    pub inertia: [[f64; 3]; 3],
    /// Solid shape, for mass, drawing and (later) contact.
    pub shape: Option<Shape3d>,
}

impl RigidBody3d {
    /// A body at `position`, unturned, of 1 kg and inertia 1 kg·m² about every axis, at rest.
    pub fn new(position: [f64; 3]) -> Self {
        RigidBody3d {
            position,
            orientation: [1.0, 0.0, 0.0, 0.0],
            velocity: [0.0; 3],
            angular_velocity: [0.0; 3],
            mass: 1.0,
            inertia: diagonal([1.0; 3]),
            shape: None,
        }
    }

    /// Sets the orientation, a quaternion `[w, x, y, z]`.
    pub fn orientation(mut self, orientation: [f64; 4]) -> Self {
        self.orientation = orientation;
        self
    }

    /// Sets the velocity of the centre of mass, m/s.
    pub fn velocity(mut self, velocity: [f64; 3]) -> Self {
        self.velocity = velocity;
        self
    }

    /// Sets the angular velocity, world frame, rad/s.
    pub fn angular_velocity(mut self, angular_velocity: [f64; 3]) -> Self {
        self.angular_velocity = angular_velocity;
        self
    }

    /// Sets the mass, kg.
    pub fn mass(mut self, mass: f64) -> Self {
        self.mass = mass;
        self
    }

    /// Sets the principal moments of inertia along the body's x, y and z axes, kg·m².
    pub fn principal_inertia(mut self, moments: [f64; 3]) -> Self {
        self.inertia = diagonal(moments);
        self
    }

    /// Sets the full inertia tensor in the body's frame, kg·m².
    pub fn inertia(mut self, inertia: [[f64; 3]; 3]) -> Self {
        self.inertia = inertia;
        self
    }

    /// Sets the shape, and mass and inertia from it for a uniform `density` (kg/m³); an
    /// invalid shape or density leaves NaN mass, which
    /// [`System::add_rigid_body_3d`](crate::System::add_rigid_body_3d) rejects with the reason.
    pub fn shape(mut self, shape: Shape3d, density: f64) -> Self {
        match shape.mass_properties(density) {
            Ok((m, i)) => (self.mass, self.inertia) = (m, i),
            Err(_) => (self.mass, self.inertia) = (f64::NAN, diagonal([f64::NAN; 3])),
        }
        self.shape = Some(shape);
        self
    }

    /// Sets the shape for drawing only, keeping mass and inertia.
    pub fn outline(mut self, shape: Shape3d) -> Self {
        self.shape = Some(shape);
        self
    }

    /// Makes the body fixed: infinite mass, and it never turns.
    pub fn fixed(mut self) -> Self {
        self.mass = f64::INFINITY;
        self
    }

    /// The body checked for a `dim`-dimensional system (3D only; finite position, velocities
    /// and orientation of nonzero length; positive mass; symmetric positive definite inertia),
    /// as a body whose six coordinates start at `offset` in `q`.
    pub(crate) fn place(&self, dim: usize, offset: usize) -> Result<Placed, ModelError> {
        if dim != 3 {
            return Err(ModelError::Setting(
                "3D rigid bodies need a 3D system; this system is 2D".into(),
            ));
        }
        let finite = |what: &'static str, v: &[f64]| {
            if v.iter().all(|x| x.is_finite()) {
                Ok(())
            } else {
                Err(ModelError::NonFinite(what))
            }
        };
        finite("rigid body position", &self.position)?;
        finite("rigid body velocity", &self.velocity)?;
        finite("rigid body angular velocity", &self.angular_velocity)?;
        finite("rigid body orientation", &self.orientation)?;
        let orientation = normalized(&self.orientation).ok_or_else(|| {
            ModelError::Setting(format!(
                "rigid body orientation {:?} has zero length and cannot be normalized",
                self.orientation
            ))
        })?;
        if let Some(shape) = &self.shape {
            // A shape that does not give a mass or that is degenerate is an error, even for
            // drawing only.
            if let Err(reason) = shape.check() {
                return Err(ModelError::Setting(format!("rigid body shape: {reason}")));
            }
            if self.mass.is_nan() {
                return Err(ModelError::Setting(
                    "rigid body shape: density must be positive and finite".into(),
                ));
            }
        }
        if !(self.mass > 0.0) || self.mass.is_nan() {
            return Err(ModelError::Mass(self.mass));
        }
        if self.mass.is_finite() {
            positive_definite(&self.inertia)?;
        }
        let chart = Chart::new(orientation, self.inertia);
        let body = Body {
            kind: BodyKind::Rigid3d {
                chart: Box::new(chart),
                shape: self.shape.clone(),
            },
            offset,
            ndof: 6,
            mass: self.mass,
            radius: 0.0,
        };
        let [x, y, z] = self.position;
        let [vx, vy, vz] = self.velocity;
        let [wx, wy, wz] = self.angular_velocity;
        Ok(Placed {
            body,
            q: vec![x, y, z, 0.0, 0.0, 0.0],
            v: vec![vx, vy, vz, wx, wy, wz],
        })
    }
}

/// The diagonal matrix of `d`.
fn diagonal(d: [f64; 3]) -> [[f64; 3]; 3] {
    [[d[0], 0.0, 0.0], [0.0, d[1], 0.0], [0.0, 0.0, d[2]]]
}

/// Checks that an inertia tensor is finite, symmetric and positive definite (its leading
/// minors positive).
fn positive_definite(m: &[[f64; 3]; 3]) -> Result<(), ModelError> {
    let bad = |why: &str| {
        Err(ModelError::Setting(format!(
            "rigid body inertia {m:?} {why}"
        )))
    };
    if !m.iter().flatten().all(|x| x.is_finite()) {
        return bad("must be finite");
    }
    let scale = m.iter().flatten().fold(0.0_f64, |s, x| s.max(x.abs()));
    for (r, c) in [(0, 1), (0, 2), (1, 2)] {
        if (m[r][c] - m[c][r]).abs() > 1e-12 * scale {
            return bad("must be symmetric");
        }
    }
    let minor2 = m[0][0] * m[1][1] - m[0][1] * m[1][0];
    let det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
        - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
        + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
    if !(m[0][0] > 0.0 && minor2 > 0.0 && det > 0.0) {
        return bad("must be positive definite");
    }
    // Of a body: I = tr(S) 1 − S for its second moment of mass S = ∫ ρ x xᵀ, which is positive
    // semi-definite, so S = tr(I)/2 · 1 − I must be; its eigenvalues are half the sums of two
    // principal moments less the third (a flat plate's is zero, to rounding).
    let half = (m[0][0] + m[1][1] + m[2][2]) / 2.0;
    let s: [[f64; 3]; 3] =
        std::array::from_fn(|r| std::array::from_fn(|c| if r == c { half } else { 0.0 } - m[r][c]));
    let slack = 1e-9 * half;
    let minor = |a: usize, b: usize| s[a][a] * s[b][b] - s[a][b] * s[b][a];
    let det_s = s[0][0] * minor(1, 2) - s[0][1] * (s[1][0] * s[2][2] - s[1][2] * s[2][0])
        + s[0][2] * (s[1][0] * s[2][1] - s[1][1] * s[2][0]);
    let semidefinite = (0..3).all(|k| s[k][k] >= -slack)
        && [(0, 1), (0, 2), (1, 2)]
            .iter()
            .all(|&(a, b)| minor(a, b) >= -slack * half)
        && det_s >= -slack * half * half;
    if !semidefinite {
        return bad(
            "is that of no body: one principal moment exceeds the sum of the other two \
             (for any mass, I₁ ≤ I₂ + I₃)",
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::hull::tests::corners;
    use super::*;

    /// A shape whose mass overflows (or underflows) at its density is refused: it would make
    /// a body of infinite mass that gravity does not move, or one of none.
    #[test]
    fn a_mass_that_floating_point_cannot_hold_is_refused() {
        let huge = Shape3d::Box {
            size: [1e308, 1.0, 1.0],
        };
        let e = huge.mass_properties(300.0).unwrap_err();
        assert!(e.contains("too large or too small"), "{e}");
        let tiny = Shape3d::Sphere { radius: 1e-120 };
        assert!(tiny.mass_properties(1.0).is_err());
        assert!(
            Shape3d::Sphere { radius: 1e-3 }
                .mass_properties(1.0)
                .is_ok()
        );
    }

    /// A capsule of length 0 is a sphere; a capsule's mass is its cylinder's and a ball's.
    #[test]
    fn a_capsule_of_no_length_is_a_ball() {
        let ball = Shape3d::Sphere { radius: 0.3 }.mass_properties(2.0);
        let capsule = Shape3d::Capsule {
            radius: 0.3,
            length: 0.0,
        }
        .mass_properties(2.0);
        let (Ok((mb, ib)), Ok((mc, ic))) = (ball, capsule) else {
            panic!("valid shapes were rejected");
        };
        assert!((mb - mc).abs() < 1e-12);
        assert!(
            ib.iter()
                .flatten()
                .zip(ic.iter().flatten())
                .all(|(a, b)| (a - b).abs() < 1e-12)
        );
    }

    /// A long capsule tends to its cylinder: its ends add `4r/3L` of the mass and about `4r/L`
    /// of the inertia across it.
    #[test]
    fn a_long_capsule_tends_to_its_cylinder() {
        let (r, l) = (0.01, 10.0);
        let Ok((mc, ic)) = (Shape3d::Capsule {
            radius: r,
            length: l,
        })
        .mass_properties(1.0) else {
            panic!("rejected");
        };
        let Ok((my, iy)) = (Shape3d::Cylinder {
            radius: r,
            length: l,
        })
        .mass_properties(1.0) else {
            panic!("rejected");
        };
        assert!(((mc - my) / my - 4.0 * r / (3.0 * l)).abs() < 1e-9);
        assert!(((ic[0][0] - iy[0][0]) / iy[0][0] - 4.0 * r / l).abs() < 2e-4);
    }

    fn close(a: &[[f64; 3]; 3], b: &[[f64; 3]; 3], tol: f64) -> bool {
        a.iter()
            .flatten()
            .zip(b.iter().flatten())
            .all(|(x, y)| (x - y).abs() <= tol)
    }

    /// A box's eight corners, as a hull, weigh and turn as the box does, also when the hull is
    /// turned: its tensor is then `R I Rᵀ`, products of inertia included.
    #[test]
    fn a_hull_of_a_box_has_the_box_mass_properties() {
        let h = [0.4, 0.25, 0.1];
        let (mb, ib) = Shape3d::Box {
            size: h.map(|x| 2.0 * x),
        }
        .mass_properties(700.0)
        .unwrap();
        let (mh, ih) = Shape3d::ConvexHull { points: corners(h) }
            .mass_properties(700.0)
            .unwrap();
        assert!((mb - mh).abs() < 1e-12 * mb);
        assert!(close(&ib, &ih, 1e-14 * ib[0][0]), "{ib:?} vs {ih:?}");
        let r =
            crate::math::rotation::rotation_matrix(&normalized(&[0.9, 0.3, -0.2, 0.25]).unwrap());
        let turned: Vec<[f64; 3]> = corners(h)
            .iter()
            .map(|p| [0, 1, 2].map(|i| (0..3).map(|j| r[i][j] * p[j]).sum()))
            .collect();
        let (_, it) = Shape3d::ConvexHull { points: turned }
            .mass_properties(700.0)
            .unwrap();
        let expected: [[f64; 3]; 3] = [0, 1, 2]
            .map(|i| [0, 1, 2].map(|j| (0..3).map(|k| r[i][k] * ib[k][k] * r[j][k]).sum()));
        assert!(
            close(&it, &expected, 1e-13 * ib[0][0]),
            "{it:?} vs {expected:?}"
        );
        assert!(
            it[0][1].abs() > 1e-3 * ib[0][0],
            "the turn gives products of inertia"
        );
    }

    /// A regular tetrahedron of edge a turns alike about every axis: I = m a²/20.
    #[test]
    fn a_regular_tetrahedron_has_its_closed_form_inertia() {
        let s = 0.3;
        // Alternate corners of a cube of side s: edges a = s √2, centroid at the origin.
        let points = vec![
            [s / 2.0, s / 2.0, s / 2.0],
            [s / 2.0, -s / 2.0, -s / 2.0],
            [-s / 2.0, s / 2.0, -s / 2.0],
            [-s / 2.0, -s / 2.0, s / 2.0],
        ];
        let (m, i) = Shape3d::ConvexHull { points }
            .mass_properties(1000.0)
            .unwrap();
        let a2 = 2.0 * s * s;
        assert!((m - 1000.0 * s * s * s / 3.0).abs() < 1e-12 * m);
        let expected =
            [0, 1, 2].map(|r| [0, 1, 2].map(|c| if r == c { m * a2 / 20.0 } else { 0.0 }));
        assert!(close(&i, &expected, 1e-15), "{i:?}");
    }

    /// A hull whose centroid is not the origin is refused with where its centroid is, as a
    /// polygon is in 2D; one with a point inside it, with the point.
    #[test]
    fn a_hull_off_its_centroid_or_with_a_point_inside_is_refused() {
        let moved: Vec<[f64; 3]> = corners([0.1; 3])
            .iter()
            .map(|p| [p[0] + 0.5, p[1], p[2]])
            .collect();
        let e = Shape3d::ConvexHull { points: moved }
            .mass_properties(1.0)
            .unwrap_err();
        assert!(
            e.contains("centroid is at (0.500000000, 0.000000000, 0.000000000)"),
            "{e}"
        );
        let mut dented = corners([0.1; 3]);
        dented.push([0.0, 0.0, 0.05]);
        let e = RigidBody3d::new([0.0; 3])
            .shape(Shape3d::ConvexHull { points: dented }, 1.0)
            .place(3, 0)
            .unwrap_err();
        assert!(e.to_string().contains("hull point 8"), "{e}");
    }

    /// Bad input is a located error: a zero quaternion, an inertia that is not positive
    /// definite, a 2D system.
    #[test]
    fn bad_bodies_are_refused_with_the_reason() {
        let zero = RigidBody3d::new([0.0; 3]).orientation([0.0; 4]).place(3, 0);
        assert!(matches!(zero, Err(ModelError::Setting(s)) if s.contains("zero length")));
        let flat = RigidBody3d::new([0.0; 3])
            .principal_inertia([1.0, -1.0, 1.0])
            .place(3, 0);
        assert!(matches!(flat, Err(ModelError::Setting(s)) if s.contains("positive definite")));
        let lopsided = RigidBody3d::new([0.0; 3])
            .inertia([[1.0, 0.5, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
            .place(3, 0);
        assert!(matches!(lopsided, Err(ModelError::Setting(s)) if s.contains("symmetric")));
        // Positive definite, but no mass has these moments: 3 > 1 + 1.
        let impossible = RigidBody3d::new([0.0; 3])
            .principal_inertia([1.0, 1.0, 3.0])
            .place(3, 0);
        assert!(
            matches!(&impossible, Err(ModelError::Setting(s)) if s.contains("no body")),
            "{impossible:?}"
        );
        // The same turned (products of inertia), and a plate's, I₃ = I₁ + I₂, which is one.
        let turned = RigidBody3d::new([0.0; 3])
            .inertia([[2.0, 1.0, 0.0], [1.0, 2.0, 0.0], [0.0, 0.0, 0.5]])
            .place(3, 0);
        assert!(matches!(turned, Err(ModelError::Setting(s)) if s.contains("no body")));
        let plate = RigidBody3d::new([0.0; 3])
            .inertia([[1.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 3.0]])
            .place(3, 0);
        assert!(plate.is_ok(), "{plate:?}");
        let flat_system = RigidBody3d::new([0.0; 3]).place(2, 0);
        assert!(matches!(flat_system, Err(ModelError::Setting(_))));
        let no_density = RigidBody3d::new([0.0; 3])
            .shape(Shape3d::Sphere { radius: 1.0 }, 0.0)
            .place(3, 0);
        assert!(matches!(no_density, Err(ModelError::Setting(s)) if s.contains("density")));
    }
}
