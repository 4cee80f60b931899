//! Redundant constraints make J W Jᵀ singular: every solver must still give finite λ and the
//! correct motion. Conflicting constraints must give a clear error, never NaN.

use bead::constraint::{Distance, Nail, OnCircle};
use bead::force::Gravity;
use bead::models::pendulum;
use bead::{Motion, Particle, StepFailure, System};

/// A pendulum whose rod is duplicated moves exactly like the plain pendulum, and the two copies
/// together carry the rod's tension.
#[test]
fn duplicated_rod() {
    let (mut plain, bob_plain, rod_plain) = pendulum(1.0, 0.8, 1.0).unwrap();
    plain.set_solver(bead::solve::Dense::default());
    for solver in crate::solvers() {
        let name = solver.name();
        let (mut sys, bob, rod) = pendulum(1.0, 0.8, 1.0).unwrap();
        let pivot = sys.particles().next().unwrap();
        let twin = sys.add_constraint(Distance::new(pivot, bob, 1.0)).unwrap();
        sys.set_solver_boxed(solver);
        let mut reference = pendulum(1.0, 0.8, 1.0).unwrap().0;
        reference.set_solver(bead::solve::Dense::default());
        for _ in 0..500 {
            sys.step(1e-3).unwrap();
        }
        if name == "cg" {
            for _ in 0..500 {
                plain.step(1e-3).unwrap();
            }
        }
        let d = sys.diagnostics().unwrap();
        let (l1, l2) = (
            d.constraint(rod).unwrap().lambda[0],
            d.constraint(twin).unwrap().lambda[0],
        );
        assert!(l1.is_finite() && l2.is_finite(), "{name}");
        let dp = plain.diagnostics().unwrap();
        let tension = dp.constraint(rod_plain).unwrap().lambda[0];
        assert!(
            crate::rel(l1 + l2, tension) < 1e-6,
            "{name}: {l1} + {l2} vs {tension}"
        );
        let (a, b) = (sys.position(bob), plain.position(bob_plain));
        assert!(
            (a[0] - b[0]).abs() < 1e-8 && (a[1] - b[1]).abs() < 1e-8,
            "{name}: {a:?} vs {b:?}"
        );
    }
}

/// A nail and an on-circle that agree: the particle stays put under gravity, λ finite.
#[test]
fn nail_and_circle_that_agree() {
    for solver in crate::solvers() {
        let name = solver.name();
        let mut sys = System::new(2).unwrap();
        let p = sys.add_particle(Particle::new(&[1.0, 0.0])).unwrap();
        sys.add_force(Gravity::new(&[0.0, -9.81])).unwrap();
        sys.add_constraint(Nail::new(p, &[1.0, 0.0])).unwrap();
        sys.add_constraint(OnCircle::new(p, Motion::fixed(&[0.0, 0.0]), 1.0))
            .unwrap();
        sys.set_solver_boxed(solver);
        for _ in 0..200 {
            sys.step(1e-3).unwrap();
        }
        let d = sys.diagnostics().unwrap();
        assert!(
            d.constraints
                .iter()
                .all(|c| c.lambda.iter().all(|l| l.is_finite())),
            "{name}"
        );
        let x = sys.position(p);
        assert!(
            (x[0] - 1.0).abs() < 1e-12 && x[1].abs() < 1e-12,
            "{name}: {x:?}"
        );
        // Together they hold the weight.
        let up: f64 = d.constraints.iter().map(|c| c.forces[0].1[1]).sum();
        assert!((up - 9.81).abs() < 1e-8, "{name}: {up}");
    }
}

/// A rigid triangle swinging from one vertex, built once plainly and once with that vertex
/// nailed twice and a redundant rod to the pivot: every solver gives the plain motion.
#[test]
fn rigid_triangle_pinned_twice() {
    let build = |redundant: bool| {
        let mut sys = System::new(2).unwrap();
        let pivot = sys.add_particle(Particle::anchor(&[0.0, 0.0])).unwrap();
        let a = sys.add_particle(Particle::new(&[0.0, 0.0])).unwrap();
        let b = sys.add_particle(Particle::new(&[1.0, 0.0])).unwrap();
        let c = sys.add_particle(Particle::new(&[0.5, 0.8])).unwrap();
        sys.add_force(Gravity::new(&[0.0, -9.81])).unwrap();
        for (p, q, len) in [
            (a, b, 1.0),
            (b, c, 0.89_f64.sqrt()),
            (c, a, 0.89_f64.sqrt()),
        ] {
            sys.add_constraint(Distance::new(p, q, len)).unwrap();
        }
        sys.add_constraint(Nail::new(a, &[0.0, 0.0])).unwrap();
        if redundant {
            sys.add_constraint(Nail::new(a, &[0.0, 0.0])).unwrap();
            // The pivot sits on a, so b's distance to it is the rod a-b again.
            sys.add_constraint(Distance::new(pivot, b, 1.0)).unwrap();
        }
        (sys, b)
    };
    let (mut plain, b_plain) = build(false);
    plain.set_solver(bead::solve::Dense::default());
    for _ in 0..1000 {
        plain.step(1e-3).unwrap();
    }
    let expected = plain.position(b_plain).to_vec();
    for solver in crate::solvers() {
        let name = solver.name();
        let (mut sys, b) = build(true);
        sys.set_solver_boxed(solver);
        for _ in 0..1000 {
            sys.step(1e-3).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        let d = sys.diagnostics().unwrap();
        assert!(d.max_abs_c < 1e-8, "{name}: {}", d.max_abs_c);
        assert!(
            d.constraints
                .iter()
                .all(|c| c.lambda.iter().all(|l| l.is_finite())),
            "{name}"
        );
        let x = sys.position(b);
        assert!(
            (x[0] - expected[0]).abs() < 1e-7 && (x[1] - expected[1]).abs() < 1e-7,
            "{name}: {x:?} vs {expected:?}"
        );
    }
}

/// One particle nailed at two different places: the step fails with an error that names both
/// nails (whichever solver, whichever of the two it happened to drop), and the state is left as
/// it was.
#[test]
fn conflicting_nails_are_an_error() {
    for solver in crate::solvers() {
        let name = solver.name();
        let mut sys = System::new(2).unwrap();
        let p = sys.add_particle(Particle::new(&[0.0, 0.0])).unwrap();
        let n1 = sys.add_constraint(Nail::new(p, &[0.0, 0.0])).unwrap();
        let n2 = sys.add_constraint(Nail::new(p, &[0.5, 0.0])).unwrap();
        sys.set_constraint_name(n1, "left").unwrap();
        sys.set_constraint_name(n2, "right").unwrap();
        sys.set_solver_boxed(solver);
        let err = sys.step(1e-3).unwrap_err();
        match &err.cause {
            StepFailure::Eval(bead::EvalError::Conflict { constraints, .. }) => {
                assert_eq!(constraints, &["left", "right"], "{name}: {err}");
            }
            other => panic!("{name}: expected a conflict, got {other}"),
        }
        let worst = err.worst.clone().expect("a worst constraint");
        assert_eq!(worst.name, "right", "{name}");
        assert!((worst.abs_c - 0.5).abs() < 1e-12);
        let message = err.to_string();
        assert!(
            message.contains("step 1") && message.contains("'left' and 'right' conflict"),
            "{message}"
        );
        assert_eq!(sys.position(p), &[0.0, 0.0]);
        assert_eq!(sys.time(), 0.0);
    }
}

/// A conflict inside a larger model names only the constraints that take part in it: a swinging
/// chain of 30 rods whose tip is also held by two nails at two places, and a rod between two
/// nailed particles that is longer than the nails allow (every one of its three constraints takes
/// part). The chain's other rods carry forces but no part of the disagreement.
#[test]
fn a_conflict_names_the_constraints_in_it_and_no_others() {
    for solver in crate::solvers() {
        let name = solver.name();
        let mut c = bead::models::chain_swing(30, 1.0).unwrap();
        let tip = *c.particles.last().unwrap();
        let at = c.system.position(tip).to_vec();
        let a = c.system.add_constraint(Nail::new(tip, &at)).unwrap();
        let b = c
            .system
            .add_constraint(Nail::new(tip, &[at[0] + 0.25, at[1]]))
            .unwrap();
        c.system.set_constraint_name(a, "tip here").unwrap();
        c.system.set_constraint_name(b, "tip there").unwrap();
        let p = c.system.add_particle(Particle::new(&[3.0, 0.0])).unwrap();
        let q = c.system.add_particle(Particle::new(&[4.0, 0.0])).unwrap();
        let pin_p = c.system.add_constraint(Nail::new(p, &[3.0, 0.0])).unwrap();
        let pin_q = c.system.add_constraint(Nail::new(q, &[4.0, 0.0])).unwrap();
        let long = c.system.add_constraint(Distance::new(p, q, 1.5)).unwrap();
        for (id, label) in [(pin_p, "pin p"), (pin_q, "pin q"), (long, "long rod")] {
            c.system.set_constraint_name(id, label).unwrap();
        }
        c.system.set_solver_boxed(solver);
        let err = c.system.step(1e-3).unwrap_err();
        let StepFailure::Eval(bead::EvalError::Conflict { constraints, .. }) = &err.cause else {
            panic!("{name}: expected a conflict, got {err}");
        };
        assert_eq!(
            constraints,
            &["tip here", "tip there", "pin p", "pin q", "long rod"],
            "{name}"
        );
    }
}

/// The implicit steppers on the same two models: a doubled rod moves like the single rod with
/// the tension shared between the copies, and two nails at two places are a conflict naming both.
#[test]
fn implicit_steppers_solve_redundancy_and_report_conflicts() {
    // Each step ends within the Newton tolerance, and 300 steps add up what it leaves (the
    // default 1e-10 m puts the two runs 1e-8 m apart, 1e-12 up to 1e-9 m depending on the
    // factor's rounding): compared at 1e-13, they agree to 1e-10 (4e-12 m for implicit Euler
    // and 9e-11 m for BDF2 measured), well within the 1e-9 m asked.
    let steppers: [fn() -> Box<dyn bead::integrate::Integrator>; 2] = [
        || Box::new(bead::integrate::ImplicitEuler::new(1e-13, 200)),
        || Box::new(bead::integrate::Bdf2::new(1e-13, 200)),
    ];
    for stepper in steppers {
        let (mut plain, bob_plain, rod_plain) = pendulum(1.0, 0.8, 1.0).unwrap();
        plain.set_integrator_boxed(stepper());
        let (mut doubled, bob, rod) = pendulum(1.0, 0.8, 1.0).unwrap();
        let pivot = doubled.particles().next().unwrap();
        let twin = doubled
            .add_constraint(Distance::new(pivot, bob, 1.0))
            .unwrap();
        doubled.set_integrator_boxed(stepper());
        let name = plain.integrator().name();
        for _ in 0..300 {
            plain.step(1e-3).unwrap();
            doubled.step(1e-3).unwrap();
        }
        let (x, y) = (plain.position(bob_plain), doubled.position(bob));
        assert!(
            (x[0] - y[0]).abs() < 1e-9 && (x[1] - y[1]).abs() < 1e-9,
            "{name}: {x:?} {y:?}"
        );
        let (d, dp) = (doubled.diagnostics().unwrap(), plain.diagnostics().unwrap());
        let shared = d.constraint(rod).unwrap().lambda[0] + d.constraint(twin).unwrap().lambda[0];
        let tension = dp.constraint(rod_plain).unwrap().lambda[0];
        assert!(
            crate::rel(shared, tension) < 1e-6,
            "{name}: {shared} vs {tension}"
        );

        let mut sys = System::new(2).unwrap();
        let p = sys.add_particle(Particle::new(&[0.0, 0.0])).unwrap();
        let n1 = sys.add_constraint(Nail::new(p, &[0.0, 0.0])).unwrap();
        let n2 = sys.add_constraint(Nail::new(p, &[0.5, 0.0])).unwrap();
        sys.set_constraint_name(n1, "left").unwrap();
        sys.set_constraint_name(n2, "right").unwrap();
        sys.set_integrator_boxed(stepper());
        let err = sys.step(1e-3).unwrap_err();
        let StepFailure::Eval(bead::EvalError::Conflict { constraints, .. }) = &err.cause else {
            panic!("{name}: expected a conflict, got {err}");
        };
        assert_eq!(constraints, &["left", "right"], "{name}");
    }
}

/// A pendulum held by its rod and, redundantly, by an on-circle wire of the rod's radius: the
/// two rows are the same condition written two ways, so only their sum is physics. Under both
/// implicit steppers at their default settings the split is the least-norm one, half each (both
/// rows have unit gradients), and stays so: over 10 s it neither grows nor wanders, and the sum
/// is the plain pendulum's tension. (The KKT matrix's regularization added each iteration's
/// rounding, divided by δ, to the split: on `scenes/planetary_gear.toml` one tooth came to push
/// with 4e4 N within 2 s.)
#[test]
fn implicit_steppers_split_redundant_rows_by_least_norm() {
    let steppers: [fn() -> Box<dyn bead::integrate::Integrator>; 2] = [
        || Box::new(bead::integrate::ImplicitEuler::default()),
        || Box::new(bead::integrate::Bdf2::default()),
    ];
    for stepper in steppers {
        let (mut plain, _, rod_plain) = pendulum(1.0, 0.8, 1.0).unwrap();
        plain.set_integrator_boxed(stepper());
        let (mut doubled, bob, rod) = pendulum(1.0, 0.8, 1.0).unwrap();
        let wire = doubled
            .add_constraint(bead::constraint::OnCircle::new(
                bob,
                bead::Motion::fixed(&[0.0, 0.0]),
                1.0,
            ))
            .unwrap();
        doubled.set_integrator_boxed(stepper());
        let name = plain.integrator().name();
        for k in 1..=10_000 {
            let t = k as f64 * 1e-3;
            plain.step_to(t).unwrap();
            doubled.step_to(t).unwrap();
            if k % 100 == 0 {
                let (d, dp) = (doubled.diagnostics().unwrap(), plain.diagnostics().unwrap());
                let (a, b) = (
                    d.constraint(rod).unwrap().lambda[0],
                    d.constraint(wire).unwrap().lambda[0],
                );
                let tension = dp.constraint(rod_plain).unwrap().lambda[0];
                assert!(
                    (a + b - tension).abs() < 1e-6 * tension.abs().max(1.0),
                    "{name}, t = {t}: {a} + {b} against {tension}"
                );
                assert!(
                    (a - b).abs() < 1e-6 * tension.abs().max(1.0),
                    "{name}, t = {t}: split {a} and {b}"
                );
            }
        }
    }
}

/// Three balls that fill a box exactly, resting on its floor: the sideways contacts (wall, ball,
/// ball, wall) are a redundant row of rows that nothing loads, so their least-norm forces are
/// zero, and they stay zero for 10 s under both implicit steppers while the floor carries each
/// ball's weight. (They built up sideways forces that grew with time.)
#[test]
fn balls_that_fill_a_box_push_nothing_sideways() {
    const DROP: f64 = 0.01;
    use bead::constraint::{HalfPlane, NonPenetration};
    let steppers: [fn() -> Box<dyn bead::integrate::Integrator>; 2] = [
        || Box::new(bead::integrate::ImplicitEuler::default()),
        || Box::new(bead::integrate::Bdf2::default()),
    ];
    for stepper in steppers {
        let (r, mass) = (0.1, 0.5);
        let mut sys = System::new(2).unwrap();
        sys.add_force(bead::force::Gravity::new(&[0.0, -bead::models::G]))
            .unwrap();
        let balls: Vec<_> = (0..3)
            .map(|i| {
                let x = r + 2.0 * r * i as f64;
                sys.add_particle(Particle::new(&[x, r + DROP]).mass(mass).radius(r))
                    .unwrap()
            })
            .collect();
        let fixed = |x: f64| bead::Motion::fixed(&[x, 0.0]);
        let mut floors = Vec::new();
        let mut sideways = Vec::new();
        for &b in &balls {
            floors.push(
                sys.add_constraint(HalfPlane::new(b, fixed(0.0), &[0.0, 1.0], r))
                    .unwrap(),
            );
        }
        sideways.push(
            sys.add_constraint(HalfPlane::new(balls[0], fixed(0.0), &[1.0, 0.0], r))
                .unwrap(),
        );
        sideways.push(
            sys.add_constraint(HalfPlane::new(balls[2], fixed(6.0 * r), &[-1.0, 0.0], r))
                .unwrap(),
        );
        for pair in balls.windows(2) {
            sideways.push(
                sys.add_constraint(NonPenetration::new(pair[0], pair[1], 2.0 * r))
                    .unwrap(),
            );
        }
        sys.set_integrator_boxed(stepper());
        let name = sys.integrator().name();
        for k in 1..=10_000 {
            sys.step_to(k as f64 * 1e-3).unwrap();
            if k % 500 == 0 {
                let d = sys.diagnostics().unwrap();
                for &c in &sideways {
                    let lambda = d.constraint(c).unwrap().lambda[0];
                    assert!(
                        lambda.abs() < 1e-6,
                        "{name}, t = {}: a sideways contact pushes with {lambda} N",
                        sys.time()
                    );
                }
                for &c in &floors {
                    let lambda = d.constraint(c).unwrap().lambda[0];
                    assert!(
                        (lambda - mass * bead::models::G).abs() < 1e-6,
                        "{name}, t = {}: the floor carries {lambda} N",
                        sys.time()
                    );
                }
            }
        }
    }
}
