//! From a parsed scene file to a [`bead::System`]: resolve names, fill defaults from the initial
//! geometry, read every number and vector, and say which field is wrong when one is.
//!
//! [`build`] adds the parts in the order their names need: the run settings, then the particles,
//! bodies and parametric objects (which claim the names), then the forces and constraints that
//! refer to them, then the contact groups. Each part is read in a file of its own; errors carry
//! the field's path (`constraints[3].length`), which the caller turns into a line and column.

mod bodies;
mod check;
mod constraints;
mod contacts;
mod expression;
mod forces;
mod friction;
mod initial;
mod joints;
mod joints_3d;
mod names;
mod parametric;
mod settings;
mod sliders;

use std::collections::{HashMap, HashSet};

use bead::force::ForceId;
use bead::{BodyId, ConstraintId, ParametricId, ParticleId, RigidBodyId, System};

use crate::error::SceneError;
use crate::format::SceneFile;
pub use contacts::NamedContacts;
use names::{Entity, Names, claim_name};
pub use settings::RunSettings;

/// A scene made into a system, with everything a run needs to report on it.
#[derive(Debug)]
pub struct Model {
    /// The scene's name.
    pub name: String,
    /// The system, at t = 0.
    pub system: System,
    /// Particles in file order, with their names.
    pub particles: Vec<(String, ParticleId)>,
    /// Rigid bodies in file order, with their names (2D scenes).
    pub bodies: Vec<(String, RigidBodyId)>,
    /// 3D rigid bodies in file order, with their names (3D scenes).
    pub bodies_3d: Vec<(String, bead::RigidBody3dId)>,
    /// Parametric objects in file order.
    pub objects: Vec<NamedObject>,
    /// Forces in file order.
    pub forces: Vec<ForceId>,
    /// Constraints in file order.
    pub constraints: Vec<NamedConstraint>,
    /// The shape contact groups (those that name bodies or have friction), in file order: their
    /// columns follow the constraints'. Groups of particles alone without friction have none.
    pub contacts: Vec<NamedContacts>,
    /// How to run it.
    pub run: RunSettings,
    /// What moving the start onto the constraints did, when `[simulation] assemble = true`.
    pub assembly: Option<bead::AssemblyReport>,
    /// The scene file with every default that comes from the initial geometry written out (rod
    /// and rope lengths, spring rest lengths and angles, nail locations, circle and sphere radii,
    /// joint angles), and every constraint named (`c<index>` unless the file named it): the same
    /// model, whatever positions the file is later given and whatever is added or removed. An
    /// editor keeps this, so that moving a particle never changes a rod's length behind the
    /// user's back, and deleting a constraint never renames the others.
    pub resolved: SceneFile,
}

/// A parametric object of the model, with the names its output columns use
/// (`NAME.u0 … NAME.u0_dot … NAME.POINT.x …`).
#[derive(Clone, Debug, PartialEq)]
pub struct NamedObject {
    /// The object's name.
    pub name: String,
    /// Handle in the system.
    pub id: ParametricId,
    /// How many generalized coordinates it has.
    pub coordinates: usize,
    /// Its mass points' names, in order.
    pub points: Vec<String>,
}

/// A constraint of the model with the name its output columns use.
#[derive(Clone, Debug, PartialEq)]
pub struct NamedConstraint {
    /// Name (`c<index>` unless the file gives one).
    pub name: String,
    /// Handle in the system.
    pub id: ConstraintId,
    /// Number of rows.
    pub rows: usize,
    /// The rigid bodies it acts on, by name: its reaction force and torque on each are reported.
    pub reactions: Vec<(String, BodyId)>,
    /// Whether it is an inequality (its rows report `active`).
    pub inequality: bool,
    /// The rows whose activity its `active` columns report: an inequality's own rows, not the
    /// friction row of a contact with friction (`NAME.active` when there is one, `NAME.active0
    /// …` when there are several).
    pub active_rows: Vec<usize>,
}

type Result<T> = std::result::Result<T, SceneError>;

/// Builds the model of a parsed scene. Errors carry the field's path, not yet its line.
pub(crate) fn build(file: &SceneFile) -> Result<Model> {
    if file.format != 1 {
        return Err(
            SceneError::at("format", format!("unsupported format {}", file.format))
                .hint("this version of bead reads format = 1"),
        );
    }
    let sim = &file.simulation;
    let dim = sim.dimension;
    let mut system = System::new(dim).map_err(|_| {
        SceneError::at("simulation.dimension", format!("must be 2 or 3, got {dim}"))
    })?;
    let run = settings::run_settings(sim)?;
    let friction = friction::check(file)?;
    settings::apply_settings(&mut system, &run)?;

    // Particles, bodies and parametric objects share one namespace, claimed in file order.
    let mut names: HashMap<&str, (Entity, String)> = HashMap::new();
    let mut particles = Vec::with_capacity(file.particles.len());
    for (i, spec) in file.particles.iter().enumerate() {
        let path = format!("particles[{i}]");
        claim_name(&names, &spec.name, &path)?;
        let id = bodies::add_particle(&mut system, spec, &path, dim)?;
        names.insert(&spec.name, (Entity::Particle(id), path));
        particles.push((spec.name.clone(), id));
    }
    let mut rigid = Vec::with_capacity(file.bodies.len());
    let mut rigid_3d = Vec::new();
    for (i, spec) in file.bodies.iter().enumerate() {
        let path = format!("bodies[{i}]");
        claim_name(&names, &spec.name, &path)?;
        if dim == 3 {
            let id = bodies::add_body_3d(&mut system, spec, &path)?;
            names.insert(&spec.name, (Entity::Body3d(id), path));
            rigid_3d.push((spec.name.clone(), id));
        } else {
            let id = bodies::add_body(&mut system, spec, &path)?;
            names.insert(&spec.name, (Entity::Body(id), path));
            rigid.push((spec.name.clone(), id));
        }
    }
    let mut objects = Vec::with_capacity(file.parametric.len());
    for (i, spec) in file.parametric.iter().enumerate() {
        let path = format!("parametric[{i}]");
        claim_name(&names, &spec.name, &path)?;
        let id = parametric::add_object(&mut system, spec, &path, dim)?;
        names.insert(&spec.name, (Entity::Object(id, i), path));
        objects.push(NamedObject {
            name: spec.name.clone(),
            id,
            coordinates: spec.coordinates.len(),
            points: spec.points.iter().map(|p| p.name.clone()).collect(),
        });
    }
    let radii = file
        .particles
        .iter()
        .zip(&particles)
        .map(|(s, (_, id))| (id.body().index(), s.radius.unwrap_or(0.0)))
        .collect();
    let lookup = Names {
        names: &names,
        radii,
        objects: &file.parametric,
    };

    // The file with every default taken from the initial geometry written out, as it is used.
    let mut resolved = file.clone();
    let forces = forces::add_forces(file, &mut resolved, &lookup, &mut system)?;
    // The bodies whose reactions constraints report, 2D and 3D.
    let reacting: Vec<(String, BodyId)> = rigid
        .iter()
        .map(|(n, id)| (n.clone(), id.body()))
        .chain(rigid_3d.iter().map(|(n, id)| (n.clone(), id.body())))
        .collect();
    let constraints = constraints::add_constraints(
        file,
        &mut resolved,
        &lookup,
        &mut system,
        &reacting,
        friction,
    )?;
    let members = contacts::Members {
        particles: &particles,
        bodies: &rigid,
        bodies_3d: &rigid_3d,
        constraints: &constraints,
        friction,
    };
    let contacts = contacts::add_contacts(file, &mut resolved, &members, &lookup, &mut system)?;
    // Last, once every constraint is there (their defaults read the file's geometry, before it
    // moves).
    let assembly = if run.assemble {
        let report = system.assemble(&settings::assembly(&run)).map_err(|e| {
            SceneError::at("simulation.assemble", e.to_string()).hint(
                "check the constraints named against each other and against the bodies' \
                     positions; without `assemble` the run starts off them",
            )
        })?;
        Some(report)
    } else {
        None
    };

    Ok(Model {
        name: file.name.clone().unwrap_or_else(|| "unnamed".into()),
        system,
        particles,
        bodies: rigid,
        bodies_3d: rigid_3d,
        objects,
        forces,
        constraints,
        contacts,
        run,
        assembly,
        resolved,
    })
}

impl Model {
    /// The warning to give when the scene asks for bouncing impacts that its run will not make:
    /// a `restitution` above 0 under an implicit integrator (which holds contacts at each
    /// step's end, so every impact is perfectly inelastic) or with `impacts = "off"`; `None`
    /// otherwise.
    ///
    /// ```
    /// use bead_scene::{Format, Scene};
    /// let text = "format = 1\n[simulation]\ndimension = 2\ndt = 0.01\nduration = 1\n\
    ///             integrator = \"implicit-euler\"\n\
    ///             [[particles]]\nname = \"ball\"\nposition = [0, 1]\n\
    ///             [[constraints]]\nkind = \"half-plane\"\npoint = \"ball\"\n\
    ///             through = [0, 0]\nnormal = [0, 1]\nrestitution = 0.8\nname = \"floor\"";
    /// let model = Scene::parse(text, Format::Toml, "example")?.build()?;
    /// assert!(model.restitution_warning().unwrap().contains("'floor'"));
    /// let explicit = Scene::parse(&text.replace("implicit-euler", "rk4"), Format::Toml, "x")?
    ///     .build()?;
    /// assert!(explicit.restitution_warning().is_none());
    /// # Ok::<(), bead_scene::SceneError>(())
    /// ```
    pub fn restitution_warning(&self) -> Option<String> {
        let integrator = &self.run.integrator;
        let why = if bead::integrate::by_name(integrator).is_some_and(|i| i.implicit()) {
            format!(
                "the {integrator} integrator holds contacts at each step's end, so every \
                 impact is perfectly inelastic"
            )
        } else if self.run.impacts.as_deref() == Some("off") {
            "impacts = \"off\" resolves no impact".to_string()
        } else {
            return None;
        };
        let default = self.run.restitution;
        let inequalities: HashSet<&str> = self
            .constraints
            .iter()
            .filter(|c| c.inequality)
            .map(|c| c.name.as_str())
            .collect();
        let mut bouncing: Vec<String> = self
            .resolved
            .constraints
            .iter()
            .filter(|spec| {
                spec.name().is_some_and(|n| inequalities.contains(n))
                    && constraints::restitution(spec).unwrap_or(default) > 0.0
            })
            .filter_map(|spec| spec.name().map(|n| format!("'{n}'")))
            .collect();
        let groups = self
            .resolved
            .contacts
            .iter()
            .filter(|g| g.restitution.unwrap_or(default) > 0.0)
            .count();
        if groups > 0 {
            bouncing.push(format!(
                "{groups} contact group{}",
                if groups == 1 { "" } else { "s" }
            ));
        }
        if bouncing.is_empty() {
            return None;
        }
        // A pile's hundreds of pairs are named by the first few.
        const NAMED: usize = 3;
        let mut named = bouncing
            .iter()
            .take(NAMED)
            .cloned()
            .collect::<Vec<_>>()
            .join(", ");
        if bouncing.len() > NAMED {
            named.push_str(&format!(" and {} more", bouncing.len() - NAMED));
        }
        Some(format!(
            "restitution is ignored: {why}. It is set on {named}; use an explicit integrator \
             (rk4, midpoint, symplectic-euler) with impacts = \"located\" or \"speculative\" \
             for bounces"
        ))
    }
}
