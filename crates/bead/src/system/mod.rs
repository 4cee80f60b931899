//! [`System`]: the one struct a user holds — bodies, forces, constraints, settings — and its
//! [`System::step`].
//!
//! The system owns the model that defines `q̈(t, q, q̇)` ([`crate::model`]), the generalized state
//! `(t, q, q̇)` (seed 000 §3), the settings, and the step pipeline that advances them
//! ([`crate::step`]). It is a facade: each method checks what it is given and hands it to the
//! layer that does the work. A step either succeeds, or returns a [`StepError`] and leaves the
//! last good state untouched.

mod contacts;
mod rigid3d;

use std::any::Any;

use crate::body::{
    BodyId, BodyKind, Parametric, ParametricId, Particle, ParticleId, Placed, RigidBody,
    RigidBodyId, check_vector,
};
use crate::constraint::{Constraint, ConstraintId};
use crate::diagnostics::{AssemblyReport, Diagnostics};
use crate::draw::Canvas;
use crate::error::{AssemblyError, ModelError, StepError, Violation};
use crate::force::{Force, ForceId};
use crate::integrate::Integrator;
use crate::model::Model;
use crate::point::{Point, point_position};
use crate::settings::{Assembly, Settings, StepStats};
use crate::solve::LinearSolver;
use crate::state::State;
use crate::step::Pipeline;
use crate::view::View;

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
    model: Model,
    state: State,
    settings: Settings,
    pipeline: Pipeline,
}

impl System {
    /// An empty `dim`-dimensional system (2 or 3), integrated with RK4 and solved by CG.
    ///
    /// ```
    /// assert!(bead::System::new(3).is_ok());
    /// assert!(bead::System::new(4).is_err());
    /// ```
    pub fn new(dim: usize) -> Result<System, ModelError> {
        if dim != 2 && dim != 3 {
            return Err(ModelError::Dimension(dim));
        }
        Ok(System {
            model: Model::new(dim),
            state: State::default(),
            settings: Settings::default(),
            pipeline: Pipeline::default(),
        })
    }

    /// Dimension of the space (2 or 3).
    pub fn dim(&self) -> usize {
        self.model.dim
    }

    /// Current time, in seconds.
    pub fn time(&self) -> f64 {
        self.state.t
    }

    /// Sets the current time, in seconds (time-dependent constraints read it).
    pub fn set_time(&mut self, t: f64) {
        self.state.t = t;
        self.pipeline.state_replaced();
    }

    /// Number of steps taken so far.
    pub fn steps(&self) -> u64 {
        self.state.steps
    }

    /// The generalized coordinates `q`.
    pub fn q(&self) -> &[f64] {
        &self.state.q
    }

    /// The generalized velocities `q̇`.
    pub fn q_dot(&self) -> &[f64] {
        &self.state.v
    }

    /// Settings of the λ solve and stabilization.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Changes the settings (takes effect at the next evaluation); they are checked first
    /// ([`Settings::check`]).
    pub fn set_settings(&mut self, settings: Settings) -> Result<(), ModelError> {
        settings.check()?;
        self.settings = settings;
        self.pipeline.state_changed();
        Ok(())
    }

    /// Replaces the integrator.
    pub fn set_integrator(&mut self, integrator: impl Integrator + 'static) {
        self.set_integrator_boxed(Box::new(integrator));
    }

    /// Replaces the integrator (boxed form, for choices made at run time).
    pub fn set_integrator_boxed(&mut self, integrator: Box<dyn Integrator>) {
        self.pipeline.set_integrator(integrator);
    }

    /// The integrator.
    pub fn integrator(&self) -> &dyn Integrator {
        self.pipeline.integrator()
    }

    /// Replaces the λ solver.
    pub fn set_solver(&mut self, solver: impl LinearSolver + 'static) {
        self.set_solver_boxed(Box::new(solver));
    }

    /// Replaces the λ solver (boxed form).
    pub fn set_solver_boxed(&mut self, solver: Box<dyn LinearSolver>) {
        self.pipeline.set_solver(solver);
    }

    /// The λ solver.
    pub fn solver(&self) -> &dyn LinearSolver {
        self.pipeline.solver()
    }

    // ----- bodies -----

    /// Adds a particle; its position (and velocity, if given) must have `dim` finite components.
    pub fn add_particle(&mut self, particle: Particle) -> Result<ParticleId, ModelError> {
        let placed = particle.place(self.model.dim, self.state.q.len())?;
        Ok(ParticleId(self.push_body(placed)))
    }

    /// Adds a 2D rigid body (2D systems only).
    pub fn add_rigid_body(&mut self, body: RigidBody) -> Result<RigidBodyId, ModelError> {
        let placed = body.place(self.model.dim, self.state.q.len())?;
        Ok(RigidBodyId(self.push_body(placed)))
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
        let placed = object.place(self.model.dim, self.state.q.len(), self.state.t)?;
        Ok(ParametricId(self.push_body(placed)))
    }

    /// Appends a body's coordinates and velocities to the state and its entry to the model.
    fn push_body(&mut self, placed: Placed) -> BodyId {
        self.state.q.extend_from_slice(&placed.q);
        self.state.v.extend_from_slice(&placed.v);
        let id = self.model.push_body(placed.body);
        self.pipeline.structure_changed();
        id
    }

    /// The point named `name` of a parametric object.
    pub fn parametric_point(&self, object: ParametricId, name: &str) -> Result<Point, ModelError> {
        self.model.parametric_point(object.0, name)
    }

    /// The rigid bodies, in the order they were added.
    pub fn rigid_bodies(&self) -> impl Iterator<Item = RigidBodyId> + '_ {
        self.bodies_where(|k| matches!(k, BodyKind::Rigid2d { .. }))
            .map(RigidBodyId)
    }

    /// The bodies whose kind `pick` accepts, in the order they were added.
    fn bodies_where<'a>(
        &'a self,
        pick: impl Fn(&BodyKind) -> bool + 'a,
    ) -> impl Iterator<Item = BodyId> + 'a {
        let bodies = self.model.bodies.iter().enumerate();
        bodies.filter_map(move |(i, b)| pick(&b.as_ref()?.kind).then_some(BodyId(i)))
    }

    /// The particles, in the order they were added.
    pub fn particles(&self) -> impl Iterator<Item = ParticleId> + '_ {
        self.bodies_where(|k| matches!(k, BodyKind::Particle))
            .map(ParticleId)
    }

    /// A body's generalized coordinates (a particle's position; a rigid body's `[x, y, θ]`; a 3D
    /// body's centre and the rotation vector of its turn from a reference that follows it, zero
    /// between steps: read its orientation with [`System::orientation`]).
    ///
    /// # Panics
    /// If `body` is a handle of another system.
    pub fn coordinates(&self, body: impl Into<BodyId>) -> &[f64] {
        self.model.body(body.into().0).slice(&self.state.q)
    }

    /// A body's slice of any global vector laid out like `q` (`q̇`, `q̈`, forces).
    ///
    /// # Panics
    /// If `body` is a handle of another system, or `global` is shorter than `q`.
    pub fn body_slice<'a>(&self, body: impl Into<BodyId>, global: &'a [f64]) -> &'a [f64] {
        self.model.body(body.into().0).slice(global)
    }

    /// A body's generalized velocities (`[vx, vy, ω]` of a rigid body; `[v, ω]`, world, of a 3D one).
    ///
    /// # Panics
    /// If `body` is a handle of another system.
    pub fn coordinate_velocities(&self, body: impl Into<BodyId>) -> &[f64] {
        self.model.body(body.into().0).slice(&self.state.v)
    }

    /// A body's radius, in metres.
    pub fn radius(&self, body: BodyId) -> Result<f64, ModelError> {
        Ok(self.model.checked_body(body)?.radius)
    }

    /// A particle's position, in metres.
    ///
    /// # Panics
    /// If `p` is a handle of another system.
    pub fn position(&self, p: ParticleId) -> &[f64] {
        self.model.body(p.0.0).slice(&self.state.q)
    }

    /// A particle's velocity, in metres per second.
    ///
    /// # Panics
    /// If `p` is a handle of another system.
    pub fn velocity(&self, p: ParticleId) -> &[f64] {
        self.model.body(p.0.0).slice(&self.state.v)
    }

    /// A body's mass, in kilograms (`f64::INFINITY` for an anchor).
    pub fn mass(&self, body: BodyId) -> Result<f64, ModelError> {
        Ok(self.model.checked_body(body)?.mass)
    }

    /// Moves a particle (the constraints' feedback, or projection, pulls it back if that breaks them).
    pub fn set_position(&mut self, p: ParticleId, position: &[f64]) -> Result<(), ModelError> {
        check_vector("particle position", position, self.model.dim)?;
        let body = self.model.checked_body(p.0)?;
        body.slice_mut(&mut self.state.q).copy_from_slice(position);
        self.pipeline.state_replaced();
        Ok(())
    }

    /// Sets a particle's velocity, in metres per second.
    pub fn set_velocity(&mut self, p: ParticleId, velocity: &[f64]) -> Result<(), ModelError> {
        check_vector("particle velocity", velocity, self.model.dim)?;
        let body = self.model.checked_body(p.0)?;
        body.slice_mut(&mut self.state.v).copy_from_slice(velocity);
        self.pipeline.state_replaced();
        Ok(())
    }

    /// Sets any body's generalized coordinates (a particle's position, a rigid body's
    /// `[x, y, θ]`, a parametric object's `u`); they must be finite and as many as it has.
    pub fn set_coordinates(
        &mut self,
        body: impl Into<BodyId>,
        coordinates: &[f64],
    ) -> Result<(), ModelError> {
        let body = self
            .model
            .body_for(body.into(), coordinates, "coordinates")?;
        body.slice_mut(&mut self.state.q)
            .copy_from_slice(coordinates);
        self.pipeline.state_replaced();
        Ok(())
    }

    /// Sets any body's generalized velocities `q̇` (finite, as many as its coordinates).
    pub fn set_coordinate_velocities(
        &mut self,
        body: impl Into<BodyId>,
        velocities: &[f64],
    ) -> Result<(), ModelError> {
        let body = self.model.body_for(body.into(), velocities, "velocities")?;
        body.slice_mut(&mut self.state.v)
            .copy_from_slice(velocities);
        self.pipeline.state_replaced();
        Ok(())
    }

    /// Changes a body's mass (kg; infinity makes it an anchor).
    pub fn set_mass(&mut self, body: BodyId, mass: f64) -> Result<(), ModelError> {
        self.model.set_mass(body, mass)?;
        self.pipeline.structure_changed();
        Ok(())
    }

    /// World position of any point, in metres (components past the dimension are 0).
    pub fn point_position(&self, point: &Point) -> Result<[f64; 3], ModelError> {
        Ok(point_position(
            point,
            self.model.checked_body(point.body())?,
            self.state.t,
            &self.state.q,
        ))
    }

    // ----- forces -----

    /// Adds a force.
    pub fn add_force(&mut self, force: impl Force) -> Result<ForceId, ModelError> {
        self.add_force_boxed(Box::new(force))
    }

    /// Adds a boxed force.
    pub fn add_force_boxed(&mut self, force: Box<dyn Force>) -> Result<ForceId, ModelError> {
        let id = self.model.add_force(force)?;
        self.pipeline.state_changed();
        Ok(id)
    }

    /// The force `id`, if it is of type `F` (for example to move a [`MouseSpring`](crate::force::MouseSpring)'s target).
    pub fn force_mut<F: Force>(&mut self, id: ForceId) -> Option<&mut F> {
        self.pipeline.state_changed();
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
        self.pipeline.state_changed();
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
        let id = self.model.add_constraint(constraint)?;
        self.pipeline.structure_changed();
        Ok(id)
    }

    /// Renames a constraint (names appear in reports and errors).
    pub fn set_constraint_name(
        &mut self,
        id: ConstraintId,
        name: impl Into<String>,
    ) -> Result<(), ModelError> {
        self.model.entry_mut(id)?.name = name.into();
        Ok(())
    }

    /// Sets the coefficient of restitution (0 to 1) of an inequality constraint's impacts.
    pub fn set_restitution(
        &mut self,
        id: ConstraintId,
        restitution: f64,
    ) -> Result<(), ModelError> {
        self.model.set_restitution(id, restitution)
    }

    /// A constraint's name.
    pub fn constraint_name(&self, id: ConstraintId) -> Result<&str, ModelError> {
        self.model
            .constraints
            .get(id)
            .map(|e| e.name.as_str())
            .ok_or(ModelError::UnknownConstraint(id))
    }

    /// The constraint `id`, if it is of type `C` (for example to change a rod's length).
    pub fn constraint_mut<C: Constraint>(&mut self, id: ConstraintId) -> Option<&mut C> {
        self.pipeline.state_changed();
        let entry = self.model.constraints.get_mut(id)?;
        let c: &mut dyn Any = entry.constraint.as_mut();
        c.downcast_mut::<C>()
    }

    /// Removes a constraint; returns whether it existed. Its slot may be reused by a constraint
    /// added later, under a new handle.
    pub fn remove_constraint(&mut self, id: ConstraintId) -> bool {
        let existed = self.model.constraints.remove(id);
        self.pipeline.structure_changed();
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

    /// Advances the state by `dt` seconds with the integrator.
    ///
    /// On error the state is left as it was before the call, and the error names the time, the
    /// step and the constraint furthest from satisfied.
    pub fn step(&mut self, dt: f64) -> Result<StepStats, StepError> {
        let t_end = self.state.t + dt;
        self.pipeline
            .advance(&mut self.model, &mut self.state, &self.settings, dt, t_end)
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
        let dt = t_end - self.state.t;
        self.pipeline
            .advance(&mut self.model, &mut self.state, &self.settings, dt, t_end)
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
        self.pipeline.announce_time_step(dt);
        Ok(())
    }

    /// The step size the model is advanced with, in seconds: the last step's, or the one
    /// announced with [`System::set_time_step`]; `None` before either.
    pub fn time_step(&self) -> Option<f64> {
        self.pipeline.time_step()
    }

    /// Moves the current state onto the constraints, before the first step: the positions by
    /// Newton's iteration with the correction smallest in kinetic metric (`Δq = W Jᵀ μ`) until
    /// every equality has `|C| ≤ options.tolerance` and no inequality is deeper inside than that
    /// (plus the contact tolerance); then the velocities by the same projection onto `J q̇ + ∂C/∂t = 0` for the equality rows,
    /// unless they are within `options.velocity_tolerance` already (see [`Assembly`]). Motors and
    /// contacts keep their velocities: a motor spins up by its law, an approaching contact is an
    /// impact for the first step.
    ///
    /// A model started off its constraints is otherwise pulled onto them by the feedback (or the
    /// projection) in its first steps: a jump that no force explains. A state already within
    /// the tolerances is left bit for bit. On error (constraints that conflict, or that the bodies
    /// that can move cannot reach) the state is left as it was, and the error names the
    /// constraints still off.
    ///
    /// ```
    /// use bead::{constraint::Distance, Assembly, Particle, System};
    ///
    /// // A bob 1.5 m from its nail on a 1 m rod, moving along the rod and across it.
    /// let mut sys = System::new(2)?;
    /// let nail = sys.add_particle(Particle::anchor(&[0.0, 0.0]))?;
    /// let bob = sys.add_particle(Particle::new(&[0.0, -1.5]).velocity(&[1.0, 2.0]))?;
    /// sys.add_constraint(Distance::new(nail, bob, 1.0))?;
    /// sys.assemble(&Assembly::default()).unwrap();
    /// // Moved along the rod onto it; the speed along the rod removed, the one across it kept.
    /// let (x, v) = (sys.position(bob), sys.velocity(bob));
    /// assert!(x[0].abs() < 1e-12 && (x[1] + 1.0).abs() < 1e-10);
    /// assert!((v[0] - 1.0).abs() < 1e-12 && v[1].abs() < 1e-10);
    ///
    /// // Two nails the rod cannot reach between.
    /// let mut sys = System::new(2)?;
    /// let a = sys.add_particle(Particle::anchor(&[0.0, 0.0]))?;
    /// let b = sys.add_particle(Particle::anchor(&[3.0, 0.0]))?;
    /// let rod = sys.add_constraint(Distance::new(a, b, 1.0))?;
    /// sys.set_constraint_name(rod, "rod")?;
    /// let err = sys.assemble(&Assembly::default()).unwrap_err();
    /// assert!(err.to_string().contains("'rod' |C| = 2.000e0"), "{err}");
    /// # Ok::<(), bead::ModelError>(())
    /// ```
    pub fn assemble(&mut self, options: &Assembly) -> Result<AssemblyReport, AssemblyError> {
        options.check().map_err(AssemblyError::Options)?;
        self.pipeline
            .assemble(&self.model, &mut self.state, &self.settings, options)
    }

    // ----- reports -----

    /// How far the current state is from each constraint, in slot order: its largest `|C|` (for
    /// an inequality, how deep it is inside) and, for equalities, its largest `|Ċ|` (see
    /// [`Violation`]). A cheap check of a start, before the first step: a model that starts off
    /// its constraints is pulled onto them by the feedback, which [`System::assemble`] avoids.
    ///
    /// ```
    /// use bead::{constraint::Distance, Particle, System};
    /// let mut sys = System::new(2)?;
    /// let nail = sys.add_particle(Particle::anchor(&[0.0, 0.0]))?;
    /// let bob = sys.add_particle(Particle::new(&[0.6, -0.8]))?;
    /// sys.add_constraint(Distance::new(nail, bob, 1.0))?;
    /// let off = sys.violations().unwrap();
    /// assert!(off[0].abs_c < 1e-15 && off[0].abs_c_dot == 0.0);
    /// # Ok::<(), bead::ModelError>(())
    /// ```
    pub fn violations(&mut self) -> Result<Vec<Violation>, StepError> {
        self.pipeline.violations(&self.model, &self.state)
    }

    /// `(max |C|, max |Ċ|)` at the current state: a cheap health check to call every step (the
    /// evaluation is reused by the next step, like [`System::diagnostics`]'s).
    pub fn constraint_error(&mut self) -> Result<(f64, f64), StepError> {
        self.pipeline
            .constraint_error(&self.model, &self.state, &self.settings)
    }

    /// Iterations of the most recent λ solve.
    pub fn last_solver_iterations(&self) -> usize {
        self.pipeline.last_solver_iterations()
    }

    /// A read-only view of the current state (what forces and constraints see).
    pub fn view(&self) -> View<'_> {
        self.state.view(&self.model)
    }

    /// Draws the model on `canvas`: bodies, forces, constraints and, when `constraint_forces` is
    /// given (from [`System::diagnostics`]), each constraint's force `Jᵀλ` on each body as an
    /// arrow (newtons; the renderer scales it).
    pub fn draw(&self, canvas: &mut dyn Canvas, constraint_forces: Option<&Diagnostics>) {
        crate::drawing::draw_model(&self.model, &self.state, canvas, constraint_forces);
    }

    /// The accelerations `q̈` at the current state.
    pub fn acceleration(&mut self) -> Result<&[f64], StepError> {
        self.pipeline
            .acceleration(&self.model, &self.state, &self.settings)
    }

    /// Energies, constraint errors, multipliers and constraint forces at the current state.
    ///
    /// The evaluation it needs is reused by the next step's first stage, so calling this after
    /// every step costs nothing extra with RK4 and the other schemes here.
    pub fn diagnostics(&mut self) -> Result<Diagnostics, StepError> {
        self.pipeline
            .diagnostics(&self.model, &self.state, &self.settings)
    }

    /// The pieces the engine's own tests look inside, with the layout up to date.
    #[cfg(test)]
    pub(crate) fn parts(&mut self) -> crate::step::Parts<'_> {
        self.pipeline.parts(&self.model, &self.state)
    }

    /// The model as the implicit steppers see it, at the current state, lent to `f`.
    #[cfg(test)]
    pub(crate) fn with_stage<R>(
        &mut self,
        f: impl FnOnce(&mut dyn crate::integrate::ConstrainedModel, &crate::state::State) -> R,
    ) -> R {
        let state = &self.state;
        self.pipeline
            .with_stage((&self.model, state, &self.settings), |stage| {
                f(stage, state)
            })
    }
}

impl<'a> From<&'a System> for View<'a> {
    /// The system's current state, as [`System::view`] gives it.
    fn from(system: &'a System) -> View<'a> {
        system.view()
    }
}
