//! The model as the steppers see it: [`Stage`] runs the four-step evaluation for the explicit
//! integrators ([`Dynamics`]) and assembles, bounds the geometric stiffness and solves for the
//! implicit ones ([`ConstrainedModel`]), over the same evaluator, layout and solver.

use super::acceleration::{Acceleration, Mode};
use super::conflicts::conflict_among;
use crate::assembly::Evaluator;
use crate::assembly::stiffness::constraint_stiffness;
use crate::error::EvalError;
use crate::integrate::{ConstrainedModel, Dynamics, Factorization, Role};
use crate::math::inverse_mass::InverseMass;
use crate::math::sparse::BlockSparse;
use crate::model::Model;
use crate::settings::{Settings, StepStats};
use crate::solve::kkt::{Kkt, KktMatrix};
use crate::solve::{MultiplierMatrix, SolveInfo};

/// The model seen by an integrator: each call runs the four-step evaluation.
pub(crate) struct Stage<'a> {
    pub(crate) model: &'a Model,
    pub(crate) evaluator: &'a mut Evaluator,
    pub(crate) acceleration: &'a mut Acceleration,
    /// The implicit steppers' Newton system, with its cached analysis.
    pub(crate) kkt: &'a mut Kkt,
    pub(crate) settings: &'a Settings,
    pub(crate) stats: &'a mut StepStats,
    /// `q̈` already known at the step's start state (from diagnostics), used by the first call.
    pub(crate) first: Option<Vec<f64>>,
    /// Whether the first evaluation of the step (the one that chooses the active set) is done.
    pub(crate) started: bool,
    /// Rate of the velocity rows.
    pub(crate) velocity_rate: f64,
    /// Time and positions of the last assembly, for the geometric stiffness.
    pub(crate) assembled_t: f64,
    pub(crate) assembled_q: Vec<f64>,
}

impl Dynamics for Stage<'_> {
    fn acceleration(
        &mut self,
        t: f64,
        q: &[f64],
        v: &[f64],
        a: &mut [f64],
    ) -> Result<(), EvalError> {
        if let Some(known) = self.first.take() {
            // Integrators evaluate first at the step's start state, where `known` was computed
            // (choosing the active set there).
            a.copy_from_slice(&known);
        } else {
            // The first evaluation of a step chooses the rows that take part; the later stages
            // keep them (seed 004: the set is chosen at the start of each time step).
            let mode = Mode {
                choose: !self.started,
                velocity_rate: self.velocity_rate,
            };
            self.acceleration.evaluate(
                self.evaluator,
                self.model,
                self.settings,
                mode,
                t,
                q,
                v,
                a,
            )?;
        }
        // An unstable integration stays finite long after it stops meaning anything, while C
        // grows geometrically (1e-6 to 1e150 in a few dozen steps): stop at the first stage past
        // the limit. Only stepping checks; a query at any state (diagnostics) may not fail. A
        // stage that reuses a query's evaluation checks it too: the evaluator still holds that
        // state's rows, and a one-stage scheme (Euler) stepped after a report every step would
        // otherwise never check at all.
        let (max_abs_c, _) = self.acceleration.constraint_errors(self.evaluator);
        let limit = self.settings.divergence_limit;
        if max_abs_c > limit {
            return Err(EvalError::Diverged { max_abs_c, limit });
        }
        self.started = true;
        self.stats.evaluations += 1;
        self.stats.active_set_passes = self
            .stats
            .active_set_passes
            .max(self.acceleration.active_set_passes().max(1));
        self.stats.solver_iterations = self
            .stats
            .solver_iterations
            .max(self.acceleration.last_solve().iterations);
        self.stats.solver_residual = self
            .stats
            .solver_residual
            .max(self.acceleration.last_solve().residual);
        Ok(())
    }

    fn constrained(&mut self) -> Option<&mut dyn ConstrainedModel> {
        Some(self)
    }
}

impl Stage<'_> {
    fn count(&mut self, info: SolveInfo, passes: usize) {
        self.stats.active_set_passes = self.stats.active_set_passes.max(passes);
        self.stats.solver_iterations = self.stats.solver_iterations.max(info.iterations);
        self.stats.solver_residual = self.stats.solver_residual.max(info.residual);
    }
}

impl ConstrainedModel for Stage<'_> {
    fn inv_mass(&self) -> &InverseMass {
        &self.evaluator.layout().inv_mass
    }

    fn free_acceleration(
        &mut self,
        t: f64,
        q: &[f64],
        v: &[f64],
        a: &mut [f64],
    ) -> Result<(), EvalError> {
        self.acceleration
            .free_acceleration(self.evaluator, self.model, (t, q, v), a)
    }

    fn assemble(&mut self, t: f64, q: &[f64], v: &[f64]) -> Result<(), EvalError> {
        self.evaluator.evaluate_constraints(self.model, t, q, v)?;
        self.assembled_t = t;
        self.assembled_q.clear();
        self.assembled_q.extend_from_slice(q);
        self.stats.evaluations += 1;
        Ok(())
    }

    fn values(&self) -> &[f64] {
        self.evaluator.c()
    }

    fn time_derivatives(&self) -> &[f64] {
        self.evaluator.c_t()
    }

    fn jacobian(&self) -> &BlockSparse {
        &self.evaluator.layout().jacobian
    }

    fn velocity_rows(&self) -> &[bool] {
        &self.evaluator.layout().velocity
    }

    fn inequality_rows(&self) -> &[bool] {
        &self.evaluator.layout().inequality
    }

    fn multiplier_bounds(&self) -> &[(f64, f64)] {
        &self.evaluator.layout().bounds
    }

    fn newton_step(
        &mut self,
        factorization: Factorization,
        h2: f64,
        proximal: f64,
        lambda: &[f64],
        roles: &[Role],
        momentum: &[f64],
        rows: &[f64],
        dq: &mut [f64],
        dmu: &mut [f64],
    ) -> Result<bool, EvalError> {
        let ev = &*self.evaluator;
        let layout = ev.layout();
        let refactor = factorization != Factorization::Reuse
            || !self
                .kkt
                .has_factor_for(&layout.jacobian, layout.inv_mass.diagonal());
        if refactor {
            let matrix = KktMatrix {
                jacobian: &layout.jacobian,
                inv_mass: &layout.inv_mass,
                h2,
                roles,
                full_stiffness: factorization == Factorization::Full,
            };
            let (model, t, q) = (self.model, self.assembled_t, &self.assembled_q);
            self.kkt.factor(&matrix, |sink| {
                constraint_stiffness(ev, model, t, q, lambda, sink)
            })?;
        }
        self.kkt
            .solve(momentum, rows, (lambda, h2, proximal), dq, dmu)?;
        self.count(
            SolveInfo {
                iterations: 1,
                residual: 0.0,
            },
            1,
        );
        Ok(refactor)
    }

    fn record(&mut self, lambda: &[f64]) {
        self.acceleration.set_lambda(lambda);
    }

    fn last_multipliers(&self) -> &[f64] {
        self.acceleration.lambda()
    }

    fn conflict(&self, rows: &[f64], held: &[bool]) -> Option<EvalError> {
        let layout = self.evaluator.layout();
        let matrix = MultiplierMatrix::new(&layout.jacobian, &layout.inv_mass).masked(held);
        let rows: Vec<f64> = rows
            .iter()
            .zip(held)
            .map(|(r, h)| if *h { *r } else { 0.0 })
            .collect();
        conflict_among(layout, self.model, &matrix, &rows, CONFLICT_SHARE)
    }
}

/// The share of a stalled Newton iteration's constraint residual that must lie out of reach of
/// every change of `q` for the stall to be reported as a conflict rather than as slow
/// convergence: most of it.
const CONFLICT_SHARE: f64 = 0.5;
