//! The two families of steppers.
//!
//! **Explicit** ODE integrators drive Witkin's derivative evaluation (seed 000 §4.1): the state is
//! `(q, q̇)`; the derivative is `(q̇, q̈)` with `q̈ = W (Q + Jᵀλ)` computed by the four-step
//! evaluation behind [`Dynamics`]. They only see that function, so the same constraint machinery
//! serves every scheme.
//!
//! **Implicit** steppers ([`ImplicitEuler`], [`Bdf2`]) solve for the end-of-step positions with the
//! constraints holding there, which stiff systems (long chains, cloth) need: no explicit scheme
//! survives a chain's fastest mode, however exactly λ is solved. They see the model through the
//! narrower [`ConstrainedModel`]: assemble its forces, its constraints and their Jacobian at a
//! state; factor and solve its Newton (KKT) system.

mod explicit;
mod implicit;

pub use explicit::{Euler, Midpoint, Rk4, SymplecticEuler};
pub use implicit::{Bdf2, ImplicitEuler, NEWTON_RELATIVE_TOLERANCE, NEWTON_TOLERANCE};

pub use crate::solve::Role;

use std::fmt::Debug;

use crate::error::EvalError;
use crate::math::inverse_mass::InverseMass;
use crate::math::sparse::BlockSparse;

/// The second-order system `q̈ = a(t, q, q̇)` an integrator advances.
pub trait Dynamics {
    /// Writes the acceleration `q̈` at `(t, q, q̇)` into `a`.
    fn acceleration(
        &mut self,
        t: f64,
        q: &[f64],
        v: &[f64],
        a: &mut [f64],
    ) -> Result<(), EvalError>;

    /// The constrained model behind the accelerations, for the implicit steppers; `None` (the
    /// default) for a plain ODE, which they then advance with its accelerations alone.
    fn constrained(&mut self) -> Option<&mut dyn ConstrainedModel> {
        None
    }
}

/// What one Newton step of an implicit stepper does with the factor of its matrix.
///
/// ```
/// use bead::integrate::Factorization;
/// assert_ne!(Factorization::Fresh, Factorization::Full);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Factorization {
    /// Reuse the last factor if it fits (a chord iteration).
    Reuse,
    /// Factor afresh. Where the geometric stiffness couples each body to the others by little
    /// against its mass (a cloth), the matrix may leave that coupling out: it factors into a
    /// fraction of the entries and still gains about that ratio an iteration.
    Fresh,
    /// Factor afresh with all of the geometric stiffness: the cheaper matrix did not serve.
    Full,
}

/// What a position-level implicit stepper needs of a constrained model: assemble at a state,
/// then factor and solve its Newton system.
///
/// The constraint rows are equalities `C(q, t) = 0`, velocity rows (motors, whose speed error
/// `J q̇ + ∂C/∂t` must vanish) and inequalities `g(q, t) ≥ 0`; the stepper keeps the
/// inequalities and the bounded rows complementary by the [`Role`] it gives each row in
/// [`ConstrainedModel::newton_step`].
pub trait ConstrainedModel {
    /// `W = M⁻¹` (0 for what cannot move), at the state of the last evaluation of the forces
    /// (a parametric object's mass block changes with its coordinates).
    fn inv_mass(&self) -> &InverseMass;

    /// Sets the step's inertial prediction: `inertial = q̃ = Σ_k a_k q_k + ĥ Σ_k b_k q̇_k` over
    /// the `past` states, for `ĥ = h`. A parametric object combines its points' own velocities
    /// of the same states by the same `b_k`, and steps their momenta (see
    /// [`applied_force`](Self::applied_force)).
    fn predict(&mut self, h: f64, inertial: &[f64], past: &[PastState<'_>]);

    /// Until called with `None`, [`assemble`](Self::assemble) holds each contact along the
    /// normal it has at `(t, q)`, the start of the step being solved (see
    /// [`ConstraintEval::step_start`](crate::ConstraintEval::step_start)). Models without
    /// contacts need not do anything.
    fn hold_contact_normals(&mut self, _start: Option<(f64, &[f64])>) {}

    /// Notes that a step, or a part of one, did not converge and is being taken again as two
    /// halves (reported in [`StepStats::halved`](crate::StepStats::halved)).
    fn note_halved(&mut self) {}

    /// Writes the generalized force `Q` of the implicit momentum residual
    /// `M(q) (q − q̃) − ĥ² (Q + Jᵀλ)` at `(t, q, q̇)`, and takes [`inv_mass`](Self::inv_mass)
    /// there: the implicit steppers evaluate the forces at each iterate of the step's end. For a
    /// parametric object `Q` also carries what makes that residual its points' own, stepped in
    /// space from the prediction set by [`predict`](Self::predict) (its inertial terms).
    fn applied_force(
        &mut self,
        t: f64,
        q: &[f64],
        v: &[f64],
        out: &mut [f64],
    ) -> Result<(), EvalError>;

    /// Whether [`applied_force`](Self::applied_force) can change with `(q, q̇)` within a step
    /// (`true` by default): where it cannot (gravity alone on particles and rigid bodies), the
    /// steppers evaluate it once a step.
    fn forces_vary(&self) -> bool {
        true
    }

    /// Evaluates every constraint at `(t, q, q̇)`: [`values`](Self::values),
    /// [`time_derivatives`](Self::time_derivatives) and the [`jacobian`](Self::jacobian) then
    /// hold their rows.
    fn assemble(&mut self, t: f64, q: &[f64], v: &[f64]) -> Result<(), EvalError>;

    /// `C` at the last assembled state (0 for velocity rows).
    fn values(&self) -> &[f64];

    /// `∂C/∂t` at the last assembled state.
    fn time_derivatives(&self) -> &[f64];

    /// `J` at the last assembled state.
    fn jacobian(&self) -> &BlockSparse;

    /// Whether each row holds a velocity only (a motor).
    fn velocity_rows(&self) -> &[bool];

    /// Whether each row is an inequality `g ≥ 0`.
    fn inequality_rows(&self) -> &[bool];

    /// Each row's own bounds on λ (a motor's torque limit), `(−∞, ∞)` for most.
    fn multiplier_bounds(&self) -> &[(f64, f64)];

    /// For each friction row, its normal row and Coulomb coefficient μ: its λ lies within
    /// `±μ λ_n` ([`crate::constraint::Friction`]). Empty (no friction) by default.
    fn friction_rows(&self) -> &[Option<(usize, f64)>] {
        &[]
    }

    /// One Newton step on the whole KKT system
    /// `[M − ĥ² ∂Q/∂q − ĥ ∂Q/∂q̇ + ĥ² K̃, Jᵀ; J, 0]` at the last assembled state (see
    /// [`NewtonSystem`]): writes `Δq` and `Δμ` (`μ = ĥ² λ`). Unless `factorization` says to
    /// reuse the last factor (a chord iteration), which happens only if it fits the model's
    /// structure and roles, the matrix is assembled, with the applied forces' Jacobians, the
    /// parametric objects' own blocks and the geometric stiffness `K̃` of the multipliers
    /// (each kept positive), and factored. Returns whether it factored.
    fn newton_step(
        &mut self,
        factorization: Factorization,
        system: NewtonSystem<'_>,
        dq: &mut [f64],
        dmu: &mut [f64],
    ) -> Result<bool, EvalError>;

    /// Adds `E v` into `out`, `E` the part of the exact Newton matrix that the last factored
    /// one left out (geometric stiffness bounded to keep it definite); returns `false`, adding
    /// nothing, where it left out none (the default).
    fn stiffness_correction(&self, v: &[f64], out: &mut [f64]) -> bool {
        let _ = (v, out);
        false
    }

    /// The largest ratio, over the coordinates, of the stiffness on the diagonal of the last
    /// factored Newton matrix to the mass there (0 by default): the rounding of `q` moves the
    /// momentum residual by `ε |q|` times one plus this, which no iteration can remove.
    fn stiffness_ratio(&self) -> f64 {
        0.0
    }

    /// Labels each coordinate with the component of the last factored Newton matrix it lies in
    /// (`usize::MAX` where nothing moves): a Newton step whose right-hand side lies in one
    /// component moves no coordinate of another, so the response of several rows to a unit
    /// multiplier each can come from one solve where their bodies' components differ. By
    /// default one component holds everything, which is always true.
    fn coupled_coordinates(&self, labels: &mut Vec<usize>) {
        labels.clear();
        labels.resize(self.inv_mass().len(), 0);
    }

    /// The multipliers of the step just taken, in the units of the explicit path's λ (the force
    /// is `Jᵀλ`), for the model to report.
    fn record(&mut self, lambda: &[f64]);

    /// λ of the last step, the stepper's starting guess for the geometric stiffness.
    fn last_multipliers(&self) -> &[f64];

    /// When Newton's method stalls: whether the row residuals `rows` of the rows marked `held`
    /// lie mostly where no change of `q` reaches them (outside the range of `J W Jᵀ` at the last
    /// assembled state), and if so the error naming the constraints that conflict. The default
    /// knows no names and says nothing.
    fn conflict(&self, rows: &[f64], held: &[bool]) -> Option<EvalError> {
        let _ = (rows, held);
        None
    }
}

/// The residuals and parameters of one Newton step of an implicit stepper (see
/// [`ConstrainedModel::newton_step`]).
///
/// ```
/// use bead::integrate::{NewtonSystem, Role};
/// let system = NewtonSystem {
///     h2: 1e-6,
///     proximal: 0.0,
///     lambda: &[0.0],
///     roles: &[Role::Held],
///     momentum: &[0.0, 0.0],
///     rows: &[1e-9],
/// };
/// assert_eq!(system.rows.len(), system.roles.len());
/// ```
#[derive(Clone, Copy, Debug)]
pub struct NewtonSystem<'a> {
    /// `ĥ²`, the square of the step's velocity scale (`h` for implicit Euler, `2h/3` for BDF2).
    pub h2: f64,
    /// The weight of the held rows' proximal term, which decides the split of redundant rows'
    /// forces (see the KKT solve).
    pub proximal: f64,
    /// The multipliers λ of the iterate, which weigh the geometric stiffness.
    pub lambda: &'a [f64],
    /// How each row takes part (see [`Role`]).
    pub roles: &'a [Role],
    /// `M (q − q̃) − ĥ² Q(q, q̇) − Jᵀμ` per coordinate.
    pub momentum: &'a [f64],
    /// Per row: a held row's residual `r`, or `μ − target` for a row whose multiplier is fixed.
    pub rows: &'a [f64],
}

/// One past state of an implicit step's prediction, `q̃ = Σ_k a_k q_k + ĥ Σ_k b_k q̇_k`.
///
/// ```
/// use bead::integrate::PastState;
/// // Implicit Euler's prediction q̃ = qₙ + h q̇ₙ: one state, both weights 1.
/// let (q, v) = ([1.0, 2.0], [0.5, 0.0]);
/// let past = PastState { position_weight: 1.0, velocity_weight: 1.0, t: 0.0, q: &q, v: &v };
/// assert_eq!(past.q.len(), past.v.len());
/// ```
#[derive(Clone, Copy, Debug)]
pub struct PastState<'a> {
    /// `a_k`, the weight of the state's positions.
    pub position_weight: f64,
    /// `b_k`, the weight of its velocities (times `ĥ`).
    pub velocity_weight: f64,
    /// Its time.
    pub t: f64,
    /// Its positions.
    pub q: &'a [f64],
    /// Its velocities.
    pub v: &'a [f64],
}

/// One step of an ODE scheme over `(q, q̇)`.
///
/// ```
/// use bead::integrate::{Dynamics, Integrator, Rk4};
/// use bead::EvalError;
/// /// A unit harmonic oscillator, q̈ = −q.
/// struct Spring;
/// impl Dynamics for Spring {
///     fn acceleration(&mut self, _t: f64, q: &[f64], _v: &[f64], a: &mut [f64]) -> Result<(), EvalError> {
///         a[0] = -q[0];
///         Ok(())
///     }
/// }
/// let (mut q, mut v) = ([1.0], [0.0]);
/// let mut rk4 = Rk4::default();
/// let h = std::f64::consts::PI / 500.0;
/// for i in 0..1000 {
///     let (q0, v0) = (q, v);
///     rk4.step(&mut Spring, i as f64 * h, h, &q0, &v0, &mut q, &mut v)?;
/// }
/// assert!((q[0] - 1.0).abs() < 1e-9); // one full period
/// # Ok::<(), EvalError>(())
/// ```
pub trait Integrator: Debug + Send {
    /// Short name (`"rk4"`, ...).
    fn name(&self) -> &'static str;

    /// Order of accuracy of the global error.
    fn order(&self) -> u32;

    /// Whether the scheme is implicit at the position level (its constraints hold at the step's
    /// end by construction, so impacts need no event location). `false` by default.
    fn implicit(&self) -> bool {
        false
    }

    /// The state the last step ended at was moved onto the constraints (a projection), by far
    /// less than the step's error: a scheme that carries history from step to step (BDF2, the
    /// implicit steppers' warm start) continues it from `(q, v)`, rather than restart as it does
    /// when the state was edited. Nothing by default.
    fn projected(&mut self, q: &[f64], v: &[f64]) {
        let _ = (q, v);
    }

    /// The state the last step ended at, `(q, v)`, is the same motion in new coordinates: a 3D
    /// rigid body's orientation is measured from where the step left it (see
    /// [`RigidBody3d`](crate::RigidBody3d)). A scheme that carries history (BDF2, the implicit
    /// steppers' warm start) maps each past state it keeps by `carry`, which re-expresses a
    /// `(q, v)` of the old coordinates in the new, and continues from `(q, v)`. Nothing by
    /// default.
    fn recentred(&mut self, q: &[f64], v: &[f64], carry: &mut dyn FnMut(&mut [f64], &mut [f64])) {
        let _ = (q, v, carry);
    }

    /// Advances `(q, v)` at time `t` by `h` into `(q_out, v_out)`. The first derivative evaluation
    /// is always at `(t, q, v)`.
    #[allow(clippy::too_many_arguments)]
    fn step(
        &mut self,
        dynamics: &mut dyn Dynamics,
        t: f64,
        h: f64,
        q: &[f64],
        v: &[f64],
        q_out: &mut [f64],
        v_out: &mut [f64],
    ) -> Result<(), EvalError>;
}

/// Makes an integrator with its default settings.
type MakeIntegrator = fn() -> Box<dyn Integrator>;

/// Every integrator, by the name scene files and the command line give it, with its default
/// settings: the one list a new integrator joins.
const INTEGRATORS: [(&str, MakeIntegrator); 6] = [
    ("euler", || Box::new(Euler::default())),
    ("symplectic-euler", || Box::new(SymplecticEuler::default())),
    ("midpoint", || Box::new(Midpoint::default())),
    ("rk4", || Box::new(Rk4::default())),
    ("implicit-euler", || Box::new(ImplicitEuler::default())),
    ("bdf2", || Box::new(Bdf2::default())),
];

/// The integrator called `name` in scene files and on the command line
/// (`euler`, `symplectic-euler`, `midpoint`, `rk4`, `implicit-euler`, `bdf2`), with default
/// settings.
///
/// ```
/// let rk4 = bead::integrate::by_name("rk4").unwrap();
/// assert_eq!((rk4.name(), rk4.order()), ("rk4", 4));
/// assert!(bead::integrate::by_name("leapfrog").is_none());
/// ```
pub fn by_name(name: &str) -> Option<Box<dyn Integrator>> {
    INTEGRATORS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, make)| make())
}

/// The names [`by_name`] accepts, in the order scene files and the command line list them.
///
/// ```
/// for name in bead::integrate::INTEGRATOR_NAMES {
///     assert_eq!(bead::integrate::by_name(name).unwrap().name(), name);
/// }
/// ```
pub const INTEGRATOR_NAMES: [&str; INTEGRATORS.len()] = {
    let mut names = [""; INTEGRATORS.len()];
    let mut i = 0;
    while i < names.len() {
        names[i] = INTEGRATORS[i].0;
        i += 1;
    }
    names
};

/// `out = x + h y`.
pub(crate) fn axpy(out: &mut [f64], x: &[f64], h: f64, y: &[f64]) {
    for (o, (a, b)) in out.iter_mut().zip(x.iter().zip(y)) {
        *o = a + h * b;
    }
}

pub(crate) fn resize(n: usize, bufs: &mut [&mut Vec<f64>]) {
    for b in bufs {
        b.resize(n, 0.0);
    }
}
