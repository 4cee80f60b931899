//! Explicit ODE integrators driving Witkin's derivative evaluation (seed 000 §4.1).
//!
//! The state is `(q, q̇)`; the derivative is `(q̇, q̈)` with `q̈ = W (Q + Jᵀλ)` computed by the
//! four-step evaluation behind [`Dynamics`]. An integrator only sees that function, so the same
//! constraint machinery serves every scheme, and the implicit steppers that stiff systems need
//! (DESIGN.md §1) can later sit behind the same trait.

mod euler;
mod midpoint;
mod rk4;
mod symplectic_euler;

pub use euler::Euler;
pub use midpoint::Midpoint;
pub use rk4::Rk4;
pub use symplectic_euler::SymplecticEuler;

use std::fmt::Debug;

use crate::derivative::EvalError;

/// The second-order system `q̈ = a(t, q, q̇)` an integrator advances.
pub trait Dynamics {
    /// Writes the acceleration `q̈` at `(t, q, q̇)` into `a`.
    fn acceleration(
        &mut self,
        t: f64,
        q: &[f64],
        v: &[f64],
        a: &mut [f64],
    ) -> Result<(), EvalError>;
}

/// One step of an ODE scheme over `(q, q̇)`.
///
/// ```
/// use bead::integrate::{Dynamics, Integrator, Rk4};
/// use bead::EvalError;
/// /// A unit harmonic oscillator, q̈ = −q.
/// struct Spring;
/// impl Dynamics for Spring {
///     fn acceleration(&mut self, _t: f64, q: &[f64], _v: &[f64], a: &mut [f64]) -> Result<(), EvalError> {
///         a[0] = -q[0];
///         Ok(())
///     }
/// }
/// let (mut q, mut v) = ([1.0], [0.0]);
/// let mut rk4 = Rk4::default();
/// let h = std::f64::consts::PI / 500.0;
/// for i in 0..1000 {
///     let (q0, v0) = (q, v);
///     rk4.step(&mut Spring, i as f64 * h, h, &q0, &v0, &mut q, &mut v)?;
/// }
/// assert!((q[0] - 1.0).abs() < 1e-9); // one full period
/// # Ok::<(), EvalError>(())
/// ```
pub trait Integrator: Debug + Send {
    /// Short name (`"rk4"`, ...).
    fn name(&self) -> &'static str;

    /// Order of accuracy of the global error.
    fn order(&self) -> u32;

    /// Advances `(q, v)` at time `t` by `h` into `(q_out, v_out)`. The first derivative evaluation
    /// is always at `(t, q, v)`.
    #[allow(clippy::too_many_arguments)]
    fn step(
        &mut self,
        dynamics: &mut dyn Dynamics,
        t: f64,
        h: f64,
        q: &[f64],
        v: &[f64],
        q_out: &mut [f64],
        v_out: &mut [f64],
    ) -> Result<(), EvalError>;
}

/// The integrator called `name` in scene files and on the command line
/// (`euler`, `symplectic-euler`, `midpoint`, `rk4`).
pub fn by_name(name: &str) -> Option<Box<dyn Integrator>> {
    Some(match name {
        "euler" => Box::new(Euler::default()),
        "symplectic-euler" => Box::new(SymplecticEuler::default()),
        "midpoint" => Box::new(Midpoint::default()),
        "rk4" => Box::new(Rk4::default()),
        _ => return None,
    })
}

/// The names [`by_name`] accepts.
pub const INTEGRATOR_NAMES: [&str; 4] = ["euler", "symplectic-euler", "midpoint", "rk4"];

/// `out = x + h y`.
fn axpy(out: &mut [f64], x: &[f64], h: f64, y: &[f64]) {
    for (o, (a, b)) in out.iter_mut().zip(x.iter().zip(y)) {
        *o = a + h * b;
    }
}

fn resize(n: usize, bufs: &mut [&mut Vec<f64>]) {
    for b in bufs {
        b.resize(n, 0.0);
    }
}
