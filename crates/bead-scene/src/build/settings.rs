//! The `[simulation]` table: the run's settings read and checked ([`run_settings`]), with their
//! defaults filled in, and given to the system ([`apply_settings`]).

use bead::solve::SolveParams;
use bead::{Feedback, Projection, Settings, System};

use super::Result;
use super::check::{non_negative, positive};
use crate::error::SceneError;
use crate::format::{ProjectionSpec, Simulation};

/// The `[simulation]` settings, checked and with defaults filled in.
#[derive(Clone, Debug, PartialEq)]
pub struct RunSettings {
    /// Time step, s.
    pub dt: f64,
    /// Duration, s.
    pub duration: f64,
    /// Write every n-th step.
    pub output_every: u64,
    /// Integrator name.
    pub integrator: String,
    /// Solver name.
    pub solver: String,
    /// Newton's tolerance on |C| (m), for the implicit integrators.
    pub newton_tolerance: f64,
    /// Newton's relative tolerance on the momentum residual, for the implicit integrators.
    pub newton_relative_tolerance: f64,
    /// Newton iterations per step at most, for the implicit integrators.
    pub newton_iterations: usize,
    /// Solver tolerance.
    pub tolerance: f64,
    /// Feedback gains.
    pub feedback: Feedback,
    /// Post-step projection, if on.
    pub projection: Option<Projection>,
    /// Inequality algorithm name, if given (`jonquet` when not).
    pub inequality: Option<String>,
    /// How impacts are found (`located`, `speculative`, `off`; `None`: located).
    pub impacts: Option<String>,
    /// Default restitution of inequality constraints.
    pub restitution: f64,
    /// Whether the start is moved onto the constraints before the first step.
    pub assemble: bool,
}

impl RunSettings {
    /// The integrator these settings name, with Newton's settings for an implicit one; `None`
    /// for a name that is not an integrator (checked when the settings were read).
    pub fn make_integrator(&self) -> Option<Box<dyn bead::integrate::Integrator>> {
        let (tolerance, iterations) = (self.newton_tolerance, self.newton_iterations);
        let relative = self.newton_relative_tolerance;
        match self.integrator.as_str() {
            "implicit-euler" => {
                return Some(Box::new(
                    bead::integrate::ImplicitEuler::new(tolerance, iterations)
                        .with_relative_tolerance(relative),
                ));
            }
            "bdf2" => {
                return Some(Box::new(
                    bead::integrate::Bdf2::new(tolerance, iterations)
                        .with_relative_tolerance(relative),
                ));
            }
            _ => {}
        }
        bead::integrate::by_name(&self.integrator)
    }
}

/// Algorithms accepted by `inequality`, for hints.
const INEQUALITY_NAMES: [&str; 4] = ["platt", "improved", "jonquet", "lcp"];

/// Reads `[simulation]`: every setting checked, every default filled in.
pub(super) fn run_settings(sim: &Simulation) -> Result<RunSettings> {
    positive("simulation.dt", sim.dt)?;
    if !(sim.duration >= 0.0 && sim.duration.is_finite()) {
        return Err(SceneError::at(
            "simulation.duration",
            format!("must be zero or positive, got {}", sim.duration),
        ));
    }
    let integrator = sim.integrator.clone().unwrap_or_else(|| "rk4".into());
    if bead::integrate::by_name(&integrator).is_none() {
        return Err(SceneError::at(
            "simulation.integrator",
            format!("unknown integrator '{integrator}'"),
        )
        .hint(format!(
            "one of: {}",
            bead::integrate::INTEGRATOR_NAMES.join(", ")
        )));
    }
    let implicit = bead::integrate::by_name(&integrator).is_some_and(|i| i.implicit());
    let assemble = sim.assemble.unwrap_or(false);
    if !implicit {
        // Assembly takes Newton's tolerance and iterations too, but it has no momentum balance.
        for (field, given) in [
            (
                "simulation.newton_tolerance",
                sim.newton_tolerance.is_some() && !assemble,
            ),
            (
                "simulation.newton_relative_tolerance",
                sim.newton_relative_tolerance.is_some(),
            ),
            (
                "simulation.newton_iterations",
                sim.newton_iterations.is_some() && !assemble,
            ),
        ] {
            if given {
                return Err(SceneError::at(
                    field,
                    format!("integrator '{integrator}' is explicit and uses no Newton iteration"),
                )
                .hint(
                    "Newton's settings apply to the implicit integrators, implicit-euler and \
                     bdf2, and to `assemble = true`",
                ));
            }
        }
    }
    let defaults = bead::integrate::ImplicitEuler::default();
    let newton_tolerance = sim.newton_tolerance.unwrap_or(defaults.tolerance);
    positive("simulation.newton_tolerance", newton_tolerance)?;
    let newton_relative_tolerance = sim
        .newton_relative_tolerance
        .unwrap_or(defaults.relative_tolerance);
    positive(
        "simulation.newton_relative_tolerance",
        newton_relative_tolerance,
    )?;
    let newton_iterations = sim.newton_iterations.unwrap_or(defaults.max_iterations);
    if newton_iterations == 0 {
        return Err(SceneError::at(
            "simulation.newton_iterations",
            "must be at least 1",
        ));
    }
    // The implicit stepper's own Newton system is factored directly; the solver serves its
    // contact rows and the reports, where a chain or a cloth would take CG thousands of
    // iterations.
    let default_solver = if implicit { "sparse" } else { "cg" };
    let solver = sim.solver.clone().unwrap_or_else(|| default_solver.into());
    if bead::solve::by_name(&solver).is_none() {
        return Err(
            SceneError::at("simulation.solver", format!("unknown solver '{solver}'"))
                .hint(format!("one of: {}", bead::solve::SOLVER_NAMES.join(", "))),
        );
    }
    let tolerance = sim.tolerance.unwrap_or(SolveParams::default().tolerance);
    positive("simulation.tolerance", tolerance)?;
    let feedback = match (sim.feedback, sim.baumgarte_tau) {
        (Some(_), Some(_)) => {
            return Err(SceneError::at(
                "simulation.baumgarte_tau",
                "give either feedback or baumgarte_tau, not both",
            ));
        }
        (Some(f), None) => {
            non_negative("simulation.feedback.ks", f.ks)?;
            non_negative("simulation.feedback.kd", f.kd)?;
            Feedback { ks: f.ks, kd: f.kd }
        }
        (None, Some(tau)) => {
            positive("simulation.baumgarte_tau", tau)?;
            Feedback::baumgarte(tau)
        }
        (None, None) => Feedback::default(),
    };
    let restitution = sim.restitution.unwrap_or(0.0);
    if !(0.0..=1.0).contains(&restitution) {
        return Err(SceneError::at(
            "simulation.restitution",
            format!("must be in [0, 1], got {restitution}"),
        )
        .hint("0 is perfectly inelastic, 1 perfectly elastic"));
    }
    let output_every = sim.output_every.unwrap_or(1);
    if output_every == 0 {
        return Err(SceneError::at(
            "simulation.output_every",
            "must be at least 1",
        ));
    }
    let projection = match sim.projection {
        None | Some(ProjectionSpec::Enabled(false)) => None,
        Some(ProjectionSpec::Enabled(true)) => Some(Projection::default()),
        Some(ProjectionSpec::Settings {
            iterations,
            tolerance,
        }) => {
            positive("simulation.projection.tolerance", tolerance)?;
            if iterations == 0 {
                return Err(SceneError::at(
                    "simulation.projection.iterations",
                    "must be at least 1",
                ));
            }
            Some(Projection {
                max_iterations: iterations,
                tolerance,
            })
        }
    };
    if let Some(name) = &sim.inequality
        && !INEQUALITY_NAMES.contains(&name.as_str())
    {
        return Err(SceneError::at(
            "simulation.inequality",
            format!("unknown algorithm '{name}'"),
        )
        .hint(format!("one of: {}", INEQUALITY_NAMES.join(", "))));
    }
    if let Some(name) = &sim.impacts
        && bead::contact::Impacts::by_name(name).is_none()
    {
        let names: Vec<&str> = bead::contact::Impacts::ALL
            .iter()
            .map(|m| m.name())
            .collect();
        return Err(SceneError::at(
            "simulation.impacts",
            format!("unknown impact mode '{name}'"),
        )
        .hint(format!("one of: {}", names.join(", "))));
    }
    Ok(RunSettings {
        dt: sim.dt,
        duration: sim.duration,
        output_every,
        integrator,
        solver,
        newton_tolerance,
        newton_relative_tolerance,
        newton_iterations,
        tolerance,
        feedback,
        projection,
        inequality: sim.inequality.clone(),
        impacts: sim.impacts.clone(),
        restitution,
        assemble,
    })
}

/// How a start is assembled: to Newton's tolerance and within its iterations, the velocities
/// to the same tolerance (per second), so that a start on its constraints is left as it is.
pub(super) fn assembly(run: &RunSettings) -> bead::Assembly {
    bead::Assembly {
        max_iterations: run.newton_iterations,
        tolerance: run.newton_tolerance,
        velocity_tolerance: run.newton_tolerance,
    }
}

/// Gives the system the integrator, solver and settings `run` names.
pub(super) fn apply_settings(system: &mut System, run: &RunSettings) -> Result<()> {
    if let Some(integrator) = run.make_integrator() {
        system.set_integrator_boxed(integrator);
    }
    if let Some(solver) = bead::solve::by_name(&run.solver) {
        system.set_solver_boxed(solver);
    }
    let settings = Settings {
        feedback: run.feedback,
        solve: SolveParams {
            tolerance: run.tolerance,
            ..SolveParams::default()
        },
        projection: run.projection,
        restitution: run.restitution,
        inequality: run
            .inequality
            .as_deref()
            .and_then(bead::InequalityMethod::by_name)
            .unwrap_or_default(),
        impacts: run
            .impacts
            .as_deref()
            .and_then(bead::contact::Impacts::by_name)
            .unwrap_or_default(),
        ..Settings::default()
    };
    system
        .set_settings(settings)
        .map_err(|e| SceneError::at("simulation", e.to_string()))?;
    // Motors aim to reach their speed within a step: tell the model its step before the first
    // one, so that what is reported at t = 0 is what the first step applies.
    system
        .set_time_step(run.dt)
        .map_err(|e| SceneError::at("simulation.dt", e.to_string()))
}
