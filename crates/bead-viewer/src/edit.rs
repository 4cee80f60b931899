//! The edits a user makes, as changes to a scene file: the Tinkertoy pieces (seed 000 §4) —
//! particles, rods, springs, nails — added, removed and deleted with whatever holds them.
//!
//! Each function changes a [`SceneFile`] and nothing else; [`crate::Document::edit`] applies them
//! to a running model. New entries get names of their own (`p3`, `rod2`, `spring1`, `nail4`), so
//! that their columns in `bead run`'s output, and the viewer's selection, survive later edits.

use bead_scene::SceneFile;
use bead_scene::format::{
    ConstraintSpec, ContactsSpec, ForceSpec, Location, MassSpec, ParticleSet, ParticleSpec,
    PointRef,
};

/// Something the user picked: what the inspector shows and Delete removes.
#[derive(Clone, Debug, PartialEq)]
pub enum Selection {
    /// A particle, by name.
    Particle(String),
    /// A rigid body, by name.
    Body(String),
    /// A constraint, by name (every constraint of a resolved scene has one, and keeps it when
    /// others are added or removed).
    Constraint(String),
    /// A force, by its index in the file (forces are added at the end, and only the selected
    /// one is removed).
    Force(usize),
}

/// Adds a particle at `position` (metres) of `mass` kg (`f64::INFINITY` for an anchor) and
/// `radius` m; returns its name.
///
/// ```
/// let mut file = bead_viewer::Document::new(2).file().clone();
/// let name = bead_viewer::edit::add_particle(&mut file, vec![0.0, 1.0], 0.5, 0.05);
/// assert_eq!(name, "p1");
/// assert_eq!(file.particles[0].position, [0.0, 1.0]);
/// ```
pub fn add_particle(file: &mut SceneFile, position: Vec<f64>, mass: f64, radius: f64) -> String {
    let name = fresh(
        "p",
        file.particles
            .iter()
            .map(|p| p.name.as_str())
            .chain(file.bodies.iter().map(|b| b.name.as_str())),
    );
    file.particles.push(ParticleSpec {
        name: name.clone(),
        position,
        velocity: None,
        mass: Some(if mass.is_infinite() {
            MassSpec::Word("infinity".into())
        } else {
            MassSpec::Kilograms(mass)
        }),
        radius: (radius > 0.0).then_some(radius),
    });
    name
}

/// Adds a rod of `length` metres between two points; returns its name.
pub fn add_rod(
    file: &mut SceneFile,
    between: [PointRef; 2],
    length: f64,
) -> Result<String, String> {
    check_pair(file, &between)?;
    let name = fresh("rod", file.constraints.iter().filter_map(|c| c.name()));
    file.constraints.push(ConstraintSpec::Distance {
        between,
        length: Some(length),
        name: Some(name.clone()),
    });
    Ok(name)
}

/// Adds a damped spring (stiffness N/m, damping N·s/m, rest length m) between two points;
/// returns its index among the forces.
pub fn add_spring(
    file: &mut SceneFile,
    between: [PointRef; 2],
    stiffness: f64,
    damping: f64,
    rest_length: f64,
) -> Result<usize, String> {
    check_pair(file, &between)?;
    let name = fresh("spring", file.forces.iter().filter_map(|f| f.name()));
    file.forces.push(ForceSpec::Spring {
        between,
        stiffness,
        damping,
        rest_length: Some(rest_length),
        name: Some(name),
    });
    Ok(file.forces.len() - 1)
}

/// Nails `point` where it is (`at`, metres), or, if a nail already holds it, pulls the nail out.
/// Returns whether the point is nailed now.
///
/// On a rigid body the clicked point is wherever the mouse was, never twice the same: a click
/// on a nailed body pulls out the body's nail nearest to it.
///
/// ```
/// use bead_scene::format::PointRef;
/// let mut file = bead_viewer::Document::new(2).file().clone();
/// let p = PointRef::Particle(bead_viewer::edit::add_particle(&mut file, vec![0.0, 0.0], 1.0, 0.0));
/// assert_eq!(bead_viewer::edit::toggle_nail(&mut file, &p, vec![0.0, 0.0]), Ok(true));
/// assert_eq!(file.constraints.len(), 1);
/// assert_eq!(bead_viewer::edit::toggle_nail(&mut file, &p, vec![0.0, 0.0]), Ok(false));
/// assert!(file.constraints.is_empty());
/// ```
pub fn toggle_nail(file: &mut SceneFile, point: &PointRef, at: Vec<f64>) -> Result<bool, String> {
    check_point(file, point)?;
    let distance = |p: &PointRef| match (p, point) {
        (a, b) if a == b => Some(0.0),
        (PointRef::OnBody { body: a, local: x }, PointRef::OnBody { body: b, local: y })
            if a == b =>
        {
            Some((x[0] - y[0]).hypot(x[1] - y[1]))
        }
        (PointRef::OnBody3d { body: a, local: x }, PointRef::OnBody3d { body: b, local: y })
            if a == b =>
        {
            Some((0..3).map(|k| (x[k] - y[k]).powi(2)).sum::<f64>().sqrt())
        }
        _ => None,
    };
    let nearest = file
        .constraints
        .iter()
        .enumerate()
        .filter_map(|(i, c)| match c {
            ConstraintSpec::Nail { point: p, .. } => distance(p).map(|d| (i, d)),
            _ => None,
        })
        .min_by(|a, b| a.1.total_cmp(&b.1));
    if let Some((i, _)) = nearest {
        file.constraints.remove(i);
        return Ok(false);
    }
    let name = fresh("nail", file.constraints.iter().filter_map(|c| c.name()));
    file.constraints.push(ConstraintSpec::Nail {
        point: point.clone(),
        at: Some(Location::Fixed(at)),
        name: Some(name),
    });
    Ok(true)
}

/// Deletes what `selection` names. A particle or body goes with every force and constraint that
/// acts on it (a rod cannot hang from nothing), and leaves the contact groups it was in.
pub fn delete(file: &mut SceneFile, selection: &Selection) -> Result<(), String> {
    match selection {
        Selection::Particle(name) | Selection::Body(name) => {
            let before = file.particles.len() + file.bodies.len();
            file.particles.retain(|p| &p.name != name);
            file.bodies.retain(|b| &b.name != name);
            if file.particles.len() + file.bodies.len() == before {
                return Err(format!("there is no particle or body '{name}'"));
            }
            file.forces
                .retain(|f| !f.references().contains(&name.as_str()));
            file.constraints
                .retain(|c| !c.references().contains(&name.as_str()));
            for group in &mut file.contacts {
                for set in [&mut group.particles, &mut group.bodies]
                    .into_iter()
                    .flatten()
                {
                    if let ParticleSet::Names(names) = set {
                        names.retain(|n| n != name);
                    }
                }
            }
            // A group of named members needs two of them; one that takes "all" stays.
            file.contacts.retain(|g: &ContactsSpec| {
                let mut named = 0;
                for set in [&g.particles, &g.bodies].into_iter().flatten() {
                    match set {
                        ParticleSet::Names(names) => named += names.len(),
                        ParticleSet::All(_) => return true,
                    }
                }
                named >= 2
            });
        }
        Selection::Constraint(name) => {
            let i = file
                .constraints
                .iter()
                .position(|c| c.name() == Some(name.as_str()))
                .ok_or_else(|| format!("there is no constraint '{name}'"))?;
            file.constraints.remove(i);
        }
        Selection::Force(i) => {
            if *i >= file.forces.len() {
                return Err(format!("there is no force {i}"));
            }
            file.forces.remove(*i);
        }
    }
    Ok(())
}

/// `prefix` followed by the smallest number ≥ 1 that makes a name not in `taken`.
fn fresh<'a>(prefix: &str, taken: impl Iterator<Item = &'a str>) -> String {
    let taken: std::collections::HashSet<&str> = taken.collect();
    (1..)
        .map(|k| format!("{prefix}{k}"))
        .find(|n| !taken.contains(n.as_str()))
        .unwrap_or_else(|| prefix.to_string())
}

fn check_point(file: &SceneFile, point: &PointRef) -> Result<(), String> {
    let name = point.owner();
    let exists = match point {
        PointRef::Particle(_) => {
            file.particles.iter().any(|p| p.name == name)
                || file.bodies.iter().any(|b| b.name == name)
                || file
                    .parametric
                    .iter()
                    .any(|o| o.name == name && o.points.len() == 1)
        }
        PointRef::OnBody { .. } | PointRef::OnBody3d { .. } => {
            file.bodies.iter().any(|b| b.name == name)
        }
        PointRef::OnObject { point, .. } => file
            .parametric
            .iter()
            .any(|o| o.name == name && o.points.iter().any(|p| p.name == *point)),
    };
    if exists {
        Ok(())
    } else {
        Err(format!(
            "there is no particle, body or object point '{name}'"
        ))
    }
}

fn check_pair(file: &SceneFile, between: &[PointRef; 2]) -> Result<(), String> {
    check_point(file, &between[0])?;
    check_point(file, &between[1])?;
    if between[0] == between[1] {
        return Err("both ends are the same point".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file_with(names: &[&str]) -> SceneFile {
        let mut file = crate::Document::new(2).file().clone();
        for (k, _) in names.iter().enumerate() {
            add_particle(&mut file, vec![k as f64, 0.0], 1.0, 0.0);
        }
        file
    }

    fn p(name: &str) -> PointRef {
        PointRef::Particle(name.into())
    }

    /// Deleting a particle takes the rods, springs and nails on it, and nothing else.
    #[test]
    fn deleting_a_particle_takes_what_holds_it() {
        let mut file = file_with(&["p1", "p2", "p3"]);
        add_rod(&mut file, [p("p1"), p("p2")], 1.0).unwrap();
        add_rod(&mut file, [p("p2"), p("p3")], 1.0).unwrap();
        add_spring(&mut file, [p("p1"), p("p3")], 10.0, 0.1, 2.0).unwrap();
        toggle_nail(&mut file, &p("p1"), vec![0.0, 0.0]).unwrap();
        file.contacts.push(ContactsSpec {
            name: None,
            bodies: None,
            particles: Some(ParticleSet::Names(vec!["p1".into(), "p2".into()])),
            friction: None,
            restitution: None,
            collide_connected: false,
        });
        delete(&mut file, &Selection::Particle("p1".into())).unwrap();
        let names: Vec<&str> = file.particles.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["p2", "p3"]);
        assert_eq!(file.constraints.len(), 1, "only rod p2-p3 is left");
        assert_eq!(file.forces.len(), 1, "only gravity is left");
        assert!(file.contacts.is_empty(), "a group of one is no group");
        assert!(file.build("edited").is_ok());
    }

    /// Names stay unique after deletions, so output columns keep their meaning.
    #[test]
    fn new_names_never_repeat_a_live_one() {
        let mut file = file_with(&["p1", "p2", "p3"]);
        delete(&mut file, &Selection::Particle("p2".into())).unwrap();
        assert_eq!(add_particle(&mut file, vec![5.0, 0.0], 1.0, 0.0), "p2");
        assert_eq!(add_particle(&mut file, vec![6.0, 0.0], 1.0, 0.0), "p4");
        assert_eq!(add_rod(&mut file, [p("p1"), p("p3")], 2.0).unwrap(), "rod1");
        assert_eq!(add_rod(&mut file, [p("p3"), p("p4")], 1.0).unwrap(), "rod2");
    }

    /// A rigid body nailed at two places: a click pulls out the nail nearest to it, and a
    /// click anywhere else on an unnailed body adds one there.
    #[test]
    fn nails_on_a_body_come_out_nearest_first() {
        let mut file = crate::Document::new(2).file().clone();
        file.bodies.push(bead_scene::format::BodySpec {
            name: "plank".into(),
            position: vec![0.0, 0.0],
            angle: 0.0,
            orientation: None,
            velocity: None,
            angular_velocity: Default::default(),
            mass: None,
            inertia: None,
            shape: Some(bead_scene::format::ShapeSpec::Box {
                width: Some(1.0),
                height: Some(0.1),
                size: None,
            }),
            density: Some(1.0),
            friction: None,
        });
        let on = |x: f64| PointRef::OnBody {
            body: "plank".into(),
            local: [x, 0.0],
        };
        assert_eq!(toggle_nail(&mut file, &on(-0.4), vec![-0.4, 0.0]), Ok(true));
        // A second click elsewhere on the nailed body pulls the only nail out.
        assert_eq!(
            toggle_nail(&mut file, &on(0.38), vec![0.38, 0.0]),
            Ok(false)
        );
        assert_eq!(toggle_nail(&mut file, &on(-0.4), vec![-0.4, 0.0]), Ok(true));
        file.constraints.push(ConstraintSpec::Nail {
            point: on(0.4),
            at: Some(Location::Fixed(vec![0.4, 0.0])),
            name: Some("right".into()),
        });
        assert_eq!(
            toggle_nail(&mut file, &on(0.35), vec![0.35, 0.0]),
            Ok(false)
        );
        let left: Vec<_> = file.constraints.iter().filter_map(|c| c.name()).collect();
        assert_eq!(
            left,
            ["nail1"],
            "the right-hand nail, nearer the click, came out"
        );
    }

    #[test]
    fn edits_on_things_that_are_not_there_are_refused() {
        let mut file = file_with(&["p1"]);
        assert!(add_rod(&mut file, [p("p1"), p("p1")], 1.0).is_err());
        assert!(add_rod(&mut file, [p("p1"), p("zz")], 1.0).is_err());
        assert!(toggle_nail(&mut file, &p("zz"), vec![0.0, 0.0]).is_err());
        assert!(delete(&mut file, &Selection::Constraint("rod9".into())).is_err());
        assert!(delete(&mut file, &Selection::Body("zz".into())).is_err());
    }
}
