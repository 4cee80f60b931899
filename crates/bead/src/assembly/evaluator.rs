//! The [`Evaluator`]: every constraint's rows at a state, by the chain rule through its points
//! (seed 000 §4 and §5.1).
//!
//! Each constraint writes its `C`, `∂C/∂t`, `J̇ẋ` and gradients `G_i = ∂C/∂x_i` on its operands
//! (world points, or a body's own coordinates); each operand knows its position `x(q)`, its
//! Jacobian `P = ∂x/∂q_b` and its velocity product `a_vp = (∂²x/∂q²)(q̇, q̇)` ([`crate::point`]).
//! The evaluator turns them into the rows of the global system:
//!
//! ```text
//! J_b = Σ_i G_i P_i       Ċ = Σ_i G_i ẋ_i + ∂C/∂t       J̇q̇ = J̇ẋ + Σ_i G_i a_vp,i
//! ```
//!
//! into the buffers the [`Layout`] placed them in; separations between two particles (rods,
//! contacts between balls) take a loop of their own ([`super::pairs`]). It also keeps `W` up to
//! date for parametric objects, whose mass block changes with their coordinates.

use super::layout::Layout;
use crate::body::BodyKind;
use crate::constraint::ConstraintEval;
use crate::error::{ConstraintError, EvalError};
use crate::math::vector::{copy, zero};
use crate::model::Model;
use crate::point::{OperandKinematics, operand_time_rate, write_operand};

/// The rows of every constraint at the last evaluated state, and the buffers of the chain rule;
/// reused from one evaluation to the next.
#[derive(Debug, Default)]
pub(crate) struct Evaluator {
    layout: Layout,
    /// Each operand's coordinates `x`, velocity `ẋ`, velocity product `a_vp` and Jacobian `P`.
    op_x: Vec<f64>,
    op_v: Vec<f64>,
    op_vp: Vec<f64>,
    op_pjac: Vec<f64>,
    /// Each constraint's gradients on its operands, `rows × k_i` per operand.
    grad: Vec<f64>,
    /// `C`.
    c: Vec<f64>,
    /// `Ċ`.
    c_dot: Vec<f64>,
    /// `J̇q̇` (with the time terms of moving constraints).
    jdot_qdot: Vec<f64>,
    /// `∂C/∂t`: the explicit time derivative, so that `Ċ = J q̇ + ∂C/∂t` can be recomputed for
    /// new velocities (impulses) at the same positions.
    c_t: Vec<f64>,
    /// Scratch of one parametric object's generalized mass and inertial force.
    object_mass: Vec<f64>,
    object_force: Vec<f64>,
    /// Where the stepper holds contacts along their normals at the step's start (see
    /// [`Evaluator::hold_normals`]): `q` there, and the operands' coordinates there.
    held: Option<HeldStart>,
}

/// The state a step starts from, as the constraints that hold contacts along its normals read
/// it.
#[derive(Debug, Default)]
struct HeldStart {
    q: Vec<f64>,
    op_x: Vec<f64>,
}

impl Evaluator {
    /// Installs a new layout; returns the one it replaces.
    pub(crate) fn set_layout(&mut self, layout: Layout) -> Layout {
        let m = layout.rows();
        for v in [
            &mut self.c,
            &mut self.c_dot,
            &mut self.c_t,
            &mut self.jdot_qdot,
        ] {
            v.clear();
            v.resize(m, 0.0);
        }
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
        std::mem::replace(&mut self.layout, layout)
    }

    /// From now on, until called with `None`, the evaluations hold contacts along the normals
    /// they have at `(t, q)`, the start of the step being solved (the implicit steppers' choice;
    /// see [`ConstraintEval::step_start`]). The layout must not change meanwhile.
    pub(crate) fn hold_normals(&mut self, model: &Model, start: Option<(f64, &[f64])>) {
        let layout = &self.layout;
        // Only contacts read the start: a model without inequalities (a chain, a cloth) pays
        // nothing for it at each step.
        let Some((t, q)) = start.filter(|_| layout.inequality.contains(&true)) else {
            self.held = None;
            return;
        };
        let mut held = self.held.take().unwrap_or_default();
        held.q.clear();
        held.q.extend_from_slice(q);
        held.op_x.resize(layout.op_len, 0.0);
        // Only the positions are read; the velocity and Jacobian land in scratch.
        let still = vec![0.0; q.len()];
        let (mut v, mut jacobian, mut product) = (Vec::new(), Vec::new(), Vec::new());
        for &k in &layout.general {
            let slot = &layout.constraints[k];
            let Some(entry) = model.constraints.get(slot.id) else {
                continue;
            };
            let ops = &layout.operands[slot.operands.clone()];
            for (i, (op, os)) in entry.operands.iter().zip(ops).enumerate() {
                let at = slot.x_offset + slot.offsets[i];
                let body = model.body(os.body);
                if os.identity {
                    copy(&mut held.op_x[at..at + os.k], body.slice(q));
                    continue;
                }
                for (buffer, len) in [
                    (&mut v, os.k),
                    (&mut jacobian, os.k * os.ndof),
                    (&mut product, os.k),
                ] {
                    buffer.resize(len, 0.0);
                }
                write_operand(
                    op,
                    body,
                    t,
                    q,
                    &still,
                    OperandKinematics {
                        x: &mut held.op_x[at..at + os.k],
                        v: &mut v,
                        jacobian: &mut jacobian,
                        velocity_product: &mut product,
                    },
                );
            }
        }
        self.held = Some(held);
    }

    /// Whether the evaluations hold contacts along the normals of a step's start.
    pub(crate) fn holds_normals(&self) -> bool {
        self.held.is_some()
    }

    /// Operand coordinates at the held step's start of the constraint in `slot` (see
    /// [`Evaluator::hold_normals`]).
    pub(crate) fn operand_start(&self, slot: &super::layout::ConstraintSlot) -> Option<&[f64]> {
        let n = slot.offsets.last().copied().unwrap_or_default();
        self.held
            .as_ref()
            .map(|h| &h.op_x[slot.x_offset..slot.x_offset + n])
    }

    /// The layout the rows are evaluated in.
    pub(crate) fn layout(&self) -> &Layout {
        &self.layout
    }

    /// `C` at the last evaluated state (0 for velocity rows).
    pub(crate) fn c(&self) -> &[f64] {
        &self.c
    }

    /// The divergence that an evaluation's `error` stands for, if the finite part of its `C`
    /// is past `limit`: a state carried far past divergence overflows a constraint's rate
    /// `J q̇` before its `C` meets the steppers' check (dominoes leaning under RK4: `C` at
    /// 1e134, `J q̇` at infinity), and that is not a fault of the constraint it would name.
    pub(crate) fn diverged_instead(&self, error: EvalError, limit: f64) -> EvalError {
        if !matches!(error, EvalError::Constraint { .. }) {
            return error;
        }
        let max_abs_c = self
            .c
            .iter()
            .filter(|c| c.is_finite())
            .fold(0.0_f64, |m, c| m.max(c.abs()));
        if max_abs_c > limit {
            EvalError::Diverged { max_abs_c, limit }
        } else {
            error
        }
    }

    /// `Ċ = J q̇ + ∂C/∂t` at the last evaluated state.
    pub(crate) fn c_dot(&self) -> &[f64] {
        &self.c_dot
    }

    /// `∂C/∂t` at the last evaluated state.
    pub(crate) fn c_t(&self) -> &[f64] {
        &self.c_t
    }

    /// `J̇q̇` (with the time terms of moving constraints) at the last evaluated state.
    pub(crate) fn jdot_qdot(&self) -> &[f64] {
        &self.jdot_qdot
    }

    /// Operand `i`'s coordinates (world position for a point) of the constraint in `slot`, at
    /// the last evaluation; empty for a particle pair, which the general path does not evaluate.
    pub(crate) fn operand_coordinates(&self, slot: &super::layout::ConstraintSlot) -> &[f64] {
        let n = slot.offsets.last().copied().unwrap_or_default();
        &self.op_x[slot.x_offset..slot.x_offset + n]
    }

    /// The Jacobian `P = ∂x/∂q_b` of an operand, row-major `k × ndof`.
    pub(crate) fn operand_jacobian(&self, os: &super::layout::OperandSlot) -> &[f64] {
        &self.op_pjac[os.pjac_offset..os.pjac_offset + os.k * os.ndof]
    }

    /// The gradients of the constraint in `slot` on its operands, `rows × k_i` per operand one
    /// after the other, at the last evaluation.
    pub(crate) fn gradients(&self, slot: &super::layout::ConstraintSlot) -> &[f64] {
        let n = slot.offsets.last().copied().unwrap_or_default();
        &self.grad[slot.grad_offset..slot.grad_offset + slot.rows.len() * n]
    }

    /// Sets each parametric object's block of `W` from its generalized mass at `(t, q)`, and
    /// given the applied force `Q`, adds its generalized inertial force `−Σ m_i J_iᵀ a_i` to it
    /// (seed 000 eq. 13: the `J̇ u̇` term, with the time terms of a moving object).
    pub(crate) fn refresh_objects(
        &mut self,
        model: &Model,
        (t, q, v): (f64, &[f64], &[f64]),
        applied: Option<&mut [f64]>,
    ) -> Result<(), EvalError> {
        let mut applied = applied;
        for k in 0..self.layout.inv_mass.blocks().len() {
            let body = model.body(self.layout.inv_mass.blocks()[k].body);
            if let BodyKind::Rigid3d { chart, .. } = &body.kind {
                // Its rotation's mass `J_lᵀ I_w J_l`, regular wherever the chart is, and its
                // gyroscopic and chart terms ([`crate::body::chart`]).
                let (qb, vb) = (body.slice(q), body.slice(v));
                self.object_mass.resize(9, 0.0);
                chart.mass_block(qb, &mut self.object_mass);
                let scale = self.object_mass[0] + self.object_mass[4] + self.object_mass[8];
                if !self.layout.inv_mass.set_block(k, &self.object_mass, scale) {
                    return Err(EvalError::WholeTurn {
                        body: crate::ids::BodyId(self.layout.inv_mass.blocks()[k].body),
                        turn: (qb[3] * qb[3] + qb[4] * qb[4] + qb[5] * qb[5]).sqrt(),
                    });
                }
                if let Some(applied) = applied.as_deref_mut() {
                    let force = chart.inertial_force(qb, vb);
                    for (a, f) in body.slice_mut(applied)[3..].iter_mut().zip(&force) {
                        *a += f;
                    }
                }
                continue;
            }
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
            if let Some(applied) = applied.as_deref_mut() {
                for (a, f) in body.slice_mut(applied).iter_mut().zip(&self.object_force) {
                    *a += f;
                }
            }
        }
        Ok(())
    }

    /// `(max |C|, max |Ċ|)` over the rows that are errors: every equality row; for an inequality,
    /// only its violation `max(−g, 0)`, and its rate only while it is `held` (takes part in the
    /// solve).
    pub(crate) fn constraint_errors(&self, held: impl Fn(usize) -> bool) -> (f64, f64) {
        let (mut c, mut c_dot) = (0.0_f64, 0.0_f64);
        for i in 0..self.c.len() {
            if self.layout.inequality[i] {
                c = c.max(-self.c[i]);
                if held(i) {
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
    pub(crate) fn jacobian_scale(&self) -> f64 {
        self.layout
            .jacobian
            .values()
            .iter()
            .fold(0.0_f64, |m, v| m.max(v.abs()))
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
        self.refresh_objects(model, (t, q, v), None)?;
        self.evaluate_rows(model, t, q, v)
    }

    /// The constraints' part of [`Evaluator::evaluate_constraints`], `W` left as it is.
    pub(crate) fn evaluate_rows(
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
            held,
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
                start: held.as_ref().map(|h| &h.op_x[xs.clone()]),
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
                        jdot_qdot[rows.start + r] +=
                            crate::math::vector::dot(gr, &op_vp[at..at + os.k]);
                    }
                    c_dot[rows.start + r] += crate::math::vector::dot(gr, &op_v[at..at + os.k]);
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
                        c_t[rows.start + r] += crate::math::vector::dot(gr, &x_t[..os.k]);
                    }
                }
            }
        }
        let rows = super::pairs::Rows {
            c,
            c_dot,
            c_t,
            jdot_qdot,
            jacobian: layout.jacobian.values_mut(),
        };
        let start = held.as_ref().map(|h| (&h.q[..], &layout.inequality[..]));
        layout.pairs.evaluate(model, (q, v), rows, start)?;
        // What is not finite is looked for in one pass over everything; only then, slot by
        // slot, for the constraint to name.
        let all = |x: &[f64]| crate::math::vector::all_finite(x);
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
