//! `bead bench pile`, `pyramid` and Box2D's benchmark scenes: contact-rich scenes measured as
//! the iterative engines are, with the columns where exact contact differs from theirs. The same scenes are
//! built in pymunk and Box2D by `scripts/compare/piles.py`, which prints the same CSV columns
//! (`scripts/compare/run piles` runs them all in one session).
//!
//! - `pile`: N balls of 2 cm and 10 g released on a grid in a box 0.6 m wide (wider for more
//!   than 1,000 balls, `0.6 √(N/500)` m), with friction μ at every contact
//!   ([`bead::models::ball_pile`], [`bead::models::frictional_ball_pile`]).
//! - `pyramid`: N rows of 0.5 m boxes of 25 kg, 2.5 cm apart, on a floor, friction μ
//!   ([`bead::models::box_pyramid`]).
//! - `large-pyramid`, `many-pyramids`, `tumbler`: Box2D v3's benchmark scenes
//!   ([`super::box2d`]); the pyramids' creep is measured as the pyramid's, and the tumbler,
//!   where boxes tumble in a driven container, has neither creep nor energy drift.
//!
//! Columns: wall and CPU time of the steps alone (the best of `--repeat` runs that do nothing
//! else), and from one more run that measures after every step: the deepest
//! penetration of any contact at any step's end, the creep of resting bodies (the pile: the
//! largest displacement over the last second; the pyramid: from where each box started, over
//! the whole run) and the energy drift over the last second, relative.

use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use bead::{BodyId, Diagnostics, System};

use super::BenchRequest;

/// A contact scene's measured run.
pub(super) struct ContactRow {
    n: usize,
    seconds_per_step: f64,
    cpu_per_simulated_second: f64,
    max_penetration: f64,
    creep: f64,
    energy_drift: f64,
    status: String,
}

/// A built scene: the system and the bodies whose creep is measured.
struct Scene {
    system: System,
    bodies: Vec<BodyId>,
}

/// The pile's box width for `n` balls.
pub(super) fn pile_width(n: usize) -> f64 {
    if n <= 1000 {
        0.6
    } else {
        (0.6 * (n as f64 / 500.0).sqrt() * 100.0).round() / 100.0
    }
}

fn build(request: &BenchRequest, n: usize) -> Result<Scene> {
    let mu = request.friction;
    let (mut system, bodies) = match request.scene {
        super::BenchScene::Pile => {
            let width = pile_width(n);
            let (system, balls) = if mu > 0.0 {
                bead::models::frictional_ball_pile(n, 0.02, width, mu)?
            } else {
                bead::models::ball_pile(n, 0.02, width)?
            };
            (system, balls.into_iter().map(|b| b.body()).collect())
        }
        super::BenchScene::Pyramid => {
            let (system, boxes, _) = bead::models::box_pyramid(n, mu)?;
            (system, boxes.into_iter().map(|b| b.body()).collect())
        }
        super::BenchScene::LargePyramid => super::box2d::large_pyramid(n, mu)?,
        super::BenchScene::ManyPyramids => super::box2d::many_pyramids(n, mu)?,
        super::BenchScene::Tumbler => super::box2d::tumbler(n, mu)?,
        _ => bail!("not a contact scene"),
    };
    request.configure(&mut system)?;
    Ok(Scene { system, bodies })
}

/// Where each body is (its first two coordinates: x, y).
fn positions(scene: &Scene) -> Vec<[f64; 2]> {
    scene
        .bodies
        .iter()
        .map(|&b| {
            let q = scene.system.coordinates(b);
            [q[0], q[1]]
        })
        .collect()
}

fn largest_move(from: &[[f64; 2]], to: &[[f64; 2]]) -> f64 {
    from.iter()
        .zip(to)
        .map(|(a, b)| (a[0] - b[0]).hypot(a[1] - b[1]))
        .fold(0.0, f64::max)
}

/// Whether the scene's bodies start at rest and should stay there: its creep is measured from
/// where each body started, over the whole run (the pile's over its last second).
fn standing(scene: super::BenchScene) -> bool {
    use super::BenchScene::{LargePyramid, ManyPyramids, Pyramid};
    matches!(scene, Pyramid | LargePyramid | ManyPyramids)
}

/// The deepest penetration of any contact in `diagnostics`: `max(0, −g)` over the inequality
/// constraints' first rows (the normal row of a half-plane, a particle pair or a shape contact).
fn penetration(diagnostics: &Diagnostics) -> f64 {
    diagnostics
        .constraints
        .iter()
        .filter(|c| c.active.is_some())
        .filter_map(|c| c.c.first())
        .fold(0.0_f64, |m, &g| m.max(-g))
}

/// One run of `steps` steps: its timings, and with `measure` its accuracy columns.
fn run(request: &BenchRequest, n: usize, measure: bool) -> Result<ContactRow> {
    let mut scene = build(request, n)?;
    let steps = (request.seconds / request.dt).round().max(1.0) as usize;
    let last_second = steps.saturating_sub((1.0 / request.dt).round() as usize);
    let start_positions = positions(&scene);
    let (mut wall, mut cpu) = (Duration::ZERO, Duration::ZERO);
    let mut row = ContactRow {
        n,
        seconds_per_step: f64::NAN,
        cpu_per_simulated_second: f64::NAN,
        max_penetration: 0.0,
        creep: 0.0,
        energy_drift: f64::NAN,
        status: "ok".to_string(),
    };
    // The last second's start: here, for a run of a second or less.
    let (mut mark, mut mark_energy) = (start_positions.clone(), f64::NAN);
    // A measurement that fails (the forces at an instant, which the explicit integrators'
    // active set may not find) ends the run with that status, as a failed step does.
    let failed = |t: f64, e: bead::StepError| format!("failed at t = {t:.3} s: {}", e.cause);
    if measure && last_second == 0 {
        match scene.system.diagnostics() {
            Ok(d) => mark_energy = d.total_energy(),
            Err(e) => {
                row.status = failed(0.0, e);
                return Ok(row);
            }
        }
    }
    let mut done = 0;
    for step in 1..=steps {
        let (started, cpu_started) = (Instant::now(), cpu_time::ProcessTime::now());
        let outcome = scene.system.step(request.dt);
        wall += started.elapsed();
        cpu += cpu_started.elapsed();
        if let Err(e) = outcome {
            row.status = failed((step - 1) as f64 * request.dt, e);
            break;
        }
        done = step;
        if wall.as_secs_f64() > request.budget {
            row.status = format!(
                "stopped at t = {:.3} s: over the {} s budget of wall time",
                step as f64 * request.dt,
                request.budget
            );
            break;
        }
        if !measure {
            continue;
        }
        let diagnostics = match scene.system.diagnostics() {
            Ok(d) => d,
            Err(e) => {
                row.status = failed(step as f64 * request.dt, e);
                break;
            }
        };
        row.max_penetration = row.max_penetration.max(penetration(&diagnostics));
        let now = positions(&scene);
        if standing(request.scene) {
            row.creep = row.creep.max(largest_move(&start_positions, &now));
        }
        if step == last_second {
            mark = now;
            mark_energy = diagnostics.total_energy();
        } else if step == steps {
            if request.scene == super::BenchScene::Pile {
                row.creep = largest_move(&mark, &now);
            }
            row.energy_drift = (diagnostics.total_energy() - mark_energy) / mark_energy.abs();
        }
    }
    if request.scene == super::BenchScene::Tumbler {
        // The boxes tumble and the motor drives the container: nothing rests, nothing is
        // conserved.
        (row.creep, row.energy_drift) = (f64::NAN, f64::NAN);
    }
    if done > 0 {
        row.seconds_per_step = wall.as_secs_f64() / done as f64;
        row.cpu_per_simulated_second = cpu.as_secs_f64() / (done as f64 * request.dt);
    }
    Ok(row)
}

/// The best of `request.repeat` runs' timings, and the accuracy of one more run that measures.
/// The two are kept apart because measuring reads the diagnostics after every step, and under
/// the explicit integrators those evaluate the next step's first stage (the one that chooses the
/// contacts, most of a step's cost), which the step then reuses: timing `step` alone in a run
/// that measures would leave that work out of the figure. A run that failed or stopped is not
/// repeated: its time is not the scene's.
pub(super) fn measure(request: &BenchRequest, n: usize) -> Result<ContactRow> {
    let mut timed = run(request, n, false)?;
    if timed.status == "ok" {
        for _ in 1..request.repeat {
            let again = run(request, n, false)?;
            timed.seconds_per_step = timed.seconds_per_step.min(again.seconds_per_step);
            timed.cpu_per_simulated_second = timed
                .cpu_per_simulated_second
                .min(again.cpu_per_simulated_second);
        }
    }
    let mut row = run(request, n, true)?;
    row.seconds_per_step = timed.seconds_per_step;
    row.cpu_per_simulated_second = timed.cpu_per_simulated_second;
    if timed.status != "ok" {
        row.status = timed.status;
    }
    Ok(row)
}

/// The CSV header of the contact scenes (`scripts/compare/piles.py` prints the same).
pub(super) const CSV_HEADER: &str =
    "engine,scene,n,dt,s_per_step,cpu_s_per_sim_s,max_penetration,creep,energy_drift,status";

/// Prints the runs of `request` at each size, as a table or CSV.
pub(super) fn print(request: &BenchRequest) -> Result<()> {
    let engine = format!("bead {}", request.integrator);
    let scene = request.scene.name();
    if request.csv {
        println!("{CSV_HEADER}");
    } else {
        println!(
            "{:<22} {:>6} {:>9} {:>10} {:>12} {:>11} {:>10} {:>12}  status",
            "engine", "n", "dt", "s/step", "CPU s/sim s", "penetration", "creep", "energy drift"
        );
    }
    for &n in &request.sizes {
        let row = measure(request, n)?;
        if request.csv {
            // Empty where there is nothing to show, as `scripts/compare/piles.py` leaves it.
            let shown = |v: f64| {
                if v.is_finite() {
                    format!("{v:.3e}")
                } else {
                    String::new()
                }
            };
            println!(
                "{engine},{scene},{},{:.6},{:.3e},{:.3e},{:.3e},{},{},{}",
                row.n,
                request.dt,
                row.seconds_per_step,
                row.cpu_per_simulated_second,
                row.max_penetration,
                shown(row.creep),
                shown(row.energy_drift),
                row.status.replace(',', ";")
            );
        } else {
            // A run that stopped before its last second has no drift to show, a tumbler neither
            // creep nor drift.
            let shown = |v: f64| {
                if v.is_finite() {
                    format!("{v:.2e}")
                } else {
                    "—".to_string()
                }
            };
            let (creep, drift) = (shown(row.creep), shown(row.energy_drift));
            println!(
                "{:<22} {:>6} {:>9.6} {:>10.3e} {:>12.3e} {:>11.2e} {:>10} {:>12}  {}",
                engine,
                row.n,
                request.dt,
                row.seconds_per_step,
                row.cpu_per_simulated_second,
                row.max_penetration,
                creep,
                drift,
                row.status
            );
        }
    }
    Ok(())
}
