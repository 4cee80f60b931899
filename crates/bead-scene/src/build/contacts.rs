//! `[[contacts]]`: groups of particles that collide with each other, their pairs found by the
//! engine's broad phase as they move.

use bead::{ParticleId, System};

use super::Result;
use super::names::{Entity, Names};
use crate::error::SceneError;
use crate::format::{ParticleSet, SceneFile};

/// Adds the file's contact groups; `particles` are the scene's, in file order, for `"all"`.
pub(super) fn add_contacts(
    file: &SceneFile,
    particles: &[(String, ParticleId)],
    names: &Names<'_>,
    system: &mut System,
) -> Result<()> {
    for (i, spec) in file.contacts.iter().enumerate() {
        let path = format!("contacts[{i}]");
        let members: Vec<ParticleId> = match &spec.particles {
            ParticleSet::All(word) if word == "all" => particles.iter().map(|(_, p)| *p).collect(),
            ParticleSet::All(word) => {
                return Err(SceneError::at(
                    format!("{path}.particles"),
                    format!("'{word}' is not a list of particles"),
                )
                .hint("particles = \"all\", or a list like [\"a\", \"b\"]"));
            }
            ParticleSet::Names(list) => list
                .iter()
                .enumerate()
                .map(|(k, n)| match names.names.get(n.as_str()) {
                    Some((Entity::Particle(p), _)) => Ok(*p),
                    _ => Err(names.unknown(&format!("{path}.particles[{k}]"), n, "particle")),
                })
                .collect::<Result<_>>()?,
        };
        if let Some(e) = spec.restitution
            && !(0.0..=1.0).contains(&e)
        {
            return Err(SceneError::at(
                format!("{path}.restitution"),
                format!("must be in [0, 1], got {e}"),
            ));
        }
        system
            .add_contacts(&members, spec.restitution)
            .map_err(|e| SceneError::at(&path, e.to_string()))?;
    }
    Ok(())
}
