//! The files of `bead run --out DIR`: `trajectory.csv`, `constraints.csv` and
//! `summary.json`. Their names and headers are a contract that tests outside the project rely on.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use bead::Diagnostics;
use bead_scene::Model;
use bead_scene::record;
use bead_scene::run::Sink;

/// A number as CSV text: shortest round-trip digits, in exponent form when very small or large
/// (Rust's plain `{}` would spell 1e-16 with sixteen zeros).
pub fn number(x: f64) -> String {
    let a = x.abs();
    if x != 0.0 && a.is_finite() && !(1e-4..1e15).contains(&a) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// The CSV files, written row by row as the run goes.
pub struct Outputs {
    trajectory: csv::Writer<BufWriter<File>>,
    constraints: csv::Writer<BufWriter<File>>,
    accelerations: Option<csv::Writer<BufWriter<File>>>,
    dir: PathBuf,
}

fn writer(path: &Path) -> Result<csv::Writer<BufWriter<File>>> {
    let file = File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
    Ok(csv::Writer::from_writer(BufWriter::new(file)))
}

fn text(row: &[f64]) -> Vec<String> {
    row.iter().copied().map(number).collect()
}

impl Outputs {
    /// Creates `dir` if needed and writes both headers.
    pub fn create(dir: &Path, model: &Model, accelerations: bool) -> Result<Outputs> {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create the output directory {}", dir.display()))?;
        let mut trajectory = writer(&dir.join("trajectory.csv"))?;
        let mut constraints = writer(&dir.join("constraints.csv"))?;
        trajectory.write_record(record::trajectory_header(model))?;
        constraints.write_record(record::constraints_header(model))?;
        let accelerations = if accelerations {
            let mut w = writer(&dir.join("accelerations.csv"))?;
            w.write_record(record::accelerations_header(model))?;
            Some(w)
        } else {
            None
        };
        Ok(Outputs {
            trajectory,
            constraints,
            accelerations,
            dir: dir.to_path_buf(),
        })
    }

    /// Flushes the CSV files and writes `summary.json`.
    pub fn finish(mut self, summary: &serde_json::Value) -> Result<()> {
        self.trajectory.flush().context("writing trajectory.csv")?;
        self.constraints
            .flush()
            .context("writing constraints.csv")?;
        if let Some(w) = self.accelerations.as_mut() {
            w.flush().context("writing accelerations.csv")?;
        }
        let path = self.dir.join("summary.json");
        let text = serde_json::to_string_pretty(summary)?;
        std::fs::write(&path, text + "\n")
            .with_context(|| format!("cannot write {}", path.display()))
    }
}

impl Sink for Outputs {
    type Error = anyhow::Error;

    /// Writes one row of each file for the current state.
    fn record(&mut self, model: &mut Model, diagnostics: &Diagnostics) -> Result<()> {
        // Every row first, so that a state that fails leaves no file a row longer.
        let accelerations = match self.accelerations {
            Some(_) => Some(record::accelerations_row(model)?),
            None => None,
        };
        let trajectory = record::trajectory_row(model)?;
        if let (Some(w), Some(row)) = (self.accelerations.as_mut(), accelerations) {
            w.write_record(text(&row))
                .context("writing accelerations.csv")?;
        }
        self.trajectory
            .write_record(text(&trajectory))
            .context("writing trajectory.csv")?;
        self.constraints
            .write_record(text(&record::constraints_row(model, diagnostics)))
            .context("writing constraints.csv")?;
        Ok(())
    }

    /// A state whose accelerations the engine cannot evaluate ends the run as a failed step
    /// does: the summary is written, and the error says where the rows are.
    fn engine_failure(error: anyhow::Error) -> Result<bead::StepError> {
        error.downcast::<bead::StepError>()
    }
}
