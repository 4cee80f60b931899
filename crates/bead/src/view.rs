//! [`View`]: the state at one instant as forces and constraints read it (time, point positions
//! and velocities, masses), and as they draw themselves.

use crate::body::chart::Chart;
use crate::body::{Body, BodyId, BodyKind, ParticleId};
use crate::error::ModelError;
use crate::point::{Point, point_position, point_velocity};

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

    /// The coordinates `[x, y, θ]` of `body`, which must be a rigid body (for constraints that
    /// read their constants from the state they start in, as gears do).
    pub(crate) fn rigid_coordinates(&self, body: BodyId) -> Result<&[f64], ModelError> {
        match self.bodies.get(body.0) {
            Some(Some(b)) if matches!(b.kind, BodyKind::Rigid2d { .. }) => Ok(b.slice(self.q)),
            Some(Some(_)) => Err(ModelError::Constraint(format!(
                "{body:?} is a particle; gears and racks are rigid bodies"
            ))),
            _ => Err(ModelError::UnknownBody(body)),
        }
    }

    /// A rigid body's angle, rad (0 for other bodies).
    pub fn angle(&self, body: BodyId) -> f64 {
        self.rotation(body, self.q)
    }

    /// A rigid body's angular velocity, rad/s (0 for other bodies).
    pub fn angular_velocity(&self, body: BodyId) -> f64 {
        self.rotation(body, self.v)
    }

    /// A 3D rigid body's orientation, a unit quaternion `[w, x, y, z]`; `None` for other
    /// bodies.
    pub fn orientation(&self, body: BodyId) -> Option<[f64; 4]> {
        let (b, chart) = self.rigid_3d(body)?;
        let q = b.slice(self.q);
        Some(chart.orientation(&[q[3], q[4], q[5]]))
    }

    /// A 3D rigid body's angular velocity ω and angular momentum `I_w ω` about its centre of
    /// mass, world frame (rad/s, kg·m²/s); `None` for other bodies.
    pub fn spin(&self, body: BodyId) -> Option<([f64; 3], [f64; 3])> {
        let (b, chart) = self.rigid_3d(body)?;
        let (l, w) = chart.angular_state(b.slice(self.q), b.slice(self.v));
        Some((w, l))
    }

    /// Body `body` and its chart, if it is a 3D rigid body.
    fn rigid_3d(&self, body: BodyId) -> Option<(&Body, &Chart)> {
        let b = self.bodies.get(body.0)?.as_ref()?;
        match &b.kind {
            BodyKind::Rigid3d { chart, .. } => Some((b, chart)),
            _ => None,
        }
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
}

/// The point that stands for body `i` (its centre of mass; an object's first point).
pub(crate) fn center(i: usize, body: &Body) -> Point {
    match body.kind {
        BodyKind::Particle => Point::Particle(ParticleId(BodyId(i))),
        BodyKind::Rigid2d { .. } => Point::OnBody {
            body: BodyId(i),
            local: [0.0, 0.0],
        },
        BodyKind::Rigid3d { .. } => Point::OnBody3d {
            body: BodyId(i),
            local: [0.0; 3],
        },
        BodyKind::Parametric { .. } => Point::OfObject {
            body: BodyId(i),
            index: 0,
        },
    }
}
