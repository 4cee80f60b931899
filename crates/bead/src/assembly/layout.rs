//! The [`Layout`] of a model's constraints in the global vectors: which rows belong to which
//! constraint, which blocks of `J` exist (one per constraint and body, seed 000 §4.2–4.3), where
//! each operand's chain-rule buffers lie, each row's kind and bounds, and `W`.
//!
//! It is built when the model's structure changes (a body, a constraint added or removed) and
//! stays while only values change: every evaluation refills values into the same places.

use std::ops::Range;

use super::pairs::{ParticlePair, ParticlePairs};
use crate::body::{Body, BodyKind};
use crate::constraint::{ConstraintId, ConstraintKind};
use crate::math::inverse_mass::InverseMass;
use crate::math::sparse::BlockSparse;
use crate::model::Model;
use crate::point::{Operand, Point, operand_size};
use crate::solve::Bounds;

/// Where each constraint's rows, operands and Jacobian blocks live.
#[derive(Debug, Default)]
pub(crate) struct Layout {
    pub(crate) constraints: Vec<ConstraintSlot>,
    /// The constraints that are separations of two particles, which the evaluator computes in
    /// a loop of their own ([`super::pairs`]).
    pub(crate) pairs: ParticlePairs,
    /// The other constraints (their indices in `constraints`), evaluated one by one.
    pub(super) general: Vec<usize>,
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
    /// A friction row's normal row (global index) and Coulomb coefficient: its λ is bounded by
    /// `±μ λ_n`.
    pub(crate) friction: Vec<Option<(usize, f64)>>,
    pub(crate) inv_mass: InverseMass,
    pub(super) op_len: usize,
    pub(super) grad_len: usize,
    pub(super) pjac_len: usize,
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

impl OperandSlot {
    /// Whether the operand is a whole particle of a `dim`-dimensional system: its point is the
    /// body's coordinates (`P = I`).
    pub(crate) fn whole_particle(&self, dim: usize) -> bool {
        self.identity && self.k == dim && self.ndof == dim
    }
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
            for r in 0..entry.rows {
                let kind = entry.constraint.row_kind(r);
                layout.inequality.push(kind == ConstraintKind::Inequality);
                layout.velocity.push(kind == ConstraintKind::Velocity);
                let friction = entry.constraint.friction(r);
                layout
                    .friction
                    .push(friction.map(|f| (row + f.normal, f.coefficient)));
                layout.bounds.push(entry.constraint.multiplier_bounds());
            }
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
            // A one-row separation between two whole particles (P = I, on different bodies) is
            // evaluated in a loop of its own.
            let pair = match (entry.operands.as_slice(), &layout.operands[first_op..]) {
                ([a, b], [sa, sb])
                    if entry.constraint.separation().is_some()
                        && entry.rows == 1
                        && sa.whole_particle(model.dim)
                        && sb.whole_particle(model.dim)
                        && sa.body != sb.body =>
                {
                    let block = |s: &OperandSlot| layout.jacobian.blocks()[s.block].offset;
                    Some(ParticlePair::new(
                        id,
                        row,
                        [a, b].map(|op| model.body(op.body().0).offset),
                        [block(sa), block(sb)],
                    ))
                }
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
        Bounds::new(&self.inequality, &self.bounds, &self.friction)
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
        match body {
            Some(
                body @ Body {
                    kind: BodyKind::Parametric { .. },
                    ..
                },
            ) => {
                w.add_block(i, body.offset, body.ndof);
            }
            // A 3D body's rotation; a fixed one never turns.
            Some(
                body @ Body {
                    kind: BodyKind::Rigid3d { .. },
                    ..
                },
            ) if body.mass.is_finite() => {
                w.add_block(i, body.offset + 3, 3);
            }
            _ => {}
        }
    }
    w
}
