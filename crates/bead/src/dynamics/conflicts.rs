//! Errors that name constraints: a multiplier system whose rows conflict, a complementarity
//! solve that failed. The numerics find rows; this turns rows into the constraints a user named.

use crate::assembly::Layout;
use crate::error::EvalError;
use crate::model::Model;
use crate::solve::MultiplierMatrix;
use crate::solve::complementarity::Failure;

/// The constraints that pull against each other in `a x = b`: those whose rows carry the
/// part of `b` no `x` produces (at least 1 % of its largest entry, the rest being what the
/// least squares left of rounding) — when that part is more than `share` of `b` (by norm).
pub(crate) fn conflict_among(
    layout: &Layout,
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
    for slot in &layout.constraints {
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

/// What a failed friction solve of the explicit integrators means, and the way out: where
/// bodies lean on one another the forces at the level of accelerations can have no solution
/// (Painlevé's paradox) or one the passes do not reach, whatever the step (a row of dominoes
/// stops at the same instant at 1 ms and 0.25 ms), where the implicit steppers' problem, at
/// the level of velocities, has one.
const LEANING: &str = ": bodies with friction that lean or tumble on one another (a row \
                       of dominoes, a toppling stack) can leave the explicit integrators \
                       without consistent forces at any time step; the implicit steppers \
                       carry them (integrator = \"implicit-euler\"; docs/friction.md, Limits)";

/// A failed complementarity solve, with the rows named by their constraints.
pub(crate) fn complementarity_error(layout: &Layout, model: &Model, failure: Failure) -> EvalError {
    let name = |row: usize| -> String {
        layout
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
        Failure::Friction { passes, rows } => {
            let mut constraints: Vec<String> = rows.iter().map(|&r| name(r)).collect();
            constraints.dedup();
            EvalError::Complementarity {
                constraints,
                reason: format!(
                    "their friction forces and normal forces did not agree after {passes} passes \
                     (|λ_t| ≤ μ λ_n){LEANING}"
                ),
            }
        }
        Failure::Cones {
            rows,
            error,
            tolerance,
        } => {
            let mut constraints: Vec<String> = rows.iter().map(|&r| name(r)).collect();
            constraints.dedup();
            EvalError::Complementarity {
                constraints,
                reason: format!(
                    "their forces did not settle on their friction cones (|λ_t| ≤ μ λ_n): a \
                     row's law is off by {error:.3e} where {tolerance:.3e} is allowed{LEANING}"
                ),
            }
        }
        Failure::NoFriction { method, row } => EvalError::Complementarity {
            constraints: vec![name(row)],
            reason: format!(
                "the inequality method {method} does not carry friction; use jonquet or lcp"
            ),
        },
        Failure::PivotLimit { pivots, rows } => {
            let mut constraints: Vec<String> = rows.iter().map(|&r| name(r)).collect();
            constraints.dedup();
            EvalError::Complementarity {
                constraints,
                // A pivoting that fails in a model with friction is the case LEANING describes,
                // whichever row it names.
                reason: if layout.friction.iter().any(Option::is_some) {
                    format!("no complementary solution after {pivots} pivots{LEANING}")
                } else {
                    format!("no complementary solution after {pivots} pivots")
                },
            }
        }
    }
}
