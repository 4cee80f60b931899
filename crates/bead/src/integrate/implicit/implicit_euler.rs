//! Implicit Euler at the position level, with the constraints holding at the end of the step
//! (Tournier et al. 2015, "Stable Constrained Dynamics"; Goldenthal et al. 2007's fast projection
//! is its special case without geometric stiffness).
//!
//! With `h` the step and every force, applied and constraint, taken at its end:
//!
//! ```text
//! q̃ = qₙ + h q̇ₙ                                               the inertial prediction
//! M(q) (q − q̃) − h² (Q(q, q̇ₙ₊₁) + J(q)ᵀ λ) = 0,   C(q, tₙ₊₁) = 0    solved for q and λ
//! q̇ₙ₊₁ = (q − qₙ) / h
//! ```
//!
//! Newton's matrix takes the applied forces' Jacobians (`M − h² ∂Q/∂q − h ∂Q/∂q̇`, Baraff and
//! Witkin 1998) and a parametric object's own block, so a stiff spring, a strong damper or an
//! object with a nearly singular mass converges as a stiff constraint does. The iteration starts
//! from `q̃` moved on by the acceleration the last steps extrapolate to, or from `q̃` itself.
//!
//! A velocity row (a motor) holds `J q̇ₙ₊₁ + ∂C/∂t = 0`, that is `J (q − qₙ) + h ∂C/∂t = 0`; an
//! inequality row holds `g ≥ 0` with `λ ≥ 0` complementary to it, so contact needs no event
//! location and is perfectly inelastic.
//!
//! The Newton solve that finds them is [`super::newton`]'s, shared with [`Bdf2`](super::Bdf2).
//!
//! Implicit Euler damps: its energy error is first order in `h`, largest on the fastest modes.
//! That is what makes it stable on a 10,000-link chain, and why it is not the integrator to
//! measure a pendulum's period with.

use super::halving::{HALVINGS, euler_in_halves};
use super::newton::Stopping;
use super::work::Work;
use super::{NEWTON_RELATIVE_TOLERANCE, NEWTON_TOLERANCE};
use crate::error::EvalError;
use crate::integrate::{Dynamics, Integrator};

/// Position-level implicit Euler: unconditionally stable on stiff constraints (long chains,
/// cloth), first order, dissipative.
///
/// ```
/// use bead::integrate::ImplicitEuler;
/// use bead::{constraint::Distance, force::Gravity, Particle, System};
/// // A chain of 2,000 rods, 1 m long in all: the explicit integrators diverge at this dt.
/// let mut sys = System::new(2)?;
/// sys.set_integrator(ImplicitEuler::default());
/// sys.set_solver(bead::solve::SparseLdlt::default());
/// let n = 2000;
/// let (s, c) = 30f64.to_radians().sin_cos();
/// let mut prev = sys.add_particle(Particle::anchor(&[0.0, 0.0]))?;
/// for i in 1..=n {
///     let x = i as f64 / n as f64;
///     let next = sys.add_particle(Particle::new(&[x * s, -x * c]).mass(1.0 / n as f64))?;
///     sys.add_constraint(Distance::new(prev, next, 1.0 / n as f64))?;
///     prev = next;
/// }
/// sys.add_force(Gravity::new(&[0.0, -9.81]))?;
/// for _ in 0..20 {
///     sys.step(1e-3).expect("stable");
/// }
/// assert!(sys.diagnostics().unwrap().max_abs_c < 1e-8);
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Debug)]
pub struct ImplicitEuler {
    /// Largest `|C|∞` (metres and radians for the built-ins) at which the Newton iteration
    /// stops (default [`NEWTON_TOLERANCE`], 1e-10).
    pub tolerance: f64,
    /// Largest momentum residual `|W (M (q − q̃) − h² Jᵀλ)|∞` at which the Newton iteration
    /// stops, relative to the displacement the step's forces make, constraint forces
    /// (`h² |W Jᵀλ|∞`) or applied ones (`h² |W Q|∞`), whichever is larger: λ and `q̇` come out
    /// accurate to this fraction of the forces in play at every `h` (default
    /// [`NEWTON_RELATIVE_TOLERANCE`], 1e-8). Rounding of the positions sets a floor below it at
    /// very small steps.
    pub relative_tolerance: f64,
    /// Newton iterations allowed per step before the step fails.
    pub max_iterations: usize,
    work: Work,
}

impl Default for ImplicitEuler {
    fn default() -> Self {
        ImplicitEuler::new(NEWTON_TOLERANCE, 200)
    }
}

impl ImplicitEuler {
    /// Implicit Euler stopping Newton at `tolerance`, failing a step after `max_iterations`.
    ///
    /// ```
    /// let stepper = bead::integrate::ImplicitEuler::new(1e-9, 20);
    /// assert_eq!(stepper.max_iterations, 20);
    /// ```
    pub fn new(tolerance: f64, max_iterations: usize) -> Self {
        ImplicitEuler {
            tolerance,
            relative_tolerance: NEWTON_RELATIVE_TOLERANCE,
            max_iterations,
            work: Work::default(),
        }
    }

    /// The same stepper with the momentum residual's relative tolerance set (see
    /// [`ImplicitEuler::relative_tolerance`]).
    ///
    /// ```
    /// let stepper = bead::integrate::ImplicitEuler::default().with_relative_tolerance(1e-10);
    /// assert_eq!(stepper.relative_tolerance, 1e-10);
    /// ```
    pub fn with_relative_tolerance(mut self, relative_tolerance: f64) -> Self {
        self.relative_tolerance = relative_tolerance;
        self
    }

    /// Newton iterations the last step took (0 for a model without constraints).
    pub fn last_iterations(&self) -> usize {
        self.work.iterations
    }

    /// Steps since this stepper was made whose Newton iteration did not converge and that were
    /// taken again as two halves (each halved again as it needed, down to 1/16 of the step):
    /// every sub-step meets the same tolerances.
    ///
    /// ```
    /// assert_eq!(bead::integrate::ImplicitEuler::default().halved_steps(), 0);
    /// ```
    pub fn halved_steps(&self) -> usize {
        self.work.halved
    }

    /// Numeric factorizations of the Newton matrix since this stepper was made: chord
    /// iterations reuse one factor across iterations and steps while it serves.
    pub fn factorizations(&self) -> usize {
        self.work.factorizations
    }
}

impl Integrator for ImplicitEuler {
    fn name(&self) -> &'static str {
        "implicit-euler"
    }

    fn order(&self) -> u32 {
        1
    }

    fn implicit(&self) -> bool {
        true
    }

    fn projected(&mut self, q: &[f64], v: &[f64]) {
        self.work.projected(q, v);
    }

    fn recentred(&mut self, q: &[f64], v: &[f64], _carry: &mut dyn FnMut(&mut [f64], &mut [f64])) {
        self.work.projected(q, v);
    }

    fn step(
        &mut self,
        f: &mut dyn Dynamics,
        t: f64,
        h: f64,
        q: &[f64],
        v: &[f64],
        q_out: &mut [f64],
        v_out: &mut [f64],
    ) -> Result<(), EvalError> {
        let stop = Stopping {
            tolerance: self.tolerance,
            relative: self.relative_tolerance,
            max_iterations: self.max_iterations,
        };
        euler_in_halves(
            &mut self.work,
            f,
            (t, t + h),
            (q, v),
            (q_out, v_out),
            stop,
            HALVINGS,
        )
    }
}
