//! `[[particles]]` and `[[bodies]]`: their positions, velocities, masses (a number of kilograms or
//! "infinity" for an anchor) and, for a rigid body, its inertia or its shape and density.

use bead::{Particle, ParticleId, RigidBody, RigidBodyId, Shape, System};

use super::Result;
use super::check::{finite, non_negative, positive, vector};
use crate::error::SceneError;
use crate::format::{BodySpec, MassSpec, ParticleSpec, ShapeSpec};

/// Adds the particle at `path`.
pub(super) fn add_particle(
    system: &mut System,
    spec: &ParticleSpec,
    path: &str,
    dim: usize,
) -> Result<ParticleId> {
    let position = vector(&format!("{path}.position"), &spec.position, dim)?;
    let mut particle = Particle::new(&position);
    if let Some(v) = &spec.velocity {
        particle = particle.velocity(&vector(&format!("{path}.velocity"), v, dim)?);
    }
    particle = particle.mass(match &spec.mass {
        None => 1.0,
        Some(MassSpec::Kilograms(m)) if *m == f64::INFINITY => f64::INFINITY,
        Some(MassSpec::Kilograms(m)) => {
            positive(&format!("{path}.mass"), *m)
                .map_err(|e| e.hint("use \"infinity\" for an anchor that never moves"))?;
            *m
        }
        Some(MassSpec::Word(w)) if w == "infinity" || w == "inf" => f64::INFINITY,
        Some(MassSpec::Word(w)) => {
            return Err(
                SceneError::at(format!("{path}.mass"), format!("'{w}' is not a mass"))
                    .hint("a number of kilograms, or \"infinity\" for an anchor"),
            );
        }
    });
    if let Some(r) = spec.radius {
        non_negative(&format!("{path}.radius"), r)?;
        particle = particle.radius(r);
    }
    system
        .add_particle(particle)
        .map_err(|e| SceneError::at(path, e.to_string()))
}

/// Adds the rigid body at `path` (the scene is 2D).
pub(super) fn add_body(system: &mut System, spec: &BodySpec, path: &str) -> Result<RigidBodyId> {
    let position = vector(&format!("{path}.position"), &spec.position, 2)?;
    finite(&format!("{path}.angle"), spec.angle)?;
    finite(&format!("{path}.angular_velocity"), spec.angular_velocity)?;
    let mut body = RigidBody::new(&position, spec.angle);
    let velocity = match &spec.velocity {
        Some(v) => vector(&format!("{path}.velocity"), v, 2)?,
        None => vec![0.0, 0.0],
    };
    body = body.velocity(&velocity, spec.angular_velocity);
    let shape = spec.shape.as_ref().map(|s| match s {
        ShapeSpec::Disc { radius } => Shape::Disc { radius: *radius },
        ShapeSpec::Box { width, height } => Shape::Box {
            width: *width,
            height: *height,
        },
        ShapeSpec::Rod { length } => Shape::Rod { length: *length },
        ShapeSpec::Capsule { radius, length } => Shape::Capsule {
            radius: *radius,
            length: *length,
        },
        ShapeSpec::Polygon { vertices } => Shape::Polygon {
            vertices: vertices.clone(),
        },
    });
    let amount = |field: &str, m: &MassSpec| -> Result<f64> {
        match m {
            MassSpec::Kilograms(x) if *x == f64::INFINITY => Ok(f64::INFINITY),
            MassSpec::Kilograms(x) => {
                positive(&format!("{path}.{field}"), *x)?;
                Ok(*x)
            }
            MassSpec::Word(w) if w == "infinity" || w == "inf" => Ok(f64::INFINITY),
            MassSpec::Word(w) => Err(SceneError::at(
                format!("{path}.{field}"),
                format!("'{w}' is not a number"),
            )
            .hint("a positive number, or \"infinity\"")),
        }
    };
    match (&spec.mass, &spec.inertia, spec.density, shape) {
        (Some(m), inertia, None, shape) => {
            let m = amount("mass", m)?;
            let i = match inertia {
                Some(i) => amount("inertia", i)?,
                None if m.is_infinite() => f64::INFINITY,
                None => {
                    return Err(SceneError::at(format!("{path}.inertia"), "missing")
                        .hint("give inertia with mass, or a shape and a density instead of both"));
                }
            };
            body = body.mass(m).inertia(i);
            if let Some(shape) = shape {
                body = body.outline(shape);
            }
        }
        (None, None, Some(density), Some(shape)) => {
            if let Err(reason) = shape.mass_properties(density) {
                return Err(SceneError::at(format!("{path}.shape"), reason));
            }
            body = body.shape(shape, density);
        }
        (None, None, None, Some(_)) => {
            return Err(SceneError::at(format!("{path}.density"), "missing").hint(
                "a shape gives mass and inertia only with a density (kg/m², or kg/m for a rod)",
            ));
        }
        _ => {
            return Err(
                SceneError::at(path, "give mass and inertia, or a shape and a density")
                    .hint("mass = \"infinity\" makes a fixed body"),
            );
        }
    }
    system
        .add_rigid_body(body)
        .map_err(|e| SceneError::at(path, e.to_string()))
}
