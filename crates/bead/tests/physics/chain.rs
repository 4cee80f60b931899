//! A hanging chain at rest: each link carries the weight of everything below it.

use bead::models::{G, chain};

/// The λ of link k (from the top) is −(n − k) m g: tension equal to the weight below, whatever
/// the solver.
#[test]
fn each_link_carries_the_weight_below() {
    for solver in crate::solvers() {
        let name = solver.name();
        let (n, m) = (12, 0.3);
        let mut c = chain(n, 0.25, m, -std::f64::consts::FRAC_PI_2).unwrap();
        c.system.set_solver_boxed(solver);
        let d = c.system.diagnostics().unwrap();
        for (k, link) in c.links.iter().enumerate() {
            let lambda = d.constraint(*link).unwrap().lambda[0];
            let weight = (n - k) as f64 * m * G;
            assert!(
                crate::rel(-lambda, weight) < 1e-8,
                "{name}: link {k}: λ = {lambda}, weight below {weight}"
            );
        }
        // And it stays at rest.
        for _ in 0..100 {
            c.system.step(1e-3).unwrap();
        }
        let bottom = c.system.position(*c.particles.last().unwrap());
        assert!(
            bottom[0].abs() < 1e-12 && (bottom[1] + 0.25 * n as f64).abs() < 1e-10,
            "{name}: {bottom:?}"
        );
    }
}

/// The anchor's reaction: the top link pulls the anchor down by the chain's whole weight.
#[test]
fn the_anchor_holds_the_whole_weight() {
    let (n, m) = (5, 2.0);
    let mut c = chain(n, 0.5, m, -std::f64::consts::FRAC_PI_2).unwrap();
    let d = c.system.diagnostics().unwrap();
    let top = d.constraint(c.links[0]).unwrap();
    let (body, force) = &top.forces[0];
    assert_eq!(*body, c.particles[0].body());
    assert!(
        force[0].abs() < 1e-9 && crate::rel(force[1], -(n as f64) * m * G) < 1e-9,
        "{force:?}"
    );
}
