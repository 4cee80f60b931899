//! [`System`]: the one struct a user holds — bodies, forces, constraints, settings — and its
//! [`System::step`].
//!
//! The system owns the generalized state `(t, q, q̇)` (seed 000 §3), the model that defines
//! `q̈(t, q, q̇)` and the integrator that advances it. A step either succeeds, or returns a
//! [`StepError`] and leaves the last good state untouched.

use std::any::Any;

use crate::body::{
    Body, BodyId, BodyKind, Parametric, ParametricId, Particle, ParticleId, RigidBody, RigidBodyId,
};
use crate::constraint::{Constraint, ConstraintId};
use crate::contact::active_set::StepStart;
use crate::derivative::{Evaluator, Layout, Mode};
use crate::diagnostics::{ConstraintReport, Diagnostics};
use crate::draw::{Canvas, Element, Item};
use crate::error::{EvalError, ModelError, StepError, StepFailure, WorstConstraint};
use crate::force::{Force, ForceId};
use crate::integrate::{Integrator, Rk4};
use crate::model::{ConstraintEntry, Model};
use crate::point::{Operand, Point, point_position};
use crate::solve::{ConjugateGradient, LinearSolver, SolveParams};
use crate::stage::Stage;
use crate::view::View;

/// The feedback terms of seed 000 eq. 11: solve for `C̈ = −k_s C − k_d Ċ` instead of `C̈ = 0`,
/// so that drift is pulled back with damping.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Feedback {
    /// Spring constant `k_s`, in 1/s².
    pub ks: f64,
    /// Damping constant `k_d`, in 1/s.
    pub kd: f64,
}

impl Feedback {
    /// Baumgarte's form (seed 004 eq. 5) for a time constant τ in seconds: `k_s = 1/τ²`,
    /// `k_d = 2/τ` (critical damping of the constraint error).
    ///
    /// ```
    /// let f = bead::Feedback::baumgarte(0.1);
    /// assert!((f.ks - 100.0).abs() < 1e-9 && (f.kd - 20.0).abs() < 1e-12);
    /// ```
    pub fn baumgarte(tau: f64) -> Self {
        Feedback {
            ks: 1.0 / (tau * tau),
            kd: 2.0 / tau,
        }
    }

    /// No feedback: the constraints are held at the acceleration level only, and drift.
    pub fn none() -> Self {
        Feedback { ks: 0.0, kd: 0.0 }
    }
}

impl Default for Feedback {
    /// Baumgarte with τ = 0.1 s (`k_s = 100`, `k_d = 20`).
    fn default() -> Self {
        Feedback::baumgarte(0.1)
    }
}

/// Post-step projection of `q` and `q̇` back onto the constraint manifold.
///
/// After each step: Newton iterations `q ← q − W Jᵀ (J W Jᵀ)⁻¹ C` until `max |C| ≤ tolerance`,
/// then `q̇ ← q̇ − W Jᵀ (J W Jᵀ)⁻¹ Ċ`. Mass-weighted, so the correction is the smallest in kinetic
/// metric. For users who want zero drift rather than Baumgarte feedback.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Projection {
    /// Newton iterations at most.
    pub max_iterations: usize,
    /// Target `max |C|`, in the constraints' units (metres for the built-ins).
    pub tolerance: f64,
}

impl Default for Projection {
    fn default() -> Self {
        Projection {
            max_iterations: 10,
            tolerance: 1e-12,
        }
    }
}

/// Settings of the multiplier solve and of constraint stabilization.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    /// Feedback gains of eq. 11.
    pub feedback: Feedback,
    /// Tolerance and iteration cap of the λ solve.
    pub solve: SolveParams,
    /// Post-step projection, off by default.
    pub projection: Option<Projection>,
    /// How inequality constraints are chosen to take part (seed 004).
    pub inequality: crate::contact::InequalityMethod,
    /// An inequality row counts as active when `g ≤ contact_tolerance` (metres for the
    /// built-ins).
    pub contact_tolerance: f64,
    /// How impacts are found and resolved: located inside steps (the default), speculative
    /// (time-stepping, for piles), or off (see [`crate::contact::Impacts`]).
    pub impacts: crate::contact::Impacts,
    /// Coefficient of restitution of inequality constraints that do not set their own (0 to 1).
    pub restitution: f64,
    /// Impacts slower than this (m/s for the built-ins) are perfectly inelastic, so that a
    /// bouncing ball comes to rest after finitely many bounces instead of a Zeno cascade.
    pub rest_speed: f64,
    /// The rate, in 1/s, at which velocity-level rows (motors) remove a speed error: their target
    /// is `C̈ = −r Ċ`, whatever the feedback gains of the position rows. `None` (the default) is
    /// `1/dt` of the step being taken, so that a motor strong enough reaches its speed within
    /// about one step, as the motors of Box2D and most game engines do; a given rate is capped at
    /// `1/dt` too, beyond which the explicit integrators would overshoot.
    pub motor_rate: Option<f64>,
    /// A step fails as diverged when the constraint error max |C| (equalities, and inequalities
    /// below zero) exceeds this, in the constraints' units (metres and radians for the
    /// built-ins). An unstable integration stays finite long after its numbers stop meaning
    /// anything; this reports it as soon as a rod is off by more than a metre. Raise it for
    /// models whose constraints are legitimately that far from satisfied (a model kilometres
    /// wide, or one started far off its constraints on purpose); `f64::INFINITY` turns the check
    /// off.
    pub divergence_limit: f64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            feedback: Feedback::default(),
            solve: SolveParams::default(),
            projection: None,
            inequality: crate::contact::InequalityMethod::default(),
            contact_tolerance: 1e-9,
            impacts: crate::contact::Impacts::Located,
            restitution: 0.0,
            rest_speed: 1e-3,
            motor_rate: None,
            divergence_limit: 1.0,
        }
    }
}

/// What one step did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepStats {
    /// Derivative evaluations (4 for RK4).
    pub evaluations: usize,
    /// Largest solver iteration count among them.
    pub solver_iterations: usize,
    /// Largest final relative residual among them.
    pub solver_residual: f64,
    /// Most multiplier solves one evaluation needed to choose its inequality rows (Jonquet's
    /// passes, or the complementarity pivots); 1 without inequality constraints.
    pub active_set_passes: usize,
}

/// A constrained dynamical system: the facade of bead.
///
/// ```
/// use bead::{constraint::Distance, force::Gravity, Particle, System};
///
/// // A simple pendulum: an anchor, a bob, a rod.
/// let mut sys = System::new(2)?;
/// let pivot = sys.add_particle(Particle::anchor(&[0.0, 0.0]))?;
/// let bob = sys.add_particle(Particle::new(&[1.0, 0.0]).mass(2.0))?;
/// sys.add_force(Gravity::new(&[0.0, -9.81]))?;
/// let rod = sys.add_constraint(Distance::new(pivot, bob, 1.0))?;
///
/// for _ in 0..1000 {
///     sys.step(0.001).expect("a pendulum does not diverge");
/// }
/// let d = sys.diagnostics().unwrap();
/// assert!(d.max_abs_c < 1e-8);
/// // The rod's force: λ < 0 is tension.
/// assert!(d.constraint(rod).unwrap().lambda[0] < 0.0);
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Debug)]
pub struct System {
    pub(crate) model: Model,
    pub(crate) t: f64,
    pub(crate) q: Vec<f64>,
    pub(crate) v: Vec<f64>,
    pub(crate) q_next: Vec<f64>,
    pub(crate) v_next: Vec<f64>,
    pub(crate) steps: u64,
    pub(crate) settings: Settings,
    pub(crate) integrator: Box<dyn Integrator>,
    pub(crate) evaluator: Evaluator,
    /// The layout must be rebuilt before the next evaluation.
    pub(crate) layout_stale: bool,
    /// `q̈` at the current state, if already evaluated (reused as the next step's first stage).
    pub(crate) current_acceleration: Option<Vec<f64>>,
    /// The step size the model is advanced with (the last step's, or one announced with
    /// [`System::set_time_step`]); motors aim to reach their speed within about one such step.
    pub(crate) time_step: Option<f64>,
    /// Groups of particles kept apart by generated non-penetration constraints.
    pub(crate) contact_groups: Vec<crate::contact::ContactGroup>,
    /// λ of the implicit step that reached the current state: the forces it applied, which
    /// [`System::diagnostics`] reports rather than the acceleration-level λ of the state.
    pub(crate) step_lambda: Option<Vec<f64>>,
}

impl System {
    /// An empty `dim`-dimensional system (2 or 3), integrated with RK4 and solved by CG.
    pub fn new(dim: usize) -> Result<System, ModelError> {
        if dim != 2 && dim != 3 {
            return Err(ModelError::Dimension(dim));
        }
        Ok(System {
            model: Model::new(dim),
            t: 0.0,
            q: Vec::new(),
            v: Vec::new(),
            q_next: Vec::new(),
            v_next: Vec::new(),
            steps: 0,
            settings: Settings::default(),
            integrator: Box::new(Rk4::default()),
            evaluator: Evaluator::new(Box::new(ConjugateGradient::default())),
            layout_stale: true,
            current_acceleration: None,
            time_step: None,
            contact_groups: Vec::new(),
            step_lambda: None,
        })
    }

    /// Dimension of the space (2 or 3).
    pub fn dim(&self) -> usize {
        self.model.dim
    }

    /// Current time, in seconds.
    pub fn time(&self) -> f64 {
        self.t
    }

    /// Sets the current time, in seconds (time-dependent constraints read it).
    pub fn set_time(&mut self, t: f64) {
        self.t = t;
        self.state_changed();
    }

    /// Number of steps taken so far.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// The generalized coordinates `q`.
    pub fn q(&self) -> &[f64] {
        &self.q
    }

    /// The generalized velocities `q̇`.
    pub fn q_dot(&self) -> &[f64] {
        &self.v
    }

    /// Settings of the λ solve and stabilization.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Changes the settings (takes effect at the next evaluation).
    pub fn set_settings(&mut self, settings: Settings) -> Result<(), ModelError> {
        let f = settings.feedback;
        if !(f.ks >= 0.0 && f.kd >= 0.0 && f.ks.is_finite() && f.kd.is_finite()) {
            return Err(ModelError::Setting(format!(
                "feedback gains must be non-negative and finite, got {f:?}"
            )));
        }
        if !(settings.solve.tolerance > 0.0 && settings.solve.tolerance.is_finite()) {
            return Err(ModelError::Setting(format!(
                "solver tolerance must be positive, got {}",
                settings.solve.tolerance
            )));
        }
        if !(settings.divergence_limit > 0.0) {
            return Err(ModelError::Setting(format!(
                "the divergence limit must be positive, got {}",
                settings.divergence_limit
            )));
        }
        if !(settings.contact_tolerance > 0.0 && settings.contact_tolerance.is_finite()) {
            return Err(ModelError::Setting(format!(
                "the contact tolerance must be positive, got {}",
                settings.contact_tolerance
            )));
        }
        if let Some(r) = settings.motor_rate
            && !(r > 0.0)
        {
            return Err(ModelError::Setting(format!(
                "the motor rate must be positive, got {r}"
            )));
        }
        if let Some(p) = settings.projection
            && (!(p.tolerance > 0.0 && p.tolerance.is_finite()) || p.max_iterations == 0)
        {
            return Err(ModelError::Setting(format!(
                "projection needs a positive tolerance and iterations: {p:?}"
            )));
        }
        self.settings = settings;
        self.state_changed();
        Ok(())
    }

    /// Replaces the integrator.
    pub fn set_integrator(&mut self, integrator: impl Integrator + 'static) {
        self.set_integrator_boxed(Box::new(integrator));
    }

    /// Replaces the integrator (boxed form, for choices made at run time).
    pub fn set_integrator_boxed(&mut self, integrator: Box<dyn Integrator>) {
        self.integrator = integrator;
    }

    /// The integrator's name.
    pub fn integrator(&self) -> &dyn Integrator {
        self.integrator.as_ref()
    }

    /// Replaces the λ solver.
    pub fn set_solver(&mut self, solver: impl LinearSolver + 'static) {
        self.set_solver_boxed(Box::new(solver));
    }

    /// Replaces the λ solver (boxed form).
    pub fn set_solver_boxed(&mut self, solver: Box<dyn LinearSolver>) {
        self.evaluator.solver = solver;
        self.state_changed();
    }

    /// The λ solver.
    pub fn solver(&self) -> &dyn LinearSolver {
        self.evaluator.solver.as_ref()
    }

    // ----- bodies -----

    /// Adds a particle; its position (and velocity, if given) must have `dim` finite components.
    pub fn add_particle(&mut self, particle: Particle) -> Result<ParticleId, ModelError> {
        let dim = self.model.dim;
        check_vector("particle position", &particle.position, dim)?;
        let velocity = if particle.velocity.is_empty() {
            vec![0.0; dim]
        } else {
            particle.velocity.clone()
        };
        check_vector("particle velocity", &velocity, dim)?;
        if !(particle.mass > 0.0) || particle.mass.is_nan() {
            return Err(ModelError::Mass(particle.mass));
        }
        if !(particle.radius >= 0.0 && particle.radius.is_finite()) {
            return Err(ModelError::Radius(particle.radius));
        }
        let body = Body {
            kind: BodyKind::Particle,
            offset: self.q.len(),
            ndof: dim,
            mass: particle.mass,
            radius: particle.radius,
        };
        self.q.extend_from_slice(&particle.position);
        self.v.extend_from_slice(&velocity);
        self.model.bodies.push(Some(body));
        self.structure_changed();
        Ok(ParticleId(BodyId(self.model.bodies.len() - 1)))
    }

    /// Adds a 2D rigid body (2D systems only).
    pub fn add_rigid_body(&mut self, body: RigidBody) -> Result<RigidBodyId, ModelError> {
        if self.model.dim != 2 {
            return Err(ModelError::Setting(
                "rigid bodies are 2D; this system is 3D".into(),
            ));
        }
        check_vector("rigid body position", &body.position, 2)?;
        let velocity = if body.velocity.is_empty() {
            vec![0.0; 2]
        } else {
            body.velocity.clone()
        };
        check_vector("rigid body velocity", &velocity, 2)?;
        if !body.angle.is_finite() {
            return Err(ModelError::NonFinite("rigid body angle"));
        }
        if !body.angular_velocity.is_finite() {
            return Err(ModelError::NonFinite("rigid body angular velocity"));
        }
        if let Some(shape) = &body.shape
            && body.mass.is_nan()
        {
            // `RigidBody::shape` could not derive the mass: say why.
            let reason = shape
                .mass_properties(1.0)
                .err()
                .unwrap_or_else(|| "invalid density".into());
            return Err(ModelError::Setting(format!("rigid body shape: {reason}")));
        }
        if !(body.mass > 0.0) || body.mass.is_nan() {
            return Err(ModelError::Mass(body.mass));
        }
        if !(body.inertia > 0.0) || body.inertia.is_nan() {
            return Err(ModelError::Setting(format!(
                "moment of inertia must be positive (or infinity), got {}",
                body.inertia
            )));
        }
        let entry = Body {
            kind: BodyKind::Rigid2d {
                inertia: body.inertia,
                shape: body.shape.clone(),
            },
            offset: self.q.len(),
            ndof: 3,
            mass: body.mass,
            radius: 0.0,
        };
        self.q
            .extend_from_slice(&[body.position[0], body.position[1], body.angle]);
        self.v
            .extend_from_slice(&[velocity[0], velocity[1], body.angular_velocity]);
        self.model.bodies.push(Some(entry));
        self.structure_changed();
        Ok(RigidBodyId(BodyId(self.model.bodies.len() - 1)))
    }

    /// Adds a parametric object (seed 000 §5): its coordinates `u`, rates `u̇` and mass points.
    /// Its points must be named uniquely, with positive finite masses, and give finite
    /// positions of the system's dimension at the initial `u`, where its generalized mass must
    /// be regular.
    ///
    /// ```
    /// use bead::autodiff::DualNum;
    /// use bead::{Parametric, System};
    /// let mut sys = System::new(3)?;
    /// let helix = sys.add_parametric(Parametric::new(&[0.0]).point("bead", 1.0, |u, _t, x| {
    ///     x[0] = u[0].cos();
    ///     x[1] = u[0].sin();
    ///     x[2] = u[0] * 0.2;
    /// }))?;
    /// let bead = sys.parametric_point(helix, "bead")?;
    /// assert_eq!(sys.point_position(&bead)?, [1.0, 0.0, 0.0]);
    /// # Ok::<(), bead::ModelError>(())
    /// ```
    pub fn add_parametric(&mut self, object: Parametric) -> Result<ParametricId, ModelError> {
        let dim = self.model.dim;
        let n = object.coordinates.len();
        let what =
            |s: String| ModelError::Setting(format!("parametric object '{}': {s}", object.name));
        if n == 0 {
            return Err(what("it needs at least one coordinate".into()));
        }
        if object.points.is_empty() {
            return Err(what("it needs at least one mass point".into()));
        }
        if object.coordinates.iter().any(|x| !x.is_finite()) {
            return Err(what(format!(
                "coordinates {:?} are not all finite",
                object.coordinates
            )));
        }
        let rates = if object.rates.is_empty() {
            vec![0.0; n]
        } else {
            object.rates.clone()
        };
        if rates.len() != n {
            return Err(what(format!(
                "{} rates given for {n} coordinates",
                rates.len()
            )));
        }
        if rates.iter().any(|x| !x.is_finite()) {
            return Err(what(format!("rates {rates:?} are not all finite")));
        }
        for (k, p) in object.points.iter().enumerate() {
            if !(p.mass > 0.0 && p.mass.is_finite()) {
                return Err(what(format!(
                    "point '{}' has mass {}; it must be positive and finite",
                    p.name, p.mass
                )));
            }
            if !(p.radius >= 0.0 && p.radius.is_finite()) {
                return Err(ModelError::Radius(p.radius));
            }
            if object.points[..k].iter().any(|o| o.name == p.name) {
                return Err(what(format!("two points are named '{}'", p.name)));
            }
            let mut x = [0.0; 3];
            p.position(&object.coordinates, self.t, &mut x[..dim]);
            if x.iter().any(|x| !x.is_finite()) {
                return Err(what(format!(
                    "point '{}' is not finite at u = {:?}",
                    p.name, object.coordinates
                )));
            }
        }
        let mass: f64 = object.points.iter().map(|p| p.mass).sum();
        // The generalized mass at the start must be regular: check it now, where the error can
        // say so, rather than at the first step.
        let mut m = vec![0.0; n * n];
        let scale = crate::body::generalized_mass(
            &object.points,
            dim,
            &object.coordinates,
            &rates,
            self.t,
            &mut m,
            &mut vec![0.0; n],
        );
        if crate::inverse_mass::spd_inverse(&m, n, scale).is_none() {
            return Err(what(format!(
                "its generalized mass is singular at u = {:?} (some change of u moves none of its points)",
                object.coordinates
            )));
        }
        let body = Body {
            kind: BodyKind::Parametric {
                name: object.name.clone(),
                points: object.points.clone(),
                dim,
                trace: object.trace,
            },
            offset: self.q.len(),
            ndof: n,
            mass,
            radius: object.points.iter().fold(0.0, |r, p| r.max(p.radius)),
        };
        self.q.extend_from_slice(&object.coordinates);
        self.v.extend_from_slice(&rates);
        self.model.bodies.push(Some(body));
        self.structure_changed();
        Ok(ParametricId(BodyId(self.model.bodies.len() - 1)))
    }

    /// The point named `name` of a parametric object.
    pub fn parametric_point(&self, object: ParametricId, name: &str) -> Result<Point, ModelError> {
        let body = self.body(object.0)?;
        match &body.kind {
            BodyKind::Parametric {
                points,
                name: object_name,
                ..
            } => points
                .iter()
                .position(|p| p.name == name)
                .map(|index| Point::OfObject {
                    body: object.0,
                    index,
                })
                .ok_or_else(|| {
                    ModelError::Setting(format!(
                        "parametric object '{object_name}' has no point '{name}' (it has {})",
                        points
                            .iter()
                            .map(|p| p.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ))
                }),
            _ => Err(ModelError::UnknownBody(object.0)),
        }
    }

    /// The rigid bodies, in the order they were added.
    pub fn rigid_bodies(&self) -> impl Iterator<Item = RigidBodyId> + '_ {
        self.model
            .bodies
            .iter()
            .enumerate()
            .filter_map(|(i, b)| match b.as_ref()?.kind {
                BodyKind::Rigid2d { .. } => Some(RigidBodyId(BodyId(i))),
                _ => None,
            })
    }

    /// A body's generalized coordinates (a particle's position; a rigid body's `[x, y, θ]`).
    ///
    /// # Panics
    /// If `body` is a handle of another system.
    pub fn coordinates(&self, body: impl Into<BodyId>) -> &[f64] {
        self.model.body(body.into().0).slice(&self.q)
    }

    /// A body's slice of any global vector laid out like `q` (`q̇`, `q̈`, forces).
    ///
    /// # Panics
    /// If `body` is a handle of another system, or `global` is shorter than `q`.
    pub fn body_slice<'a>(&self, body: impl Into<BodyId>, global: &'a [f64]) -> &'a [f64] {
        self.model.body(body.into().0).slice(global)
    }

    /// A body's generalized velocities (a rigid body's `[vx, vy, ω]`).
    ///
    /// # Panics
    /// If `body` is a handle of another system.
    pub fn coordinate_velocities(&self, body: impl Into<BodyId>) -> &[f64] {
        self.model.body(body.into().0).slice(&self.v)
    }

    /// A body's radius, in metres.
    pub fn radius(&self, body: BodyId) -> Result<f64, ModelError> {
        Ok(self.body(body)?.radius)
    }

    /// Checks that a point refers to a body of this system that can carry it.
    fn check_point(&self, point: &Point) -> Result<(), ModelError> {
        let body = self.body(point.body())?;
        if !crate::point::point_fits(point, body) {
            return Err(ModelError::Constraint(format!(
                "{point:?}: a point in a body's frame needs a rigid body, and a particle's point a particle"
            )));
        }
        if let Point::OnBody { local, .. } = point
            && !local.iter().all(|x| x.is_finite())
        {
            return Err(ModelError::NonFinite("a body point's local coordinates"));
        }
        Ok(())
    }

    fn body(&self, id: BodyId) -> Result<&Body, ModelError> {
        self.model
            .bodies
            .get(id.0)
            .and_then(|b| b.as_ref())
            .ok_or(ModelError::UnknownBody(id))
    }

    /// The particles, in the order they were added.
    pub fn particles(&self) -> impl Iterator<Item = ParticleId> + '_ {
        self.model
            .bodies
            .iter()
            .enumerate()
            .filter_map(|(i, b)| match b.as_ref()?.kind {
                BodyKind::Particle => Some(ParticleId(BodyId(i))),
                _ => None,
            })
    }

    /// A particle's position, in metres.
    ///
    /// # Panics
    /// If `p` is a handle of another system.
    pub fn position(&self, p: ParticleId) -> &[f64] {
        self.model.body(p.0.0).slice(&self.q)
    }

    /// A particle's velocity, in metres per second.
    ///
    /// # Panics
    /// If `p` is a handle of another system.
    pub fn velocity(&self, p: ParticleId) -> &[f64] {
        self.model.body(p.0.0).slice(&self.v)
    }

    /// A body's mass, in kilograms (`f64::INFINITY` for an anchor).
    pub fn mass(&self, body: BodyId) -> Result<f64, ModelError> {
        Ok(self.body(body)?.mass)
    }

    /// Moves a particle (the constraints' feedback, or projection, pulls it back if that breaks them).
    pub fn set_position(&mut self, p: ParticleId, position: &[f64]) -> Result<(), ModelError> {
        check_vector("particle position", position, self.model.dim)?;
        let body = self.body(p.0)?.clone();
        body.slice_mut(&mut self.q).copy_from_slice(position);
        self.state_changed();
        Ok(())
    }

    /// Sets any body's generalized coordinates (a particle's position, a rigid body's
    /// `[x, y, θ]`, a parametric object's `u`); they must be finite and as many as it has.
    pub fn set_coordinates(
        &mut self,
        body: impl Into<BodyId>,
        coordinates: &[f64],
    ) -> Result<(), ModelError> {
        let body = self.body_for(body.into(), coordinates, "coordinates")?;
        body.slice_mut(&mut self.q).copy_from_slice(coordinates);
        self.state_changed();
        Ok(())
    }

    /// Sets any body's generalized velocities `q̇` (finite, as many as its coordinates).
    pub fn set_coordinate_velocities(
        &mut self,
        body: impl Into<BodyId>,
        velocities: &[f64],
    ) -> Result<(), ModelError> {
        let body = self.body_for(body.into(), velocities, "velocities")?;
        body.slice_mut(&mut self.v).copy_from_slice(velocities);
        self.state_changed();
        Ok(())
    }

    /// The body `id`, checked to take `values` (finite, one per coordinate).
    fn body_for(&self, id: BodyId, values: &[f64], what: &'static str) -> Result<Body, ModelError> {
        let body = self.body(id)?.clone();
        if values.len() != body.ndof {
            return Err(ModelError::Setting(format!(
                "{} {what} given for a body that has {} coordinates",
                values.len(),
                body.ndof
            )));
        }
        if values.iter().any(|x| !x.is_finite()) {
            return Err(ModelError::NonFinite(what));
        }
        Ok(body)
    }

    /// Sets a particle's velocity, in metres per second.
    pub fn set_velocity(&mut self, p: ParticleId, velocity: &[f64]) -> Result<(), ModelError> {
        check_vector("particle velocity", velocity, self.model.dim)?;
        let body = self.body(p.0)?.clone();
        body.slice_mut(&mut self.v).copy_from_slice(velocity);
        self.state_changed();
        Ok(())
    }

    /// Changes a body's mass (kg; infinity makes it an anchor).
    pub fn set_mass(&mut self, body: BodyId, mass: f64) -> Result<(), ModelError> {
        if !(mass > 0.0) || mass.is_nan() {
            return Err(ModelError::Mass(mass));
        }
        self.body(body)?;
        if let Some(Some(b)) = self.model.bodies.get_mut(body.0) {
            b.mass = mass;
        }
        self.structure_changed();
        Ok(())
    }

    /// World position of any point, in metres (components past the dimension are 0).
    pub fn point_position(&self, point: &Point) -> Result<[f64; 3], ModelError> {
        Ok(point_position(
            point,
            self.body(point.body())?,
            self.t,
            &self.q,
        ))
    }

    // ----- forces -----

    /// Adds a force.
    pub fn add_force(&mut self, force: impl Force) -> Result<ForceId, ModelError> {
        self.add_force_boxed(Box::new(force))
    }

    /// Adds a boxed force.
    pub fn add_force_boxed(&mut self, force: Box<dyn Force>) -> Result<ForceId, ModelError> {
        force
            .check(self.model.dim)
            .map_err(|e| ModelError::ForceParameter(Box::new(e)))?;
        for p in force.points() {
            self.check_point(&p)?;
        }
        self.model.forces.push(Some(force));
        self.state_changed();
        Ok(ForceId(self.model.forces.len() - 1))
    }

    /// The force `id`, if it is of type `F` (for example to move a [`MouseSpring`](crate::force::MouseSpring)'s target).
    pub fn force_mut<F: Force>(&mut self, id: ForceId) -> Option<&mut F> {
        self.state_changed();
        let force: &mut dyn Any = self.model.forces.get_mut(id.0)?.as_deref_mut()?;
        force.downcast_mut::<F>()
    }

    /// Removes a force; returns whether it existed.
    pub fn remove_force(&mut self, id: ForceId) -> bool {
        let existed = self
            .model
            .forces
            .get_mut(id.0)
            .and_then(Option::take)
            .is_some();
        self.state_changed();
        existed
    }

    // ----- constraints -----

    /// Adds a constraint, named `c<index>` until [`System::set_constraint_name`] says otherwise.
    pub fn add_constraint(
        &mut self,
        constraint: impl Constraint,
    ) -> Result<ConstraintId, ModelError> {
        self.add_constraint_boxed(Box::new(constraint))
    }

    /// Adds a boxed constraint.
    pub fn add_constraint_boxed(
        &mut self,
        constraint: Box<dyn Constraint>,
    ) -> Result<ConstraintId, ModelError> {
        let dim = self.model.dim;
        constraint
            .check(dim)
            .map_err(|e| ModelError::ConstraintParameter(Box::new(e)))?;
        let operands = constraint.operands();
        if operands.is_empty() {
            return Err(ModelError::Constraint(
                "a constraint needs at least one operand".into(),
            ));
        }
        for op in &operands {
            match op {
                Operand::Point(p) => self.check_point(p)?,
                _ => {
                    // Body coordinates are a rigid body's [x, y, θ]; a particle's are its point.
                    if !matches!(self.body(op.body())?.kind, BodyKind::Rigid2d { .. }) {
                        return Err(ModelError::Constraint(format!(
                            "{:?} is not a rigid body: angle joints need rigid bodies",
                            op.body()
                        )));
                    }
                }
            }
        }
        let rows = constraint.rows(dim);
        if rows == 0 {
            return Err(ModelError::Constraint(
                "a constraint needs at least one row".into(),
            ));
        }
        let id = self
            .model
            .constraints
            .insert(|id| ConstraintEntry {
                constraint,
                name: format!("c{}", id.index()),
                operands,
                rows,
                restitution: None,
            })
            .ok_or_else(|| ModelError::Constraint("the system holds 2³² constraints".into()))?;
        self.structure_changed();
        Ok(id)
    }

    /// Renames a constraint (names appear in reports and errors).
    pub fn set_constraint_name(
        &mut self,
        id: ConstraintId,
        name: impl Into<String>,
    ) -> Result<(), ModelError> {
        let entry = self.entry_mut(id)?;
        entry.name = name.into();
        Ok(())
    }

    /// Sets the coefficient of restitution (0 to 1) of an inequality constraint's impacts.
    pub fn set_restitution(
        &mut self,
        id: ConstraintId,
        restitution: f64,
    ) -> Result<(), ModelError> {
        if !(0.0..=1.0).contains(&restitution) {
            return Err(ModelError::Setting(format!(
                "restitution must be in [0, 1], got {restitution}"
            )));
        }
        self.entry_mut(id)?.restitution = Some(restitution);
        Ok(())
    }

    /// A constraint's name.
    pub fn constraint_name(&self, id: ConstraintId) -> Result<&str, ModelError> {
        self.model
            .constraints
            .get(id)
            .map(|e| e.name.as_str())
            .ok_or(ModelError::UnknownConstraint(id))
    }

    fn entry_mut(&mut self, id: ConstraintId) -> Result<&mut ConstraintEntry, ModelError> {
        self.model
            .constraints
            .get_mut(id)
            .ok_or(ModelError::UnknownConstraint(id))
    }

    /// The constraint `id`, if it is of type `C` (for example to change a rod's length).
    pub fn constraint_mut<C: Constraint>(&mut self, id: ConstraintId) -> Option<&mut C> {
        self.state_changed();
        let entry = self.model.constraints.get_mut(id)?;
        let c: &mut dyn Any = entry.constraint.as_mut();
        c.downcast_mut::<C>()
    }

    /// Removes a constraint; returns whether it existed. Its slot may be reused by a constraint
    /// added later, under a new handle.
    pub fn remove_constraint(&mut self, id: ConstraintId) -> bool {
        let existed = self.model.constraints.remove(id);
        self.structure_changed();
        existed
    }

    /// The constraints, in slot order (the order they were added, while none is removed).
    pub fn constraints(&self) -> impl Iterator<Item = ConstraintId> + '_ {
        self.model.constraints.iter().map(|(id, _)| id)
    }

    /// Constraint slots, live or free: what the model's memory grows with. A long run whose
    /// contact pairs come and go keeps it at the most pairs alive at once.
    pub fn constraint_slots(&self) -> usize {
        self.model.constraints.capacity()
    }

    /// Number of constraint rows (the length of `C` and `λ`).
    pub fn constraint_rows(&self) -> usize {
        self.model.constraints.iter().map(|(_, e)| e.rows).sum()
    }

    // ----- stepping -----

    fn structure_changed(&mut self) {
        self.layout_stale = true;
        self.state_changed();
    }

    fn state_changed(&mut self) {
        self.current_acceleration = None;
        self.step_lambda = None;
    }

    pub(crate) fn ensure_layout(&mut self) {
        if self.layout_stale {
            let layout = Layout::build(&self.model, self.q.len());
            self.evaluator.set_layout(layout, self.q.len());
            self.layout_stale = false;
        }
    }

    /// Advances the state by `dt` seconds with the integrator.
    ///
    /// On error the state is left as it was before the call, and the error names the time, the
    /// step and the constraint furthest from satisfied.
    pub fn step(&mut self, dt: f64) -> Result<StepStats, StepError> {
        self.advance(dt, self.t + dt)
    }

    /// Steps to the time `t_end` exactly (one step of `t_end − t`), so that a run's times read
    /// `k·dt` rather than a sum of rounded increments.
    ///
    /// ```
    /// let (mut sys, _, _) = bead::models::pendulum(1.0, 0.1, 1.0)?;
    /// for k in 1..=10 {
    ///     sys.step_to(k as f64 * 0.1).unwrap();
    /// }
    /// assert_eq!(sys.time(), 1.0);
    /// # Ok::<(), bead::ModelError>(())
    /// ```
    pub fn step_to(&mut self, t_end: f64) -> Result<StepStats, StepError> {
        self.advance(t_end - self.t, t_end)
    }

    fn advance(&mut self, dt: f64, t_end: f64) -> Result<StepStats, StepError> {
        if !(dt > 0.0 && dt.is_finite()) {
            return Err(self.step_error(StepFailure::InvalidStep(dt)));
        }
        self.announce_time_step(dt);
        if !self.contact_groups.is_empty()
            && let Err(e) = self.update_contacts(dt)
        {
            return Err(self.step_error(StepFailure::BroadPhase(e)));
        }
        self.ensure_layout();
        // Platt's and the improved algorithm decide F⁺ for the next step from the λ and q̈ of this
        // step's start (seed 004 Alg. 1-2); that evaluation is the integrator's first stage anyway.
        // The implicit stepper holds its contacts at the step's end: no handled set to carry
        // from step to step, no impact to locate inside the step.
        let implicit = self.integrator.implicit();
        let persistent = !implicit
            && self.settings.inequality.persistent()
            && self.evaluator.layout.inequality.contains(&true);
        let start = if persistent {
            self.evaluate_current()?;
            let ev = &self.evaluator;
            Some(StepStart {
                lambda: ev.lambda.clone(),
                w: ev.tendency.clone(),
                candidates: ev.candidates.clone(),
                eps: ev.eps,
            })
        } else {
            None
        };
        let impacts = if implicit || !self.evaluator.layout.inequality.contains(&true) {
            crate::contact::Impacts::Off
        } else {
            self.settings.impacts
        };
        let stats = match impacts {
            crate::contact::Impacts::Located => self.advance_with_events(t_end)?,
            crate::contact::Impacts::Speculative => self.advance_speculative(t_end)?,
            crate::contact::Impacts::Off => self.integrate_to(t_end)?,
        };
        self.steps += 1;
        if let Some(start) = start {
            self.update_handled_set(&start)?;
        }
        Ok(stats)
    }

    /// Records the step size the model is advanced with. A cached evaluation at the current state
    /// was made for the old one (a motor's rate depends on it): drop it if the size really changed
    /// (not for the rounding differences between `k·dt` and `(k − 1)·dt` of [`System::step_to`]).
    fn announce_time_step(&mut self, dt: f64) {
        if self.time_step.is_none_or(|h| (h - dt).abs() > 1e-9 * h) {
            self.time_step = Some(dt);
            self.state_changed();
        }
    }

    /// Announces the step size the model will be advanced with, in seconds, before the first
    /// step: motors (velocity-level rows) aim to reach their speed within about one step (see
    /// [`Settings::motor_rate`]), so a query at the initial state ([`System::diagnostics`])
    /// reports the torque the first step will apply. Every step sets it too.
    ///
    /// ```
    /// let (mut sys, _, _) = bead::models::pendulum(1.0, 0.1, 1.0)?;
    /// sys.set_time_step(1e-3)?;
    /// assert_eq!(sys.time_step(), Some(1e-3));
    /// # Ok::<(), bead::ModelError>(())
    /// ```
    pub fn set_time_step(&mut self, dt: f64) -> Result<(), ModelError> {
        if !(dt > 0.0 && dt.is_finite()) {
            return Err(ModelError::Setting(format!(
                "the time step must be positive and finite, got {dt}"
            )));
        }
        self.announce_time_step(dt);
        Ok(())
    }

    /// The step size the model is advanced with, in seconds: the last step's, or the one
    /// announced with [`System::set_time_step`]; `None` before either.
    pub fn time_step(&self) -> Option<f64> {
        self.time_step
    }

    /// How evaluations treat velocity rows: their rate, `1/dt` unless the settings ask for less
    /// (no correction at all before any step size is known).
    fn velocity_rate(&self) -> f64 {
        let step_rate = self.time_step.map_or(0.0, |h| 1.0 / h);
        match self.settings.motor_rate {
            Some(r) if self.time_step.is_some() => r.min(step_rate),
            Some(r) => r,
            None => step_rate,
        }
    }

    /// One integrator step from the current state to `t_end`, committed (with projection, if on).
    pub(crate) fn integrate_to(&mut self, t_end: f64) -> Result<StepStats, StepError> {
        let dt = t_end - self.t;
        if !(dt > 0.0) {
            return Ok(StepStats::default());
        }
        self.q_next.resize(self.q.len(), 0.0);
        self.v_next.resize(self.v.len(), 0.0);
        let mut stats = StepStats::default();
        let velocity_rate = self.velocity_rate();
        let mut stage = Stage {
            model: &self.model,
            evaluator: &mut self.evaluator,
            settings: &self.settings,
            stats: &mut stats,
            first: self.current_acceleration.take(),
            started: false,
            velocity_rate,
            assembled_t: self.t,
            assembled_q: Vec::new(),
        };
        let result = self.integrator.step(
            &mut stage,
            self.t,
            dt,
            &self.q,
            &self.v,
            &mut self.q_next,
            &mut self.v_next,
        );
        if let Err(e) = result {
            return Err(self.step_error(e.into()));
        }
        if !crate::vector::all_finite(&self.q_next) || !crate::vector::all_finite(&self.v_next) {
            return Err(self.step_error(StepFailure::Diverged));
        }
        if let Some(projection) = self.settings.projection {
            let t = t_end;
            let outcome = self.evaluator.project(
                &self.model,
                &self.settings,
                &projection,
                t,
                &mut self.q_next,
                &mut self.v_next,
            );
            if let Err(failure) = outcome {
                return Err(self.step_error(failure));
            }
        }
        std::mem::swap(&mut self.q, &mut self.q_next);
        std::mem::swap(&mut self.v, &mut self.v_next);
        self.t = t_end;
        self.state_changed();
        if self.integrator.implicit() {
            self.step_lambda = Some(self.evaluator.lambda.clone());
        }
        Ok(stats)
    }

    /// Seed 004 Alg. 1 (Platt) and Alg. 2 (improved), lines 3-9, after a step (see
    /// [`crate::contact`]).
    fn update_handled_set(&mut self, start: &StepStart) -> Result<(), StepError> {
        // g at the new state.
        let (t, q, v) = (self.t, self.q.clone(), self.v.clone());
        if let Err(e) = self.evaluator.evaluate_constraints(&self.model, t, &q, &v) {
            return Err(self.step_error(e.into()));
        }
        let ev = &mut self.evaluator;
        ev.active.after_step(
            self.settings.inequality,
            start,
            &ev.c,
            &ev.layout.inequality,
        );
        self.state_changed();
        Ok(())
    }

    pub(crate) fn step_error(&self, cause: StepFailure) -> StepError {
        let worst = self
            .evaluator
            .layout
            .constraints
            .iter()
            .filter(|slot| slot.rows.end <= self.evaluator.c.len())
            .filter_map(|slot| {
                let entry = self.model.constraints.get(slot.id)?;
                // An inequality's error is its violation: a gap is not an error.
                let abs_c = slot
                    .rows
                    .clone()
                    .map(|i| {
                        let c = self.evaluator.c[i];
                        if self.evaluator.layout.inequality[i] {
                            (-c).max(0.0)
                        } else {
                            c.abs()
                        }
                    })
                    .fold(0.0_f64, f64::max);
                Some(WorstConstraint {
                    id: slot.id,
                    name: entry.name.clone(),
                    abs_c,
                })
            })
            .max_by(|a, b| a.abs_c.total_cmp(&b.abs_c));
        let worst = match &cause {
            StepFailure::Eval(EvalError::Constraint { id, name, .. }) => Some(WorstConstraint {
                id: *id,
                name: name.clone(),
                abs_c: worst
                    .as_ref()
                    .filter(|w| w.id == *id)
                    .map_or(f64::NAN, |w| w.abs_c),
            }),
            _ => worst,
        };
        StepError {
            t: self.t,
            step: self.steps + 1,
            worst,
            cause,
        }
    }

    /// Refreshes C, Ċ and J at the current state for a report: after an implicit step only
    /// these (its λ is the step's, and an acceleration-level solve of a 10,000-link chain would
    /// cost more than the step); otherwise the whole evaluation, as [`Self::evaluate_current`].
    fn evaluate_for_report(&mut self) -> Result<(), StepError> {
        if self.step_lambda.is_none() {
            return self.evaluate_current();
        }
        let (t, q, v) = (self.t, &self.q, &self.v);
        self.evaluator
            .evaluate_constraints(&self.model, t, q, v)
            .map_err(|e| self.step_error(e.into()))
    }

    /// Evaluates `q̈` at the current state if not done yet (also refreshes C, Ċ, λ).
    fn evaluate_current(&mut self) -> Result<(), StepError> {
        if self.current_acceleration.is_some() {
            return Ok(());
        }
        self.ensure_layout();
        let mut a = vec![0.0; self.q.len()];
        let mode = Mode {
            choose: true,
            velocity_rate: self.velocity_rate(),
        };
        let result = self.evaluator.evaluate(
            &self.model,
            &self.settings,
            mode,
            self.t,
            &self.q,
            &self.v,
            &mut a,
        );
        match result {
            Ok(()) => {
                self.current_acceleration = Some(a);
                Ok(())
            }
            Err(e) => Err(self.step_error(e.into())),
        }
    }

    /// `(max |C|, max |Ċ|)` at the current state: a cheap health check to call every step (the
    /// evaluation is reused by the next step, like [`System::diagnostics`]'s).
    pub fn constraint_error(&mut self) -> Result<(f64, f64), StepError> {
        self.evaluate_for_report()?;
        Ok(self.evaluator.constraint_errors())
    }

    /// Iterations of the most recent λ solve.
    pub fn last_solver_iterations(&self) -> usize {
        self.evaluator.last_solve.iterations
    }

    /// A read-only view of the current state (what forces and constraints see).
    pub fn view(&self) -> View<'_> {
        View {
            t: self.t,
            dim: self.model.dim,
            bodies: &self.model.bodies,
            q: &self.q,
            v: &self.v,
        }
    }

    /// Draws the model on `canvas`: bodies, forces, constraints and, when `constraint_forces` is
    /// given (from [`System::diagnostics`]), each constraint's force `Jᵀλ` on each body as an
    /// arrow (newtons; the renderer scales it).
    pub fn draw(&self, canvas: &mut dyn Canvas, constraint_forces: Option<&Diagnostics>) {
        let view = self.view();
        for (i, force) in self.model.forces.iter().enumerate() {
            if let Some(force) = force {
                canvas.begin(Item::Force(ForceId(i)));
                force.draw(&view, canvas);
            }
        }
        let lambda = |id: ConstraintId| {
            constraint_forces
                .and_then(|d| d.constraint(id))
                .map(|r| r.lambda.as_slice())
        };
        for (id, entry) in self.model.constraints.iter() {
            canvas.begin(Item::Constraint {
                id,
                lambda: lambda(id),
            });
            entry.constraint.draw(&view, canvas);
        }
        crate::draw::draw_bodies(&view, canvas);
        if let Some(d) = constraint_forces {
            for report in &d.constraints {
                canvas.begin(Item::Constraint {
                    id: report.id,
                    lambda: Some(&report.lambda),
                });
                for (body, f) in &report.forces {
                    let Ok(b) = self.body(*body) else { continue };
                    // A parametric object's share is a generalized force on u, with no one
                    // place to draw it: its points' constraints draw their own forces.
                    if !b.mass.is_finite() || matches!(b.kind, BodyKind::Parametric { .. }) {
                        continue;
                    }
                    let at = b.slice(&self.q);
                    let mut from = [0.0; 3];
                    from[..self.model.dim].copy_from_slice(&at[..self.model.dim]);
                    let mut vector = [0.0; 3];
                    vector[..self.model.dim].copy_from_slice(&f[..self.model.dim]);
                    canvas.arrow(from, vector, Element::ConstraintForce);
                }
            }
        }
    }

    /// The accelerations `q̈` at the current state.
    pub fn acceleration(&mut self) -> Result<&[f64], StepError> {
        self.evaluate_current()?;
        Ok(self.current_acceleration.as_deref().unwrap_or_default())
    }

    /// Energies, constraint errors, multipliers and constraint forces at the current state.
    ///
    /// The evaluation it needs is reused by the next step's first stage, so calling this after
    /// every step costs nothing extra with RK4 and the other schemes here.
    pub fn diagnostics(&mut self) -> Result<Diagnostics, StepError> {
        self.evaluate_for_report()?;
        let ev = &self.evaluator;
        let kinetic_energy = self
            .model
            .bodies
            .iter()
            .flatten()
            .map(|b| b.kinetic_energy(self.model.dim, self.t, &self.q, &self.v))
            .sum();
        let view = self.view();
        let potential_energy = self
            .model
            .forces
            .iter()
            .flatten()
            .map(|f| f.potential_energy(&view))
            .sum();
        let constraints = ev
            .layout
            .constraints
            .iter()
            .enumerate()
            .filter_map(|(band, slot)| {
                let entry = self.model.constraints.get(slot.id)?;
                let j = &ev.layout.jacobian;
                let lambda = &self.step_lambda.as_deref().unwrap_or(&ev.lambda)[slot.rows.clone()];
                // Jᵀλ restricted to this constraint's blocks (its band of J, one band per slot):
                // the generalized force on each body.
                let (_, blocks) = &j.bands()[band];
                let forces = blocks
                    .clone()
                    .map(|b| {
                        let blk = j.blocks()[b];
                        let vals = j.block_values(b);
                        let f: Vec<f64> = (0..blk.ncols)
                            .map(|col| {
                                (0..blk.nrows)
                                    .map(|r| vals[r * blk.ncols + col] * lambda[r])
                                    .sum()
                            })
                            .collect();
                        (BodyId(ev.layout.block_bodies[b]), f)
                    })
                    .collect();
                Some(ConstraintReport {
                    id: slot.id,
                    name: entry.name.clone(),
                    c: ev.c[slot.rows.clone()].to_vec(),
                    c_dot: ev.c_dot[slot.rows.clone()].to_vec(),
                    lambda: lambda.to_vec(),
                    forces,
                    jacobian: blocks
                        .clone()
                        .map(|b| {
                            (
                                BodyId(ev.layout.block_bodies[b]),
                                j.block_values(b).to_vec(),
                            )
                        })
                        .collect(),
                    jdot_qdot: ev.jdot_qdot[slot.rows.clone()].to_vec(),
                    active: (entry.constraint.kind()
                        == crate::constraint::ConstraintKind::Inequality)
                        .then(|| slot.rows.clone().map(|i| ev.active.is_held(i)).collect()),
                })
            })
            .collect();
        let (max_abs_c, max_abs_c_dot) = ev.constraint_errors();
        Ok(Diagnostics {
            time: self.t,
            kinetic_energy,
            potential_energy,
            max_abs_c,
            max_abs_c_dot,
            solver_iterations: ev.last_solve.iterations,
            solver_residual: ev.last_solve.residual,
            constraints,
        })
    }
}

impl<'a> From<&'a System> for View<'a> {
    /// The system's current state, as [`System::view`] gives it.
    fn from(system: &'a System) -> View<'a> {
        system.view()
    }
}

fn check_vector(what: &'static str, v: &[f64], dim: usize) -> Result<(), ModelError> {
    if v.len() != dim {
        return Err(ModelError::WrongLength {
            what,
            got: v.len(),
            dim,
        });
    }
    if !v.iter().all(|x| x.is_finite()) {
        return Err(ModelError::NonFinite(what));
    }
    Ok(())
}
