//! Physics tests of the engine: closed-form results, the seeds' own examples, conservation laws
//! and convergence orders. One test binary, one module per topic.

// Tests panic on failure by design; helper functions outside #[test] unwrap too.
#![allow(clippy::unwrap_used)]

mod accelerating_support;
mod assembly;
mod bead_on_wire;
mod chain;
mod complementarity;
mod contact;
mod contact_3d;
mod convergence;
mod cylinders_3d;
mod determinism;
mod failures;
mod forces;
mod friction;
mod friction_3d;
mod gears;
mod impacts;
mod implicit;
mod implicit_accuracy;
mod implicit_forces;
mod jacobians;
mod joint_grid;
mod joints3d;
mod large_steps;
mod motors;
mod moving_contact;
mod moving_targets;
mod parametric;
mod pendulum;
mod projection;
mod redundancy;
mod rigid;
mod rigid3d;
mod sliders;
mod solvers;
mod stacking;
mod surfaces;

use bead::solve::{ConjugateGradient, Dense, GaussSeidel, LinearSolver, SparseLdlt};

/// One of each solver, for tests that must hold whatever the solver.
pub fn solvers() -> Vec<Box<dyn LinearSolver>> {
    vec![
        Box::new(ConjugateGradient::default()),
        Box::new(Dense::default()),
        Box::new(GaussSeidel::default()),
        Box::new(SparseLdlt::default()),
    ]
}

/// Relative difference, safe at zero.
pub fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / a.abs().max(b.abs()).max(1e-300)
}
