//! How a whole model draws itself on a [`Canvas`]: each force and constraint its own way
//! ([`Force::draw`](crate::force::Force::draw), [`Constraint::draw`](crate::Constraint::draw)),
//! the bodies ([`crate::draw`]), and, given diagnostics, each constraint's force `Jᵀλ` as an
//! arrow on every body that moves.

use crate::body::BodyKind;
use crate::diagnostics::Diagnostics;
use crate::draw::{Canvas, Element, Item};
use crate::ids::{ConstraintId, ForceId};
use crate::model::Model;
use crate::state::State;

/// Draws `model` at `state` on `canvas`, with the constraint forces of `constraint_forces` when
/// given (newtons; the renderer scales them).
pub(crate) fn draw_model(
    model: &Model,
    state: &State,
    canvas: &mut dyn Canvas,
    constraint_forces: Option<&Diagnostics>,
) {
    let view = state.view(model);
    for (i, force) in model.forces.iter().enumerate() {
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
    for (id, entry) in model.constraints.iter() {
        canvas.begin(Item::Constraint {
            id,
            lambda: lambda(id),
        });
        entry.constraint.draw(&view, canvas);
    }
    crate::draw::draw_bodies(&view, canvas);
    let Some(d) = constraint_forces else { return };
    let dim = model.dim;
    for report in &d.constraints {
        canvas.begin(Item::Constraint {
            id: report.id,
            lambda: Some(&report.lambda),
        });
        for (body, f) in &report.forces {
            let Ok(b) = model.checked_body(*body) else {
                continue;
            };
            // A parametric object's share is a generalized force on u, with no one place to
            // draw it: its points' constraints draw their own forces.
            if !b.mass.is_finite() || matches!(b.kind, BodyKind::Parametric { .. }) {
                continue;
            }
            let at = b.slice(&state.q);
            let mut from = [0.0; 3];
            from[..dim].copy_from_slice(&at[..dim]);
            let mut vector = [0.0; 3];
            vector[..dim].copy_from_slice(&f[..dim]);
            canvas.arrow(from, vector, Element::ConstraintForce);
        }
    }
}
