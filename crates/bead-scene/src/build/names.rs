//! Resolving names: the one namespace of particles, bodies and parametric objects
//! ([`claim_name`]), and the references to them in forces and constraints ([`Names`], and
//! [`Entry`], one entry of the file with the names it may use).

use std::collections::HashMap;

use bead::{ParametricId, ParticleId, Point, RigidBodyId, System};

use super::Result;
use crate::error::SceneError;
use crate::format::{ParametricSpec, PointRef};

/// What a name refers to.
#[derive(Clone, Copy)]
pub(super) enum Entity {
    Particle(ParticleId),
    Body(RigidBodyId),
    Body3d(bead::RigidBody3dId),
    /// A parametric object, and its index in the file's `parametric`.
    Object(ParametricId, usize),
}

/// Claims `name` for the entry at `path`: not empty, and not already taken.
pub(super) fn claim_name(
    names: &HashMap<&str, (Entity, String)>,
    name: &str,
    path: &str,
) -> Result<()> {
    if name.is_empty() {
        return Err(SceneError::at(
            format!("{path}.name"),
            "a name cannot be empty",
        ));
    }
    if let Some((_, first)) = names.get(name) {
        let what = if path.starts_with("particles") {
            "particle"
        } else if path.starts_with("parametric") {
            "object"
        } else {
            "body"
        };
        return Err(SceneError::at(
            format!("{path}.name"),
            format!("duplicate {what} name '{name}'"),
        )
        .hint(format!(
            "{first} already has this name; particles, bodies and parametric objects share one namespace"
        )));
    }
    Ok(())
}

/// Particle and body names, for resolving references.
pub(super) struct Names<'a> {
    pub(super) names: &'a HashMap<&'a str, (Entity, String)>,
    /// Particle radii by body index.
    pub(super) radii: HashMap<usize, f64>,
    /// The file's parametric objects, for their points' names and radii.
    pub(super) objects: &'a [ParametricSpec],
}

impl Names<'_> {
    /// The name the file gives particle `p`.
    pub(super) fn name_of_particle(&self, p: ParticleId) -> String {
        self.names
            .iter()
            .find(|(_, (e, _))| matches!(e, Entity::Particle(q) if *q == p))
            .map_or_else(|| format!("{p:?}"), |(n, _)| (*n).to_string())
    }

    /// An unknown name, with the names there are as a hint.
    pub(super) fn unknown(&self, path: &str, name: &str, what: &str) -> SceneError {
        let mut known: Vec<&str> = self.names.keys().copied().collect();
        known.sort_unstable();
        let more = if known.len() > 12 { ", ..." } else { "" };
        known.truncate(12);
        SceneError::at(path, format!("unknown {what} '{name}'")).hint(if known.is_empty() {
            "the scene has no [[particles]], [[bodies]] or [[parametric]] objects".to_string()
        } else {
            format!("names are: {}{more}", known.join(", "))
        })
    }

    /// The point a reference names.
    pub(super) fn point(&self, path: &str, r: &PointRef) -> Result<Point> {
        match r {
            PointRef::Particle(name) => match self.names.get(name.as_str()) {
                Some((Entity::Particle(id), _)) => Ok(Point::from(*id)),
                Some((Entity::Body(id), _)) => Ok(Point::on_body(*id, [0.0, 0.0])),
                Some((Entity::Body3d(id), _)) => Ok(Point::on_body_3d(*id, [0.0; 3])),
                Some((Entity::Object(id, i), _)) => match self.objects[*i].points.as_slice() {
                    [_] => Ok(Point::OfObject {
                        body: id.body(),
                        index: 0,
                    }),
                    points => Err(SceneError::at(
                        path,
                        format!("'{name}' is an object with {} points", points.len()),
                    )
                    .hint(format!(
                        "name one of them, like {{ object = \"{name}\", point = \"{}\" }}",
                        points.first().map_or("", |p| p.name.as_str())
                    ))),
                },
                None => Err(self.unknown(path, name, "particle")),
            },
            PointRef::OnObject { object, point } => {
                let Some((Entity::Object(id, i), _)) = self.names.get(object.as_str()) else {
                    return Err(match self.names.get(object.as_str()) {
                        Some(_) => SceneError::at(
                            format!("{path}.object"),
                            format!("'{object}' is not a parametric object"),
                        )
                        .hint("a particle is named alone, a body's point is { body, local }"),
                        None => self.unknown(&format!("{path}.object"), object, "object"),
                    });
                };
                let points = &self.objects[*i].points;
                match points.iter().position(|p| p.name == *point) {
                    Some(index) => Ok(Point::OfObject {
                        body: id.body(),
                        index,
                    }),
                    None => Err(SceneError::at(
                        format!("{path}.point"),
                        format!("object '{object}' has no point '{point}'"),
                    )
                    .hint(format!(
                        "its points are: {}",
                        points
                            .iter()
                            .map(|p| p.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ))),
                }
            }
            PointRef::OnBody { body, local } => {
                if let Some((Entity::Body3d(_), _)) = self.names.get(body.as_str()) {
                    return Err(SceneError::at(
                        format!("{path}.local"),
                        format!("'{body}' is a 3D body: its points have three coordinates"),
                    )
                    .hint("local = [x, y, z] in the body's frame"));
                }
                let id = self.body(&format!("{path}.body"), body)?;
                if !local.iter().all(|x| x.is_finite()) {
                    return Err(SceneError::at(format!("{path}.local"), "must be finite"));
                }
                Ok(Point::on_body(id, *local))
            }
            PointRef::OnBody3d { body, local } => {
                let id = match self.names.get(body.as_str()) {
                    Some((Entity::Body3d(id), _)) => *id,
                    Some((Entity::Body(_), _)) => {
                        return Err(SceneError::at(
                            format!("{path}.local"),
                            format!("'{body}' is a 2D body: its points have two coordinates"),
                        )
                        .hint("local = [x, y] in the body's frame"));
                    }
                    Some(_) => {
                        return Err(SceneError::at(
                            format!("{path}.body"),
                            format!("'{body}' is not a rigid body"),
                        )
                        .hint(
                            "a particle is named alone, an object's point is { object, point }",
                        ));
                    }
                    None => return Err(self.unknown(&format!("{path}.body"), body, "body")),
                };
                if !local.iter().all(|x| x.is_finite()) {
                    return Err(SceneError::at(format!("{path}.local"), "must be finite"));
                }
                Ok(Point::on_body_3d(id, *local))
            }
        }
    }

    /// The radius of the particle or object point a point stands for (0 for body points).
    pub(super) fn radius(&self, point: &Point) -> f64 {
        if let Point::OfObject { body, index } = point {
            let object = self.names.values().find_map(|(e, _)| match e {
                Entity::Object(id, i) if id.body() == *body => Some(*i),
                _ => None,
            });
            return object
                .and_then(|i| self.objects[i].points.get(*index))
                .and_then(|p| p.radius)
                .unwrap_or(0.0);
        }
        self.radii
            .get(&point.body().index())
            .copied()
            .unwrap_or(0.0)
    }

    /// The rigid body `name` names.
    pub(super) fn body(&self, path: &str, name: &str) -> Result<RigidBodyId> {
        match self.names.get(name) {
            Some((Entity::Body(id), _)) => Ok(*id),
            Some((Entity::Body3d(_), _)) => Err(SceneError::at(
                path,
                format!("'{name}' is a 3D rigid body"),
            )
            .hint("angle joints, gears, racks and torques act on 2D bodies; 3D joints are spherical (revolute between points)")),
            Some((Entity::Particle(_), _)) => Err(SceneError::at(
                path,
                format!("'{name}' is a particle, not a rigid body"),
            )
            .hint("angle joints, motors, gears and torques act on [[bodies]]")),
            Some((Entity::Object(..), _)) => Err(SceneError::at(
                path,
                format!("'{name}' is a parametric object, not a rigid body"),
            )
            .hint("angle joints, motors, gears and torques act on [[bodies]]")),
            None => Err(self.unknown(path, name, "body")),
        }
    }

    /// `between = [a, b]` or `body = a` (against the world).
    pub(super) fn one_or_two(
        &self,
        path: &str,
        between: &Option<[String; 2]>,
        body: &Option<String>,
    ) -> Result<(RigidBodyId, Option<RigidBodyId>)> {
        match (between, body) {
            (Some([a, b]), None) => {
                let (a, b) = (
                    self.body(&format!("{path}.between[0]"), a)?,
                    self.body(&format!("{path}.between[1]"), b)?,
                );
                if a == b {
                    return Err(SceneError::at(
                        format!("{path}.between"),
                        "both are the same body",
                    ));
                }
                Ok((a, Some(b)))
            }
            (None, Some(a)) => Ok((self.body(&format!("{path}.body"), a)?, None)),
            _ => Err(
                SceneError::at(path, "give either `between = [a, b]` or `body = a`")
                    .hint("`body` alone acts against the world"),
            ),
        }
    }
}

/// One entry of the file being built (`constraints[3]`, `forces[0]`): where it is, the names it
/// may refer to, and the system so far, whose initial geometry gives its defaults.
pub(super) struct Entry<'a> {
    /// Its path, `constraints[3]`.
    pub(super) path: &'a str,
    /// The names it may refer to.
    pub(super) names: &'a Names<'a>,
    /// The system so far.
    pub(super) system: &'a System,
}

impl Entry<'_> {
    /// The path of one of its fields: `constraints[3].length`.
    pub(super) fn field(&self, name: &str) -> String {
        format!("{}.{name}", self.path)
    }

    /// The system's dimension.
    pub(super) fn dim(&self) -> usize {
        self.system.dim()
    }

    /// The point its field `field` refers to.
    pub(super) fn point(&self, field: &str, r: &PointRef) -> Result<Point> {
        self.names.point(&self.field(field), r)
    }

    /// The rigid body its field `field` names.
    pub(super) fn body(&self, field: &str, name: &str) -> Result<RigidBodyId> {
        self.names.body(&self.field(field), name)
    }

    /// `between = [a, b]` or `body = a` (against the world).
    pub(super) fn one_or_two(
        &self,
        between: &Option<[String; 2]>,
        body: &Option<String>,
    ) -> Result<(RigidBodyId, Option<RigidBodyId>)> {
        self.names.one_or_two(self.path, between, body)
    }

    /// The two points of `between = [a, b]`, which must differ: a default taken from two
    /// references to one point would report the wrong problem (a rod of length zero).
    pub(super) fn pair(&self, between: &[PointRef; 2]) -> Result<[Point; 2]> {
        let a = self.point("between[0]", &between[0])?;
        let b = self.point("between[1]", &between[1])?;
        if a == b {
            return Err(SceneError::at(
                self.field("between"),
                "both ends are the same point",
            ));
        }
        Ok([a, b])
    }
}
