//! The derivative evaluation of the explicit integrators: Witkin's four steps (seed 000 §4.1).
//!
//! Given `(t, q, q̇)`, compute `q̈`:
//!
//! 1. [`Acceleration::clear_forces`] — zero the force accumulator `Q`;
//! 2. [`Acceleration::apply_forces`] — every force object adds into `Q`;
//! 3. [`Acceleration::constraint_forces`] — every constraint writes its slice of `C`, `Ċ`, `J̇q̇`
//!    and its blocks of `J` ([`Evaluator`]); solve seed 000 eq. 11,
//!    `J W Jᵀ λ = −J̇q̇ − J W Q − k_s C − k_d Ċ`, and form `Q̂ = Jᵀλ`;
//! 4. [`Acceleration::accelerations`] — `q̈ = W (Q + Q̂)`.
//!
//! The order matters: constraint forces must see every applied force (step 3 after step 2), and
//! the feedback terms enter the right-hand side, *inside* the solve — added after it, the
//! constraint force would "dutifully cancel" them (seed 000 §2.2). Where rows have bounds
//! (inequalities, a motor's limit), step 3 chooses the rows that take part
//! ([`super::active_set`], seed 004).

use super::active_set::{ActiveSet, Effort, Rows, StepStart, threshold};
use super::conflicts::{complementarity_error, conflict_among};
use crate::assembly::{Evaluator, Layout};
use crate::error::EvalError;
use crate::force::{ForceContext, ObjectForce};
use crate::model::Model;
use crate::settings::Settings;
use crate::solve::{LinearSolver, MultiplierMatrix, SolveError, SolveInfo, SolveParams, Targets};

/// How one derivative evaluation treats the rows that take part.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Mode {
    /// Choose the active set at this state (the first evaluation of a step, or a query), or keep
    /// the one chosen at the step's start (the later stages of a step).
    pub(crate) choose: bool,
    /// The rate, in 1/s, at which velocity rows (motors) drive their speed error to zero.
    pub(crate) velocity_rate: f64,
    /// Pivots the complementarity solve may take before it gives up; `None` for its own limit
    /// (see [`crate::solve::complementarity`]). A solve that is only a report, with a fallback
    /// of its own, takes fewer.
    pub(crate) pivot_limit: Option<usize>,
}

/// What the derivative evaluation keeps from one evaluation to the next: the forces `Q` and
/// `Q̂`, the multipliers λ (the warm start of the next solve), the solver, and the rows chosen to
/// take part.
#[derive(Debug)]
pub(crate) struct Acceleration {
    /// Applied force `Q`.
    applied: Vec<f64>,
    /// The world forces at parametric objects' points that make part of `Q`.
    object_forces: Vec<ObjectForce>,
    /// Constraint force `Q̂ = Jᵀλ`.
    constraint_force: Vec<f64>,
    /// `W Q`, scratch.
    tmp: Vec<f64>,
    /// Right-hand side of eq. 11, `b = d − J W Q`.
    rhs: Vec<f64>,
    /// Row targets `d`: `−J̇q̇ − k_s C − k_d Ċ`, or a velocity row's `−J̇q̇ − r Ċ`.
    target: Vec<f64>,
    /// `λ`, kept between evaluations as the warm start.
    lambda: Vec<f64>,
    solver: Box<dyn LinearSolver>,
    /// The last solve's statistics (iterations summed over its active-set passes).
    last_solve: SolveInfo,
    /// Solves the last evaluation needed to choose its rows (1 without inequalities).
    active_set_passes: usize,
    /// The rows taking part (seed 004's `F⁺` with the equalities), chosen at a step's start.
    active: ActiveSet,
    /// `w = J q̈ − d` per row at the last evaluation: negative means a violation tendency.
    tendency: Vec<f64>,
    /// Inequality rows that may take part at the last chosen state.
    candidates: Vec<bool>,
    /// Inequality rows that rested on their support through the step that reached the current
    /// state: held in the set chosen at its start and still pushing (λ > 0) at its last stage.
    /// Up to what the integrator's step leaves ([`Acceleration::rest_window`]), their gap and
    /// their approach speed are its error, not a distance to close or an impact (see
    /// [`Acceleration::find_candidates`]).
    resting: Vec<bool>,
    /// Per row whose support moves, the largest `|J̇q̇|` (the support's acceleration along the
    /// normal, with the curvature terms) seen since the row began resting: the offset a step
    /// leaves follows the acceleration with the feedback's delay, so the window remembers it.
    rest_acceleration: Vec<f64>,
    /// The size of the step that left the rows resting.
    rest_step: f64,
    /// How far each held row may stay off its target when redundant contacts disagree: the
    /// terms of a contact's target that are not in the range of `J` (its curvature term `J̇q̇`
    /// and the feedback on its own gap); 0 for every other row.
    allowance: Vec<f64>,
    /// The threshold ε of the last evaluation.
    eps: f64,
    /// Each friction row's slide at the last chosen state (see [`Rows::slide`]), aimed again at
    /// each later stage of the step for a 3D contact.
    slide: Vec<f64>,
    /// The slides as chosen at the step's start.
    slide_start: Vec<f64>,
    /// The diagonal of `J W Jᵀ` at the step's start, where 3D contacts have friction (see
    /// [`Acceleration::find_slides`]).
    diagonal: Vec<f64>,
    /// Each row's tolerance on `w` (see [`Rows::slack_w`]).
    slack: Vec<f64>,
}

impl Acceleration {
    /// An evaluation that solves for λ with `solver`.
    pub(crate) fn new(solver: Box<dyn LinearSolver>) -> Self {
        Acceleration {
            applied: Vec::new(),
            object_forces: Vec::new(),
            constraint_force: Vec::new(),
            tmp: Vec::new(),
            rhs: Vec::new(),
            target: Vec::new(),
            lambda: Vec::new(),
            solver,
            last_solve: SolveInfo::default(),
            active_set_passes: 0,
            active: ActiveSet::default(),
            tendency: Vec::new(),
            candidates: Vec::new(),
            resting: Vec::new(),
            rest_acceleration: Vec::new(),
            rest_step: 0.0,
            allowance: Vec::new(),
            eps: 0.0,
            slide: Vec::new(),
            slide_start: Vec::new(),
            diagonal: Vec::new(),
            slack: Vec::new(),
        }
    }

    /// Takes a new layout (`old` the one it replaces), keeping λ of the constraints that
    /// survive as the warm start.
    pub(crate) fn relayout(&mut self, old: &Layout, layout: &Layout, ndof: usize) {
        let mut lambda = vec![0.0; layout.rows()];
        // A contact resting on an accelerating floor stays resting when a pair elsewhere comes
        // or goes (a pile's broad phase changes the layout at most steps).
        let mut resting = vec![false; layout.rows()];
        let mut rest_acceleration = vec![0.0; layout.rows()];
        // Old and new slots are both sorted by slot index: one merge pass matches them. A slot now
        // held by another constraint (another generation) starts from zero.
        let mut old = old.constraints.iter().peekable();
        for new in &layout.constraints {
            while old.next_if(|o| o.id.index < new.id.index).is_some() {}
            if let Some(o) = old.peek()
                && o.id == new.id
                && o.rows.len() == new.rows.len()
                && o.rows.end <= self.lambda.len()
            {
                lambda[new.rows.clone()].copy_from_slice(&self.lambda[o.rows.clone()]);
                if o.rows.end <= self.resting.len() {
                    resting[new.rows.clone()].copy_from_slice(&self.resting[o.rows.clone()]);
                    rest_acceleration[new.rows.clone()]
                        .copy_from_slice(&self.rest_acceleration[o.rows.clone()]);
                }
            }
        }
        self.lambda = lambda;
        self.resting = resting;
        self.rest_acceleration = rest_acceleration;
        let m = layout.rows();
        self.active.reset(m);
        for v in [&mut self.tendency, &mut self.target, &mut self.rhs] {
            v.clear();
            v.resize(m, 0.0);
        }
        self.candidates.clear();
        self.candidates.resize(m, false);
        self.allowance.clear();
        self.allowance.resize(m, 0.0);
        self.slide.clear();
        self.slide.resize(m, 0.0);
        self.slide_start.clear();
        self.slide_start.resize(m, 0.0);
        self.slack.clear();
        self.slack.resize(m, 0.0);
        for v in [&mut self.applied, &mut self.constraint_force, &mut self.tmp] {
            v.clear();
            v.resize(ndof, 0.0);
        }
    }

    /// `q̈` at `(t, q, q̇)`: the four steps of seed 000 §4.1.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn evaluate(
        &mut self,
        ev: &mut Evaluator,
        model: &Model,
        settings: &Settings,
        mode: Mode,
        t: f64,
        q: &[f64],
        v: &[f64],
        a: &mut [f64],
    ) -> Result<(), EvalError> {
        self.clear_forces();
        self.apply_forces(ev, model, (t, q, v), true)?;
        self.constraint_forces(ev, model, settings, mode, (t, q, v))?;
        self.accelerations(ev, a)
    }

    /// `Q` at `(t, q, q̇)`, with the parametric objects' mass blocks of `W` taken there (what
    /// the implicit steppers' momentum residual reads at each iterate), and the world forces
    /// at the objects' points that make part of it. `inertial_terms` adds the objects'
    /// velocity-product terms, which the implicit steppers form otherwise.
    pub(crate) fn applied_force(
        &mut self,
        ev: &mut Evaluator,
        model: &Model,
        state: (f64, &[f64], &[f64]),
        inertial_terms: bool,
    ) -> Result<(&[f64], &[ObjectForce]), EvalError> {
        self.clear_forces();
        self.apply_forces(ev, model, state, inertial_terms)?;
        Ok((&self.applied, &self.object_forces))
    }

    /// The world forces at parametric objects' points from the last evaluation of `Q`.
    pub(crate) fn object_forces(&self) -> &[ObjectForce] {
        &self.object_forces
    }

    /// Step 1: zero the force accumulator.
    fn clear_forces(&mut self) {
        self.applied.fill(0.0);
    }

    /// Step 2: every force object adds its forces into `Q` (and the parametric objects their
    /// velocity-product terms, where `inertial_terms` asks).
    fn apply_forces(
        &mut self,
        ev: &mut Evaluator,
        model: &Model,
        (t, q, v): (f64, &[f64], &[f64]),
        inertial_terms: bool,
    ) -> Result<(), EvalError> {
        let view = crate::view::View {
            t,
            dim: model.dim,
            bodies: &model.bodies,
            q,
            v,
        };
        self.object_forces.clear();
        let mut ctx = ForceContext {
            view,
            applied: &mut self.applied,
            object_forces: &mut self.object_forces,
        };
        for force in model.forces.iter().flatten() {
            force.apply(&mut ctx);
        }
        let applied = inertial_terms.then_some(self.applied.as_mut_slice());
        ev.refresh_objects(model, (t, q, v), applied)?;
        if !crate::math::vector::all_finite(&self.applied) {
            return Err(EvalError::NonFinite("the applied force Q".into()));
        }
        Ok(())
    }

    /// Step 3: assemble eq. 11, solve for λ (choosing or keeping the rows that take part), and
    /// form `Q̂ = Jᵀλ`.
    fn constraint_forces(
        &mut self,
        ev: &mut Evaluator,
        model: &Model,
        settings: &Settings,
        mode: Mode,
        (t, q, v): (f64, &[f64], &[f64]),
    ) -> Result<(), EvalError> {
        let (feedback, params) = (&settings.feedback, &settings.solve);
        if ev.layout().rows() == 0 {
            self.constraint_force.fill(0.0);
            return Ok(());
        }
        // `apply_forces` has just set the objects' blocks of W at this state.
        ev.evaluate_rows(model, t, q, v)
            .map_err(|e| ev.diverged_instead(e, settings.divergence_limit))?;
        let layout = ev.layout();
        // Row targets d: position rows follow the feedback law of eq. 11; a velocity row (a
        // motor) has no position to feed back, and drives its speed error Ċ to zero at its own
        // rate, whatever gains the position rows use.
        let (c, c_dot, jdot_qdot) = (ev.c(), ev.c_dot(), ev.jdot_qdot());
        let targets = Targets::new(&layout.velocity);
        for i in 0..self.target.len() {
            self.target[i] = targets.acceleration(
                i,
                (c[i], c_dot[i], jdot_qdot[i]),
                (feedback.ks, feedback.kd),
                mode.velocity_rate,
            );
        }
        // b = d − J W Q
        layout.inv_mass.apply(&self.applied, &mut self.tmp);
        layout.jacobian.mul(&self.tmp, &mut self.rhs);
        for i in 0..self.rhs.len() {
            self.rhs[i] = self.target[i] - self.rhs[i];
        }
        // The terms b is made of set the scale below which its residual is rounding noise.
        let max_abs = |x: &[f64]| x.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
        let scale = max_abs(jdot_qdot)
            + max_abs(&self.tmp) * ev.jacobian_scale()
            + feedback.ks * max_abs(c)
            + feedback.kd.max(mode.velocity_rate) * max_abs(c_dot);
        let floor = params.tolerance * scale * (self.rhs.len() as f64).sqrt();
        let params = SolveParams {
            absolute_tolerance: params.absolute_tolerance.max(floor),
            ..*params
        };
        self.eps = threshold(&self.rhs);
        for (s, f) in self.slack.iter_mut().zip(&layout.friction) {
            *s = if f.is_some() {
                crate::solve::complementarity::DEPENDENT_ROUNDING * self.eps
            } else {
                0.0
            };
        }
        self.last_solve = SolveInfo::default();
        // Without a bounded row (an inequality, a motor's limit) every row holds: nothing to
        // choose.
        if !layout.bounds().any() {
            let matrix = MultiplierMatrix::new(&layout.jacobian, &layout.inv_mass);
            self.last_solve = match self
                .solver
                .solve(&matrix, &self.rhs, &mut self.lambda, &params)
            {
                Err(SolveError::Inconsistent { residual }) => {
                    return Err(self.conflict_error(layout, model, &matrix, residual));
                }
                other => other?,
            };
            self.active_set_passes = 1;
        } else {
            if mode.choose {
                self.find_candidates(ev, settings);
                self.find_allowances(ev, settings, mode.velocity_rate);
                self.find_slides(ev, settings, mode);
            } else {
                self.aim_slides(ev);
            }
            let rows = Rows {
                a: MultiplierMatrix::new(&layout.jacobian, &layout.inv_mass),
                b: &self.rhs,
                bounds: layout.bounds(),
                candidates: &self.candidates,
                allowance: &self.allowance,
                eps: self.eps,
                slide: &self.slide,
                slack_w: &self.slack,
            };
            self.active.set_pivot_limit(mode.pivot_limit);
            let outcome = if mode.choose {
                self.active.choose(
                    settings.inequality,
                    &rows,
                    self.solver.as_mut(),
                    &params,
                    &mut self.lambda,
                    &mut self.tendency,
                )
            } else {
                self.active.keep(
                    &rows,
                    self.solver.as_mut(),
                    &params,
                    &mut self.lambda,
                    &mut self.tendency,
                )
            };
            let effort: Effort = outcome.map_err(|f| complementarity_error(layout, model, f))?;
            self.active_set_passes = effort.solves;
            self.last_solve = SolveInfo {
                iterations: effort.iterations,
                residual: effort.residual,
            };
        }
        layout
            .jacobian
            .mul_transpose(&self.lambda, &mut self.constraint_force);
        Ok(())
    }

    /// Each friction row's slide at this state: the sign of its contact's tangential speed
    /// where that exceeds [`stick_speed`], else 0 (it sticks, and its row holds the speed at
    /// zero); for a 3D contact's two rows, the components of its slip's unit direction.
    ///
    /// A 3D contact that was not sliding through the last step starts to slide only once its
    /// speed passes [`onset_speed`] as well. Below it the friction's direction `−v/|v|` turns
    /// faster than an explicit step can follow (a slip across the slide of `v_⊥` is braked at
    /// the rate `μ λ_n A_tt / |v|`, and beyond `2/dt` each step throws it back larger: a crate
    /// starting down an incline spun and swerved on the rounding of its speed). There the
    /// contact's rows hold its tangential speed to zero at the velocity rows' rate, within its
    /// circle: it slips, from rest, against the acceleration it would have. A slide already
    /// under way goes on down to the stick speed, where its stop is located inside the step.
    fn find_slides(&mut self, ev: &Evaluator, settings: &Settings, mode: Mode) {
        let layout = ev.layout();
        let c_dot = ev.c_dot();
        let limit = stick_speed(settings, mode.velocity_rate);
        let bounds = layout.bounds();
        if bounds.any_circle() {
            self.diagonal.resize(c_dot.len(), 0.0);
            MultiplierMatrix::new(&layout.jacobian, &layout.inv_mass).diagonal(&mut self.diagonal);
        }
        for (i, f) in layout.friction.iter().enumerate() {
            let (speed, onset) = match (bounds.sibling(i), f) {
                (Some(j), Some((normal, mu))) => {
                    let sliding = self.slide_start[i] != 0.0 || self.slide_start[j] != 0.0;
                    let normal_force = self.lambda.get(*normal).copied().unwrap_or(0.0);
                    // One onset for the contact's two rows, so they slide or stick together.
                    let a_tt = self.diagonal[i].max(self.diagonal[j]);
                    let onset = onset_speed(*mu * normal_force, a_tt, mode);
                    (c_dot[i].hypot(c_dot[j]), if sliding { 0.0 } else { onset })
                }
                _ => (c_dot[i].abs(), 0.0),
            };
            self.slide[i] = match f {
                Some(_) if speed > limit.max(onset) => c_dot[i] / speed,
                _ => 0.0,
            };
        }
        self.slide_start.clone_from(&self.slide);
    }

    /// Aims each sliding 3D contact's slide along its slip at this stage of the step: its
    /// friction force stays against the slip as the slip turns (a box sliding across an
    /// incline curves downhill), so the integrator keeps its order. A stage whose slip has no
    /// part left along the step's start slide keeps that one: the slide stops inside the step,
    /// an event ([`crate::step`]), and turned against a reversed slip the friction would push
    /// the stages' average back up to speed. A 2D slide's sign holds through the step.
    fn aim_slides(&mut self, ev: &Evaluator) {
        let layout = ev.layout();
        let (c_dot, bounds) = (ev.c_dot(), layout.bounds());
        let m = self.slide.len();
        let pairs = (0..m).filter_map(|i| bounds.sibling(i).filter(|&j| j > i).map(|j| (i, j)));
        for (i, j) in pairs {
            let start = (self.slide_start[i], self.slide_start[j]);
            let speed = c_dot[i].hypot(c_dot[j]);
            (self.slide[i], self.slide[j]) = if c_dot[i] * start.0 + c_dot[j] * start.1 > 0.0 {
                (c_dot[i] / speed, c_dot[j] / speed)
            } else {
                start
            };
        }
    }

    /// Row `i`'s slide as chosen at the step's start (see [`Rows::slide`]).
    pub(crate) fn slide(&self, i: usize) -> f64 {
        self.slide_start.get(i).copied().unwrap_or(0.0)
    }

    /// The inequality rows that may take part at this state: in contact, unless impacts are on
    /// and the row moves faster than the rest speed: one closing is an impact for the impulses
    /// ([`crate::contact`]'s impact module) — given to the solve, its feedback damping would stop
    /// it softly within a step and leak momentum — and one opening is leaving, which held it
    /// would be held back and fed energy. A violated row (g < 0) recovering under its feedback
    /// stays, whatever its speed: left out, gravity would push it back in. `Ċ` here is
    /// `J q̇ + ∂g/∂t`: a floor that rises at 1 m/s under a ball at rest is closing.
    ///
    /// In contact is touching (`g ≤ tolerance`, seed 004 §2.3, with the tolerance floating point
    /// needs), or resting within what the last step leaves (see [`Acceleration::rest_window`]):
    /// a row that step held, that still pushed at its end, and whose gap and speed are within
    /// the integration error the step leaves between a body and a moving support. Judged by the
    /// tolerance alone, a ball on a floor accelerating upward was left out after every
    /// symplectic Euler step, hit again by its floor, and read λ = 0 (issue 28). Beyond the
    /// window a resting row is judged as any other; and it leaves as a contact really leaves:
    /// the solve drops it where it would have to pull, and an impulse that throws it off ends
    /// its rest ([`Acceleration::end_rest_if_leaving`]).
    fn find_candidates(&mut self, ev: &Evaluator, settings: &Settings) {
        let (c, c_dot, inequality) = (ev.c(), ev.c_dot(), &ev.layout().inequality);
        for i in 0..c.len() {
            // A resting row remembers its support's largest acceleration; any other starts
            // from this state's, which the step that may leave it resting starts from.
            let sample = support_acceleration(ev, i);
            self.rest_acceleration[i] = if self.resting[i] {
                self.rest_acceleration[i].max(sample)
            } else {
                sample
            };
            let (g, g_dot) = (c[i], c_dot[i]);
            let (gap, speed) = self.rest_window(i, settings).unwrap_or((0.0, 0.0));
            let in_contact = g <= settings.contact_tolerance + gap;
            let moving = settings.impacts != crate::contact::Impacts::Off
                && (g_dot < -(settings.rest_speed + speed)
                    || (g >= 0.0 && g_dot > settings.rest_speed + speed));
            self.candidates[i] = inequality[i] && in_contact && !moving;
        }
    }

    /// How far beyond the contact tolerance (in `g`), and how much faster than the rest speed
    /// (in `ġ`, closing or opening), row `i` may be and still rest on its support: `None` if it
    /// does not rest (see [`Acceleration::resting`]).
    ///
    /// A step that holds a body on a support accelerating at `a` along the normal (`|J̇q̇|`:
    /// `−n̂·p̈` for a floor, with the curvature terms of a curved one) leaves it off the support
    /// by its integration error. Explicit and symplectic Euler put the body `½ h² a` a step off
    /// (symplectic Euler above the support: its position takes the new speed, a whole step of
    /// `a`; explicit Euler below: the old one). Held, the row answers with its feedback
    /// `−k_s g − k_d ġ`, which settles where the two terms cancel: the body approaching at
    /// `½ h a`, `(k_d / k_s) · ½ h a` off (0.5 mm and 2.5 mm/s at h = 1 ms, a = 5 m/s², the
    /// default gains). For the default, critically damped, gains the offset approaches this
    /// without overshoot. The gap window is that plus one step's `½ h² a`; the speed window
    /// twice the settled speed, `h a`, for the approach and for the speed a changing
    /// acceleration adds (`½ h² ȧ` a step, held by the damping at `h ȧ / (2 k_d)`: 2.5 mm/s on
    /// a table shaking at 20 rad/s with `a` up to g/2, at h = 1 ms, half its `h a`).
    ///
    /// The higher-order schemes leave less. Midpoint's half-step stage sits `h² a / 8` off the
    /// support, to which the feedback holds its end state, plus `(k_d / k_s) h² ȧ / 24` where
    /// the acceleration changes (1 µm on a table shaking at 20 rad/s with `a` up to g/2 at
    /// h = 1 ms); RK4's stages cancel theirs, to `O(h⁴)` (9 nm on that table at h = 5 ms,
    /// already past the 1 nm tolerance). The Euler schemes' windows bound these, and serve every
    /// explicit integrator.
    ///
    /// Only a row whose support moves (`∂g/∂t ≠ 0` at some state it rested in) gets a window.
    /// On a fixed support the offset comes from the curvature terms of the body's own motion
    /// alone, small for a body at rest on it; and a window there keeps contacts beyond the
    /// tolerance that a pile's redundant contacts push apart, held and pulled back by their
    /// feedback: a settling pile then never settles (1e-9 J of jitter in a dozen balls under
    /// RK4, for a window of a hundredth of `h² |J̇q̇|`). Without position feedback (`k_s = 0`)
    /// nothing bounds the offset, as nothing bounds an equality's drift: the gap window is
    /// unbounded. The offset lags the acceleration by the feedback's time, so `a` is the
    /// largest seen while the row has rested (a table's acceleration passes through zero twice
    /// a period, where the offset does not).
    fn rest_window(&self, i: usize, settings: &Settings) -> Option<(f64, f64)> {
        if !self.resting.get(i).copied().unwrap_or(false) {
            return None;
        }
        let (a, h, f) = (self.rest_acceleration[i], self.rest_step, settings.feedback);
        if !(a > 0.0) {
            return Some((0.0, 0.0));
        }
        let memory = if f.ks > 0.0 {
            f.kd / f.ks
        } else {
            f64::INFINITY
        };
        Some((0.5 * h * a * (h + memory), h * a))
    }

    /// Whether row `i` is in contact with its support at gap `g`: touching (`g ≤ tolerance`) or
    /// resting within what the last step leaves (see [`Acceleration::find_candidates`]).
    pub(crate) fn in_contact(&self, i: usize, g: f64, settings: &Settings) -> bool {
        let (gap, _) = self.rest_window(i, settings).unwrap_or((0.0, 0.0));
        g <= settings.contact_tolerance + gap
    }

    /// Whether row `i`, in contact, approaches at `ġ` fast enough to be an impact: faster than
    /// the rest speed, and for a resting row than the integration error its step leaves.
    pub(crate) fn approach_is_impact(&self, i: usize, g_dot: f64, settings: &Settings) -> bool {
        let (_, speed) = self.rest_window(i, settings).unwrap_or((0.0, 0.0));
        g_dot < -(settings.rest_speed + speed)
    }

    /// After an explicit step of size `h` has reached the current state: the rows held from its
    /// start (the set its first stage chose, kept by every stage) that still push at its last
    /// stage are resting. `ev` holds the last evaluation, one more sample of the accelerations
    /// the rows rested against.
    pub(crate) fn remember_resting(&mut self, ev: &Evaluator, h: f64) {
        self.rest_step = h;
        let inequality = &ev.layout().inequality;
        for i in 0..inequality.len() {
            self.resting[i] = inequality[i] && self.active.is_held(i) && self.lambda[i] > 0.0;
            self.rest_acceleration[i] = if self.resting[i] {
                self.rest_acceleration[i].max(support_acceleration(ev, i))
            } else {
                0.0
            };
        }
    }

    /// After impulses: a resting row they left opening faster than `rest_speed` (`ġ`, row by
    /// row) was thrown off its support, and is judged by its gap and speed again.
    pub(crate) fn end_rest_if_leaving(&mut self, g_dot: impl Fn(usize) -> f64, rest_speed: f64) {
        for i in 0..self.resting.len() {
            if self.resting[i] && g_dot(i) > rest_speed {
                self.resting[i] = false;
            }
        }
    }

    /// No row is resting: the state was set from outside (or an implicit step reached it), so
    /// every contact is judged by its gap again.
    pub(crate) fn forget_resting(&mut self) {
        self.resting.fill(false);
    }

    /// Each row's allowance: for an inequality, the size of its target's terms that are not in
    /// the range of `J` (see [`Acceleration::allowance`]), and ε; 0 for every other row, which
    /// must hold to the solve's tolerance.
    fn find_allowances(&mut self, ev: &Evaluator, settings: &Settings, rate: f64) {
        let (c, jdot_qdot, inequality) = (ev.c(), ev.jdot_qdot(), &ev.layout().inequality);
        let (c_dot, velocity) = (ev.c_dot(), &ev.layout().velocity);
        for i in 0..c.len() {
            let g = c[i];
            self.allowance[i] = if inequality[i] {
                jdot_qdot[i].abs() + settings.feedback.ks * g.abs() + self.eps
            } else if velocity[i] {
                // A velocity row's target (a friction row's, a motor's) has the same kind of
                // terms: its curvature and the feedback on its own speed error, which redundant
                // rows need not share (a box's two corners on another box; a car's two driven
                // wheels gripping one road). Such loops are also nearly singular, and their
                // least-squares rounding is that of dependent rows (see `slack`).
                jdot_qdot[i].abs()
                    + rate * c_dot[i].abs()
                    + crate::solve::complementarity::DEPENDENT_ROUNDING * self.eps
            } else {
                0.0
            };
        }
    }

    /// An inconsistent multiplier system, with the constraints that pull against each other
    /// named.
    fn conflict_error(
        &self,
        layout: &Layout,
        model: &Model,
        a: &MultiplierMatrix<'_>,
        residual: f64,
    ) -> EvalError {
        conflict_among(layout, model, a, &self.rhs, 0.0)
            .unwrap_or(EvalError::Solve(SolveError::Inconsistent { residual }))
    }

    /// Step 4: `q̈ = W (Q + Q̂)`.
    fn accelerations(&mut self, ev: &Evaluator, a: &mut [f64]) -> Result<(), EvalError> {
        for ((ai, f), fc) in a.iter_mut().zip(&self.applied).zip(&self.constraint_force) {
            *ai = f + fc;
        }
        ev.layout().inv_mass.apply_in_place(a);
        if !crate::math::vector::all_finite(a) {
            return Err(EvalError::NonFinite("the acceleration".into()));
        }
        Ok(())
    }

    /// λ of the last solve (or as the implicit steppers recorded it).
    pub(crate) fn lambda(&self) -> &[f64] {
        &self.lambda
    }

    /// Records the multipliers of an implicit step: the forces it applied, and the next
    /// evaluation's warm start.
    pub(crate) fn set_lambda(&mut self, lambda: &[f64]) {
        self.lambda.clear();
        self.lambda.extend_from_slice(lambda);
    }

    /// The λ solver.
    pub(crate) fn solver(&self) -> &dyn LinearSolver {
        self.solver.as_ref()
    }

    /// The λ solver, for the other solves of a step (impulses, projection).
    pub(crate) fn solver_mut(&mut self) -> &mut dyn LinearSolver {
        self.solver.as_mut()
    }

    /// Replaces the λ solver.
    pub(crate) fn set_solver(&mut self, solver: Box<dyn LinearSolver>) {
        self.solver = solver;
    }

    /// Replaces the λ solver, returning the one it replaces.
    pub(crate) fn replace_solver(
        &mut self,
        solver: Box<dyn LinearSolver>,
    ) -> Box<dyn LinearSolver> {
        std::mem::replace(&mut self.solver, solver)
    }

    /// The last solve's statistics (iterations summed over its active-set passes).
    pub(crate) fn last_solve(&self) -> SolveInfo {
        self.last_solve
    }

    /// Solves the last evaluation needed to choose its rows (1 without inequalities).
    pub(crate) fn active_set_passes(&self) -> usize {
        self.active_set_passes
    }

    /// Whether row `i` took part in the last solve as a held row (for an inequality: is in `F⁺`).
    pub(crate) fn is_held(&self, i: usize) -> bool {
        self.active.is_held(i)
    }

    /// `(max |C|, max |Ċ|)` over the rows of the last evaluation that are errors (see
    /// [`Evaluator::constraint_errors`]; an inequality's rate counts while it is held).
    pub(crate) fn constraint_errors(&self, ev: &Evaluator) -> (f64, f64) {
        ev.constraint_errors(|i| self.active.is_held(i))
    }

    /// What Platt's and the improved algorithm remember of this step's start (seed 004 Alg. 1-2).
    pub(crate) fn step_start(&self) -> StepStart {
        StepStart {
            lambda: self.lambda.clone(),
            w: self.tendency.clone(),
            candidates: self.candidates.clone(),
            eps: self.eps,
        }
    }

    /// Updates Platt's and the improved algorithm's handled set after a step, from its start and
    /// `g` at its end (seed 004 Alg. 1-2, lines 3-9).
    pub(crate) fn after_step(
        &mut self,
        method: crate::contact::InequalityMethod,
        start: &StepStart,
        g_end: &[f64],
        inequality: &[bool],
    ) {
        self.active.after_step(method, start, g_end, inequality);
    }
}

/// The speed a 3D contact at rest must pass before its friction follows its slip's direction:
/// `2 dt R A_tt`, where `R = μ λ_n` is its cone's radius and `A_tt` the larger of its tangent
/// rows' entries of `J W Jᵀ`, so that a slip across the slide is braked at a rate of at most `1/(2 dt)` (see
/// [`Acceleration::find_slides`]); 0 where no step size is known.
fn onset_speed(radius: f64, a_tt: f64, mode: Mode) -> f64 {
    if mode.velocity_rate > 0.0 {
        2.0 * radius.max(0.0) * a_tt / mode.velocity_rate
    } else {
        0.0
    }
}

/// The tangential speed below which a contact sticks: the contact tolerance covered in a step
/// (`tolerance × rate`, the rate `1/dt`); 1 µm/s at the defaults and dt = 1 ms. A slide slower
/// than that moves its contact less than the tolerance in a step; the friction row holds it at
/// zero from then on. With no step size known, the tolerance per second.
pub(crate) fn stick_speed(settings: &Settings, rate: f64) -> f64 {
    settings.contact_tolerance * rate.max(1.0)
}

/// Row `i`'s acceleration term `|J̇q̇|` at the last evaluation if its support moves there
/// (`∂g/∂t ≠ 0`), else 0: what a resting row's window is sized by (see
/// [`Acceleration::rest_window`]). A fixed support's `∂g/∂t` is exactly zero (its constraint has
/// no time terms), as is a pair contact's.
fn support_acceleration(ev: &Evaluator, i: usize) -> f64 {
    if ev.c_t()[i] != 0.0 {
        ev.jdot_qdot()[i].abs()
    } else {
        0.0
    }
}
