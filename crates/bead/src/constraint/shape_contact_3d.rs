//! Contact between two 3D shapes at one point of their manifold: a non-penetration row (issue
//! 33; seed 004's inequality `g ≥ 0`).
//!
//! The narrow phase ([`crate::collide3d`]) names the features that touch as points fixed in
//! the bodies, so the gap is a function of three body points, and every derivative comes by the
//! chain rule through them ([`crate::Point`]), as the 3D joints are built:
//!
//! ```text
//! a point against a plane of b   g = (x_a − x_f)·(x_n − x_f) − (r_a + r_b)
//! a point against a line of b    g = |p − (p·u) u / |u|²| − (r_a + r_b),   p = x_a − x_b, u = x_t − x_b
//! round against round            g = |x_a − x_b| − (r_a + r_b)
//! a point inside a sphere of b    g = R − |x_a − x_b| − (r_a + r_b)
//! a point against a circle of b   g = √((|p⊥| − ρ)² + (p·û)²) − (r_a + r_b)   ([`rim`])
//! a circle of a against a plane of b   g = n̂·(x_c − x_f) − ρ √(1 − (n̂·û)²) − (r_a + r_b)   ([`circle`])
//! ```
//!
//! `x_a` is a's core point; `x_f` a point of b's plane and `x_n` the point one metre from it
//! along the plane's outward normal, both fixed in b, so `x_n − x_f` is b's normal as b turns
//! and the first row is one dot row ([`super::dot_rows`]). A face of a box, an edge of a box
//! crossing another edge (the plane through b's edge with the step's normal, fixed in b, which
//! stays exact as the edges slide along each other and is first order in their turning), a
//! box's corner over a face: all are the first row. A sphere on a box's edge, or a capsule's end
//! on another's side, is the second, with `x_t` one metre along the line from `x_b`: a point
//! fixed on the line would drift off the contact as the sphere slid along the edge (by
//! `(v h)²/2r` a step, which let a ball sink 1.5 mm into a box's edge in 0.1 s). Two round
//! points (sphere centres, capsules' ends, a box's corner) are the third. Under the implicit
//! steppers two round points are held along the normal `n₀` of the step's start,
//! `g = n₀·(x_a − x_b) − r` ([`ConstraintEval::step_start`]), as in 2D
//! ([`super::ShapeContact`]): linear in the points, never above the true gap. A point against
//! a line is not: `n₀` leaves the line's perpendicular plane as b turns, and the held gap could
//! then rise above the true one. Nor is a point inside a sphere (a bowl): there the held gap
//! `R − n₀·(x_a − x_b)` is never *below* the true one, so it would let the point through.

use super::dot_rows::{Chords, DotSum};
use super::shape_contact::ContactBody;
use super::{
    Constraint, ConstraintError, ConstraintEval, ConstraintKind, HessianEval, InvalidParameter,
    add_separation_hessian, polarize_quadratic, separation, separation_along,
};
use crate::body::ParticleId;
use crate::draw::{Canvas, Element};
use crate::math::dual::Scalar;
use crate::math::rotation::{Real, cross, dot};
use crate::math::vector::to_vec3;
use crate::point::{Operand, Point};
use crate::view::View;

/// Which features of two 3D shapes touch, as core points in each body's frame.
///
/// ```
/// use bead::constraint::Gap3d;
/// // A sphere's centre over the top face of a floor 1 m thick, centred 0.5 m below the origin.
/// let gap = Gap3d::Face { a: [0.0; 3], b: [0.0, 0.0, 0.5], normal: [0.0, 0.0, 1.0] };
/// assert!(matches!(gap, Gap3d::Face { .. }));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Gap3d {
    /// Two round features (sphere centres, points of capsules' segments, a box's edge or corner
    /// against a sphere): the distance between their cores.
    Round {
        /// Core point of `a`, in `a`'s frame, m.
        a: [f64; 3],
        /// Core point of `b`, in `b`'s frame, m.
        b: [f64; 3],
    },
    /// A point of `a` against a line fixed in `b` (a sphere on a box's edge, a capsule's end
    /// on another's side): the distance from the point to the line, exact as either slides
    /// along the line.
    Line {
        /// Core point of `a`, in `a`'s frame, m.
        a: [f64; 3],
        /// A point of the line, in `b`'s frame, m.
        b: [f64; 3],
        /// The line's unit direction, in `b`'s frame.
        direction: [f64; 3],
    },
    /// An edge of `a` crossing an edge of `b` (two boxes' edges, two capsules' axes): the
    /// signed distance between the two lines along their common normal, exact while they
    /// cross, as they slide and as they turn.
    Edges {
        /// Two points of a's line, in `a`'s frame, m.
        a: [[f64; 3]; 2],
        /// Two points of b's line, in `b`'s frame, m, ordered so that the lines' cross product
        /// `(a₁ − a₀) × (b₁ − b₀)` points from b to a.
        b: [[f64; 3]; 2],
    },
    /// A point of `a` against a plane fixed in `b`.
    Face {
        /// Core point of `a`, in `a`'s frame, m.
        a: [f64; 3],
        /// A point of the plane, in `b`'s frame, m.
        b: [f64; 3],
        /// The plane's outward unit normal (from `b` towards `a`), in `b`'s frame.
        normal: [f64; 3],
    },
    /// A point of `a` against a circle fixed in `b` (a bowl's rim): the distance from the point
    /// to the circle, exact as the point moves round it.
    Rim {
        /// Core point of `a`, in `a`'s frame, m.
        a: [f64; 3],
        /// The circle's centre, in `b`'s frame, m.
        b: [f64; 3],
        /// The circle's unit axis, in `b`'s frame.
        axis: [f64; 3],
        /// The circle's radius, m.
        radius: f64,
    },
    /// A point of `a` inside a sphere fixed in `b` (a body in a bowl): the sphere's radius less
    /// the point's distance from its centre, `g = R − |x_a − x_b| − (r_a + r_b)`, exact as the
    /// point moves round the sphere.
    Within {
        /// Core point of `a`, in `a`'s frame, m.
        a: [f64; 3],
        /// The sphere's centre, in `b`'s frame, m.
        b: [f64; 3],
        /// The sphere's radius `R`, m.
        radius: f64,
    },
    /// A circle of `a` (a cylinder's rim) against a plane fixed in `b`: the plane's distance
    /// from the circle's lowest point, exact as the circle rolls round and turns; the circle
    /// must not lie flat on the plane, where it has no lowest point.
    Circle {
        /// The circle's centre, in `a`'s frame, m.
        a: [f64; 3],
        /// The circle's unit axis, in `a`'s frame.
        axis: [f64; 3],
        /// The circle's radius, m.
        radius: f64,
        /// A point of the plane, in `b`'s frame, m.
        b: [f64; 3],
        /// The plane's outward unit normal (from `b` towards `a`), in `b`'s frame.
        normal: [f64; 3],
    },
}

/// Two 3D shapes in contact at one point: `g ≥ 0`.
///
/// Contact groups ([`System::add_shape_contacts`](crate::System::add_shape_contacts)) make
/// these from the narrow phase at every step; a model can also hold one by hand.
///
/// ```
/// use bead::constraint::{Gap3d, ShapeContact3d};
/// use bead::{force::Gravity, RigidBody3d, Shape3d, System};
/// let mut sys = System::new(3)?;
/// let floor = sys.add_rigid_body_3d(RigidBody3d::new([0.0, 0.0, -0.5]).fixed())?;
/// let ball = sys.add_rigid_body_3d(
///     RigidBody3d::new([0.0, 0.0, 0.1]).shape(Shape3d::Sphere { radius: 0.1 }, 1000.0),
/// )?;
/// let gap = Gap3d::Face { a: [0.0; 3], b: [0.0, 0.0, 0.5], normal: [0.0, 0.0, 1.0] };
/// let id = sys.add_constraint(ShapeContact3d::new(ball, floor, gap, [0.1, 0.0]))?;
/// sys.add_force(Gravity::new(&[0.0, 0.0, -9.81]))?;
/// sys.step(1e-3).unwrap();
/// // The floor carries the ball's weight, m g.
/// let m = 1000.0 * 4.0 / 3.0 * std::f64::consts::PI * 0.1_f64.powi(3);
/// let lambda = sys.diagnostics().unwrap().constraint(id).unwrap().lambda[0];
/// assert!((lambda - m * 9.81).abs() < 1e-9 * m);
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Debug)]
pub struct ShapeContact3d {
    bodies: [Operand; 2],
    gap: Gap3d,
    radii: [f64; 2],
    /// Coulomb's coefficient (0: frictionless, one row).
    friction: f64,
    /// Where the bodies touch, in a's and b's frames: the material points whose relative
    /// velocity the friction rows hold.
    touch: [[f64; 3]; 2],
    /// The tangents' reference direction, world (see [`super::contact_tangents`]).
    reference: [f64; 3],
}

impl ShapeContact3d {
    /// The contact of 3D body (or particle) `a` with `b` at the features `gap`, whose cores are
    /// swept by `radii` (`[r_a, r_b]`, 0 for a box's vertex or face).
    pub fn new(
        a: impl Into<ContactBody>,
        b: impl Into<ContactBody>,
        gap: Gap3d,
        radii: [f64; 2],
    ) -> Self {
        ShapeContact3d {
            bodies: [a.into().0, b.into().0],
            gap,
            radii,
            friction: 0.0,
            touch: [[0.0; 3]; 2],
            reference: [1.0, 0.0, 0.0],
        }
    }

    /// Coulomb friction with coefficient `mu` where the bodies touch at `touch` (the point in
    /// a's frame and in b's), the tangents taken from `reference` (a world direction not along
    /// the normal): adds the two rows of the tangential force.
    pub(crate) fn with_friction(
        mut self,
        mu: f64,
        touch: [[f64; 3]; 2],
        reference: [f64; 3],
    ) -> Self {
        self.friction = mu;
        self.touch = touch;
        self.reference = reference;
        self
    }

    /// Moves the contact to new features (the narrow phase's, at the next step). The rows stay
    /// the same, so the multipliers carry over as a warm start; the operands' points move, so
    /// the model's copy of them must be renewed from [`Constraint::operands`].
    pub fn set_gap(&mut self, gap: Gap3d, radii: [f64; 2]) {
        self.gap = gap;
        self.radii = radii;
    }

    /// Moves the friction rows' material points to where the bodies now touch, `touch` in a's
    /// and b's frames, and renews the tangents' reference direction for the normal `n` (kept
    /// while it stays clear of it, so the friction force's components keep their meaning).
    pub(crate) fn set_touch(&mut self, touch: [[f64; 3]; 2], n: [f64; 3]) {
        self.touch = touch;
        self.reference = super::contact_tangents::reference(&n, Some(self.reference));
    }

    /// The contact's unit normal (from b towards a) at the world positions `x` of its first
    /// four operands.
    pub(crate) fn world_normal(&self, x: &[[f64; 3]]) -> Option<[f64; 3]> {
        let x: [[f64; 3]; 4] = [x[0], x[1], x[2], x[3]];
        let n = self.normal(&x, None)?;
        let len = dot(&n, &n).sqrt();
        (len > 0.0).then(|| n.map(|v| v / len))
    }

    /// The coefficient of friction (0: frictionless).
    pub(crate) fn coefficient(&self) -> f64 {
        self.friction
    }

    /// The features in contact.
    pub fn gap(&self) -> Gap3d {
        self.gap
    }

    fn reach(&self) -> f64 {
        self.radii[0] + self.radii[1]
    }

    /// The contact's unit normal (from b towards a) at the gap's four points `x`, in any
    /// scalar; `held` the step's start normal of two round points under the implicit steppers.
    fn normal<D: Real>(&self, x: &[[D; 3]; 4], held: Option<[f64; 3]>) -> Option<[D; 3]> {
        let unit = |d: [D; 3]| {
            let len = dot(&d, &d).sqrt();
            (len.re() > 0.0).then(|| d.map(|v| v / len))
        };
        match self.gap {
            Gap3d::Face { .. } | Gap3d::Circle { .. } => Some(sub3(&x[2], &x[1])),
            Gap3d::Round { .. } => match held {
                Some(n) => Some(n.map(D::from)),
                None => unit(sub3(&x[0], &x[1])),
            },
            Gap3d::Line { .. } => {
                let (p, u) = (sub3(&x[0], &x[1]), sub3(&x[2], &x[1]));
                let s = dot(&p, &u) / dot(&u, &u);
                unit(std::array::from_fn(|k| p[k] - s * u[k]))
            }
            // Inward, towards the sphere's centre.
            Gap3d::Within { .. } => unit(sub3(&x[1], &x[0])),
            Gap3d::Rim { radius, .. } => rim::normal(&[x[0], x[1], x[2]], radius),
            // Operands a₀, b₀, b₁, a₁: the lines' cross product (a₁ − a₀) × (b₁ − b₀).
            Gap3d::Edges { .. } => unit(cross(&sub3(&x[3], &x[0]), &sub3(&x[2], &x[1]))),
        }
    }

    /// The two tangents at the gap's points `x` moving at `v` (each entry's `v1` its rate),
    /// `start` the first two points at the step's start where the stepper holds a round
    /// contact along its normal there.
    fn moving_tangents(
        &self,
        x: [&[f64]; 4],
        v: [&[f64]; 4],
        start: [Option<&[f64]>; 2],
    ) -> Result<[[Scalar; 3]; 2], ConstraintError> {
        let moving: [[Scalar; 3]; 4] =
            std::array::from_fn(|i| std::array::from_fn(|k| Scalar::new(x[i][k], v[i][k], 0.0)));
        let held = match start {
            [Some(s0), Some(s1)] if matches!(self.gap, Gap3d::Round { .. }) => {
                let d = sub3(&to_vec3(s0), &to_vec3(s1));
                let len = dot(&d, &d).sqrt();
                (len > 0.0).then(|| d.map(|v| v / len))
            }
            _ => None,
        };
        let n = self.normal(&moving, held).ok_or_else(|| {
            ConstraintError::new("the contact has no normal: its features meet at one point")
        })?;
        Ok(super::contact_tangents::tangents(&n, &self.reference))
    }

    /// Midway between the two surfaces where they touch, from the world positions `x` of the
    /// four operands: what a picture marks. `None` where the features give no normal (two
    /// round cores at one place, a point on its line, parallel edges).
    pub(crate) fn witness(&self, x: &[[f64; 3]]) -> Option<[f64; 3]> {
        let [ra, rb] = self.radii;
        let unit = |d: [f64; 3]| {
            let len = dot(&d, &d).sqrt();
            (len > 0.0).then(|| d.map(|v| v / len))
        };
        let between = |core_a: &[f64; 3], core_b: &[f64; 3], n: &[f64; 3]| {
            std::array::from_fn(|k| 0.5 * (core_a[k] - ra * n[k] + core_b[k] + rb * n[k]))
        };
        match self.gap {
            Gap3d::Round { .. } => {
                let n = unit(sub3(&x[0], &x[1]))?;
                Some(between(&x[0], &x[1], &n))
            }
            Gap3d::Rim { radius, .. } => {
                let x3 = [x[0], x[1], x[2]];
                let (n, d) = (rim::normal(&x3, radius)?, rim::distance(&x3, radius));
                let on = std::array::from_fn(|k| x[0][k] - d * n[k]);
                Some(between(&x[0], &on, &n))
            }
            Gap3d::Within { radius, .. } => {
                // a's core point, and the sphere's surface beyond it.
                let u = unit(sub3(&x[0], &x[1]))?;
                let surface = std::array::from_fn(|k| x[1][k] + radius * u[k]);
                Some(between(&x[0], &surface, &u.map(|v| -v)))
            }
            Gap3d::Face { .. } | Gap3d::Circle { .. } => {
                let at = match self.gap {
                    Gap3d::Circle { radius, .. } => {
                        circle::lowest(&[x[0], x[1], x[2], x[3]], radius)?
                    }
                    _ => x[0],
                };
                let n = sub3(&x[2], &x[1]);
                let height = dot(&sub3(&at, &x[1]), &n);
                let foot = std::array::from_fn(|k| at[k] - height * n[k]);
                Some(between(&at, &foot, &n))
            }
            Gap3d::Line { .. } => {
                let u = sub3(&x[2], &x[1]);
                let along = dot(&sub3(&x[0], &x[1]), &u);
                let foot = std::array::from_fn(|k| x[1][k] + along * u[k]);
                let n = unit(sub3(&x[0], &foot))?;
                Some(between(&x[0], &foot, &n))
            }
            Gap3d::Edges { .. } => {
                // The closest points of the lines a₀a₁ (operands 0, 3) and b₀b₁ (1, 2).
                let (u, w, r) = (sub3(&x[3], &x[0]), sub3(&x[2], &x[1]), sub3(&x[0], &x[1]));
                let (uu, uw, ww) = (dot(&u, &u), dot(&u, &w), dot(&w, &w));
                let (ur, wr) = (dot(&u, &r), dot(&w, &r));
                let det = uu * ww - uw * uw;
                if !(det > 0.0) {
                    return None;
                }
                let (s, t) = ((uw * wr - ww * ur) / det, (uu * wr - uw * ur) / det);
                let on_a = std::array::from_fn(|k| x[0][k] + s * u[k]);
                let on_b = std::array::from_fn(|k| x[1][k] + t * w[k]);
                let n = unit(sub3(&on_a, &on_b)).unwrap_or([0.0; 3]);
                Some(between(&on_a, &on_b, &n))
            }
        }
    }
}

/// The point of `body` at `local` in its frame: a particle is its own position.
fn point_of(body: Operand, local: [f64; 3]) -> Operand {
    match body {
        Operand::Coordinates(b) => Operand::Point(Point::OnBody3d { body: b, local }),
        other => other,
    }
}

impl Constraint for ShapeContact3d {
    fn rows(&self, _dim: usize) -> usize {
        if self.friction > 0.0 { 3 } else { 1 }
    }

    fn row_kind(&self, row: usize) -> ConstraintKind {
        super::Friction::contact_row_kind(row)
    }

    fn friction(&self, row: usize) -> Option<super::Friction> {
        (row >= 1 && self.friction > 0.0).then_some(super::Friction {
            normal: 0,
            coefficient: self.friction,
        })
    }

    fn operands(&self) -> Vec<Operand> {
        let [a, b] = self.bodies;
        // Always four points, of a, b, b and a: the rows keep one shape whatever the features,
        // so the layout stays when the narrow phase moves the contact. Unused places repeat a
        // point and get no gradient.
        let along = |p: [f64; 3], d: [f64; 3]| [0, 1, 2].map(|k| p[k] + d[k]);
        let [p0, p1, p2, p3] = match self.gap {
            Gap3d::Round { a: pa, b: pb } | Gap3d::Within { a: pa, b: pb, .. } => [pa, pb, pb, pa],
            Gap3d::Face {
                a: pa,
                b: pb,
                normal: d,
            }
            | Gap3d::Line {
                a: pa,
                b: pb,
                direction: d,
            }
            | Gap3d::Rim {
                a: pa,
                b: pb,
                axis: d,
                ..
            } => [pa, pb, along(pb, d), pa],
            Gap3d::Edges { a: ea, b: eb } => [ea[0], eb[0], eb[1], ea[1]],
            Gap3d::Circle {
                a: pa,
                axis,
                b: pb,
                normal,
                ..
            } => [pa, pb, along(pb, normal), along(pa, axis)],
        };
        let mut ops = vec![
            point_of(a, p0),
            point_of(b, p1),
            point_of(b, p2),
            point_of(a, p3),
        ];
        if self.friction > 0.0 {
            ops.extend([point_of(a, self.touch[0]), point_of(b, self.touch[1])]);
        }
        ops
    }

    fn kind(&self) -> ConstraintKind {
        ConstraintKind::Inequality
    }

    fn check(&self, dim: usize) -> Result<(), InvalidParameter> {
        if dim != 3 {
            return Err(InvalidParameter::new(
                "dimension",
                "ShapeContact3d is three-dimensional (ShapeContact is the 2D one)",
            ));
        }
        InvalidParameter::check_non_negative("radius", self.radii[0])?;
        InvalidParameter::check_non_negative("radius", self.radii[1])?;
        InvalidParameter::check_non_negative("friction", self.friction)?;
        if self.bodies[0].body() == self.bodies[1].body() {
            return Err(InvalidParameter::new(
                "between",
                "needs two different bodies",
            ));
        }
        // Features fixed in both bodies need two rigid bodies.
        let both_rigid = |what: &str| {
            if self
                .bodies
                .iter()
                .any(|o| !matches!(o, Operand::Coordinates(_)))
            {
                return Err(InvalidParameter::new(
                    "gap",
                    format!("{what} must be fixed in rigid bodies: a particle has none"),
                ));
            }
            Ok(())
        };
        let (a, b) = match self.gap {
            Gap3d::Round { a, b } => (a, b),
            Gap3d::Within { a, b, radius } => {
                InvalidParameter::check_positive("radius", radius)?;
                (a, b)
            }
            Gap3d::Face {
                a,
                b,
                normal: along,
            }
            | Gap3d::Line {
                a,
                b,
                direction: along,
            }
            | Gap3d::Rim {
                a, b, axis: along, ..
            } => {
                if let Gap3d::Rim { radius, .. } = self.gap {
                    InvalidParameter::check_positive("radius", radius)?;
                }
                let len = along.iter().map(|x| x * x).sum::<f64>().sqrt();
                if !((len - 1.0).abs() < 1e-9) {
                    let field = match self.gap {
                        Gap3d::Face { .. } => "normal",
                        Gap3d::Rim { .. } => "axis",
                        _ => "direction",
                    };
                    return Err(InvalidParameter::new(
                        field,
                        format!("must be a unit vector, has length {len}"),
                    ));
                }
                if !matches!(self.bodies[1], Operand::Coordinates(_)) {
                    return Err(InvalidParameter::new(
                        "gap",
                        "a plane, a line or a circle must be fixed in a rigid body: b is a particle",
                    ));
                }
                (a, b)
            }
            Gap3d::Circle {
                a,
                axis,
                radius,
                b,
                normal,
            } => {
                InvalidParameter::check_positive("radius", radius)?;
                for (field, v) in [("axis", axis), ("normal", normal)] {
                    let len = dot(&v, &v).sqrt();
                    if !((len - 1.0).abs() < 1e-9) {
                        return Err(InvalidParameter::new(
                            field,
                            format!("must be a unit vector, has length {len}"),
                        ));
                    }
                }
                both_rigid("a circle and a plane")?;
                (a, b)
            }
            Gap3d::Edges { a, b } => {
                both_rigid("edges")?;
                // Each line in its own body's frame: whether they are parallel depends on how
                // the bodies are turned, which the evaluation checks (two edges along their
                // boxes' x axes cross where one box is turned about z).
                let length = |e: &[[f64; 3]; 2]| {
                    let d = sub3(&e[1], &e[0]);
                    dot(&d, &d).sqrt()
                };
                if !(length(&a) > 0.0 && length(&b) > 0.0) {
                    return Err(InvalidParameter::new(
                        "gap",
                        "an edge's two points coincide: it has no direction",
                    ));
                }
                if a.iter().chain(&b).flatten().any(|x| !x.is_finite()) {
                    return Err(InvalidParameter::new("gap", "its points must be finite"));
                }
                (a[0], b[0])
            }
        };
        if a.iter().chain(&b).any(|x| !x.is_finite()) {
            return Err(InvalidParameter::new("gap", "its points must be finite"));
        }
        Ok(())
    }

    fn evaluate(&self, eval: &mut ConstraintEval<'_>) -> Result<(), ConstraintError> {
        let r = self.reach();
        match self.gap {
            Gap3d::Face { .. } => {
                DotSum::at(eval, 4, &[(1.0, Chords::new([0, 1], [2, 1]))]).write(eval, 0, -r);
            }
            Gap3d::Round { .. } | Gap3d::Within { .. } => {
                let (x, v) = ([eval.x(0), eval.x(1)], [eval.v(0), eval.v(1)]);
                let row = match (self.gap, [eval.step_start(0), eval.step_start(1)]) {
                    (Gap3d::Within { radius, .. }, _) => separation(x, v, radius - r, -1.0)?,
                    (_, [Some(s0), Some(s1)]) => separation_along(x, [s0, s1], r)?,
                    _ => separation(x, v, r, 1.0)?,
                };
                let minus = row.gradient.map(|g| -g);
                eval.set_value(0, row.value);
                eval.set_jdot_xdot(0, row.jdot_xdot);
                eval.set_gradient(0, 0, &row.gradient);
                eval.set_gradient(0, 1, &minus);
                eval.set_gradient(0, 2, &[0.0; 3]);
            }
            Gap3d::Edges { .. } => {
                // Operands: a₀, b₀, b₁, a₁.
                let x = [eval.x(0), eval.x(3), eval.x(1), eval.x(2)].map(to_vec3);
                let v = [eval.v(0), eval.v(3), eval.v(1), eval.v(2)].map(to_vec3);
                let rows = edges::rows(&x)?;
                eval.set_value(0, rows.value - r);
                eval.set_jdot_xdot(0, edges::curvature(&x, &v));
                eval.set_gradient(0, 0, &rows.gradient[0]);
                eval.set_gradient(0, 3, &rows.gradient[1]);
                eval.set_gradient(0, 1, &rows.gradient[2]);
                eval.set_gradient(0, 2, &rows.gradient[3]);
            }
            Gap3d::Circle { radius, .. } => {
                let x: [[f64; 3]; 4] = std::array::from_fn(|i| to_vec3(eval.x(i)));
                let v: [[f64; 3]; 4] = std::array::from_fn(|i| to_vec3(eval.v(i)));
                let (value, gradient) = circle::rows(&x, radius)?;
                eval.set_value(0, value - r);
                eval.set_jdot_xdot(0, circle::curvature(&x, &v, radius));
                for (i, g) in gradient.iter().enumerate() {
                    eval.set_gradient(0, i, g);
                }
            }
            Gap3d::Rim { radius, .. } => {
                let x = [eval.x(0), eval.x(1), eval.x(2)].map(to_vec3);
                let v = [eval.v(0), eval.v(1), eval.v(2)].map(to_vec3);
                let (value, gradient) = rim::rows(&x, radius)?;
                eval.set_value(0, value - r);
                eval.set_jdot_xdot(0, rim::curvature(&x, &v, radius));
                for (i, g) in gradient.iter().enumerate() {
                    eval.set_gradient(0, i, g);
                }
            }
            Gap3d::Line { .. } => {
                // Not held along the start's normal as two round points are: that normal leaves
                // the line's perpendicular plane as b turns, and the held gap then rose above
                // the true one (a ball sank 60 µm into a spinning cube's edge).
                let x = [eval.x(0), eval.x(1), eval.x(2)].map(to_vec3);
                let (s, n) = to_line(x)?;
                let v = [eval.v(0), eval.v(1), eval.v(2)].map(to_vec3);
                eval.set_value(0, line_distance(&x) - r);
                eval.set_jdot_xdot(0, line_curvature(&x, &v));
                eval.set_gradient(0, 0, &n);
                eval.set_gradient(0, 1, &n.map(|g| -(1.0 - s) * g));
                eval.set_gradient(0, 2, &n.map(|g| -s * g));
            }
        }
        if self.friction > 0.0 {
            let v = [eval.v(4), eval.v(5)].map(to_vec3);
            let relative = sub3(&v[0], &v[1]);
            let [t1, t2] = self.moving_tangents(
                std::array::from_fn(|i| eval.x(i)),
                std::array::from_fn(|i| eval.v(i)),
                [eval.step_start(0), eval.step_start(1)],
            )?;
            for (k, t) in [t1, t2].iter().enumerate() {
                let (value, rate) = (t.map(|x| x.re), t.map(|x| x.v1));
                eval.set_value(1 + k, 0.0);
                eval.set_jdot_xdot(1 + k, dot(&rate, &relative));
                eval.set_gradient(1 + k, 4, &value);
                eval.set_gradient(1 + k, 5, &value.map(|x| -x));
            }
        }
        Ok(())
    }

    fn draw(&self, view: &View<'_>, canvas: &mut dyn Canvas) {
        let x: Vec<[f64; 3]> = (self.operands().into_iter())
            .map(|op| match op {
                Operand::Point(p) => view.position(&p),
                Operand::Coordinates(b) => view.position(&Point::Particle(ParticleId(b))),
            })
            .collect();
        if let Some(at) = self.witness(&x) {
            canvas.marker(at, Element::Contact);
        }
    }

    fn weighted_hessian(
        &self,
        at: &HessianEval<'_>,
        weights: &[f64],
        hessian: &mut [f64],
    ) -> Result<(), ConstraintError> {
        match self.gap {
            Gap3d::Face { .. } => {
                Chords::new([0, 1], [2, 1]).add_hessian(at, weights[0], hessian);
            }
            // Held along the start's normal, the row is linear in the points.
            Gap3d::Round { .. } if at.step_start(0).is_some() => {}
            Gap3d::Edges { .. } => {
                let x = [at.x(0), at.x(3), at.x(1), at.x(2)].map(to_vec3);
                let w = weights[0];
                let mut q = |v: &[f64]| -> Result<f64, ConstraintError> {
                    let v = [&v[0..3], &v[9..12], &v[3..6], &v[6..9]].map(to_vec3);
                    Ok(w * edges::curvature(&x, &v))
                };
                polarize_quadratic(at.len(), &mut q, hessian)?;
            }
            Gap3d::Circle { radius, .. } => {
                let x: [[f64; 3]; 4] = std::array::from_fn(|i| to_vec3(at.x(i)));
                let w = weights[0];
                let mut q = |v: &[f64]| -> Result<f64, ConstraintError> {
                    let v: [[f64; 3]; 4] = std::array::from_fn(|i| to_vec3(&v[3 * i..3 * i + 3]));
                    Ok(w * circle::curvature(&x, &v, radius))
                };
                polarize_quadratic(at.len(), &mut q, hessian)?;
            }
            Gap3d::Rim { radius, .. } => {
                let x = [at.x(0), at.x(1), at.x(2)].map(to_vec3);
                let w = weights[0];
                let mut q = |v: &[f64]| -> Result<f64, ConstraintError> {
                    let v = [&v[0..3], &v[3..6], &v[6..9]].map(to_vec3);
                    Ok(w * rim::curvature(&x, &v, radius))
                };
                polarize_quadratic(at.len(), &mut q, hessian)?;
            }
            Gap3d::Line { .. } => {
                let x = [at.x(0), at.x(1), at.x(2)].map(to_vec3);
                let w = weights[0];
                let mut q = |v: &[f64]| -> Result<f64, ConstraintError> {
                    let v = [&v[0..3], &v[3..6], &v[6..9]].map(to_vec3);
                    Ok(w * line_curvature(&x, &v))
                };
                polarize_quadratic(at.len(), &mut q, hessian)?;
            }
            Gap3d::Round { .. } | Gap3d::Within { .. } => {
                // The separation's 6 × 6 block of the first two points, into the 9 × 9 matrix;
                // inside a sphere the gap is its negative.
                let sign = if matches!(self.gap, Gap3d::Within { .. }) {
                    -1.0
                } else {
                    1.0
                };
                let mut block = [0.0; 36];
                add_separation_hessian([at.x(0), at.x(1)], sign * weights[0], &mut block)?;
                let n = at.len();
                for i in 0..6 {
                    for j in 0..6 {
                        hessian[i * n + j] += block[i * 6 + j];
                    }
                }
            }
        }
        if self.friction > 0.0 && (weights[1] != 0.0 || weights[2] != 0.0) {
            // Σ_k w_k ṫ_k · (v(p_a) − v(p_b)), with ṫ_k = T_k v_gap linear in the gap points'
            // velocities: the columns of Σ_k w_k T_k are the tangents' rates along each of
            // their twelve coordinates, and the form couples only those with the touching
            // points' velocities. Twelve evaluations of the tangents, where polarizing the form
            // over all eighteen coordinates took 171 (a sixth of a pinch grip's step).
            let x: [&[f64]; 4] = std::array::from_fn(|i| at.x(i));
            let start = [at.step_start(0), at.step_start(1)];
            let (w1, w2, n) = (weights[1], weights[2], at.len());
            for c in 0..12 {
                let mut along = [[0.0; 3]; 4];
                along[c / 3][c % 3] = 1.0;
                let v: [&[f64]; 4] = std::array::from_fn(|i| &along[i][..]);
                let [t1, t2] = self.moving_tangents(x, v, start)?;
                for d in 0..3 {
                    let h = 0.5 * (w1 * t1[d].v1 + w2 * t2[d].v1);
                    for (other, sign) in [(12 + d, 1.0), (15 + d, -1.0)] {
                        hessian[c * n + other] += sign * h;
                        hessian[other * n + c] += sign * h;
                    }
                }
            }
        }
        Ok(())
    }
}

/// `a − b` in any scalar, for the gaps' dual-number evaluations.
fn sub3<D: Real>(a: &[D; 3], b: &[D; 3]) -> [D; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// The distance from the point `x[0]` to the line through `x[1]` and `x[2]`.
fn line_distance<D: Real>(x: &[[D; 3]; 3]) -> D {
    let (p, u) = (sub3(&x[0], &x[1]), sub3(&x[2], &x[1]));
    let pu = dot(&p, &u);
    (dot(&p, &p) - pu * pu / dot(&u, &u)).sqrt()
}

/// `s = (p·u)/|u|²`, where the point's foot lies along the line, and the unit normal `q̂` from
/// the line to the point, or an error where the point is on the line.
fn to_line(x: [[f64; 3]; 3]) -> Result<(f64, [f64; 3]), ConstraintError> {
    let (p, u) = (sub3(&x[0], &x[1]), sub3(&x[2], &x[1]));
    let s = dot(&p, &u) / dot(&u, &u);
    let q = [0, 1, 2].map(|k| p[k] - s * u[k]);
    let len = dot(&q, &q).sqrt();
    if !(len > 0.0) {
        return Err(ConstraintError::new(
            "the point lies on the line it touches: the contact has no normal",
        ));
    }
    Ok((s, q.map(|v| v / len)))
}

/// `J̇ẋ` of the point-to-line distance: its second derivative along the velocities `v`.
fn line_curvature(x: &[[f64; 3]; 3], v: &[[f64; 3]; 3]) -> f64 {
    let moving = gradient::moving(x, v);
    line_distance(&moving).v2
}

mod circle;
mod edges;
mod gradient;
mod rim;
#[cfg(test)]
mod tests;
