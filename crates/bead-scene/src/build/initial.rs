//! Defaults taken from the initial geometry: a rod's length, a circle's radius, a joint's angle,
//! read off the system as the file places it, and written back into the resolved file so that
//! the model stays the same when the positions are later edited.

use bead::{BodyId, Motion, Point, RigidBodyId, System};

use super::Result;
use crate::error::SceneError;

/// The radius the file gives, or the point's initial distance from the centre, written into the
/// file.
pub(super) fn radius_or_initial(
    path: &str,
    radius: &mut Option<f64>,
    system: &System,
    p: &Point,
    center: &Motion,
) -> Result<f64> {
    match *radius {
        Some(r) => Ok(r),
        None => {
            let x = position(system, p);
            let c = center.sample(0.0).position;
            let r = (0..3).map(|i| (x[i] - c[i]).powi(2)).sum::<f64>().sqrt();
            if !(r > 0.0) {
                return Err(SceneError::at(
                    format!("{path}.radius"),
                    "the point starts at the centre",
                )
                .hint("give `radius`, or start the point on the circle"));
            }
            Ok(*radius.insert(r))
        }
    }
}

/// `θ_b − θ_a` (or `θ_a` alone) now, in radians.
pub(super) fn relative_angle(system: &System, a: RigidBodyId, b: Option<RigidBodyId>) -> f64 {
    let theta = |body: RigidBodyId| system.coordinates(body)[2];
    match b {
        Some(b) => theta(b) - theta(a),
        None => theta(a),
    }
}

/// The angle the file gives, or the initial `θ_b − θ_a` (or `θ_a`), written into the file.
pub(super) fn angle_or_initial(
    path: &str,
    angle: &mut Option<f64>,
    system: &System,
    a: BodyId,
    b: Option<BodyId>,
) -> Result<f64> {
    let rigid = |body: BodyId| -> Result<RigidBodyId> {
        system
            .rigid_bodies()
            .find(|r| r.body() == body)
            .ok_or_else(|| {
                SceneError::at(format!("{path}.between"), "needs points on rigid bodies")
            })
    };
    let (a, b) = (rigid(a)?, b.map(rigid).transpose()?);
    Ok(*angle.get_or_insert_with(|| relative_angle(system, a, b)))
}

/// Where a point is now (NaN for a point the system does not hold).
pub(super) fn position(system: &System, p: &Point) -> [f64; 3] {
    system.point_position(p).unwrap_or([f64::NAN; 3])
}

/// The distance between two points now.
pub(super) fn distance(system: &System, a: &Point, b: &Point) -> f64 {
    let (x, y) = (position(system, a), position(system, b));
    (0..3).map(|i| (x[i] - y[i]).powi(2)).sum::<f64>().sqrt()
}
