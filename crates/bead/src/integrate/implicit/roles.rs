//! The semismooth active set of the implicit steppers: at each Newton iteration a bounded row
//! (an inequality, a motor with a limit) is held where its trial multiplier `μ − m_eff r` lies
//! within its bounds and fixed at the bound it crosses otherwise ([`Role`]), a semismooth Newton
//! method for the complementarity.

use super::interior_point::{barrier_row, compliant_contact};
use super::work::Work;
use crate::integrate::ConstrainedModel;
use crate::solve::Role;

/// Sets each row's role for the next Newton step (see [`Role`]); returns how many changed.
/// A bounded row's effective mass, `1 / (J W Jᵀ)_rr`, turns its gap into a multiplier: it reads
/// `w.mass`, which the convergence test wrote at this iterate when any row is bounded (rows
/// without bounds are held and read nothing).
pub(super) fn choose_roles(model: &dyn ConstrainedModel, w: &mut Work, h2: f64) -> usize {
    let m = w.roles.len();
    let bounds = super::row_bounds(model, h2);
    let one_at_a_time = w.iterations > ONE_AT_A_TIME_AFTER;
    let mut changed = 0;
    // The largest change when only one is allowed: (row, its new role, how far off it is).
    let mut largest: Option<(usize, Role, f64)> = None;
    let shut = 1e-9 * w.mu.iter().fold(0.0_f64, |a, m| a.max(m.abs()));
    for r in 0..m {
        if w.interior && barrier_row(w, r) {
            // The barrier sets these (see `barrier_rows`).
            w.roles[r] = Role::Compliant(0.0);
            continue;
        }
        let (lo, hi) = bounds.get(r, &w.mu);
        let (role, off) = if lo == f64::NEG_INFINITY && hi == f64::INFINITY {
            (Role::Held, 0.0)
        } else if bounds.friction(r) && hi <= shut {
            // A cone that rounding alone keeps open (a contact whose normal force is a
            // billionth of the others') has no friction to give: holding its slip with that
            // budget would only flip it in and out of the cone at every iteration.
            (Role::Fixed(0.0), 0.0)
        } else {
            let effective = if w.mass[r] > 0.0 {
                1.0 / w.mass[r]
            } else {
                0.0
            };
            let trial = w.mu[r] - effective * w.residual[r];
            let off = (trial - trial.clamp(lo, hi))
                .abs()
                .max(w.residual[r].abs() * effective);
            if trial <= lo {
                (Role::Fixed(lo), off)
            } else if trial >= hi {
                (Role::Fixed(hi), off)
            } else if w.contact_compliance
                && let Some(compliance) = compliant_contact(model, &w.mass, r)
            {
                // A jammed packing's contacts (see `Work::compliant_contacts`); the
                // convergence test has added the compliance to their residuals.
                (Role::Compliant(compliance), off)
            } else {
                (Role::Held, off)
            }
        };
        // A friction row fixed at an edge of its cone stays out of the matrix as its normal
        // force moves the edge, or as it goes over to the other edge: the value is new, the
        // matrix is not.
        let same_edge =
            bounds.friction(r) && matches!((role, w.roles[r]), (Role::Fixed(_), Role::Fixed(_)));
        // A compliant row stays held as its compliance follows `(J W Jᵀ)_rr`.
        let still_compliant =
            matches!((role, w.roles[r]), (Role::Compliant(_), Role::Compliant(_)));
        if role != w.roles[r] && !same_edge && !still_compliant {
            changed += 1;
            if one_at_a_time {
                if largest.is_none_or(|(_, _, o)| off > o) {
                    largest = Some((r, role, off));
                }
                continue;
            }
        }
        w.roles[r] = role;
    }
    if let Some((r, role, _)) = largest {
        w.roles[r] = role;
    }
    changed
}

/// Iterations after which the active set changes one row at a time, the most violated, as a
/// pivoting method does: changing every row whose trial multiplier says so can cycle among
/// packed, redundant contacts.
pub(super) const ONE_AT_A_TIME_AFTER: usize = 20;
