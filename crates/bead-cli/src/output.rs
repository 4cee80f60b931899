//! The files of `bead run --out DIR`: `trajectory.csv`, `constraints.csv` and
//! `summary.json`. Their names and headers are a contract that tests outside the project rely on.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use bead::Diagnostics;
use bead_scene::Model;

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

/// Header of the optional accelerations.csv: `t`, then `NAME.ax NAME.ay [NAME.az]` per particle and
/// `NAME.ax NAME.ay NAME.alpha` per rigid body, `NAME.u0_ddot …` per parametric object (q̈, as
/// the dynamics computed it).
pub fn accelerations_header(model: &Model) -> Vec<String> {
    let axes = &["ax", "ay", "az"][..model.system.dim()];
    let mut header = vec!["t".to_string()];
    for (name, _) in &model.particles {
        header.extend(axes.iter().map(|a| format!("{name}.{a}")));
    }
    for (name, _) in &model.bodies {
        header.extend(["ax", "ay", "alpha"].iter().map(|c| format!("{name}.{c}")));
    }
    for object in &model.objects {
        header.extend((0..object.coordinates).map(|k| format!("{}.u{k}_ddot", object.name)));
    }
    header
}

fn writer(path: &Path) -> Result<csv::Writer<BufWriter<File>>> {
    let file = File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
    Ok(csv::Writer::from_writer(BufWriter::new(file)))
}

/// Header of trajectory.csv: `t`, then `NAME.x NAME.y [NAME.z] NAME.vx NAME.vy [NAME.vz]` per
/// particle, then `NAME.x NAME.y NAME.theta NAME.vx NAME.vy NAME.omega` per rigid body, then
/// `NAME.u0 … NAME.uk NAME.u0_dot … NAME.uk_dot` and `NAME.POINT.x NAME.POINT.y [NAME.POINT.z]`
/// per point for each parametric object.
pub fn trajectory_header(model: &Model) -> Vec<String> {
    let axes = &["x", "y", "z"][..model.system.dim()];
    let mut header = vec!["t".to_string()];
    for (name, _) in &model.particles {
        header.extend(axes.iter().map(|a| format!("{name}.{a}")));
        header.extend(axes.iter().map(|a| format!("{name}.v{a}")));
    }
    for (name, _) in &model.bodies {
        header.extend(
            ["x", "y", "theta", "vx", "vy", "omega"]
                .iter()
                .map(|c| format!("{name}.{c}")),
        );
    }
    for object in &model.objects {
        let name = &object.name;
        header.extend((0..object.coordinates).map(|k| format!("{name}.u{k}")));
        header.extend((0..object.coordinates).map(|k| format!("{name}.u{k}_dot")));
        for point in &object.points {
            header.extend(axes.iter().map(|a| format!("{name}.{point}.{a}")));
        }
    }
    header
}

/// Header of constraints.csv: `t`, then `NAME.C NAME.lambda` per constraint (`NAME.C0..
/// NAME.lambda0..` for a constraint of several rows), `NAME.active` (0/1) for an inequality, then
/// for a joint on rigid bodies the force and torque it exerts on each:
/// `NAME.BODY.fx NAME.BODY.fy NAME.BODY.torque`.
pub fn constraints_header(model: &Model) -> Vec<String> {
    let mut header = vec!["t".to_string()];
    for c in &model.constraints {
        if c.rows == 1 {
            header.push(format!("{}.C", c.name));
            header.push(format!("{}.lambda", c.name));
        } else {
            header.extend((0..c.rows).map(|r| format!("{}.C{r}", c.name)));
            header.extend((0..c.rows).map(|r| format!("{}.lambda{r}", c.name)));
        }
        if c.inequality {
            if c.rows == 1 {
                header.push(format!("{}.active", c.name));
            } else {
                header.extend((0..c.rows).map(|r| format!("{}.active{r}", c.name)));
            }
        }
        for (body, _) in &c.reactions {
            header.extend(
                ["fx", "fy", "torque"]
                    .iter()
                    .map(|k| format!("{}.{body}.{k}", c.name)),
            );
        }
    }
    header
}

impl Outputs {
    /// Creates `dir` if needed and writes both headers.
    pub fn create(dir: &Path, model: &Model, accelerations: bool) -> Result<Outputs> {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create the output directory {}", dir.display()))?;
        let mut trajectory = writer(&dir.join("trajectory.csv"))?;
        let mut constraints = writer(&dir.join("constraints.csv"))?;
        trajectory.write_record(trajectory_header(model))?;
        constraints.write_record(constraints_header(model))?;
        let accelerations = if accelerations {
            let mut w = writer(&dir.join("accelerations.csv"))?;
            w.write_record(accelerations_header(model))?;
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

    /// Writes one row of each file for the current state.
    pub fn row(&mut self, model: &mut Model, diagnostics: &Diagnostics) -> Result<()> {
        if let Some(w) = self.accelerations.as_mut() {
            let t = number(model.system.time());
            let a = model.system.acceleration()?.to_vec();
            let system = &model.system;
            // q̈ is laid out body after body in insertion order; the file lists particles first.
            let mut row = vec![t];
            for (_, p) in &model.particles {
                row.extend(system.body_slice(p.body(), &a).iter().copied().map(number));
            }
            for (_, b) in &model.bodies {
                row.extend(system.body_slice(b.body(), &a).iter().copied().map(number));
            }
            for object in &model.objects {
                row.extend(
                    system
                        .body_slice(object.id.body(), &a)
                        .iter()
                        .copied()
                        .map(number),
                );
            }
            w.write_record(&row).context("writing accelerations.csv")?;
        }
        let system = &model.system;
        let t = number(system.time());
        let mut row = vec![t.clone()];
        for (_, p) in &model.particles {
            row.extend(system.position(*p).iter().copied().map(number));
            row.extend(system.velocity(*p).iter().copied().map(number));
        }
        for (_, b) in &model.bodies {
            row.extend(system.coordinates(*b).iter().copied().map(number));
            row.extend(system.coordinate_velocities(*b).iter().copied().map(number));
        }
        let dim = system.dim();
        for object in &model.objects {
            row.extend(system.coordinates(object.id).iter().copied().map(number));
            row.extend(
                system
                    .coordinate_velocities(object.id)
                    .iter()
                    .copied()
                    .map(number),
            );
            for k in 0..object.points.len() {
                let point = bead::Point::OfObject {
                    body: object.id.body(),
                    index: k,
                };
                let x = system.point_position(&point)?;
                row.extend(x[..dim].iter().copied().map(number));
            }
        }
        self.trajectory
            .write_record(&row)
            .context("writing trajectory.csv")?;
        let mut row = vec![t];
        for c in &model.constraints {
            match diagnostics.constraint(c.id) {
                Some(report) => {
                    row.extend(report.c.iter().copied().map(number));
                    row.extend(report.lambda.iter().copied().map(number));
                    if c.inequality {
                        let active = report.active.clone().unwrap_or_default();
                        row.extend((0..c.rows).map(|r| {
                            if active.get(r).copied().unwrap_or(false) {
                                "1"
                            } else {
                                "0"
                            }
                            .to_string()
                        }));
                    }
                    for (_, body) in &c.reactions {
                        let force = report
                            .forces
                            .iter()
                            .find(|(b, _)| b == body)
                            .map(|(_, f)| f.as_slice());
                        row.extend(
                            (0..3).map(|k| {
                                number(force.and_then(|f| f.get(k).copied()).unwrap_or(0.0))
                            }),
                        );
                    }
                }
                None => {
                    let width =
                        2 * c.rows + 3 * c.reactions.len() + if c.inequality { c.rows } else { 0 };
                    row.extend(std::iter::repeat_n("NaN".to_string(), width));
                }
            }
        }
        self.constraints
            .write_record(&row)
            .context("writing constraints.csv")?;
        Ok(())
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
