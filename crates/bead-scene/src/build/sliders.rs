//! `slider-motor` and `slider-limit`: a prismatic joint's motor and travel limit, named by the
//! joint they drive or stop, in 2D or 3D. The travel is read along the joint's axis from its
//! first point, and a limit's range from where the joint starts.

use bead::constraint::{Constraint, SliderLimit, SliderMotor};
use bead::{BodyId, Point};

use super::Result;
use super::check::vector;
use super::initial::position;
use super::joints_3d::{anchors, direction, named_joint, rotate_back};
use super::names::Entry;
use crate::error::SceneError;
use crate::format::ConstraintSpec;

/// The joint's pivots and axis in its first body's frame.
enum Frames {
    Space(([f64; 3], [f64; 3]), [f64; 3]),
    Plane(([f64; 2], [f64; 2]), [f64; 2]),
}

/// A slider's travel, as its motor and limit read it: the bodies and frames of the `prismatic`
/// joint, and the travel where it starts.
struct Travel {
    a: BodyId,
    b: BodyId,
    frames: Frames,
    start: f64,
}

/// The travel of the `prismatic` joint named `joint` (found among `all`).
fn named_slider(entry: &Entry<'_>, all: &[ConstraintSpec], joint: &str) -> Result<Travel> {
    let (between, axis) = named_joint(entry, all, joint, "prismatic joint", |c| match c {
        ConstraintSpec::Prismatic { between, axis, .. } => Some((between, axis.as_slice())),
        _ => None,
    })?;
    let [pa, pb] = entry.pair(between)?;
    let (xa, xb) = (position(entry.system, &pa), position(entry.system, &pb));
    // The axis in the world where the joint starts, of unit length.
    let along = |world: [f64; 3]| {
        let length = world.iter().map(|x| x * x).sum::<f64>().sqrt();
        (0..3).map(|k| (xb[k] - xa[k]) * world[k]).sum::<f64>() / length
    };
    if entry.dim() == 3 {
        let [a, b] = anchors(entry, between)?;
        let world = direction(entry, "axis", axis)?;
        return Ok(Travel {
            a: a.body,
            b: b.body,
            frames: Frames::Space((a.local, b.local), rotate_back(a.orientation, world)),
            start: along(world),
        });
    }
    let (Point::OnBody { body: a, local: la }, Point::OnBody { body: b, local: lb }) = (pa, pb)
    else {
        return Err(SceneError::at(
            entry.field("joint"),
            format!("'{joint}' joins a particle: a slider's motor and limit need two rigid bodies"),
        )
        .hint(
            "give the prismatic joint points of two bodies: { body = \"rail\", local = [x, y] }",
        ));
    };
    let local = vector(&entry.field("axis"), axis, 2)?;
    let theta = entry.system.coordinates(a)[2];
    let (c, s) = (theta.cos(), theta.sin());
    let world = [
        c * local[0] - s * local[1],
        s * local[0] + c * local[1],
        0.0,
    ];
    Ok(Travel {
        a,
        b,
        frames: Frames::Plane((la, lb), [local[0], local[1]]),
        start: along(world),
    })
}

/// `slider-motor`: drives the travel rate of the `prismatic` joint named `joint`.
pub(super) fn slider_motor(
    entry: &Entry<'_>,
    all: &[ConstraintSpec],
    joint: &str,
    speed: f64,
    max_force: Option<f64>,
) -> Result<Box<dyn Constraint>> {
    let t = named_slider(entry, all, joint)?;
    let motor = match t.frames {
        Frames::Space(pivots, axis) => SliderMotor::new(t.a, t.b, pivots, axis, speed),
        Frames::Plane(pivots, axis) => SliderMotor::planar(t.a, t.b, pivots, axis, speed),
    };
    Ok(Box::new(match max_force {
        Some(limit) => motor.max_force(limit),
        None => motor,
    }))
}

/// `slider-limit`: the travel of the `prismatic` joint named `joint` kept in `[min, max]`, 0
/// where it starts.
pub(super) fn slider_limit(
    entry: &Entry<'_>,
    all: &[ConstraintSpec],
    joint: &str,
    min: f64,
    max: f64,
) -> Result<Box<dyn Constraint>> {
    let t = named_slider(entry, all, joint)?;
    // Checked here as written: the library sees them offset by the travel at the start.
    if min > max {
        return Err(SceneError::at(
            entry.field("max"),
            format!("max {max} is below min {min}"),
        ));
    }
    let (lo, hi) = (t.start + min, t.start + max);
    Ok(Box::new(match t.frames {
        Frames::Space(pivots, axis) => SliderLimit::new(t.a, t.b, pivots, axis, lo, hi),
        Frames::Plane(pivots, axis) => SliderLimit::planar(t.a, t.b, pivots, axis, lo, hi),
    }))
}
