//! Errors of model building ([`ModelError`]) and of time stepping ([`StepError`]).

use crate::body::BodyId;
use crate::constraint::ConstraintId;
use crate::derivative::EvalError;
use crate::force::ForceId;

/// Something a caller asked of the model is invalid; nothing was changed.
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
    /// A setting is invalid.
    #[error("invalid setting: {0}")]
    Setting(String),
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
#[error("step {step} at t = {t} s failed{}: {cause}", worst_suffix(.worst))]
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

fn worst_suffix(worst: &Option<WorstConstraint>) -> String {
    match worst {
        Some(w) => format!(" (worst constraint '{}', |C| = {:.3e})", w.name, w.abs_c),
        None => String::new(),
    }
}
