//! `bead`: run, check, plot and render constrained-dynamics scenes from the command line.
//!
//! Exit codes: 0 success; 1 the simulation failed (diverged, or no constraint
//! forces could be found — the message names the time, the step and the constraint); 2 bad input
//! or usage. Errors print as one `error: ...` message with its causes, never a backtrace.

mod bench;
mod output;
mod plot;
mod render;
mod run;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use bead_scene::{Model, Scene};
use clap::{Parser, Subcommand};

/// Constrained dynamics with exact Lagrange multipliers.
#[derive(Parser)]
#[command(name = "bead", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Simulate a scene and write its trajectory, constraint forces and a summary.
    Run {
        /// The scene file (.toml or .json).
        scene: PathBuf,
        /// Directory for trajectory.csv, constraints.csv and summary.json.
        #[arg(long)]
        out: Option<PathBuf>,
        #[command(flatten)]
        overrides: Overrides,
        /// No progress bar and no summary table.
        #[arg(long, short)]
        quiet: bool,
        /// Also write accelerations.csv (q̈ at each output row).
        #[arg(long)]
        accelerations: bool,
    },
    /// Validate a scene, print the size of its model, and say whether it starts on its
    /// constraints.
    Check {
        /// The scene file.
        scene: PathBuf,
    },
    /// Print the scene format's JSON Schema (for editors: Taplo's `#:schema`, VS Code's
    /// `json.schemas`), or with `--markdown` its reference page.
    Schema {
        /// Print the reference page (Markdown) instead of the schema.
        #[arg(long)]
        markdown: bool,
    },
    /// Plot columns of a run's output files.
    Plot {
        /// A directory written by `bead run --out`.
        dir: PathBuf,
        /// A column to plot (repeat for several lines).
        #[arg(long = "y", required = true)]
        y: Vec<String>,
        /// The x column.
        #[arg(long, default_value = "t")]
        x: String,
        /// Output file, .svg or .png.
        #[arg(short = 'o', long = "output")]
        output: PathBuf,
        /// Size in pixels, WIDTHxHEIGHT.
        #[arg(long, default_value = "800x500", value_parser = parse_size)]
        size: (u32, u32),
    },
    /// Measure the engine: `chain` is N particles of 1 kg on rigid rods, 1 m in all, swinging
    /// at 1 rad/s (the scene `scripts/compare` builds in pymunk and MuJoCo); `chain3d` N 3D rods
    /// on spherical joints, 1 m in all, swinging and spinning; `joint-grid` Box3D's N × N
    /// spheres on spherical joints (these two are the scenes of `scripts/compare/run chain3d`
    /// and `joint-grid`, against MuJoCo and pybullet); `cloth` an N × N cloth hanging from a
    /// rail; `pile` N balls of 2 cm landing in a box; `pyramid` N rows of
    /// boxes on a floor; `large-pyramid`, `many-pyramids` and `tumbler` Box2D v3's benchmark
    /// scenes (the scenes of `scripts/compare/run piles`).
    Bench {
        /// The benchmark scene.
        #[arg(value_enum)]
        scene: bench::BenchScene,
        /// Sizes, comma-separated: links of the chains, particles along the cloth's side,
        /// spheres along the joint grid's, balls of the pile, rows of the pyramids, floors of
        /// many-pyramids, boxes along the tumbler's grid [default: 100,300,1000; joint-grid
        /// 10,30,100; pile 500; pyramid 20; large-pyramid 100; many-pyramids 20; tumbler 45].
        #[arg(long, value_parser = bench::parse_sizes)]
        n: Option<std::vec::Vec<usize>>,
        /// Steps per run (chains, cloth, joint grid) [default: 2000; joint-grid 100, Box3D's].
        #[arg(long)]
        steps: Option<usize>,
        /// Simulated seconds per run (contact scenes) [default: pyramid 10; others 5].
        #[arg(long)]
        seconds: Option<f64>,
        /// Coulomb coefficient of every contact (contact scenes) [default: pile 0; others 0.6].
        #[arg(long)]
        friction: Option<f64>,
        /// Runs per size (contact scenes); the best time counts.
        #[arg(long, default_value_t = 1)]
        repeat: usize,
        /// Wall seconds of stepping after which a run stops, reported as such (contact scenes,
        /// chain3d, joint-grid).
        #[arg(long, default_value_t = 300.0)]
        budget: f64,
        /// Time step, s [default: 0.001; contact scenes and joint-grid 1/60].
        #[arg(long)]
        dt: Option<f64>,
        /// Integrator.
        #[arg(long, default_value = "implicit-euler")]
        integrator: String,
        /// Solver (for the explicit integrators' multiplier solve).
        #[arg(long, default_value = "sparse")]
        solver: String,
        /// Print CSV rather than a table: chain and cloth engine,n,s_per_step,link_error,status;
        /// chain3d and joint-grid engine,n,s_per_step,link_error,energy_drift,status; contact
        /// scenes engine,scene,n,dt,s_per_step,cpu_s_per_sim_s,max_penetration,creep,
        /// energy_drift,status.
        #[arg(long)]
        csv: bool,
    },
    /// Render an animation of a scene's run as a GIF.
    Render {
        /// The scene file.
        scene: PathBuf,
        /// Output file (.gif).
        #[arg(short = 'o', long = "output")]
        output: PathBuf,
        /// Frames per second of simulated time.
        #[arg(long, default_value_t = 30)]
        fps: u32,
        /// Size in pixels, WIDTHxHEIGHT.
        #[arg(long, default_value = "480x360", value_parser = parse_size)]
        size: (u32, u32),
        /// Draw constraint forces as arrows, and where shapes touch.
        #[arg(long)]
        forces: bool,
        /// How a 3D scene is seen: `cabinet` (x to the right, z up, depth receding up and to the
        /// right at 30°, at half length), or YAW,PITCH in degrees, an orthographic view from that
        /// side (yaw about the vertical z, 0 looking along +y; pitch above the horizon);
        /// -23.4,12.9 looks along the cabinet's direction.
        #[arg(
            long,
            default_value = "cabinet",
            value_parser = render::parse_view,
            allow_hyphen_values = true
        )]
        view: bead::draw::projection::Camera,
        /// Draw 3D bodies as shaded solids, their faces in depth order, instead of by their
        /// edges.
        #[arg(long)]
        solid: bool,
        #[command(flatten)]
        overrides: Overrides,
    },
}

/// Settings that override the scene's `[simulation]`.
#[derive(clap::Args)]
struct Overrides {
    /// Time step, s.
    #[arg(long)]
    dt: Option<f64>,
    /// Duration, s.
    #[arg(long)]
    duration: Option<f64>,
    /// euler | symplectic-euler | midpoint | rk4 | implicit-euler | bdf2 (an explicit one
    /// leaves the scene's own Newton settings unused).
    #[arg(long)]
    integrator: Option<String>,
    /// Implicit integrators: Newton's tolerance on |C|, m.
    #[arg(long)]
    newton_tolerance: Option<f64>,
    /// Implicit integrators: Newton's tolerance on the momentum residual, relative to the
    /// step's forces.
    #[arg(long)]
    newton_relative_tolerance: Option<f64>,
    /// Implicit integrators: Newton iterations per step at most.
    #[arg(long)]
    newton_iterations: Option<usize>,
    /// cg | sparse | dense | gauss-seidel.
    #[arg(long)]
    solver: Option<String>,
    /// platt | improved | jonquet | lcp (inequality constraints).
    #[arg(long)]
    inequality: Option<String>,
}

fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("'{s}' is not WIDTHxHEIGHT (for example 800x500)"))?;
    let parse = |v: &str| {
        v.trim()
            .parse::<u32>()
            .map_err(|_| format!("'{v}' in '{s}' is not a whole number of pixels"))
    };
    Ok((parse(w)?, parse(h)?))
}

/// Why the command failed, which decides the exit code.
enum Failure {
    /// Bad input or usage: exit 2.
    Input(anyhow::Error),
    /// The simulation (or writing its results) failed: exit 1.
    Run(anyhow::Error),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match execute(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Input(e)) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
        Err(Failure::Run(e)) => {
            eprintln!("error: {e:#}");
            ExitCode::from(1)
        }
    }
}

fn load(path: &std::path::Path, overrides: &Overrides) -> Result<Model, Failure> {
    let mut scene = Scene::load(path).map_err(|e| Failure::Input(e.into()))?;
    let sim = &mut scene.file.simulation;
    if let Some(dt) = overrides.dt {
        sim.dt = dt;
    }
    if let Some(duration) = overrides.duration {
        sim.duration = duration;
    }
    if let Some(name) = &overrides.integrator {
        sim.integrator = Some(name.clone());
        // The scene's Newton settings were written for its own (implicit) integrator: an
        // explicit one named here leaves them unused, rather than making the scene an error.
        // Those given on the command line are still checked, and assembly keeps its own.
        if bead::integrate::by_name(name).is_some_and(|i| !i.implicit()) {
            let assemble = sim.assemble.unwrap_or(false);
            sim.newton_relative_tolerance = None;
            if !assemble {
                sim.newton_tolerance = None;
                sim.newton_iterations = None;
            }
        }
    }
    if let Some(name) = &overrides.solver {
        sim.solver = Some(name.clone());
    }
    if overrides.newton_tolerance.is_some() {
        sim.newton_tolerance = overrides.newton_tolerance;
    }
    if overrides.newton_relative_tolerance.is_some() {
        sim.newton_relative_tolerance = overrides.newton_relative_tolerance;
    }
    if overrides.newton_iterations.is_some() {
        sim.newton_iterations = overrides.newton_iterations;
    }
    if let Some(name) = &overrides.inequality {
        sim.inequality = Some(name.clone());
    }
    // A bad value given as an option is not where the file's line would point.
    let given: Vec<&str> = [
        (overrides.dt.is_some(), "simulation.dt"),
        (overrides.duration.is_some(), "simulation.duration"),
        (overrides.integrator.is_some(), "simulation.integrator"),
        (overrides.solver.is_some(), "simulation.solver"),
        (
            overrides.newton_tolerance.is_some(),
            "simulation.newton_tolerance",
        ),
        (
            overrides.newton_relative_tolerance.is_some(),
            "simulation.newton_relative_tolerance",
        ),
        (
            overrides.newton_iterations.is_some(),
            "simulation.newton_iterations",
        ),
        (overrides.inequality.is_some(), "simulation.inequality"),
    ]
    .into_iter()
    .filter_map(|(set, field)| set.then_some(field))
    .collect();
    scene.build().map_err(|mut e| {
        if e.field.as_deref().is_some_and(|f| given.contains(&f)) {
            (e.line, e.column) = (None, None);
            e.message = format!("{} (given on the command line)", e.message);
        }
        Failure::Input(e.into())
    })
}

/// The warnings a model gives before it runs: that it starts off its constraints (see
/// `bead_scene::start`), or that its start cannot even be evaluated (the run then fails at its
/// first step, and says why), and that it sets a restitution the run will ignore.
fn warnings(model: &mut Model) -> Vec<String> {
    let off = match bead_scene::start::check(model) {
        Ok(start) => start.warning(),
        Err(e) => Some(format!("the start cannot be evaluated: {e}")),
    };
    off.into_iter().chain(model.restitution_warning()).collect()
}

fn execute(command: Command) -> Result<(), Failure> {
    match command {
        Command::Run {
            scene,
            out,
            overrides,
            quiet,
            accelerations,
        } => {
            let mut model = load(&scene, &overrides)?;
            for warning in warnings(&mut model) {
                eprintln!("warning: {warning}");
            }
            let report =
                run::run(&mut model, out.as_ref(), !quiet, accelerations).map_err(Failure::Run)?;
            if !quiet {
                println!("{}", run::summary_table(&model, &report));
            }
            if let Some(e) = report.failure {
                let written = out.map_or(String::new(), |d| {
                    format!(" (results up to the failure are in {})", d.display())
                });
                return Err(Failure::Run(
                    anyhow::Error::new(e).context(format!("the simulation failed{written}")),
                ));
            }
            Ok(())
        }
        Command::Schema { markdown } => {
            if markdown {
                print!("{}", bead_scene::schema::reference());
            } else {
                print!("{}", bead_scene::schema::json_schema_text());
            }
            Ok(())
        }
        Command::Check { scene } => {
            let mut model = load(
                &scene,
                &Overrides {
                    dt: None,
                    duration: None,
                    integrator: None,
                    newton_tolerance: None,
                    newton_relative_tolerance: None,
                    newton_iterations: None,
                    solver: None,
                    inequality: None,
                },
            )?;
            let sys = &model.system;
            println!(
                "ok: {} — {}D, {} bodies, {} degrees of freedom, {} constraints ({} rows), {} steps of {} s",
                model.name,
                sys.dim(),
                model.particles.len()
                    + model.bodies.len()
                    + model.bodies_3d.len()
                    + model.objects.len(),
                sys.q().len(),
                model.constraints.len(),
                sys.constraint_rows(),
                bead::step_count(model.run.duration, model.run.dt),
                model.run.dt
            );
            for object in &model.objects {
                let u = sys.coordinates(object.id);
                let rates = sys.coordinate_velocities(object.id);
                let list = |values: &[f64], suffix: &str| {
                    values
                        .iter()
                        .enumerate()
                        .map(|(k, x)| format!("u{k}{suffix} = {x}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                println!(
                    "  object {}: {} coordinate{} ({}; {}), points {}",
                    object.name,
                    object.coordinates,
                    if object.coordinates == 1 { "" } else { "s" },
                    list(u, ""),
                    list(rates, "_dot"),
                    object.points.join(", ")
                );
            }
            if let Some(a) = model.assembly {
                println!(
                    "assembled: the start moved onto the constraints in {} iteration{} \
                     (|C| was {:.3e}, |Ċ| {:.3e}; coordinates moved by up to {:.3e}, \
                     velocities by up to {:.3e})",
                    a.iterations,
                    if a.iterations == 1 { "" } else { "s" },
                    a.abs_c,
                    a.abs_c_dot,
                    a.displacement,
                    a.velocity_change
                );
            }
            for warning in warnings(&mut model) {
                println!("warning: {warning}");
            }
            Ok(())
        }
        Command::Plot {
            dir,
            y,
            x,
            output,
            size,
        } => {
            let request = plot::PlotRequest {
                dir,
                x,
                y,
                output,
                size,
            };
            plot::plot(&request).map_err(Failure::Input)
        }
        Command::Bench {
            scene,
            n,
            steps,
            seconds,
            friction,
            repeat,
            budget,
            dt,
            integrator,
            solver,
            csv,
        } => {
            use bench::BenchScene;
            let contact = scene.contact();
            let n = n.unwrap_or_else(|| match scene {
                BenchScene::Pile => vec![500],
                BenchScene::Pyramid | BenchScene::ManyPyramids => vec![20],
                BenchScene::LargePyramid => vec![100],
                BenchScene::Tumbler => vec![45],
                BenchScene::JointGrid => vec![10, 30, 100],
                _ => vec![100, 300, 1000],
            });
            let grid = scene == BenchScene::JointGrid;
            let steps = steps.unwrap_or(if grid { 100 } else { 2000 });
            let dt = dt.unwrap_or(if contact || grid { 1.0 / 60.0 } else { 1e-3 });
            let seconds = seconds.unwrap_or(if scene == BenchScene::Pyramid {
                10.0
            } else {
                5.0
            });
            let friction = friction.unwrap_or(if contact && scene != BenchScene::Pile {
                0.6
            } else {
                0.0
            });
            if contact {
                let bad = if !(seconds >= dt && seconds.is_finite()) {
                    Some(format!(
                        "--seconds must be at least one step ({dt} s), got {seconds}"
                    ))
                } else if !(friction >= 0.0 && friction.is_finite()) {
                    Some(format!("--friction must be zero or more, got {friction}"))
                } else if repeat == 0 {
                    Some("--repeat must be at least 1".to_string())
                } else {
                    None
                };
                if let Some(message) = bad {
                    return Err(Failure::Input(anyhow::anyhow!(message)));
                }
            }
            if !(budget > 0.0) {
                return Err(Failure::Input(anyhow::anyhow!(
                    "--budget must be positive, got {budget}"
                )));
            }
            if bead::integrate::by_name(&integrator).is_none() {
                return Err(Failure::Input(anyhow::anyhow!(
                    "unknown integrator '{integrator}' (one of: {})",
                    bead::integrate::INTEGRATOR_NAMES.join(", ")
                )));
            }
            if bead::solve::by_name(&solver).is_none() {
                return Err(Failure::Input(anyhow::anyhow!(
                    "unknown solver '{solver}' (one of: {})",
                    bead::solve::SOLVER_NAMES.join(", ")
                )));
            }
            let request = bench::BenchRequest {
                scene,
                sizes: n,
                steps,
                seconds,
                friction,
                repeat,
                budget,
                dt,
                integrator,
                solver,
                csv,
            };
            bench::bench(&request).map_err(Failure::Run)
        }
        Command::Render {
            scene,
            output,
            fps,
            size,
            forces,
            view,
            solid,
            overrides,
        } => {
            let mut model = load(&scene, &overrides)?;
            for warning in warnings(&mut model) {
                eprintln!("warning: {warning}");
            }
            let options = render::RenderOptions {
                fps,
                width: size.0,
                height: size.1,
                show_forces: forces,
                camera: view,
                solid,
            };
            let summary = render::render(&mut model, &options, &output)
                .with_context(|| format!("rendering {}", scene.display()))
                .map_err(Failure::Run)?;
            println!("wrote {} ({} frames)", output.display(), summary.frames);
            Ok(())
        }
    }
}
