//! The package's exceptions: a bad scene raises `bead.SceneError` (a `ValueError`) carrying
//! where, a failed step raises `bead.SimulationError` (a `RuntimeError`) carrying when and which
//! constraint. Neither ever takes the interpreter down: every engine error becomes one of them.

use bead::{ModelError, StepError};
use bead_scene::SceneError as RustSceneError;
use bead_scene::run::RecordError;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

pyo3::create_exception!(
    bead,
    SceneError,
    PyValueError,
    "A scene could not be read, parsed or built. Attributes: file, line, column (1-based, or \
     None), field (a path such as 'constraints[2].between[1]', or None), message, hint."
);

pyo3::create_exception!(
    bead,
    SimulationError,
    PyRuntimeError,
    "A step failed. Attributes: t (time at the start of the failed step, s), step (its number, \
     the first is 1), constraint (the name of the constraint furthest from satisfied, or None), \
     abs_c (its |C|), cause (what went wrong), run (for Simulation.run: the rows recorded up to \
     the failure, or None)."
);

/// A scene error as a `bead.SceneError` with its location as attributes.
pub fn scene_error(py: Python<'_>, e: &RustSceneError) -> PyErr {
    let err = SceneError::new_err(e.to_string());
    let value = err.value(py);
    let set = || -> PyResult<()> {
        value.setattr("file", &e.file)?;
        value.setattr("line", e.line)?;
        value.setattr("column", e.column)?;
        value.setattr("field", e.field.as_deref())?;
        value.setattr("message", &e.message)?;
        value.setattr("hint", e.hint.as_deref())?;
        Ok(())
    };
    match set() {
        Ok(()) => err,
        Err(failed) => failed,
    }
}

/// A step error as a `bead.SimulationError`; `run` is the partial run, if any.
pub fn simulation_error(py: Python<'_>, e: &StepError, run: Option<Py<PyAny>>) -> PyErr {
    let err = SimulationError::new_err(e.to_string());
    let value = err.value(py);
    let set = || -> PyResult<()> {
        value.setattr("t", e.t)?;
        value.setattr("step", e.step)?;
        value.setattr("constraint", e.worst.as_ref().map(|w| w.name.clone()))?;
        value.setattr("abs_c", e.worst.as_ref().map(|w| w.abs_c))?;
        value.setattr("cause", e.cause.to_string())?;
        value.setattr("run", run)?;
        Ok(())
    };
    match set() {
        Ok(()) => err,
        Err(failed) => failed,
    }
}

/// A model that no longer matches its system: a bug in the bindings, reported, not a crash.
pub fn model_error(e: &ModelError) -> PyErr {
    PyRuntimeError::new_err(format!("internal error in bead: {e}"))
}

/// A row that could not be recorded.
pub fn record_error(py: Python<'_>, e: &RecordError) -> PyErr {
    match e {
        RecordError::Step(e) => simulation_error(py, e, None),
        RecordError::Model(e) => model_error(e),
    }
}
