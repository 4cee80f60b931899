//! From a parsed scene file to a [`bead::System`]: resolve names, fill defaults from the initial
//! geometry, check every number and vector, and say which field is wrong when one is.

use std::collections::HashMap;

use bead::autodiff::Custom;
use bead::constraint::{
    Angle, AngleLimit, Constraint, ConstraintKind, Distance, Gear, HalfPlane, Linear, Motor, Nail,
    NonPenetration, OnCircle, OnLine, OnPlane, OnSphere, Prismatic, RackAndPinion, Revolute, Weld,
};
use bead::force::{ConstantForce, Drag, Force, ForceId, Gravity, Spring, Torque, TorsionSpring};
use bead::solve::SolveParams;
use bead::{
    BodyId, ConstraintId, Feedback, Motion, Parametric, ParametricId, Particle, ParticleId, Point,
    Projection, RigidBody, RigidBodyId, Settings, Shape, System,
};

use crate::error::SceneError;
use crate::expression::{Expression, ExpressionError, RESERVED};
use crate::format::{
    BodySpec, ConstraintSpec, ForceSpec, Location, MassSpec, MotionSpec, ParametricSpec,
    ParticleSet, ParticleSpec, PointRef, ProjectionSpec, SceneFile, ShapeSpec, Simulation,
};

/// A scene made into a system, with everything a run needs to report on it.
#[derive(Debug)]
pub struct Model {
    /// The scene's name.
    pub name: String,
    /// The system, at t = 0.
    pub system: System,
    /// Particles in file order, with their names.
    pub particles: Vec<(String, ParticleId)>,
    /// Rigid bodies in file order, with their names.
    pub bodies: Vec<(String, RigidBodyId)>,
    /// Parametric objects in file order.
    pub objects: Vec<NamedObject>,
    /// Forces in file order.
    pub forces: Vec<ForceId>,
    /// Constraints in file order.
    pub constraints: Vec<NamedConstraint>,
    /// How to run it.
    pub run: RunSettings,
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
}

/// The `[simulation]` settings, checked and with defaults filled in.
#[derive(Clone, Debug, PartialEq)]
pub struct RunSettings {
    /// Time step, s.
    pub dt: f64,
    /// Duration, s.
    pub duration: f64,
    /// Write every n-th step.
    pub output_every: u64,
    /// Integrator name.
    pub integrator: String,
    /// Solver name.
    pub solver: String,
    /// Newton's tolerance and iteration cap, for the implicit integrators.
    pub newton_tolerance: f64,
    /// Newton iterations per step at most, for the implicit integrators.
    pub newton_iterations: usize,
    /// Solver tolerance.
    pub tolerance: f64,
    /// Feedback gains.
    pub feedback: Feedback,
    /// Post-step projection, if on.
    pub projection: Option<Projection>,
    /// Inequality algorithm name, if given (`jonquet` when not).
    pub inequality: Option<String>,
    /// How impacts are found (`located`, `speculative`, `off`; `None`: located).
    pub impacts: Option<String>,
    /// Default restitution of inequality constraints.
    pub restitution: f64,
}

impl RunSettings {
    /// The integrator these settings name, with Newton's settings for an implicit one; `None`
    /// for a name that is not an integrator (checked when the settings were read).
    pub fn make_integrator(&self) -> Option<Box<dyn bead::integrate::Integrator>> {
        let (tolerance, iterations) = (self.newton_tolerance, self.newton_iterations);
        match self.integrator.as_str() {
            "implicit-euler" => {
                return Some(Box::new(bead::integrate::ImplicitEuler::new(
                    tolerance, iterations,
                )));
            }
            "bdf2" => return Some(Box::new(bead::integrate::Bdf2::new(tolerance, iterations))),
            _ => {}
        }
        bead::integrate::by_name(&self.integrator)
    }
}

/// Algorithms accepted by `inequality`, for hints.
const INEQUALITY_NAMES: [&str; 4] = ["platt", "improved", "jonquet", "lcp"];

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
    let run = run_settings(sim)?;
    apply_settings(&mut system, &run)?;

    let mut names: HashMap<&str, (Entity, String)> = HashMap::new();
    let mut particles = Vec::with_capacity(file.particles.len());
    for (i, spec) in file.particles.iter().enumerate() {
        let path = format!("particles[{i}]");
        claim_name(&names, &spec.name, &path)?;
        let id = add_particle(&mut system, spec, &path, dim)?;
        names.insert(&spec.name, (Entity::Particle(id), path));
        particles.push((spec.name.clone(), id));
    }
    let mut bodies = Vec::with_capacity(file.bodies.len());
    for (i, spec) in file.bodies.iter().enumerate() {
        let path = format!("bodies[{i}]");
        if dim != 2 {
            return Err(
                SceneError::at(&path, "rigid bodies are 2D; this scene is 3D")
                    .hint("set simulation.dimension = 2"),
            );
        }
        claim_name(&names, &spec.name, &path)?;
        let id = add_body(&mut system, spec, &path)?;
        names.insert(&spec.name, (Entity::Body(id), path));
        bodies.push((spec.name.clone(), id));
    }
    let mut objects = Vec::with_capacity(file.parametric.len());
    for (i, spec) in file.parametric.iter().enumerate() {
        let path = format!("parametric[{i}]");
        claim_name(&names, &spec.name, &path)?;
        let id = add_object(&mut system, spec, &path, dim)?;
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
    let mut forces = Vec::with_capacity(file.forces.len());
    let mut force_names: HashMap<&str, usize> = HashMap::new();
    for (i, spec) in file.forces.iter().enumerate() {
        let path = format!("forces[{i}]");
        if let Some(name) = spec.name()
            && let Some(first) = force_names.insert(name, i)
        {
            return Err(SceneError::at(
                format!("{path}.name"),
                format!("duplicate force name '{name}'"),
            )
            .hint(format!("forces[{first}] already has this name")));
        }
        let force = make_force(&mut resolved.forces[i], &path, &lookup, &system)?;
        forces.push(
            system
                .add_force_boxed(force)
                .map_err(|e| SceneError::at(&path, e.to_string()))?,
        );
    }

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
        let constraint = make_constraint(&mut resolved.constraints[i], &path, &lookup, &system)?;
        let rows = constraint.rows(dim);
        let inequality = constraint.kind() == ConstraintKind::Inequality;
        let mut reactions: Vec<(String, BodyId)> = Vec::new();
        for op in constraint.operands() {
            let body = op.body();
            if let Some((name, _)) = bodies.iter().find(|(_, b)| b.body() == body)
                && !reactions.iter().any(|(_, b)| *b == body)
            {
                reactions.push((name.clone(), body));
            }
        }
        let restitution = constraint_restitution(spec);
        let id = system
            .add_constraint_boxed(constraint)
            .map_err(|e| SceneError::at(&path, e.to_string()))?;
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
        });
    }

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
            ParticleSet::Names(names) => names
                .iter()
                .enumerate()
                .map(|(k, n)| match lookup.names.get(n.as_str()) {
                    Some((Entity::Particle(p), _)) => Ok(*p),
                    _ => Err(lookup.unknown(&format!("{path}.particles[{k}]"), n, "particle")),
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

    Ok(Model {
        name: file.name.clone().unwrap_or_else(|| "unnamed".into()),
        system,
        particles,
        bodies,
        objects,
        forces,
        constraints,
        run,
        resolved,
    })
}

fn run_settings(sim: &Simulation) -> Result<RunSettings> {
    positive("simulation.dt", sim.dt)?;
    if !(sim.duration >= 0.0 && sim.duration.is_finite()) {
        return Err(SceneError::at(
            "simulation.duration",
            format!("must be zero or positive, got {}", sim.duration),
        ));
    }
    let integrator = sim.integrator.clone().unwrap_or_else(|| "rk4".into());
    if bead::integrate::by_name(&integrator).is_none() {
        return Err(SceneError::at(
            "simulation.integrator",
            format!("unknown integrator '{integrator}'"),
        )
        .hint(format!(
            "one of: {}",
            bead::integrate::INTEGRATOR_NAMES.join(", ")
        )));
    }
    let implicit = bead::integrate::by_name(&integrator).is_some_and(|i| i.implicit());
    if !implicit {
        for (field, given) in [
            (
                "simulation.newton_tolerance",
                sim.newton_tolerance.is_some(),
            ),
            (
                "simulation.newton_iterations",
                sim.newton_iterations.is_some(),
            ),
        ] {
            if given {
                return Err(SceneError::at(
                    field,
                    format!("integrator '{integrator}' is explicit and uses no Newton iteration"),
                )
                .hint(
                    "Newton's settings apply to the implicit integrators, implicit-euler and bdf2",
                ));
            }
        }
    }
    let defaults = bead::integrate::ImplicitEuler::default();
    let newton_tolerance = sim.newton_tolerance.unwrap_or(defaults.tolerance);
    positive("simulation.newton_tolerance", newton_tolerance)?;
    let newton_iterations = sim.newton_iterations.unwrap_or(defaults.max_iterations);
    if newton_iterations == 0 {
        return Err(SceneError::at(
            "simulation.newton_iterations",
            "must be at least 1",
        ));
    }
    // The implicit stepper's own Newton system is factored directly; the solver serves its
    // contact rows and the reports, where a chain or a cloth would take CG thousands of
    // iterations.
    let default_solver = if implicit { "sparse" } else { "cg" };
    let solver = sim.solver.clone().unwrap_or_else(|| default_solver.into());
    if bead::solve::by_name(&solver).is_none() {
        return Err(
            SceneError::at("simulation.solver", format!("unknown solver '{solver}'"))
                .hint(format!("one of: {}", bead::solve::SOLVER_NAMES.join(", "))),
        );
    }
    let tolerance = sim.tolerance.unwrap_or(SolveParams::default().tolerance);
    positive("simulation.tolerance", tolerance)?;
    let feedback = match (sim.feedback, sim.baumgarte_tau) {
        (Some(_), Some(_)) => {
            return Err(SceneError::at(
                "simulation.baumgarte_tau",
                "give either feedback or baumgarte_tau, not both",
            ));
        }
        (Some(f), None) => {
            non_negative("simulation.feedback.ks", f.ks)?;
            non_negative("simulation.feedback.kd", f.kd)?;
            Feedback { ks: f.ks, kd: f.kd }
        }
        (None, Some(tau)) => {
            positive("simulation.baumgarte_tau", tau)?;
            Feedback::baumgarte(tau)
        }
        (None, None) => Feedback::default(),
    };
    let restitution = sim.restitution.unwrap_or(0.0);
    if !(0.0..=1.0).contains(&restitution) {
        return Err(SceneError::at(
            "simulation.restitution",
            format!("must be in [0, 1], got {restitution}"),
        )
        .hint("0 is perfectly inelastic, 1 perfectly elastic"));
    }
    let output_every = sim.output_every.unwrap_or(1);
    if output_every == 0 {
        return Err(SceneError::at(
            "simulation.output_every",
            "must be at least 1",
        ));
    }
    let projection = match sim.projection {
        None | Some(ProjectionSpec::Enabled(false)) => None,
        Some(ProjectionSpec::Enabled(true)) => Some(Projection::default()),
        Some(ProjectionSpec::Settings {
            iterations,
            tolerance,
        }) => {
            positive("simulation.projection.tolerance", tolerance)?;
            if iterations == 0 {
                return Err(SceneError::at(
                    "simulation.projection.iterations",
                    "must be at least 1",
                ));
            }
            Some(Projection {
                max_iterations: iterations,
                tolerance,
            })
        }
    };
    if let Some(name) = &sim.inequality
        && !INEQUALITY_NAMES.contains(&name.as_str())
    {
        return Err(SceneError::at(
            "simulation.inequality",
            format!("unknown algorithm '{name}'"),
        )
        .hint(format!("one of: {}", INEQUALITY_NAMES.join(", "))));
    }
    if let Some(name) = &sim.impacts
        && bead::contact::Impacts::by_name(name).is_none()
    {
        let names: Vec<&str> = bead::contact::Impacts::ALL
            .iter()
            .map(|m| m.name())
            .collect();
        return Err(SceneError::at(
            "simulation.impacts",
            format!("unknown impact mode '{name}'"),
        )
        .hint(format!("one of: {}", names.join(", "))));
    }
    Ok(RunSettings {
        dt: sim.dt,
        duration: sim.duration,
        output_every,
        integrator,
        solver,
        newton_tolerance,
        newton_iterations,
        tolerance,
        feedback,
        projection,
        inequality: sim.inequality.clone(),
        impacts: sim.impacts.clone(),
        restitution,
    })
}

fn apply_settings(system: &mut System, run: &RunSettings) -> Result<()> {
    if let Some(integrator) = run.make_integrator() {
        system.set_integrator_boxed(integrator);
    }
    if let Some(solver) = bead::solve::by_name(&run.solver) {
        system.set_solver_boxed(solver);
    }
    let settings = Settings {
        feedback: run.feedback,
        solve: SolveParams {
            tolerance: run.tolerance,
            ..SolveParams::default()
        },
        projection: run.projection,
        restitution: run.restitution,
        inequality: run
            .inequality
            .as_deref()
            .and_then(bead::InequalityMethod::by_name)
            .unwrap_or_default(),
        impacts: run
            .impacts
            .as_deref()
            .and_then(bead::contact::Impacts::by_name)
            .unwrap_or_default(),
        ..Settings::default()
    };
    system
        .set_settings(settings)
        .map_err(|e| SceneError::at("simulation", e.to_string()))?;
    // Motors aim to reach their speed within a step: tell the model its step before the first
    // one, so that what is reported at t = 0 is what the first step applies.
    system
        .set_time_step(run.dt)
        .map_err(|e| SceneError::at("simulation.dt", e.to_string()))
}

fn add_particle(
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

/// What a name refers to.
#[derive(Clone, Copy)]
enum Entity {
    Particle(ParticleId),
    Body(RigidBodyId),
    /// A parametric object, and its index in the file's `parametric`.
    Object(ParametricId, usize),
}

fn claim_name(names: &HashMap<&str, (Entity, String)>, name: &str, path: &str) -> Result<()> {
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
struct Names<'a> {
    names: &'a HashMap<&'a str, (Entity, String)>,
    /// Particle radii by body index.
    radii: HashMap<usize, f64>,
    /// The file's parametric objects, for their points' names and radii.
    objects: &'a [ParametricSpec],
}

impl Names<'_> {
    fn unknown(&self, path: &str, name: &str, what: &str) -> SceneError {
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

    fn point(&self, path: &str, r: &PointRef) -> Result<Point> {
        match r {
            PointRef::Particle(name) => match self.names.get(name.as_str()) {
                Some((Entity::Particle(id), _)) => Ok(Point::from(*id)),
                Some((Entity::Body(id), _)) => Ok(Point::on_body(*id, [0.0, 0.0])),
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
                let id = self.body(&format!("{path}.body"), body)?;
                if !local.iter().all(|x| x.is_finite()) {
                    return Err(SceneError::at(format!("{path}.local"), "must be finite"));
                }
                Ok(Point::on_body(id, *local))
            }
        }
    }

    /// The radius of the particle or object point a point stands for (0 for body points).
    fn radius(&self, point: &Point) -> f64 {
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

    fn body(&self, path: &str, name: &str) -> Result<RigidBodyId> {
        match self.names.get(name) {
            Some((Entity::Body(id), _)) => Ok(*id),
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
    fn one_or_two(
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

fn add_body(system: &mut System, spec: &BodySpec, path: &str) -> Result<RigidBodyId> {
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

fn make_force(
    spec: &mut ForceSpec,
    path: &str,
    names: &Names<'_>,
    system: &System,
) -> Result<Box<dyn Force>> {
    let dim = system.dim();
    Ok(match spec {
        ForceSpec::Gravity { g, .. } => {
            Box::new(Gravity::new(&vector(&format!("{path}.g"), g, dim)?))
        }
        ForceSpec::Constant { point, force, .. } => {
            let p = names.point(&format!("{path}.point"), point)?;
            Box::new(ConstantForce::new(
                p,
                &vector(&format!("{path}.force"), force, dim)?,
            ))
        }
        ForceSpec::Spring {
            between,
            stiffness,
            damping,
            rest_length,
            ..
        } => {
            let [a, b] = pair(path, between, names)?;
            non_negative(&format!("{path}.stiffness"), *stiffness)?;
            non_negative(&format!("{path}.damping"), *damping)?;
            let rest = match rest_length {
                Some(l) => {
                    non_negative(&format!("{path}.rest_length"), *l)?;
                    *l
                }
                None => *rest_length.insert(distance(system, &a, &b)),
            };
            Box::new(Spring::new(a, b, *stiffness, *damping, rest))
        }
        ForceSpec::Torque { body, torque, .. } => {
            finite(&format!("{path}.torque"), *torque)?;
            Box::new(Torque::new(
                names.body(&format!("{path}.body"), body)?,
                *torque,
            ))
        }
        ForceSpec::TorsionSpring {
            between,
            body,
            stiffness,
            damping,
            rest_angle,
            ..
        } => {
            let (a, b) = names.one_or_two(path, between, body)?;
            non_negative(&format!("{path}.stiffness"), *stiffness)?;
            non_negative(&format!("{path}.damping"), *damping)?;
            let rest = match rest_angle {
                Some(r) => {
                    finite(&format!("{path}.rest_angle"), *r)?;
                    *r
                }
                None => *rest_angle.insert(relative_angle(system, a, b)),
            };
            Box::new(match b {
                Some(b) => TorsionSpring::new(a, b, *stiffness, *damping, rest),
                None => TorsionSpring::to_world(a, *stiffness, *damping, rest),
            })
        }
        ForceSpec::Drag { coefficient, .. } => {
            non_negative(&format!("{path}.coefficient"), *coefficient)?;
            Box::new(Drag::new(*coefficient))
        }
    })
}

fn make_constraint(
    spec: &mut ConstraintSpec,
    path: &str,
    names: &Names<'_>,
    system: &System,
) -> Result<Box<dyn Constraint>> {
    let dim = system.dim();
    Ok(match spec {
        ConstraintSpec::Nail { point, at, .. } => {
            let p = names.point(&format!("{path}.point"), point)?;
            let motion = match at {
                Some(at) => location(&format!("{path}.at"), at, dim)?,
                None => {
                    let x = position(system, &p)[..dim].to_vec();
                    let motion = Motion::fixed(&x);
                    *at = Some(Location::Fixed(x));
                    motion
                }
            };
            Box::new(Nail::moving(p, motion))
        }
        ConstraintSpec::Distance {
            between, length, ..
        } => {
            let [a, b] = pair(path, between, names)?;
            let length = match length {
                Some(l) => {
                    positive(&format!("{path}.length"), *l).map_err(|e| {
                        e.hint("a rod needs a positive length; to join two points use a nail")
                    })?;
                    *l
                }
                None => {
                    let l = distance(system, &a, &b);
                    if !(l > 0.0) {
                        return Err(SceneError::at(
                            format!("{path}.between"),
                            "the rod's two ends start at the same place",
                        )
                        .hint("give `length`, or move one of the particles"));
                    }
                    *length.insert(l)
                }
            };
            Box::new(Distance::new(a, b, length))
        }
        ConstraintSpec::OnCircle {
            point,
            center,
            radius,
            normal,
            ..
        } => {
            let p = names.point(&format!("{path}.point"), point)?;
            let c = location(&format!("{path}.center"), center, dim)?;
            let r = radius_or_initial(path, radius, system, &p, &c)?;
            let mut circle = OnCircle::new(p, c, r);
            if let Some(n) = normal {
                if dim != 3 {
                    return Err(SceneError::at(
                        format!("{path}.normal"),
                        "a circle's normal is for 3D scenes only",
                    ));
                }
                circle = circle.with_normal(&direction(&format!("{path}.normal"), n, dim)?);
            }
            Box::new(circle)
        }
        ConstraintSpec::OnSphere {
            point,
            center,
            radius,
            ..
        } => {
            let p = names.point(&format!("{path}.point"), point)?;
            let c = location(&format!("{path}.center"), center, dim)?;
            let r = radius_or_initial(path, radius, system, &p, &c)?;
            Box::new(OnSphere::new(p, c, r))
        }
        ConstraintSpec::OnLine {
            point,
            through,
            direction: d,
            ..
        } => {
            let p = names.point(&format!("{path}.point"), point)?;
            let through = location(&format!("{path}.through"), through, dim)?;
            Box::new(OnLine::new(
                p,
                through,
                &direction(&format!("{path}.direction"), d, dim)?,
            ))
        }
        ConstraintSpec::Revolute { between, .. } => {
            let [a, b] = pair(path, between, names)?;
            Box::new(Revolute::new(a, b))
        }
        ConstraintSpec::Weld { between, angle, .. } => {
            let [a, b] = pair(path, between, names)?;
            let angle = angle_or_initial(path, angle, system, a.body(), Some(b.body()))?;
            Box::new(Weld::new(a, b, angle))
        }
        ConstraintSpec::Prismatic {
            between,
            axis,
            angle,
            ..
        } => {
            let [a, b] = pair(path, between, names)?;
            let axis = direction(&format!("{path}.axis"), axis, 2)?;
            let angle = angle_or_initial(path, angle, system, a.body(), Some(b.body()))?;
            Box::new(Prismatic::new(a, b, [axis[0], axis[1]], angle))
        }
        ConstraintSpec::Angle {
            between,
            body,
            angle,
            ..
        } => {
            let (a, b) = names.one_or_two(path, between, body)?;
            let angle = angle_or_initial(path, angle, system, a.body(), b.map(|b| b.body()))?;
            Box::new(match b {
                Some(b) => Angle::new(a, b, angle),
                None => Angle::to_world(a, angle),
            })
        }
        ConstraintSpec::Motor {
            between,
            body,
            speed,
            max_torque,
            ..
        } => {
            let (a, b) = names.one_or_two(path, between, body)?;
            finite(&format!("{path}.speed"), *speed)?;
            let motor = match b {
                Some(b) => Motor::new(a, b, *speed),
                None => Motor::to_world(a, *speed),
            };
            Box::new(match max_torque {
                Some(limit) => {
                    positive(&format!("{path}.max_torque"), *limit)?;
                    motor.max_torque(*limit)
                }
                None => motor,
            })
        }
        ConstraintSpec::Gear { between, radii, .. } => {
            let a = names.body(&format!("{path}.between[0]"), &between[0])?;
            let b = names.body(&format!("{path}.between[1]"), &between[1])?;
            if a == b {
                return Err(SceneError::at(
                    format!("{path}.between"),
                    "both are the same body",
                ));
            }
            for (k, r) in radii.iter().enumerate() {
                if *r == 0.0 || !r.is_finite() {
                    return Err(SceneError::at(
                        format!("{path}.radii[{k}]"),
                        format!("must be non-zero and finite, got {r}"),
                    )
                    .hint("pitch radii in metres; a negative radius makes an internal mesh"));
                }
            }
            // The teeth roll along the line of centres, which needs two distinct centres.
            let gear = Gear::meshing(system, a, b, radii[0], radii[1]).map_err(|e| {
                SceneError::at(format!("{path}.between"), e.to_string()).hint(
                    "place the gears' centres |r_a + r_b| apart, so that their pitch circles touch",
                )
            })?;
            Box::new(gear)
        }
        ConstraintSpec::RackAndPinion {
            rack,
            pinion,
            axis,
            radius,
            ..
        } => {
            let rack = names.body(&format!("{path}.rack"), rack)?;
            let pinion = names.body(&format!("{path}.pinion"), pinion)?;
            if rack == pinion {
                return Err(SceneError::at(
                    format!("{path}.pinion"),
                    "the pinion is the rack itself",
                ));
            }
            let axis = direction(&format!("{path}.axis"), axis, 2)?;
            positive(&format!("{path}.radius"), *radius)?;
            // The side the pinion meshes on and which tooth meets which come from where it stands.
            let teeth = RackAndPinion::meshing(system, rack, pinion, [axis[0], axis[1]], *radius)
                .map_err(|e| {
                SceneError::at(format!("{path}.pinion"), e.to_string()).hint(
                    "start the pinion on the side of the rack it meshes on, its pitch \
                         circle touching the rack's pitch line (`axis` is in the rack's frame)",
                )
            })?;
            Box::new(teeth)
        }
        ConstraintSpec::HalfPlane {
            point,
            through,
            normal,
            radius,
            ..
        } => {
            let p = names.point(&format!("{path}.point"), point)?;
            let through = location(&format!("{path}.through"), through, dim)?;
            let normal = direction(&format!("{path}.normal"), normal, dim)?;
            let radius = match radius {
                Some(r) => {
                    non_negative(&format!("{path}.radius"), *r)?;
                    *r
                }
                None => names.radius(&p),
            };
            Box::new(HalfPlane::new(p, through, &normal, radius))
        }
        ConstraintSpec::NonPenetration { between, .. } => {
            let [a, b] = pair(path, between, names)?;
            Box::new(NonPenetration::new(
                a,
                b,
                names.radius(&a) + names.radius(&b),
            ))
        }
        ConstraintSpec::Rope {
            between, length, ..
        } => {
            let [a, b] = pair(path, between, names)?;
            let length = match length {
                Some(l) => {
                    positive(&format!("{path}.length"), *l)?;
                    *l
                }
                None => *length.insert(distance(system, &a, &b)),
            };
            positive(&format!("{path}.length"), length)?;
            Box::new(NonPenetration::rope(a, b, length))
        }
        ConstraintSpec::Linear { point, a, b, .. } => {
            let p = names.point(&format!("{path}.point"), point)?;
            let a = direction(&format!("{path}.a"), a, dim)?;
            finite(&format!("{path}.b"), *b)?;
            Box::new(Linear::new(p, &a, *b))
        }
        ConstraintSpec::AngleLimit {
            between,
            body,
            min,
            max,
            ..
        } => {
            let (a, b) = names.one_or_two(path, between, body)?;
            finite(&format!("{path}.min"), *min)?;
            finite(&format!("{path}.max"), *max)?;
            if min > max {
                return Err(SceneError::at(
                    format!("{path}.max"),
                    format!("max {max} is below min {min}"),
                ));
            }
            Box::new(match b {
                Some(b) => AngleLimit::new(a, b, *min, *max),
                None => AngleLimit::to_world(a, *min, *max),
            })
        }
        ConstraintSpec::Expression {
            points,
            c,
            inequality,
            restitution,
            ..
        } => expression_constraint(path, points, c, *inequality, *restitution, names, system)?,
        ConstraintSpec::OnPlane {
            point,
            through,
            normal,
            ..
        } => {
            let p = names.point(&format!("{path}.point"), point)?;
            let through = location(&format!("{path}.through"), through, dim)?;
            Box::new(OnPlane::new(
                p,
                through,
                &direction(&format!("{path}.normal"), normal, dim)?,
            ))
        }
    })
}

/// `kind = "expression"`: the aliased points become the operands of an autodiff constraint whose
/// function is the parsed expression, read in `ALIAS.x ALIAS.y [ALIAS.z]` and `t`.
fn expression_constraint(
    path: &str,
    points: &std::collections::BTreeMap<String, PointRef>,
    c: &str,
    inequality: bool,
    restitution: Option<f64>,
    names: &Names<'_>,
    system: &System,
) -> Result<Box<dyn Constraint>> {
    let dim = system.dim();
    if points.is_empty() {
        return Err(SceneError::at(
            format!("{path}.points"),
            "an expression constraint needs at least one point",
        )
        .hint("points = { a = \"bob\" }, then write c in a.x, a.y"));
    }
    if restitution.is_some() && !inequality {
        return Err(SceneError::at(
            format!("{path}.restitution"),
            "restitution is for inequalities: there are no impacts on an equality",
        )
        .hint("add inequality = true for c >= 0 with impacts, or remove restitution"));
    }
    let mut operands = Vec::with_capacity(points.len());
    let mut variables = Vec::with_capacity(points.len() * dim + 1);
    for (alias, point) in points {
        let field = format!("{path}.points.{alias}");
        if !is_identifier(alias) || RESERVED.contains(&alias.as_str()) || alias == "t" {
            return Err(
                SceneError::at(&field, format!("'{alias}' cannot be an alias")).hint(
                    "an alias is a word of letters, digits and _ that is not t, pi or a function",
                ),
            );
        }
        operands.push(names.point(&field, point)?);
        variables.extend(
            ["x", "y", "z"][..dim]
                .iter()
                .map(|a| format!("{alias}.{a}")),
        );
    }
    variables.push("t".into());
    let n = variables.len() - 1;
    let refs: Vec<&str> = variables.iter().map(String::as_str).collect();
    let expression = Expression::parse(c, &refs).map_err(|e| expression_error(path, "c", c, e))?;
    let initial: Vec<f64> = operands
        .iter()
        .flat_map(|p| position(system, p)[..dim].to_vec())
        .collect();
    let value = expression.eval(|i| if i < n { initial[i] } else { system.time() });
    if !value.is_finite() {
        return Err(SceneError::at(
            format!("{path}.c"),
            format!("'{c}' is {value} at the initial positions"),
        )
        .hint("check square roots, logarithms and divisions at the points' starting places"));
    }
    let custom = Custom::new(operands, move |x, t| {
        expression.eval(|i| if i < n { x[i] } else { t })
    });
    Ok(Box::new(if inequality {
        custom.inequality()
    } else {
        custom
    }))
}

/// A located scene error from an expression's parse error.
fn expression_error(path: &str, field: &str, text: &str, e: ExpressionError) -> SceneError {
    let mut error = SceneError::at(
        format!("{path}.{field}"),
        format!("{} in \"{text}\"", e.message),
    );
    error.hint = e.hint;
    error.within = Some(e.start);
    error
}

fn is_identifier(word: &str) -> bool {
    let mut chars = word.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `[[parametric]]`: checks the numbers, parses each point's position expressions in
/// `u0 … uk` and `t`, and adds the object.
fn add_object(
    system: &mut System,
    spec: &ParametricSpec,
    path: &str,
    dim: usize,
) -> Result<ParametricId> {
    let n = spec.coordinates.len();
    if n == 0 {
        return Err(SceneError::at(
            format!("{path}.coordinates"),
            "an object needs at least one coordinate",
        )
        .hint("coordinates = [0.0] for a bead on a curve, [0.0, 0.0] on a surface"));
    }
    finite_all(&format!("{path}.coordinates"), &spec.coordinates)?;
    let rates = match &spec.rates {
        Some(r) if r.len() != n => {
            return Err(SceneError::at(
                format!("{path}.rates"),
                format!("has {} entries for {n} coordinates", r.len()),
            ));
        }
        Some(r) => {
            finite_all(&format!("{path}.rates"), r)?;
            r.clone()
        }
        None => vec![0.0; n],
    };
    let mut variables: Vec<String> = (0..n).map(|k| format!("u{k}")).collect();
    variables.push("t".into());
    let refs: Vec<&str> = variables.iter().map(String::as_str).collect();
    let mut object = Parametric::new(&spec.coordinates)
        .name(spec.name.clone())
        .rates(&rates);
    if let Some([from, to]) = spec.trace {
        let field = format!("{path}.trace");
        if n != 1 {
            return Err(SceneError::at(
                &field,
                format!("traces a curve, and this object has {n} coordinates"),
            ));
        }
        finite_all(&field, &[from, to])?;
        if from >= to {
            return Err(SceneError::at(&field, format!("[{from}, {to}] is empty"))
                .hint("give [from, to] with from < to"));
        }
        object = object.trace(from, to);
    }
    if spec.points.is_empty() {
        return Err(SceneError::at(
            format!("{path}.points"),
            "an object needs at least one mass point",
        )
        .hint("points = [{ name = \"p\", mass = 1.0, position = [\"cos(u0)\", \"sin(u0)\"] }]"));
    }
    let mut used = vec![false; n];
    for (k, point) in spec.points.iter().enumerate() {
        let at = format!("{path}.points[{k}]");
        if point.name.is_empty() || point.name.contains('.') {
            return Err(SceneError::at(
                format!("{at}.name"),
                format!("'{}' cannot name a point", point.name),
            )
            .hint("a point's name is not empty and has no '.' (outputs read OBJECT.POINT.x)"));
        }
        if let Some(j) = spec.points[..k].iter().position(|p| p.name == point.name) {
            return Err(SceneError::at(
                format!("{at}.name"),
                format!("duplicate point name '{}'", point.name),
            )
            .hint(format!("{path}.points[{j}] already has this name")));
        }
        positive(&format!("{at}.mass"), point.mass)?;
        if point.position.len() != dim {
            return Err(SceneError::at(
                format!("{at}.position"),
                format!(
                    "has {} expressions; the scene is {dim}D",
                    point.position.len()
                ),
            )
            .hint(format!("give one expression per axis, {dim} in all")));
        }
        let mut axes = Vec::with_capacity(dim);
        for (d, text) in point.position.iter().enumerate() {
            let e = Expression::parse(text, &refs)
                .map_err(|e| expression_error(&at, &format!("position[{d}]"), text, e))?;
            for (u, flag) in used.iter_mut().enumerate() {
                *flag |= e.uses(u);
            }
            let value = e.eval(|i| {
                if i < n {
                    spec.coordinates[i]
                } else {
                    system.time()
                }
            });
            if !value.is_finite() {
                return Err(SceneError::at(
                    format!("{at}.position[{d}]"),
                    format!("'{text}' is {value} at u = {:?}", spec.coordinates),
                ));
            }
            axes.push(e);
        }
        object = object.point(point.name.clone(), point.mass, move |u, t, x| {
            for (xd, e) in x.iter_mut().zip(&axes) {
                *xd = e.eval(|i| if i < n { u[i] } else { t });
            }
        });
        if let Some(r) = point.radius {
            non_negative(&format!("{at}.radius"), r)?;
            if let Some(last) = object.points.last_mut() {
                last.radius = r;
            }
        }
    }
    if let Some(u) = used.iter().position(|u| !u) {
        return Err(SceneError::at(
            format!("{path}.points"),
            format!("no point's position depends on u{u}"),
        )
        .hint("every coordinate must move some point, or the object's mass matrix is singular"));
    }
    system
        .add_parametric(object)
        .map_err(|e| SceneError::at(path, e.to_string()))
}

fn finite_all(path: &str, values: &[f64]) -> Result<()> {
    for (i, x) in values.iter().enumerate() {
        finite(&format!("{path}[{i}]"), *x)?;
    }
    Ok(())
}

/// The radius the file gives, or the point's initial distance from the centre, written into the
/// file.
fn radius_or_initial(
    path: &str,
    radius: &mut Option<f64>,
    system: &System,
    p: &Point,
    center: &Motion,
) -> Result<f64> {
    match *radius {
        Some(r) => {
            positive(&format!("{path}.radius"), r)?;
            Ok(r)
        }
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
fn relative_angle(system: &System, a: RigidBodyId, b: Option<RigidBodyId>) -> f64 {
    let theta = |body: RigidBodyId| system.coordinates(body)[2];
    match b {
        Some(b) => theta(b) - theta(a),
        None => theta(a),
    }
}

/// The angle the file gives, or the initial `θ_b − θ_a` (or `θ_a`), written into the file.
fn angle_or_initial(
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
    match *angle {
        Some(x) => {
            finite(&format!("{path}.angle"), x)?;
            Ok(x)
        }
        None => Ok(*angle.insert(relative_angle(system, a, b))),
    }
}

fn pair(path: &str, between: &[PointRef; 2], names: &Names<'_>) -> Result<[Point; 2]> {
    let a = names.point(&format!("{path}.between[0]"), &between[0])?;
    let b = names.point(&format!("{path}.between[1]"), &between[1])?;
    if a == b {
        return Err(SceneError::at(
            format!("{path}.between"),
            "both ends are the same point",
        ));
    }
    Ok([a, b])
}

fn location(path: &str, at: &Location, dim: usize) -> Result<Motion> {
    Ok(match at {
        Location::Fixed(v) => Motion::fixed(&vector(path, v, dim)?),
        Location::Moving(MotionSpec::Linear {
            start,
            velocity,
            acceleration,
        }) => {
            let start = vector(&format!("{path}.start"), start, dim)?;
            let velocity = vector(&format!("{path}.velocity"), velocity, dim)?;
            match acceleration {
                Some(a) => Motion::accelerated(
                    &start,
                    &velocity,
                    &vector(&format!("{path}.acceleration"), a, dim)?,
                ),
                None => Motion::linear(&start, &velocity),
            }
        }
        Location::Moving(MotionSpec::Circle {
            center,
            radius,
            angular_velocity,
            phase,
        }) => {
            let c = vector(&format!("{path}.center"), center, dim)?;
            positive(&format!("{path}.radius"), *radius)?;
            finite(&format!("{path}.angular_velocity"), *angular_velocity)?;
            finite(&format!("{path}.phase"), *phase)?;
            Motion::circle(&c, *radius, *angular_velocity, *phase)
        }
        Location::Moving(MotionSpec::Oscillation {
            center,
            amplitude,
            angular_frequency,
            phase,
        }) => {
            let c = vector(&format!("{path}.center"), center, dim)?;
            let a = vector(&format!("{path}.amplitude"), amplitude, dim)?;
            finite(&format!("{path}.angular_frequency"), *angular_frequency)?;
            finite(&format!("{path}.phase"), *phase)?;
            Motion::oscillation(&c, &a, *angular_frequency, *phase)
        }
    })
}

fn position(system: &System, p: &Point) -> [f64; 3] {
    system.point_position(p).unwrap_or([f64::NAN; 3])
}

fn distance(system: &System, a: &Point, b: &Point) -> f64 {
    let (x, y) = (position(system, a), position(system, b));
    (0..3).map(|i| (x[i] - y[i]).powi(2)).sum::<f64>().sqrt()
}

fn constraint_restitution(spec: &ConstraintSpec) -> Option<f64> {
    match spec {
        ConstraintSpec::HalfPlane { restitution, .. }
        | ConstraintSpec::NonPenetration { restitution, .. }
        | ConstraintSpec::Rope { restitution, .. }
        | ConstraintSpec::Linear { restitution, .. }
        | ConstraintSpec::AngleLimit { restitution, .. }
        | ConstraintSpec::Expression { restitution, .. } => *restitution,
        _ => None,
    }
}

/// A vector of `dim` finite numbers.
fn vector(path: &str, v: &[f64], dim: usize) -> Result<Vec<f64>> {
    if v.len() != dim {
        return Err(SceneError::at(
            path,
            format!("has {} components; the scene is {dim}D", v.len()),
        )
        .hint(format!(
            "give {dim} numbers, like [{}]",
            vec!["0.0"; dim].join(", ")
        )));
    }
    if let Some(i) = v.iter().position(|x| !x.is_finite()) {
        return Err(SceneError::at(
            format!("{path}[{i}]"),
            format!("must be finite, got {}", v[i]),
        )
        .hint("nan and inf are not allowed in vectors"));
    }
    Ok(v.to_vec())
}

/// A non-zero vector of `dim` finite numbers (a direction or a normal).
fn direction(path: &str, v: &[f64], dim: usize) -> Result<Vec<f64>> {
    let v = vector(path, v, dim)?;
    if v.iter().all(|x| *x == 0.0) {
        return Err(SceneError::at(path, "has zero length")
            .hint("a direction or normal needs a non-zero vector"));
    }
    Ok(v)
}

fn finite(path: &str, x: f64) -> Result<()> {
    if x.is_finite() {
        Ok(())
    } else {
        Err(SceneError::at(path, format!("must be finite, got {x}"))
            .hint("nan and inf are not allowed here"))
    }
}

fn positive(path: &str, x: f64) -> Result<()> {
    if x > 0.0 && x.is_finite() {
        return Ok(());
    }
    let hint = if path == "simulation.dt" {
        "a time step in seconds, such as 0.001"
    } else {
        "give a number greater than zero"
    };
    Err(SceneError::at(path, format!("must be positive and finite, got {x}")).hint(hint))
}

fn non_negative(path: &str, x: f64) -> Result<()> {
    if x >= 0.0 && x.is_finite() {
        return Ok(());
    }
    Err(SceneError::at(
        path,
        format!("must be zero or positive and finite, got {x}"),
    )
    .hint("give a number that is zero or more"))
}
