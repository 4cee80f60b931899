//! The package's exceptions: a bad scene raises `bead.SceneError` (a `ValueError`) carrying
//! where, a failed step raises `bead.SimulationError` (a `RuntimeError`) carrying when and which
//! constraint. Neither ever takes the interpreter down: every engine error becomes one of them.
//! And its warning: a scene that starts off its constraints warns with
//! `bead.OffConstraintsWarning` (a `UserWarning`) when it is built.

use bead::{ModelError, StepError};
use bead_scene::SceneError as RustSceneError;
use bead_scene::run::RecordError;
use std::ffi::CString;

use bead_scene::Model;
use pyo3::exceptions::{PyRuntimeError, PyUserWarning, PyValueError};
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

pyo3::create_exception!(
    bead,
    OffConstraintsWarning,
    PyUserWarning,
    "A scene starts off its constraints: some |C| exceeds 1e-6 (or the scene's newton_tolerance \
     where that is larger), or some |Ċ| the same per second. It still runs, but the feedback \
     pulls the bodies onto the constraints in the first steps, a jump no force explains. The \
     setting assemble=True moves the start onto them before the first step."
);

/// Warns with a `bead.OffConstraintsWarning` when `model` starts off its constraints, naming the
/// furthest (the same words as `bead check`), and with a `UserWarning` when it sets a
/// restitution its run ignores. `stacklevel` 2 points at the line that called the package's
/// function. A warning turned into an error by the filters is returned as one.
pub fn warn_when_built(py: Python<'_>, model: &mut Model) -> PyResult<()> {
    let off = match bead_scene::start::check(model) {
        Ok(start) => start.warning(),
        Err(e) => Some(format!("the start cannot be evaluated: {e}")),
    };
    if let Some(warning) = off {
        warn(
            py,
            py.get_type::<OffConstraintsWarning>().as_any(),
            &warning,
        )?;
    }
    if let Some(warning) = model.restitution_warning() {
        warn(py, py.get_type::<PyUserWarning>().as_any(), &warning)?;
    }
    Ok(())
}

fn warn(py: Python<'_>, category: &Bound<'_, PyAny>, warning: &str) -> PyResult<()> {
    // Constraint names come from the scene, which may hold a NUL; a C string may not.
    let message = CString::new(warning.replace('\0', "\\0"))
        .map_err(|e| PyRuntimeError::new_err(format!("internal error in bead: {e}")))?;
    PyErr::warn(py, category, &message, 2)
}

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
