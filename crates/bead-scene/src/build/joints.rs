//! The constraints between rigid bodies: welds, sliders, angles and their limits, motors, gears
//! and racks, and in 3D hinges. Their angles default to the bodies' initial ones; gears and racks take their
//! constants from where they stand.

use bead::constraint::{
    Angle, AngleLimit, Constraint, Gear, Hinge, HingeMotor, Motor, Prismatic, RackAndPinion, Weld,
};

use bead::{BodyId, ModelError, Point};

use super::Result;
use super::check::{refused, vector};
use super::initial::angle_or_initial;
use super::names::Entry;
use crate::error::SceneError;
use crate::format::{ConstraintSpec, PointRef};

/// `weld`: two bodies' points joined, at the angle between them (by default the initial one).
pub(super) fn weld(
    entry: &Entry<'_>,
    between: &[PointRef; 2],
    angle: &mut Option<f64>,
) -> Result<Box<dyn Constraint>> {
    let [a, b] = entry.pair(between)?;
    let angle = angle_or_initial(entry.path, angle, entry.system, a.body(), Some(b.body()))?;
    Ok(Box::new(Weld::new(a, b, angle)))
}

/// `prismatic`: a slider along `axis` in the first body's frame.
pub(super) fn prismatic(
    entry: &Entry<'_>,
    between: &[PointRef; 2],
    axis: &[f64],
    angle: &mut Option<f64>,
) -> Result<Box<dyn Constraint>> {
    let [a, b] = entry.pair(between)?;
    let axis = vector(&entry.field("axis"), axis, 2)?;
    let angle = angle_or_initial(entry.path, angle, entry.system, a.body(), Some(b.body()))?;
    Ok(Box::new(Prismatic::new(a, b, [axis[0], axis[1]], angle)))
}

/// `angle`: the angle between two bodies, or of one against the world.
pub(super) fn angle(
    entry: &Entry<'_>,
    between: &Option<[String; 2]>,
    body: &Option<String>,
    angle: &mut Option<f64>,
) -> Result<Box<dyn Constraint>> {
    let (a, b) = entry.one_or_two(between, body)?;
    let angle = angle_or_initial(
        entry.path,
        angle,
        entry.system,
        a.body(),
        b.map(|b| b.body()),
    )?;
    Ok(Box::new(match b {
        Some(b) => Angle::new(a, b, angle),
        None => Angle::to_world(a, angle),
    }))
}

/// `motor`: a relative angular velocity, with an optional torque limit.
pub(super) fn motor(
    entry: &Entry<'_>,
    between: &Option<[String; 2]>,
    body: &Option<String>,
    speed: f64,
    max_torque: Option<f64>,
) -> Result<Box<dyn Constraint>> {
    let (a, b) = entry.one_or_two(between, body)?;
    let motor = match b {
        Some(b) => Motor::new(a, b, speed),
        None => Motor::to_world(a, speed),
    };
    Ok(Box::new(match max_torque {
        Some(limit) => motor.max_torque(limit),
        None => motor,
    }))
}

/// `gear`: two bodies' pitch circles rolling on each other, meshed as they stand.
pub(super) fn gear(
    entry: &Entry<'_>,
    between: &[String; 2],
    radii: [f64; 2],
) -> Result<Box<dyn Constraint>> {
    let a = entry.body("between[0]", &between[0])?;
    let b = entry.body("between[1]", &between[1])?;
    if a == b {
        return Err(SceneError::at(
            entry.field("between"),
            "both are the same body",
        ));
    }
    // The teeth roll along the line of centres, which needs two distinct centres.
    let gear = Gear::meshing(entry.system, a, b, radii[0], radii[1]).map_err(|e| match e {
        ModelError::ConstraintParameter(_) => refused(entry.path, e),
        e => SceneError::at(entry.field("between"), e.to_string())
            .hint("place the gears' centres |r_a + r_b| apart, so that their pitch circles touch"),
    })?;
    Ok(Box::new(gear))
}

/// `rack-and-pinion`: a pinion rolling along a rack, meshed on the side it stands.
pub(super) fn rack_and_pinion(
    entry: &Entry<'_>,
    rack: &str,
    pinion: &str,
    axis: &[f64],
    radius: f64,
) -> Result<Box<dyn Constraint>> {
    let rack = entry.body("rack", rack)?;
    let pinion = entry.body("pinion", pinion)?;
    if rack == pinion {
        return Err(SceneError::at(
            entry.field("pinion"),
            "the pinion is the rack itself",
        ));
    }
    let axis = vector(&entry.field("axis"), axis, 2)?;
    // The side the pinion meshes on and which tooth meets which come from where it stands.
    let teeth = RackAndPinion::meshing(entry.system, rack, pinion, [axis[0], axis[1]], radius)
        .map_err(|e| match e {
            ModelError::ConstraintParameter(_) => refused(entry.path, e),
            e => SceneError::at(entry.field("pinion"), e.to_string()).hint(
                "start the pinion on the side of the rack it meshes on, its pitch circle \
                 touching the rack's pitch line (`axis` is in the rack's frame)",
            ),
        })?;
    Ok(Box::new(teeth))
}

/// `angle-limit`: the angle between two bodies (or of one) kept within `[min, max]`.
pub(super) fn angle_limit(
    entry: &Entry<'_>,
    between: &Option<[String; 2]>,
    body: &Option<String>,
    min: f64,
    max: f64,
) -> Result<Box<dyn Constraint>> {
    let (a, b) = entry.one_or_two(between, body)?;
    Ok(Box::new(match b {
        Some(b) => AngleLimit::new(a, b, min, max),
        None => AngleLimit::to_world(a, min, max),
    }))
}

/// `revolute` in 3D: a hinge between the bodies of two points about `axis` (world, at t = 0),
/// carried into each body's frame from where it starts.
pub(super) fn hinge(
    entry: &Entry<'_>,
    between: &[PointRef; 2],
    axis: &[f64],
) -> Result<Box<dyn Constraint>> {
    let (a, b, pivots, axes) = hinge_frames(entry, between, axis)?;
    Ok(Box::new(Hinge::new(a, b, pivots, axes)))
}

/// Pivots and axes in a hinge's two bodies' frames
type Frames = (BodyId, BodyId, ([f64; 3], [f64; 3]), ([f64; 3], [f64; 3]));

/// The bodies of a hinge's two points, its pivots and `axis` (world, at t = 0) in their frames.
fn hinge_frames(entry: &Entry<'_>, between: &[PointRef; 2], axis: &[f64]) -> Result<Frames> {
    let [a, b] = entry.pair(between)?;
    let axis = vector(&entry.field("axis"), axis, 3)?;
    let length = axis.iter().map(|x| x * x).sum::<f64>().sqrt();
    if !(length > 0.0) {
        return Err(SceneError::at(
            entry.field("axis"),
            "an axis must have a nonzero length",
        ));
    }
    let frame = |k: usize, p: &Point| -> Result<([f64; 3], [f64; 4])> {
        let view = entry.system.view();
        match (p, view.orientation(p.body())) {
            (Point::OnBody3d { local, .. }, Some(q)) => Ok((*local, q)),
            _ => Err(SceneError::at(
                entry.field(&format!("between[{k}]")),
                "a hinge joins points of 3D bodies",
            )
            .hint("{ body = \"arm\", local = [x, y, z] }, or a body's name for its centre; a fixed body (mass = \"infinity\") stands for the world")),
        }
    };
    let ((pa, qa), (pb, qb)) = (frame(0, &a)?, frame(1, &b)?);
    let world = [axis[0], axis[1], axis[2]];
    Ok((
        a.body(),
        b.body(),
        (pa, pb),
        (rotate_back(qa, world), rotate_back(qb, world)),
    ))
}

/// `motor` in 3D: drives the relative angular speed about its axis of the `revolute` joint
/// named `joint` (found among `all`, the file's constraints).
pub(super) fn hinge_motor(
    entry: &Entry<'_>,
    all: &[ConstraintSpec],
    joint: &str,
    speed: f64,
    max_torque: Option<f64>,
) -> Result<Box<dyn Constraint>> {
    if entry.dim() != 3 {
        return Err(
            SceneError::at(entry.field("joint"), "a 2D motor names its bodies")
                .hint("between = [\"a\", \"b\"], or body = \"wheel\" against the world"),
        );
    }
    let found = all.iter().find(|c| c.name() == Some(joint));
    let Some(ConstraintSpec::Revolute {
        between,
        axis: Some(axis),
        ..
    }) = found
    else {
        return Err(SceneError::at(
            entry.field("joint"),
            match found {
                Some(_) => format!("'{joint}' is not a revolute joint with an axis"),
                None => format!("no constraint is called '{joint}'"),
            },
        )
        .hint("name a [[constraints]] entry of kind = \"revolute\" with its axis"));
    };
    let (a, b, pivots, axes) = hinge_frames(entry, between, axis)?;
    let motor = HingeMotor::new(a, b, pivots, axes, speed);
    Ok(Box::new(match max_torque {
        Some(limit) => motor.max_torque(limit),
        None => motor,
    }))
}

/// A world vector `v` in the frame of a body turned by the unit quaternion `q`: `R(q)ᵀ v`.
fn rotate_back(q: [f64; 4], v: [f64; 3]) -> [f64; 3] {
    let (w, u) = (q[0], [-q[1], -q[2], -q[3]]);
    let cross = |a: [f64; 3], b: [f64; 3]| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    let t = cross(u, v).map(|x| 2.0 * x);
    let ut = cross(u, t);
    [0, 1, 2].map(|i| v[i] + w * t[i] + ut[i])
}
