//! Running a model to its duration: the step loop, the rows it records (every
//! `output_every` steps, the first and the last state always), what it measures, and
//! `summary.json`. The command line records into CSV files and the Python package into arrays;
//! both run this loop, so a scene gives the same rows and the same summary through either.

use bead::{Diagnostics, ModelError, StepError};
use serde_json::json;

use crate::Model;

/// Why a row could not be recorded, for sinks that fail only as the engine does.
///
/// ```
/// use bead_scene::run::RecordError;
/// let e = RecordError::Model(bead::ModelError::Mass(-1.0));
/// assert!(e.to_string().contains("mass"));
/// ```
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// The state could not be evaluated.
    #[error(transparent)]
    Step(#[from] StepError),
    /// The model no longer matches its system.
    #[error(transparent)]
    Model(#[from] ModelError),
}

impl RecordError {
    /// The engine's failure at a state, for [`Sink::engine_failure`]; any other error back.
    ///
    /// ```
    /// use bead_scene::run::RecordError;
    /// assert!(RecordError::Model(bead::ModelError::Mass(-1.0)).into_step().is_err());
    /// ```
    pub fn into_step(self) -> Result<StepError, RecordError> {
        match self {
            RecordError::Step(e) => Ok(e),
            other => Err(other),
        }
    }
}

/// Where the rows of a run go, and what watches it step by step.
pub trait Sink {
    /// What recording can fail with; a state that cannot be evaluated for its row is one cause.
    type Error: From<StepError> + From<ModelError>;

    /// Records the current state of `model`, whose diagnostics are `diagnostics`.
    fn record(&mut self, model: &mut Model, diagnostics: &Diagnostics) -> Result<(), Self::Error>;

    /// Sees the model at the start of the run and after every step, recorded or not: for sinks
    /// that sample the run on a schedule of their own, as `bead render` takes a frame when the
    /// simulation first reaches each frame's time. `elapsed` is the time since the run's start
    /// on the step grid, s: 0, then `k·dt`, the last step ending at the duration exactly (read
    /// it rather than subtracting times, which rounds). After a step with a row, it is called
    /// after [`Sink::record`]; it is not called for a step that failed. Does nothing unless a
    /// sink implements it.
    ///
    /// ```
    /// use bead_scene::run::{run, RecordError, Sink};
    /// use bead_scene::{Format, Model, Scene};
    ///
    /// /// The time of the first state at or past each multiple of `every` seconds, whatever
    /// /// the scene's `output_every`.
    /// struct Samples { every: f64, times: Vec<f64> }
    ///
    /// impl Sink for Samples {
    ///     type Error = RecordError;
    ///     fn record(&mut self, _: &mut Model, _: &bead::Diagnostics) -> Result<(), RecordError> {
    ///         Ok(())
    ///     }
    ///     fn observe(&mut self, model: &mut Model, elapsed: f64) -> Result<(), RecordError> {
    ///         while elapsed >= self.times.len() as f64 * self.every - 1e-9 {
    ///             self.times.push(model.system.time());
    ///         }
    ///         Ok(())
    ///     }
    /// }
    ///
    /// let text = "format = 1\n[simulation]\ndimension = 2\ndt = 0.1\nduration = 1\n\
    ///             output_every = 5\n[[particles]]\nname = \"ball\"\nposition = [0, 1]";
    /// let mut model = Scene::parse(text, Format::Toml, "example")?.build()?;
    /// let mut samples = Samples { every: 0.25, times: Vec::new() };
    /// let report = run(&mut model, &mut samples, |_, _, _| {}).unwrap();
    /// assert_eq!(report.steps, 10);
    /// // Rows are recorded every 0.5 s; the samples fall where the quarter seconds do.
    /// assert_eq!(samples.times, [0.0, 0.3, 0.5, 0.8, 1.0]);
    /// # Ok::<(), bead_scene::SceneError>(())
    /// ```
    fn observe(&mut self, model: &mut Model, elapsed: f64) -> Result<(), Self::Error> {
        let _ = (model, elapsed);
        Ok(())
    }

    /// The engine's failure inside a recording error, if that is what it is: a state whose row
    /// the engine cannot evaluate (its accelerations, say) ends the run as a failed step does,
    /// with the rows before it and a report, rather than as the sink's own error (a file that
    /// cannot be written). `Err(error)` gives the error back: the default, for sinks whose
    /// errors are all their own.
    ///
    /// ```
    /// use bead_scene::run::{RecordError, Sink};
    /// # struct Rows;
    /// # impl Sink for Rows {
    /// #     type Error = RecordError;
    /// #     fn record(&mut self, _: &mut bead_scene::Model, _: &bead::Diagnostics) -> Result<(), RecordError> { Ok(()) }
    /// #     fn engine_failure(error: RecordError) -> Result<bead::StepError, RecordError> {
    /// #         error.into_step()
    /// #     }
    /// # }
    /// let model = bead::ModelError::Mass(-1.0);
    /// assert!(Rows::engine_failure(RecordError::Model(model)).is_err());
    /// ```
    fn engine_failure(error: Self::Error) -> Result<StepError, Self::Error> {
        Err(error)
    }
}

/// What a run measured.
#[derive(Clone, Debug)]
pub struct RunReport {
    /// Steps taken.
    pub steps: u64,
    /// Final time, s.
    pub t_end: f64,
    /// Wall-clock time, s.
    pub wall_seconds: f64,
    /// Energy at t = 0 and at the end, J.
    pub energy: (f64, f64),
    /// Largest |C| over every step.
    pub max_abs_c: f64,
    /// Largest |Ċ| over every step.
    pub max_abs_c_dot: f64,
    /// How far the run's start was from its constraints ([`crate::start::Start::abs_c`]): the
    /// largest |C| of the equality rows (and of inequalities' depth inside), NaN if they could
    /// not be evaluated.
    pub initial_abs_c: f64,
    /// How fast the run's start moved off its constraints: the largest |Ċ| of the equality rows
    /// ([`crate::start::Start::abs_c_dot`]).
    pub initial_abs_c_dot: f64,
    /// Smallest and largest λ over the recorded rows.
    pub lambda_range: Option<(f64, f64)>,
    /// Most solver iterations in one solve.
    pub solver_iterations_max: usize,
    /// The step error, if the run stopped early. The rows up to it were recorded.
    pub failure: Option<StepError>,
}

/// Runs `model` from its current state to `model.run.duration` in steps of `model.run.dt`,
/// recording a row into `sink` at the start, every `model.run.output_every` steps and at the end
/// (also the last good state when a step fails), and showing it the model at the start and after
/// every step ([`Sink::observe`]). `progress(step, total, t)` is called after each step. A failed
/// step ends the run and is returned in the report, not as an error; errors are the sink's.
///
/// ```
/// use bead_scene::run::{run, RecordError, Sink};
/// use bead_scene::{Format, Model, Scene};
///
/// /// Keeps the ball's height at each recorded row.
/// struct Heights(Vec<f64>);
///
/// impl Sink for Heights {
///     type Error = RecordError;
///     fn record(&mut self, model: &mut Model, _: &bead::Diagnostics) -> Result<(), RecordError> {
///         self.0.push(model.system.position(model.particles[0].1)[1]);
///         Ok(())
///     }
/// }
///
/// let text = "format = 1\n[simulation]\ndimension = 2\ndt = 0.1\nduration = 1\n\
///             output_every = 5\n[[particles]]\nname = \"ball\"\nposition = [0, 1]";
/// let mut model = Scene::parse(text, Format::Toml, "example")?.build()?;
/// let mut heights = Heights(Vec::new());
/// let report = run(&mut model, &mut heights, |_, _, _| {}).unwrap();
/// assert_eq!(report.steps, 10);
/// assert_eq!(heights.0.len(), 3); // t = 0, 0.5 and 1
/// # Ok::<(), bead_scene::SceneError>(())
/// ```
pub fn run<S: Sink>(
    model: &mut Model,
    sink: &mut S,
    mut progress: impl FnMut(u64, u64, f64),
) -> Result<RunReport, S::Error> {
    let (dt, duration, every) = (model.run.dt, model.run.duration, model.run.output_every);
    let total = bead::step_count(duration, dt);
    let started = std::time::Instant::now();
    // Before the first evaluation, which reads the same rows: a start that cannot be evaluated
    // fails there, with its message.
    let initial =
        crate::start::check(model).map_or((f64::NAN, f64::NAN), |s| (s.abs_c, s.abs_c_dot));
    let first = match model.system.diagnostics() {
        Ok(d) => d,
        // Even the initial state has no constraint forces: report it like a failed first step.
        Err(e) => {
            return Ok(RunReport {
                steps: 0,
                t_end: model.system.time(),
                wall_seconds: started.elapsed().as_secs_f64(),
                energy: (f64::NAN, f64::NAN),
                max_abs_c: f64::NAN,
                max_abs_c_dot: f64::NAN,
                initial_abs_c: initial.0,
                initial_abs_c_dot: initial.1,
                lambda_range: None,
                solver_iterations_max: 0,
                failure: Some(e),
            });
        }
    };
    let mut report = RunReport {
        steps: 0,
        t_end: 0.0,
        wall_seconds: 0.0,
        energy: (first.total_energy(), first.total_energy()),
        max_abs_c: first.max_abs_c,
        max_abs_c_dot: first.max_abs_c_dot,
        initial_abs_c: initial.0,
        initial_abs_c_dot: initial.1,
        lambda_range: None,
        solver_iterations_max: first.solver_iterations,
        failure: None,
    };
    // Records a row; a state the engine cannot evaluate for it ends the run as a failure
    // (returns false), with what was recorded before it and its summary.
    let record = |model: &mut Model, sink: &mut S, report: &mut RunReport| {
        let d = match model.system.diagnostics() {
            Ok(d) => d,
            Err(e) => {
                report.failure = Some(e);
                return Ok::<bool, S::Error>(false);
            }
        };
        for l in d.constraints.iter().flat_map(|c| c.lambda.iter().copied()) {
            let (lo, hi) = report.lambda_range.unwrap_or((l, l));
            report.lambda_range = Some((lo.min(l), hi.max(l)));
        }
        report.energy.1 = d.total_energy();
        match sink.record(model, &d) {
            Ok(()) => Ok(true),
            Err(e) => {
                report.failure = Some(S::engine_failure(e)?);
                Ok(false)
            }
        }
    };
    if !record(model, sink, &mut report)? {
        report.wall_seconds = started.elapsed().as_secs_f64();
        return Ok(report);
    }
    sink.observe(model, 0.0)?;
    // Step times are k·dt from the run's start, so a run continued from t₀ keeps its grid.
    let t0 = model.system.time();
    let mut recorded_failure = false;
    for (i, t_next) in bead::step_times(duration, dt).enumerate() {
        let step = i as u64 + 1;
        match model.system.step_to(t0 + t_next) {
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
        if (step.is_multiple_of(every) || step == total) && !record(model, sink, &mut report)? {
            recorded_failure = true;
            break;
        }
        sink.observe(model, t_next)?;
        progress(step, total, model.system.time());
    }
    // The last good state is always recorded, even when the run stopped early (unless
    // recording it is what failed).
    if report.failure.is_some() && !recorded_failure && !report.steps.is_multiple_of(every) {
        record(model, sink, &mut report)?;
    }
    report.t_end = model.system.time();
    report.wall_seconds = started.elapsed().as_secs_f64();
    Ok(report)
}

/// `summary.json`: the documented keys, then what the run was configured with.
pub fn summary_json(model: &Model, r: &RunReport) -> serde_json::Value {
    let run = &model.run;
    let implicit = bead::integrate::by_name(&run.integrator).is_some_and(|i| i.implicit());
    json!({
        "steps": r.steps,
        "t_end": r.t_end,
        "wall_seconds": r.wall_seconds,
        "energy_start": r.energy.0,
        "energy_end": r.energy.1,
        "max_abs_C": r.max_abs_c,
        "max_abs_Cdot": r.max_abs_c_dot,
        "initial_abs_C": r.initial_abs_c,
        "initial_abs_Cdot": r.initial_abs_c_dot,
        "solver_iterations_max": r.solver_iterations_max,
        "lambda_min": r.lambda_range.map(|l| l.0),
        "lambda_max": r.lambda_range.map(|l| l.1),
        "completed": r.failure.is_none(),
        "error": r.failure.as_ref().map(ToString::to_string),
        "scene": model.name,
        "dimension": model.system.dim(),
        "particles": model.particles.len(),
        "bodies": model.bodies.len() + model.bodies_3d.len(),
        "parametric": model.objects.len(),
        "constraints": model.constraints.len(),
        "constraint_rows": model.system.constraint_rows(),
        "dt": run.dt,
        "duration": run.duration,
        "integrator": run.integrator,
        "solver": run.solver,
        // What the implicit steppers' Newton iteration ran: a dense LBLᵀ of the KKT matrix
        // under `solver = "dense"`, a sparse LDLᵀ under any other (an iterative solver of the
        // explicit λ solve has no meaning for the indefinite KKT system; it then serves the
        // reports' λ at the start and accelerations.csv).
        "newton": implicit.then(|| json!({
            "tolerance": run.newton_tolerance,
            "relative_tolerance": run.newton_relative_tolerance,
            "iterations": run.newton_iterations,
            "linear_solve": if run.solver == "dense" {
                "dense LBLT of the KKT matrix"
            } else {
                "sparse LDLT of the KKT matrix"
            },
        })),
        "tolerance": run.tolerance,
        "feedback": { "ks": run.feedback.ks, "kd": run.feedback.kd },
        "projection": run.projection.map(|p| json!({ "iterations": p.max_iterations, "tolerance": p.tolerance })),
        "assemble": run.assemble,
        "inequality": run.inequality,
        "impacts": run.impacts,
        "output_every": run.output_every,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Format, Scene};

    /// What a sink was shown, in order.
    #[derive(Default)]
    struct Log(Vec<String>);

    impl Sink for Log {
        type Error = RecordError;

        fn record(&mut self, model: &mut Model, _: &Diagnostics) -> Result<(), RecordError> {
            self.0.push(format!("record {}", model.system.time()));
            Ok(())
        }

        fn observe(&mut self, model: &mut Model, elapsed: f64) -> Result<(), RecordError> {
            assert_eq!(
                model.system.time(),
                elapsed,
                "a fresh model starts at t = 0"
            );
            self.0.push(format!("observe {elapsed}"));
            Ok(())
        }
    }

    fn pendulum(simulation: &str) -> Model {
        let text = format!(
            "format = 1\n[simulation]\ndimension = 2\n{simulation}\n\
             [[particles]]\nname = \"pivot\"\nposition = [0, 0]\nmass = \"infinity\"\n\
             [[particles]]\nname = \"bob\"\nposition = [1, 0]\n\
             [[forces]]\nkind = \"gravity\"\ng = [0, -9.81]\n\
             [[constraints]]\nkind = \"distance\"\nbetween = [\"pivot\", \"bob\"]"
        );
        Scene::parse(&text, Format::Toml, "pendulum")
            .and_then(|scene| scene.build())
            .unwrap()
    }

    /// Every state is observed once, after its row if it has one.
    #[test]
    fn observe_sees_the_start_and_every_step() {
        let mut model = pendulum("dt = 0.1\nduration = 0.5\noutput_every = 2");
        let mut log = Log::default();
        let report = run(&mut model, &mut log, |_, _, _| {}).unwrap();
        assert!(report.failure.is_none());
        let expected = [
            "record 0",
            "observe 0",
            "observe 0.1",
            "record 0.2",
            "observe 0.2",
            "observe 0.3",
            "record 0.4",
            "observe 0.4",
            "record 0.5",
            "observe 0.5",
        ];
        assert_eq!(log.0, expected);
    }

    /// Fails like the engine when asked for its `n`-th row (a state whose accelerations cannot
    /// be evaluated, say).
    struct FailsAt(usize, usize);

    impl Sink for FailsAt {
        type Error = RecordError;

        fn record(&mut self, model: &mut Model, _: &Diagnostics) -> Result<(), RecordError> {
            self.1 += 1;
            if self.1 == self.0 {
                // An invalid step is refused before it changes anything: an engine error.
                let e = model
                    .system
                    .step(f64::NAN)
                    .expect_err("a NaN step is refused");
                return Err(RecordError::Step(e));
            }
            Ok(())
        }

        fn engine_failure(error: RecordError) -> Result<StepError, RecordError> {
            error.into_step()
        }
    }

    /// A row the engine cannot evaluate after a successful step ends the run as a failure, with
    /// a report (the command line then writes summary.json and says where the rows are), not as
    /// the sink's own error.
    #[test]
    fn a_row_the_engine_cannot_evaluate_ends_the_run_with_a_report() {
        let mut model = pendulum("dt = 0.1\nduration = 1");
        let mut sink = FailsAt(3, 0);
        let report = run(&mut model, &mut sink, |_, _, _| {}).expect("a report, not an error");
        assert!(report.failure.is_some());
        // Rows at t = 0 and 0.1 were recorded; the third, after step 2, failed.
        assert_eq!((report.steps, sink.1), (2, 3));
        assert!((report.t_end - 0.2).abs() < 1e-12, "t_end {}", report.t_end);
    }

    /// A step that fails is not observed; the state before it was, and is recorded last.
    #[test]
    fn a_failed_step_is_not_observed() {
        // The midpoint rule with steps this long stretches the rod past the divergence limit at
        // the second step.
        let mut model = pendulum("dt = 0.5\nduration = 20\nintegrator = \"midpoint\"");
        let mut log = Log::default();
        let report = run(&mut model, &mut log, |_, _, _| {}).unwrap();
        assert!(report.failure.is_some(), "the run did not fail");
        assert_eq!(report.steps, 1);
        let observed = log.0.iter().filter(|e| e.starts_with("observe")).count();
        assert_eq!(observed as u64, report.steps + 1);
        assert_eq!(
            log.0.last().map(String::as_str),
            Some(format!("observe {}", report.t_end).as_str())
        );
    }
}
