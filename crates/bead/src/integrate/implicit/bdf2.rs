//! BDF2 at the position level: the second-order member of the implicit family, on the same
//! Newton solve as [`ImplicitEuler`](super::ImplicitEuler) ([`super::newton`]).
//!
//! The two-step backward differentiation formula on `(q, q̇)`, with every force, applied and
//! constraint, at the step's end:
//!
//! ```text
//! q_b = (4 qₙ − qₙ₋₁) / 3,   v_b = (4 q̇ₙ − q̇ₙ₋₁) / 3,   ĥ = 2h / 3,   q̃ = q_b + ĥ v_b
//! M(q) (q − q̃) − ĥ² (Q(q, q̇ₙ₊₁) + J(q)ᵀ λ) = 0,   C(q, tₙ₊₁) = 0,   q̇ₙ₊₁ = (q − q_b) / ĥ
//! ```
//!
//! (eliminate `q̇ₙ₊₁` between `q − q_b = ĥ q̇ₙ₊₁` and `M (q̇ₙ₊₁ − v_b) = ĥ (Q + Jᵀλ)`). Its first
//! step, and any step that does not continue the last one at the same size (the state was edited,
//! or a run's last step is shortened), is an implicit Euler step.
//!
//! An impact breaks the history: `q_b` still carries the fall into the floor, and a contact that
//! holds `q` on the floor leaves `q̇ₙ₊₁ = (q − q_b)/ĥ` pointing out of it, a rebound of about half
//! the landing speed even at restitution 0. So a step in which a contact starts to carry a force
//! is taken again as an implicit Euler step (which lands inelastically), and so are the next
//! [`AFTER_IMPACT`] steps, until the history holds only states after the impact.
//!
//! A step whose Newton iteration does not converge within its iterations is taken again the
//! same way, as an implicit Euler step with the history restarted after it: on a whipping cloth
//! (`scenes/cloth.toml`), compressed rods make the matrix a poor Jacobian and the two-step
//! iteration can stall where implicit Euler's, which damps the fastest modes, converges. Such a
//! step is first order; [`Bdf2::fallbacks`] counts them. A step that implicit Euler cannot take
//! either fails with its error.
//!
//! BDF2 damps too, but at second order in `h`: on a pendulum it keeps the amplitude hundreds of
//! times better than implicit Euler at the same step, with the same stability on stiff chains.

use super::halving::{HALVINGS, euler_in_halves};
use super::newton::{Stopping, advance};
use super::work::Work;
use super::{NEWTON_RELATIVE_TOLERANCE, NEWTON_TOLERANCE};
use crate::error::EvalError;
use crate::integrate::{Dynamics, Integrator, PastState, resize};

/// Position-level BDF2: unconditionally stable on stiff constraints, second order, mildly
/// dissipative.
///
/// ```
/// use bead::integrate::Bdf2;
/// let (mut sys, bob, _) = bead::models::pendulum(1.0, 0.3, 1.0)?;
/// sys.set_integrator(Bdf2::default());
/// for _ in 0..1000 {
///     sys.step(1e-3).expect("stable");
/// }
/// assert!(sys.diagnostics().unwrap().max_abs_c < 1e-9);
/// # let _ = bob;
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Bdf2 {
    /// Largest `|C|∞` at which the Newton iteration stops (as
    /// [`super::ImplicitEuler::tolerance`]).
    pub tolerance: f64,
    /// The momentum residual allowed, relative to the forces in play (as
    /// [`super::ImplicitEuler::relative_tolerance`]).
    pub relative_tolerance: f64,
    /// Newton iterations allowed per step before the step fails.
    pub max_iterations: usize,
    work: Work,
    history: History,
    /// Steps taken again as implicit Euler because the two-step iteration stalled.
    fallbacks: usize,
}

/// The implicit Euler steps taken after one in which a contact started to carry a force: the
/// impact step's own end velocity is its approach, the next one's the first after the landing,
/// and BDF2's two-step history is clean from the step after that.
const AFTER_IMPACT: usize = 2;

/// The previous step (where it started and its size), and this step's base.
#[derive(Clone, Debug, Default)]
struct History {
    q: Vec<f64>,
    v: Vec<f64>,
    h: f64,
    base: Vec<f64>,
    /// Which rows are contacts carrying a force at the previous step's end.
    touching: Vec<bool>,
    /// Implicit Euler steps still to take after an impact.
    euler_steps: usize,
}

impl History {
    /// Whether a contact carries a force now that did not at the previous step's end (an
    /// impact), and which carry one, into `touching`.
    fn impact(&mut self, f: &mut dyn Dynamics) -> bool {
        let Some(model) = f.constrained() else {
            return false;
        };
        let (lambda, inequality) = (model.last_multipliers(), model.inequality_rows());
        let mut impact = false;
        self.touching.resize(lambda.len(), false);
        for (r, touching) in self.touching.iter_mut().enumerate() {
            let now = inequality.get(r).copied().unwrap_or(false) && lambda[r] > 0.0;
            impact |= now && !*touching;
            *touching = now;
        }
        impact
    }
}

impl Default for Bdf2 {
    fn default() -> Self {
        Bdf2::new(NEWTON_TOLERANCE, 200)
    }
}

impl Bdf2 {
    /// BDF2 stopping Newton at `tolerance`, failing a step after `max_iterations`.
    ///
    /// ```
    /// assert_eq!(bead::integrate::Bdf2::new(1e-9, 20).max_iterations, 20);
    /// ```
    pub fn new(tolerance: f64, max_iterations: usize) -> Self {
        Bdf2 {
            tolerance,
            relative_tolerance: NEWTON_RELATIVE_TOLERANCE,
            max_iterations,
            work: Work::default(),
            history: History::default(),
            fallbacks: 0,
        }
    }

    /// The same stepper with the momentum residual's relative tolerance set (see
    /// [`Bdf2::relative_tolerance`]).
    ///
    /// ```
    /// let stepper = bead::integrate::Bdf2::default().with_relative_tolerance(1e-10);
    /// assert_eq!(stepper.relative_tolerance, 1e-10);
    /// ```
    pub fn with_relative_tolerance(mut self, relative_tolerance: f64) -> Self {
        self.relative_tolerance = relative_tolerance;
        self
    }

    /// Newton iterations the last step took.
    pub fn last_iterations(&self) -> usize {
        self.work.iterations
    }

    /// Steps taken again as implicit Euler, since this stepper was made, because the two-step
    /// formula's Newton iteration stalled on them: each is an implicit Euler step, and the
    /// two-step history restarts after it.
    ///
    /// ```
    /// assert_eq!(bead::integrate::Bdf2::default().fallbacks(), 0);
    /// ```
    pub fn fallbacks(&self) -> usize {
        self.fallbacks
    }

    /// Implicit Euler steps (the fallbacks) whose Newton iteration did not converge either and
    /// that were taken again as two halves, as [`ImplicitEuler::halved_steps`](crate::integrate::ImplicitEuler::halved_steps) counts them.
    ///
    /// ```
    /// assert_eq!(bead::integrate::Bdf2::default().halved_steps(), 0);
    /// ```
    pub fn halved_steps(&self) -> usize {
        self.work.halved
    }
}

impl Integrator for Bdf2 {
    fn name(&self) -> &'static str {
        "bdf2"
    }

    fn order(&self) -> u32 {
        2
    }

    fn implicit(&self) -> bool {
        true
    }

    fn projected(&mut self, q: &[f64], v: &[f64]) {
        self.work.projected(q, v);
    }

    fn recentred(&mut self, q: &[f64], v: &[f64], carry: &mut dyn FnMut(&mut [f64], &mut [f64])) {
        // The previous step's start, `(qₙ₋₁, q̇ₙ₋₁)`, in the coordinates the next step reads.
        let past = &mut self.history;
        if past.q.len() == q.len() && past.v.len() == v.len() {
            carry(&mut past.q, &mut past.v);
        }
        self.work.projected(q, v);
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
        let (w, past) = (&mut self.work, &mut self.history);
        resize(n, &mut [&mut w.inertial, &mut past.base]);
        // Implicit Euler from `(q, v)`: the first step, and the restarts.
        let euler = |w: &mut Work, base: &mut Vec<f64>| {
            base.copy_from_slice(q);
            w.predict_euler(q, v, h);
        };
        let continues = w.continues(q, v)
            && past.q.len() == n
            && (past.h - h).abs() <= 1e-9 * h
            && past.euler_steps == 0;
        let hv = if continues {
            let hv = 2.0 * h / 3.0;
            for i in 0..n {
                past.base[i] = (4.0 * q[i] - past.q[i]) / 3.0;
                let vb = (4.0 * v[i] - past.v[i]) / 3.0;
                w.inertial[i] = past.base[i] + hv * vb;
            }
            hv
        } else {
            euler(w, &mut past.base);
            h
        };
        let stop = Stopping {
            tolerance: self.tolerance,
            relative: self.relative_tolerance,
            max_iterations: self.max_iterations,
        };
        let now = PastState {
            position_weight: 1.0,
            velocity_weight: 1.0,
            t,
            q,
            v,
        };
        let states = if continues {
            // x̂ = (4 xₙ − xₙ₋₁)/3 + ĥ (4 ẋₙ − ẋₙ₋₁)/3, for the points of parametric objects.
            vec![
                PastState {
                    position_weight: 4.0 / 3.0,
                    velocity_weight: 4.0 / 3.0,
                    ..now
                },
                PastState {
                    position_weight: -1.0 / 3.0,
                    velocity_weight: -1.0 / 3.0,
                    t: t - past.h,
                    q: &past.q,
                    v: &past.v,
                },
            ]
        } else {
            vec![now]
        };
        let result = advance(
            w,
            f,
            (t, t + h),
            hv,
            (q, v),
            (&past.base, &states),
            q_out,
            v_out,
            stop,
        );
        past.euler_steps = past.euler_steps.saturating_sub(1);
        if continues && matches!(result, Err(EvalError::NoConvergence { .. })) {
            // A two-step step whose Newton iteration stalls is taken again as implicit Euler,
            // and the history restarts from there, as after an impact.
            self.fallbacks += 1;
            past.base.copy_from_slice(q);
            let ends = (&mut *q_out, &mut *v_out);
            euler_in_halves(w, f, (t, t + h), (q, v), ends, stop, HALVINGS)?;
            past.impact(f);
            past.euler_steps = AFTER_IMPACT;
        } else if past.impact(f) {
            result?;
            if continues {
                // Again from the start, as implicit Euler: the restart the impact asks for.
                euler(w, &mut past.base);
                advance(w, f, (t, t + h), h, (q, v), (q, &[now]), q_out, v_out, stop)?;
                past.impact(f);
            }
            past.euler_steps = AFTER_IMPACT;
        } else {
            result?;
        }
        past.q.clear();
        past.q.extend_from_slice(q);
        past.v.clear();
        past.v.extend_from_slice(v);
        past.h = h;
        Ok(())
    }
}
