//! `bead run`: simulate a scene to its duration, show progress, print a summary, and write the
//! output files.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Result;
use bead::StepError;
use bead_scene::Model;
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::json;

use crate::output::Outputs;

/// What the run measured.
pub struct RunReport {
    /// Steps taken.
    pub steps: u64,
    /// Final time, s.
    pub t_end: f64,
    /// Wall-clock time, s.
    pub wall_seconds: f64,
    /// Energy at t = 0 and at the end, J.
    pub energy: (f64, f64),
    /// Largest |C| and |Ċ| over every step.
    pub max_abs_c: f64,
    /// Largest |Ċ| over every step.
    pub max_abs_c_dot: f64,
    /// Smallest and largest λ over the output rows.
    pub lambda_range: Option<(f64, f64)>,
    /// Most solver iterations in one solve.
    pub solver_iterations_max: usize,
    /// The step error, if the run stopped early.
    pub failure: Option<StepError>,
}

/// Runs `model` to its duration; writes rows to `out` if given.
pub fn run(
    model: &mut Model,
    out: Option<&PathBuf>,
    progress: bool,
    accelerations: bool,
) -> Result<RunReport> {
    let mut outputs = out
        .map(|dir| Outputs::create(dir, model, accelerations))
        .transpose()?;
    let (dt, duration, every) = (model.run.dt, model.run.duration, model.run.output_every);
    let total = bead::step_count(duration, dt);
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

    let started = Instant::now();
    let first = match model.system.diagnostics() {
        Ok(d) => d,
        // Even the initial state has no constraint forces: report it like a failed first step.
        Err(e) => return failed_at_start(model, outputs, e, started),
    };
    let mut report = RunReport {
        steps: 0,
        t_end: 0.0,
        wall_seconds: 0.0,
        energy: (first.total_energy(), first.total_energy()),
        max_abs_c: first.max_abs_c,
        max_abs_c_dot: first.max_abs_c_dot,
        lambda_range: None,
        solver_iterations_max: first.solver_iterations,
        failure: None,
    };
    let record =
        |model: &mut Model, outputs: &mut Option<Outputs>, report: &mut RunReport| -> Result<()> {
            let d = model.system.diagnostics()?;
            for l in d.constraints.iter().flat_map(|c| c.lambda.iter().copied()) {
                let (lo, hi) = report.lambda_range.unwrap_or((l, l));
                report.lambda_range = Some((lo.min(l), hi.max(l)));
            }
            report.energy.1 = d.total_energy();
            if let Some(out) = outputs.as_mut() {
                out.row(model, &d)?;
            }
            Ok(())
        };
    record(model, &mut outputs, &mut report)?;
    for (i, t_next) in bead::step_times(duration, dt).enumerate() {
        let step = i as u64 + 1;
        match model.system.step_to(t_next) {
            Ok(stats) => {
                report.solver_iterations_max =
                    report.solver_iterations_max.max(stats.solver_iterations)
            }
            Err(e) => {
                report.failure = Some(e);
                break;
            }
        }
        report.steps = step;
        match model.system.constraint_error() {
            Ok((c, c_dot)) => {
                report.max_abs_c = report.max_abs_c.max(c);
                report.max_abs_c_dot = report.max_abs_c_dot.max(c_dot);
            }
            Err(e) => {
                report.failure = Some(e);
                break;
            }
        }
        if step.is_multiple_of(every) || step == total {
            record(model, &mut outputs, &mut report)?;
        }
        if let Some(bar) = &bar
            && (step.is_multiple_of(256) || step == total)
        {
            bar.set_position(step);
            bar.set_message(format!("{:.3} s", model.system.time()));
        }
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    // The last good state is always written, even when the run stopped early.
    if report.failure.is_some() && !report.steps.is_multiple_of(every) {
        record(model, &mut outputs, &mut report)?;
    }
    report.t_end = model.system.time();
    report.wall_seconds = started.elapsed().as_secs_f64();
    if let Some(out) = outputs {
        out.finish(&summary_json(model, &report))?;
    }
    Ok(report)
}

fn failed_at_start(
    model: &Model,
    outputs: Option<Outputs>,
    e: StepError,
    started: Instant,
) -> Result<RunReport> {
    let report = RunReport {
        steps: 0,
        t_end: model.system.time(),
        wall_seconds: started.elapsed().as_secs_f64(),
        energy: (f64::NAN, f64::NAN),
        max_abs_c: f64::NAN,
        max_abs_c_dot: f64::NAN,
        lambda_range: None,
        solver_iterations_max: 0,
        failure: Some(e),
    };
    if let Some(out) = outputs {
        out.finish(&summary_json(model, &report))?;
    }
    Ok(report)
}

/// `summary.json`: the documented keys (README, "The `bead` command line"), then what the run was configured with.
pub fn summary_json(model: &Model, r: &RunReport) -> serde_json::Value {
    let run = &model.run;
    json!({
        "steps": r.steps,
        "t_end": r.t_end,
        "wall_seconds": r.wall_seconds,
        "energy_start": r.energy.0,
        "energy_end": r.energy.1,
        "max_abs_C": r.max_abs_c,
        "max_abs_Cdot": r.max_abs_c_dot,
        "solver_iterations_max": r.solver_iterations_max,
        "lambda_min": r.lambda_range.map(|l| l.0),
        "lambda_max": r.lambda_range.map(|l| l.1),
        "completed": r.failure.is_none(),
        "error": r.failure.as_ref().map(ToString::to_string),
        "scene": model.name,
        "dimension": model.system.dim(),
        "particles": model.particles.len(),
        "bodies": model.bodies.len(),
        "parametric": model.objects.len(),
        "constraints": model.constraints.len(),
        "constraint_rows": model.system.constraint_rows(),
        "dt": run.dt,
        "duration": run.duration,
        "integrator": run.integrator,
        "solver": run.solver,
        "tolerance": run.tolerance,
        "feedback": { "ks": run.feedback.ks, "kd": run.feedback.kd },
        "projection": run.projection.map(|p| json!({ "iterations": p.max_iterations, "tolerance": p.tolerance })),
        "inequality": run.inequality,
        "output_every": run.output_every,
    })
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
