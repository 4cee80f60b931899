//! `[[particles]]` and `[[bodies]]`: their positions, velocities, masses (a number of kilograms or
//! "infinity" for an anchor) and, for a rigid body, its inertia or its shape and density.

use bead::{
    Particle, ParticleId, RigidBody, RigidBody3d, RigidBody3dId, RigidBodyId, Shape, Shape3d,
    System,
};

use super::Result;
use super::check::{finite, non_negative, positive, vector};
use crate::error::SceneError;
use crate::format::{
    AngularVelocitySpec, BodySpec, InertiaSpec, MassSpec, ParticleSpec, ShapeSpec,
};

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
    if spec.orientation.is_some() {
        return Err(
            SceneError::at(format!("{path}.orientation"), "a 2D body has an angle")
                .hint("angle = θ in radians; orientation quaternions are for 3D scenes"),
        );
    }
    let angular_velocity = match &spec.angular_velocity {
        AngularVelocitySpec::Rate(w) => *w,
        AngularVelocitySpec::Vector(_) => {
            return Err(SceneError::at(
                format!("{path}.angular_velocity"),
                "a 2D body's angular velocity is a number, rad/s",
            ));
        }
    };
    finite(&format!("{path}.angular_velocity"), angular_velocity)?;
    let mut body = RigidBody::new(&position, spec.angle);
    let velocity = match &spec.velocity {
        Some(v) => vector(&format!("{path}.velocity"), v, 2)?,
        None => vec![0.0, 0.0],
    };
    body = body.velocity(&velocity, angular_velocity);
    let shape = match &spec.shape {
        None => None,
        Some(s) => Some(match s {
            ShapeSpec::Disc { radius } => Shape::Disc { radius: *radius },
            ShapeSpec::Box {
                width: Some(width),
                height: Some(height),
                size: None,
            } => Shape::Box {
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
            ShapeSpec::Box { .. } => {
                return Err(SceneError::at(
                    format!("{path}.shape"),
                    "a 2D box has a width and a height",
                )
                .hint("shape = { kind = \"box\", width = 1.0, height = 0.5 }"));
            }
            ShapeSpec::Sphere { .. }
            | ShapeSpec::Cylinder { .. }
            | ShapeSpec::ConvexHull { .. }
            | ShapeSpec::Bowl { .. } => {
                return Err(SceneError::at(
                    format!("{path}.shape"),
                    "spheres, cylinders, convex hulls and bowls are 3D shapes",
                )
                .hint("2D shapes: disc, box, rod, capsule, polygon"));
            }
        }),
    };
    let inertia = match &spec.inertia {
        None => None,
        Some(InertiaSpec::Moment(m)) => Some(m),
        Some(_) => {
            return Err(SceneError::at(
                format!("{path}.inertia"),
                "a 2D body's inertia is one moment, kg·m²",
            ));
        }
    };
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
    match (&spec.mass, inertia, spec.density, shape) {
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
        (Some(_), _, Some(_), _) => {
            return Err(SceneError::at(
                format!("{path}.density"),
                "given with mass: a density makes the mass from the shape",
            )
            .hint("give mass and inertia, or a shape and a density"));
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

/// Adds the 3D rigid body at `path` (the scene is 3D): position, orientation (a quaternion
/// `[w, x, y, z]`), velocity and world angular velocity; mass with principal moments or a
/// tensor, or a solid shape and a density.
pub(super) fn add_body_3d(
    system: &mut System,
    spec: &BodySpec,
    path: &str,
) -> Result<RigidBody3dId> {
    let three = |field: &str, v: &[f64]| -> Result<[f64; 3]> {
        let v = vector(&format!("{path}.{field}"), v, 3)?;
        Ok([v[0], v[1], v[2]])
    };
    if spec.angle != 0.0 {
        return Err(
            SceneError::at(format!("{path}.angle"), "a 3D body has an orientation")
                .hint("orientation = [w, x, y, z], a unit quaternion"),
        );
    }
    let mut body = RigidBody3d::new(three("position", &spec.position)?);
    if let Some(q) = &spec.orientation {
        let q = vector(&format!("{path}.orientation"), q, 4)?;
        body = body.orientation([q[0], q[1], q[2], q[3]]);
    }
    if let Some(v) = &spec.velocity {
        body = body.velocity(three("velocity", v)?);
    }
    match &spec.angular_velocity {
        AngularVelocitySpec::Vector(w) => {
            body = body.angular_velocity(three("angular_velocity", w)?);
        }
        AngularVelocitySpec::Rate(w) if *w == 0.0 => {}
        AngularVelocitySpec::Rate(_) => {
            return Err(SceneError::at(
                format!("{path}.angular_velocity"),
                "a 3D body's angular velocity is a vector",
            )
            .hint("angular_velocity = [wx, wy, wz], rad/s in the world frame"));
        }
    }
    let shape = match &spec.shape {
        None => None,
        Some(s) => Some(match s {
            ShapeSpec::Sphere { radius } => Shape3d::Sphere { radius: *radius },
            ShapeSpec::Box {
                size: Some(size),
                width: None,
                height: None,
            } => Shape3d::Box {
                size: three("shape.size", size)?,
            },
            ShapeSpec::Cylinder { radius, length } => Shape3d::Cylinder {
                radius: *radius,
                length: *length,
            },
            ShapeSpec::Capsule { radius, length } => Shape3d::Capsule {
                radius: *radius,
                length: *length,
            },
            ShapeSpec::ConvexHull { points } => Shape3d::ConvexHull {
                points: points.clone(),
            },
            ShapeSpec::Bowl { radius, depth } => Shape3d::Bowl {
                radius: *radius,
                depth: *depth,
            },
            ShapeSpec::Box { .. } => {
                return Err(SceneError::at(
                    format!("{path}.shape"),
                    "a 3D box has its full edges in `size`",
                )
                .hint("shape = { kind = \"box\", size = [0.2, 0.1, 0.05] }"));
            }
            ShapeSpec::Disc { .. } | ShapeSpec::Rod { .. } | ShapeSpec::Polygon { .. } => {
                return Err(SceneError::at(
                    format!("{path}.shape"),
                    "discs, rods and polygons are 2D shapes",
                )
                .hint("3D shapes: sphere, box, capsule, cylinder, convex-hull, bowl"));
            }
        }),
    };
    // A fixed body's shape gives no mass but must still make a solid (or a bowl).
    if let Some(reason) = shape.as_ref().and_then(|s| s.check().err()) {
        return Err(SceneError::at(format!("{path}.shape"), reason));
    }
    // A fixed body may say `inertia = "infinity"` too, as a 2D one does.
    let inertia = match &spec.inertia {
        Some(InertiaSpec::Moment(MassSpec::Word(w))) if w == "infinity" || w == "inf" => None,
        Some(InertiaSpec::Moment(MassSpec::Kilograms(i))) if *i == f64::INFINITY => None,
        other => other.as_ref(),
    };
    let fixed = |m: &MassSpec| match m {
        MassSpec::Word(w) => w == "infinity" || w == "inf",
        MassSpec::Kilograms(m) => *m == f64::INFINITY,
    };
    if spec.inertia.is_some() && inertia.is_none() && !spec.mass.as_ref().is_some_and(fixed) {
        return Err(SceneError::at(
            format!("{path}.inertia"),
            "an infinite inertia needs an infinite mass: a fixed body",
        )
        .hint("mass = \"infinity\" makes a fixed body"));
    }
    match (&spec.mass, inertia, spec.density, shape) {
        (Some(MassSpec::Word(w)), None, None, shape) if w == "infinity" || w == "inf" => {
            body = body.fixed();
            if let Some(shape) = shape {
                body = body.outline(shape);
            }
        }
        (Some(MassSpec::Kilograms(m)), None, None, shape) if *m == f64::INFINITY => {
            body = body.fixed();
            if let Some(shape) = shape {
                body = body.outline(shape);
            }
        }
        (Some(m), Some(_), _, _) if fixed(m) => {
            return Err(SceneError::at(
                format!("{path}.inertia"),
                "a fixed body (mass = \"infinity\") takes no finite inertia",
            )
            .hint("leave inertia out, or give inertia = \"infinity\""));
        }
        (Some(MassSpec::Kilograms(m)), Some(inertia), None, shape) => {
            positive(&format!("{path}.mass"), *m)?;
            body = body.mass(*m);
            body = match inertia {
                InertiaSpec::Principal(moments) => {
                    body.principal_inertia(three("inertia", moments)?)
                }
                InertiaSpec::Tensor(rows) => {
                    if rows.len() != 3 {
                        return Err(SceneError::at(
                            format!("{path}.inertia"),
                            format!("a tensor has 3 rows, got {}", rows.len()),
                        ));
                    }
                    let mut m = [[0.0; 3]; 3];
                    for (r, row) in rows.iter().enumerate() {
                        m[r] = three(&format!("inertia[{r}]"), row)?;
                    }
                    body.inertia(m)
                }
                InertiaSpec::Moment(_) => {
                    return Err(SceneError::at(
                        format!("{path}.inertia"),
                        "a 3D body's inertia is three principal moments or a 3 × 3 tensor",
                    )
                    .hint("inertia = [Ix, Iy, Iz] along the body's axes, kg·m²"));
                }
            };
            if let Some(shape) = shape {
                body = body.outline(shape);
            }
        }
        (Some(_), None, None, _) => {
            return Err(SceneError::at(format!("{path}.inertia"), "missing").hint(
                "give inertia = [Ix, Iy, Iz] with mass, or a shape and a density instead of both",
            ));
        }
        (None, None, Some(density), Some(shape)) => {
            if let Err(reason) = shape.mass_properties(density) {
                return Err(SceneError::at(format!("{path}.shape"), reason));
            }
            body = body.shape(shape, density);
        }
        (None, None, None, Some(Shape3d::Bowl { .. })) => {
            return Err(SceneError::at(
                format!("{path}.mass"),
                "missing: a bowl is a surface without volume, so it has no mass of its own",
            )
            .hint("mass = \"infinity\" makes it a fixed body; or give a mass and an inertia"));
        }
        (None, None, None, Some(_)) => {
            return Err(SceneError::at(format!("{path}.density"), "missing")
                .hint("a shape gives mass and inertia only with a density, kg/m³"));
        }
        (Some(_), _, Some(_), _) => {
            return Err(SceneError::at(
                format!("{path}.density"),
                "given with mass: a density makes the mass from the shape",
            )
            .hint("give mass and inertia, or a shape and a density"));
        }
        _ => {
            return Err(
                SceneError::at(path, "give mass and inertia, or a shape and a density")
                    .hint("mass = \"infinity\" makes a fixed body"),
            );
        }
    }
    system
        .add_rigid_body_3d(body)
        .map_err(|e| SceneError::at(path, e.to_string()))
}
