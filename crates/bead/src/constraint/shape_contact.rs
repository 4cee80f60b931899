//! Contact between two 2D shapes at one point of their manifold: a non-penetration row and,
//! with friction, a Coulomb row (issue 29; seed 004's inequality `g ≥ 0` with the friction cone
//! `|λ_t| ≤ μ λ_n` of [`Friction`]).
//!
//! The narrow phase names the pair of features that touch, as points fixed in the bodies (their
//! *cores*: a disc's centre, a capsule's segment end, a polygon's vertex, each swept by its
//! radius `r`). The gap is then an exact function of the two bodies' coordinates, smooth while
//! the same features touch:
//!
//! ```text
//! round against round   g = |c_a − c_b| − (r_a + r_b),        n = (c_a − c_b)/|c_a − c_b|
//! point against a face  g = n·(c_a − c_b) − (r_a + r_b),      n = R(θ_b) ν   (ν: the face's normal in b)
//! ```
//!
//! with `c = x + R(θ) ρ` a core point. Under the implicit steppers two round features are held
//! along the normal `n₀` of the step's start instead, `g = n₀·(c_a − c_b) − (r_a + r_b)`
//! ([`ConstraintEval::step_start`](super::ConstraintEval::step_start)): a pile's heavy contacts
//! then put no curvature of the normal into Newton's matrix, a disc cannot cross another within a
//! step, and the true gap is never below the held one. `n` points from `b` to `a`, so λ_n ≥ 0 pushes `a` along
//! `n`. The friction row holds the contact points' relative tangential speed,
//! `Ċ_t = t·(v_a(s_a) − v_b(s_b))`, `t` the normal turned +90° and `s = c ∓ r n` the two surface
//! points, as points of their bodies; its λ_t is the friction force on `a` along `t`.
//!
//! Derivatives, with `⊥(x, y) = (−y, x)` and `ρ = R ρ_local`:
//!
//! ```text
//! ∂g/∂x_a = n      ∂g/∂θ_a = n·⊥ρ_a      ∂g/∂x_b = −n      ∂g/∂θ_b = −n·⊥ρ_b (+ ⊥n·d for a face of b)
//! J̇q̇ = n·(ω_b² ρ_b − ω_a² ρ_a) + |ḋ − (n·ḋ) n|²/|d|                        (round)
//! J̇q̇ = n·(ω_b² ρ_b − ω_a² ρ_a) − ω_b² n·d + 2 ω_b ⊥n·ḋ                     (face of b)
//! ```
//!
//! `d = c_a − c_b`. A particle is a disc of its radius whose core is its position (no angle).
//!
//! The geometric stiffness `Σ λ_r ∂²C_r/∂q²` the implicit steppers take is recovered exactly
//! from `J̇q̇`, a quadratic form in `q̇` (see [`polarized_hessian`](super::polarized_hessian)),
//! over a [`Frame`] of positions computed once rather than once per velocity.

use super::{
    Constraint, ConstraintError, ConstraintEval, ConstraintKind, Friction, HessianEval,
    InvalidParameter, polarize_quadratic,
};
use crate::draw::{Canvas, Element};
use crate::point::Operand;
use crate::view::View;

/// Which features of the two shapes touch, as core points in each body's frame.
///
/// ```
/// use bead::constraint::Gap;
/// // A disc's centre above a floor's top face, whose outward normal is +y in the floor's frame.
/// let gap = Gap::Face { a: [0.0, 0.0], b: [0.0, 0.5], normal: [0.0, 1.0] };
/// assert!(matches!(gap, Gap::Face { .. }));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Gap {
    /// Two round features (discs, capsule ends, vertices): the distance between their cores.
    Round {
        /// Core point of `a`, in `a`'s frame, m.
        a: [f64; 2],
        /// Core point of `b`, in `b`'s frame, m.
        b: [f64; 2],
    },
    /// A point of `a` against a flat face of `b`.
    Face {
        /// Core point of `a`, in `a`'s frame, m.
        a: [f64; 2],
        /// A point of the face's core, in `b`'s frame, m.
        b: [f64; 2],
        /// The face's outward unit normal, in `b`'s frame.
        normal: [f64; 2],
    },
}

/// Two shapes in contact at one point: `g ≥ 0` and, with friction, `|λ_t| ≤ μ λ_n`.
///
/// Contact groups ([`System::add_shape_contacts`](crate::System::add_shape_contacts)) make
/// these from the narrow phase at every step; a model can also hold one by hand.
///
/// ```
/// use bead::constraint::{Gap, ShapeContact};
/// use bead::{force::Gravity, Particle, RigidBody, Shape, System};
/// let mut sys = System::new(2)?;
/// let floor = sys.add_rigid_body(RigidBody::new(&[0.0, -0.5], 0.0).fixed())?;
/// let ball = sys.add_particle(Particle::new(&[0.0, 0.1]).radius(0.1))?;
/// let gap = Gap::Face { a: [0.0, 0.0], b: [0.0, 0.5], normal: [0.0, 1.0] };
/// let contact = ShapeContact::new(ball, floor, gap, [0.1, 0.0]).friction(0.5);
/// let id = sys.add_constraint(contact)?;
/// sys.add_force(Gravity::new(&[0.0, -9.81]))?;
/// sys.step(1e-3).unwrap();
/// let lambda = sys.diagnostics().unwrap().constraint(id).unwrap().lambda.clone();
/// assert!((lambda[0] - 9.81).abs() < 1e-9 && lambda[1].abs() < 1e-12);
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Debug)]
pub struct ShapeContact {
    operands: [Operand; 2],
    gap: Gap,
    radii: [f64; 2],
    friction: f64,
}

impl ShapeContact {
    /// The contact of body (or particle) `a` with `b` at the features `gap`, whose cores are
    /// swept by `radii` (`[r_a, r_b]`, 0 for a polygon's vertex or face). Frictionless until
    /// [`ShapeContact::friction`].
    pub fn new(
        a: impl Into<ContactBody>,
        b: impl Into<ContactBody>,
        gap: Gap,
        radii: [f64; 2],
    ) -> Self {
        ShapeContact {
            operands: [a.into().0, b.into().0],
            gap,
            radii,
            friction: 0.0,
        }
    }

    /// Coulomb friction with coefficient `mu`: adds the row of the tangential force.
    pub fn friction(mut self, mu: f64) -> Self {
        self.friction = mu;
        self
    }

    /// The Coulomb coefficient (0: frictionless).
    pub fn coefficient(&self) -> f64 {
        self.friction
    }

    /// Moves the contact to new features (the narrow phase's, at the next step): the rows stay
    /// the same, so the multipliers carry over as a warm start.
    pub fn set_gap(&mut self, gap: Gap, radii: [f64; 2]) {
        self.gap = gap;
        self.radii = radii;
    }

    /// The features in contact.
    pub fn gap(&self) -> Gap {
        self.gap
    }
}

/// A body that takes part in a shape contact: a rigid body (its coordinates `x, y, θ`) or a
/// particle (its position).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactBody(pub(crate) Operand);

impl From<crate::BodyId> for ContactBody {
    fn from(b: crate::BodyId) -> Self {
        ContactBody(Operand::Coordinates(b))
    }
}

impl From<crate::RigidBodyId> for ContactBody {
    fn from(b: crate::RigidBodyId) -> Self {
        ContactBody(Operand::Coordinates(b.body()))
    }
}

impl From<crate::RigidBody3dId> for ContactBody {
    fn from(b: crate::RigidBody3dId) -> Self {
        ContactBody(Operand::Coordinates(b.body()))
    }
}

impl From<crate::ParticleId> for ContactBody {
    fn from(p: crate::ParticleId) -> Self {
        ContactBody(p.into())
    }
}

/// One side's kinematics: its core point's offset `ρ = R ρ_local` from the body's position,
/// the core point, and the body's velocity and angular velocity.
struct Side {
    rho: [f64; 2],
    core: [f64; 2],
    v: [f64; 2],
    omega: f64,
}

fn perp(x: [f64; 2]) -> [f64; 2] {
    [-x[1], x[0]]
}

fn dot(a: [f64; 2], b: [f64; 2]) -> f64 {
    a[0] * b[0] + a[1] * b[1]
}

fn rotate(angle: f64, x: [f64; 2]) -> [f64; 2] {
    let (s, c) = angle.sin_cos();
    [c * x[0] - s * x[1], s * x[0] + c * x[1]]
}

/// The unit normal from `b`'s core to `a`'s at the step's start, where the stepper holds
/// contacts along it (see [`ConstraintEval::step_start`]).
fn start_normal(
    start: [Option<&[f64]>; 2],
    local_a: [f64; 2],
    local_b: [f64; 2],
) -> Result<Option<[f64; 2]>, ConstraintError> {
    let [Some(a), Some(b)] = start else {
        return Ok(None);
    };
    let core = |x: &[f64], local: [f64; 2]| {
        let rho = rotate(if x.len() > 2 { x[2] } else { 0.0 }, local);
        [x[0] + rho[0], x[1] + rho[1]]
    };
    let (ca, cb) = (core(a, local_a), core(b, local_b));
    let d = [ca[0] - cb[0], ca[1] - cb[1]];
    let len = dot(d, d).sqrt();
    if !(len > 0.0) {
        return Err(ConstraintError::new(
            "the two round features' centres coincided at the step's start: no contact normal",
        ));
    }
    Ok(Some([d[0] / len, d[1] / len]))
}

/// One side's pose: what [`Side`] takes from positions alone.
#[derive(Clone, Copy)]
struct Pose {
    rho: [f64; 2],
    core: [f64; 2],
    angle: f64,
}

fn pose(x: &[f64], local: [f64; 2]) -> Pose {
    let angle = if x.len() > 2 { x[2] } else { 0.0 };
    let rho = rotate(angle, local);
    Pose {
        rho,
        core: [x[0] + rho[0], x[1] + rho[1]],
        angle,
    }
}

fn side(pose: &Pose, v: &[f64]) -> Side {
    Side {
        rho: pose.rho,
        core: pose.core,
        v: [v[0], v[1]],
        omega: if v.len() > 2 { v[2] } else { 0.0 },
    }
}

/// A contact's rows at one configuration, all but the velocities: its two poses, the normal of
/// the step's start if held, a face's turned normal. The geometric stiffness polarizes `J̇ẋ`
/// over 21 velocities at one configuration (see [`polarize_quadratic`]); computed once, the rotations
/// are not taken again for each (they were a fifth of a resting pyramid's step).
struct Frame {
    a: Pose,
    b: Pose,
    sizes: [usize; 2],
    held: Option<[f64; 2]>,
    face_normal: Option<[f64; 2]>,
}

/// What the rows are at a configuration and velocity.
struct Rows {
    /// The normal row's gap, `J̇ẋ` and gradients.
    g: f64,
    jdot: f64,
    grad_a: [f64; 3],
    grad_b: [f64; 3],
    /// The friction row's `J̇ẋ` and gradients, with friction.
    friction: Option<(f64, [f64; 3], [f64; 3])>,
}

impl Side {
    /// The velocity of the body's material point at `offset` from its position.
    fn velocity_at(&self, offset: [f64; 2]) -> [f64; 2] {
        let w = perp(offset);
        [self.v[0] + self.omega * w[0], self.v[1] + self.omega * w[1]]
    }

    /// The row's gradient with respect to this side's coordinates, for a force direction `n`
    /// applied at `offset` (sign included in `n`).
    fn gradient(&self, n: [f64; 2], offset: [f64; 2], size: usize) -> [f64; 3] {
        let mut g = [n[0], n[1], 0.0];
        if size > 2 {
            g[2] = dot(n, perp(offset));
        }
        g
    }
}

impl Constraint for ShapeContact {
    fn rows(&self, _dim: usize) -> usize {
        if self.friction > 0.0 { 2 } else { 1 }
    }

    fn operands(&self) -> Vec<Operand> {
        self.operands.to_vec()
    }

    fn kind(&self) -> ConstraintKind {
        ConstraintKind::Inequality
    }

    fn row_kind(&self, row: usize) -> ConstraintKind {
        Friction::contact_row_kind(row)
    }

    fn friction(&self, row: usize) -> Option<Friction> {
        Friction::of_contact(row, self.friction)
    }

    fn draw(&self, view: &View<'_>, canvas: &mut dyn Canvas) {
        let coordinates = |op: &Operand| -> Option<Vec<f64>> {
            match op {
                Operand::Coordinates(b) => view.rigid_coordinates(*b).ok().map(<[f64]>::to_vec),
                Operand::Point(p) => Some(view.position(p)[..2].to_vec()),
            }
        };
        let (Some(xa), Some(xb)) = (
            coordinates(&self.operands[0]),
            coordinates(&self.operands[1]),
        ) else {
            return;
        };
        let Ok(frame) = self.frame([&xa, &xb], [None, None]) else {
            return;
        };
        let (ca, cb) = (frame.a.core, frame.b.core);
        let d = [ca[0] - cb[0], ca[1] - cb[1]];
        // Midway between the two surfaces along the normal (the true one: a picture shows
        // where the shapes are, not what a step holds).
        let (n, foot) = match frame.face_normal {
            Some(n) => {
                let h = dot(n, d);
                (n, [ca[0] - h * n[0], ca[1] - h * n[1]])
            }
            None => {
                let len = dot(d, d).sqrt();
                if !(len > 0.0) {
                    return;
                }
                ([d[0] / len, d[1] / len], cb)
            }
        };
        let [ra, rb] = self.radii;
        let at = [0, 1].map(|k| 0.5 * (ca[k] - ra * n[k] + foot[k] + rb * n[k]));
        canvas.marker([at[0], at[1], 0.0], Element::Contact);
    }

    fn check(&self, dim: usize) -> Result<(), InvalidParameter> {
        if dim != 2 {
            return Err(InvalidParameter::new(
                "dimension",
                "shape contacts are two-dimensional",
            ));
        }
        InvalidParameter::check_non_negative("friction", self.friction)?;
        InvalidParameter::check_non_negative("radius", self.radii[0])?;
        InvalidParameter::check_non_negative("radius", self.radii[1])?;
        if self.operands[0].body() == self.operands[1].body() {
            return Err(InvalidParameter::new(
                "between",
                "needs two different bodies",
            ));
        }
        let (a, b) = match self.gap {
            Gap::Round { a, b } => (a, b),
            Gap::Face { a, b, normal } => {
                let len = dot(normal, normal).sqrt();
                if !((len - 1.0).abs() < 1e-9) {
                    return Err(InvalidParameter::new(
                        "normal",
                        format!("must be a unit vector, has length {len}"),
                    ));
                }
                (a, b)
            }
        };
        if a.iter().chain(&b).any(|x| !x.is_finite()) {
            return Err(InvalidParameter::new("gap", "its points must be finite"));
        }
        Ok(())
    }

    fn evaluate(&self, eval: &mut ConstraintEval<'_>) -> Result<(), ConstraintError> {
        let frame = self.frame(
            [eval.x(0), eval.x(1)],
            [eval.step_start(0), eval.step_start(1)],
        )?;
        let rows = self.rows(&frame, eval.v(0), eval.v(1))?;
        let [size_a, size_b] = frame.sizes;
        eval.set_value(0, rows.g);
        eval.set_jdot_xdot(0, rows.jdot);
        eval.set_gradient(0, 0, &rows.grad_a[..size_a]);
        eval.set_gradient(0, 1, &rows.grad_b[..size_b]);
        if let Some((jdot_t, ta, tb)) = rows.friction {
            eval.set_value(1, 0.0);
            eval.set_jdot_xdot(1, jdot_t);
            eval.set_gradient(1, 0, &ta[..size_a]);
            eval.set_gradient(1, 1, &tb[..size_b]);
        }
        Ok(())
    }

    fn weighted_hessian(
        &self,
        at: &HessianEval<'_>,
        weights: &[f64],
        hessian: &mut [f64],
    ) -> Result<(), ConstraintError> {
        let frame = self.frame([at.x(0), at.x(1)], [at.step_start(0), at.step_start(1)])?;
        let size_a = frame.sizes[0];
        let mut q = |v: &[f64]| -> Result<f64, ConstraintError> {
            let rows = self.rows(&frame, &v[..size_a], &v[size_a..])?;
            let jdot = [rows.jdot, rows.friction.map_or(0.0, |f| f.0)];
            Ok(jdot.iter().zip(weights).map(|(j, w)| j * w).sum())
        };
        // J̇ẋ is a sum of products of terms linear in ẋ, with no time terms.
        polarize_quadratic(at.len(), &mut q, hessian)
    }
}

impl ShapeContact {
    /// The contact's frame at coordinates `x`, with `start` the coordinates of the step's start
    /// where the stepper holds round contacts along their normal there.
    fn frame(&self, x: [&[f64]; 2], start: [Option<&[f64]>; 2]) -> Result<Frame, ConstraintError> {
        let (local_a, local_b) = match self.gap {
            Gap::Round { a, b } | Gap::Face { a, b, .. } => (a, b),
        };
        let (a, b) = (pose(x[0], local_a), pose(x[1], local_b));
        let (held, face_normal) = match self.gap {
            Gap::Round { .. } => (start_normal(start, local_a, local_b)?, None),
            Gap::Face { normal, .. } => (None, Some(rotate(b.angle, normal))),
        };
        Ok(Frame {
            a,
            b,
            sizes: [x[0].len(), x[1].len()],
            held,
            face_normal,
        })
    }

    /// The rows at `frame` with the two sides' velocities `va` and `vb`.
    fn rows(&self, frame: &Frame, va: &[f64], vb: &[f64]) -> Result<Rows, ConstraintError> {
        let (sa, sb) = (side(&frame.a, va), side(&frame.b, vb));
        let [size_a, size_b] = frame.sizes;
        let d = [sa.core[0] - sb.core[0], sa.core[1] - sb.core[1]];
        let d_dot = {
            let (va, vb) = (sa.velocity_at(sa.rho), sb.velocity_at(sb.rho));
            [va[0] - vb[0], va[1] - vb[1]]
        };
        let r = self.radii[0] + self.radii[1];
        // The normal, its rate, the gap and the normal row's curvature term.
        let centripetal = |s: &Side| [s.omega * s.omega * s.rho[0], s.omega * s.omega * s.rho[1]];
        let (ca, cb) = (centripetal(&sa), centripetal(&sb));
        let (n, n_dot, g, jdot, face_b) = match (frame.face_normal, frame.held) {
            (None, Some(n)) => {
                // Held along the normal of the step's start: linear but for the cores' turning.
                (
                    n,
                    [0.0; 2],
                    dot(n, d) - r,
                    dot(n, [cb[0] - ca[0], cb[1] - ca[1]]),
                    None,
                )
            }
            (None, None) => {
                let len = dot(d, d).sqrt();
                if !(len > 0.0) {
                    return Err(ConstraintError::new(
                        "the two round features' centres coincide: no contact normal",
                    ));
                }
                let n = [d[0] / len, d[1] / len];
                let along = dot(n, d_dot);
                let across = [d_dot[0] - along * n[0], d_dot[1] - along * n[1]];
                let n_dot = [across[0] / len, across[1] / len];
                let jdot = dot(n, [cb[0] - ca[0], cb[1] - ca[1]]) + dot(across, across) / len;
                (n, n_dot, len - r, jdot, None)
            }
            (Some(n), _) => {
                let pn = perp(n);
                let n_dot = [sb.omega * pn[0], sb.omega * pn[1]];
                let jdot = dot(n, [cb[0] - ca[0], cb[1] - ca[1]]) - sb.omega * sb.omega * dot(n, d)
                    + 2.0 * sb.omega * dot(pn, d_dot);
                (n, n_dot, dot(n, d) - r, jdot, Some(dot(pn, d)))
            }
        };
        let grad_a = sa.gradient(n, sa.rho, size_a);
        let mut grad_b = sb.gradient([-n[0], -n[1]], sb.rho, size_b);
        if let (Some(turn), true) = (face_b, size_b > 2) {
            // The face turns with b: ∂n/∂θ_b · d.
            grad_b[2] += turn;
        }
        let friction = (self.friction > 0.0).then(|| {
            // The surface points, as points of their bodies: s_a = c_a − r_a n, s_b = c_b + r_b n.
            let [ra, rb] = self.radii;
            let off_a = [sa.rho[0] - ra * n[0], sa.rho[1] - ra * n[1]];
            let off_b = [sb.rho[0] + rb * n[0], sb.rho[1] + rb * n[1]];
            let t = perp(n);
            let t_dot = perp(n_dot);
            let (va, vb) = (sa.velocity_at(off_a), sb.velocity_at(off_b));
            let u = [va[0] - vb[0], va[1] - vb[1]];
            // d/dt of the offsets: the core turns with its body, the surface point moves with n.
            let off_dot = |s: &Side, radius: f64, sign: f64| {
                let w = perp(s.rho);
                [
                    s.omega * w[0] + sign * radius * n_dot[0],
                    s.omega * w[1] + sign * radius * n_dot[1],
                ]
            };
            let (oa, ob) = (off_dot(&sa, ra, -1.0), off_dot(&sb, rb, 1.0));
            let (pa, pb) = (perp(oa), perp(ob));
            let jdot_t = dot(t_dot, u)
                + dot(
                    t,
                    [
                        sa.omega * pa[0] - sb.omega * pb[0],
                        sa.omega * pa[1] - sb.omega * pb[1],
                    ],
                );
            let ta = sa.gradient(t, off_a, size_a);
            let tb = sb.gradient([-t[0], -t[1]], off_b, size_b);
            (jdot_t, ta, tb)
        });
        Ok(Rows {
            g,
            jdot,
            grad_a,
            grad_b,
            friction,
        })
    }
}
