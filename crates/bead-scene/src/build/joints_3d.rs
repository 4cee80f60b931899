//! The joints between 3D rigid bodies: hinges and their motors and limits, welds, sliders, and
//! ball joints' cone-twist limits (the sliders' motors and limits are in `sliders`). Axes are given in the world at t = 0 and carried into each
//! body's frame from where it starts; welds and sliders hold the relative orientation the bodies
//! start in, and limits measure their angles from there.

use bead::constraint::{ConeLimit, Constraint, Hinge, HingeLimit, HingeMotor, Prismatic3d, Weld3d};
use bead::{BodyId, Point};

use super::Result;
use super::check::vector;
use super::names::Entry;
use crate::error::SceneError;
use crate::format::{ConstraintSpec, PointRef};

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

/// A point of a 3D joint: its body, its place in the body's frame, and the body's orientation.
pub(super) struct Anchor {
    pub(super) body: BodyId,
    pub(super) local: [f64; 3],
    pub(super) orientation: [f64; 4],
}

/// The two points of `between`, which must be on 3D bodies.
pub(super) fn anchors(entry: &Entry<'_>, between: &[PointRef; 2]) -> Result<[Anchor; 2]> {
    let [a, b] = entry.pair(between)?;
    let anchor = |k: usize, p: &Point| -> Result<Anchor> {
        let view = entry.system.view();
        match (p, view.orientation(p.body())) {
            (Point::OnBody3d { local, .. }, Some(q)) => Ok(Anchor {
                body: p.body(),
                local: *local,
                orientation: q,
            }),
            _ => Err(SceneError::at(
                entry.field(&format!("between[{k}]")),
                "a 3D joint joins points of 3D bodies",
            )
            .hint("{ body = \"arm\", local = [x, y, z] }, or a body's name for its centre; a fixed body (mass = \"infinity\") stands for the world")),
        }
    };
    Ok([anchor(0, &a)?, anchor(1, &b)?])
}

/// `field`, a 3D direction of nonzero length.
pub(super) fn direction(entry: &Entry<'_>, field: &str, v: &[f64]) -> Result<[f64; 3]> {
    let v = vector(&entry.field(field), v, 3)?;
    let length = v.iter().map(|x| x * x).sum::<f64>().sqrt();
    if !(length > 0.0) {
        return Err(SceneError::at(
            entry.field(field),
            "an axis must have a nonzero length",
        ));
    }
    Ok([v[0], v[1], v[2]])
}

/// The bodies of a hinge's two points, its pivots and `axis` (world, at t = 0) in their frames.
fn hinge_frames(entry: &Entry<'_>, between: &[PointRef; 2], axis: &[f64]) -> Result<Frames> {
    let [a, b] = anchors(entry, between)?;
    let world = direction(entry, "axis", axis)?;
    Ok((
        a.body,
        b.body,
        (a.local, b.local),
        (
            rotate_back(a.orientation, world),
            rotate_back(b.orientation, world),
        ),
    ))
}

/// `b`'s orientation in `a`'s frame, `q_a* q_b`: what a weld or a slider holds.
fn relative(a: &Anchor, b: &Anchor) -> [f64; 4] {
    let [w1, x1, y1, z1] = a.orientation;
    let (x1, y1, z1) = (-x1, -y1, -z1);
    let [w2, x2, y2, z2] = b.orientation;
    [
        w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
        w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
        w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
        w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2,
    ]
}

/// `weld` in 3D: the two points joined, the bodies' relative orientation held where it starts.
pub(super) fn weld(
    entry: &Entry<'_>,
    between: &[PointRef; 2],
    angle: &Option<f64>,
) -> Result<Box<dyn Constraint>> {
    no_angle(entry, angle)?;
    let [a, b] = anchors(entry, between)?;
    let q = relative(&a, &b);
    Ok(Box::new(Weld3d::new(a.body, b.body, (a.local, b.local), q)))
}

/// `prismatic` in 3D: the second point's body slides along `axis` (world, at t = 0) through the
/// first point, its orientation against the first body held where it starts.
pub(super) fn prismatic(
    entry: &Entry<'_>,
    between: &[PointRef; 2],
    axis: &[f64],
    angle: &Option<f64>,
) -> Result<Box<dyn Constraint>> {
    no_angle(entry, angle)?;
    let [a, b] = anchors(entry, between)?;
    let world = direction(entry, "axis", axis)?;
    let q = relative(&a, &b);
    let along = rotate_back(a.orientation, world);
    Ok(Box::new(Prismatic3d::new(
        a.body,
        b.body,
        (a.local, b.local),
        along,
        q,
    )))
}

/// The 2D joints' `angle` has no meaning in 3D, where the orientation held is the initial one.
fn no_angle(entry: &Entry<'_>, angle: &Option<f64>) -> Result<()> {
    match angle {
        Some(_) => Err(SceneError::at(entry.field("angle"), "a 3D joint has no angle").hint(
            "in 3D the bodies' relative orientation is held where they start: turn them there with `orientation`",
        )),
        None => Ok(()),
    }
}

/// What `extract` reads from the `[[constraints]]` entry named `joint`, which must be a `kind`
/// (`extract` gives `None` for any other).
pub(super) fn named_joint<'s, T>(
    entry: &Entry<'_>,
    all: &'s [ConstraintSpec],
    joint: &str,
    kind: &str,
    extract: impl Fn(&'s ConstraintSpec) -> Option<T>,
) -> Result<T> {
    let found = all.iter().find(|c| c.name() == Some(joint));
    found.and_then(extract).ok_or_else(|| {
        SceneError::at(
            entry.field("joint"),
            match found {
                Some(_) => format!("'{joint}' is not a {kind}"),
                None => format!("no constraint is called '{joint}'"),
            },
        )
        .hint(format!("name a [[constraints]] entry that is a {kind}"))
    })
}

/// The points and axis of the revolute joint with an axis named `joint`.
fn named_hinge<'s>(
    entry: &Entry<'_>,
    all: &'s [ConstraintSpec],
    joint: &str,
) -> Result<(&'s [PointRef; 2], &'s [f64])> {
    if all
        .iter()
        .any(|c| c.name() == Some(joint) && matches!(c, ConstraintSpec::Prismatic { .. }))
    {
        return Err(SceneError::at(
            entry.field("joint"),
            format!("'{joint}' is a prismatic joint: this kind drives or stops a revolute one"),
        )
        .hint("a prismatic joint's motor is kind = \"slider-motor\" (speed in m/s), its limit kind = \"slider-limit\" (min and max in m)"));
    }
    named_joint(
        entry,
        all,
        joint,
        "revolute joint with an axis",
        |c| match c {
            ConstraintSpec::Revolute {
                between,
                axis: Some(axis),
                ..
            } => Some((between, axis.as_slice())),
            _ => None,
        },
    )
}

/// A direction across `axis` (world), the same for both bodies at t = 0: where a limit's angle
/// is zero, carried into each body's frame.
fn zero_at_start(a: &Anchor, b: &Anchor, axis: [f64; 3]) -> ([f64; 3], [f64; 3]) {
    let k = (0..3)
        .min_by(|&i, &j| axis[i].abs().total_cmp(&axis[j].abs()))
        .unwrap_or(0);
    let mut e = [0.0; 3];
    e[k] = 1.0;
    let across = [
        axis[1] * e[2] - axis[2] * e[1],
        axis[2] * e[0] - axis[0] * e[2],
        axis[0] * e[1] - axis[1] * e[0],
    ];
    (
        rotate_back(a.orientation, across),
        rotate_back(b.orientation, across),
    )
}

/// `angle-limit` in 3D: the angle of the revolute joint named `joint` about its axis kept in
/// `[min, max]`, zero where it starts.
pub(super) fn hinge_limit(
    entry: &Entry<'_>,
    all: &[ConstraintSpec],
    joint: &str,
    min: f64,
    max: f64,
) -> Result<Box<dyn Constraint>> {
    let (between, axis) = named_hinge(entry, all, joint)?;
    let [a, b] = anchors(entry, between)?;
    let world = direction(entry, "axis", axis)?;
    let axes = (
        rotate_back(a.orientation, world),
        rotate_back(b.orientation, world),
    );
    let limit = HingeLimit::new(a.body, b.body, axes, min, max).zero(zero_at_start(&a, &b, world));
    Ok(Box::new(limit))
}

/// `cone-limit`: the spherical joint named `joint` keeps the second body's `axis` (world, at
/// t = 0) within `cone` of the first's, and its twist in `twist`, zero where it starts.
pub(super) fn cone_limit(
    entry: &Entry<'_>,
    all: &[ConstraintSpec],
    joint: &str,
    axis: &[f64],
    cone: f64,
    twist: Option<[f64; 2]>,
) -> Result<Box<dyn Constraint>> {
    if entry.dim() != 3 {
        return Err(SceneError::at(entry.field("kind"), "a cone limit is 3D")
            .hint("in 2D, kind = \"angle-limit\" stops a relative angle"));
    }
    let between = named_joint(entry, all, joint, "spherical joint", |c| match c {
        ConstraintSpec::Spherical { between, .. } => Some(between),
        _ => None,
    })?;
    let [a, b] = anchors(entry, between)?;
    let world = direction(entry, "axis", axis)?;
    let axes = (
        rotate_back(a.orientation, world),
        rotate_back(b.orientation, world),
    );
    let limit = ConeLimit::new(a.body, b.body, axes, cone).zero(zero_at_start(&a, &b, world));
    Ok(Box::new(match twist {
        Some([min, max]) => limit.twist(min, max),
        None => limit,
    }))
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
    let (between, axis) = named_hinge(entry, all, joint)?;
    let (a, b, pivots, axes) = hinge_frames(entry, between, axis)?;
    let motor = HingeMotor::new(a, b, pivots, axes, speed);
    Ok(Box::new(match max_torque {
        Some(limit) => motor.max_torque(limit),
        None => motor,
    }))
}

/// A world vector `v` in the frame of a body turned by the unit quaternion `q`: `R(q)ᵀ v`.
pub(super) fn rotate_back(q: [f64; 4], v: [f64; 3]) -> [f64; 3] {
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
