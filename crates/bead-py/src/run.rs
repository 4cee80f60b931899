//! A run's results as numpy arrays: the rows the command line writes to `trajectory.csv`,
//! `constraints.csv` and `accelerations.csv` (the same loop and the same columns, from
//! `bead_scene::run` and `bead_scene::record`), kept in memory and handed to Python as one array
//! per column, keyed by the CSV column name.

use bead::Diagnostics;
use bead_scene::Model;
use bead_scene::record;
use bead_scene::run::{RecordError, Sink};
use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// Rows of one output, stored row after row.
#[derive(Clone, Debug, Default)]
pub struct Table {
    /// Column names, `t` first.
    pub header: Vec<String>,
    /// The rows, each `header.len()` long, one after the other.
    pub values: Vec<f64>,
}

impl Table {
    fn new(header: Vec<String>) -> Self {
        Table {
            header,
            values: Vec::new(),
        }
    }

    fn rows(&self) -> usize {
        self.values.len() / self.header.len().max(1)
    }

    /// `{column name: 1-D array}`, in the order of the header.
    pub fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        let (rows, width) = (self.rows(), self.header.len());
        for (k, name) in self.header.iter().enumerate() {
            let column: Vec<f64> = (0..rows).map(|r| self.values[r * width + k]).collect();
            dict.set_item(name, PyArray1::from_vec(py, column))?;
        }
        Ok(dict)
    }
}

/// Keeps every recorded row.
pub struct Recorder {
    pub trajectory: Table,
    pub constraints: Table,
    pub accelerations: Option<Table>,
}

impl Recorder {
    pub fn new(model: &Model, accelerations: bool) -> Self {
        Recorder {
            trajectory: Table::new(record::trajectory_header(model)),
            constraints: Table::new(record::constraints_header(model)),
            accelerations: accelerations.then(|| Table::new(record::accelerations_header(model))),
        }
    }
}

impl Sink for Recorder {
    type Error = RecordError;

    fn record(&mut self, model: &mut Model, diagnostics: &Diagnostics) -> Result<(), RecordError> {
        // Every row first, so that a state that fails leaves no table a row longer.
        let accelerations = match self.accelerations {
            Some(_) => Some(record::accelerations_row(model)?),
            None => None,
        };
        let trajectory = record::trajectory_row(model)?;
        if let (Some(table), Some(row)) = (self.accelerations.as_mut(), accelerations) {
            table.values.extend(row);
        }
        self.trajectory.values.extend(trajectory);
        self.constraints
            .values
            .extend(record::constraints_row(model, diagnostics));
        Ok(())
    }

    fn engine_failure(error: RecordError) -> Result<bead::StepError, RecordError> {
        error.into_step()
    }
}

/// The result of `Simulation.run()`.
///
/// `trajectory` and `constraints` map the column names of `trajectory.csv` and
/// `constraints.csv` (`"t"`, `"bob.x"`, `"rod.lambda"`, ...) to 1-D numpy arrays, one value per
/// recorded row; `accelerations` does the same for `accelerations.csv` when the run was asked
/// for it (else None); `summary` is the dictionary `summary.json` holds.
#[pyclass(module = "bead", frozen)]
pub struct Run {
    #[pyo3(get)]
    trajectory: Py<PyDict>,
    #[pyo3(get)]
    constraints: Py<PyDict>,
    #[pyo3(get)]
    accelerations: Option<Py<PyDict>>,
    #[pyo3(get)]
    summary: Py<PyDict>,
    rows: usize,
    steps: u64,
    t_end: f64,
}

impl Run {
    pub fn new(
        py: Python<'_>,
        recorder: &Recorder,
        summary: &serde_json::Value,
        steps: u64,
        t_end: f64,
    ) -> PyResult<Self> {
        let json = py.import("json")?;
        let summary = json
            .call_method1("loads", (summary.to_string(),))?
            .cast_into::<PyDict>()?;
        Ok(Run {
            trajectory: recorder.trajectory.to_dict(py)?.unbind(),
            constraints: recorder.constraints.to_dict(py)?.unbind(),
            accelerations: recorder
                .accelerations
                .as_ref()
                .map(|t| t.to_dict(py).map(Bound::unbind))
                .transpose()?,
            summary: summary.unbind(),
            rows: recorder.trajectory.rows(),
            steps,
            t_end,
        })
    }
}

#[pymethods]
impl Run {
    /// The column names of the trajectory, in file order.
    #[getter]
    fn columns<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.trajectory.bind(py).keys())
    }

    fn __len__(&self) -> usize {
        self.rows
    }

    fn __repr__(&self) -> String {
        format!(
            "<bead.Run: {} steps to t = {} s, {} rows>",
            self.steps, self.t_end, self.rows
        )
    }
}
