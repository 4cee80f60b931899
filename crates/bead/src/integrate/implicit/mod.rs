//! The position-level implicit steppers ([`ImplicitEuler`], [`Bdf2`]) and the Newton solve they
//! share.
//!
//! Both reduce a step to one problem: given a base `q_b`, a velocity scale `ĥ` (so that
//! `q̇ₙ₊₁ = (q − q_b)/ĥ`) and a prediction `q̃` (where inertia alone would take the state),
//! find `q` and `λ` with
//!
//! ```text
//! M(q) (q − q̃) − ĥ² (Q(q, q̇ₙ₊₁) + J(q)ᵀ λ) = 0,   C(q, tₙ₊₁) = 0
//! ```
//!
//! every force taken at the step's end (a parametric object steps its points' momenta:
//! [`crate::assembly::object_stiffness`]).
//!
//! (a velocity row holds `J (q − q_b) + ĥ ∂C/∂t = 0`; inequality and bounded rows are kept
//! complementary). Implicit Euler has `q_b = qₙ`, `ĥ = h`; BDF2 `q_b = (4qₙ − qₙ₋₁)/3`,
//! `ĥ = 2h/3`.
//!
//! Newton's method on this system, with `μ = ĥ² λ`, solves the KKT system (seed 004 eq. 6)
//!
//! ```text
//! [ M + ĥ² K̃ − ĥ² ∂Q/∂q − ĥ ∂Q/∂q̇   Jᵀ ] [  Δq ]     [ M (q − q̃) − ĥ² Q − Jᵀμ ]
//! [ J                                0  ] [ −Δμ ] = − [ r                        ]
//! ```
//!
//! with the applied forces' Jacobians ([`crate::force::ForceJacobian`]) and `K̃ = −K` the
//! geometric stiffness of the constraints (`K = Σ λ ∇²C`), each constraint's
//! part kept where it is positive (a rod in tension) and bounded by a positive diagonal where not
//! (a rod in compression), factored by a sparse LDLᵀ whose analysis is reused while the structure
//! holds (without the stiffness between bodies where that is small against their masses, as on
//! a cloth: see [`crate::solve::kkt`]). Chord iterations reuse a factor, across steps too, while
//! the residual falls fast; a backtracking line search keeps far starts from wandering.
//!
//! Inequalities and bounded rows (a motor's limit) enter first by a primal-dual active set: each
//! iteration holds the rows whose trial multiplier lies within their bounds and fixes the others
//! at the bound they cross (a semismooth Newton method for the complementarity). It settles in a
//! few iterations where contacts come and go one by one, but the packed, redundant contacts of a
//! pile make it cycle (a landing 200-ball pile needed more than 200 iterations a step). A step
//! whose contacts still change their roles after [`INTERIOR_AFTER`](interior_point::INTERIOR_AFTER) iterations starts again with
//! a primal-dual interior-point iteration (Mehrotra's predictor-corrector), which has no active
//! set to choose: each contact `g(q) ≥ 0` gets a slack `s > 0` with `g(q) = s` and
//! `s μ = σ̂/(J W Jᵀ)_rr`, the barrier `σ̂` falling to zero; eliminating `Δs` leaves the contact
//! a held row with the compliance `s/μ` in the same KKT matrix ([`Role::Compliant`](crate::solve::Role::Compliant)), so each
//! iteration is one factorization and two solves. The next steps start with it, but for one in
//! [`RETRY_ACTIVE_SET`](interior_point::RETRY_ACTIVE_SET), which tries the active set again. While it runs, contacts have a
//! compliance of [`CONTACT_COMPLIANCE`](interior_point::CONTACT_COMPLIANCE) times `(J W Jᵀ)_rr`: a row of balls that fits its box
//! exactly can hold any compression, and without it rounding drifts that compression without
//! bound (so do contacts in a frictional problem too large for pivoting that the sweeps did not
//! settle, see [`contact_lcp`]). Other bounded rows keep the active set; after [`ONE_AT_A_TIME_AFTER`](roles::ONE_AT_A_TIME_AFTER) iterations only
//! the most violated of them changes, as in a pivoting method.
//!
//! The iteration stops when `|C|∞` (complementarity aware: a multiplier past its bound counts;
//! under the interior-point iteration a contact counts `min(|g|, μ (J W Jᵀ)_rr)` and any
//! penetration) is within the tolerance (metres), and the momentum residual
//! `|W (M (q − q̃) − Jᵀμ)|∞` within the relative tolerance of the displacement the step's forces
//! make, `max(|W Jᵀμ|∞, ĥ² |W Q|∞)`. The momentum residual has no absolute tolerance on purpose:
//! a force moves the state by only `ĥ² W f` in a step, so a fixed length there is an error in λ
//! that grows like `1/ĥ²` (a 1e-10 m residual at `h = 1e-6` reversed a pendulum rod's force).
//! Where it starts is [`warm_start`]'s.
//!
//! A step with friction whose roles have not settled after
//! [`INTERIOR_AFTER`](interior_point::INTERIOR_AFTER) iterations (redundant frictional contacts:
//! an arch, a pyramid, a box's two corners, a landing pile) starts again in one of two ways.
//! Where its bounded rows are few enough for Lemke's pivoting (200), they are solved at each
//! iteration as a complementarity problem of their own, on the iteration's own linearization
//! ([`contact_lcp`], [`crate::solve::coulomb`]). Where they are more, the interior-point iteration
//! takes them with a barrier for each friction row's cone `±μ_f μ_n`, which follows its normal
//! row's multiplier ([`interior_point`], [`cone_coupling`]): the dense problem's matrix and faces
//! grow as the square and cube of its rows, while the barrier's Newton steps keep the sparse
//! factor.
//!
//! The files: [`newton`] (the iteration and the step framing), [`roles`] (the semismooth active
//! set) and [`interior_point`], [`cone_coupling`], [`contact_lcp`] (which states the bounded rows'
//! problem for [`crate::solve::coulomb`], whose sweeps, direct solves and least-norm split the
//! explicit integrators share), [`lemke`], [`tresca`], [`residual`] (the residuals' measures),
//! [`warm_start`], [`halving`] (a step that does not converge taken again in halves), and one
//! file per stepper.

mod bdf2;
mod cone_coupling;
mod contact_lcp;
mod delassus;
mod exact_step;
mod failure;
mod halving;
mod implicit_euler;
mod interior_point;
mod lemke;
mod newton;
mod progress;
mod residual;
mod roles;
mod tresca;
mod warm_start;
mod work;

use crate::integrate::ConstrainedModel;
use crate::solve::Bounds;
use crate::solve::coulomb::RowBounds;

/// Each row's bounds on `μ = ĥ² λ` in `model` at the step's `h2` (see [`RowBounds`]).
fn row_bounds(model: &dyn ConstrainedModel, h2: f64) -> RowBounds<'_> {
    RowBounds::new(
        Bounds::new(
            model.inequality_rows(),
            model.multiplier_bounds(),
            model.friction_rows(),
        ),
        h2,
    )
}

/// The implicit steppers' default Newton tolerance on `|C|∞`: 1e-10 (metres for the
/// built-ins).
///
/// ```
/// assert_eq!(bead::integrate::ImplicitEuler::default().tolerance, bead::integrate::NEWTON_TOLERANCE);
/// ```
pub const NEWTON_TOLERANCE: f64 = 1e-10;

/// The implicit steppers' default relative tolerance on the momentum residual, 1e-8: λ and `q̇`
/// accurate to that fraction of the forces in play (see
/// [`ImplicitEuler::relative_tolerance`]).
///
/// ```
/// assert_eq!(bead::integrate::Bdf2::default().relative_tolerance, bead::integrate::NEWTON_RELATIVE_TOLERANCE);
/// ```
pub const NEWTON_RELATIVE_TOLERANCE: f64 = 1e-8;

pub use bdf2::Bdf2;
pub use implicit_euler::ImplicitEuler;

/// The positions after each of `steps` implicit Euler steps of 1/60 s: the trajectory two runs
/// of one model, solved two ways, are compared by.
#[cfg(test)]
fn implicit_euler_states(sys: &mut crate::System, steps: usize) -> Vec<Vec<f64>> {
    sys.set_integrator(ImplicitEuler::default());
    (0..steps)
        .map(|step| {
            sys.step(1.0 / 60.0)
                .unwrap_or_else(|e| panic!("step {step}: {e}"));
            sys.q().to_vec()
        })
        .collect()
}
