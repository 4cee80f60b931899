//! Equality constraints `C(x, t) = 0` on points, and the trait every constraint implements.
//!
//! Seed 000 §4 ("Tinkertoys") asks that each constraint be an object that evaluates its own slice
//! of `C`, `Ċ`, its blocks of `J` and its part of `J̇q̇`, so that models can be snapped together
//! from ready-made pieces. In bead a constraint sees only its [`Operand`]s (usually world points),
//! and writes, for each of its rows `r`:
//!
//! ```text
//! C_r                                   value
//! G_r,i = ∂C_r/∂x_i                     gradient with respect to operand i
//! ∂C_r/∂t                               explicit time derivative (0 unless it moves with t)
//! J̇ẋ_r = Σ_ij ẋ_iᵀ ∂²C_r/∂x_i∂x_j ẋ_j + 2 Σ_i ẋ_iᵀ ∂²C_r/∂x_i∂t + ∂²C_r/∂t²
//! ```
//!
//! that is, everything of `C̈` except `G ẍ` (seed 003's `J̇q̇ + c_tt`, with the mixed term that a
//! moving target adds). The system turns these into body blocks by the chain rule
//! (see [`Point`](crate::Point)): `J_b = Σ G_i P_i`, `Ċ = Σ G_i ẋ_i + ∂C/∂t`,
//! `J̇q̇ = J̇ẋ + Σ G_i a_vp,i`. A new constraint type is therefore one file: its mathematics, a
//! type, and an `impl Constraint`.
//!
//! The built-ins use unit-length gradients wherever the geometry allows (`|x₁ − x₂| − L`,
//! `n̂·(x − p)`, `|x − c| − r`), so that each λ is a force in newtons along that gradient:
//! the constraint force on operand `i` is `G_iᵀ λ`.

mod angle;
mod angle_limit;
mod cone_limit;
mod contact_tangents;
pub(crate) use contact_tangents::reference as tangent_reference_from;
mod distance;
mod dot_rows;
mod gear;
mod half_plane;
mod hinge;
mod hinge_limit;
mod hinge_motor;
mod linear;
mod motor;
mod nail;
mod non_penetration;
mod on_circle;
mod on_line;
mod on_plane;
mod on_sphere;
mod orientation_lock;
mod polarization;
mod prismatic;
mod prismatic_3d;
mod rack_and_pinion;
mod revolute;
mod shape_contact;
mod shape_contact_3d;
mod slider_limit;
mod slider_motor;
mod twist;
mod weld;
mod weld_3d;

pub use angle::Angle;
pub use angle_limit::AngleLimit;
pub use cone_limit::ConeLimit;
pub use distance::Distance;
pub(crate) use distance::{add_separation_hessian, separation, separation_along};
pub use gear::Gear;
pub use half_plane::HalfPlane;
pub use hinge::Hinge;
pub use hinge_limit::HingeLimit;
pub use hinge_motor::HingeMotor;
pub use linear::Linear;
pub use motor::Motor;
pub use nail::Nail;
pub use non_penetration::NonPenetration;
pub use on_circle::OnCircle;
pub use on_line::OnLine;
pub use on_plane::OnPlane;
pub use on_sphere::OnSphere;
pub(crate) use polarization::polarize_quadratic;
pub use polarization::polarized_hessian;
pub use prismatic::Prismatic;
pub use prismatic_3d::Prismatic3d;
pub use rack_and_pinion::{PinionSide, RackAndPinion};
pub use revolute::Revolute;
pub use shape_contact::{ContactBody, Gap, ShapeContact};
pub use shape_contact_3d::{Gap3d, ShapeContact3d};
pub use slider_limit::SliderLimit;
pub use slider_motor::SliderMotor;
pub use weld::Weld;
pub use weld_3d::Weld3d;

use std::any::Any;
use std::fmt::Debug;

pub use crate::error::{ConstraintError, InvalidParameter};
pub use crate::ids::ConstraintId;
use crate::point::Operand;

/// Whether a constraint holds `C = 0` always, or only takes part when active.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConstraintKind {
    /// `C(x, t) = 0` at all times.
    Equality,
    /// Only a velocity is held (a motor): `C ≡ 0`, the row's `Ċ` is driven to zero.
    Velocity,
    /// `g(x, t) ≥ 0`: each row takes part only when active and chosen by the
    /// [`InequalityMethod`](crate::InequalityMethod); its λ is then ≥ 0 (pushing) for the exact
    /// methods.
    Inequality,
}

/// An implicit constraint `C(x, t) = 0` on a few operands.
///
/// Implement it to add a constraint type; or, without writing derivatives by hand, build one from
/// a scalar function with [`crate::autodiff::Custom`].
///
/// ```
/// use bead::{Constraint, ConstraintError, ConstraintEval, Operand, ParticleId, Particle, System};
///
/// /// Keeps a point's height at zero: C = y, ∂C/∂x = (0, 1).
/// #[derive(Debug)]
/// struct OnFloor(ParticleId);
///
/// impl Constraint for OnFloor {
///     fn rows(&self, _dim: usize) -> usize { 1 }
///     fn operands(&self) -> Vec<Operand> { vec![self.0.into()] }
///     fn evaluate(&self, eval: &mut ConstraintEval<'_>) -> Result<(), ConstraintError> {
///         let y = eval.x(0)[1];
///         eval.set_value(0, y);
///         eval.set_gradient(0, 0, &[0.0, 1.0]);
///         Ok(())
///     }
/// }
///
/// let mut sys = System::new(2)?;
/// let p = sys.add_particle(Particle::new(&[0.0, 0.0]).velocity(&[1.0, 0.0]))?;
/// sys.add_constraint(OnFloor(p))?;
/// sys.add_force(bead::force::Gravity::new(&[0.0, -9.81]))?;
/// sys.step(0.01).unwrap();
/// assert!(sys.position(p)[1].abs() < 1e-12); // held against gravity
/// assert!((sys.position(p)[0] - 0.01).abs() < 1e-12);
/// # Ok::<(), bead::ModelError>(())
/// ```
pub trait Constraint: Any + Debug + Send + Sync {
    /// Number of scalar rows (the length of this constraint's slice of `C`) in a `dim`-D system.
    fn rows(&self, dim: usize) -> usize;

    /// The operands `C` depends on, in the order `evaluate` indexes them.
    fn operands(&self) -> Vec<Operand>;

    /// Whether this is an equality (the default) or another kind of constraint.
    fn kind(&self) -> ConstraintKind {
        ConstraintKind::Equality
    }

    /// The kind of row `row` (a contact's normal row is an inequality, its friction row holds a
    /// velocity): [`Constraint::kind`] for every row by default.
    fn row_kind(&self, row: usize) -> ConstraintKind {
        let _ = row;
        self.kind()
    }

    /// `Some` when row `row` is Coulomb friction ([`Friction`]): its multiplier is bounded by
    /// `±μ λ_n`, `λ_n` the multiplier of the contact's normal row. `None` by default.
    fn friction(&self, row: usize) -> Option<Friction> {
        let _ = row;
        None
    }

    /// Bounds on each of this constraint's multipliers, `(lo, hi)` in its λ's units: a motor's
    /// torque limit. `(−∞, ∞)` (the default) for a constraint that may push and pull as hard as
    /// it must; an inequality's rows are also kept at λ ≥ 0 by the exact method. A row whose λ
    /// reaches a bound applies exactly that force and gives up its target: the multipliers solve
    /// a complementarity problem (see [`crate::contact`]).
    fn multiplier_bounds(&self) -> (f64, f64) {
        (f64::NEG_INFINITY, f64::INFINITY)
    }

    /// Checks the constraint's own parameters against the system's dimension when it is added:
    /// an error names the parameter that is wrong ([`InvalidParameter`]), and the system refuses
    /// the constraint with it ([`ModelError::ConstraintParameter`](crate::ModelError)).
    /// Everything is valid by default.
    ///
    /// ```
    /// use bead::constraint::{Constraint, ConstraintEval, InvalidParameter};
    /// use bead::{ConstraintError, ModelError, Operand, Particle, ParticleId, System};
    ///
    /// /// Holds a particle at height `h` above the floor.
    /// #[derive(Debug)]
    /// struct Height(ParticleId, f64);
    ///
    /// impl Constraint for Height {
    ///     fn rows(&self, _dim: usize) -> usize {
    ///         1
    ///     }
    ///     fn operands(&self) -> Vec<Operand> {
    ///         vec![self.0.into()]
    ///     }
    ///     fn check(&self, _dim: usize) -> Result<(), InvalidParameter> {
    ///         if self.1 >= 0.0 && self.1.is_finite() {
    ///             return Ok(());
    ///         }
    ///         Err(InvalidParameter::new("h", format!("must be zero or more, got {}", self.1))
    ///             .hint("a height above the floor, in metres"))
    ///     }
    ///     fn evaluate(&self, eval: &mut ConstraintEval<'_>) -> Result<(), ConstraintError> {
    ///         let y = eval.x(0)[1];
    ///         eval.set_value(0, y - self.1);
    ///         eval.set_gradient(0, 0, &[0.0, 1.0]);
    ///         Ok(())
    ///     }
    /// }
    ///
    /// let mut sys = System::new(2)?;
    /// let p = sys.add_particle(Particle::new(&[0.0, 1.0]))?;
    /// let err = sys.add_constraint(Height(p, -1.0)).unwrap_err();
    /// assert!(matches!(&err, ModelError::ConstraintParameter(e) if e.parameter == "h"));
    /// assert_eq!(
    ///     err.to_string(),
    ///     "invalid constraint: h: must be zero or more, got -1 \
    ///      (a height above the floor, in metres)"
    /// );
    /// # Ok::<(), ModelError>(())
    /// ```
    fn check(&self, dim: usize) -> Result<(), InvalidParameter> {
        let _ = dim;
        Ok(())
    }

    /// Draws the constraint (a rod, a wire, a nail's mark); nothing by default.
    fn draw(&self, view: &crate::view::View<'_>, canvas: &mut dyn crate::draw::Canvas) {
        let _ = (view, canvas);
    }

    /// `Some` when this constraint is exactly the [`Separation`] of its two point operands,
    /// `C = sign · (|x₀ − x₁| − length)`, as a rod, a rope and a contact between balls are.
    /// Between two particles the system then computes its row in a loop of its own rather than
    /// through [`Constraint::evaluate`] (which must agree): a cloth or a chain is made of
    /// little else, and the general path's bookkeeping costs several times that arithmetic.
    /// `None` (the default) for every other constraint.
    fn separation(&self) -> Option<Separation> {
        None
    }

    /// Writes `C`, `∂C/∂t`, the gradients and `J̇ẋ` at the state in `eval`.
    ///
    /// Rows and gradients not written are zero.
    fn evaluate(&self, eval: &mut ConstraintEval<'_>) -> Result<(), ConstraintError>;

    /// Whether `C` is linear in its operands' coordinates (a nail, a point on a line or a plane,
    /// an angle between bodies): its second derivatives vanish, so it has no geometric stiffness
    /// of its own and [`Constraint::weighted_hessian`] adds nothing. `false` by default.
    ///
    /// (The points it holds may still be curved in their bodies' coordinates: a nail on a rigid
    /// body's point stiffens the body's rotation. That part is the point's, added apart.)
    fn linear(&self) -> bool {
        false
    }

    /// Adds `Σ_r w_r ∂²C_r/∂x∂x` over all operand coordinates (row-major `n × n`, `n` the sum
    /// of the operands' sizes) into `hessian`, which the caller zeroes: the constraint's
    /// *geometric stiffness* under multipliers `w`, which the implicit steppers
    /// ([`crate::integrate::ImplicitEuler`]) put into their Newton matrix.
    ///
    /// The default recovers it exactly from [`Constraint::evaluate`]'s `J̇ẋ`, which is a
    /// quadratic form in `ẋ` (see [`polarized_hessian`]); it costs `n² + n + 1` evaluations, so the
    /// built-ins write theirs by hand; for a constraint that says it is [`linear`](Self::linear)
    /// it adds nothing.
    fn weighted_hessian(
        &self,
        at: &HessianEval<'_>,
        weights: &[f64],
        hessian: &mut [f64],
    ) -> Result<(), ConstraintError> {
        if self.linear() {
            return Ok(());
        }
        polarized_hessian(self, at, weights, hessian)
    }
}

/// A friction row's coupling to its contact's normal row: Coulomb's law in 2D, the cone
/// `|λ_t| ≤ μ λ_n` as two linear inequalities (see [`Constraint::friction`]).
///
/// The row holds a velocity (the contact points' tangential speed, [`ConstraintKind::Velocity`]):
/// inside the cone it holds it at zero exactly (static friction, no creep); at the cone's edge it
/// gives up its target and pushes `μ λ_n` against the slide.
///
/// ```
/// use bead::constraint::{Friction, HalfPlane};
/// use bead::{Constraint, Motion, Particle, System};
/// let mut sys = System::new(2)?;
/// let p = sys.add_particle(Particle::new(&[0.0, 0.0]))?;
/// let floor = HalfPlane::new(p, Motion::fixed(&[0.0, 0.0]), &[0.0, 1.0], 0.0).friction(0.5);
/// assert_eq!(Constraint::friction(&floor, 1), Some(Friction { normal: 0, coefficient: 0.5 }));
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Friction {
    /// The normal row (an index among the constraint's own rows) whose multiplier bounds this
    /// one's.
    pub normal: usize,
    /// The Coulomb coefficient μ ≥ 0.
    pub coefficient: f64,
}

impl Friction {
    /// The kind of row `row` of a contact with friction: its normal row 0 an inequality, its
    /// friction row 1 a velocity row.
    pub(crate) fn contact_row_kind(row: usize) -> ConstraintKind {
        if row == 0 {
            ConstraintKind::Inequality
        } else {
            ConstraintKind::Velocity
        }
    }

    /// Row `row`'s coupling in a contact whose row 1 is friction `mu` on its normal row 0
    /// (none without friction).
    pub(crate) fn of_contact(row: usize, mu: f64) -> Option<Friction> {
        (row == 1 && mu > 0.0).then_some(Friction {
            normal: 0,
            coefficient: mu,
        })
    }
}

/// A constraint that is the separation of its two point operands, one row
/// `C = sign · (|x₀ − x₁| − length)` with gradient `±sign · u`, `u` the unit vector from `x₁` to
/// `x₀` (see [`Constraint::separation`]).
///
/// ```
/// use bead::constraint::{Distance, NonPenetration, Separation};
/// use bead::{Constraint, Particle, System};
/// let mut sys = System::new(2)?;
/// let a = sys.add_particle(Particle::new(&[0.0, 0.0]))?;
/// let b = sys.add_particle(Particle::new(&[1.0, 0.0]))?;
/// // A rod is |x₀ − x₁| − L; a rope keeps L − |x₀ − x₁| ≥ 0.
/// assert_eq!(
///     Distance::new(a, b, 1.0).separation(),
///     Some(Separation { length: 1.0, sign: 1.0 })
/// );
/// assert_eq!(NonPenetration::rope(a, b, 2.0).separation().map(|s| s.sign), Some(-1.0));
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Separation {
    /// The length at which the row vanishes, in metres.
    pub length: f64,
    /// `1` for a rod or a contact (`|x₀ − x₁| − length`), `−1` for a rope (`length − |x₀ − x₁|`).
    pub sign: f64,
}

/// One constraint's operand coordinates at an instant, for [`Constraint::weighted_hessian`].
#[derive(Debug)]
pub struct HessianEval<'a> {
    pub(crate) t: f64,
    pub(crate) dim: usize,
    /// Start of each operand in `x`, plus the total length at the end.
    pub(crate) offsets: &'a [usize],
    pub(crate) x: &'a [f64],
    /// The operands' coordinates at the step's start, under a stepper that holds contacts along
    /// their normals there (see [`ConstraintEval::step_start`]).
    pub(crate) start: Option<&'a [f64]>,
}

impl HessianEval<'_> {
    /// Time, in seconds.
    pub fn time(&self) -> f64 {
        self.t
    }

    /// Dimension of the space (2 or 3).
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Coordinates of operand `i`.
    pub fn x(&self, i: usize) -> &[f64] {
        &self.x[self.offsets[i]..self.offsets[i + 1]]
    }

    /// Coordinates of operand `i` at the step's start, as [`ConstraintEval::step_start`] gives
    /// them.
    ///
    /// ```
    /// use bead::constraint::{hessian_at, NonPenetration};
    /// use bead::{Particle, System};
    /// let mut sys = System::new(2)?;
    /// let a = sys.add_particle(Particle::new(&[0.0, 0.0]))?;
    /// let b = sys.add_particle(Particle::new(&[0.3, 0.0]))?;
    /// // Outside a step there is no start: the contact's curvature is its own.
    /// let h = hessian_at(&NonPenetration::new(a, b, 0.2), 2, 0.0, &[0.0, 0.0, 0.3, 0.0], &[1.0]).unwrap();
    /// assert!(h[5] > 0.0);
    /// # Ok::<(), bead::ModelError>(())
    /// ```
    pub fn step_start(&self, i: usize) -> Option<&[f64]> {
        self.start.map(|s| &s[self.offsets[i]..self.offsets[i + 1]])
    }

    /// Index of operand `i`'s first coordinate in the Hessian's rows and columns.
    pub fn offset(&self, i: usize) -> usize {
        self.offsets[i]
    }

    /// Total number of operand coordinates `n` (the Hessian is `n × n`).
    pub fn len(&self) -> usize {
        self.x.len()
    }

    /// Whether the constraint has no operand coordinates.
    pub fn is_empty(&self) -> bool {
        self.x.is_empty()
    }
}

/// `Σ_r w_r ∂²C_r/∂x∂x` of `constraint` at operand coordinates `x` (concatenated in operand order)
/// and time `t`, row-major `n × n`: the tool for testing a constraint's second derivatives.
///
/// ```
/// use bead::constraint::{hessian_at, Nail};
/// use bead::{Particle, System};
/// let mut sys = System::new(2)?;
/// let p = sys.add_particle(Particle::new(&[1.0, 2.0]))?;
/// // A nail is linear in its point: no geometric stiffness.
/// let h = hessian_at(&Nail::new(p, &[1.0, 2.0]), 2, 0.0, &[1.0, 2.0], &[3.0, -4.0]).unwrap();
/// assert_eq!(h, [0.0; 4]);
/// # Ok::<(), bead::ModelError>(())
/// ```
pub fn hessian_at(
    constraint: &dyn Constraint,
    dim: usize,
    t: f64,
    x: &[f64],
    weights: &[f64],
) -> Result<Vec<f64>, ConstraintError> {
    let offsets = operand_offsets(constraint, dim);
    let n = offsets.last().copied().unwrap_or_default();
    if x.len() != n || weights.len() != constraint.rows(dim) {
        return Err(ConstraintError::new(format!(
            "expected {n} coordinates and {} weights",
            constraint.rows(dim)
        )));
    }
    let mut hessian = vec![0.0; n * n];
    let at = HessianEval {
        t,
        dim,
        offsets: &offsets,
        x,
        start: None,
    };
    constraint.weighted_hessian(&at, weights, &mut hessian)?;
    Ok(hessian)
}

/// Start of each operand of `constraint` in its coordinate buffer, then the total.
fn operand_offsets(constraint: &dyn Constraint, dim: usize) -> Vec<usize> {
    let mut offsets = vec![0];
    for op in constraint.operands() {
        offsets.push(
            // Body coordinates here are a 2D rigid body's [x, y, θ], the only kind that has them.
            offsets.last().copied().unwrap_or_default() + crate::point::operand_size(&op, dim, 3),
        );
    }
    offsets
}

/// One constraint's view of the state, and the buffers it writes its rows into.
///
/// Operand `i`'s coordinates are `x(i)` (for a point, its world position), its velocity `v(i)`.
#[derive(Debug)]
pub struct ConstraintEval<'a> {
    pub(crate) t: f64,
    pub(crate) dim: usize,
    /// Start of each operand in `x`/`v`, plus the total length at the end.
    pub(crate) offsets: &'a [usize],
    pub(crate) x: &'a [f64],
    pub(crate) v: &'a [f64],
    /// The operands' coordinates at the step's start, under a stepper that holds contacts along
    /// their normals there (see [`ConstraintEval::step_start`]).
    pub(crate) start: Option<&'a [f64]>,
    pub(crate) c: &'a mut [f64],
    pub(crate) c_t: &'a mut [f64],
    pub(crate) jdot_xdot: &'a mut [f64],
    /// Row-major gradient blocks: operand `i` occupies `rows × k_i` at `rows · offsets[i]`.
    pub(crate) gradient: &'a mut [f64],
}

impl ConstraintEval<'_> {
    /// Time, in seconds.
    pub fn time(&self) -> f64 {
        self.t
    }

    /// Dimension of the space (2 or 3).
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Coordinates of operand `i` (a point's world position, in metres).
    pub fn x(&self, i: usize) -> &[f64] {
        &self.x[self.offsets[i]..self.offsets[i + 1]]
    }

    /// Velocity of operand `i` (a point's world velocity, in metres per second).
    pub fn v(&self, i: usize) -> &[f64] {
        &self.v[self.offsets[i]..self.offsets[i + 1]]
    }

    /// Coordinates of operand `i` at the start of the step being solved, when the stepper holds
    /// each contact along the normal it had there; `None` otherwise.
    ///
    /// The implicit steppers solve for the step's end, where two balls' true normal is
    /// unknown: a contact measured along the normal of the step's start,
    /// `g = n₀·(x₁ − x₂) − r`, is linear, has no curvature to make Newton's matrix indefinite
    /// under a heavy load, cannot be crossed within the step (balls of a pile falling a radius
    /// a step would otherwise pass through each other), and never lets the true gap
    /// `|x₁ − x₂| − r ≥ n₀·(x₁ − x₂) − r` fall below it. The built-in round contacts
    /// ([`NonPenetration`], [`ShapeContact`]'s round features) read it; other constraints
    /// ignore it.
    ///
    /// ```
    /// use bead::constraint::{evaluate_at, NonPenetration};
    /// use bead::{Particle, System};
    /// let mut sys = System::new(2)?;
    /// let a = sys.add_particle(Particle::new(&[0.0, 0.0]))?;
    /// let b = sys.add_particle(Particle::new(&[0.3, 0.0]))?;
    /// // Evaluated on its own, a contact has no step: its gap is the true distance's.
    /// let e = evaluate_at(&NonPenetration::new(a, b, 0.2), 2, 0.0, &[0.0, 0.0, 0.3, 0.0], &[0.0; 4]).unwrap();
    /// assert!((e.c[0] - 0.1).abs() < 1e-15);
    /// # Ok::<(), bead::ModelError>(())
    /// ```
    pub fn step_start(&self, i: usize) -> Option<&[f64]> {
        self.start.map(|s| &s[self.offsets[i]..self.offsets[i + 1]])
    }

    /// Sets `C_row`.
    pub fn set_value(&mut self, row: usize, c: f64) {
        self.c[row] = c;
    }

    /// Sets `∂C_row/∂t`, the explicit time derivative (for targets that move with time).
    pub fn set_time_derivative(&mut self, row: usize, c_t: f64) {
        self.c_t[row] = c_t;
    }

    /// Sets `J̇ẋ_row`: every term of `C̈_row` that does not multiply an acceleration
    /// (velocity products, the mixed `2 ẋ·∂²C/∂x∂t` and `∂²C/∂t²`).
    pub fn set_jdot_xdot(&mut self, row: usize, value: f64) {
        self.jdot_xdot[row] = value;
    }

    /// Sets `∂C_row/∂x_operand` (length = the operand's coordinate count).
    pub fn set_gradient(&mut self, row: usize, operand: usize, gradient: &[f64]) {
        let rows = self.c.len();
        let k = self.offsets[operand + 1] - self.offsets[operand];
        let start = rows * self.offsets[operand] + row * k;
        crate::math::vector::copy(&mut self.gradient[start..start + k], gradient);
    }
}

/// The coordinates of body `a`, and of `b` if given (angle-type joints against a body or the world).
pub(crate) fn body_operands(
    a: crate::body::BodyId,
    b: Option<crate::body::BodyId>,
) -> Vec<Operand> {
    std::iter::once(a)
        .chain(b)
        .map(Operand::Coordinates)
        .collect()
}

/// The bodies of a joint, `what` naming it ("a hinge"): the system is of dimension `expected`
/// (2 or 3), and the two are different bodies.
fn check_pair(
    dim: usize,
    expected: usize,
    a: crate::ids::BodyId,
    b: crate::ids::BodyId,
    what: &str,
) -> Result<(), InvalidParameter> {
    if dim != expected {
        return Err(InvalidParameter::new(
            "dimension",
            format!("{what} joins {expected}D bodies"),
        ));
    }
    if a == b {
        return Err(InvalidParameter::new(
            "between",
            format!("{what} joins two different bodies"),
        ));
    }
    Ok(())
}

/// Parameter `name`, a direction `v`: finite, of nonzero length.
fn check_direction(name: &str, v: &[f64]) -> Result<(), InvalidParameter> {
    let n = v.iter().map(|x| x * x).sum::<f64>().sqrt();
    if n > 0.0 && n.is_finite() {
        return Ok(());
    }
    Err(InvalidParameter::new(
        name,
        format!("must have a finite, nonzero length, got {v:?}"),
    ))
}

/// The bodies of a joint between rigid bodies (`b` `None`: against the world): the system is
/// 2D, where rigid bodies live, and the two are different bodies. `bodies` names the parameter
/// that holds them.
fn check_rigid_pair(
    dim: usize,
    a: crate::body::BodyId,
    b: Option<crate::body::BodyId>,
    bodies: &str,
) -> Result<(), InvalidParameter> {
    if dim != 2 {
        return Err(InvalidParameter::new(
            "dimension",
            "joints between rigid bodies are 2D",
        ));
    }
    if Some(a) == b {
        return Err(InvalidParameter::new(
            bodies,
            "a joint needs two different bodies",
        ));
    }
    Ok(())
}

/// A location: a motion whose vectors have `dim` components and whose numbers are finite.
fn check_location(
    parameter: &str,
    at: &crate::motion::Motion,
    dim: usize,
) -> Result<(), InvalidParameter> {
    at.check(dim)
        .map_err(|reason| InvalidParameter::new(parameter, reason))
}

/// A constraint's rows evaluated at given operand coordinates, from [`evaluate_at`].
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    /// `C`.
    pub c: Vec<f64>,
    /// `∂C/∂t`.
    pub c_t: Vec<f64>,
    /// `Ċ = ∇C·ẋ + ∂C/∂t`.
    pub c_dot: Vec<f64>,
    /// `∇C`, one row per constraint row, over all operand coordinates in order.
    pub gradient: Vec<Vec<f64>>,
    /// `J̇ẋ` (everything of `C̈` but `∇C·ẍ`).
    pub jdot_xdot: Vec<f64>,
}

/// Evaluates `constraint` outside a system, at operand coordinates `x` and velocities `v`
/// (concatenated in operand order) and time `t`: the tool for testing a constraint's derivatives.
///
/// ```
/// use bead::constraint::{evaluate_at, Distance};
/// use bead::{Particle, System};
/// let mut sys = System::new(2)?;
/// let a = sys.add_particle(Particle::new(&[0.0, 0.0]))?;
/// let b = sys.add_particle(Particle::new(&[3.0, 4.0]))?;
/// let rod = Distance::new(a, b, 5.0);
/// let e = evaluate_at(&rod, 2, 0.0, &[0.0, 0.0, 3.0, 4.0], &[0.0; 4]).unwrap();
/// assert_eq!(e.c, [0.0]);
/// // ∇C = (−u, u), u = (0.6, 0.8) the unit vector from a to b (to rounding).
/// let expected = [-0.6, -0.8, 0.6, 0.8];
/// assert!(e.gradient[0].iter().zip(expected).all(|(g, x)| (g - x).abs() < 1e-15));
/// # Ok::<(), bead::ModelError>(())
/// ```
pub fn evaluate_at(
    constraint: &dyn Constraint,
    dim: usize,
    t: f64,
    x: &[f64],
    v: &[f64],
) -> Result<Evaluation, ConstraintError> {
    let rows = constraint.rows(dim);
    let offsets = operand_offsets(constraint, dim);
    let n = offsets.last().copied().unwrap_or_default();
    if x.len() != n || v.len() != n {
        return Err(ConstraintError::new(format!(
            "expected {n} coordinates and velocities"
        )));
    }
    let (mut c, mut c_t, mut jdot_xdot) = (vec![0.0; rows], vec![0.0; rows], vec![0.0; rows]);
    let mut blocks = vec![0.0; rows * n];
    let mut eval = ConstraintEval {
        t,
        dim,
        offsets: &offsets,
        x,
        v,
        start: None,
        c: &mut c,
        c_t: &mut c_t,
        jdot_xdot: &mut jdot_xdot,
        gradient: &mut blocks,
    };
    constraint.evaluate(&mut eval)?;
    // Operand blocks are stored rows × k each; gather them into full rows.
    let gradient: Vec<Vec<f64>> = (0..rows)
        .map(|r| {
            offsets
                .windows(2)
                .flat_map(|w| {
                    let k = w[1] - w[0];
                    let start = rows * w[0] + r * k;
                    blocks[start..start + k].to_vec()
                })
                .collect()
        })
        .collect();
    let c_dot = (0..rows)
        .map(|r| c_t[r] + gradient[r].iter().zip(v).map(|(g, v)| g * v).sum::<f64>())
        .collect();
    Ok(Evaluation {
        c,
        c_t,
        c_dot,
        gradient,
        jdot_xdot,
    })
}
