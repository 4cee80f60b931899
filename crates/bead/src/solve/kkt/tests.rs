//! The KKT matrix on real models: what it leaves out, and in which order it eliminates.

use super::{KktMatrix, Pattern};
use crate::System;
use crate::assembly::stiffness::constraint_stiffness;
use crate::integrate::ImplicitEuler;
use crate::integrate::Role;
use crate::math::bands::Bands;

/// Steps `sys` implicitly a little; returns whether its Newton matrix left out the stiffness
/// between bodies, its factor's entries, and those of the factor with that stiffness in.
fn newton_matrix(mut sys: System, dt: f64) -> (bool, usize, usize) {
    sys.set_integrator(ImplicitEuler::default());
    for _ in 0..5 {
        sys.step(dt).unwrap_or_else(|e| panic!("{e}"));
    }
    let parts = sys.parts();
    let layout = parts.evaluator.layout();
    let Some(pattern) = parts.kkt.pattern.as_ref() else {
        panic!("no factor after five steps")
    };
    let coupled = Pattern::analyse(&layout.jacobian, &layout.inv_mass, false, &Bands::default())
        .unwrap_or_else(|e| panic!("{e}"));
    (
        pattern.reduced,
        pattern.symbolic.len_val(),
        coupled.symbolic.len_val(),
    )
}

/// A cloth's rods couple each particle to its neighbours by `h² λ/ℓ` ≈ 0.02 of its mass: the
/// Newton matrix leaves that out and factors into less than half the entries. A chain of
/// 1,000 links couples its top links by ten times their mass and keeps it.
#[test]
fn a_cloth_leaves_out_the_stiffness_between_bodies_and_a_long_chain_keeps_it() {
    let (cloth, _) = crate::models::cloth(20, 1.0, 1.0).unwrap_or_else(|e| panic!("{e}"));
    let (reduced, entries, coupled) = newton_matrix(cloth, 1e-3);
    assert!(reduced, "the cloth's Newton matrix keeps the coupling");
    assert!(
        2 * entries < coupled,
        "reduced factor {entries} entries, coupled {coupled}"
    );
    // Asked for the whole stiffness (the Newton iteration does when the reduced matrix is
    // slow), the same cloth gets it.
    let (mut cloth, _) = crate::models::cloth(20, 1.0, 1.0).unwrap_or_else(|e| panic!("{e}"));
    cloth.set_integrator(ImplicitEuler::default());
    for _ in 0..5 {
        cloth.step(1e-3).unwrap_or_else(|e| panic!("{e}"));
    }
    let q = cloth.q().to_vec();
    let v = vec![0.0; q.len()];
    let parts = cloth.parts();
    parts
        .evaluator
        .evaluate_constraints(parts.model, 0.0, &q, &v)
        .unwrap_or_else(|e| panic!("{e}"));
    let ev = &*parts.evaluator;
    let lambda = parts.acceleration.lambda().to_vec();
    let roles = vec![Role::Held; lambda.len()];
    let kkt = parts.kkt;
    let matrix = KktMatrix {
        jacobian: &ev.layout().jacobian,
        inv_mass: &ev.layout().inv_mass,
        h2: 1e-6,
        roles: &roles,
        full_stiffness: true,
        dense: false,
        exact_steps: false,
        additions: &Bands::default(),
    };
    kkt.factor(&matrix, |sink| {
        constraint_stiffness(ev, parts.model, 0.0, &q, &lambda, sink)
    })
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(kkt.pattern.as_ref().is_some_and(|p| !p.reduced));
    assert_eq!(kkt.factor.len(), coupled);

    let chain = crate::models::chain_swing(1000, 1.0).unwrap_or_else(|e| panic!("{e}"));
    let (reduced, entries, coupled) = newton_matrix(chain.system, 1e-3);
    assert!(
        !reduced,
        "the long chain's Newton matrix drops the coupling"
    );
    assert_eq!(entries, coupled);
}

/// A reduced Newton matrix eliminates the bodies first when their Schur complement is
/// sparser than the matrix: on a cloth that factor is smaller than AMD's order of the
/// whole matrix gives; a pile's contacts tie each ball to several others, and there AMD's
/// order is kept, being the smaller.
#[test]
fn bodies_go_first_where_their_complement_factors_smaller() {
    let factor = |sys: &mut System, bodies_first: Option<bool>| {
        let layout = sys.parts().evaluator.layout();
        let (j, w) = (&layout.jacobian, &layout.inv_mass);
        Pattern::analyse_in(j, w, true, bodies_first, &Bands::default())
            .unwrap_or_else(|e| panic!("{e}"))
            .symbolic
            .len_val()
    };
    let (mut cloth, _) = crate::models::cloth(30, 1.0, 1.0).unwrap_or_else(|e| panic!("{e}"));
    let (chosen, first, amd) = (
        factor(&mut cloth, None),
        factor(&mut cloth, Some(true)),
        factor(&mut cloth, Some(false)),
    );
    assert_eq!(chosen, first, "the cloth's bodies go first");
    assert!(
        first * 10 < amd * 9,
        "bodies first {first} entries, AMD {amd}"
    );
    let (mut pile, _) = crate::models::ball_pile(200, 0.02, 0.6).unwrap_or_else(|e| panic!("{e}"));
    pile.set_integrator(ImplicitEuler::default());
    for _ in 0..300 {
        pile.step(2e-3).unwrap_or_else(|e| panic!("{e}"));
    }
    let (chosen, first, amd) = (
        factor(&mut pile, None),
        factor(&mut pile, Some(true)),
        factor(&mut pile, Some(false)),
    );
    assert_eq!(chosen, amd, "the pile keeps AMD's order");
    assert!(amd < first, "AMD {amd} entries, bodies first {first}");
}
