//! Explicit (forward) Euler: `q₁ = q + h q̇`, `q̇₁ = q̇ + h q̈(q, q̇)`. First order; gains energy on
//! oscillators, kept for teaching and for comparison.

use crate::error::EvalError;
use crate::integrate::{Dynamics, Integrator, axpy, resize};

/// Forward Euler.
#[derive(Clone, Debug, Default)]
pub struct Euler {
    a: Vec<f64>,
}

impl Integrator for Euler {
    fn name(&self) -> &'static str {
        "euler"
    }

    fn order(&self) -> u32 {
        1
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
        resize(q.len(), &mut [&mut self.a]);
        f.acceleration(t, q, v, &mut self.a)?;
        axpy(q_out, q, h, v);
        axpy(v_out, v, h, &self.a);
        Ok(())
    }
}
