//! `bead.Simulation`: a model built from a scene, stepped and run from Python.
//!
//! The model sits behind a mutex so that the GIL can be released while the engine works. A lock
//! is taken either inside the released section (a run, a step) or briefly with the GIL held (a
//! getter); whoever holds it never waits for the GIL, so the two cannot deadlock.

use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};

use bead_scene::run::{RunReport, summary_json};
use bead_scene::{Format, Model, Scene};
use numpy::PyArray1;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::errors::{record_error, scene_error, simulation_error, warn_when_built};
use crate::run::{Recorder, Run};

/// A simulation: the system a scene describes, at its current time.
///
/// Made by `bead.load(path)`, `bead.loads(text)` or `bead.Scene(...).build()`.
#[pyclass(module = "bead", frozen)]
pub struct Simulation {
    model: Mutex<Model>,
}

impl Simulation {
    fn lock(&self) -> PyResult<MutexGuard<'_, Model>> {
        self.model
            .lock()
            .map_err(|_| PyRuntimeError::new_err("a previous call panicked inside bead"))
    }
}

/// Applies `settings` (JSON of `simulation` keys, with the scene format's names) over the scene's
/// own, then builds; warns if the model starts off its constraints.
fn build(py: Python<'_>, mut scene: Scene, settings: Option<&str>) -> PyResult<Simulation> {
    let mut given: Vec<String> = Vec::new();
    if let Some(settings) = settings {
        let overrides: serde_json::Map<String, serde_json::Value> = serde_json::from_str(settings)
            .map_err(|e| PyValueError::new_err(format!("settings: {e}")))?;
        given = overrides
            .keys()
            .map(|k| format!("simulation.{k}"))
            .collect();
        let mut simulation = serde_json::to_value(&scene.file.simulation)
            .map_err(|e| PyRuntimeError::new_err(format!("internal error in bead: {e}")))?;
        if let Some(map) = simulation.as_object_mut() {
            for (key, value) in overrides {
                map.insert(key, value);
            }
        }
        scene.file.simulation = serde_json::from_value(simulation).map_err(|e| {
            scene_error(
                py,
                &bead_scene::SceneError {
                    file: scene.origin().to_string(),
                    line: None,
                    column: None,
                    field: Some("simulation".into()),
                    message: format!("in the settings given as keyword arguments: {e}"),
                    hint: Some(
                        "the keywords are the keys of the scene's [simulation] table".into(),
                    ),
                    within: None,
                },
            )
        })?;
    }
    let mut model = scene.build().map_err(|mut e| {
        // A bad value given as a keyword is not where the file's line would point.
        if let Some(field) = &e.field
            && given
                .iter()
                .any(|g| field == g || field.starts_with(&format!("{g}.")))
        {
            (e.line, e.column) = (None, None);
            e.message = format!("{} (given as a keyword argument)", e.message);
        }
        scene_error(py, &e)
    })?;
    warn_when_built(py, &mut model)?;
    Ok(Simulation {
        model: Mutex::new(model),
    })
}

/// Loads a scene file (`.toml`, or `.json`) and builds its simulation. `settings` is the JSON
/// of keys of the scene's `[simulation]` table that replace the file's.
#[pyfunction]
#[pyo3(signature = (path, settings = None))]
pub fn load(py: Python<'_>, path: PathBuf, settings: Option<&str>) -> PyResult<Simulation> {
    let scene = Scene::load(&path).map_err(|e| scene_error(py, &e))?;
    build(py, scene, settings)
}

/// Parses scene text (`format` is "toml" or "json") and builds its simulation.
#[pyfunction]
#[pyo3(signature = (text, format = "toml", origin = "<string>", settings = None))]
pub fn loads(
    py: Python<'_>,
    text: &str,
    format: &str,
    origin: &str,
    settings: Option<&str>,
) -> PyResult<Simulation> {
    let format = parse_format(format)?;
    let scene = Scene::parse(text, format, origin).map_err(|e| scene_error(py, &e))?;
    build(py, scene, settings)
}

fn parse_format(format: &str) -> PyResult<Format> {
    match format {
        "toml" => Ok(Format::Toml),
        "json" => Ok(Format::Json),
        other => Err(PyValueError::new_err(format!(
            "format must be \"toml\" or \"json\", got {other:?}"
        ))),
    }
}

/// Scene text (TOML or JSON) as the scene file the Python builder writes: parsed, checked and
/// written back in `format`.
#[pyfunction]
#[pyo3(signature = (text, from_format, to_format, origin = "<string>"))]
pub fn convert(
    py: Python<'_>,
    text: &str,
    from_format: &str,
    to_format: &str,
    origin: &str,
) -> PyResult<String> {
    let scene =
        Scene::parse(text, parse_format(from_format)?, origin).map_err(|e| scene_error(py, &e))?;
    scene
        .file
        .to_text(parse_format(to_format)?)
        .map_err(|e| scene_error(py, &e))
}

/// The state at one instant: `t` (s), `q` and `v` (the generalized coordinates and their
/// rates, as numpy arrays; body after body in the order the scene lists them: particles'
/// positions, rigid bodies' x, y, θ, parametric objects' u).
#[pyclass(module = "bead", frozen, get_all)]
pub struct State {
    t: f64,
    q: Py<PyArray1<f64>>,
    v: Py<PyArray1<f64>>,
}

#[pymethods]
impl State {
    fn __repr__(&self, py: Python<'_>) -> String {
        format!(
            "<bead.State t = {} s, {} coordinates>",
            self.t,
            self.q.bind(py).len().unwrap_or(0)
        )
    }
}

#[pymethods]
impl Simulation {
    /// Runs from the current time for `duration` seconds (default: the scene's), recording a
    /// row every `output_every` steps as `bead run` does. Returns a `bead.Run`; raises
    /// `bead.SimulationError` if a step fails (its `run` attribute holds the rows up to the
    /// failure). The GIL is released while the engine runs.
    #[pyo3(signature = (duration = None, accelerations = false))]
    fn run(&self, py: Python<'_>, duration: Option<f64>, accelerations: bool) -> PyResult<Run> {
        if let Some(d) = duration
            && !(d.is_finite() && d >= 0.0)
        {
            return Err(PyValueError::new_err(format!(
                "duration must be a finite number ≥ 0, got {d}"
            )));
        }
        let outcome = py.detach(|| -> PyResult<_> {
            let mut model = self.lock()?;
            if let Some(d) = duration {
                model.run.duration = d;
            }
            let mut recorder = Recorder::new(&model, accelerations);
            let report = bead_scene::run::run(&mut model, &mut recorder, |_, _, _| {});
            let summary = report.as_ref().ok().map(|r| summary_json(&model, r));
            Ok((report, recorder, summary))
        })?;
        let (report, recorder, summary) = outcome;
        let report: RunReport = report.map_err(|e| record_error(py, &e))?;
        let summary = summary.unwrap_or_default();
        let run = Run::new(py, &recorder, &summary, report.steps, report.t_end)?;
        match &report.failure {
            None => Ok(run),
            Some(e) => {
                let partial = Py::new(py, run)?.into_any();
                Err(simulation_error(py, e, Some(partial)))
            }
        }
    }

    /// Takes one step of `dt` seconds (default: the scene's dt). Raises
    /// `bead.SimulationError` if it fails. The GIL is released while the engine works.
    #[pyo3(signature = (dt = None))]
    fn step(&self, py: Python<'_>, dt: Option<f64>) -> PyResult<()> {
        if let Some(dt) = dt
            && !(dt.is_finite() && dt > 0.0)
        {
            return Err(PyValueError::new_err(format!(
                "dt must be a finite number > 0, got {dt}"
            )));
        }
        let result = py.detach(|| -> PyResult<_> {
            let mut model = self.lock()?;
            let dt = dt.unwrap_or(model.run.dt);
            Ok(model.system.step(dt).map(|_| ()))
        })?;
        result.map_err(|e| simulation_error(py, &e, None))
    }

    /// The current state: `t`, `q`, `v`.
    #[getter]
    fn state(&self, py: Python<'_>) -> PyResult<State> {
        let model = self.lock()?;
        Ok(State {
            t: model.system.time(),
            q: PyArray1::from_slice(py, model.system.q()).unbind(),
            v: PyArray1::from_slice(py, model.system.q_dot()).unbind(),
        })
    }

    /// The current time, s.
    #[getter]
    fn time(&self) -> PyResult<f64> {
        Ok(self.lock()?.system.time())
    }

    /// The scene's name.
    #[getter]
    fn name(&self) -> PyResult<String> {
        Ok(self.lock()?.name.clone())
    }

    /// The time step the scene asks for, s.
    #[getter]
    fn dt(&self) -> PyResult<f64> {
        Ok(self.lock()?.run.dt)
    }

    /// The duration the scene asks for, s.
    #[getter]
    fn duration(&self) -> PyResult<f64> {
        Ok(self.lock()?.run.duration)
    }

    /// The particles' names, in the scene's order.
    #[getter]
    fn particles(&self) -> PyResult<Vec<String>> {
        Ok(self
            .lock()?
            .particles
            .iter()
            .map(|(n, _)| n.clone())
            .collect())
    }

    /// The rigid bodies' names, in the scene's order.
    #[getter]
    fn bodies(&self) -> PyResult<Vec<String>> {
        Ok(self.lock()?.bodies.iter().map(|(n, _)| n.clone()).collect())
    }

    /// The constraints' names, in the scene's order (`c<index>` where the scene names none).
    #[getter]
    fn constraints(&self) -> PyResult<Vec<String>> {
        Ok(self
            .lock()?
            .constraints
            .iter()
            .map(|c| c.name.clone())
            .collect())
    }

    /// What holds now: `t`, `kinetic_energy`, `potential_energy`, `energy` (their sum, J),
    /// `max_abs_C`, `max_abs_Cdot`, `solver_iterations`, and per constraint name its `C` and
    /// `lambda` (arrays, one value per row of the constraint) and, for inequalities, `active`.
    fn diagnostics<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let (d, names) = py.detach(|| -> PyResult<_> {
            let mut model = self.lock()?;
            let d = model.system.diagnostics();
            let names: Vec<(String, bead::ConstraintId, bool)> = model
                .constraints
                .iter()
                .map(|c| (c.name.clone(), c.id, c.inequality))
                .collect();
            Ok((d, names))
        })?;
        let d = d.map_err(|e| simulation_error(py, &e, None))?;
        let out = PyDict::new(py);
        out.set_item("t", d.time)?;
        out.set_item("kinetic_energy", d.kinetic_energy)?;
        out.set_item("potential_energy", d.potential_energy)?;
        out.set_item("energy", d.total_energy())?;
        out.set_item("max_abs_C", d.max_abs_c)?;
        out.set_item("max_abs_Cdot", d.max_abs_c_dot)?;
        out.set_item("solver_iterations", d.solver_iterations)?;
        let (c, lambda, active) = (PyDict::new(py), PyDict::new(py), PyDict::new(py));
        for (name, id, inequality) in names {
            let Some(report) = d.constraint(id) else {
                continue;
            };
            c.set_item(&name, PyArray1::from_slice(py, &report.c))?;
            lambda.set_item(&name, PyArray1::from_slice(py, &report.lambda))?;
            if inequality {
                let rows = report.active.clone().unwrap_or_default();
                active.set_item(&name, PyList::new(py, rows)?)?;
            }
        }
        out.set_item("C", c)?;
        out.set_item("lambda", lambda)?;
        out.set_item("active", active)?;
        Ok(out)
    }

    /// The scene as a file (`format` "toml" or "json"), with every default the initial
    /// geometry decided written out (rod lengths, nail locations, constraint names).
    #[pyo3(signature = (format = "toml"))]
    fn scene(&self, py: Python<'_>, format: &str) -> PyResult<String> {
        let format = parse_format(format)?;
        let model = self.lock()?;
        model
            .resolved
            .to_text(format)
            .map_err(|e| scene_error(py, &e))
    }

    fn __repr__(&self) -> PyResult<String> {
        let model = self.lock()?;
        Ok(format!(
            "<bead.Simulation '{}': {}D, {} particles, {} bodies, {} constraints, t = {} s>",
            model.name,
            model.system.dim(),
            model.particles.len(),
            model.bodies.len(),
            model.constraints.len(),
            model.system.time()
        ))
    }
}
