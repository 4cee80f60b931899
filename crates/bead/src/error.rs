//! Errors of model building ([`ModelError`], and [`InvalidParameter`] for the parameter of a
//! constraint or a force that its `check` rejects), of one evaluation of the model ([`EvalError`],
//! [`ConstraintError`]) and of time stepping ([`StepError`]).
//!
//! They sit low in the engine, beside the handles they name, so that every layer returns them
//! without reaching up: the numerics below return their own ([`SolveError`]), which these wrap.

use crate::ids::{BodyId, ConstraintId, ForceId};
use crate::solve::SolveError;

/// Something a caller asked of the model is invalid; nothing was changed.
///
/// Kept small (a parameter error is boxed) because a step's error carries one.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ModelError {
    /// Only 2D and 3D systems exist.
    #[error("the dimension must be 2 or 3, not {0}")]
    Dimension(usize),
    /// A vector has the wrong number of components.
    #[error("{what} has {got} components; the system is {dim}D")]
    WrongLength {
        /// Which vector.
        what: &'static str,
        /// Its length.
        got: usize,
        /// The system's dimension.
        dim: usize,
    },
    /// A number is NaN or infinite where that is not allowed.
    #[error("{0} must be finite")]
    NonFinite(&'static str),
    /// Mass must be positive, or infinity for an anchor.
    #[error("mass must be positive (or infinity for an anchor), got {0}")]
    Mass(f64),
    /// Radius must be zero or positive.
    #[error("radius must be zero or positive and finite, got {0}")]
    Radius(f64),
    /// A handle names no body of this system.
    #[error("body {0:?} does not exist in this system")]
    UnknownBody(BodyId),
    /// A handle names no constraint of this system.
    #[error("constraint {0:?} does not exist in this system")]
    UnknownConstraint(ConstraintId),
    /// A handle names no force of this system.
    #[error("force {0:?} does not exist in this system")]
    UnknownForce(ForceId),
    /// A constraint's parameters are invalid.
    #[error("invalid constraint: {0}")]
    Constraint(String),
    /// A force's parameters are invalid.
    #[error("invalid force: {0}")]
    Force(String),
    /// One parameter of a constraint is invalid ([`Constraint::check`] said which).
    ///
    /// [`Constraint::check`]: crate::constraint::Constraint::check
    ///
    /// ```
    /// use bead::constraint::Distance;
    /// use bead::{ModelError, Particle, System};
    /// let mut sys = System::new(2)?;
    /// let a = sys.add_particle(Particle::new(&[0.0, 0.0]))?;
    /// let b = sys.add_particle(Particle::new(&[1.0, 0.0]))?;
    /// let Err(ModelError::ConstraintParameter(e)) = sys.add_constraint(Distance::new(a, b, -1.0))
    /// else {
    ///     panic!("a rod of length −1 was accepted");
    /// };
    /// assert_eq!(e.parameter, "length");
    /// # Ok::<(), ModelError>(())
    /// ```
    #[error("invalid constraint: {0}")]
    ConstraintParameter(Box<InvalidParameter>),
    /// One parameter of a force is invalid ([`Force::check`] said which).
    ///
    /// [`Force::check`]: crate::force::Force::check
    ///
    /// ```
    /// use bead::force::Drag;
    /// use bead::{ModelError, System};
    /// let mut sys = System::new(2)?;
    /// let Err(ModelError::ForceParameter(e)) = sys.add_force(Drag::new(f64::NAN)) else {
    ///     panic!("a drag coefficient of NaN was accepted");
    /// };
    /// assert_eq!(e.parameter, "coefficient");
    /// # Ok::<(), ModelError>(())
    /// ```
    #[error("invalid force: {0}")]
    ForceParameter(Box<InvalidParameter>),
    /// A setting is invalid.
    #[error("invalid setting: {0}")]
    Setting(String),
}

/// One parameter of a constraint or a force is invalid: which one, why, and how to fix it.
///
/// [`Constraint::check`](crate::constraint::Constraint::check) and
/// [`Force::check`](crate::force::Force::check) return it, and the system refuses the constraint
/// or force with it ([`ModelError::ConstraintParameter`], [`ModelError::ForceParameter`]).
/// `parameter` names the parameter as its constructor and the scene format call it (`length`,
/// `radii[1]`, `max_torque`), so that a caller can point at it: a scene file's error names the
/// field, `constraints[3].length`. It displays as `PARAMETER: REASON (HINT)`.
///
/// ```
/// use bead::InvalidParameter;
/// let e = InvalidParameter::new("length", "must be positive and finite, got 0")
///     .hint("a rod needs a positive length");
/// assert_eq!(e.parameter, "length");
/// assert_eq!(
///     e.to_string(),
///     "length: must be positive and finite, got 0 (a rod needs a positive length)"
/// );
/// ```
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{parameter}: {reason}{}", hint_suffix(.hint))]
pub struct InvalidParameter {
    /// The parameter, as its constructor and the scene format name it: `length`, `radii[1]` (a
    /// component of a vector or of a pair), `max_torque`; `between` for the points or bodies a
    /// constraint joins, `dimension` when the parameter is the system's dimension.
    ///
    /// ```
    /// use bead::InvalidParameter;
    /// assert_eq!(InvalidParameter::new("radii[1]", "must be non-zero").parameter, "radii[1]");
    /// ```
    pub parameter: String,
    /// What is wrong with it, without its name: `must be positive and finite, got 0`.
    ///
    /// ```
    /// use bead::InvalidParameter;
    /// let e = InvalidParameter::new("speed", "must be finite, got NaN");
    /// assert_eq!(e.reason, "must be finite, got NaN");
    /// ```
    pub reason: String,
    /// How to fix it, when there is something useful to say.
    ///
    /// ```
    /// use bead::InvalidParameter;
    /// let e = InvalidParameter::new("length", "must be positive")
    ///     .hint("to join two points use a nail");
    /// assert_eq!(e.hint.as_deref(), Some("to join two points use a nail"));
    /// ```
    pub hint: Option<String>,
}

impl InvalidParameter {
    /// `parameter` is invalid for `reason`, with no hint.
    ///
    /// ```
    /// use bead::InvalidParameter;
    /// let e = InvalidParameter::new("max_torque", "must be positive, got -1");
    /// assert_eq!(e.to_string(), "max_torque: must be positive, got -1");
    /// ```
    pub fn new(parameter: impl Into<String>, reason: impl Into<String>) -> Self {
        InvalidParameter {
            parameter: parameter.into(),
            reason: reason.into(),
            hint: None,
        }
    }

    /// The same error with a hint on how to fix it.
    ///
    /// ```
    /// use bead::InvalidParameter;
    /// let e = InvalidParameter::new("b", "must be finite, got inf")
    ///     .hint("nan and inf are not allowed here");
    /// assert_eq!(
    ///     e.to_string(),
    ///     "b: must be finite, got inf (nan and inf are not allowed here)"
    /// );
    /// ```
    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}

/// The checks the built-in constraints and forces make of their numbers and vectors, in one
/// wording, so that every `check` reads the same (and a scene file's errors with them).
impl InvalidParameter {
    /// A finite number.
    pub(crate) fn check_finite(parameter: &str, x: f64) -> Result<(), Self> {
        if x.is_finite() {
            return Ok(());
        }
        Err(Self::new(parameter, format!("must be finite, got {x}"))
            .hint("nan and inf are not allowed here"))
    }

    /// A range `[min, max]` of finite numbers with `min ≤ max`, the bounds named `min` and `max`.
    pub(crate) fn check_range([min, max]: [f64; 2]) -> Result<(), Self> {
        Self::check_finite("min", min)?;
        Self::check_finite("max", max)?;
        if min > max {
            return Err(Self::new("max", format!("max {max} is below min {min}")));
        }
        Ok(())
    }

    /// A positive finite number.
    pub(crate) fn check_positive(parameter: &str, x: f64) -> Result<(), Self> {
        if x > 0.0 && x.is_finite() {
            return Ok(());
        }
        Err(
            Self::new(parameter, format!("must be positive and finite, got {x}"))
                .hint("give a number greater than zero"),
        )
    }

    /// A finite number, zero or more.
    pub(crate) fn check_non_negative(parameter: &str, x: f64) -> Result<(), Self> {
        if x >= 0.0 && x.is_finite() {
            return Ok(());
        }
        Err(Self::new(
            parameter,
            format!("must be zero or positive and finite, got {x}"),
        )
        .hint("give a number that is zero or more"))
    }

    /// A vector of `dim` finite numbers; a bad component is named by its index, `g[1]`.
    pub(crate) fn check_vector(parameter: &str, v: &[f64], dim: usize) -> Result<(), Self> {
        if v.len() != dim {
            return Err(Self::new(
                parameter,
                format!("has {} components; the system is {dim}D", v.len()),
            )
            .hint(format!(
                "give {dim} numbers, like [{}]",
                vec!["0.0"; dim].join(", ")
            )));
        }
        if let Some(i) = v.iter().position(|x| !x.is_finite()) {
            return Err(Self::new(
                format!("{parameter}[{i}]"),
                format!("must be finite, got {}", v[i]),
            )
            .hint("nan and inf are not allowed in vectors"));
        }
        Ok(())
    }

    /// A vector of `dim` finite numbers, not all zero.
    pub(crate) fn check_non_zero(parameter: &str, v: &[f64], dim: usize) -> Result<(), Self> {
        Self::check_vector(parameter, v, dim)?;
        if v.iter().all(|x| *x == 0.0) {
            return Err(Self::new(parameter, "has zero length")
                .hint("a direction or normal needs a non-zero vector"));
        }
        Ok(())
    }

    /// A direction or a normal: a non-zero vector of `dim` finite numbers with a length to divide
    /// by.
    pub(crate) fn check_direction(parameter: &str, v: &[f64], dim: usize) -> Result<(), Self> {
        Self::check_non_zero(parameter, v, dim)?;
        if crate::math::vector::normalized(v).is_some() {
            return Ok(());
        }
        // Finite components whose length overflows: not zero, but no direction either.
        Err(Self::new(parameter, "is too long to normalize")
            .hint("scale it down: only its direction counts"))
    }
}

fn hint_suffix(hint: &Option<String>) -> String {
    match hint {
        Some(hint) => format!(" ({hint})"),
        None => String::new(),
    }
}

/// The constraint that was furthest from satisfied when a step failed.
#[derive(Clone, Debug, PartialEq)]
pub struct WorstConstraint {
    /// The constraint.
    pub id: ConstraintId,
    /// Its name.
    pub name: String,
    /// Its largest |C| at the failing evaluation (for an inequality, its violation
    /// `max(−g, 0)`).
    pub abs_c: f64,
}

/// How far the state is from one constraint ([`System::violations`](crate::System::violations)):
/// what a position and a velocity would have to change by for it to hold.
///
/// ```
/// use bead::{constraint::Distance, Particle, System};
/// let mut sys = System::new(2)?;
/// let nail = sys.add_particle(Particle::anchor(&[0.0, 0.0]))?;
/// let bob = sys.add_particle(Particle::new(&[1.5, 0.0]).velocity(&[2.0, 0.0]))?;
/// let rod = sys.add_constraint(Distance::new(nail, bob, 1.0))?;
/// let v = &sys.violations().unwrap()[0];
/// assert_eq!((v.id, v.name.as_str()), (rod, "c0"));
/// assert!((v.abs_c - 0.5).abs() < 1e-12 && (v.abs_c_dot - 2.0).abs() < 1e-12);
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Violation {
    /// The constraint.
    pub id: ConstraintId,
    /// Its name.
    pub name: String,
    /// Its largest `|C|` over its equality rows and, for an inequality, how deep it is inside
    /// (`max(−g, 0)`: a gap is not a violation), in the constraint's units (metres, radians for
    /// the built-ins). NaN if `C` is not finite.
    pub abs_c: f64,
    /// Its largest `|Ċ| = |J q̇ + ∂C/∂t|` over its equality rows, in the constraint's units per
    /// second. Inequalities and motors count 0: a contact that approaches is an impact, and a
    /// motor's speed error is its own to remove.
    pub abs_c_dot: f64,
}

/// [`System::assemble`](crate::System::assemble) could not move the state onto the
/// constraints; the state is left as it was.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum AssemblyError {
    /// Newton's iteration did not bring every constraint within the tolerance: the constraints
    /// named conflict (two nails holding one point at two places), or the bodies that can move
    /// cannot reach them (a rod longer than the anchors it joins are apart).
    #[error(
        "the state could not be moved onto the constraints: after {iterations} iterations {} \
         still off ({}); they conflict with each other, or the bodies that can move cannot \
         reach them",
        if .off.len() == 1 { "one is" } else { "some are" },
        offsets(.off)
    )]
    NoConvergence {
        /// Newton iterations done.
        iterations: usize,
        /// The constraints still further than the tolerance, the furthest first.
        off: Vec<Violation>,
    },
    /// A constraint could not be evaluated, or the constraints conflict so that no correction
    /// satisfies them together (the message names them).
    #[error("moving the state onto the constraints: {0}")]
    Failed(StepFailure),
    /// The [`Assembly`](crate::Assembly) options are invalid.
    #[error(transparent)]
    Options(ModelError),
}

/// `'rod' |C| = 5.000e-1, 'hinge' |C| = 2.000e-3`, shortened past four constraints.
fn offsets(off: &[Violation]) -> String {
    const SHOWN: usize = 4;
    let mut list: Vec<String> = off
        .iter()
        .take(SHOWN)
        .map(|v| format!("'{}' |C| = {:.3e}", v.name, v.abs_c))
        .collect();
    if off.len() > SHOWN {
        list.push(format!("{} more", off.len() - SHOWN));
    }
    list.join(", ")
}

/// Why a step failed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum StepFailure {
    /// The time step is not a positive finite number.
    #[error("the time step must be positive and finite, got {0}")]
    InvalidStep(f64),
    /// A derivative evaluation failed.
    #[error(transparent)]
    Eval(#[from] EvalError),
    /// The new state holds a NaN or an infinity: the simulation diverged.
    #[error("the state is no longer finite: the simulation diverged (try a smaller dt)")]
    Diverged,
    /// More impacts than the limit inside one step (a cascade the rest rule did not end).
    #[error("more than {0} impacts inside one step")]
    TooManyImpacts(usize),
    /// The contact broad phase could not update a group's pair constraints.
    #[error("updating the contact pairs: {0}")]
    BroadPhase(ModelError),
    /// Projection onto the constraint manifold did not reach its tolerance.
    #[error("projection onto the constraints did not converge (max |C| = {0:.3e})")]
    Projection(f64),
}

/// A step could not be taken; the system still holds the last good state.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("step {step} at t = {} s failed{}: {cause}", time(*.t), worst_suffix(.worst))]
pub struct StepError {
    /// Time at the start of the failed step, in seconds.
    pub t: f64,
    /// Number of the failed step (the first step is 1).
    pub step: u64,
    /// The constraint furthest from satisfied, if there are constraints.
    pub worst: Option<WorstConstraint>,
    /// What went wrong.
    pub cause: StepFailure,
}

/// A time as a reader takes it in: `0.994`, but `1e-300` rather than three hundred digits.
fn time(t: f64) -> String {
    if t == 0.0 || (1e-4..1e9).contains(&t.abs()) {
        t.to_string()
    } else {
        format!("{t:e}")
    }
}

fn worst_suffix(worst: &Option<WorstConstraint>) -> String {
    match worst {
        Some(w) => format!(" (worst constraint '{}', |C| = {:.3e})", w.name, w.abs_c),
        None => String::new(),
    }
}

/// A constraint could not be evaluated at this state (for example, a rod whose two ends coincide
/// has no direction).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{reason}")]
pub struct ConstraintError {
    /// What went wrong, in the user's terms.
    pub reason: String,
}

impl ConstraintError {
    /// An error with the given reason.
    pub fn new(reason: impl Into<String>) -> Self {
        ConstraintError {
            reason: reason.into(),
        }
    }
}

/// What [`EvalError::NoConvergence`] says of its cause: slow convergence, which a smaller step
/// or more iterations cure, or an active set that cycles.
fn no_convergence_advice(role_changes: usize) -> String {
    if role_changes == 0 {
        "try a smaller dt or more iterations".into()
    } else {
        format!(
            "the contacts' active set was still changing ({role_changes} rows in the last \
             iteration): a pile packing many contacts at once can take more iterations than \
             allowed (raise newton_iterations, docs/implicit.md)"
        )
    }
}

/// Why a derivative evaluation failed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum EvalError {
    /// A constraint could not be evaluated at this state.
    #[error("constraint '{name}': {source}")]
    Constraint {
        /// The constraint.
        id: ConstraintId,
        /// Its name.
        name: String,
        /// What went wrong.
        source: ConstraintError,
    },
    /// The multiplier system could not be solved.
    #[error("solving for the constraint forces: {0}")]
    Solve(#[from] SolveError),
    /// An inequality (a stop, a contact) hit while equality rows (a motor without a force
    /// limit, joints) hold the motion that closes it: no impulse can stop it, and going on
    /// would carry the bodies through the stop.
    #[error(
        "'{stop}' is driven into its bound at {speed:.3e} a second by {}, with no way to give: \
         they conflict, and no impulse can stop it; give the motor a force limit (max_force, \
         max_torque), or remove one of them",
        quoted(.drivers)
    )]
    DrivenIntoStop {
        /// The inequality constraint that is hit.
        stop: String,
        /// The equality constraints that drive it in, in the model's order.
        drivers: Vec<String>,
        /// Its approach speed, in its own units (m/s, rad/s).
        speed: f64,
    },
    /// No constraint forces satisfy the constraints together: the ones named pull against each
    /// other (two nails holding one point at two places, a rod shorter than the nails at its
    /// ends allow). Redundant constraints that agree (a rod doubled) are solved, not reported.
    #[error(
        "the constraints {} conflict: no forces satisfy them together (least-squares relative \
         residual {residual:.3e}); remove one of them or make them agree",
        quoted(.constraints)
    )]
    Conflict {
        /// The constraints whose rows carry the part of the right-hand side no λ produces, in
        /// the model's order.
        constraints: Vec<String>,
        /// Relative residual of the least-squares solution.
        residual: f64,
    },
    /// A force or a constraint produced a NaN or an infinity.
    #[error("{0} is not finite")]
    NonFinite(String),
    /// No multipliers satisfy the inequality and bounded rows together: the constraints named
    /// conflict (a contact that no force can hold), or the problem cycles.
    #[error("no consistent constraint forces: {reason} (constraints {})", .constraints.join(", "))]
    Complementarity {
        /// The constraints of the rows that could not be made complementary.
        constraints: Vec<String>,
        /// What went wrong.
        reason: String,
    },
    /// The model asks for something the chosen stepper does not do.
    #[error("{0}")]
    Unsupported(String),
    /// A 3D rigid body turned by nearly a whole turn (2π) within one step or one Newton
    /// iterate, where its step's coordinates are singular.
    #[error(
        "3D rigid body {} (counting bodies from 0 as added) turned by {turn:.3} rad within one \
         step, where its rotation's coordinates are singular (2π): the step diverged or the body \
         spins too fast for it; take a smaller step or an implicit stepper, or start the model on \
         its joints",
        .body.0
    )]
    WholeTurn {
        /// The body.
        body: crate::ids::BodyId,
        /// The turn, rad.
        turn: f64,
    },
    /// A parametric object's generalized mass `Σ m Jᵀ J` is singular: some motion of its
    /// coordinates moves none of its points (a curve whose speed vanishes).
    #[error(
        "parametric object '{object}': its generalized mass is singular at u = {coordinates:?} \
         (some change of u moves none of its points); choose coordinates that stay regular there"
    )]
    SingularMass {
        /// The object's name.
        object: String,
        /// Its coordinates at the failing evaluation.
        coordinates: Vec<f64>,
    },
    /// The implicit stepper's Newton iteration did not reach its tolerance.
    #[error(
        "Newton's method did not converge in {iterations} iterations (max |C| = {max_abs_c:.3e}, \
         momentum residual {momentum_residual:.3e} m): {}",
        no_convergence_advice(*role_changes)
    )]
    NoConvergence {
        /// Iterations done.
        iterations: usize,
        /// Largest constraint error at the last iterate.
        max_abs_c: f64,
        /// Largest `|W (M (q − q̃) − h² Jᵀλ)|` at the last iterate.
        momentum_residual: f64,
        /// Contact and bounded rows whose role (held, or at a bound) the last iteration was
        /// still changing: when nonzero, the active set cycled rather than converged slowly.
        role_changes: usize,
    },
    /// The implicit stepper's contacts, solved as their own complementarity problem at each
    /// Newton iteration (redundant contacts with friction), did not settle.
    #[error(
        "the contacts' forces did not settle in {iterations} Newton iterations \
         (max |C| = {max_abs_c:.3e}): neither the sweeps nor Lemke's pivoting (which takes no \
         3D contact's friction) solved the contacts' complementarity problem at this iterate \
         (docs/friction.md, Limits); a smaller dt can carry the run further"
    )]
    ContactsUnsettled {
        /// Iterations done.
        iterations: usize,
        /// Largest constraint error at the last iterate (complementarity aware).
        max_abs_c: f64,
    },
    /// The constraint error grew past [`Settings::divergence_limit`](crate::Settings::divergence_limit): the integration is
    /// unstable, and the numbers that follow would mean nothing.
    #[error(
        "max |C| = {max_abs_c:.3e} exceeds the divergence limit {limit}: the simulation diverged \
         (try a smaller dt, another integrator, or weaker feedback)"
    )]
    Diverged {
        /// The largest constraint error at the failing evaluation.
        max_abs_c: f64,
        /// The limit it crossed.
        limit: f64,
    },
}

/// `'a', 'b' and 'c'`, shortened past eight names.
fn quoted(names: &[String]) -> String {
    const SHOWN: usize = 8;
    let mut list: Vec<String> = names.iter().take(SHOWN).map(|n| format!("'{n}'")).collect();
    if names.len() > SHOWN {
        list.push(format!("{} more", names.len() - SHOWN));
    }
    match list.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => list.join(""),
    }
}

impl From<crate::solve::kkt::NonFiniteStiffness> for EvalError {
    fn from(_: crate::solve::kkt::NonFiniteStiffness) -> Self {
        EvalError::NonFinite("the geometric stiffness".into())
    }
}

#[cfg(test)]
mod tests {
    use super::time;

    /// Times read as decimals in the usual range and in scientific notation outside it, so a
    /// step of 1e-300 s does not print three hundred digits.
    #[test]
    fn times_print_compactly() {
        assert_eq!(time(0.994), "0.994");
        assert_eq!(time(0.0), "0");
        assert_eq!(time(2e-300), "2e-300");
        assert_eq!(time(3.5e12), "3.5e12");
    }
}
