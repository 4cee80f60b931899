//! `[[contacts]]`: groups whose members collide with each other, their pairs found by the
//! engine's broad phase as they move. A group of particles alone, without friction, is the
//! engine's particle group (generated non-penetration constraints); a group that names bodies,
//! or has friction, is a shape group (issue 29): bodies' shapes and particles' discs colliding
//! with Coulomb friction, reported in the output by its name.

use std::collections::HashSet;

use bead::constraint::ContactBody;
use bead::contact::{ShapeContacts, ShapeGroupId};
use bead::{ParticleId, RigidBody3dId, RigidBodyId, System};

use super::names::{Entity, Names};
use super::{NamedConstraint, Result, friction};
use crate::error::SceneError;
use crate::format::{BodySpec, ContactsSpec, ParticleSet, SceneFile};

/// A shape contact group of the model, with the name its output columns use
/// (`NAME.contacts NAME.normal_force NAME.friction_force NAME.max_penetration`).
#[derive(Clone, Debug, PartialEq)]
pub struct NamedContacts {
    /// Name (`contacts<index>` unless the file gives one).
    pub name: String,
    /// Handle in the system.
    pub id: ShapeGroupId,
}

/// What the contact groups read from the rest of the model.
pub(super) struct Members<'a> {
    /// The scene's particles, in file order, for `"all"`.
    pub(super) particles: &'a [(String, ParticleId)],
    /// The scene's bodies, in file order, for `"all"`.
    pub(super) bodies: &'a [(String, RigidBodyId)],
    /// The scene's 3D bodies, in file order, for `"all"`.
    pub(super) bodies_3d: &'a [(String, RigidBody3dId)],
    /// The constraints, whose names a group's may not take.
    pub(super) constraints: &'a [NamedConstraint],
    /// `[simulation] friction`, checked.
    pub(super) friction: f64,
}

/// Adds the file's contact groups, naming each shape group (`contacts<index>` unless the file
/// does) in `resolved`; returns the shape groups, whose columns the output writes.
pub(super) fn add_contacts(
    file: &SceneFile,
    resolved: &mut SceneFile,
    members: &Members<'_>,
    names: &Names<'_>,
    system: &mut System,
) -> Result<Vec<NamedContacts>> {
    let mut groups: Vec<NamedContacts> = Vec::new();
    let mut taken: HashSet<String> = members.constraints.iter().map(|c| c.name.clone()).collect();
    for (i, spec) in file.contacts.iter().enumerate() {
        let path = format!("contacts[{i}]");
        if let Some(e) = spec.restitution
            && !(0.0..=1.0).contains(&e)
        {
            return Err(SceneError::at(
                format!("{path}.restitution"),
                format!("must be in [0, 1], got {e}"),
            ));
        }
        let mu = match spec.friction {
            Some(mu) => friction::coefficient(&format!("{path}.friction"), mu)?,
            None => members.friction,
        };
        if spec.bodies.is_none() && mu == 0.0 {
            let Some(set) = &spec.particles else {
                return Err(
                    SceneError::at(&path, "a contact group needs bodies or particles")
                        .hint("bodies = \"all\", or particles = \"all\", or lists of names"),
                );
            };
            let list = particles(&path, set, members, names, false)?;
            system
                .add_contacts(&list, spec.restitution)
                .map_err(|e| SceneError::at(&path, e.to_string()))?;
            continue;
        }
        let name = spec.name.clone().unwrap_or_else(|| format!("contacts{i}"));
        if name.is_empty() {
            return Err(SceneError::at(
                format!("{path}.name"),
                "a name cannot be empty",
            ));
        }
        if !taken.insert(name.clone()) {
            return Err(
                SceneError::at(format!("{path}.name"), format!("duplicate name '{name}'")).hint(
                    "a contact group's name is its output columns' prefix: it differs from every \
                 constraint's and every other group's (unnamed groups are contacts<index>)",
                ),
            );
        }
        let id = shape_group(&path, &name, spec, &file.bodies, members, names, system)?;
        resolved.contacts[i].name = Some(name.clone());
        groups.push(NamedContacts { name, id });
    }
    Ok(groups)
}

/// The shape group of entry `path`: its bodies (each with its coefficient), then its
/// particles (discs of their radius).
#[allow(clippy::too_many_arguments)]
fn shape_group(
    path: &str,
    group_name: &str,
    spec: &ContactsSpec,
    file_bodies: &[BodySpec],
    members: &Members<'_>,
    names: &Names<'_>,
    system: &mut System,
) -> Result<ShapeGroupId> {
    let mut group = ShapeContacts::new();
    let mut labels: Vec<String> = Vec::new();
    // A scene's bodies are all 2D or all 3D, in file order either way.
    let ids: Vec<ContactBody> = if system.dim() == 3 {
        members
            .bodies_3d
            .iter()
            .map(|(_, id)| (*id).into())
            .collect()
    } else {
        members.bodies.iter().map(|(_, id)| (*id).into()).collect()
    };
    if let Some(set) = &spec.bodies {
        let field = format!("{path}.bodies");
        let chosen: Vec<usize> = match set {
            ParticleSet::All(word) if word == "all" => (0..ids.len())
                .filter(|k| file_bodies[*k].shape.is_some())
                .collect(),
            ParticleSet::All(word) => {
                return Err(
                    SceneError::at(&field, format!("'{word}' is not a list of bodies"))
                        .hint("bodies = \"all\", or a list like [\"ground\", \"crate\"]"),
                );
            }
            ParticleSet::Names(list) => {
                let mut chosen = Vec::with_capacity(list.len());
                for (k, n) in list.iter().enumerate() {
                    let index = match names.names.get(n.as_str()) {
                        Some((Entity::Body(id), _)) => {
                            members.bodies.iter().position(|(_, b)| b == id)
                        }
                        Some((Entity::Body3d(id), _)) => {
                            members.bodies_3d.iter().position(|(_, b)| b == id)
                        }
                        _ => None,
                    };
                    let Some(index) = index else {
                        return Err(names.unknown(&format!("{field}[{k}]"), n, "body"));
                    };
                    if file_bodies[index].shape.is_none() {
                        let at = names
                            .names
                            .get(n.as_str())
                            .map_or("", |(_, at)| at.as_str());
                        return Err(SceneError::at(
                            &field,
                            format!("body '{n}' has no shape: a contact group collides shapes"),
                        )
                        .hint(format!(
                            "give {at} a shape ({}), or leave it out of the group",
                            if system.dim() == 3 {
                                "sphere, box or capsule"
                            } else {
                                "disc, box, polygon, capsule or rod"
                            }
                        )));
                    }
                    chosen.push(index);
                }
                chosen
            }
        };
        for index in chosen {
            let own = file_bodies[index].friction.unwrap_or(members.friction);
            group = group.body(ids[index], own);
            labels.push(file_bodies[index].name.clone());
        }
    }
    if let Some(set) = &spec.particles {
        for p in particles(path, set, members, names, true)? {
            group = group.body(p, members.friction);
            labels.push(names.name_of_particle(p));
        }
    }
    let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
    group = group.named(group_name, &labels);
    if let Some(mu) = spec.friction {
        group = group.friction(mu);
    }
    if let Some(e) = spec.restitution {
        group = group.restitution(e);
    }
    group = group.collide_connected(spec.collide_connected);
    system
        .add_shape_contacts(group)
        .map_err(|e| SceneError::at(path, e.to_string()))
}

/// The particles `set` names. In a shape group (`discs`) each must have a radius: `"all"`
/// leaves out those without, a particle named explicitly without one is an error.
fn particles(
    path: &str,
    set: &ParticleSet,
    members: &Members<'_>,
    names: &Names<'_>,
    discs: bool,
) -> Result<Vec<ParticleId>> {
    let field = format!("{path}.particles");
    let radius = |id: &ParticleId| names.radii.get(&id.body().index()).copied().unwrap_or(0.0);
    match set {
        ParticleSet::All(word) if word == "all" => Ok(members
            .particles
            .iter()
            .map(|(_, p)| *p)
            .filter(|p| !discs || radius(p) > 0.0)
            .collect()),
        ParticleSet::All(word) => Err(SceneError::at(
            field,
            format!("'{word}' is not a list of particles"),
        )
        .hint("particles = \"all\", or a list like [\"a\", \"b\"]")),
        ParticleSet::Names(list) => list
            .iter()
            .enumerate()
            .map(|(k, n)| match names.names.get(n.as_str()) {
                Some((Entity::Particle(p), at)) => {
                    if discs && !(radius(p) > 0.0) {
                        return Err(SceneError::at(
                            &field,
                            format!(
                                "particle '{n}' has no radius: it collides as a disc (a sphere \
                                 in 3D)"
                            ),
                        )
                        .hint(format!("give {at} a radius, or leave it out of the group")));
                    }
                    Ok(*p)
                }
                _ => Err(names.unknown(&format!("{field}[{k}]"), n, "particle")),
            })
            .collect(),
    }
}
