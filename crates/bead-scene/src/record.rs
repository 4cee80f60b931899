//! The output columns of a run: the headers and the rows of `trajectory.csv`,
//! `constraints.csv` and `accelerations.csv`, as numbers. The command line writes them as CSV
//! text and the Python package as numpy arrays, so the two cannot disagree on a column. Their
//! names are a contract that tests outside the project rely on.

use bead::{Diagnostics, ModelError, Point, StepError};

use crate::Model;

/// The columns of a 3D rigid body in `trajectory.csv`, after its name.
const BODY_3D_COLUMNS: [&str; 13] = [
    "x", "y", "z", "qw", "qx", "qy", "qz", "vx", "vy", "vz", "wx", "wy", "wz",
];

/// A joint's reaction on each body in `constraints.csv`, after `NAME.BODY.`: force and torque
/// in 2D, their three components each in 3D (world frame).
fn reaction_columns(dim: usize) -> &'static [&'static str] {
    if dim == 3 {
        &["fx", "fy", "fz", "tx", "ty", "tz"]
    } else {
        &["fx", "fy", "torque"]
    }
}

/// Header of `trajectory.csv`: `t`, then `NAME.x NAME.y [NAME.z] NAME.vx NAME.vy [NAME.vz]` per
/// particle, then `NAME.x NAME.y NAME.theta NAME.vx NAME.vy NAME.omega` per rigid body (in 3D
/// `NAME.x NAME.y NAME.z NAME.qw NAME.qx NAME.qy NAME.qz NAME.vx NAME.vy NAME.vz NAME.wx
/// NAME.wy NAME.wz`: the orientation quaternion and the world angular velocity), then
/// `NAME.u0 … NAME.uk NAME.u0_dot … NAME.uk_dot` and `NAME.POINT.x NAME.POINT.y [NAME.POINT.z]`
/// per point for each parametric object.
///
/// ```
/// let scene = bead_scene::Scene::parse(
///     "format = 1\n[simulation]\ndimension = 2\ndt = 0.01\nduration = 1\n\
///      [[particles]]\nname = \"ball\"\nposition = [0, 1]",
///     bead_scene::Format::Toml,
///     "example",
/// )?;
/// let model = scene.build()?;
/// assert_eq!(
///     bead_scene::record::trajectory_header(&model),
///     ["t", "ball.x", "ball.y", "ball.vx", "ball.vy"]
/// );
/// # Ok::<(), bead_scene::SceneError>(())
/// ```
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
    for (name, _) in &model.bodies_3d {
        header.extend(BODY_3D_COLUMNS.iter().map(|c| format!("{name}.{c}")));
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

/// One row of `trajectory.csv` for the current state, in the order of [`trajectory_header`].
/// Fails only if `model.system` no longer has one of the model's parametric objects.
pub fn trajectory_row(model: &Model) -> Result<Vec<f64>, ModelError> {
    let system = &model.system;
    let dim = system.dim();
    let mut row = vec![system.time()];
    for (_, p) in &model.particles {
        row.extend_from_slice(system.position(*p));
        row.extend_from_slice(system.velocity(*p));
    }
    for (_, b) in &model.bodies {
        row.extend_from_slice(system.coordinates(*b));
        row.extend_from_slice(system.coordinate_velocities(*b));
    }
    for (_, b) in &model.bodies_3d {
        row.extend_from_slice(&system.coordinates(*b)[..3]);
        row.extend_from_slice(&system.orientation(*b));
        row.extend_from_slice(&system.coordinate_velocities(*b)[..3]);
        row.extend_from_slice(&system.angular_velocity(*b));
    }
    for object in &model.objects {
        row.extend_from_slice(system.coordinates(object.id));
        row.extend_from_slice(system.coordinate_velocities(object.id));
        for index in 0..object.points.len() {
            let point = Point::OfObject {
                body: object.id.body(),
                index,
            };
            let x = system.point_position(&point)?;
            row.extend_from_slice(&x[..dim]);
        }
    }
    Ok(row)
}

/// Header of `constraints.csv`: `t`, then `NAME.C NAME.lambda` per constraint (`NAME.C0..
/// NAME.lambda0..` for a constraint of several rows: a contact with friction has `lambda0` its
/// normal force and `lambda1` its friction force), `NAME.active` (0/1) for an inequality
/// (`NAME.active0..` for one of several inequality rows; a friction row has none), then for a
/// joint on rigid bodies the force and torque it exerts on each:
/// `NAME.BODY.fx NAME.BODY.fy NAME.BODY.torque` (3D: `NAME.BODY.fx fy fz tx ty tz`); then per shape contact group `NAME.contacts
/// NAME.normal_force NAME.friction_force NAME.max_penetration`.
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
        if c.active_rows.len() == 1 {
            header.push(format!("{}.active", c.name));
        } else {
            header.extend(
                c.active_rows
                    .iter()
                    .map(|r| format!("{}.active{r}", c.name)),
            );
        }
        for (body, _) in &c.reactions {
            header.extend(
                reaction_columns(model.system.dim())
                    .iter()
                    .map(|k| format!("{}.{body}.{k}", c.name)),
            );
        }
    }
    for group in &model.contacts {
        header.extend(
            [
                "contacts",
                "normal_force",
                "friction_force",
                "max_penetration",
            ]
            .iter()
            .map(|k| format!("{}.{k}", group.name)),
        );
    }
    header
}

/// One row of `constraints.csv` from the diagnostics of the current state, in the order of
/// [`constraints_header`]; `active` is 1.0 or 0.0. A constraint the diagnostics do not report
/// gets NaN in each of its columns, and so does a contact group whose summary cannot be
/// evaluated.
pub fn constraints_row(model: &Model, diagnostics: &Diagnostics) -> Vec<f64> {
    let mut row = vec![model.system.time()];
    for c in &model.constraints {
        let Some(report) = diagnostics.constraint(c.id) else {
            let columns = reaction_columns(model.system.dim()).len();
            let width = 2 * c.rows + columns * c.reactions.len() + c.active_rows.len();
            row.extend(std::iter::repeat_n(f64::NAN, width));
            continue;
        };
        row.extend_from_slice(&report.c);
        row.extend_from_slice(&report.lambda);
        let active = report.active.as_deref().unwrap_or_default();
        row.extend(c.active_rows.iter().map(|&r| {
            if active.get(r).copied().unwrap_or(false) {
                1.0
            } else {
                0.0
            }
        }));
        for (_, body) in &c.reactions {
            let force = report
                .forces
                .iter()
                .find(|(b, _)| b == body)
                .map(|(_, f)| f.as_slice());
            let columns = reaction_columns(model.system.dim()).len();
            row.extend((0..columns).map(|k| force.and_then(|f| f.get(k).copied()).unwrap_or(0.0)));
        }
    }
    for k in 0..model.contacts.len() {
        let id = model.contacts[k].id;
        match model.system.contact_summary(id, diagnostics) {
            Some(s) => row.extend([
                s.contacts as f64,
                s.normal_force,
                s.friction_force,
                s.max_penetration,
            ]),
            None => row.extend([f64::NAN; 4]),
        }
    }
    row
}

/// Header of the optional `accelerations.csv`: `t`, then `NAME.ax NAME.ay [NAME.az]` per
/// particle and `NAME.ax NAME.ay NAME.alpha` per rigid body, `NAME.u0_ddot …` per parametric
/// object (q̈, as the dynamics computed it).
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

/// One row of `accelerations.csv` for the current state, in the order of
/// [`accelerations_header`].
pub fn accelerations_row(model: &mut Model) -> Result<Vec<f64>, StepError> {
    let t = model.system.time();
    let a = model.system.acceleration()?.to_vec();
    let system = &model.system;
    // q̈ is laid out body after body in insertion order; the file lists particles first.
    let mut row = vec![t];
    for (_, p) in &model.particles {
        row.extend_from_slice(system.body_slice(p.body(), &a));
    }
    for (_, b) in &model.bodies {
        row.extend_from_slice(system.body_slice(b.body(), &a));
    }
    for object in &model.objects {
        row.extend_from_slice(system.body_slice(object.id.body(), &a));
    }
    Ok(row)
}
