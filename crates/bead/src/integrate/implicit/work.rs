//! The buffers of the implicit steppers' Newton solve, and what it carries from one step to the
//! next: the warm start, whether the contacts needed the interior-point iteration, the counts.

use super::warm_start::WarmStart;
use crate::error::EvalError;
use crate::integrate::{ConstrainedModel, Factorization, NewtonSystem};
use crate::solve::Role;

/// The Newton solve's buffers and what it carries from step to step.
#[derive(Clone, Debug, Default)]
pub(super) struct Work {
    /// `q̃`, where the step would end with no force at all, written by the stepper before
    /// [`advance`](super::newton::advance): the momentum residual is
    /// `M (q − q̃) − ĥ² Q(q, q̇) − Jᵀμ`, every force taken at the end. It is also the Newton
    /// iteration's first guess where the last steps give none: a guess moved on by the forces
    /// of the step's start is an explicit Euler step, which a stiff spring throws metres past
    /// its end (to where the spring's two ends have crossed, another root of the step).
    pub(super) inertial: Vec<f64>,
    /// `Q` at the iterate.
    pub(super) applied_force: Vec<f64>,
    /// `ĥ² |W Q|∞`, the displacement the applied forces make in the step (metres): the scale
    /// of the momentum residual beside the constraints' own.
    pub(super) applied_scale: f64,
    /// The last steps' ends, which the next step's Newton iteration starts from.
    pub(super) warm: WarmStart,
    /// The rows' right-hand sides as the Newton step takes them (see [`Role`]).
    pub(super) rows: Vec<f64>,
    /// Each row's `(J W Jᵀ)_rr`.
    pub(super) mass: Vec<f64>,
    pub(super) roles: Vec<Role>,
    /// The rows the interior-point iteration solves, set as it starts: contacts (inequalities
    /// without an upper bound) that something can move, `(J W Jᵀ)_rr > 0`.
    pub(super) contact: Vec<bool>,
    /// The friction rows the interior-point iteration solves, set with [`contact`](Self::contact):
    /// each one's normal row and Coulomb coefficient, where its normal row is one of those
    /// contacts.
    pub(super) cone: Vec<Option<(usize, f64)>>,
    /// Each contact's slack `s` while the interior-point iteration runs (see
    /// [`super::interior_point`]); a friction row's slip towards its cone's lower edge.
    pub(super) slack: Vec<f64>,
    /// The slacks' step, or the predictor's `Δs Δμ` between the predictor and the corrector.
    pub(super) dslack: Vec<f64>,
    /// A friction row's slip towards its cone's upper edge, and its step (as `slack`, `dslack`).
    pub(super) slack_up: Vec<f64>,
    pub(super) dslack_up: Vec<f64>,
    /// Consecutive steps that ended in the interior-point iteration (since the last retry of
    /// the active set, which failed).
    pub(super) interior_steps: usize,
    /// Retries of the active set that failed in a row: each doubles the steps to the next
    /// (see [`super::interior_point::retry_interval`]).
    pub(super) failed_retries: u32,
    /// Whether this step tries the active set again after steps in the interior-point
    /// iteration.
    pub(super) retrying: bool,
    /// Consecutive steps that ended solving their bounded rows as their own problem
    /// ([`super::contact_lcp`]).
    pub(super) contact_lcp_steps: usize,
    /// Where this step's Newton iteration started.
    pub(super) start_q: Vec<f64>,
    pub(super) start_mu: Vec<f64>,
    /// Whether this step's contacts are solved by the interior-point iteration.
    pub(super) interior: bool,
    /// Whether this step's bounded rows are solved as their own complementarity problem at each
    /// iteration (see [`super::contact_lcp`]).
    pub(super) contact_lcp: bool,
    /// Whether this step's contacts carry the compliance of the interior-point iteration, in
    /// the active set and in that problem: from the step's start where
    /// [`compliant_contacts`](Self::compliant_contacts) says so, else only once the rigid
    /// problem did not settle (a jammed packing whose linearized rows leave no room at all has
    /// no rigid solution).
    pub(super) contact_compliance: bool,
    /// Whether every later step's contacts carry that compliance from the start: set, for the
    /// rest of the stepper's life, once a step needed it or the interior-point iteration. A
    /// jammed packing stays jammed, and rigid rows that leave it no room ask the active set for
    /// forces that only their inconsistency decides (the 500-ball pile at rest: huge
    /// multipliers, roles that cycle, ten interior-point iterations a step; with the
    /// compliance, its warm start solves most resting steps outright).
    pub(super) compliant_contacts: bool,
    /// Whether this step's contacts took the compliance because a 3D contact slides (see
    /// [`super::contact_lcp`]): for this step only.
    pub(super) sliding_compliance: bool,
    /// That problem's buffers.
    pub(super) contact_problem: crate::solve::coulomb::contact_problem::ContactProblem,
    /// Scratch of the contacts' problem's matrix ([`super::delassus`]).
    pub(super) colouring: super::delassus::Colouring,
    /// Whether any row of this step has a bound (an inequality, a motor's limit): without,
    /// every row is held, and the roles need no choosing.
    pub(super) bounded: bool,
    /// Whether any row of this step holds a velocity (a motor).
    pub(super) velocity_rows: bool,
    pub(super) mu: Vec<f64>,
    pub(super) lambda: Vec<f64>,
    pub(super) force: Vec<f64>,
    pub(super) residual: Vec<f64>,
    pub(super) momentum: Vec<f64>,
    /// Scratch for the residuals' measures; never `dq`, which the line search still needs.
    pub(super) scratch: Vec<f64>,
    pub(super) dq: Vec<f64>,
    pub(super) dmu: Vec<f64>,
    /// The weight of the KKT solve's proximal term this iteration (see
    /// [`crate::integrate::ConstrainedModel::newton_step`]).
    pub(super) proximal: f64,
    /// Newton iterations of the last step.
    pub(super) iterations: usize,
    /// Rows whose role (held, or at a bound) the last iteration changed.
    pub(super) role_changes: usize,
    /// Numeric factorizations of the KKT matrix so far.
    pub(super) factorizations: usize,
    /// Steps (and sub-steps) whose Newton iteration did not converge and that were taken
    /// again as two halves ([`super::halving`]).
    pub(super) halved: usize,
    /// The next iteration must factor afresh (the last step ended on a slow iteration).
    pub(super) refactor: bool,
}

impl Work {
    /// Whether a step from `(q, v)` continues the last one (starts where it ended).
    pub(super) fn continues(&self, q: &[f64], v: &[f64]) -> bool {
        self.warm.continues(q, v)
    }

    /// Implicit Euler's prediction from `(q, v)` over `h`, `q̃ = q + h q̇`, into `inertial`:
    /// the first step of either stepper, and BDF2's restarts.
    pub(super) fn predict_euler(&mut self, q: &[f64], v: &[f64], h: f64) {
        self.inertial.resize(q.len(), 0.0);
        for i in 0..q.len() {
            self.inertial[i] = q[i] + h * v[i];
        }
    }

    /// The last step's end was projected onto the constraints, to `(q, v)`: the next step
    /// continues from there (see [`crate::integrate::Integrator::projected`]).
    pub(super) fn projected(&mut self, q: &[f64], v: &[f64]) {
        self.warm.moved_end(q, v);
    }

    /// One Newton step for the residuals and roles here, into `dq` and `dmu`; returns whether
    /// it factored.
    pub(super) fn newton_step(
        &mut self,
        model: &mut dyn ConstrainedModel,
        factorization: Factorization,
        h2: f64,
    ) -> Result<bool, EvalError> {
        let system = NewtonSystem {
            h2,
            proximal: self.proximal,
            lambda: &self.lambda,
            roles: &self.roles,
            momentum: &self.momentum,
            rows: &self.rows,
        };
        model.newton_step(factorization, system, &mut self.dq, &mut self.dmu)
    }

    /// Runs `f` with the residuals and the proximal term set aside (all zero), so that each
    /// [`Work::newton_step`] inside solves for the right-hand side `f` writes alone: the
    /// products of the Krylov iterations around the factor. Restores them after.
    pub(super) fn bare<T>(&mut self, f: impl FnOnce(&mut Work) -> T) -> T {
        let rows = std::mem::take(&mut self.rows);
        let momentum = std::mem::take(&mut self.momentum);
        let proximal = self.proximal;
        self.rows = vec![0.0; rows.len()];
        self.momentum = vec![0.0; momentum.len()];
        self.proximal = 0.0;
        let out = f(self);
        self.rows = rows;
        self.momentum = momentum;
        self.proximal = proximal;
        out
    }

    /// Back to where this step started, `q` and `μ` (and `λ = μ/ĥ²`): a new iteration begins.
    pub(super) fn restart(&mut self, q: &mut [f64], h2: f64) {
        q.copy_from_slice(&self.start_q);
        self.mu.clone_from(&self.start_mu);
        for (l, mu) in self.lambda.iter_mut().zip(&self.mu) {
            *l = mu / h2;
        }
    }
}
