//! `[[constraints]]`: names each one, makes the engine constraint of its `kind` (one small function
//! per kind; the joints between rigid bodies are in `joints.rs`, the expression constraint in
//! `expression.rs`), and adds it with its restitution and the bodies whose reactions it reports.

use std::collections::HashMap;

use bead::constraint::{
    Constraint, ConstraintKind, ContactBody, Distance, Gap, HalfPlane, Linear, Nail,
    NonPenetration, OnCircle, OnLine, OnPlane, OnSphere, Revolute, ShapeContact,
};
use bead::{BodyId, Motion, Point, System};

use super::check::{location, refused, vector};
use super::initial::{distance, position, radius_or_initial};
use super::names::{Entry, Names};
use super::{NamedConstraint, Result, expression, joints, joints_3d, sliders};
use crate::error::SceneError;
use crate::format::{ConstraintSpec, Location, PointRef, SceneFile};

/// Adds the file's constraints in order, naming each (`c<index>` unless the file does) and
/// writing the names and the defaults taken from the geometry into `resolved`.
pub(super) fn add_constraints(
    file: &SceneFile,
    resolved: &mut SceneFile,
    names: &Names<'_>,
    system: &mut System,
    bodies: &[(String, BodyId)],
    friction: f64,
) -> Result<Vec<NamedConstraint>> {
    let dim = system.dim();
    let mut constraints: Vec<NamedConstraint> = Vec::with_capacity(file.constraints.len());
    // Names seen so far, for the duplicate check: a scan would make a large scene quadratic.
    let mut constraint_names: HashMap<String, usize> =
        HashMap::with_capacity(file.constraints.len());
    for (i, spec) in file.constraints.iter().enumerate() {
        let path = format!("constraints[{i}]");
        let name = spec.name().map_or_else(|| format!("c{i}"), str::to_string);
        if name.is_empty() {
            return Err(SceneError::at(
                format!("{path}.name"),
                "a name cannot be empty",
            ));
        }
        if let Some(&j) = constraint_names.get(&name) {
            return Err(SceneError::at(
                format!("{path}.name"),
                format!("duplicate constraint name '{name}'"),
            )
            .hint(format!(
                "constraints[{j}] is already called '{name}' (unnamed constraints are c<index>)"
            )));
        }
        constraint_names.insert(name.clone(), i);
        // A name from the constraint's place would change when an earlier one is removed.
        *resolved.constraints[i].name_mut() = Some(name.clone());
        let entry = Entry {
            path: &path,
            names,
            system: &*system,
        };
        let constraint = make_constraint(
            &mut resolved.constraints[i],
            &entry,
            friction,
            &file.constraints,
        )?;
        let rows = constraint.rows(dim);
        let inequality = constraint.kind() == ConstraintKind::Inequality;
        let active_rows = if inequality {
            (0..rows)
                .filter(|&r| constraint.row_kind(r) == ConstraintKind::Inequality)
                .collect()
        } else {
            Vec::new()
        };
        let mut reactions: Vec<(String, BodyId)> = Vec::new();
        for op in constraint.operands() {
            let body = op.body();
            if let Some((name, _)) = bodies.iter().find(|(_, b)| *b == body)
                && !reactions.iter().any(|(_, b)| *b == body)
            {
                reactions.push((name.clone(), body));
            }
        }
        let restitution = restitution(spec);
        let id = system
            .add_constraint_boxed(constraint)
            .map_err(|e| refused(&path, e))?;
        system
            .set_constraint_name(id, name.clone())
            .map_err(|e| SceneError::at(&path, e.to_string()))?;
        if let Some(e) = restitution {
            if !(0.0..=1.0).contains(&e) {
                return Err(SceneError::at(
                    format!("{path}.restitution"),
                    format!("must be in [0, 1], got {e}"),
                )
                .hint("0 is perfectly inelastic, 1 perfectly elastic"));
            }
            system
                .set_restitution(id, e)
                .map_err(|e| SceneError::at(&path, e.to_string()))?;
        }
        constraints.push(NamedConstraint {
            name,
            id,
            rows,
            reactions,
            inequality,
            active_rows,
        });
    }
    Ok(constraints)
}

/// The engine constraint of one entry; a default it takes from the geometry is written into
/// `spec`. One arm per kind; `friction` is `[simulation] friction`, the default of the contacts.
fn make_constraint(
    spec: &mut ConstraintSpec,
    entry: &Entry<'_>,
    friction: f64,
    all: &[ConstraintSpec],
) -> Result<Box<dyn Constraint>> {
    let mu = super::friction::of_constraint(spec).unwrap_or(friction);
    match spec {
        ConstraintSpec::Nail { point, at, .. } => nail(entry, point, at),
        ConstraintSpec::Distance {
            between, length, ..
        } => rod(entry, between, length),
        ConstraintSpec::OnCircle {
            point,
            center,
            radius,
            normal,
            ..
        } => on_circle(entry, point, center, radius, normal.as_deref()),
        ConstraintSpec::OnSphere {
            point,
            center,
            radius,
            ..
        } => on_sphere(entry, point, center, radius),
        ConstraintSpec::OnLine {
            point,
            through,
            direction,
            ..
        } => on_line(entry, point, through, direction),
        ConstraintSpec::OnPlane {
            point,
            through,
            normal,
            ..
        } => on_plane(entry, point, through, normal),
        ConstraintSpec::Revolute { between, axis, .. } => match (entry.dim(), axis) {
            (3, Some(axis)) => joints_3d::hinge(entry, between, axis),
            (3, None) => Err(SceneError::at(entry.field("axis"), "missing")
                .hint("a revolute joint in 3D turns about an axis: axis = [x, y, z] in the world; kind = \"spherical\" turns every way")),
            (_, Some(_)) => Err(SceneError::at(entry.field("axis"), "a 2D revolute joint has no axis")
                .hint("in 2D every hinge turns about the normal to the plane")),
            (_, None) => revolute(entry, between),
        },
        ConstraintSpec::Spherical { between, .. } => {
            if entry.dim() != 3 {
                return Err(
                    SceneError::at(entry.field("kind"), "a spherical joint is 3D")
                        .hint("in 2D, kind = \"revolute\" pins two points together"),
                );
            }
            revolute(entry, between)
        }
        ConstraintSpec::Weld { between, angle, .. } if entry.dim() == 3 => {
            joints_3d::weld(entry, between, angle)
        }
        ConstraintSpec::Weld { between, angle, .. } => joints::weld(entry, between, angle),
        ConstraintSpec::Prismatic {
            between,
            axis,
            angle,
            ..
        } if entry.dim() == 3 => joints_3d::prismatic(entry, between, axis, angle),
        ConstraintSpec::Prismatic {
            between,
            axis,
            angle,
            ..
        } => joints::prismatic(entry, between, axis, angle),
        ConstraintSpec::Angle {
            between,
            body,
            angle,
            ..
        } => joints::angle(entry, between, body, angle),
        ConstraintSpec::Motor {
            joint: Some(joint),
            speed,
            max_torque,
            ..
        } => joints_3d::hinge_motor(entry, all, joint, *speed, *max_torque),
        ConstraintSpec::Motor { .. } if entry.dim() == 3 => {
            Err(SceneError::at(entry.field("joint"), "missing").hint(
                "a 3D motor drives a revolute joint: joint = \"NAME\" of a revolute with an axis",
            ))
        }
        ConstraintSpec::Motor {
            between,
            body,
            speed,
            max_torque,
            ..
        } => joints::motor(entry, between, body, *speed, *max_torque),
        ConstraintSpec::Gear { between, radii, .. } => joints::gear(entry, between, *radii),
        ConstraintSpec::RackAndPinion {
            rack,
            pinion,
            axis,
            radius,
            ..
        } => joints::rack_and_pinion(entry, rack, pinion, axis, *radius),
        ConstraintSpec::AngleLimit {
            between,
            body,
            joint,
            min,
            max,
            ..
        } => match (entry.dim(), joint) {
            (3, Some(joint)) => joints_3d::hinge_limit(entry, all, joint, *min, *max),
            (3, None) => Err(SceneError::at(entry.field("joint"), "missing").hint(
                "a 3D angle limit stops a revolute joint: joint = \"NAME\" of a revolute with an axis",
            )),
            (_, Some(_)) => Err(SceneError::at(entry.field("joint"), "a 2D angle limit names its bodies")
                .hint("between = [\"a\", \"b\"], or body = \"arm\" against the world")),
            (_, None) => joints::angle_limit(entry, between, body, *min, *max),
        },
        ConstraintSpec::ConeLimit {
            joint,
            axis,
            cone,
            twist,
            ..
        } => joints_3d::cone_limit(entry, all, joint, axis, *cone, *twist),
        ConstraintSpec::SliderMotor {
            joint,
            speed,
            max_force,
            ..
        } => sliders::slider_motor(entry, all, joint, *speed, *max_force),
        ConstraintSpec::SliderLimit { joint, min, max, .. } => {
            sliders::slider_limit(entry, all, joint, *min, *max)
        }
        ConstraintSpec::HalfPlane {
            point,
            through,
            normal,
            radius,
            ..
        } => half_plane(entry, point, through, normal, *radius, mu),
        ConstraintSpec::NonPenetration { between, .. } => non_penetration(entry, between, mu),
        ConstraintSpec::Rope {
            between, length, ..
        } => rope(entry, between, length),
        ConstraintSpec::Linear { point, a, b, .. } => linear(entry, point, a, *b),
        ConstraintSpec::Expression {
            points,
            c,
            inequality,
            restitution,
            ..
        } => expression::constraint(entry, points, c, *inequality, *restitution),
    }
}

/// The restitution the entry gives its impacts, for the kinds that have them.
pub(super) fn restitution(spec: &ConstraintSpec) -> Option<f64> {
    match spec {
        ConstraintSpec::HalfPlane { restitution, .. }
        | ConstraintSpec::NonPenetration { restitution, .. }
        | ConstraintSpec::Rope { restitution, .. }
        | ConstraintSpec::Linear { restitution, .. }
        | ConstraintSpec::AngleLimit { restitution, .. }
        | ConstraintSpec::ConeLimit { restitution, .. }
        | ConstraintSpec::SliderLimit { restitution, .. }
        | ConstraintSpec::Expression { restitution, .. } => *restitution,
        _ => None,
    }
}

/// `nail`: the point held at `at`, by default where it starts.
fn nail(
    entry: &Entry<'_>,
    point: &PointRef,
    at: &mut Option<Location>,
) -> Result<Box<dyn Constraint>> {
    let dim = entry.dim();
    let p = entry.point("point", point)?;
    let motion = match at {
        Some(at) => location(&entry.field("at"), at, dim)?,
        None => {
            let x = position(entry.system, &p)[..dim].to_vec();
            let motion = Motion::fixed(&x);
            *at = Some(Location::Fixed(x));
            motion
        }
    };
    Ok(Box::new(Nail::moving(p, motion)))
}

/// `distance`: a rod, by default as long as its ends start apart.
fn rod(
    entry: &Entry<'_>,
    between: &[PointRef; 2],
    length: &mut Option<f64>,
) -> Result<Box<dyn Constraint>> {
    let [a, b] = entry.pair(between)?;
    let length = match length {
        Some(l) => *l,
        None => {
            let l = distance(entry.system, &a, &b);
            if !(l > 0.0) {
                return Err(SceneError::at(
                    entry.field("between"),
                    "the rod's two ends start at the same place",
                )
                .hint("give `length`, or move one of the particles"));
            }
            *length.insert(l)
        }
    };
    Ok(Box::new(Distance::new(a, b, length)))
}

/// `on-circle`: by default of the radius the point starts at.
fn on_circle(
    entry: &Entry<'_>,
    point: &PointRef,
    center: &Location,
    radius: &mut Option<f64>,
    normal: Option<&[f64]>,
) -> Result<Box<dyn Constraint>> {
    let dim = entry.dim();
    let p = entry.point("point", point)?;
    let c = location(&entry.field("center"), center, dim)?;
    let r = radius_or_initial(entry.path, radius, entry.system, &p, &c)?;
    let mut circle = OnCircle::new(p, c, r);
    if let Some(n) = normal {
        if dim != 3 {
            return Err(SceneError::at(
                entry.field("normal"),
                "a circle's normal is for 3D scenes only",
            ));
        }
        circle = circle.with_normal(&vector(&entry.field("normal"), n, dim)?);
    }
    Ok(Box::new(circle))
}

/// `on-sphere`: by default of the radius the point starts at.
fn on_sphere(
    entry: &Entry<'_>,
    point: &PointRef,
    center: &Location,
    radius: &mut Option<f64>,
) -> Result<Box<dyn Constraint>> {
    let p = entry.point("point", point)?;
    let c = location(&entry.field("center"), center, entry.dim())?;
    let r = radius_or_initial(entry.path, radius, entry.system, &p, &c)?;
    Ok(Box::new(OnSphere::new(p, c, r)))
}

fn on_line(
    entry: &Entry<'_>,
    point: &PointRef,
    through: &Location,
    d: &[f64],
) -> Result<Box<dyn Constraint>> {
    let dim = entry.dim();
    let p = entry.point("point", point)?;
    let through = location(&entry.field("through"), through, dim)?;
    let d = vector(&entry.field("direction"), d, dim)?;
    Ok(Box::new(OnLine::new(p, through, &d)))
}

fn on_plane(
    entry: &Entry<'_>,
    point: &PointRef,
    through: &Location,
    normal: &[f64],
) -> Result<Box<dyn Constraint>> {
    let dim = entry.dim();
    let p = entry.point("point", point)?;
    let through = location(&entry.field("through"), through, dim)?;
    let normal = vector(&entry.field("normal"), normal, dim)?;
    Ok(Box::new(OnPlane::new(p, through, &normal)))
}

fn revolute(entry: &Entry<'_>, between: &[PointRef; 2]) -> Result<Box<dyn Constraint>> {
    let [a, b] = entry.pair(between)?;
    Ok(Box::new(Revolute::new(a, b)))
}

/// `half-plane`: the point kept on the normal's side, its radius by default the particle's.
fn half_plane(
    entry: &Entry<'_>,
    point: &PointRef,
    through: &Location,
    normal: &[f64],
    radius: Option<f64>,
    mu: f64,
) -> Result<Box<dyn Constraint>> {
    let dim = entry.dim();
    let p = entry.point("point", point)?;
    let through = location(&entry.field("through"), through, dim)?;
    let normal = vector(&entry.field("normal"), normal, dim)?;
    let radius = radius.unwrap_or_else(|| entry.names.radius(&p));
    let half_plane = HalfPlane::new(p, through, &normal, radius);
    Ok(Box::new(if mu > 0.0 {
        half_plane.friction(mu)
    } else {
        half_plane
    }))
}

/// `non-penetration`: two points kept the sum of their radii apart; with friction, the contact
/// of two discs of those radii centred on the points ([`ShapeContact`]), with its friction row.
fn non_penetration(
    entry: &Entry<'_>,
    between: &[PointRef; 2],
    mu: f64,
) -> Result<Box<dyn Constraint>> {
    let [a, b] = entry.pair(between)?;
    let (ra, rb) = (entry.names.radius(&a), entry.names.radius(&b));
    if mu == 0.0 {
        return Ok(Box::new(NonPenetration::new(a, b, ra + rb)));
    }
    let side = |k: usize, p: &Point| -> Result<(ContactBody, [f64; 2])> {
        match *p {
            Point::Particle(id) => Ok((id.into(), [0.0, 0.0])),
            Point::OnBody { body, local } => Ok((body.into(), [local[0], local[1]])),
            _ => Err(SceneError::at(
                entry.field(&format!("between[{k}]")),
                "friction takes particles and points of rigid bodies",
            )
            .hint("leave friction out (friction = 0) for a parametric object's point")),
        }
    };
    let ((body_a, core_a), (body_b, core_b)) = (side(0, &a)?, side(1, &b)?);
    let gap = Gap::Round {
        a: core_a,
        b: core_b,
    };
    Ok(Box::new(
        ShapeContact::new(body_a, body_b, gap, [ra, rb]).friction(mu),
    ))
}

/// `rope`: two points kept at most `length` apart, by default as far as they start.
fn rope(
    entry: &Entry<'_>,
    between: &[PointRef; 2],
    length: &mut Option<f64>,
) -> Result<Box<dyn Constraint>> {
    let [a, b] = entry.pair(between)?;
    let length = *length.get_or_insert_with(|| distance(entry.system, &a, &b));
    Ok(Box::new(NonPenetration::rope(a, b, length)))
}

/// `linear`: `a · x + b ≥ 0`.
fn linear(entry: &Entry<'_>, point: &PointRef, a: &[f64], b: f64) -> Result<Box<dyn Constraint>> {
    let p = entry.point("point", point)?;
    let a = vector(&entry.field("a"), a, entry.dim())?;
    Ok(Box::new(Linear::new(p, &a, b)))
}
