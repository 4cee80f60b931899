//! The step pipeline: what one call of [`System::step`](crate::System::step) does, in order.
//!
//! 1. **Contacts** ([`contacts`]): each contact group's broad phase adds the pair constraints
//!    of particles about to touch and removes those far apart.
//! 2. **Layout**: the rows and blocks of `J` are placed again if the model's structure changed
//!    ([`crate::assembly::Layout`]).
//! 3. **Advance**: the integrator steps the state — through the located impacts when an
//!    explicit integrator meets inequalities ([`events`]: rewind to each first activation and
//!    resolve it with impulses), with speculative impulses at the step's start
//!    ([`impulses`]), or in one step; the implicit steppers hold their contacts at the step's
//!    end and need neither.
//! 4. **Projection** ([`projection`]), when the settings ask for it: `q` and `q̇` back onto the
//!    constraints.
//! 5. **Commit**: the new state replaces the old one only if every stage succeeded, and
//!    Platt's and the improved algorithm update their handled set (seed 004 Alg. 1-2).
//!
//! The [`Pipeline`] holds only the machinery and its buffers (the integrator, the evaluator,
//! the multipliers and their solver, the Newton system, the contact groups, caches); the
//! model, the state and the settings are the facade's and come in as arguments, as in Rapier's
//! `PhysicsPipeline`. [`report`] reads the diagnostics and names the constraint of a failure;
//! [`assemble`] moves a start onto the constraints before the first step.

mod assemble;
pub(crate) mod contacts;
mod equality_subspace;
mod events;
mod impulses;
mod projection;
mod report;
mod shape_contacts;

use crate::assembly::{Evaluator, Layout};
use crate::body::BodyKind;
use crate::contact::Impacts;
use crate::diagnostics::{AssemblyReport, Diagnostics};
use crate::dynamics::active_set::StepStart;
use crate::dynamics::{Acceleration, Mode, Prediction, Stage};
use crate::error::{AssemblyError, ModelError, StepError, StepFailure, Violation};
use crate::integrate::{Integrator, Rk4};
use crate::math::bands::Bands;
use crate::model::Model;
use crate::settings::{Assembly, Settings, StepStats};
use crate::solve::kkt::Kkt;
use crate::solve::{ConjugateGradient, LinearSolver};
use crate::state::State;
use contacts::ContactGroup;
use shape_contacts::Pressures;
pub(crate) use shape_contacts::ShapeGroup;

/// The machinery that advances a model, and what it keeps from one step to the next.
#[derive(Debug)]
pub(crate) struct Pipeline {
    integrator: Box<dyn Integrator>,
    /// The rows of the constraints at a state.
    evaluator: Evaluator,
    /// The derivative evaluation: forces, multipliers and their solver, the active set.
    acceleration: Acceleration,
    /// The implicit steppers' Newton system, with its cached analysis.
    kkt: Kkt,
    /// The blocks the forces' Jacobians and parametric objects add to the implicit steppers'
    /// Newton matrix (kept for their buffers).
    additions: Bands,
    /// The implicit steppers' prediction for parametric objects, kept from step to step.
    prediction: Prediction,
    /// The layout must be rebuilt before the next evaluation.
    layout_stale: bool,
    /// `q̈` at the current state, if already evaluated (reused as the next step's first stage).
    current_acceleration: Option<Vec<f64>>,
    /// The step size the model is advanced with (the last step's, or one announced with
    /// [`System::set_time_step`](crate::System::set_time_step)); motors aim to reach their
    /// speed within about one such step.
    time_step: Option<f64>,
    /// Groups of particles kept apart by generated non-penetration constraints.
    contact_groups: Vec<ContactGroup>,
    /// The shape contact groups.
    shape_groups: Vec<ShapeGroup>,
    /// λ of the implicit step that reached the current state: the forces it applied, which
    /// the diagnostics report rather than the acceleration-level λ of the state.
    step_lambda: Option<Vec<f64>>,
    /// An implicit run's report before its first step found no acceleration-level forces at
    /// this state (see [`Pipeline::evaluate_for_report`]): not sought again until it changes.
    no_report_forces: bool,
    /// The settings' divergence limit for the step under way (∞ before the first), for the
    /// evaluations that do not take the settings.
    divergence_limit: f64,
    /// The next state, written by a step before it is committed.
    q_next: Vec<f64>,
    v_next: Vec<f64>,
}

impl Default for Pipeline {
    /// RK4 and conjugate gradient.
    fn default() -> Self {
        Pipeline {
            integrator: Box::new(Rk4::default()),
            evaluator: Evaluator::default(),
            acceleration: Acceleration::new(Box::new(ConjugateGradient::default())),
            kkt: Kkt::default(),
            additions: Bands::default(),
            prediction: Prediction::default(),
            layout_stale: true,
            current_acceleration: None,
            time_step: None,
            contact_groups: Vec::new(),
            shape_groups: Vec::new(),
            step_lambda: None,
            no_report_forces: false,
            divergence_limit: f64::INFINITY,
            q_next: Vec::new(),
            v_next: Vec::new(),
        }
    }
}

impl Pipeline {
    /// The integrator.
    pub(crate) fn integrator(&self) -> &dyn Integrator {
        self.integrator.as_ref()
    }

    /// Replaces the integrator.
    pub(crate) fn set_integrator(&mut self, integrator: Box<dyn Integrator>) {
        self.integrator = integrator;
    }

    /// The λ solver.
    pub(crate) fn solver(&self) -> &dyn LinearSolver {
        self.acceleration.solver()
    }

    /// Replaces the λ solver.
    pub(crate) fn set_solver(&mut self, solver: Box<dyn LinearSolver>) {
        self.acceleration.set_solver(solver);
        self.state_changed();
    }

    /// The model's structure changed (a body, a force or a constraint came or went): the layout
    /// is rebuilt before the next evaluation.
    pub(crate) fn structure_changed(&mut self) {
        self.layout_stale = true;
        self.state_changed();
    }

    /// The state or a parameter changed: nothing evaluated at the old one holds.
    pub(crate) fn state_changed(&mut self) {
        self.current_acceleration = None;
        self.step_lambda = None;
        self.no_report_forces = false;
    }

    /// The state was set from outside (time, positions, velocities): besides what
    /// [`Pipeline::state_changed`] drops, no contact rests on what a step left any more, and
    /// each is judged by its gap again.
    pub(crate) fn state_replaced(&mut self) {
        self.acceleration.forget_resting();
        self.state_changed();
    }

    /// Places the rows again if the structure changed.
    pub(crate) fn ensure_layout(&mut self, model: &Model, ndof: usize) {
        if self.layout_stale {
            let layout = Layout::build(model, ndof);
            let old = self.evaluator.set_layout(layout);
            self.acceleration
                .relayout(&old, self.evaluator.layout(), ndof);
            self.layout_stale = false;
        }
    }

    /// Records the step size the model is advanced with. A cached evaluation at the current state
    /// was made for the old one (a motor's rate depends on it): drop it if the size really changed
    /// (not for the rounding differences between `k·dt` and `(k − 1)·dt` of
    /// [`System::step_to`](crate::System::step_to)).
    pub(crate) fn announce_time_step(&mut self, dt: f64) {
        if self.time_step.is_none_or(|h| (h - dt).abs() > 1e-9 * h) {
            self.time_step = Some(dt);
            self.state_changed();
        }
    }

    /// The step size the model is advanced with, if known.
    pub(crate) fn time_step(&self) -> Option<f64> {
        self.time_step
    }

    /// How evaluations treat velocity rows: their rate, `1/dt` unless the settings ask for less
    /// (no correction at all before any step size is known).
    pub(crate) fn velocity_rate(&self, settings: &Settings) -> f64 {
        let step_rate = self.time_step.map_or(0.0, |h| 1.0 / h);
        match settings.motor_rate {
            Some(r) if self.time_step.is_some() => r.min(step_rate),
            Some(r) => r,
            None => step_rate,
        }
    }

    /// The contact groups.
    pub(crate) fn contact_groups(&self) -> &[ContactGroup] {
        &self.contact_groups
    }

    /// Adds a contact group.
    pub(crate) fn add_contact_group(&mut self, group: ContactGroup) -> usize {
        self.contact_groups.push(group);
        self.contact_groups.len() - 1
    }

    /// Advances the state by one step of `dt` to `t_end`; on error the state is left as it was.
    pub(crate) fn advance(
        &mut self,
        model: &mut Model,
        state: &mut State,
        settings: &Settings,
        dt: f64,
        t_end: f64,
    ) -> Result<StepStats, StepError> {
        if !(dt > 0.0 && dt.is_finite()) {
            return Err(self.step_error(model, state, StepFailure::InvalidStep(dt)));
        }
        self.announce_time_step(dt);
        self.divergence_limit = settings.divergence_limit;
        if !self.contact_groups.is_empty() {
            match contacts::update(&mut self.contact_groups, model, state, dt) {
                Ok(true) => self.structure_changed(),
                Ok(false) => {}
                Err((changed, e)) => {
                    if changed {
                        self.structure_changed();
                    }
                    return Err(self.step_error(model, state, StepFailure::BroadPhase(e)));
                }
            }
        }
        if !self.shape_groups.is_empty() {
            let pressure = self.pressures();
            self.update_shape_groups(model, state, (dt, &pressure))?;
            self.lean_first(model, state, settings, dt)?;
        }
        self.ensure_layout(model, state.q.len());
        // Platt's and the improved algorithm decide F⁺ for the next step from the λ and q̈ of this
        // step's start (seed 004 Alg. 1-2); that evaluation is the integrator's first stage anyway.
        // The implicit stepper holds its contacts at the step's end: no handled set to carry
        // from step to step, no impact to locate inside the step.
        let implicit = self.integrator.implicit();
        let has_inequalities = self.evaluator.layout().inequality.contains(&true);
        let persistent = !implicit && settings.inequality.persistent() && has_inequalities;
        let start = if persistent {
            self.evaluate_current(model, state, settings, false)?;
            Some(self.acceleration.step_start())
        } else {
            None
        };
        let impacts = if implicit || !has_inequalities {
            Impacts::Off
        } else {
            settings.impacts
        };
        let stats = match impacts {
            Impacts::Located => events::advance(self, model, state, settings, t_end)?,
            Impacts::Speculative => {
                impulses::advance_speculative(self, model, state, settings, t_end)?
            }
            Impacts::Off => self.integrate_to(model, state, settings, t_end)?,
        };
        // The contacts the step held and that still push rest on their support: at the next
        // choice their gap and approach, up to what the step leaves, are its integration error,
        // not a distance or an impact. The implicit steppers hold their contacts at the step's
        // end and choose none.
        if implicit {
            self.acceleration.forget_resting();
        } else {
            self.acceleration.remember_resting(&self.evaluator, dt);
        }
        if model.has_3d_bodies() {
            self.recentre(model, state);
        }
        state.steps += 1;
        if let Some(start) = start {
            self.update_handled_set(model, state, settings, &start)?;
        }
        Ok(stats)
    }

    /// Re-centres every 3D body's chart on its orientation (see [`crate::body::chart`]), and
    /// hands the integrator the map for the past states it keeps: the motion is unchanged, its
    /// coordinates are not.
    fn recentre(&mut self, model: &mut Model, state: &mut State) {
        let mut moved = Vec::new();
        for body in model.bodies.iter_mut().flatten() {
            let range = body.offset..body.offset + body.ndof;
            if let BodyKind::Rigid3d { chart, .. } = &mut body.kind {
                let old = chart.recentre(&mut state.q[range.clone()], &mut state.v[range.clone()]);
                moved.push((range, old, chart.as_ref().clone()));
            }
        }
        let mut carry = |q: &mut [f64], v: &mut [f64]| {
            for (range, old, new) in &moved {
                new.carry(old, &mut q[range.clone()], &mut v[range.clone()]);
            }
        };
        self.integrator.recentred(&state.q, &state.v, &mut carry);
        // The accelerations known at the step's end were in the old coordinates.
        self.current_acceleration = None;
    }

    /// One integrator step from the current state to `t_end`, committed (with projection, if on).
    fn integrate_to(
        &mut self,
        model: &Model,
        state: &mut State,
        settings: &Settings,
        t_end: f64,
    ) -> Result<StepStats, StepError> {
        let dt = t_end - state.t;
        if !(dt > 0.0) {
            return Ok(StepStats::default());
        }
        self.q_next.resize(state.q.len(), 0.0);
        self.v_next.resize(state.v.len(), 0.0);
        let mut stats = StepStats::default();
        let velocity_rate = self.velocity_rate(settings);
        let mut stage = Stage {
            model,
            evaluator: &mut self.evaluator,
            acceleration: &mut self.acceleration,
            kkt: &mut self.kkt,
            settings,
            stats: &mut stats,
            first: self.current_acceleration.take(),
            started: false,
            velocity_rate,
            assembled_t: state.t,
            assembled_q: Vec::new(),
            assembled_v: Vec::new(),
            additions: &mut self.additions,
            prediction: &mut self.prediction,
        };
        let result = self.integrator.step(
            &mut stage,
            state.t,
            dt,
            &state.q,
            &state.v,
            &mut self.q_next,
            &mut self.v_next,
        );
        if let Err(e) = result {
            return Err(self.step_error(model, state, e.into()));
        }
        if !crate::math::vector::all_finite(&self.q_next)
            || !crate::math::vector::all_finite(&self.v_next)
        {
            return Err(self.step_error(model, state, StepFailure::Diverged));
        }
        if let Some(p) = settings.projection {
            let outcome = projection::project(
                &mut self.evaluator,
                &mut self.acceleration,
                model,
                settings,
                &p,
                projection::Purpose::Step,
                t_end,
                (&mut self.q_next, &mut self.v_next),
            );
            if let Err(failure) = outcome {
                return Err(self.step_error(model, state, failure));
            }
            self.integrator.projected(&self.q_next, &self.v_next);
        }
        std::mem::swap(&mut state.q, &mut self.q_next);
        std::mem::swap(&mut state.v, &mut self.v_next);
        state.t = t_end;
        self.state_changed();
        if self.integrator.implicit() {
            self.step_lambda = Some(self.acceleration.lambda().to_vec());
        }
        Ok(stats)
    }

    /// Each constraint's first multiplier at the last step (a contact's normal force), for the
    /// shape groups whose cylinders' flat rims follow their pressure; empty where none has a
    /// cylinder or no step has been taken.
    fn pressures(&self) -> Pressures {
        if !self.shape_groups.iter().any(ShapeGroup::has_cylinders) {
            return Pressures::new();
        }
        let lambda = self
            .step_lambda
            .as_deref()
            .unwrap_or(self.acceleration.lambda());
        self.pressures_of(lambda)
    }

    /// Each constraint's first multiplier in `lambda`, if `lambda` is the layout's.
    fn pressures_of(&self, lambda: &[f64]) -> Pressures {
        let layout = self.evaluator.layout();
        // Multipliers of another layout (the contacts changed since) say nothing.
        if self.layout_stale || layout.constraints.last().map(|c| c.rows.end) != Some(lambda.len())
        {
            return Pressures::new();
        }
        (layout.constraints.iter())
            .filter_map(|slot| Some((slot.id, *lambda.get(slot.rows.start)?)))
            .collect()
    }

    /// Before a run's first step, cylinders standing flat have no last step to say where their
    /// pressure leans: up to three rounds of the forces at the start, each moving the rims' points
    /// to where the last round's pressure leant, give them one. A load leaning between a rim's
    /// four first points would otherwise tip the can on its first step, and under an explicit
    /// integrator it would then wobble on its rim without end, as a cylinder does.
    fn lean_first(
        &mut self,
        model: &mut Model,
        state: &State,
        settings: &Settings,
        dt: f64,
    ) -> Result<(), StepError> {
        if state.steps > 0 || !self.shape_groups.iter().any(ShapeGroup::has_cylinders) {
            return Ok(());
        }
        for _ in 0..3 {
            // Where the forces cannot be found, the step says so itself.
            if self
                .evaluate_current(model, state, settings, false)
                .is_err()
            {
                return Ok(());
            }
            let pressure = self.pressures_of(self.acceleration.lambda());
            if !self.update_shape_groups(model, state, (dt, &pressure))? {
                break;
            }
        }
        Ok(())
    }

    /// Brings every shape group's contacts up to date for a step of `dt`, the last normal
    /// forces `pressure`; whether a contact came or went.
    fn update_shape_groups(
        &mut self,
        model: &mut Model,
        state: &State,
        (dt, pressure): (f64, &Pressures),
    ) -> Result<bool, StepError> {
        let mut changed = false;
        let mut failure = None;
        for group in &mut self.shape_groups {
            if let Err(e) = group.update(model, state, (dt, pressure), &mut changed) {
                failure = Some(e);
                break;
            }
        }
        if changed {
            self.structure_changed();
        }
        match failure {
            Some(e) => Err(self.step_error(model, state, StepFailure::BroadPhase(e))),
            None => Ok(changed),
        }
    }

    /// Seed 004 Alg. 1 (Platt) and Alg. 2 (improved), lines 3-9, after a step (see
    /// [`crate::contact`]).
    fn update_handled_set(
        &mut self,
        model: &Model,
        state: &State,
        settings: &Settings,
        start: &StepStart,
    ) -> Result<(), StepError> {
        // g at the new state.
        self.evaluate_constraints(model, state)?;
        let ev = &self.evaluator;
        self.acceleration
            .after_step(settings.inequality, start, ev.c(), &ev.layout().inequality);
        self.state_changed();
        Ok(())
    }

    /// The error of a step that failed for `cause`, at the state it started from, with the
    /// constraint furthest from satisfied at the last evaluation.
    pub(crate) fn step_error(&self, model: &Model, state: &State, cause: StepFailure) -> StepError {
        report::step_error(&self.evaluator, model, state, cause)
    }

    /// Evaluates `q̈` at the current state if not done yet (also refreshes C, Ċ, λ); `report_only`
    /// for a report that has a fallback of its own, and so gives up sooner.
    fn evaluate_current(
        &mut self,
        model: &Model,
        state: &State,
        settings: &Settings,
        report_only: bool,
    ) -> Result<(), StepError> {
        if self.current_acceleration.is_some() {
            return Ok(());
        }
        self.ensure_layout(model, state.q.len());
        // A report with a fallback of its own (an implicit run's, before its first step, which
        // turns to conjugate gradient) gives up after a quarter as many pivots as rows, and
        // fifty: a 20-row pyramid's pivots (a factorization each) wandered for 27 s before
        // giving up at their own limit of twenty a row, and for 3 s at twice a row. The Roman
        // arch's report takes 48 pivots over its 40 rows.
        let pivot_limit = report_only.then(|| self.evaluator.layout().rows() / 4 + 50);
        let mut a = vec![0.0; state.q.len()];
        let mode = Mode {
            choose: true,
            velocity_rate: self.velocity_rate(settings),
            pivot_limit,
        };
        let result = self.acceleration.evaluate(
            &mut self.evaluator,
            model,
            settings,
            mode,
            state.t,
            &state.q,
            &state.v,
            &mut a,
        );
        match result {
            Ok(()) => {
                self.current_acceleration = Some(a);
                Ok(())
            }
            Err(e) => Err(self.step_error(model, state, e.into())),
        }
    }

    /// Refreshes C, Ċ and J at the current state for a report: after an implicit step only
    /// these (its λ is the step's, and an acceleration-level solve of a 10,000-link chain would
    /// cost more than the step); otherwise the whole evaluation, as `evaluate_current`.
    fn evaluate_for_report(
        &mut self,
        model: &Model,
        state: &State,
        settings: &Settings,
    ) -> Result<(), StepError> {
        if self.step_lambda.is_none() {
            let implicit = self.integrator.implicit();
            if !(implicit && self.no_report_forces) {
                let full = self.evaluate_current(model, state, settings, implicit);
                if full.is_ok() || !implicit {
                    return full;
                }
                if self.report_by_conjugate_gradient(model, state, settings) {
                    return Ok(());
                }
            }
            // An implicit run before its first step: the acceleration-level forces are only a
            // report, and where they have no solution the explicit way (an arch's joints,
            // whose friction the accelerations leave indeterminate and wedged) the step itself,
            // which solves at its end, may still have one. No forces until it has run.
            self.no_report_forces = true;
            self.evaluate_constraints(model, state)?;
            let rows = self.evaluator.layout().rows();
            self.acceleration.set_lambda(&vec![0.0; rows]);
            return Ok(());
        }
        self.evaluate_constraints(model, state)
    }

    /// An implicit run's report before its first step, by conjugate gradient where the model's
    /// own solver found none: redundant contacts (a pyramid's) may have no complementary basic
    /// answer by the sparse factor, while conjugate gradient's least-norm split keeps every
    /// held contact pushing. Returns whether it found the forces; the model's solver is back in
    /// place either way.
    fn report_by_conjugate_gradient(
        &mut self,
        model: &Model,
        state: &State,
        settings: &Settings,
    ) -> bool {
        if self.acceleration.solver().name() == "cg" {
            return false;
        }
        let own = self
            .acceleration
            .replace_solver(Box::new(crate::solve::ConjugateGradient::default()));
        // From no force, so that the answer is the least-norm one, not wherever the failed
        // pivots left λ.
        let rows = self.evaluator.layout().rows();
        self.acceleration.set_lambda(&vec![0.0; rows]);
        let found = self.evaluate_current(model, state, settings, true).is_ok();
        self.acceleration.replace_solver(own);
        found
    }

    /// Evaluates the constraints' rows (C, Ċ, J) at `state`, failing as a step from it would.
    fn evaluate_constraints(&mut self, model: &Model, state: &State) -> Result<(), StepError> {
        self.evaluator
            .evaluate_constraints(model, state.t, &state.q, &state.v)
            .map_err(|e| {
                let e = self.evaluator.diverged_instead(e, self.divergence_limit);
                self.step_error(model, state, e.into())
            })
    }

    /// The accelerations `q̈` at the current state.
    pub(crate) fn acceleration(
        &mut self,
        model: &Model,
        state: &State,
        settings: &Settings,
    ) -> Result<&[f64], StepError> {
        self.evaluate_current(model, state, settings, false)?;
        Ok(self.current_acceleration.as_deref().unwrap_or_default())
    }

    /// `(max |C|, max |Ċ|)` at the current state.
    pub(crate) fn constraint_error(
        &mut self,
        model: &Model,
        state: &State,
        settings: &Settings,
    ) -> Result<(f64, f64), StepError> {
        self.evaluate_for_report(model, state, settings)?;
        Ok(self.acceleration.constraint_errors(&self.evaluator))
    }

    /// Each constraint's distance from holding at the current state.
    pub(crate) fn violations(
        &mut self,
        model: &Model,
        state: &State,
    ) -> Result<Vec<Violation>, StepError> {
        self.ensure_layout(model, state.q.len());
        self.evaluate_constraints(model, state)?;
        Ok(assemble::violations(&self.evaluator, model))
    }

    /// Moves `state` onto the constraints (see [`assemble`]); on error it is left as it was.
    pub(crate) fn assemble(
        &mut self,
        model: &Model,
        state: &mut State,
        settings: &Settings,
        options: &Assembly,
    ) -> Result<AssemblyReport, AssemblyError> {
        self.ensure_layout(model, state.q.len());
        let parts = assemble::Parts {
            evaluator: &mut self.evaluator,
            acceleration: &mut self.acceleration,
        };
        let outcome = assemble::assemble(parts, model, state, settings, options);
        // The evaluator was left at an iterate, not at the state: nothing cached holds.
        self.state_changed();
        outcome
    }

    /// Iterations of the most recent λ solve.
    pub(crate) fn last_solver_iterations(&self) -> usize {
        self.acceleration.last_solve().iterations
    }

    /// Energies, constraint errors, multipliers and constraint forces at the current state.
    pub(crate) fn diagnostics(
        &mut self,
        model: &Model,
        state: &State,
        settings: &Settings,
    ) -> Result<Diagnostics, StepError> {
        self.evaluate_for_report(model, state, settings)?;
        Ok(report::diagnostics(
            &self.evaluator,
            &self.acceleration,
            self.step_lambda.as_deref(),
            model,
            state,
        ))
    }

    /// Adds a contact group over `particles` (checked to exist) with restitution `restitution`.
    pub(crate) fn add_contacts(
        &mut self,
        model: &Model,
        particles: &[crate::body::ParticleId],
        restitution: Option<f64>,
    ) -> Result<usize, ModelError> {
        let group = ContactGroup::new(model, particles, restitution)?;
        Ok(self.add_contact_group(group))
    }

    /// Adds a shape contact group.
    /// The group finds the contacts of the state it starts from at once, so that what a run
    /// reports at its start (forces, touching pairs) includes them.
    pub(crate) fn add_shape_contacts(
        &mut self,
        model: &mut Model,
        state: &State,
        spec: &crate::contact::ShapeContacts,
    ) -> Result<usize, ModelError> {
        let mut group = ShapeGroup::new(model, spec)?;
        let mut changed = false;
        group.update(model, state, (0.0, &Pressures::new()), &mut changed)?;
        // Joints added after the group still count as joints at its first step.
        group.forget_joints();
        self.shape_groups.push(group);
        if changed {
            self.structure_changed();
        }
        Ok(self.shape_groups.len() - 1)
    }

    /// Sets the friction of shape group `group` and finds its contacts again at `state`.
    pub(crate) fn set_contact_friction(
        &mut self,
        model: &mut Model,
        state: &State,
        group: usize,
        mu: f64,
    ) -> Result<(), ModelError> {
        let g = self
            .shape_groups
            .get_mut(group)
            .ok_or_else(|| ModelError::Setting(format!("no shape contact group {group}")))?;
        let mut changed = false;
        let result = g
            .set_friction(model, mu, &mut changed)
            .and_then(|()| g.update(model, state, (0.0, &Pressures::new()), &mut changed));
        g.forget_joints();
        if changed {
            self.structure_changed();
        }
        result
    }

    /// The shape contact groups.
    pub(crate) fn shape_groups(&self) -> &[ShapeGroup] {
        &self.shape_groups
    }

    /// The pieces the engine's own tests look inside, with the layout up to date.
    #[cfg(test)]
    pub(crate) fn parts<'a>(&'a mut self, model: &'a Model, state: &'a State) -> Parts<'a> {
        self.ensure_layout(model, state.q.len());
        Parts {
            model,
            evaluator: &mut self.evaluator,
            acceleration: &mut self.acceleration,
            kkt: &mut self.kkt,
        }
    }

    /// The model as the implicit steppers see it (a [`Stage`]), at `state`, lent to `f`: for
    /// the engine's own tests of what the steppers build on it.
    #[cfg(test)]
    pub(crate) fn with_stage<R>(
        &mut self,
        (model, state, settings): (&Model, &State, &Settings),
        f: impl FnOnce(&mut dyn crate::integrate::ConstrainedModel) -> R,
    ) -> R {
        self.ensure_layout(model, state.q.len());
        let mut stats = StepStats::default();
        let velocity_rate = self.velocity_rate(settings);
        let mut stage = Stage {
            model,
            evaluator: &mut self.evaluator,
            acceleration: &mut self.acceleration,
            kkt: &mut self.kkt,
            settings,
            stats: &mut stats,
            first: None,
            started: false,
            velocity_rate,
            assembled_t: state.t,
            assembled_q: Vec::new(),
            assembled_v: Vec::new(),
            additions: &mut self.additions,
            prediction: &mut self.prediction,
        };
        f(&mut stage)
    }
}

/// What [`Pipeline::parts`] lends a test.
#[cfg(test)]
pub(crate) struct Parts<'a> {
    pub(crate) model: &'a Model,
    pub(crate) evaluator: &'a mut Evaluator,
    pub(crate) acceleration: &'a mut Acceleration,
    pub(crate) kkt: &'a mut Kkt,
}
