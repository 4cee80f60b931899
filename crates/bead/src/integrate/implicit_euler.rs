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
//! Newton's method on this system, with `μ = h² λ`, solves the KKT system (seed 004 eq. 6)
//!
//! ```text
//! [ M + h² K̃   Jᵀ ] [  Δq ]     [ M (q − q̃) − Jᵀμ ]
//! [ J         0  ] [ −Δμ ] = − [ r                ]
//! ```
//!
//! with `K̃ = −K` the geometric stiffness of the constraints (`K = Σ λ ∇²C`), each constraint's
//! part kept where it is positive (a rod in tension) and bounded by a positive diagonal where not
//! (a rod in compression), factored by a sparse LDLᵀ whose analysis is reused while the structure
//! holds. Chord iterations reuse a factor, across steps too, while the residual falls fast; a
//! backtracking line search keeps far starts from wandering. Inequalities and bounded rows (a
//! motor's limit) enter by a primal-dual active set: each iteration holds the rows whose trial
//! multiplier lies within their bounds and fixes the others at the bound they cross (a
//! semismooth Newton method for the complementarity). It stops when `|C|∞` (complementarity
//! aware) and the momentum residual `|W (M (q − q̃) − Jᵀμ)|∞` are both within the tolerance.
//!
//! Implicit Euler damps: its energy error is first order in `h`, largest on the fastest modes.
//! That is what makes it stable on a 10,000-link chain, and why it is not the integrator to
//! measure a pendulum's period with.

use super::{ConstrainedModel, Dynamics, Integrator, Role, resize};
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
    /// The rows' right-hand sides as the Newton step takes them (see [`Role`]).
    rows: Vec<f64>,
    /// Each row's `(J W Jᵀ)_rr`.
    mass: Vec<f64>,
    roles: Vec<Role>,
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
    resize(n, &mut [&mut w.force, &mut w.momentum, &mut w.dq]);
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
            for buffer in [&mut w.residual, &mut w.rows, &mut w.dmu, &mut w.mass] {
                buffer.resize(m, 0.0);
            }
            w.roles.resize(m, Role::Held);
        }
        // The rows' residuals: C (g for an inequality), or a velocity row's J (q − qₙ) + h ∂C/∂t.
        for i in 0..n {
            w.force[i] = q[i] - q_start[i];
        }
        model.jacobian().mul(&w.force, &mut w.residual);
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
            w.momentum[i] = if inv_mass[i] > 0.0 {
                let r = (q[i] - w.predicted[i]) / inv_mass[i] - w.force[i];
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
            let bounds = RowBounds::of(model, h2);
            for r in 0..m {
                let (raw, mu) = (w.residual[r], w.mu[r]);
                let (lo, hi) = bounds.get(r);
                let off = if (mu >= hi && raw <= 0.0) || (mu <= lo && raw >= 0.0) {
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
        // Which rows hold their target in this iteration, and which keep a fixed multiplier
        // (an inequality apart, a motor at its limit): the primal-dual active set, a
        // semismooth Newton method for the complementarity. Each row's trial multiplier
        // μ − m_eff r tells: below its lower bound the row is left at it, above its upper bound
        // at that, in between the row is held.
        let changed = choose_roles(model, w, h2);
        // A fixed row's multiplier takes its value now, and the momentum residual with it: the
        // step then leaves it be (its column of Jᵀ is out of the matrix).
        if w.roles.iter().any(|r| matches!(r, Role::Fixed(_))) {
            for r in 0..m {
                if let Role::Fixed(target) = w.roles[r] {
                    w.mu[r] = target;
                    w.lambda[r] = target / h2;
                }
            }
            model.jacobian().mul_transpose(&w.mu, &mut w.force);
            let inv_mass = model.inv_mass();
            for i in 0..n {
                if inv_mass[i] > 0.0 {
                    w.momentum[i] = (q[i] - w.predicted[i]) / inv_mass[i] - w.force[i];
                }
            }
        }
        // Chord iterations: the factor is kept, across steps too, while it keeps the residual
        // falling fast; a step that falls by less than a quarter, or a new active set, asks for
        // a fresh one.
        let refactor = w.refactor || changed || (!first && residual > 0.25 * previous);
        previous = residual;
        first = false;
        for r in 0..m {
            w.rows[r] = match w.roles[r] {
                Role::Held => w.residual[r],
                Role::Fixed(target) => w.mu[r] - target,
            };
        }
        let factored = model.newton_step(
            refactor,
            h2,
            &w.lambda,
            &w.roles,
            &w.momentum,
            &w.rows,
            &mut w.dq,
            &mut w.dmu,
        )?;
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
    }
    model.record(&w.lambda);
    Ok(())
}

/// Each row's bounds on `μ = h² λ`: its own (a motor's limit), and `μ ≥ 0` for an inequality.
struct RowBounds<'a> {
    bounds: &'a [(f64, f64)],
    inequality: &'a [bool],
    h2: f64,
}

impl<'a> RowBounds<'a> {
    fn of(model: &'a dyn ConstrainedModel, h2: f64) -> Self {
        RowBounds {
            bounds: model.multiplier_bounds(),
            inequality: model.inequality_rows(),
            h2,
        }
    }

    fn get(&self, r: usize) -> (f64, f64) {
        let (lo, hi) = self.bounds[r];
        let lo = if self.inequality[r] { lo.max(0.0) } else { lo };
        (lo * self.h2, hi * self.h2)
    }
}

/// Sets each row's role for the next Newton step (see [`Role`]); returns whether any changed.
fn choose_roles(model: &dyn ConstrainedModel, w: &mut Work, h2: f64) -> bool {
    let m = w.roles.len();
    // Effective mass of each row, 1 / (J W Jᵀ)_rr: it turns a gap into a multiplier.
    w.mass.fill(0.0);
    let (j, inv_mass) = (model.jacobian(), model.inv_mass());
    for block in j.blocks() {
        let values = &j.values()[block.offset..block.offset + block.nrows * block.ncols];
        for r in 0..block.nrows {
            let row = &values[r * block.ncols..(r + 1) * block.ncols];
            w.mass[block.row + r] += row
                .iter()
                .zip(&inv_mass[block.col..block.col + block.ncols])
                .map(|(x, wi)| x * x * wi)
                .sum::<f64>();
        }
    }
    let bounds = RowBounds::of(model, h2);
    let mut changed = false;
    for r in 0..m {
        let (lo, hi) = bounds.get(r);
        let role = if lo == f64::NEG_INFINITY && hi == f64::INFINITY {
            Role::Held
        } else {
            let effective = if w.mass[r] > 0.0 {
                1.0 / w.mass[r]
            } else {
                0.0
            };
            let trial = w.mu[r] - effective * w.residual[r];
            if trial <= lo {
                Role::Fixed(lo)
            } else if trial >= hi {
                Role::Fixed(hi)
            } else {
                Role::Held
            }
        };
        changed |= role != w.roles[r];
        w.roles[r] = role;
    }
    changed
}
