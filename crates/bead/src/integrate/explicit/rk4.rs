//! Classical fourth-order Runge-Kutta over `(q, q̇)` (seed 002 "ODE solvers"): four derivative
//! evaluations per step, global error O(h⁴).

use crate::error::EvalError;
use crate::integrate::{Dynamics, Integrator, axpy, resize};

/// Classical RK4.
#[derive(Clone, Debug, Default)]
pub struct Rk4 {
    qs: Vec<f64>,
    vs: Vec<f64>,
    a: Vec<f64>,
    dq: Vec<f64>,
    dv: Vec<f64>,
}

impl Integrator for Rk4 {
    fn name(&self) -> &'static str {
        "rk4"
    }

    fn order(&self) -> u32 {
        4
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
        resize(
            n,
            &mut [
                &mut self.qs,
                &mut self.vs,
                &mut self.a,
                &mut self.dq,
                &mut self.dv,
            ],
        );
        // Stage k: slope (vs, a) at (qs, vs); accumulate (dq, dv) = Σ w_k · slope_k.
        self.qs.copy_from_slice(q);
        self.vs.copy_from_slice(v);
        self.dq.fill(0.0);
        self.dv.fill(0.0);
        let stages = [(0.0, 1.0), (0.5, 2.0), (0.5, 2.0), (1.0, 1.0)];
        for (k, &(c, weight)) in stages.iter().enumerate() {
            f.acceleration(t + c * h, &self.qs, &self.vs, &mut self.a)?;
            for i in 0..n {
                self.dq[i] += weight * self.vs[i];
                self.dv[i] += weight * self.a[i];
            }
            if let Some(&(next_c, _)) = stages.get(k + 1) {
                // The next stage's state is y + c_next h · (this stage's slope); element by
                // element, q's update reads the old velocity before it is overwritten.
                for i in 0..n {
                    let slope_q = self.vs[i];
                    self.qs[i] = q[i] + next_c * h * slope_q;
                    self.vs[i] = v[i] + next_c * h * self.a[i];
                }
            }
        }
        axpy(q_out, q, h / 6.0, &self.dq);
        axpy(v_out, v, h / 6.0, &self.dv);
        Ok(())
    }
}
