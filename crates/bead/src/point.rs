//! Points: what constraints and forces act on — particles, points of rigid
//! bodies and points of parametric objects alike, which is what makes hybrid models possible.
//!
//! A constraint written on world points works on any body kind by the chain rule
//! (seed 000 §5.1; Witkin, Gleicher & Welch 1990). For a point `x(q_b)` of body `b`:
//!
//! ```text
//! ẋ = P q̇_b                     P = ∂x/∂q_b            (the point's Jacobian block)
//! ẍ = P q̈_b + a_vp              a_vp = (∂²x/∂q_b²)(q̇_b, q̇_b)   (velocity-product term)
//! ```
//!
//! so a constraint that knows its gradient `G = ∂C/∂x` contributes `J_b = G P` to the Jacobian and
//! `G a_vp` to `J̇q̇`. For a particle `P = I` and `a_vp = 0`; for a rigid-body anchor
//! `P = [I | ∂(R r)/∂θ]` and `a_vp = −ω² R r`; for a point of a parametric object `P = ∂x/∂u`
//! and `a_vp` its velocity-product term, from dual numbers ([`crate::Parametric`]), with
//! `ẋ = P u̇ + ∂x/∂t` when the object moves by itself. Forces applied at a point reach the body
//! as `Pᵀ f`.

use crate::body::{Body, BodyId, BodyKind, ParticleId, PointMotion};
use crate::math::vector::{Vec3, copy, to_vec3};

/// A point of the model that constraints and forces can refer to.
///
/// ```
/// use bead::{Particle, Point, RigidBody, System};
/// let mut sys = System::new(2)?;
/// let p = sys.add_particle(Particle::new(&[0.0, 1.0]))?;
/// let arm = sys.add_rigid_body(RigidBody::new(&[0.0, 0.0], std::f64::consts::FRAC_PI_2))?;
/// assert_eq!(Point::from(p).body(), p.body());
/// // The end of the arm, half a metre along its own x axis: (0, 0.5) once turned by 90°.
/// let tip = sys.point_position(&Point::on_body(arm, [0.5, 0.0]))?;
/// assert!(tip[0].abs() < 1e-12 && (tip[1] - 0.5).abs() < 1e-12);
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum Point {
    /// A particle's position.
    Particle(ParticleId),
    /// A point fixed in a rigid body, at `local` metres from its centre of mass in the body's frame.
    OnBody {
        /// The body.
        body: BodyId,
        /// Position in the body's frame, m.
        local: [f64; 2],
    },
    /// A point fixed in a 3D rigid body, at `local` metres from its centre of mass in the
    /// body's frame.
    OnBody3d {
        /// The body.
        body: BodyId,
        /// Position in the body's frame, m.
        local: [f64; 3],
    },
    /// A mass point of a parametric object (see
    /// [`System::parametric_point`](crate::System::parametric_point)).
    OfObject {
        /// The object.
        body: BodyId,
        /// The point's index in the object's list.
        index: usize,
    },
}

impl Point {
    /// The point of `body` at `local` in its frame.
    pub fn on_body(body: impl Into<BodyId>, local: [f64; 2]) -> Point {
        Point::OnBody {
            body: body.into(),
            local,
        }
    }

    /// The point of a 3D rigid body at `local` in its frame.
    ///
    /// ```
    /// use bead::{Point, RigidBody3d, System};
    /// let mut sys = System::new(3)?;
    /// // Turned by 90° about z: the body's x axis points along the world's y.
    /// let s = std::f64::consts::FRAC_1_SQRT_2;
    /// let arm = sys.add_rigid_body_3d(RigidBody3d::new([0.0, 0.0, 1.0]).orientation([s, 0.0, 0.0, s]))?;
    /// let tip = sys.point_position(&Point::on_body_3d(arm, [0.5, 0.0, 0.0]))?;
    /// assert!(tip[0].abs() < 1e-12 && (tip[1] - 0.5).abs() < 1e-12 && (tip[2] - 1.0).abs() < 1e-12);
    /// # Ok::<(), bead::ModelError>(())
    /// ```
    pub fn on_body_3d(body: impl Into<BodyId>, local: [f64; 3]) -> Point {
        Point::OnBody3d {
            body: body.into(),
            local,
        }
    }

    /// The body whose coordinates move this point.
    pub fn body(&self) -> BodyId {
        match self {
            Point::Particle(p) => p.body(),
            Point::OnBody { body, .. }
            | Point::OnBody3d { body, .. }
            | Point::OfObject { body, .. } => *body,
        }
    }
}

impl From<ParticleId> for Point {
    fn from(p: ParticleId) -> Self {
        Point::Particle(p)
    }
}

/// Something a constraint depends on.
///
/// Constraints on positions depend on points; constraints on angles (motors, gears) depend on a
/// body's own coordinates (`[x, y, θ]` for a rigid body).
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum Operand {
    /// A world point; its coordinates are its position (length = the system's dimension).
    Point(Point),
    /// A body's generalized coordinates, as they are.
    Coordinates(BodyId),
}

impl Operand {
    /// The body this operand belongs to.
    pub fn body(&self) -> BodyId {
        match self {
            Operand::Point(p) => p.body(),
            Operand::Coordinates(b) => *b,
        }
    }
}

impl From<Point> for Operand {
    fn from(p: Point) -> Self {
        Operand::Point(p)
    }
}

impl From<ParticleId> for Operand {
    fn from(p: ParticleId) -> Self {
        Operand::Point(Point::Particle(p))
    }
}

/// Number of coordinates an operand presents to its constraint.
pub(crate) fn operand_size(op: &Operand, dim: usize, body_ndof: usize) -> usize {
    match op {
        Operand::Point(_) => dim,
        Operand::Coordinates(_) => body_ndof,
    }
}

/// Buffers receiving one operand's kinematics at a state.
pub(crate) struct OperandKinematics<'a> {
    /// Coordinates (`k`).
    pub x: &'a mut [f64],
    /// Velocity (`k`).
    pub v: &'a mut [f64],
    /// `∂x/∂q_b`, row-major `k × ndof`.
    pub jacobian: &'a mut [f64],
    /// Velocity-product term `(∂²x/∂q_b²)(q̇_b, q̇_b)` (`k`).
    pub velocity_product: &'a mut [f64],
}

/// A point's kinematics: position, velocity, Jacobian block (row-major `dim × ndof`, at most
/// 3 × 6) and velocity-product term.
pub(crate) struct PointKinematics {
    pub x: Vec3,
    pub v: Vec3,
    pub jacobian: [f64; 18],
    pub velocity_product: Vec3,
}

/// Kinematics of a particle's or a rigid-body point on `body` at `(q, q̇)`.
///
/// For a rigid-body point with `d = R(θ) r`: `x = p + d`, `ẋ = ṗ + ω × d`,
/// `P = [[1, 0, −d_y], [0, 1, d_x]]`, `a_vp = −ω² d`.
fn point_kinematics(point: &Point, body: &Body, q: &[f64], v: &[f64]) -> PointKinematics {
    let (qb, vb) = (body.slice(q), body.slice(v));
    match (point, &body.kind) {
        (Point::OnBody { local, .. }, BodyKind::Rigid2d { .. }) => {
            let (s, c) = qb[2].sin_cos();
            let d = [c * local[0] - s * local[1], s * local[0] + c * local[1]];
            let w = vb[2];
            PointKinematics {
                x: [qb[0] + d[0], qb[1] + d[1], 0.0],
                v: [vb[0] - w * d[1], vb[1] + w * d[0], 0.0],
                jacobian: pad([1.0, 0.0, -d[1], 0.0, 1.0, d[0]]),
                velocity_product: [-w * w * d[0], -w * w * d[1], 0.0],
            }
        }
        (Point::OnBody3d { local, .. }, BodyKind::Rigid3d { chart, .. }) => {
            let k = chart.point(qb, vb, local);
            PointKinematics {
                x: k.x,
                v: k.v,
                jacobian: k.jacobian,
                velocity_product: k.velocity_product,
            }
        }
        // A particle's point, or (checked never to happen when points are added) a body-frame point
        // on a body without a frame: the body's own position.
        _ => {
            let n = body.ndof.min(3);
            let mut jacobian = [0.0; 18];
            for i in 0..n {
                jacobian[i * n + i] = 1.0;
            }
            PointKinematics {
                x: to_vec3(&qb[..n]),
                v: to_vec3(&vb[..n]),
                jacobian,
                velocity_product: [0.0; 3],
            }
        }
    }
}

/// A 2 × 3 Jacobian block in the 18 entries of [`PointKinematics::jacobian`].
fn pad(block: [f64; 6]) -> [f64; 18] {
    let mut out = [0.0; 18];
    out[..6].copy_from_slice(&block);
    out
}

/// The mass point a parametric point names, if it is one.
fn object_point<'a>(point: &Point, body: &'a Body) -> Option<&'a crate::body::MassPoint> {
    match (point, &body.kind) {
        (Point::OfObject { index, .. }, BodyKind::Parametric { points, .. }) => points.get(*index),
        _ => None,
    }
}

/// Writes a parametric point's full motion, with `jacobian` of `dim × ndof` entries.
fn object_motion(
    p: &crate::body::MassPoint,
    body: &Body,
    t: f64,
    q: &[f64],
    v: &[f64],
    out: PointMotion<'_>,
) {
    p.motion(body.slice(q), body.slice(v), t, out);
}

/// `Σ_k g_k ∂²x_k/∂q_b²` of an operand at coordinates `x`, for a weighted gradient `g`: the
/// curvature the chain rule adds to a constraint's Hessian in body coordinates, given to
/// `add(r, s, value)` per entry of the body's block. A point on a rigid body is curved along its
/// angle only: `∂²x/∂θ² = −R(θ) r = −(x − p)`; a parametric point wherever `x(u)` is; particles
/// and a body's own coordinates are linear.
pub(crate) fn curvature(
    op: &Operand,
    body: &Body,
    t: f64,
    q: &[f64],
    x: &[f64],
    g: &[f64],
    mut add: impl FnMut(usize, usize, f64),
) {
    match (op, &body.kind) {
        (Operand::Point(Point::OnBody { .. }), BodyKind::Rigid2d { .. }) => {
            let p = body.slice(q);
            add(2, 2, -(g[0] * (x[0] - p[0]) + g[1] * (x[1] - p[1])));
        }
        (Operand::Point(point), BodyKind::Parametric { .. }) => {
            if let Some(p) = object_point(point, body) {
                p.add_curvature(body.slice(q), t, g, add);
            }
        }
        (Operand::Point(Point::OnBody3d { local, .. }), BodyKind::Rigid3d { chart, .. }) => {
            chart.add_curvature(body.slice(q), local, g, add);
        }
        _ => {}
    }
}

/// Whether `point` can live on `body` (a body-frame point needs a rigid body, an object's point
/// an object with that many points).
pub(crate) fn point_fits(point: &Point, body: &Body) -> bool {
    match (point, &body.kind) {
        (Point::Particle(_), BodyKind::Particle)
        | (Point::OnBody { .. }, BodyKind::Rigid2d { .. })
        | (Point::OnBody3d { .. }, BodyKind::Rigid3d { .. }) => true,
        (Point::OfObject { index, .. }, BodyKind::Parametric { points, .. }) => {
            *index < points.len()
        }
        _ => false,
    }
}

/// Writes an operand's coordinates, velocity, Jacobian block and velocity-product term at
/// `(t, q, q̇)`.
pub(crate) fn write_operand(
    op: &Operand,
    body: &Body,
    t: f64,
    q: &[f64],
    v: &[f64],
    out: OperandKinematics<'_>,
) {
    match op {
        Operand::Point(point) => {
            if let Some(p) = object_point(point, body) {
                object_motion(
                    p,
                    body,
                    t,
                    q,
                    v,
                    PointMotion {
                        x: out.x,
                        v: out.v,
                        jacobian: out.jacobian,
                        velocity_product: out.velocity_product,
                    },
                );
                return;
            }
            let k = point_kinematics(point, body, q, v);
            let n = out.x.len();
            copy(out.x, &k.x[..n]);
            copy(out.v, &k.v[..n]);
            out.jacobian.copy_from_slice(&k.jacobian[..n * body.ndof]);
            copy(out.velocity_product, &k.velocity_product[..n]);
        }
        Operand::Coordinates(_) => {
            copy(out.x, body.slice(q));
            copy(out.v, body.slice(v));
            let n = body.ndof;
            out.jacobian.fill(0.0);
            for i in 0..n {
                out.jacobian[i * n + i] = 1.0;
            }
            out.velocity_product.fill(0.0);
        }
    }
}

/// `∂x/∂t` of an operand whose body moves it by itself (a parametric object written in `t`);
/// `None` for every other operand, whose points move only with their body's coordinates.
pub(crate) fn operand_time_rate(
    op: &Operand,
    body: &Body,
    t: f64,
    q: &[f64],
    out: &mut [f64],
) -> bool {
    match op {
        Operand::Point(point) => match object_point(point, body) {
            Some(p) => {
                p.time_rate(body.slice(q), t, out);
                true
            }
            None => false,
        },
        Operand::Coordinates(_) => false,
    }
}

/// World position of a point at `(t, q)`.
pub(crate) fn point_position(point: &Point, body: &Body, t: f64, q: &[f64]) -> Vec3 {
    if let Some(p) = object_point(point, body) {
        let mut x = [0.0; 3];
        let dim = space_dim(body);
        p.position(body.slice(q), t, &mut x[..dim]);
        return x;
    }
    point_kinematics(point, body, q, q).x
}

/// The dimension of an object's points (its mass block is `ndof`, its points live in space).
fn space_dim(body: &Body) -> usize {
    match &body.kind {
        BodyKind::Parametric { dim, .. } => *dim,
        _ => body.ndof.min(3),
    }
}

/// Most `dim × ndof` Jacobian entries of a parametric point handled without allocating.
const INLINE_JACOBIAN: usize = 48;

/// Runs `f` with a parametric point's Jacobian `∂x/∂u` (row-major `dim × ndof`) at `(t, q)`.
fn with_object_jacobian<R>(
    p: &crate::body::MassPoint,
    body: &Body,
    t: f64,
    q: &[f64],
    f: impl FnOnce(&[f64]) -> R,
) -> R {
    let dim = space_dim(body);
    let (mut x, mut xd, mut a) = ([0.0; 3], [0.0; 3], [0.0; 3]);
    let mut inline = [0.0; INLINE_JACOBIAN];
    let mut heap = Vec::new();
    let jacobian: &mut [f64] = if dim * body.ndof <= INLINE_JACOBIAN {
        &mut inline[..dim * body.ndof]
    } else {
        heap.resize(dim * body.ndof, 0.0);
        &mut heap
    };
    // Velocities do not enter J: any will do.
    object_motion(
        p,
        body,
        t,
        q,
        q,
        PointMotion {
            x: &mut x[..dim],
            v: &mut xd[..dim],
            jacobian: &mut *jacobian,
            velocity_product: &mut a[..dim],
        },
    );
    f(jacobian)
}

/// World velocity of a point at `(t, q, q̇)`.
pub(crate) fn point_velocity(point: &Point, body: &Body, t: f64, q: &[f64], v: &[f64]) -> Vec3 {
    if let Some(p) = object_point(point, body) {
        let mut xd = [0.0; 3];
        p.velocity(body.slice(q), body.slice(v), t, &mut xd[..space_dim(body)]);
        return xd;
    }
    point_kinematics(point, body, q, v).v
}

/// Writes a point's Jacobian `P = ∂x/∂q_b` on its body (row-major `dim × ndof`) at `(t, q)`.
pub(crate) fn point_jacobian(point: &Point, body: &Body, t: f64, q: &[f64], out: &mut [f64]) {
    if let Some(p) = object_point(point, body) {
        with_object_jacobian(p, body, t, q, |j| out.copy_from_slice(j));
        return;
    }
    let n = out.len();
    out.copy_from_slice(&point_kinematics(point, body, q, q).jacobian[..n]);
}

/// Adds a world force `f` acting at a point to the generalized force `Q` (as `Pᵀ f`).
pub(crate) fn add_point_force(
    point: &Point,
    body: &Body,
    t: f64,
    q: &[f64],
    f: &[f64],
    big_q: &mut [f64],
) {
    if matches!(point, Point::Particle(_)) && matches!(body.kind, BodyKind::Particle) {
        // A particle's point is its coordinates: the force is the generalized force.
        for (qi, fi) in body.slice_mut(big_q).iter_mut().zip(f) {
            *qi += fi;
        }
        return;
    }
    let n = body.ndof;
    let dim = f.len();
    let mut add = |jacobian: &[f64]| {
        for (col, qi) in body.slice_mut(big_q).iter_mut().enumerate() {
            *qi += (0..dim).map(|r| jacobian[r * n + col] * f[r]).sum::<f64>();
        }
    };
    if let Some(p) = object_point(point, body) {
        with_object_jacobian(p, body, t, q, add);
        return;
    }
    add(&point_kinematics(point, body, q, q).jacobian);
}
