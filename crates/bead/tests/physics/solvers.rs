//! The sparse LDLᵀ against the dense solve on what only it does differently: rows left out by the
//! inequality algorithms (masks that change from one solve to the next), and a cached symbolic
//! analysis that must be redone when the model's structure changes.

use bead::constraint::Distance;
use bead::solve::{Dense, SparseLdlt};
use bead::{Diagnostics, Particle, System};

/// λ of every constraint at the current state, solved by the dense solver and by the sparse one.
fn both(sys: &mut System) -> (Diagnostics, Diagnostics) {
    sys.set_solver(Dense::default());
    let dense = sys.diagnostics().unwrap();
    sys.set_solver(SparseLdlt::default());
    let sparse = sys.diagnostics().unwrap();
    (dense, sparse)
}

fn assert_same_multipliers(dense: &Diagnostics, sparse: &Diagnostics, what: &str) {
    let scale = dense
        .constraints
        .iter()
        .flat_map(|c| c.lambda.iter())
        .fold(1e-12_f64, |m, l| m.max(l.abs()));
    assert_eq!(dense.constraints.len(), sparse.constraints.len(), "{what}");
    for (d, s) in dense.constraints.iter().zip(&sparse.constraints) {
        for (a, b) in d.lambda.iter().zip(&s.lambda) {
            assert!(
                (a - b).abs() <= 1e-9 * scale,
                "{what}, '{}': dense λ = {a}, sparse λ = {b}",
                d.name
            );
        }
    }
}

/// A settling pile: balls resting on each other and on the floor, so Jonquet's algorithm solves
/// with some contact rows left out, and different ones from step to step. Compared on the
/// accelerations, which are unique; the λ of a hyperstatic set are not.
#[test]
fn agrees_with_dense_on_a_pile_with_a_changing_active_set() {
    let (mut sys, _) = bead::models::ball_pile(12, 0.02, 0.15).unwrap();
    sys.set_solver(SparseLdlt::default());
    let mut compared = 0;
    for step in 0..600 {
        sys.step(1e-3).unwrap();
        if step % 50 == 49 {
            let (dense, sparse) = both(&mut sys);
            let active = |d: &Diagnostics| {
                d.constraints
                    .iter()
                    .filter_map(|c| c.active.as_ref())
                    .flatten()
                    .filter(|a| **a)
                    .count()
            };
            // A real pile's held contacts are redundant (a ball on two others and a wall), so
            // neither λ nor the held set is unique there (a redundant row held with λ = 0 or left
            // out gives the same motion: the two solvers' rounding decides, as at step 349 of
            // this pile); the accelerations they give are, and must agree.
            let (held_dense, held_sparse) = (active(&dense), active(&sparse));
            assert!(
                held_dense.abs_diff(held_sparse) <= 1,
                "pile, step {step}: {held_dense} rows held by the dense solver, {held_sparse} by the sparse one"
            );
            sys.set_solver(Dense::default());
            let a_dense = sys.acceleration().unwrap().to_vec();
            sys.set_solver(SparseLdlt::default());
            let a_sparse = sys.acceleration().unwrap().to_vec();
            for (x, y) in a_dense.iter().zip(&a_sparse) {
                assert!(
                    (x - y).abs() <= 1e-8 * (1.0 + x.abs()),
                    "pile, step {step}: q̈ dense {x}, sparse {y}"
                );
            }
            compared += usize::from(active(&dense) > 0);
        }
    }
    assert!(
        compared > 5,
        "the pile made contact: {compared} comparisons with contacts"
    );
}

/// Adding and removing rods between steps changes J's pattern; the sparse solver redoes its
/// analysis and keeps giving the dense solver's λ (a stale pattern would give wrong numbers or
/// fail).
#[test]
fn follows_structure_changes() {
    let mut chain = bead::models::chain(8, 0.1, 0.2, -0.3).unwrap();
    let sys = &mut chain.system;
    sys.set_solver(SparseLdlt::default());
    for _ in 0..20 {
        sys.step(1e-3).unwrap();
    }
    let (dense, sparse) = both(sys);
    assert_same_multipliers(&dense, &sparse, "chain");

    // A brace from a new anchor beside the chain to particle 4 (off the chain's line, so that the
    // model stays well-conditioned): a new body and a new constraint.
    let b = chain.particles[4];
    let x = sys.position(b).to_vec();
    let a = sys
        .add_particle(Particle::anchor(&[x[0] + 0.3, x[1] + 0.4]))
        .unwrap();
    let d = 0.5;
    let brace = sys.add_constraint(Distance::new(a, b, d)).unwrap();
    for _ in 0..20 {
        sys.step(1e-3).unwrap();
    }
    let (dense, sparse) = both(sys);
    assert_eq!(sparse.constraints.len(), 9);
    assert_same_multipliers(&dense, &sparse, "chain with a brace");

    assert!(sys.remove_constraint(brace));
    assert!(sys.remove_constraint(chain.links[5]));
    for _ in 0..20 {
        sys.step(1e-3).unwrap();
    }
    let (dense, sparse) = both(sys);
    assert_eq!(sparse.constraints.len(), 7);
    assert_same_multipliers(&dense, &sparse, "chain cut in two");
}
