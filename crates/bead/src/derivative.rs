//! The derivative evaluation: Witkin's four steps (seed 000 §4.1).
//!
//! Given `(t, q, q̇)`, compute `q̈`:
//!
//! 1. [`Evaluator::clear_forces`] — zero the force accumulator `Q`;
//! 2. [`Evaluator::apply_forces`] — every force object adds into `Q`;
//! 3. [`Evaluator::constraint_forces`] — every constraint writes its slice of `C`, `Ċ`, `J̇q̇` and its
//!    blocks of `J`; solve seed 000 eq. 11,
//!    `J W Jᵀ λ = −J̇q̇ − J W Q − k_s C − k_d Ċ`, and form `Q̂ = Jᵀλ`;
//! 4. [`Evaluator::accelerations`] — `q̈ = W (Q + Q̂)`.
//!
//! The order matters: constraint forces must see every applied force (step 3 after step 2), and
//! the feedback terms enter the right-hand side, *inside* the solve — added after it, the
//! constraint force would "dutifully cancel" them (seed 000 §2.2).
//!
//! The [`Layout`] (which rows belong to which constraint, which blocks of `J` exist) is built when
//! the model's structure changes; each evaluation only refills values.

use std::ops::Range;

use crate::body::BodyKind;
use crate::constraint::{ConstraintEval, ConstraintId, ConstraintKind};
use crate::contact::active_set::{ActiveSet, Effort, Rows, threshold};
use crate::error::{ConstraintError, EvalError};
use crate::force::ForceContext;
use crate::inverse_mass::InverseMass;
use crate::model::Model;
use crate::particle_pair::{self, ParticlePair, ParticlePairs};
use crate::point::{
    Operand, OperandKinematics, Point, operand_size, operand_time_rate, write_operand,
};
use crate::settings::Settings;
use crate::solve::complementarity::Failure;
use crate::solve::{Bounds, MultiplierMatrix, SolveError, SolveInfo, SolveParams};
use crate::sparse::BlockSparse;
use crate::vector::{copy, zero};

/// Where each constraint's rows, operands and Jacobian blocks live.
#[derive(Debug, Default)]
pub(crate) struct Layout {
    pub(crate) constraints: Vec<ConstraintSlot>,
    /// The constraints that are separations of two particles, which the evaluator computes in
    /// a loop of their own ([`particle_pair`]).
    pub(crate) pairs: ParticlePairs,
    /// The other constraints (their indices in `constraints`), evaluated one by one.
    general: Vec<usize>,
    pub(crate) operands: Vec<OperandSlot>,
    pub(crate) jacobian: BlockSparse,
    /// The body (slot index) of each block of `J`.
    pub(crate) block_bodies: Vec<usize>,
    /// Whether each row is an inequality `g ≥ 0`.
    pub(crate) inequality: Vec<bool>,
    /// Whether each row holds a velocity only (a motor): its target is its own speed law, not
    /// the position feedback.
    pub(crate) velocity: Vec<bool>,
    /// Each row's own bounds on λ (a motor's torque limit), `(−∞, ∞)` for most.
    pub(crate) bounds: Vec<(f64, f64)>,
    pub(crate) inv_mass: InverseMass,
    op_len: usize,
    grad_len: usize,
    pjac_len: usize,
}

/// One constraint's place in the global vectors.
#[derive(Debug)]
pub(crate) struct ConstraintSlot {
    /// The constraint (its slot in the model, and the generation that tells it from a later
    /// occupant of the slot).
    pub(crate) id: ConstraintId,
    /// Rows of `C`, `λ`.
    pub(crate) rows: Range<usize>,
    pub(crate) operands: Range<usize>,
    /// Start of each operand in this constraint's coordinate buffer, then the total.
    pub(crate) offsets: Vec<usize>,
    pub(crate) x_offset: usize,
    pub(crate) grad_offset: usize,
    /// Jacobian blocks, one per distinct body.
    pub(crate) blocks: Range<usize>,
    /// Where its row lies when the constraint is a separation of two particles: the evaluator
    /// computes those in a loop of their own.
    pub(crate) pair: Option<ParticlePair>,
}

#[derive(Debug)]
pub(crate) struct OperandSlot {
    pub(crate) body: usize,
    pub(crate) k: usize,
    pub(crate) ndof: usize,
    pub(crate) pjac_offset: usize,
    pub(crate) block: usize,
    /// Whether `∂x/∂q_b` is the identity (a particle's point, a body's own coordinates).
    pub(crate) identity: bool,
}

impl Layout {
    /// Builds the layout of `model`: rows, operand buffers and the block pattern of `J`.
    pub(crate) fn build(model: &Model, ndof: usize) -> Layout {
        let mut layout = Layout {
            jacobian: BlockSparse::new(ndof),
            ..Default::default()
        };
        layout.inv_mass = inverse_mass(model, ndof);
        let mut row = 0;
        for (id, entry) in model.constraints.iter() {
            let mut bodies: Vec<usize> = Vec::new();
            for op in &entry.operands {
                let b = op.body().0;
                if !bodies.contains(&b) {
                    bodies.push(b);
                }
            }
            let columns: Vec<(usize, usize)> = bodies
                .iter()
                .map(|&b| {
                    let body = model.body(b);
                    (body.offset, body.ndof)
                })
                .collect();
            let first_block = layout.jacobian.add_band(entry.rows, &columns);
            let kind = entry.constraint.kind();
            layout.inequality.extend(std::iter::repeat_n(
                kind == ConstraintKind::Inequality,
                entry.rows,
            ));
            layout.velocity.extend(std::iter::repeat_n(
                kind == ConstraintKind::Velocity,
                entry.rows,
            ));
            layout.bounds.extend(std::iter::repeat_n(
                entry.constraint.multiplier_bounds(),
                entry.rows,
            ));
            layout.block_bodies.extend(&bodies);
            let first_op = layout.operands.len();
            let mut offsets = vec![0];
            for op in &entry.operands {
                let body = op.body().0;
                let k = operand_size(op, model.dim, model.body(body).ndof);
                let ndof = model.body(body).ndof;
                let position = bodies.iter().position(|&b| b == body).unwrap_or_default();
                let identity = k == ndof
                    && match op {
                        Operand::Point(Point::Particle(_)) => {
                            matches!(model.body(body).kind, BodyKind::Particle)
                        }
                        Operand::Coordinates(_) => true,
                        Operand::Point(_) => false,
                    };
                layout.operands.push(OperandSlot {
                    body,
                    k,
                    ndof,
                    pjac_offset: layout.pjac_len,
                    block: first_block + position,
                    identity,
                });
                layout.pjac_len += k * ndof;
                offsets.push(offsets.last().copied().unwrap_or_default() + k);
            }
            let total = offsets.last().copied().unwrap_or_default();
            let pair = match entry.operands.as_slice() {
                [a, b] if entry.constraint.separation().is_some() => ParticlePair::of(
                    (id, row, entry.rows),
                    &layout.operands[first_op..],
                    [a, b].map(|op| model.body(op.body().0).offset),
                    model.dim,
                    |block| layout.jacobian.blocks()[block].offset,
                ),
                _ => None,
            };
            layout.pairs.extend(pair);
            if pair.is_none() {
                layout.general.push(layout.constraints.len());
            }
            layout.constraints.push(ConstraintSlot {
                id,
                rows: row..row + entry.rows,
                operands: first_op..layout.operands.len(),
                offsets,
                x_offset: layout.op_len,
                grad_offset: layout.grad_len,
                blocks: first_block..first_block + bodies.len(),
                pair,
            });
            // A pair's row is written from q directly: it needs no operand or gradient buffers.
            if pair.is_none() {
                layout.op_len += total;
                layout.grad_len += entry.rows * total;
            }
            row += entry.rows;
        }
        layout
    }

    /// Total number of constraint rows.
    pub(crate) fn rows(&self) -> usize {
        self.jacobian.nrows()
    }

    /// The bounds on the rows' multipliers.
    pub(crate) fn bounds(&self) -> Bounds<'_> {
        Bounds::new(&self.inequality, &self.bounds)
    }

    /// The constraint (slot index) each row belongs to.
    pub(crate) fn row_constraint(&self, row: usize) -> Option<&ConstraintSlot> {
        let k = self.constraints.partition_point(|s| s.rows.end <= row);
        self.constraints.get(k).filter(|s| s.rows.contains(&row))
    }
}

/// `W` of a model's bodies: their diagonals, and a dense block (filled at each evaluation) for
/// each body whose mass depends on its coordinates.
fn inverse_mass(model: &Model, ndof: usize) -> InverseMass {
    let mut diagonal = vec![0.0; ndof];
    for body in model.bodies.iter().flatten() {
        body.write_inv_mass(body.slice_mut(&mut diagonal));
    }
    let mut w = InverseMass::diagonal_of(diagonal);
    for (i, body) in model.bodies.iter().enumerate() {
        if let Some(body) = body
            && let BodyKind::Parametric { .. } = body.kind
        {
            w.add_block(i, body.offset, body.ndof);
        }
    }
    w
}

/// How one derivative evaluation treats the rows that take part.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Mode {
    /// Choose the active set at this state (the first evaluation of a step, or a query), or keep
    /// the one chosen at the step's start (the later stages of a step).
    pub(crate) choose: bool,
    /// The rate, in 1/s, at which velocity rows (motors) drive their speed error to zero.
    pub(crate) velocity_rate: f64,
}

/// The buffers of one derivative evaluation, and the solver; reused from one evaluation to the next.
#[derive(Debug)]
pub(crate) struct Evaluator {
    pub(crate) layout: Layout,
    pub(crate) op_x: Vec<f64>,
    op_v: Vec<f64>,
    op_vp: Vec<f64>,
    pub(crate) op_pjac: Vec<f64>,
    pub(crate) grad: Vec<f64>,
    /// `C`.
    pub(crate) c: Vec<f64>,
    /// `Ċ`.
    pub(crate) c_dot: Vec<f64>,
    /// `J̇q̇` (with the time terms of moving constraints).
    pub(crate) jdot_qdot: Vec<f64>,
    /// `∂C/∂t`: the explicit time derivative, so that `Ċ = J q̇ + ∂C/∂t` can be recomputed for
    /// new velocities (impulses) at the same positions.
    pub(crate) c_t: Vec<f64>,
    /// Right-hand side of eq. 11, `b = d − J W Q`.
    rhs: Vec<f64>,
    /// `λ`, kept between evaluations as the warm start.
    pub(crate) lambda: Vec<f64>,
    /// Applied force `Q`.
    pub(crate) applied: Vec<f64>,
    /// Scratch of one parametric object's generalized mass and inertial force.
    object_mass: Vec<f64>,
    object_force: Vec<f64>,
    /// Constraint force `Q̂ = Jᵀλ`.
    pub(crate) constraint_force: Vec<f64>,
    tmp: Vec<f64>,
    pub(crate) solver: Box<dyn crate::solve::LinearSolver>,
    /// The last solve's statistics (iterations summed over its active-set passes).
    pub(crate) last_solve: SolveInfo,
    /// Solves the last evaluation needed to choose its rows (1 without inequalities).
    pub(crate) active_set_passes: usize,
    /// The rows taking part (seed 004's `F⁺` with the equalities), chosen at a step's start.
    pub(crate) active: ActiveSet,
    /// `w = J q̈ − d` per row at the last evaluation: negative means a violation tendency.
    pub(crate) tendency: Vec<f64>,
    /// Row targets `d`: `−J̇q̇ − k_s C − k_d Ċ`, or a velocity row's `−J̇q̇ − r Ċ`.
    target: Vec<f64>,
    /// Inequality rows that may take part at the last chosen state.
    pub(crate) candidates: Vec<bool>,
    /// How far each held row may stay off its target when redundant contacts disagree: the
    /// terms of a contact's target that are not in the range of `J` (its curvature term `J̇q̇`
    /// and the feedback on its own gap); 0 for every other row.
    allowance: Vec<f64>,
    /// The threshold ε of the last evaluation.
    pub(crate) eps: f64,
    /// The implicit steppers' Newton system, with its cached analysis.
    pub(crate) kkt: crate::solve::kkt::Kkt,
}

impl Evaluator {
    pub(crate) fn new(solver: Box<dyn crate::solve::LinearSolver>) -> Self {
        Evaluator {
            layout: Layout::default(),
            op_x: Vec::new(),
            op_v: Vec::new(),
            op_vp: Vec::new(),
            op_pjac: Vec::new(),
            grad: Vec::new(),
            c: Vec::new(),
            c_dot: Vec::new(),
            jdot_qdot: Vec::new(),
            c_t: Vec::new(),
            rhs: Vec::new(),
            lambda: Vec::new(),
            applied: Vec::new(),
            object_mass: Vec::new(),
            object_force: Vec::new(),
            constraint_force: Vec::new(),
            tmp: Vec::new(),
            solver,
            last_solve: SolveInfo::default(),
            active_set_passes: 0,
            active: ActiveSet::default(),
            tendency: Vec::new(),
            target: Vec::new(),
            candidates: Vec::new(),
            allowance: Vec::new(),
            eps: 0.0,
            kkt: Default::default(),
        }
    }

    /// Installs a new layout, keeping λ of the constraints that survive as the warm start.
    pub(crate) fn set_layout(&mut self, layout: Layout, ndof: usize) {
        let mut lambda = vec![0.0; layout.rows()];
        // Old and new slots are both sorted by slot index: one merge pass matches them. A slot now
        // held by another constraint (another generation) starts from zero.
        let mut old = self.layout.constraints.iter().peekable();
        for new in &layout.constraints {
            while old.next_if(|o| o.id.index < new.id.index).is_some() {}
            if let Some(o) = old.peek()
                && o.id == new.id
                && o.rows.len() == new.rows.len()
                && o.rows.end <= self.lambda.len()
            {
                lambda[new.rows.clone()].copy_from_slice(&self.lambda[o.rows.clone()]);
            }
        }
        self.lambda = lambda;
        let m = layout.rows();
        self.active.reset(m);
        for v in [
            &mut self.tendency,
            &mut self.target,
            &mut self.c,
            &mut self.c_dot,
            &mut self.c_t,
            &mut self.jdot_qdot,
            &mut self.rhs,
        ] {
            v.clear();
            v.resize(m, 0.0);
        }
        self.candidates.clear();
        self.candidates.resize(m, false);
        self.allowance.clear();
        self.allowance.resize(m, 0.0);
        for v in [&mut self.op_x, &mut self.op_v, &mut self.op_vp] {
            v.resize(layout.op_len, 0.0);
        }
        self.op_pjac.resize(layout.pjac_len, 0.0);
        // Identity operands' P is never written by an evaluation (see `evaluate_rows`), but the
        // geometric stiffness reads it: P = I is set here, once per layout.
        for os in layout.operands.iter().filter(|os| os.identity) {
            let p = &mut self.op_pjac[os.pjac_offset..os.pjac_offset + os.k * os.ndof];
            zero(p);
            for r in 0..os.k {
                p[r * os.ndof + r] = 1.0;
            }
        }
        self.grad.resize(layout.grad_len, 0.0);
        for v in [&mut self.applied, &mut self.constraint_force, &mut self.tmp] {
            v.clear();
            v.resize(ndof, 0.0);
        }
        self.layout = layout;
    }

    /// `q̈` at `(t, q, q̇)`: the four steps of seed 000 §4.1.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn evaluate(
        &mut self,
        model: &Model,
        settings: &Settings,
        mode: Mode,
        t: f64,
        q: &[f64],
        v: &[f64],
        a: &mut [f64],
    ) -> Result<(), EvalError> {
        self.clear_forces();
        self.apply_forces(model, t, q, v)?;
        self.constraint_forces(model, settings, mode, t, q, v)?;
        self.accelerations(a)
    }

    /// Sets each parametric object's block of `W` from its generalized mass at `(t, q)`, and
    /// with `forces` adds its generalized inertial force `−Σ m_i J_iᵀ a_i` to `Q` (seed 000
    /// eq. 13: the `J̇ u̇` term, with the time terms of a moving object).
    pub(crate) fn refresh_objects(
        &mut self,
        model: &Model,
        t: f64,
        q: &[f64],
        v: &[f64],
        forces: bool,
    ) -> Result<(), EvalError> {
        for k in 0..self.layout.inv_mass.blocks().len() {
            let body = model.body(self.layout.inv_mass.blocks()[k].body);
            let BodyKind::Parametric {
                name, points, dim, ..
            } = &body.kind
            else {
                continue;
            };
            let n = body.ndof;
            self.object_mass.resize(n * n, 0.0);
            self.object_force.clear();
            self.object_force.resize(n, 0.0);
            let scale = crate::body::generalized_mass(
                points,
                *dim,
                body.slice(q),
                body.slice(v),
                t,
                &mut self.object_mass,
                &mut self.object_force,
            );
            if !self.layout.inv_mass.set_block(k, &self.object_mass, scale) {
                return Err(EvalError::SingularMass {
                    object: name.clone(),
                    coordinates: body.slice(q).to_vec(),
                });
            }
            if forces {
                for (a, f) in body
                    .slice_mut(&mut self.applied)
                    .iter_mut()
                    .zip(&self.object_force)
                {
                    *a += f;
                }
            }
        }
        Ok(())
    }

    /// Step 1: zero the force accumulator.
    pub(crate) fn clear_forces(&mut self) {
        self.applied.fill(0.0);
    }

    /// Step 2: every force object adds its forces into `Q`.
    pub(crate) fn apply_forces(
        &mut self,
        model: &Model,
        t: f64,
        q: &[f64],
        v: &[f64],
    ) -> Result<(), EvalError> {
        let view = crate::view::View {
            t,
            dim: model.dim,
            bodies: &model.bodies,
            q,
            v,
        };
        let mut ctx = ForceContext {
            view,
            applied: &mut self.applied,
        };
        for force in model.forces.iter().flatten() {
            force.apply(&mut ctx);
        }
        self.refresh_objects(model, t, q, v, true)?;
        if !crate::vector::all_finite(&self.applied) {
            return Err(EvalError::NonFinite("the applied force Q".into()));
        }
        Ok(())
    }

    /// Step 3: assemble eq. 11, solve for λ (choosing or keeping the rows that take part), and
    /// form `Q̂ = Jᵀλ`.
    fn constraint_forces(
        &mut self,
        model: &Model,
        settings: &Settings,
        mode: Mode,
        t: f64,
        q: &[f64],
        v: &[f64],
    ) -> Result<(), EvalError> {
        let (feedback, params) = (&settings.feedback, &settings.solve);
        if self.layout.rows() == 0 {
            self.constraint_force.fill(0.0);
            return Ok(());
        }
        // `apply_forces` has just set the objects' blocks of W at this state.
        self.evaluate_rows(model, t, q, v)?;
        // Row targets d: position rows follow the feedback law of eq. 11; a velocity row (a
        // motor) has no position to feed back, and drives its speed error Ċ to zero at its own
        // rate, whatever gains the position rows use.
        for i in 0..self.target.len() {
            let c = self.c[i];
            self.target[i] = if self.layout.velocity[i] {
                -self.jdot_qdot[i] - mode.velocity_rate * self.c_dot[i]
            } else {
                -self.jdot_qdot[i] - feedback.ks * c - feedback.kd * self.c_dot[i]
            };
        }
        // b = d − J W Q
        self.layout.inv_mass.apply(&self.applied, &mut self.tmp);
        self.layout.jacobian.mul(&self.tmp, &mut self.rhs);
        for i in 0..self.rhs.len() {
            self.rhs[i] = self.target[i] - self.rhs[i];
        }
        // The terms b is made of set the scale below which its residual is rounding noise.
        let max_abs = |x: &[f64]| x.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
        let scale = max_abs(&self.jdot_qdot)
            + max_abs(&self.tmp) * self.jacobian_scale()
            + feedback.ks * max_abs(&self.c)
            + feedback.kd.max(mode.velocity_rate) * max_abs(&self.c_dot);
        let floor = params.tolerance * scale * (self.rhs.len() as f64).sqrt();
        let params = SolveParams {
            absolute_tolerance: params.absolute_tolerance.max(floor),
            ..*params
        };
        self.eps = threshold(&self.rhs);
        self.last_solve = SolveInfo::default();
        // Without a bounded row (an inequality, a motor's limit) every row holds: nothing to
        // choose.
        if !self.layout.bounds().any() {
            let matrix = MultiplierMatrix::new(&self.layout.jacobian, &self.layout.inv_mass);
            self.last_solve = match self
                .solver
                .solve(&matrix, &self.rhs, &mut self.lambda, &params)
            {
                Err(SolveError::Inconsistent { residual }) => {
                    return Err(self.conflict_error(model, &matrix, residual));
                }
                other => other?,
            };
            self.active_set_passes = 1;
        } else {
            if mode.choose {
                self.find_candidates(settings);
                self.find_allowances(settings);
            }
            let rows = Rows {
                a: MultiplierMatrix::new(&self.layout.jacobian, &self.layout.inv_mass),
                b: &self.rhs,
                bounds: self.layout.bounds(),
                candidates: &self.candidates,
                allowance: &self.allowance,
                eps: self.eps,
            };
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
            let effort: Effort = outcome.map_err(|f| self.complementarity_error(model, f))?;
            self.active_set_passes = effort.solves;
            self.last_solve = SolveInfo {
                iterations: effort.iterations,
                residual: effort.residual,
            };
        }
        self.layout
            .jacobian
            .mul_transpose(&self.lambda, &mut self.constraint_force);
        Ok(())
    }

    /// The inequality rows that may take part at this state: active (`g ≤ tolerance`, seed
    /// 004 §2.3, with the tolerance floating point needs), unless impacts are on and the row moves
    /// faster than the rest speed: one closing is an impact for the impulses
    /// ([`crate::contact`]'s impact module) — given to the solve, its feedback damping would stop
    /// it softly within a step and leak momentum — and one opening is leaving, which held it
    /// would be held back and fed energy. A violated row (g < 0) recovering under its feedback
    /// stays, whatever its speed: left out, gravity would push it back in. `Ċ` here is
    /// `J q̇ + ∂g/∂t`: a floor that rises at 1 m/s under a ball at rest is closing.
    fn find_candidates(&mut self, settings: &Settings) {
        for i in 0..self.c.len() {
            let (g, g_dot) = (self.c[i], self.c_dot[i]);
            let moving = settings.impacts != crate::contact::Impacts::Off
                && (g_dot < -settings.rest_speed || (g >= 0.0 && g_dot > settings.rest_speed));
            self.candidates[i] =
                self.layout.inequality[i] && g <= settings.contact_tolerance && !moving;
        }
    }

    /// Each row's allowance: for an inequality, the size of its target's terms that are not in
    /// the range of `J` (see [`Evaluator::allowance`]), and ε; 0 for every other row, which
    /// must hold to the solve's tolerance.
    fn find_allowances(&mut self, settings: &Settings) {
        for i in 0..self.c.len() {
            let g = self.c[i];
            self.allowance[i] = if self.layout.inequality[i] {
                self.jdot_qdot[i].abs() + settings.feedback.ks * g.abs() + self.eps
            } else {
                0.0
            };
        }
    }

    /// An inconsistent multiplier system, with the constraints that pull against each other
    /// named.
    fn conflict_error(&self, model: &Model, a: &MultiplierMatrix<'_>, residual: f64) -> EvalError {
        self.conflict_among(model, a, &self.rhs, 0.0)
            .unwrap_or(EvalError::Solve(SolveError::Inconsistent { residual }))
    }

    /// The constraints that pull against each other in `a x = b`: those whose rows carry the
    /// part of `b` no `x` produces (at least 1 % of its largest entry, the rest being what the
    /// least squares left of rounding) — when that part is more than `share` of `b` (by norm).
    pub(crate) fn conflict_among(
        &self,
        model: &Model,
        a: &MultiplierMatrix<'_>,
        b: &[f64],
        share: f64,
    ) -> Option<EvalError> {
        let part = crate::solve::conflict::unreachable_part(a, b);
        let norm = |x: &[f64]| x.iter().map(|v| v * v).sum::<f64>().sqrt();
        let (part_norm, b_norm) = (norm(&part), norm(b));
        if !(part_norm > share * b_norm) {
            return None;
        }
        let largest = part.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
        let mut constraints: Vec<String> = Vec::new();
        for slot in &self.layout.constraints {
            let carried = part[slot.rows.clone()]
                .iter()
                .fold(0.0_f64, |m, v| m.max(v.abs()));
            if carried > 0.01 * largest
                && let Some(entry) = model.constraints.get(slot.id)
                && !constraints.contains(&entry.name)
            {
                constraints.push(entry.name.clone());
            }
        }
        (!constraints.is_empty()).then_some(EvalError::Conflict {
            constraints,
            residual: part_norm / b_norm,
        })
    }

    /// A failed complementarity solve, with the rows named by their constraints.
    pub(crate) fn complementarity_error(&self, model: &Model, failure: Failure) -> EvalError {
        let name = |row: usize| -> String {
            self.layout
                .row_constraint(row)
                .and_then(|slot| model.constraints.get(slot.id))
                .map_or_else(|| format!("row {row}"), |e| e.name.clone())
        };
        match failure {
            Failure::Solve(e) => EvalError::Solve(e),
            Failure::Unbounded { row } => EvalError::Complementarity {
                constraints: vec![name(row)],
                reason: "a row conflicts with the constraints held, whatever its force".into(),
            },
            Failure::PivotLimit { pivots, rows } => {
                let mut constraints: Vec<String> = rows.iter().map(|&r| name(r)).collect();
                constraints.dedup();
                EvalError::Complementarity {
                    constraints,
                    reason: format!("no complementary solution after {pivots} pivots"),
                }
            }
        }
    }

    /// `(max |C|, max |Ċ|)` over the rows that are errors: every equality row; for an inequality,
    /// only its violation `max(−g, 0)`, and its rate only while it is handled.
    pub(crate) fn constraint_errors(&self) -> (f64, f64) {
        let (mut c, mut c_dot) = (0.0_f64, 0.0_f64);
        for i in 0..self.c.len() {
            if self.layout.inequality[i] {
                c = c.max(-self.c[i]);
                if self.active.is_held(i) {
                    c_dot = c_dot.max(self.c_dot[i].abs());
                }
            } else {
                c = c.max(self.c[i].abs());
                c_dot = c_dot.max(self.c_dot[i].abs());
            }
        }
        (c, c_dot)
    }

    /// Largest |entry| of `J` (1 for the unit-gradient built-ins).
    fn jacobian_scale(&self) -> f64 {
        self.layout
            .jacobian
            .values()
            .iter()
            .fold(0.0_f64, |m, v| m.max(v.abs()))
    }

    /// Step 4: `q̈ = W (Q + Q̂)`.
    fn accelerations(&mut self, a: &mut [f64]) -> Result<(), EvalError> {
        for ((ai, f), fc) in a.iter_mut().zip(&self.applied).zip(&self.constraint_force) {
            *ai = f + fc;
        }
        self.layout.inv_mass.apply_in_place(a);
        if !crate::vector::all_finite(a) {
            return Err(EvalError::NonFinite("the acceleration".into()));
        }
        Ok(())
    }

    /// Every constraint writes `C`, `Ċ`, `J̇q̇` and its blocks of `J` at `(t, q, q̇)`, and the
    /// parametric objects' blocks of `W` are set there.
    pub(crate) fn evaluate_constraints(
        &mut self,
        model: &Model,
        t: f64,
        q: &[f64],
        v: &[f64],
    ) -> Result<(), EvalError> {
        self.refresh_objects(model, t, q, v, false)?;
        self.evaluate_rows(model, t, q, v)
    }

    /// The constraints' part of [`Evaluator::evaluate_constraints`], `W` left as it is.
    fn evaluate_rows(
        &mut self,
        model: &Model,
        t: f64,
        q: &[f64],
        v: &[f64],
    ) -> Result<(), EvalError> {
        let Evaluator {
            layout,
            op_x,
            op_v,
            op_vp,
            op_pjac,
            grad,
            c,
            c_dot,
            c_t,
            jdot_qdot,
            ..
        } = self;
        // Every row, gradient and block starts at zero, in one pass each rather than a few
        // entries at a time (a constraint writes only what it has); the particle pairs write
        // all of theirs, so a model of nothing else (a cloth, a chain) needs none of it.
        if !layout.general.is_empty() {
            for x in [&mut *c, &mut *c_dot, &mut *jdot_qdot, &mut *grad] {
                x.fill(0.0);
            }
            layout.jacobian.values_mut().fill(0.0);
        }
        for &k in &layout.general {
            let slot = &layout.constraints[k];
            let Some(entry) = model.constraints.get(slot.id) else {
                continue;
            };
            let fail = |source: ConstraintError| EvalError::Constraint {
                id: slot.id,
                name: entry.name.clone(),
                source,
            };
            let ops = &layout.operands[slot.operands.clone()];
            let len = slot.offsets.last().copied().unwrap_or_default();
            let xs = slot.x_offset..slot.x_offset + len;
            for (i, (op, os)) in entry.operands.iter().zip(ops).enumerate() {
                let at = slot.x_offset + slot.offsets[i];
                if os.identity {
                    // A particle's point or a body's own coordinates: x and ẋ are the body's,
                    // P = I was written with the layout, and a_vp = 0 is never read.
                    let body = model.body(os.body);
                    copy(&mut op_x[at..at + os.k], body.slice(q));
                    copy(&mut op_v[at..at + os.k], body.slice(v));
                    continue;
                }
                write_operand(
                    op,
                    model.body(os.body),
                    t,
                    q,
                    v,
                    OperandKinematics {
                        x: &mut op_x[at..at + os.k],
                        v: &mut op_v[at..at + os.k],
                        jacobian: &mut op_pjac[os.pjac_offset..os.pjac_offset + os.k * os.ndof],
                        velocity_product: &mut op_vp[at..at + os.k],
                    },
                );
            }
            let rows = slot.rows.clone();
            let nrows = rows.len();
            let g = &mut grad[slot.grad_offset..slot.grad_offset + nrows * len];
            let mut eval = ConstraintEval {
                t,
                dim: model.dim,
                offsets: &slot.offsets,
                x: &op_x[xs.clone()],
                v: &op_v[xs.clone()],
                c: &mut c[rows.clone()],
                c_t: &mut c_dot[rows.clone()],
                jdot_xdot: &mut jdot_qdot[rows.clone()],
                gradient: &mut *g,
            };
            entry.constraint.evaluate(&mut eval).map_err(fail)?;
            copy(&mut c_t[rows.clone()], &c_dot[rows.clone()]);

            // Chain rule through each operand: J_b += G P, Ċ += G ẋ, J̇q̇ += G a_vp.
            for (i, os) in ops.iter().enumerate() {
                let at = slot.x_offset + slot.offsets[i];
                let gi = &g[nrows * slot.offsets[i]..nrows * (slot.offsets[i] + os.k)];
                let p = &op_pjac[os.pjac_offset..os.pjac_offset + os.k * os.ndof];
                let block = layout.jacobian.block_values_mut(os.block);
                for r in 0..nrows {
                    let gr = &gi[r * os.k..(r + 1) * os.k];
                    let row = &mut block[r * os.ndof..(r + 1) * os.ndof];
                    if os.identity {
                        // A particle's point or a body's own coordinates: P = I, a_vp = 0.
                        for (b, gk) in row.iter_mut().zip(gr) {
                            *b += gk;
                        }
                    } else {
                        for (kk, gk) in gr.iter().enumerate() {
                            if *gk != 0.0 {
                                for (col, b) in row.iter_mut().enumerate() {
                                    *b += gk * p[kk * os.ndof + col];
                                }
                            }
                        }
                        jdot_qdot[rows.start + r] += crate::vector::dot(gr, &op_vp[at..at + os.k]);
                    }
                    c_dot[rows.start + r] += crate::vector::dot(gr, &op_v[at..at + os.k]);
                }
                // A point that moves by itself (an object written in t) adds G ∂x/∂t to ∂C/∂t,
                // which impacts and velocity rows read apart from J q̇.
                let mut x_t = [0.0; 3];
                if !os.identity
                    && os.k <= 3
                    && operand_time_rate(
                        &entry.operands[i],
                        model.body(os.body),
                        t,
                        q,
                        &mut x_t[..os.k],
                    )
                {
                    for r in 0..nrows {
                        let gr = &gi[r * os.k..(r + 1) * os.k];
                        c_t[rows.start + r] += crate::vector::dot(gr, &x_t[..os.k]);
                    }
                }
            }
        }
        let rows = particle_pair::Rows {
            c,
            c_dot,
            c_t,
            jdot_qdot,
            jacobian: layout.jacobian.values_mut(),
        };
        layout.pairs.evaluate(model, (q, v), rows)?;
        // What is not finite is looked for in one pass over everything; only then, slot by
        // slot, for the constraint to name.
        let all = |x: &[f64]| crate::vector::all_finite(x);
        if all(c) && all(c_dot) && all(jdot_qdot) && all(grad) {
            return Ok(());
        }
        for slot in &layout.constraints {
            let rows = slot.rows.clone();
            let len = slot.offsets.last().copied().unwrap_or_default();
            let g = match slot.pair {
                Some(_) => &[][..],
                None => &grad[slot.grad_offset..slot.grad_offset + rows.len() * len],
            };
            if !(all(&c[rows.clone()])
                && all(&c_dot[rows.clone()])
                && all(&jdot_qdot[rows])
                && all(g))
            {
                return Err(EvalError::Constraint {
                    id: slot.id,
                    name: model
                        .constraints
                        .get(slot.id)
                        .map(|e| e.name.clone())
                        .unwrap_or_default(),
                    source: ConstraintError::new("produced a value that is not finite"),
                });
            }
        }
        Ok(())
    }
}
