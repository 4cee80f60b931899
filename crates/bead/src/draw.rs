//! One description of what to draw, for every renderer (the viewer, `bead render`, tests):
//! models say what they look like once.
//!
//! The engine describes a model as a few primitives — discs, lines, zigzag springs, wire
//! outlines, anchors, arrows — through [`Canvas`], as box2d's and rapier's debug-draw interfaces
//! do. Each force and constraint draws itself ([`crate::Force::draw`](crate::force::Force::draw),
//! [`crate::Constraint::draw`]); a renderer (the CLI's GIF frames, the viewer) only implements the
//! primitives, so a new constraint type shows up in every renderer without touching any of them.
//! Coordinates are world metres with 3 components (z = 0 in 2D); projection is the renderer's.

use crate::body::{Body, BodyId, BodyKind, ParticleId};
use crate::constraint::ConstraintId;
use crate::force::ForceId;
use crate::point::{Point, point_position, point_velocity};

/// What a primitive stands for; renderers choose colours and widths from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Role {
    /// A particle with mass.
    Particle,
    /// A kinematic anchor (infinite mass).
    Anchor,
    /// A rigid body's outline.
    Body,
    /// A rigid rod (distance constraint).
    Rod,
    /// A spring.
    Spring,
    /// A wire, a track or a surface a point is held on.
    Wire,
    /// A nail's location.
    Nail,
    /// A joint between bodies (revolute, weld).
    Joint,
    /// The user's mouse spring.
    Mouse,
    /// An applied force vector.
    Force,
    /// A constraint force `Jᵀλ`.
    ConstraintForce,
}

/// The piece of the model that the primitives drawn next belong to (see [`Canvas::begin`]).
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum Item<'a> {
    /// A body (particle or rigid body).
    Body(BodyId),
    /// A force.
    Force(ForceId),
    /// A constraint, with its multipliers λ (one per row) when the drawing was given
    /// diagnostics. For a rod, λ < 0 is tension.
    Constraint {
        /// The constraint.
        id: ConstraintId,
        /// Its multipliers, if known.
        lambda: Option<&'a [f64]>,
    },
}

/// The drawing primitives a renderer implements.
///
/// Only the primitives are required. [`Canvas::begin`] tells a renderer which piece of the model
/// the primitives that follow belong to, for renderers that colour rods by their load or let the
/// user pick what they click on; others ignore it.
///
/// ```
/// use bead::draw::{Canvas, Item, Role};
/// use bead::{constraint::Distance, Particle, System};
///
/// /// Collects the multipliers of the rods as they are drawn.
/// #[derive(Default)]
/// struct RodLoads { current: Option<f64>, loads: Vec<f64> }
///
/// impl Canvas for RodLoads {
///     fn begin(&mut self, item: Item<'_>) {
///         self.current = match item {
///             Item::Constraint { lambda: Some(l), .. } => Some(l[0]),
///             _ => None,
///         };
///     }
///     fn line(&mut self, _: [f64; 3], _: [f64; 3], role: Role) {
///         if let (Role::Rod, Some(l)) = (role, self.current) {
///             self.loads.push(l);
///         }
///     }
///     fn disc(&mut self, _: [f64; 3], _: f64, _: Role) {}
///     fn zigzag(&mut self, _: [f64; 3], _: [f64; 3], _: Role) {}
///     fn circle(&mut self, _: [f64; 3], _: f64, _: [f64; 3], _: Role) {}
///     fn marker(&mut self, _: [f64; 3], _: Role) {}
///     fn arrow(&mut self, _: [f64; 3], _: [f64; 3], _: Role) {}
/// }
///
/// let (mut sys, _, _) = bead::models::pendulum(1.0, 0.0, 1.0)?;
/// let d = sys.diagnostics().unwrap();
/// let mut canvas = RodLoads::default();
/// sys.draw(&mut canvas, Some(&d));
/// // A bob of 1 kg hanging at rest: the rod pulls with 9.81 N (λ < 0 is tension).
/// assert!((canvas.loads[0] + 9.81).abs() < 1e-9);
/// # Ok::<(), bead::ModelError>(())
/// ```
pub trait Canvas {
    /// The primitives that follow belong to `item`, until the next call.
    fn begin(&mut self, item: Item<'_>) {
        let _ = item;
    }
    /// A filled disc (a particle).
    fn disc(&mut self, center: [f64; 3], radius: f64, role: Role);
    /// A straight segment.
    fn line(&mut self, a: [f64; 3], b: [f64; 3], role: Role);
    /// A zigzag between two points (a spring).
    fn zigzag(&mut self, a: [f64; 3], b: [f64; 3], role: Role);
    /// A circle outline of `radius` about `center`, in the plane normal to `normal`.
    fn circle(&mut self, center: [f64; 3], radius: f64, normal: [f64; 3], role: Role);
    /// A small mark at a location (an anchor, a nail).
    fn marker(&mut self, at: [f64; 3], role: Role);
    /// An arrow from `from` along `vector` (world units; renderers scale forces).
    fn arrow(&mut self, from: [f64; 3], vector: [f64; 3], role: Role);
    /// A closed polygon outline (a rigid body); by default drawn as its edges.
    fn polygon(&mut self, vertices: &[[f64; 3]], role: Role) {
        for (k, a) in vertices.iter().enumerate() {
            self.line(*a, vertices[(k + 1) % vertices.len()], role);
        }
    }
}

/// Read-only view of the state at one instant: what forces and constraints see when they
/// compute or draw.
#[derive(Clone, Copy, Debug)]
pub struct View<'a> {
    pub(crate) t: f64,
    pub(crate) dim: usize,
    pub(crate) bodies: &'a [Option<Body>],
    pub(crate) q: &'a [f64],
    pub(crate) v: &'a [f64],
}

impl View<'_> {
    /// Time, in seconds.
    pub fn time(&self) -> f64 {
        self.t
    }

    /// Dimension of the space (2 or 3).
    pub fn dim(&self) -> usize {
        self.dim
    }

    pub(crate) fn body(&self, point: &Point) -> &Body {
        match &self.bodies[point.body().0] {
            Some(b) => b,
            None => {
                unreachable!("points are checked to exist when forces and constraints are added")
            }
        }
    }

    /// World position of a point, in metres (components past the dimension are 0).
    pub fn position(&self, point: &Point) -> [f64; 3] {
        point_position(point, self.body(point), self.t, self.q)
    }

    /// World velocity of a point, in metres per second.
    pub fn velocity(&self, point: &Point) -> [f64; 3] {
        point_velocity(point, self.body(point), self.t, self.q, self.v)
    }

    /// A rigid body's angle, rad (0 for other bodies).
    pub fn angle(&self, body: BodyId) -> f64 {
        self.rotation(body, self.q)
    }

    /// A rigid body's angular velocity, rad/s (0 for other bodies).
    pub fn angular_velocity(&self, body: BodyId) -> f64 {
        self.rotation(body, self.v)
    }

    fn rotation(&self, body: BodyId, global: &[f64]) -> f64 {
        match self.bodies.get(body.0) {
            Some(Some(b)) if matches!(b.kind, BodyKind::Rigid2d { .. }) => b.slice(global)[2],
            _ => 0.0,
        }
    }

    /// Every mass point with finite mass, as (the point, its mass in kg): a particle's
    /// position, a rigid body's centre of mass, each point of a parametric object.
    pub fn masses(&self) -> impl Iterator<Item = (Point, f64)> + '_ {
        (0..self.body_slots())
            .flat_map(move |i| (0..self.mass_points(i)).filter_map(move |k| self.mass_point(i, k)))
    }

    /// Number of body slots; [`View::mass_point`] takes indices below it. Lets a force loop over
    /// bodies while adding forces, without collecting them first.
    pub fn body_slots(&self) -> usize {
        self.bodies.len()
    }

    /// Number of mass points of body slot `i`: 1 for a particle or a rigid body, one per point
    /// for a parametric object, 0 for an empty slot.
    pub fn mass_points(&self, i: usize) -> usize {
        match self.bodies.get(i) {
            Some(Some(b)) => match &b.kind {
                BodyKind::Parametric { points, .. } => points.len(),
                _ => 1,
            },
            _ => 0,
        }
    }

    /// Mass point `k` of body slot `i` and its mass (kg), if it has a finite mass.
    pub fn mass_point(&self, i: usize, k: usize) -> Option<(Point, f64)> {
        let b = self.bodies.get(i)?.as_ref()?;
        if let BodyKind::Parametric { points, .. } = &b.kind {
            let p = points.get(k)?;
            return Some((
                Point::OfObject {
                    body: BodyId(i),
                    index: k,
                },
                p.mass,
            ));
        }
        if k > 0 || !b.mass.is_finite() {
            return None;
        }
        Some((center(i, b), b.mass))
    }

    /// Draws every body: particles as discs of their radius, anchors as markers.
    pub(crate) fn draw_bodies(&self, canvas: &mut dyn Canvas) {
        for (i, body) in self.bodies.iter().enumerate() {
            let Some(body) = body else { continue };
            canvas.begin(Item::Body(BodyId(i)));
            let at = self.position(&center(i, body));
            if let BodyKind::Rigid2d { shape, .. } = &body.kind {
                self.draw_rigid(i, shape.as_ref(), canvas);
                continue;
            }
            if let BodyKind::Parametric { points, trace, .. } = &body.kind {
                self.draw_object(i, body, points, *trace, canvas);
                continue;
            }
            if body.mass.is_finite() {
                canvas.disc(at, body.radius, Role::Particle);
            } else {
                canvas.marker(at, Role::Anchor);
                if body.radius > 0.0 {
                    canvas.disc(at, body.radius, Role::Anchor);
                }
            }
        }
    }
}

impl View<'_> {
    /// A rigid body by its shape (a small marker when it has none), with a line from its centre
    /// along its x axis so that rotation shows.
    fn draw_rigid(&self, i: usize, shape: Option<&crate::body::Shape>, canvas: &mut dyn Canvas) {
        use crate::body::Shape;
        let world = |local: [f64; 2]| {
            self.position(&Point::OnBody {
                body: BodyId(i),
                local,
            })
        };
        let outline = |pts: &[[f64; 2]]| pts.iter().map(|p| world(*p)).collect::<Vec<_>>();
        match shape {
            Some(Shape::Disc { radius }) => {
                canvas.circle(world([0.0, 0.0]), *radius, [0.0, 0.0, 1.0], Role::Body);
                canvas.line(world([0.0, 0.0]), world([*radius, 0.0]), Role::Body);
            }
            Some(Shape::Box { width, height }) => {
                let (w, h) = (width / 2.0, height / 2.0);
                canvas.polygon(&outline(&[[-w, -h], [w, -h], [w, h], [-w, h]]), Role::Body);
            }
            Some(Shape::Rod { length }) => canvas.line(
                world([-length / 2.0, 0.0]),
                world([length / 2.0, 0.0]),
                Role::Body,
            ),
            Some(Shape::Polygon { vertices }) => canvas.polygon(&outline(vertices), Role::Body),
            None => canvas.marker(world([0.0, 0.0]), Role::Body),
        }
    }
}

impl View<'_> {
    /// A parametric object: the path each point of a one-coordinate object follows (its curve,
    /// over the object's drawing range of `u`), the surface each point of a two-coordinate
    /// object in 3D sweeps (a wireframe of its `u0` and `u1` lines, half a turn either side of
    /// where it is), and its points as discs. In 2D a two-coordinate object's point sweeps an
    /// area, not a curve: only the points are drawn.
    fn draw_object(
        &self,
        i: usize,
        body: &Body,
        points: &[crate::body::MassPoint],
        trace: Option<(f64, f64)>,
        canvas: &mut dyn Canvas,
    ) {
        let u = body.slice(self.q);
        if u.len() == 1 {
            let dim = self.dim;
            let pi = std::f64::consts::PI;
            let (a, b) = trace.unwrap_or((u[0] - pi, u[0] + pi));
            for p in points {
                let mut last: Option<[f64; 3]> = None;
                for s in 0..=TRACE_SEGMENTS {
                    let mut x = [0.0; 3];
                    let us = a + (b - a) * s as f64 / TRACE_SEGMENTS as f64;
                    p.position(&[us], self.t, &mut x[..dim]);
                    if let Some(prev) = last {
                        canvas.line(prev, x, Role::Wire);
                    }
                    last = Some(x);
                }
            }
        }
        if u.len() == 2 && self.dim == 3 {
            let pi = std::f64::consts::PI;
            for p in points {
                for (along, across) in [(0, 1), (1, 0)] {
                    for line in 0..GRID_LINES {
                        let fixed = u[across] - pi + 2.0 * pi * line as f64 / GRID_LINES as f64;
                        let mut last: Option<[f64; 3]> = None;
                        for s in 0..=GRID_SEGMENTS {
                            let mut at = [0.0; 2];
                            at[across] = fixed;
                            at[along] = u[along] - pi + 2.0 * pi * s as f64 / GRID_SEGMENTS as f64;
                            let mut x = [0.0; 3];
                            p.position(&at, self.t, &mut x);
                            if let Some(prev) = last {
                                canvas.line(prev, x, Role::Wire);
                            }
                            last = Some(x);
                        }
                    }
                }
            }
        }
        for k in 0..points.len() {
            let at = self.position(&Point::OfObject {
                body: BodyId(i),
                index: k,
            });
            canvas.disc(at, points[k].radius, Role::Particle);
        }
    }
}

/// Segments of a traced curve.
const TRACE_SEGMENTS: usize = 96;

/// Lines of each family, and segments per line, of a surface's wireframe.
const GRID_LINES: usize = 12;
const GRID_SEGMENTS: usize = 48;

/// The point that stands for body `i` (its centre of mass; an object's first point).
pub(crate) fn center(i: usize, body: &Body) -> Point {
    match body.kind {
        BodyKind::Particle => Point::Particle(ParticleId(BodyId(i))),
        BodyKind::Rigid2d { .. } => Point::OnBody {
            body: BodyId(i),
            local: [0.0, 0.0],
        },
        BodyKind::Parametric { .. } => Point::OfObject {
            body: BodyId(i),
            index: 0,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::constraint::{Distance, Nail};
    use crate::force::{Gravity, Spring};
    use crate::{Particle, System};

    /// Records the primitives drawn, by kind and role.
    #[derive(Default)]
    struct Record(Vec<(&'static str, Role)>);

    impl Canvas for Record {
        fn disc(&mut self, _: [f64; 3], _: f64, role: Role) {
            self.0.push(("disc", role));
        }
        fn line(&mut self, _: [f64; 3], _: [f64; 3], role: Role) {
            self.0.push(("line", role));
        }
        fn zigzag(&mut self, _: [f64; 3], _: [f64; 3], role: Role) {
            self.0.push(("zigzag", role));
        }
        fn circle(&mut self, _: [f64; 3], _: f64, _: [f64; 3], role: Role) {
            self.0.push(("circle", role));
        }
        fn marker(&mut self, _: [f64; 3], role: Role) {
            self.0.push(("marker", role));
        }
        fn arrow(&mut self, _: [f64; 3], _: [f64; 3], role: Role) {
            self.0.push(("arrow", role));
        }
    }

    /// Each piece of a model draws itself once, and constraint forces are arrows on the moving
    /// bodies only.
    #[test]
    fn a_model_draws_each_piece() {
        let mut sys = System::new(2).unwrap();
        let a = sys.add_particle(Particle::anchor(&[0.0, 0.0])).unwrap();
        let b = sys
            .add_particle(Particle::new(&[1.0, 0.0]).radius(0.1))
            .unwrap();
        let c = sys.add_particle(Particle::new(&[2.0, 0.0])).unwrap();
        sys.add_force(Gravity::new(&[0.0, -9.81])).unwrap();
        sys.add_force(Spring::new(b, c, 10.0, 0.0, 1.0)).unwrap();
        sys.add_constraint(Distance::new(a, b, 1.0)).unwrap();
        sys.add_constraint(Nail::new(c, &[2.0, 0.0])).unwrap();
        let d = sys.diagnostics().unwrap();
        let mut rec = Record::default();
        sys.draw(&mut rec, Some(&d));
        let count = |kind: &str, role: Role| {
            rec.0
                .iter()
                .filter(|&&(k, r)| k == kind && r == role)
                .count()
        };
        assert_eq!(count("zigzag", Role::Spring), 1);
        assert_eq!(count("line", Role::Rod), 1);
        assert_eq!(count("marker", Role::Nail), 1);
        assert_eq!(count("marker", Role::Anchor), 1);
        assert_eq!(count("disc", Role::Particle), 2);
        // Rod on b, nail on c (the anchor end of the rod is not drawn).
        assert_eq!(count("arrow", Role::ConstraintForce), 2);
    }

    /// A rod from a particle to a parametric object's point draws its force on the particle only
    /// (the object's share is a generalized force on u; it panicked, read as a position).
    #[test]
    fn constraint_forces_skip_parametric_objects() {
        let mut sys = System::new(2).unwrap();
        let ring = sys
            .add_parametric(crate::primitives::circle([0.0, 0.0], 1.0, 1.0, 0.3))
            .unwrap();
        let bead = sys.parametric_point(ring, "bead").unwrap();
        let bob = sys.add_particle(Particle::new(&[0.3, -1.5])).unwrap();
        sys.add_force(Gravity::new(&[0.0, -9.81])).unwrap();
        sys.add_constraint(Distance::new(bead, Point::from(bob), 1.2))
            .unwrap();
        let d = sys.diagnostics().unwrap();
        let mut rec = Record::default();
        sys.draw(&mut rec, Some(&d));
        let arrows = rec
            .0
            .iter()
            .filter(|&&(k, r)| k == "arrow" && r == Role::ConstraintForce)
            .count();
        assert_eq!(arrows, 1);
    }

    /// A point on a sphere draws the sphere: a wireframe whose every vertex lies on it.
    #[test]
    fn a_surface_object_draws_its_wireframe() {
        #[derive(Default)]
        struct Wires(Vec<[f64; 3]>);
        impl Canvas for Wires {
            fn disc(&mut self, _: [f64; 3], _: f64, _: Role) {}
            fn line(&mut self, a: [f64; 3], b: [f64; 3], role: Role) {
                if role == Role::Wire {
                    self.0.extend([a, b]);
                }
            }
            fn zigzag(&mut self, _: [f64; 3], _: [f64; 3], _: Role) {}
            fn circle(&mut self, _: [f64; 3], _: f64, _: [f64; 3], _: Role) {}
            fn marker(&mut self, _: [f64; 3], _: Role) {}
            fn arrow(&mut self, _: [f64; 3], _: [f64; 3], _: Role) {}
        }
        let mut sys = System::new(3).unwrap();
        sys.add_parametric(crate::primitives::sphere(
            [0.0, 0.0, 1.0],
            0.5,
            1.0,
            [1.0, 0.3],
        ))
        .unwrap();
        let mut wires = Wires::default();
        sys.draw(&mut wires, None);
        assert_eq!(wires.0.len(), 2 * 2 * GRID_LINES * GRID_SEGMENTS);
        for x in &wires.0 {
            let r = (x[0] * x[0] + x[1] * x[1] + (x[2] - 1.0).powi(2)).sqrt();
            assert!((r - 0.5).abs() < 1e-12, "{x:?}");
        }
    }
}
