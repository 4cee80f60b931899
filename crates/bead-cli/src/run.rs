//! `bead run`: simulate a scene to its duration, show progress, print a summary, and write the
//! output files.

use std::io::IsTerminal;
use std::path::PathBuf;

use anyhow::Result;
use bead_scene::Model;
use bead_scene::run::{RunReport, Sink, summary_json};
use indicatif::{ProgressBar, ProgressStyle};

use crate::output::Outputs;

/// Runs `model` to its duration with a progress bar on a terminal; writes rows to `out` if
/// given.
pub fn run(
    model: &mut Model,
    out: Option<&PathBuf>,
    progress: bool,
    accelerations: bool,
) -> Result<RunReport> {
    let total = bead::step_count(model.run.duration, model.run.dt);
    let bar = if progress && std::io::stderr().is_terminal() {
        let bar = ProgressBar::new(total);
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {wide_bar} {pos}/{len} steps, t = {msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        Some(bar)
    } else {
        None
    };
    let show = |step: u64, total: u64, t: f64| {
        if let Some(bar) = &bar
            && (step.is_multiple_of(256) || step == total)
        {
            bar.set_position(step);
            bar.set_message(format!("{t:.3} s"));
        }
    };
    let report = match out {
        Some(dir) => {
            let mut outputs = Outputs::create(dir, model, accelerations)?;
            let report = bead_scene::run::run(model, &mut outputs, show)?;
            outputs.finish(&summary_json(model, &report))?;
            report
        }
        None => bead_scene::run::run(model, &mut Discard, show)?,
    };
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    Ok(report)
}

/// Records nothing: `bead run` without `--out` still runs and prints its summary.
struct Discard;

impl Sink for Discard {
    type Error = anyhow::Error;

    fn record(&mut self, _: &mut Model, _: &bead::Diagnostics) -> Result<()> {
        Ok(())
    }
}

/// The summary table printed at the end of a run.
pub fn summary_table(model: &Model, r: &RunReport) -> String {
    let drift = r.energy.1 - r.energy.0;
    let relative = if r.energy.0.abs() > 0.0 {
        format!(" ({:.2e} relative)", drift / r.energy.0.abs())
    } else {
        String::new()
    };
    let lambda = r
        .lambda_range
        .map_or("-".to_string(), |(lo, hi)| format!("{lo:.6e} … {hi:.6e}"));
    [
        format!("scene             {}", model.name),
        format!("steps             {} (t = {} s)", r.steps, r.t_end),
        format!("wall time         {:.3} s", r.wall_seconds),
        format!(
            "energy            {:.9e} → {:.9e} J, drift {:.3e} J{relative}",
            r.energy.0, r.energy.1, drift
        ),
        format!("max |C|           {:.3e}", r.max_abs_c),
        format!("max |Ċ|           {:.3e}", r.max_abs_c_dot),
        format!("λ range           {lambda}"),
        format!(
            "solver            {} ({} iterations at most)",
            model.run.solver, r.solver_iterations_max
        ),
    ]
    .join("\n")
}
