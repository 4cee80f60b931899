//! Python bindings of bead (the `bead._bead` extension module; the `bead` package in `python/`
//! wraps it). Scenes load and build exactly as in the command line, runs go through the same loop
//! and give the same columns (as numpy arrays), and every engine error becomes a Python
//! exception. No engine logic lives here.

mod errors;
mod run;
mod simulation;

use pyo3::prelude::*;

/// The extension module.
#[pymodule]
fn _bead(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("SceneError", py.get_type::<errors::SceneError>())?;
    m.add("SimulationError", py.get_type::<errors::SimulationError>())?;
    m.add(
        "OffConstraintsWarning",
        py.get_type::<errors::OffConstraintsWarning>(),
    )?;
    m.add_class::<simulation::Simulation>()?;
    m.add_class::<simulation::State>()?;
    m.add_class::<run::Run>()?;
    m.add_function(wrap_pyfunction!(simulation::load, m)?)?;
    m.add_function(wrap_pyfunction!(simulation::loads, m)?)?;
    m.add_function(wrap_pyfunction!(simulation::convert, m)?)?;
    Ok(())
}
