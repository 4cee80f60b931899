//! The model as the steppers see it: [`Stage`] runs the four-step evaluation for the explicit
//! integrators ([`Dynamics`]) and assembles, bounds the geometric stiffness and solves for the
//! implicit ones ([`ConstrainedModel`]), over the same evaluator, layout and solver.

use super::acceleration::{Acceleration, Mode};
use super::conflicts::conflict_among;
use crate::assembly::Evaluator;
use crate::assembly::object_stiffness::{
    Past, add_object_inertia, object_stiffness, predict_points,
};
use crate::assembly::rigid3d_inertia::{add_rotation_inertia, predict_momenta, rotation_stiffness};
use crate::assembly::stiffness::constraint_stiffness;
use crate::error::EvalError;
use crate::force::ForceJacobian;
use crate::integrate::{ConstrainedModel, Dynamics, Factorization, NewtonSystem, PastState};
use crate::math::bands::Bands;
use crate::math::inverse_mass::InverseMass;
use crate::math::sparse::BlockSparse;
use crate::model::Model;
use crate::settings::{Settings, StepStats};
use crate::solve::kkt::{Kkt, KktMatrix};
use crate::solve::{MultiplierMatrix, SolveInfo};
use crate::view::View;

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
    /// Time, positions and velocities of the last assembly, for the geometric stiffness and
    /// the forces' Jacobians.
    pub(crate) assembled_t: f64,
    pub(crate) assembled_q: Vec<f64>,
    pub(crate) assembled_v: Vec<f64>,
    /// The blocks the forces' Jacobians and the parametric objects add to the Newton matrix.
    pub(crate) additions: &'a mut Bands,
    /// The implicit step's prediction: `ĥ`, `q̃`, and each parametric object point's `ẋ_b`
    /// (kept from step to step: the last step's holding forces).
    pub(crate) prediction: &'a mut Prediction,
}

/// An implicit step's inertial prediction, as the model keeps it for its parametric objects:
/// `ĥ`, `q̃`, and the past velocities `ẋ_b` of their points.
#[derive(Debug, Default)]
pub(crate) struct Prediction {
    /// Whether the next Newton step must factor afresh: set at each step's start where the
    /// model has parametric objects, whose blocks change too fast with the state for a factor
    /// of the last step to serve (a chord step from one sent a light link round a whole turn).
    refactor: bool,
    h: f64,
    inertial: Vec<f64>,
    points: Vec<f64>,
    /// Each 3D body's past angular momentum `L_b` (see [`add_rotation_inertia`]).
    momenta: Vec<f64>,
    /// The force holding each object point on its object at the last evaluation (see
    /// [`add_object_inertia`]).
    holding: Vec<f64>,
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
                pivot_limit: None,
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
    /// The blocks the applied forces' Jacobians (`ĥ² K + ĥ D`, see [`ForceJacobian`]) and the
    /// parametric objects' own blocks add to the Newton matrix at the last assembled state,
    /// for `ĥ² = h2`, into `self.additions`. The objects' blocks read the forces at their
    /// points from the last evaluation of `Q`, which the Newton iteration makes at the same
    /// state.
    fn add_jacobians(&mut self, h2: f64) {
        let holding = &self.prediction.holding;
        let h = h2.sqrt();
        let (t, q, v) = (self.assembled_t, &self.assembled_q, &self.assembled_v);
        self.additions.clear();
        let mut ctx = ForceJacobian {
            view: View {
                t,
                dim: self.model.dim,
                bodies: &self.model.bodies,
                q,
                v,
            },
            weights: (h2, h),
            bands: self.additions,
        };
        for force in self.model.forces.iter().flatten() {
            force.jacobian(&mut ctx);
        }
        object_stiffness(
            self.model,
            &self.evaluator.layout().inv_mass,
            (t, q, v),
            (holding, h),
            self.additions,
        );
        rotation_stiffness(
            self.model,
            &self.evaluator.layout().inv_mass,
            (q, v),
            (&self.prediction.momenta, h),
            self.additions,
        );
    }

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

    fn applied_force(
        &mut self,
        t: f64,
        q: &[f64],
        v: &[f64],
        out: &mut [f64],
    ) -> Result<(), EvalError> {
        let (applied, _) =
            self.acceleration
                .applied_force(self.evaluator, self.model, (t, q, v), false)?;
        out.copy_from_slice(applied);
        let p = &mut self.prediction;
        add_object_inertia(
            self.model,
            &self.evaluator.layout().inv_mass,
            (t, q, v),
            (&p.inertial, &p.points, p.h),
            self.acceleration.object_forces(),
            out,
            &mut p.holding,
        );
        add_rotation_inertia(
            self.model,
            &self.evaluator.layout().inv_mass,
            (q, v),
            (&p.inertial, &p.momenta, p.h),
            out,
        );
        Ok(())
    }

    fn forces_vary(&self) -> bool {
        !self.evaluator.layout().inv_mass.blocks().is_empty()
            || self.model.forces.iter().flatten().any(|f| f.varies())
    }

    fn predict(&mut self, h: f64, inertial: &[f64], past: &[PastState<'_>]) {
        let p = &mut self.prediction;
        p.refactor = !self.evaluator.layout().inv_mass.blocks().is_empty();
        p.h = h;
        if !p.refactor {
            // Only parametric objects read the prediction.
            return;
        }
        p.inertial.clear();
        p.inertial.extend_from_slice(inertial);
        let past: Vec<Past<'_>> = past
            .iter()
            .map(|s| (s.velocity_weight, s.t, s.q, s.v))
            .collect();
        predict_points(
            self.model,
            &self.evaluator.layout().inv_mass,
            &past,
            &mut p.points,
        );
        let states: Vec<(f64, &[f64], &[f64])> =
            past.iter().map(|&(b, _, q, v)| (b, q, v)).collect();
        predict_momenta(
            self.model,
            &self.evaluator.layout().inv_mass,
            &states,
            &mut p.momenta,
        );
    }

    fn hold_contact_normals(&mut self, start: Option<(f64, &[f64])>) {
        self.evaluator.hold_normals(self.model, start);
    }

    fn note_halved(&mut self) {
        self.stats.halved += 1;
    }

    fn assemble(&mut self, t: f64, q: &[f64], v: &[f64]) -> Result<(), EvalError> {
        self.evaluator.evaluate_constraints(self.model, t, q, v)?;
        self.assembled_t = t;
        self.assembled_q.clear();
        self.assembled_q.extend_from_slice(q);
        self.assembled_v.clear();
        self.assembled_v.extend_from_slice(v);
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

    fn friction_rows(&self) -> &[Option<(usize, f64)>] {
        &self.evaluator.layout().friction
    }

    fn newton_step(
        &mut self,
        factorization: Factorization,
        system: NewtonSystem<'_>,
        dq: &mut [f64],
        dmu: &mut [f64],
    ) -> Result<bool, EvalError> {
        let NewtonSystem {
            h2,
            proximal,
            lambda,
            roles,
            momentum,
            rows,
        } = system;
        let dense = self.acceleration.solver().name() == "dense";
        let refactor = factorization != Factorization::Reuse
            || std::mem::take(&mut self.prediction.refactor)
            || {
                let layout = self.evaluator.layout();
                !self
                    .kkt
                    .has_factor_for(&layout.jacobian, layout.inv_mass.diagonal(), dense)
            };
        if refactor {
            self.add_jacobians(h2);
            let ev = &*self.evaluator;
            let layout = ev.layout();
            let matrix = KktMatrix {
                jacobian: &layout.jacobian,
                inv_mass: &layout.inv_mass,
                h2,
                roles,
                full_stiffness: factorization == Factorization::Full,
                dense,
                // Only where the model has 3D bodies, and the factor is sparse: there the bound
                // on their joints' stiffness cost a whipping chain 60 iterations a step.
                // Elsewhere the exact step is not yet the better one: a compressed light link
                // of a parametric object and a landing pyramid's contacts failed to converge
                // with it, where the bounded matrix's safeguard holds (docs/implicit.md).
                exact_steps: self.model.has_3d_bodies() && !dense,
                additions: self.additions,
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

    fn stiffness_ratio(&self) -> f64 {
        self.kkt.stiffness_ratio()
    }

    /// What the last factorization recorded: only where it was asked to (see `exact_steps`).
    fn stiffness_correction(&self, v: &[f64], out: &mut [f64]) -> bool {
        self.kkt.add_correction(v, out)
    }

    fn coupled_coordinates(&self, labels: &mut Vec<usize>) {
        let layout = self.evaluator.layout();
        self.kkt
            .components(&layout.jacobian, &layout.inv_mass, labels);
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
