//! Implicit Euler at the position level, with the constraints holding at the end of the step
//! (Tournier et al. 2015, "Stable Constrained Dynamics"; Goldenthal et al. 2007's fast projection
//! is its special case without geometric stiffness).
//!
//! With `h` the step, forces taken at the step's start and the constraint forces `Jᵀλ` at its end:
//!
//! ```text
//! q̃ = qₙ + h q̇ₙ + h² W Q(qₙ, q̇ₙ)                  the prediction
//! M (q − q̃) − h² J(q)ᵀ λ = 0,   C(q, tₙ₊₁) = 0       solved for q and λ
//! q̇ₙ₊₁ = (q − qₙ) / h
//! ```
//!
//! A velocity row (a motor) holds `J q̇ₙ₊₁ + ∂C/∂t = 0`, that is `J (q − qₙ) + h ∂C/∂t = 0`; an
//! inequality row holds `g ≥ 0` with `λ ≥ 0` complementary to it, so contact needs no event
//! location and is perfectly inelastic.
//!
//! Newton's method on this system, with `μ = h² λ` and `e = q_k − q̃`, eliminates the position
//! update through the diagonal `Ã = M + h² D` (`D` bounds the geometric stiffness, see
//! [`ConstrainedModel::stiffness`]), `W̃ = Ã⁻¹`, `s = W̃ M`:
//!
//! ```text
//! (J W̃ Jᵀ) μ = −C(q_k) + J (s ∘ e)        the same sparse matrix as the explicit path's J W Jᵀ
//! Δq = W̃ Jᵀ μ − s ∘ e
//! ```
//!
//! until `|C|∞` and the momentum residual `|W (M e − Jᵀ μ)|∞` are both within the tolerance.
//! Because `Ã` bounds the true Newton matrix `M − h² K` from above, each iteration moves less
//! than a Newton step would and the iteration converges where Newton's would, linearly rather
//! than quadratically; at the fixed point the equations above hold exactly, whatever `D`.
//!
//! Implicit Euler damps: its energy error is first order in `h`, largest on the fastest modes.
//! That is what makes it stable on a 10,000-link chain, and why it is not the integrator to
//! measure a pendulum's period with.

use super::{ConstrainedModel, Dynamics, Integrator, resize};
use crate::derivative::EvalError;

/// Position-level implicit Euler: unconditionally stable on stiff constraints (long chains,
/// cloth), first order, dissipative.
///
/// ```
/// use bead::integrate::ImplicitEuler;
/// use bead::{constraint::Distance, force::Gravity, Particle, System};
/// // A chain of 2,000 rods, 1 m long in all: the explicit integrators diverge at this dt.
/// let mut sys = System::new(2)?;
/// sys.set_integrator(ImplicitEuler::default());
/// sys.set_solver(bead::solve::SparseLdlt::default());
/// let n = 2000;
/// let (s, c) = 30f64.to_radians().sin_cos();
/// let mut prev = sys.add_particle(Particle::anchor(&[0.0, 0.0]))?;
/// for i in 1..=n {
///     let x = i as f64 / n as f64;
///     let next = sys.add_particle(Particle::new(&[x * s, -x * c]).mass(1.0 / n as f64))?;
///     sys.add_constraint(Distance::new(prev, next, 1.0 / n as f64))?;
///     prev = next;
/// }
/// sys.add_force(Gravity::new(&[0.0, -9.81]))?;
/// for _ in 0..20 {
///     sys.step(1e-3).expect("stable");
/// }
/// assert!(sys.diagnostics().unwrap().max_abs_c < 1e-8);
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Debug)]
pub struct ImplicitEuler {
    /// Largest `|C|∞` (metres and radians for the built-ins), and largest momentum residual
    /// `|W (M (q − q̃) − h² Jᵀλ)|∞` (metres), at which the Newton iteration stops.
    pub tolerance: f64,
    /// Newton iterations allowed per step before the step fails.
    pub max_iterations: usize,
    work: Work,
}

impl Default for ImplicitEuler {
    fn default() -> Self {
        ImplicitEuler {
            tolerance: 1e-10,
            max_iterations: 50,
            work: Work::default(),
        }
    }
}

impl ImplicitEuler {
    /// Implicit Euler stopping Newton at `tolerance`, failing a step after `max_iterations`.
    ///
    /// ```
    /// let stepper = bead::integrate::ImplicitEuler::new(1e-9, 20);
    /// assert_eq!(stepper.max_iterations, 20);
    /// ```
    pub fn new(tolerance: f64, max_iterations: usize) -> Self {
        ImplicitEuler {
            tolerance,
            max_iterations,
            work: Work::default(),
        }
    }

    /// Newton iterations the last step took (0 for a model without constraints).
    pub fn last_iterations(&self) -> usize {
        self.work.iterations
    }

    /// Numeric factorizations of the Newton matrix since this stepper was made: chord
    /// iterations reuse one factor across iterations and steps while it serves.
    pub fn factorizations(&self) -> usize {
        self.work.factorizations
    }
}

#[derive(Clone, Debug, Default)]
struct Work {
    predicted: Vec<f64>,
    inv_mass: Vec<f64>,
    scale: Vec<f64>,
    stiffness: Vec<f64>,
    e: Vec<f64>,
    rhs: Vec<f64>,
    mu: Vec<f64>,
    lambda: Vec<f64>,
    force: Vec<f64>,
    residual: Vec<f64>,
    momentum: Vec<f64>,
    dq: Vec<f64>,
    dmu: Vec<f64>,
    /// Where the Newton step on trial started.
    base_q: Vec<f64>,
    base_mu: Vec<f64>,
    /// Newton iterations of the last step.
    iterations: usize,
    /// Numeric factorizations of the KKT matrix so far.
    factorizations: usize,
    /// The next iteration must factor afresh (the last step ended on a slow iteration).
    refactor: bool,
}

impl Integrator for ImplicitEuler {
    fn name(&self) -> &'static str {
        "implicit-euler"
    }

    fn order(&self) -> u32 {
        1
    }

    fn implicit(&self) -> bool {
        true
    }

    fn step(
        &mut self,
        f: &mut dyn Dynamics,
        t: f64,
        h: f64,
        q: &[f64],
        v: &[f64],
        q_out: &mut [f64],
        v_out: &mut [f64],
    ) -> Result<(), EvalError> {
        let n = q.len();
        let w = &mut self.work;
        resize(n, &mut [&mut w.predicted]);
        w.iterations = 0;
        let Some(model) = f.constrained() else {
            // A plain ODE: no constraints to hold, the forces are explicit.
            f.acceleration(t, q, v, &mut w.predicted)?;
            for i in 0..n {
                q_out[i] = q[i] + h * v[i] + h * h * w.predicted[i];
                v_out[i] = (q_out[i] - q[i]) / h;
            }
            return Ok(());
        };
        model.free_acceleration(t, q, v, &mut w.predicted)?;
        for i in 0..n {
            w.predicted[i] = q[i] + h * v[i] + h * h * w.predicted[i];
        }
        q_out.copy_from_slice(&w.predicted);
        newton(
            model,
            w,
            t + h,
            h,
            q,
            q_out,
            v_out,
            self.tolerance,
            self.max_iterations,
        )?;
        for i in 0..n {
            v_out[i] = (q_out[i] - q[i]) / h;
        }
        Ok(())
    }
}

/// Solves `M (q − q̃) − h² J(q)ᵀ λ = 0`, `C(q, t) = 0` from `q = q̃`, in place.
#[allow(clippy::too_many_arguments)]
fn newton(
    model: &mut dyn ConstrainedModel,
    w: &mut Work,
    t: f64,
    h: f64,
    q_start: &[f64],
    q: &mut [f64],
    v: &mut [f64],
    tolerance: f64,
    max_iterations: usize,
) -> Result<(), EvalError> {
    let n = q.len();
    let h2 = h * h;
    resize(
        n,
        &mut [
            &mut w.inv_mass,
            &mut w.scale,
            &mut w.stiffness,
            &mut w.e,
            &mut w.force,
            &mut w.momentum,
            &mut w.dq,
        ],
    );
    let mut previous = f64::INFINITY;
    let mut first = true;
    // The length of the Newton step on trial, while a line search is under way.
    let mut trial: Option<f64> = None;
    loop {
        for i in 0..n {
            v[i] = (q[i] - q_start[i]) / h;
        }
        model.assemble(t, q, v)?;
        let m = model.values().len();
        if first {
            // λ of the last step is the first guess of this one's.
            w.lambda.clear();
            w.lambda.extend_from_slice(model.last_multipliers());
            w.lambda.resize(m, 0.0);
            w.mu.clear();
            w.mu.extend(w.lambda.iter().map(|l| l * h2));
            for buffer in [&mut w.residual, &mut w.rhs, &mut w.dmu] {
                buffer.resize(m, 0.0);
            }
        }
        // The rows' residuals: C, or a velocity row's J (q − qₙ) + h ∂C/∂t.
        for i in 0..n {
            w.e[i] = q[i] - q_start[i];
        }
        model.jacobian().mul(&w.e, &mut w.residual);
        {
            let (c, c_t, velocity) = (
                model.values(),
                model.time_derivatives(),
                model.velocity_rows(),
            );
            for r in 0..m {
                w.residual[r] = if velocity[r] {
                    w.residual[r] + h * c_t[r]
                } else {
                    c[r]
                };
            }
        }
        // The momentum residual F₁ = M (q − q̃) − Jᵀμ, measured as W F₁ (metres).
        model.jacobian().mul_transpose(&w.mu, &mut w.force);
        let inv_mass = model.inv_mass();
        let mut momentum = 0.0_f64;
        for i in 0..n {
            w.e[i] = q[i] - w.predicted[i];
            w.momentum[i] = if inv_mass[i] > 0.0 {
                let r = w.e[i] / inv_mass[i] - w.force[i];
                momentum = momentum.max((inv_mass[i] * r).abs());
                r
            } else {
                0.0
            };
        }
        // How far each row is from holding: an inequality apart (μ = 0) holds while g ≥ 0, and a
        // row at one of its bounds has given up its target.
        let mut max_c = 0.0_f64;
        {
            let (inequality, bounds) = (model.inequality_rows(), model.multiplier_bounds());
            for r in 0..m {
                let (raw, mu) = (w.residual[r], w.mu[r]);
                let (lo, hi) = (bounds[r].0 * h2, bounds[r].1 * h2);
                let off = if inequality[r] && mu <= 0.0 {
                    (-raw).max(0.0)
                } else if (mu >= hi && raw < 0.0) || (mu <= lo && raw > 0.0) {
                    0.0
                } else {
                    raw.abs()
                };
                max_c = max_c.max(off);
            }
        }
        if !(max_c.is_finite() && momentum.is_finite()) {
            return Err(EvalError::NonFinite("the implicit step's residual".into()));
        }
        if max_c <= tolerance && momentum <= tolerance {
            break;
        }
        let residual = max_c.max(momentum);
        // Backtracking: far from the solution (the first step from rest, a sudden load) a full
        // Newton step can overshoot and the iteration wander; a step that does not reduce the
        // residual is halved, from the same start.
        if let Some(alpha) = trial.take()
            && residual > (1.0 - 1e-4 * alpha) * previous
            && alpha > 1.0 / 64.0
        {
            let alpha = alpha / 2.0;
            for i in 0..n {
                q[i] = w.base_q[i] + alpha * w.dq[i];
            }
            for r in 0..m {
                w.mu[r] = w.base_mu[r] + alpha * w.dmu[r];
                w.lambda[r] = w.mu[r] / h2;
            }
            // The factor did not serve: the next step gets a fresh one.
            w.refactor = true;
            trial = Some(alpha);
            continue;
        }
        if w.iterations >= max_iterations {
            return Err(EvalError::NoConvergence {
                iterations: w.iterations,
                max_abs_c: max_c,
                momentum_residual: momentum,
            });
        }
        w.iterations += 1;
        // Chord iterations: the factor is kept, across steps too, while it keeps the residual
        // falling fast; a step that falls by less than a quarter asks for a fresh one.
        let refactor = w.refactor || (!first && residual > 0.25 * previous);
        previous = residual;
        first = false;
        let outcome = model.newton_step(
            refactor,
            h2,
            &w.lambda,
            &w.momentum,
            &w.residual,
            &mut w.dq,
            &mut w.dmu,
        )?;
        if let Some(factored) = outcome {
            w.refactor = false;
            w.factorizations += usize::from(factored);
            w.base_q.clear();
            w.base_q.extend_from_slice(q);
            w.base_mu.clone_from(&w.mu);
            for (qi, dq) in q.iter_mut().zip(&w.dq) {
                *qi += dq;
            }
            for ((mu, dmu), l) in w.mu.iter_mut().zip(&w.dmu).zip(w.lambda.iter_mut()) {
                *mu += dmu;
                *l = *mu / h2;
            }
            // The first step of each time step projects the prediction onto the constraints,
            // which a merit that starts at M (q − q̃) = 0 would always refuse: it is taken whole.
            trial = (w.iterations > 1).then_some(1.0);
            continue;
        }
        // Bounded rows: the Schur complement with the diagonal bound, whose multiplier problem
        // the model keeps complementary. Ã = M + h² D, W̃ = Ã⁻¹ = W / (1 + h² D W), s = W̃ M;
        // (J W̃ Jᵀ) μ = −r + J (s ∘ e), Δq = W̃ Jᵀ μ − s ∘ e.
        w.stiffness.fill(0.0);
        model.stiffness(&w.lambda, &mut w.stiffness)?;
        let inv_mass = model.inv_mass();
        for i in 0..n {
            let s = 1.0 / (1.0 + h2 * w.stiffness[i] * inv_mass[i]);
            w.scale[i] = s;
            w.inv_mass[i] = inv_mass[i] * s;
            w.force[i] = s * w.e[i];
        }
        model.jacobian().mul(&w.force, &mut w.rhs);
        for r in 0..m {
            w.rhs[r] -= w.residual[r];
        }
        model.solve(&w.inv_mass, &w.rhs, h2, &mut w.mu)?;
        model.jacobian().mul_transpose(&w.mu, &mut w.force);
        for i in 0..n {
            q[i] += w.inv_mass[i] * w.force[i] - w.scale[i] * w.e[i];
        }
        for (l, mu) in w.lambda.iter_mut().zip(&w.mu) {
            *l = mu / h2;
        }
    }
    model.record(&w.lambda);
    Ok(())
}
