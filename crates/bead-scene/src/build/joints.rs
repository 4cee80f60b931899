//! The constraints between 2D rigid bodies: welds, sliders, angles and their limits, motors,
//! gears and racks (3D joints are in `joints_3d.rs`). Their angles default to the bodies' initial ones; gears and racks take their
//! constants from where they stand.

use bead::constraint::{
    Angle, AngleLimit, Constraint, Gear, Motor, Prismatic, RackAndPinion, Weld,
};

use bead::ModelError;

use super::Result;
use super::check::{refused, vector};
use super::initial::angle_or_initial;
use super::names::Entry;
use crate::error::SceneError;
use crate::format::PointRef;

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
