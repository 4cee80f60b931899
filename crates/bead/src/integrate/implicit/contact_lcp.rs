//! The bounded rows of one Newton iteration solved as a complementarity problem of their own,
//! where the semismooth active set ([`super::roles`]) cycles on frictional contacts.
//!
//! Redundant contacts with friction (an arch's joints, dominoes leaning on one another, a box's
//! two corners on a floor) leave the split of their forces free. The semismooth iteration holds
//! the rows whose trial multipliers lie inside their bounds, and the KKT solve splits the force
//! of a redundant held set by least norm, which can put one corner's friction past its cone;
//! fixed at the edge, the corner's trial comes back inside; held again, past it: the roles cycle
//! and Newton's method never ends. The interior-point iteration, which ends such cycles among
//! frictionless contacts, has no barrier for a cone whose size follows another row's multiplier.
//!
//! So each iteration here linearizes the rows at the iterate, exactly as the Newton step does,
//! and solves the bounded rows' complementarity on that linearization as a problem of its own:
//!
//! ```text
//! r(μ_b) = c + A (μ_b − μ_b⁰),    A = J_b K⁻¹ J_bᵀ,   c = r + J_b Δq₀
//! ```
//!
//! where `K` is the Newton matrix with every bounded row at a fixed multiplier and the other rows
//! (joints, motors) held, `Δq₀` the Newton step with the bounded multipliers where they are, and
//! `A` the Delassus matrix of the bounded rows (its columns from the same factor, several a solve:
//! [`super::delassus`]). The rows' conditions — a contact's `r ≥ 0 ⊥ μ_n ≥ 0`, a friction row's
//! slip opposite its force at the cone's edge `|μ_t| = μ_f μ_n` and zero inside it, a motor's limit
//! — are solved by nonsmooth Gauss–Seidel over the contacts (Moreau and Jean's nonsmooth contact
//! dynamics; in 2D the cone is the box `±μ_f μ_n`) with direct solves of the rows inside their
//! bounds ([`super::contact_problem`]), which needs no active set and converges where the rows
//! depend on one another, to the residual's tolerance; where it stalls, Lemke's pivoting
//! ([`super::lemke`]) finds the rows' states and the sweeps polish its answer, on problems of up to
//! [`lemke::LARGEST`] rows. A larger problem takes the contacts' compliance for the rest of the
//! step, and where the sweeps circle on the cones, passes of Tresca's problem ([`super::tresca`]).
//! The Newton step then takes the bounded rows at those multipliers. Near the solution the
//! linearization is the step's own, so the outer iteration keeps Newton's rate; the answer is a
//! solution of the same equations, to the same tolerance.

use super::delassus;
use super::interior_point::compliant_contact;
use super::lemke;
use super::tresca;
use super::work::Work;
use crate::error::EvalError;
use crate::integrate::{ConstrainedModel, Factorization, Role};
use crate::solve::coulomb::contact_problem::{self, ContactProblem};
use crate::solve::coulomb::gauss_seidel::{gauss_seidel, gauss_seidel_restarted};
use crate::solve::coulomb::split::settle_split;
use crate::solve::coulomb::subspace::DENSE_LARGEST;

/// The bounded rows' multipliers for the next Newton step, solved as their own complementarity
/// problem (see the module's notes), as their roles: fixed at the multipliers found, with the
/// KKT matrix factored for those roles. `(tolerance, enough)` are the rows' (metres): the
/// sweeps go to a tenth of `tolerance`, or as far as they can, and where they stall within
/// `enough` they stop there (the Newton iteration's own test decides the step).
pub(super) fn contact_step(
    model: &mut dyn ConstrainedModel,
    w: &mut Work,
    h2: f64,
    (tolerance, enough): (f64, f64),
) -> Result<(), EvalError> {
    let m = w.mu.len();
    let n = w.dq.len();
    let mut p = std::mem::take(&mut w.contact_problem);
    {
        let bounds = super::row_bounds(model, h2);
        p.rows.clear();
        p.rows.extend((0..m).filter(|&r| {
            let (lo, hi) = bounds.get(r, &w.mu);
            lo > f64::NEG_INFINITY || hi < f64::INFINITY
        }));
    }
    // The Newton matrix with every bounded row at its multiplier now: the step Δq₀, and from
    // it each bounded row's residual after the step, c.
    for r in 0..m {
        w.roles[r] = Role::Held;
    }
    for &r in &p.rows {
        w.roles[r] = Role::Fixed(w.mu[r]);
    }
    for r in 0..m {
        w.rows[r] = match w.roles[r] {
            Role::Fixed(_) => 0.0,
            _ => w.residual[r],
        };
    }
    let factored = w.newton_step(model, Factorization::Fresh, h2)?;
    w.factorizations += usize::from(factored);
    let b = p.rows.len();
    p.j_dq.resize(m, 0.0);
    model.jacobian().mul(&w.dq, &mut p.j_dq);
    p.residual.clear();
    p.residual
        .extend(p.rows.iter().map(|&r| w.residual[r] + p.j_dq[r]));
    // A's columns: the response of every bounded row to a unit multiplier on one.
    p.dq.resize(n, 0.0);
    p.dmu.resize(m, 0.0);
    delassus::build(model, &w.roles, h2, &mut p, &mut w.colouring)?;
    p.mu.clone_from(&w.mu);
    if w.contact_compliance {
        // Their residuals in `w` carry it already (the Newton iteration's `constraint_error`).
        comply(model, w, &mut p, false);
    }
    let bounds = super::row_bounds(model, h2);
    // Where the sweeps do not settle, Lemke's pivoting finds the rows' states, to its own
    // rounding, and the sweeps and direct solves polish its answer. Sweeps that stalled within
    // the error the Newton iteration accepts of rows that no longer close in (`enough`, see
    // its `LCP_STALLS`) have found them: rows that rounding has left inconsistent hold no
    // closer, and the Newton iteration's own test decides the step.
    let mut settled = if p.disks.is_empty() {
        gauss_seidel(&mut p, &bounds, 0.1 * tolerance, enough)
    } else {
        // No Lemke for a 3D contact's circle to fall back on.
        gauss_seidel_restarted(&mut p, &bounds, 0.1 * tolerance, enough)
    } || contact_problem::error(&p, &bounds) <= enough;
    if !w.contact_compliance && p.disks.iter().any(|&(k, t, c)| slides(&p, k, t, c, enough)) {
        // A 3D contact slides. Where the bodies touch at several points (a box's face on
        // another: four corners), the rigid problem leaves the split of their normal forces
        // free, and with the friction on the edges of its cones the split turns the body: a box
        // sliding out of a pinch spun about the pinch at 40 rad/s² on the sweeps' own split.
        // The compliance picks the split of least elastic energy, the even one (penetrations
        // of 1e-13 m), for this step.
        w.contact_compliance = true;
        w.sliding_compliance = true;
        comply(model, w, &mut p, true);
        settled = gauss_seidel(&mut p, &bounds, 0.1 * tolerance, enough)
            || contact_problem::error(&p, &bounds) <= enough;
    }
    // Lemke's tableau and Tresca's boxes take a contact's friction along one tangent: a 3D
    // contact's circle is left to the sweeps, with the compliance where they do not settle.
    let disks = !p.disks.is_empty();
    if !settled && b <= lemke::LARGEST && !disks {
        if lemke::solve(&mut p, &bounds, LEMKE_ACCEPT * tolerance) {
            gauss_seidel(&mut p, &bounds, 0.1 * tolerance, enough);
        }
    } else if !settled && !w.contact_compliance {
        // Too large for Lemke's tableau, and perhaps without a rigid solution at all (a jammed
        // packing: balls that fit their box exactly, linearized along the normals of the
        // step's start, can leave the rows no room): from here on in this step the contacts
        // take the interior-point iteration's compliance, whose problem always has one.
        w.contact_compliance = true;
        comply(model, w, &mut p, true);
        settled = gauss_seidel(&mut p, &bounds, 0.1 * tolerance, enough)
            || contact_problem::error(&p, &bounds) <= enough;
    }
    if !settled && w.contact_compliance && !disks {
        // Where the sweeps circle on Coulomb's cones, which follow the normal forces: passes
        // of Tresca's problem, each convex.
        tresca::solve(&mut p, &bounds, 0.1 * tolerance);
    }
    // The step itself takes the bounded rows at the multipliers found, the others held.
    for &r in &p.rows {
        w.roles[r] = Role::Fixed(p.mu[r]);
    }
    w.contact_problem = p;
    Ok(())
}

/// Whether the 3D contact of normal row `k` and friction rows `t` (positions in `p.rows`)
/// slides: a normal force, the friction on its circle, and a slip of more than `tolerance`
/// (metres in the step, Newton's tolerance: a contact that holds at the edge of its cone, its
/// slip the rounding of redundant rows, does not slide).
fn slides(p: &ContactProblem, k: usize, t: [usize; 2], coefficient: f64, tolerance: f64) -> bool {
    let n = p.mu[p.rows[k]];
    let force = p.mu[p.rows[t[0]]].hypot(p.mu[p.rows[t[1]]]);
    let slip = p.residual[t[0]].hypot(p.residual[t[1]]);
    n > 0.0 && force >= coefficient * n * (1.0 - SLIDING) && slip > tolerance
}

/// How close to its circle, relative to the circle's radius, a 3D contact's friction force
/// counts as on it.
const SLIDING: f64 = 1e-9;

/// Gives the problem's contacts (the rows the interior-point iteration would take) the
/// compliance [`CONTACT_COMPLIANCE`] times `(J W Jᵀ)_rr`: `r_n + ε m μ_n ≥ 0 ⊥ μ_n ≥ 0`, on the
/// diagonal of `A`, and on the residuals at the multipliers now where `residuals` says they do
/// not carry it yet.
fn comply(model: &dyn ConstrainedModel, w: &Work, p: &mut ContactProblem, residuals: bool) {
    for k in 0..p.rows.len() {
        let r = p.rows[k];
        if let Some(compliance) = compliant_contact(model, &w.mass, r) {
            p.add_to_diagonal(k, compliance);
            if residuals {
                p.residual[k] += compliance * p.mu[r];
            }
        }
    }
}

/// At the end of a step solved with these problems: the least-norm split ([`settle_split`])
/// of the multipliers in `w`, on the last iteration's matrix. A move along the split changes
/// neither the rows' residuals nor the bodies' forces, so the step stays converged; what it
/// changes is what the contacts report, and where the next step starts. A step whose contacts
/// took the compliance has no free split to settle: the compliance has chosen it (and a move
/// along the bodies' null space would change the compliant residuals). Nor does a model of more
/// than [`DENSE_LARGEST`] coordinates, whose dense split would cost gigabytes.
pub(super) fn split_at_end(model: &dyn ConstrainedModel, w: &mut Work, h2: f64, tolerance: f64) {
    // The split decomposes a dense matrix over the coordinates: past `DENSE_LARGEST` of
    // them (Box2D's `large_pyramid`, 15,150) it would take gigabytes and hours, for a split
    // that changes no body's motion.
    if w.contact_compliance || w.dq.len() > DENSE_LARGEST {
        return;
    }
    let mut p = std::mem::take(&mut w.contact_problem);
    if p.rows.iter().all(|&r| r < w.mu.len()) && p.column_start.len() == p.rows.len() + 1 {
        let bounds = super::row_bounds(model, h2);
        p.mu.clone_from(&w.mu);
        p.residual.clear();
        p.residual.extend(p.rows.iter().map(|&r| w.residual[r]));
        let jacobian = model.jacobian();
        let force = |x: &[f64], out: &mut [f64]| jacobian.mul_transpose(x, out);
        settle_split(&mut p, &bounds, (w.dq.len(), &force), tolerance);
        for &r in &p.rows {
            w.mu[r] = p.mu[r];
            w.lambda[r] = p.mu[r] / h2;
        }
    }
    w.contact_problem = p;
}

/// How far from solved, relative to the rows' tolerance, Lemke's answer may be and still be
/// taken as the start of the polishing sweeps (its tableau's rounding; an answer further off is
/// a failed one, and the sweeps' own stands).
const LEMKE_ACCEPT: f64 = 1e3;
