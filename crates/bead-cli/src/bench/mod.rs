//! `bead bench`: the performance tables of docs/performance.md, measured on the machine it runs
//! on.
//!
//! - `chain`: the chain-swing scene. N particles of 1 kg on rigid rods, 1 m in all, hanging from
//!   an anchor and given a rigid swing of 1 rad/s about it. The same scene is built in pymunk and
//!   MuJoCo by `scripts/compare/chain_swing.py`, which prints the same CSV columns, so the
//!   engines can be compared in one run (`scripts/compare/run`).
//! - `chain3d`: N 3D bars of 1 kg, half as thick as long, on spherical joints, 1 m in all,
//!   hanging from a fixed point
//!   and turning rigidly at ω = (1, 0, 0.5) rad/s about it, so that they swing and spin
//!   ([`bead::models::chain_3d`]); its link error is the largest joint gap, measured with the
//!   energy drift as `scripts/compare/chain3d.py` measures them in MuJoCo and pybullet
//!   ([`joints`]).
//! - `joint-grid`: Box3D's benchmark `joint_grid`, N × N spheres on spherical joints hanging from
//!   a fixed top row ([`bead::models::joint_grid`]), measured as `chain3d` is.
//! - `cloth`: an N × N cloth, 1 m wide and 1 kg, hanging from a rail along its top edge and
//!   released flat ([`bead::models::cloth`]).
//! - `pile`, `pyramid`: contact-rich scenes, measured against pymunk and Box2D ([`contact`]).
//! - `large-pyramid`, `many-pyramids`, `tumbler`: Box2D v3's benchmark scenes ([`box2d`]),
//!   measured as the contact scenes are.

mod box2d;
mod contact;
mod joints;

use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

/// The benchmark scenes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum BenchScene {
    /// The chain-swing scene: N links.
    Chain,
    /// A 3D chain of N rods on spherical joints, swinging and spinning.
    Chain3d,
    /// Box3D's benchmark `joint_grid`: N × N spheres on spherical joints, hanging.
    JointGrid,
    /// The hanging cloth: N × N particles.
    Cloth,
    /// A pile of N balls of 2 cm landing in a box.
    Pile,
    /// A pyramid of N rows of boxes standing on a floor.
    Pyramid,
    /// Box2D v3's benchmark `large_pyramid`: N rows of touching 1 m boxes.
    LargePyramid,
    /// Box2D v3's benchmark `many_pyramids`: N floors of N pyramids of 10 rows.
    ManyPyramids,
    /// Box2D v3's benchmark `tumbler`: N × N small boxes in a turning container.
    Tumbler,
}

impl BenchScene {
    /// Whether this is one of the contact scenes, measured by [`contact`].
    pub fn contact(self) -> bool {
        !matches!(
            self,
            BenchScene::Chain | BenchScene::Chain3d | BenchScene::JointGrid | BenchScene::Cloth
        )
    }

    /// The scene's name in tables and CSV, as `scripts/compare` names it.
    pub fn name(self) -> &'static str {
        match self {
            BenchScene::Chain => "chain",
            BenchScene::Chain3d => "chain3d",
            BenchScene::JointGrid => "joint-grid",
            BenchScene::Cloth => "cloth",
            BenchScene::Pile => "pile",
            BenchScene::Pyramid => "pyramid",
            BenchScene::LargePyramid => "large-pyramid",
            BenchScene::ManyPyramids => "many-pyramids",
            BenchScene::Tumbler => "tumbler",
        }
    }
}

/// What to measure.
pub struct BenchRequest {
    /// The scene.
    pub scene: BenchScene,
    /// Sizes: links of the chains, particles along the cloth's side, spheres along the joint
    /// grid's.
    pub sizes: Vec<usize>,
    /// Steps per run (the chains, the cloth and the joint grid).
    pub steps: usize,
    /// Simulated seconds per run (the pile and the pyramid).
    pub seconds: f64,
    /// Coulomb coefficient of every contact (the pile and the pyramid).
    pub friction: f64,
    /// Runs per size (the pile and the pyramid): the best time counts.
    pub repeat: usize,
    /// Wall seconds of stepping after which a run of a contact scene, the 3D chain or the joint
    /// grid stops.
    pub budget: f64,
    /// Step, s.
    pub dt: f64,
    /// Integrator name.
    pub integrator: String,
    /// Solver name (used by the explicit integrators).
    pub solver: String,
    /// CSV rather than a table.
    pub csv: bool,
}

/// One run's figures.
struct Row {
    n: usize,
    seconds_per_step: f64,
    link_error: f64,
    evaluations_per_step: f64,
    status: String,
}

impl BenchRequest {
    /// Gives `sys` the integrator and the solver the request names.
    fn configure(&self, sys: &mut bead::System) -> Result<()> {
        let integrator = bead::integrate::by_name(&self.integrator)
            .with_context(|| format!("unknown integrator '{}'", self.integrator))?;
        sys.set_integrator_boxed(integrator);
        let solver = bead::solve::by_name(&self.solver)
            .with_context(|| format!("unknown solver '{}'", self.solver))?;
        sys.set_solver_boxed(solver);
        Ok(())
    }
}

fn measure(request: &BenchRequest, n: usize) -> Result<Row> {
    let mut sys = match request.scene {
        BenchScene::Chain => bead::models::chain_swing(n, 1.0)?.system,
        BenchScene::Cloth => bead::models::cloth(n, 1.0, 1.0)?.0,
        _ => bail!("a contact scene"),
    };
    request.configure(&mut sys)?;
    let (mut stepping, mut link_error, mut evaluations) = (Duration::ZERO, 0.0_f64, 0usize);
    let mut status = "ok".to_string();
    let mut done = 0;
    for step in 1..=request.steps {
        let start = Instant::now();
        let outcome = sys.step(request.dt);
        stepping += start.elapsed();
        match outcome {
            Ok(stats) => evaluations += stats.evaluations,
            Err(e) => {
                status = format!("diverged at step {step}: {}", e.cause);
                break;
            }
        }
        done = step;
        // Measured outside the timed step: the largest rod error of the run.
        let (max_c, _) = sys.constraint_error()?;
        link_error = link_error.max(max_c);
        if max_c > 1.0 {
            status = format!("diverged at step {step}");
            break;
        }
    }
    let per = |x: f64| if done > 0 { x / done as f64 } else { f64::NAN };
    Ok(Row {
        n,
        seconds_per_step: per(stepping.as_secs_f64()),
        link_error,
        evaluations_per_step: per(evaluations as f64),
        status,
    })
}

/// Runs the scene at each size and prints the table (or CSV).
pub fn bench(request: &BenchRequest) -> Result<()> {
    if request.sizes.is_empty() {
        bail!("no sizes given");
    }
    if !(request.dt > 0.0 && request.dt.is_finite()) {
        bail!("--dt must be positive, got {}", request.dt);
    }
    if request.scene.contact() {
        // `--seconds`, `--friction` and `--repeat` are checked where they are read (main).
        return contact::print(request);
    }
    if matches!(request.scene, BenchScene::Chain3d | BenchScene::JointGrid) {
        return joints::print(request);
    }
    if request.scene == BenchScene::Cloth && request.sizes.contains(&1) {
        bail!("a cloth needs at least 2 × 2 particles");
    }
    let engine = format!("bead {}", request.integrator);
    if request.csv {
        println!("engine,n,s_per_step,link_error,status");
    } else {
        println!(
            "{:<22} {:>7} {:>12} {:>11} {:>11}  status",
            "engine", "n", "s/step", "link error", "evals/step"
        );
    }
    for &n in &request.sizes {
        let row = measure(request, n)?;
        if request.csv {
            println!(
                "{engine},{},{:.3e},{:.3e},{}",
                row.n, row.seconds_per_step, row.link_error, row.status
            );
        } else {
            println!(
                "{:<22} {:>7} {:>12.3e} {:>11.2e} {:>11.2}  {}",
                engine,
                row.n,
                row.seconds_per_step,
                row.link_error,
                row.evaluations_per_step,
                row.status
            );
        }
    }
    Ok(())
}

/// Parses `100,300,1000`.
pub fn parse_sizes(s: &str) -> std::result::Result<Vec<usize>, String> {
    s.split(',')
        .map(|v| {
            v.trim()
                .parse::<usize>()
                .ok()
                .filter(|n| *n > 0)
                .ok_or_else(|| format!("'{v}' in '{s}' is not a positive whole number (a size: links, balls, rows, …)"))
        })
        .collect()
}
