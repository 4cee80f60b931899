//! The 3D scenes of rigid bodies on spherical joints, measured against MuJoCo and pybullet by
//! `scripts/compare/chain3d.py` (`scripts/compare/run chain3d` and `run joint-grid`):
//!
//! - `chain3d`: N bars on spherical joints, 1 m in all, hanging from a fixed point and turning
//!   rigidly at ω = (1, 0, 0.5) rad/s ([`bead::models::chain_3d`]);
//! - `joint-grid`: Box3D's benchmark of N × N spheres on spherical joints hanging from a fixed
//!   top row ([`bead::models::joint_grid`]).
//!
//! Each row gives the time a step takes (the step alone), the largest gap of any joint over the
//! run (the distance between its two points in world coordinates, the measure the comparison
//! script takes from the other engines' body frames), the relative change of the total energy
//! from the start to the end, and the Newton evaluations a step.

use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use bead::{Point, System};

use super::{BenchRequest, BenchScene};

/// The CSV columns of these scenes, those of `scripts/compare/chain3d.py`.
pub const HEADER: &str = "engine,n,s_per_step,link_error,energy_drift,status";

/// One end of a joint: a point of a body, or a point fixed in the world.
enum End {
    Body(Point),
    World([f64; 3]),
}

/// One size's figures.
struct Row {
    n: usize,
    seconds_per_step: f64,
    link_error: f64,
    energy_drift: f64,
    evaluations_per_step: f64,
    status: String,
}

/// The scene at size `n` and its joints, each as the two ends it holds together.
fn build(scene: BenchScene, n: usize) -> Result<(System, Vec<[End; 2]>)> {
    match scene {
        BenchScene::Chain3d => {
            let (sys, rods) = bead::models::chain_3d(n, [1.0, 0.0, 0.5])?;
            let half = 0.5 / n as f64;
            let mut joints = Vec::with_capacity(n);
            let mut above = End::World([0.0; 3]);
            for &rod in &rods {
                joints.push([above, End::Body(Point::on_body_3d(rod, [0.0, 0.0, half]))]);
                above = End::Body(Point::on_body_3d(rod, [0.0, 0.0, -half]));
            }
            Ok((sys, joints))
        }
        BenchScene::JointGrid => {
            let grid = bead::models::joint_grid(n)?;
            let joints = grid
                .joints
                .iter()
                .map(|&[a, b]| [End::Body(a), End::Body(b)])
                .collect();
            Ok((grid.system, joints))
        }
        _ => bail!("not a scene of bodies on joints"),
    }
}

/// The largest distance between the two ends of any joint, m.
fn largest_gap(sys: &System, joints: &[[End; 2]]) -> Result<f64> {
    let at = |end: &End| -> Result<[f64; 3]> {
        Ok(match end {
            End::Body(p) => sys.point_position(p)?,
            End::World(x) => *x,
        })
    };
    let mut worst = 0.0_f64;
    for [a, b] in joints {
        let (a, b) = (at(a)?, at(b)?);
        let gap = ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt();
        // A NaN gap is the worst of all.
        worst = if gap.is_nan() {
            f64::NAN
        } else {
            worst.max(gap)
        };
    }
    Ok(worst)
}

fn measure(request: &BenchRequest, n: usize) -> Result<Row> {
    let (mut sys, joints) = build(request.scene, n)?;
    request.configure(&mut sys)?;
    let energy_start = sys.diagnostics()?.total_energy();
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
        // Measured outside the timed step.
        let gap = largest_gap(&sys, &joints)?;
        if gap.is_nan() || gap > 1.0 {
            status = format!("diverged at step {step}");
            break;
        }
        link_error = link_error.max(gap);
        if stepping.as_secs_f64() > request.budget && step < request.steps {
            status = format!("stopped at step {step} (time limit)");
            break;
        }
    }
    let energy_drift = if status == "ok" {
        let end = sys
            .diagnostics()
            .map_err(|e| anyhow::anyhow!("{}", e.cause))?
            .total_energy();
        (end - energy_start) / energy_start.abs()
    } else {
        f64::NAN
    };
    let per = |x: f64| if done > 0 { x / done as f64 } else { f64::NAN };
    Ok(Row {
        n,
        seconds_per_step: per(stepping.as_secs_f64()),
        link_error,
        energy_drift,
        evaluations_per_step: per(evaluations as f64),
        status,
    })
}

/// Runs the scene at each size and prints the table (or CSV).
pub fn print(request: &BenchRequest) -> Result<()> {
    if request.scene == BenchScene::JointGrid && request.sizes.contains(&1) {
        bail!("a joint grid needs at least 2 × 2 spheres");
    }
    let engine = format!("bead {}", request.integrator);
    if request.csv {
        println!("{HEADER}");
    } else {
        println!(
            "{:<22} {:>7} {:>12} {:>11} {:>12} {:>11}  status",
            "engine", "n", "s/step", "link error", "energy drift", "evals/step"
        );
    }
    // An empty CSV field where a run stopped before its end: no drift to give.
    let drift = |x: f64| {
        if x.is_nan() {
            String::new()
        } else {
            format!("{x:.3e}")
        }
    };
    for &n in &request.sizes {
        let row = measure(request, n)?;
        if request.csv {
            println!(
                "{engine},{},{:.3e},{:.3e},{},{}",
                row.n,
                row.seconds_per_step,
                row.link_error,
                drift(row.energy_drift),
                row.status
            );
        } else {
            println!(
                "{:<22} {:>7} {:>12.3e} {:>11.2e} {:>12} {:>11.2}  {}",
                engine,
                row.n,
                row.seconds_per_step,
                row.link_error,
                drift(row.energy_drift),
                row.evaluations_per_step,
                row.status
            );
        }
    }
    Ok(())
}
