//! The settings a [`System`](crate::System) steps with: the feedback gains of seed 000 eq. 11,
//! the λ solve's tolerance, projection, how inequalities and impacts are handled (seed 004),
//! what one step reports back ([`StepStats`]), and how a start is moved onto the constraints
//! ([`Assembly`]).

use crate::contact::{Impacts, InequalityMethod};
use crate::error::ModelError;
use crate::solve::SolveParams;

/// The feedback terms of seed 000 eq. 11: solve for `C̈ = −k_s C − k_d Ċ` instead of `C̈ = 0`,
/// so that drift is pulled back with damping.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Feedback {
    /// Spring constant `k_s`, in 1/s².
    pub ks: f64,
    /// Damping constant `k_d`, in 1/s.
    pub kd: f64,
}

impl Feedback {
    /// Baumgarte's form (seed 004 eq. 5) for a time constant τ in seconds: `k_s = 1/τ²`,
    /// `k_d = 2/τ` (critical damping of the constraint error).
    ///
    /// ```
    /// let f = bead::Feedback::baumgarte(0.1);
    /// assert!((f.ks - 100.0).abs() < 1e-9 && (f.kd - 20.0).abs() < 1e-12);
    /// ```
    pub fn baumgarte(tau: f64) -> Self {
        Feedback {
            ks: 1.0 / (tau * tau),
            kd: 2.0 / tau,
        }
    }

    /// No feedback: the constraints are held at the acceleration level only, and drift.
    pub fn none() -> Self {
        Feedback { ks: 0.0, kd: 0.0 }
    }
}

impl Default for Feedback {
    /// Baumgarte with τ = 0.1 s (`k_s = 100`, `k_d = 20`).
    fn default() -> Self {
        Feedback::baumgarte(0.1)
    }
}

/// Post-step projection of `q` and `q̇` back onto the constraint manifold.
///
/// After each step: Newton iterations `q ← q − W Jᵀ (J W Jᵀ)⁻¹ C` until `max |C| ≤ tolerance`,
/// then `q̇ ← q̇ − W Jᵀ (J W Jᵀ)⁻¹ Ċ`. Mass-weighted, so the correction is the smallest in kinetic
/// metric. For users who want zero drift rather than Baumgarte feedback.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Projection {
    /// Newton iterations at most.
    pub max_iterations: usize,
    /// Target `max |C|`, in the constraints' units (metres for the built-ins).
    pub tolerance: f64,
}

impl Default for Projection {
    fn default() -> Self {
        Projection {
            max_iterations: 10,
            tolerance: 1e-12,
        }
    }
}

/// How [`System::assemble`](crate::System::assemble) moves a state onto its constraints.
///
/// Positions: Newton's iteration `q ← q + W Jᵀ μ` with `J W Jᵀ μ = −C` (the correction smallest
/// in kinetic metric, as [`Projection`] makes after a step; in least squares where that has no
/// solution), until every equality has `|C| ≤ tolerance` and no inequality is deeper inside than
/// that plus [`Settings::contact_tolerance`] (within which redundant contacts are solved).
/// Velocities: then, unless the equalities' `|Ċ|` is already within `velocity_tolerance`, the
/// same projection of `q̇` onto `J q̇ + ∂C/∂t = 0`.
///
/// ```
/// let assembly = bead::Assembly::default();
/// assert_eq!(assembly.tolerance, 1e-10);
/// assert!(assembly.check().is_ok());
/// assert!(bead::Assembly { max_iterations: 0, ..assembly }.check().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Assembly {
    /// Newton iterations at most.
    pub max_iterations: usize,
    /// Target `max |C|`, in the constraints' units (metres for the built-ins).
    pub tolerance: f64,
    /// Velocities are projected when some equality's `|Ċ|` exceeds this (the constraints' units
    /// per second); below it they are left as they are, so that a state already on its
    /// constraints is not changed by a rounding.
    pub velocity_tolerance: f64,
}

impl Default for Assembly {
    /// 50 iterations, both tolerances 1e-10 (Newton's default of the implicit integrators).
    fn default() -> Self {
        Assembly {
            max_iterations: 50,
            tolerance: 1e-10,
            velocity_tolerance: 1e-10,
        }
    }
}

impl Assembly {
    /// Checks the options: positive finite tolerances and at least one iteration.
    ///
    /// ```
    /// let mut assembly = bead::Assembly::default();
    /// assembly.velocity_tolerance = f64::NAN;
    /// assert!(assembly.check().is_err());
    /// ```
    pub fn check(&self) -> Result<(), ModelError> {
        let positive = |x: f64| x > 0.0 && x.is_finite();
        if !(positive(self.tolerance) && positive(self.velocity_tolerance))
            || self.max_iterations == 0
        {
            return Err(ModelError::Setting(format!(
                "assembly needs positive tolerances and iterations: {self:?}"
            )));
        }
        Ok(())
    }
}

/// Settings of the multiplier solve and of constraint stabilization.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    /// Feedback gains of eq. 11.
    pub feedback: Feedback,
    /// Tolerance and iteration cap of the λ solve.
    pub solve: SolveParams,
    /// Post-step projection, off by default.
    pub projection: Option<Projection>,
    /// How inequality constraints are chosen to take part (seed 004).
    pub inequality: InequalityMethod,
    /// An inequality row counts as active when `g ≤ contact_tolerance` (metres for the
    /// built-ins), or when it rests on a moving support: held by the last step and pushing at
    /// its end, within the offset that step leaves between body and support (see
    /// [`crate::contact`]).
    pub contact_tolerance: f64,
    /// How impacts are found and resolved: located inside steps (the default), speculative
    /// (time-stepping, for piles), or off (see [`Impacts`]).
    pub impacts: Impacts,
    /// Coefficient of restitution of inequality constraints that do not set their own (0 to 1).
    pub restitution: f64,
    /// Impacts slower than this (m/s for the built-ins) are perfectly inelastic, so that a
    /// bouncing ball comes to rest after finitely many bounces instead of a Zeno cascade.
    pub rest_speed: f64,
    /// The rate, in 1/s, at which velocity-level rows (motors) remove a speed error: their target
    /// is `C̈ = −r Ċ`, whatever the feedback gains of the position rows. `None` (the default) is
    /// `1/dt` of the step being taken, so that a motor strong enough reaches its speed within
    /// about one step, as the motors of Box2D and most game engines do; a given rate is capped at
    /// `1/dt` too, beyond which the explicit integrators would overshoot.
    pub motor_rate: Option<f64>,
    /// A step fails as diverged when the constraint error max |C| (equalities, and inequalities
    /// below zero) exceeds this, in the constraints' units (metres and radians for the
    /// built-ins). An unstable integration stays finite long after its numbers stop meaning
    /// anything; this reports it as soon as a rod is off by more than a metre. Raise it for
    /// models whose constraints are legitimately that far from satisfied (a model kilometres
    /// wide, or one started far off its constraints on purpose); `f64::INFINITY` turns the check
    /// off.
    pub divergence_limit: f64,
}

impl Settings {
    /// Checks the settings: non-negative finite gains, positive tolerances and limits, a
    /// projection that can iterate.
    ///
    /// ```
    /// let mut settings = bead::Settings::default();
    /// assert!(settings.check().is_ok());
    /// settings.contact_tolerance = -1.0;
    /// assert!(settings.check().is_err());
    /// ```
    pub fn check(&self) -> Result<(), ModelError> {
        let f = self.feedback;
        if !(f.ks >= 0.0 && f.kd >= 0.0 && f.ks.is_finite() && f.kd.is_finite()) {
            return Err(ModelError::Setting(format!(
                "feedback gains must be non-negative and finite, got {f:?}"
            )));
        }
        if !(self.solve.tolerance > 0.0 && self.solve.tolerance.is_finite()) {
            return Err(ModelError::Setting(format!(
                "solver tolerance must be positive, got {}",
                self.solve.tolerance
            )));
        }
        if !(self.divergence_limit > 0.0) {
            return Err(ModelError::Setting(format!(
                "the divergence limit must be positive, got {}",
                self.divergence_limit
            )));
        }
        if !(self.contact_tolerance > 0.0 && self.contact_tolerance.is_finite()) {
            return Err(ModelError::Setting(format!(
                "the contact tolerance must be positive, got {}",
                self.contact_tolerance
            )));
        }
        if let Some(r) = self.motor_rate
            && !(r > 0.0)
        {
            return Err(ModelError::Setting(format!(
                "the motor rate must be positive, got {r}"
            )));
        }
        if let Some(p) = self.projection
            && (!(p.tolerance > 0.0 && p.tolerance.is_finite()) || p.max_iterations == 0)
        {
            return Err(ModelError::Setting(format!(
                "projection needs a positive tolerance and iterations: {p:?}"
            )));
        }
        Ok(())
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            feedback: Feedback::default(),
            solve: SolveParams::default(),
            projection: None,
            inequality: InequalityMethod::default(),
            contact_tolerance: 1e-9,
            impacts: Impacts::Located,
            restitution: 0.0,
            rest_speed: 1e-3,
            motor_rate: None,
            divergence_limit: 1.0,
        }
    }
}

/// What one step did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepStats {
    /// Derivative evaluations (4 for RK4).
    pub evaluations: usize,
    /// Largest solver iteration count among them.
    pub solver_iterations: usize,
    /// Largest final relative residual among them.
    pub solver_residual: f64,
    /// Most multiplier solves one evaluation needed to choose its inequality rows (Jonquet's
    /// passes, or the complementarity pivots); 1 without inequality constraints.
    pub active_set_passes: usize,
    /// Times an implicit step (or a part of it) whose Newton iteration did not converge was
    /// taken again as two halves; 0 for a step taken whole. Every part meets the stepper's
    /// tolerances.
    pub halved: usize,
}
