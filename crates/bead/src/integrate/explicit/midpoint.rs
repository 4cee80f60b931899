//! Explicit midpoint (second-order Runge-Kutta): evaluate at the half step, take the full step
//! with that slope.

use crate::error::EvalError;
use crate::integrate::{Dynamics, Integrator, axpy, resize};

/// Explicit midpoint method.
#[derive(Clone, Debug, Default)]
pub struct Midpoint {
    a: Vec<f64>,
    qm: Vec<f64>,
    vm: Vec<f64>,
}

impl Integrator for Midpoint {
    fn name(&self) -> &'static str {
        "midpoint"
    }

    fn order(&self) -> u32 {
        2
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
        resize(q.len(), &mut [&mut self.a, &mut self.qm, &mut self.vm]);
        f.acceleration(t, q, v, &mut self.a)?;
        axpy(&mut self.qm, q, 0.5 * h, v);
        axpy(&mut self.vm, v, 0.5 * h, &self.a);
        f.acceleration(t + 0.5 * h, &self.qm, &self.vm, &mut self.a)?;
        axpy(q_out, q, h, &self.vm);
        axpy(v_out, v, h, &self.a);
        Ok(())
    }
}
