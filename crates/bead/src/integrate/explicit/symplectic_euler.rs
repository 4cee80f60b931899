//! Symplectic (semi-implicit) Euler, seed 002: `q̇₁ = q̇ + h q̈(q, q̇)`, `q₁ = q + h q̇₁`. First
//! order, but its energy error stays bounded on conservative systems.

use crate::error::EvalError;
use crate::integrate::{Dynamics, Integrator, axpy, resize};

/// Symplectic Euler (velocity first, then position with the new velocity).
#[derive(Clone, Debug, Default)]
pub struct SymplecticEuler {
    a: Vec<f64>,
}

impl Integrator for SymplecticEuler {
    fn name(&self) -> &'static str {
        "symplectic-euler"
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
        axpy(v_out, v, h, &self.a);
        axpy(q_out, q, h, v_out);
        Ok(())
    }
}
