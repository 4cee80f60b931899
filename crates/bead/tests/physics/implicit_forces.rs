//! The implicit steppers are implicit in the applied forces and in parametric objects' own
//! dynamics, not only in the constraints (Baraff and Witkin 1998): a spring, a damper or a
//! torsion spring far stiffer than the step stays stable and follows the stepper's own discrete
//! solution, and a chain in joint angles with a light, short first link runs as the same chain
//! of particles and rods does.
//!
//! Before, the forces were explicit inside the implicit steppers: a 1e7 N/m spring on 1 kg at
//! dt = 1 ms grew to 1e154 m by t = 0.17 s, and the two-link chain below stopped at t = 0.2 s.

use bead::autodiff::DualNum;
use bead::constraint::Distance;
use bead::force::{Drag, Gravity, MouseSpring, Spring, TorsionSpring};
use bead::integrate::{Bdf2, ImplicitEuler, Integrator, Rk4};
use bead::models::G;
use bead::solve::SparseLdlt;
use bead::{BodyId, Parametric, Particle, RigidBody, System};

/// The two implicit steppers.
fn steppers() -> Vec<Box<dyn Integrator>> {
    vec![
        Box::new(ImplicitEuler::default()),
        Box::new(Bdf2::default()),
    ]
}

/// Asserts that each implicit stepper's error against `reference`, of `run` at the steps
/// `steps`, falls at the stepper's order as the step halves (within 0.3 of it).
fn assert_orders(
    what: &str,
    steps: &[f64],
    reference: f64,
    run: impl Fn(Box<dyn Integrator>, f64) -> f64,
) {
    for k in 0..steppers().len() {
        let (name, order) = {
            let stepper = &steppers()[k];
            (stepper.name(), f64::from(stepper.order()))
        };
        let errors: Vec<f64> = steps
            .iter()
            .map(|&h| (run(steppers().swap_remove(k), h) - reference).abs())
            .collect();
        for pair in errors.windows(2) {
            let observed = (pair[0] / pair[1]).log2();
            assert!(
                (observed - order).abs() < 0.3,
                "{name}: {what} {errors:?} give order {observed}, not {order}"
            );
        }
    }
}

/// The stepper's own solution of the linear oscillator `m ẍ = −k x − c ẋ` from `(x₀, 0)`,
/// `steps` steps of `h`: implicit Euler, `v₁ (1 + h c/m + h² k/m) = v₀ − h k x₀/m`; BDF2 after
/// one implicit Euler step, on `q_b = (4 qₙ − qₙ₋₁)/3` with `ĥ = 2h/3`.
fn oscillator(name: &str, (m, k, c): (f64, f64, f64), x0: f64, h: f64, steps: usize) -> Vec<f64> {
    let euler = |(x, v): (f64, f64), base: (f64, f64), hv: f64| {
        // x = base.0 + hv v₁, v₁ = base.1 + hv (−k x − c v₁)/m, with base = (q_b, v_b).
        let v1 = (base.1 - hv * k * base.0 / m) / (1.0 + hv * c / m + hv * hv * k / m);
        let _ = (x, v);
        (base.0 + hv * v1, v1)
    };
    let mut out = Vec::with_capacity(steps);
    let mut now = (x0, 0.0);
    let mut before: Option<(f64, f64)> = None;
    for _ in 0..steps {
        let next = match (name, before) {
            ("bdf2", Some(p)) => {
                let base = ((4.0 * now.0 - p.0) / 3.0, (4.0 * now.1 - p.1) / 3.0);
                euler(now, base, 2.0 * h / 3.0)
            }
            _ => euler(now, now, h),
        };
        before = Some(now);
        now = next;
        out.push(now.0);
    }
    out
}

/// A 1 kg particle on a spring of 1e7 N/m (ω h = 3.2 at h = 1 ms) to an anchor, released
/// 0.1 m out: each stepper's trajectory is its own discrete solution of the oscillator to
/// Newton's tolerance, and its energy never grows.
#[test]
fn a_stiff_spring_steps_as_the_stepper_says() {
    let (m, k, c, h) = (1.0, 1e7, 20.0, 1e-3);
    for integrator in steppers() {
        let name = integrator.name();
        let mut sys = System::new(2).unwrap();
        sys.set_integrator_boxed(integrator);
        let anchor = sys.add_particle(Particle::anchor(&[0.0, 0.0])).unwrap();
        let p = sys
            .add_particle(Particle::new(&[1.1, 0.0]).mass(m))
            .unwrap();
        sys.add_force(Spring::new(anchor, p, k, c, 1.0)).unwrap();
        let expected = oscillator(name, (m, k, c), 0.1, h, 400);
        let mut energy = sys.diagnostics().unwrap().total_energy();
        // Rounding of the positions near 1 m, in the spring's energy.
        let rounding = k * 1e-16 * 0.1;
        for (i, x) in expected.iter().enumerate() {
            sys.step(h).unwrap();
            let got = sys.position(p)[0] - 1.0;
            assert!(
                (got - x).abs() <= 1e-9 * 0.1,
                "{name}, step {}: x = {got} m, the stepper's solution is {x} m",
                i + 1
            );
            let e = sys.diagnostics().unwrap().total_energy();
            assert!(
                e <= energy + rounding,
                "{name}: energy {e} J after {energy} J"
            );
            energy = e;
        }
    }
}

/// Two free particles (1 and 3 kg) on a 1e7 N/m spring: the spring's Jacobian couples two
/// bodies, the momentum of the pair stays zero, and their separation follows implicit Euler's
/// oscillator of the reduced mass.
#[test]
fn a_stiff_spring_between_two_bodies_keeps_momentum() {
    let (m1, m2, k, c, h) = (1.0, 3.0, 1e7, 0.0, 1e-3);
    let mut sys = System::new(2).unwrap();
    sys.set_integrator(ImplicitEuler::default());
    let a = sys
        .add_particle(Particle::new(&[0.0, 0.0]).mass(m1))
        .unwrap();
    let b = sys
        .add_particle(Particle::new(&[1.2, 0.0]).mass(m2))
        .unwrap();
    sys.add_force(Spring::new(a, b, k, c, 1.0)).unwrap();
    let reduced = m1 * m2 / (m1 + m2);
    let expected = oscillator("implicit-euler", (reduced, k, c), 0.2, h, 300);
    for (i, x) in expected.iter().enumerate() {
        sys.step(h).unwrap();
        let momentum = m1 * sys.velocity(a)[0] + m2 * sys.velocity(b)[0];
        let stretch = sys.position(b)[0] - sys.position(a)[0] - 1.0;
        assert!(momentum.abs() < 1e-9, "step {}: momentum {momentum}", i + 1);
        assert!(
            (stretch - x).abs() <= 1e-9 * 0.2,
            "step {}: stretch {stretch} m, implicit Euler's is {x} m",
            i + 1
        );
    }
}

/// Drag of 1e5 N·s/m on 1 kg (h c/m = 100 at h = 1 ms; explicit drag reverses the velocity
/// a hundredfold each step): implicit Euler's `v₁ = v₀ / (1 + h c/m)` exactly.
#[test]
fn strong_drag_decays_as_implicit_euler_says() {
    let (c, h) = (1e5, 1e-3);
    let mut sys = System::new(2).unwrap();
    sys.set_integrator(ImplicitEuler::default());
    let p = sys
        .add_particle(Particle::new(&[0.0, 0.0]).velocity(&[3.0, -1.0]))
        .unwrap();
    sys.add_force(Drag::new(c)).unwrap();
    let mut v = [3.0, -1.0];
    for step in 1..=20 {
        sys.step(h).unwrap();
        v = v.map(|x| x / (1.0 + h * c));
        let got = sys.velocity(p);
        for i in 0..2 {
            assert!(
                (got[i] - v[i]).abs() <= 1e-12 + 1e-9 * v[i].abs(),
                "step {step}: v = {got:?}, implicit Euler's is {v:?}"
            );
        }
    }
}

/// A torsion spring of 1e5 N·m/rad on a wheel of 1e-3 kg·m² (ω h = 10 at h = 1 ms) against the
/// world: its angle follows each stepper's oscillator.
#[test]
fn a_stiff_torsion_spring_steps_as_the_stepper_says() {
    let (inertia, k, c, h) = (1e-3, 1e5, 0.1, 1e-3);
    for integrator in steppers() {
        let name = integrator.name();
        let mut sys = System::new(2).unwrap();
        sys.set_integrator_boxed(integrator);
        let wheel = sys
            .add_rigid_body(RigidBody::new(&[0.0, 0.0], 0.2).mass(1.0).inertia(inertia))
            .unwrap();
        sys.add_force(TorsionSpring::to_world(wheel, k, c, 0.0))
            .unwrap();
        let expected = oscillator(name, (inertia, k, c), 0.2, h, 200);
        for (i, angle) in expected.iter().enumerate() {
            sys.step(h).unwrap();
            let got = sys.view().angle(BodyId::from(wheel));
            assert!(
                (got - angle).abs() <= 1e-9 * 0.2,
                "{name}, step {}: θ = {got}, the stepper's solution is {angle}",
                i + 1
            );
        }
    }
}

/// A pendulum's bob grabbed by a mouse spring of 1e8 N/m toward a target off its circle: the
/// stiff grab and the rod meet in one Newton system. The bob settles where the rod and the
/// spring balance (on the rod, nearly at the target's projection onto the circle), the rod
/// holds to Newton's tolerance throughout, and the run never diverges.
#[test]
fn a_stiff_grab_on_a_rod_settles_at_its_balance() {
    let (mut sys, bob, rod) = bead::models::pendulum(1.0, 0.3, 1.0).unwrap();
    sys.set_integrator(ImplicitEuler::default());
    let target = [2.0, 0.5];
    sys.add_force(MouseSpring::new(bob, &target, 1e8, 1e3))
        .unwrap();
    for _ in 0..300 {
        sys.step(1e-3).unwrap();
        let d = sys.diagnostics().unwrap();
        assert!(d.max_abs_c < 1e-9, "the rod is off by {} m", d.max_abs_c);
    }
    let p = sys.position(bob);
    let norm = (target[0] * target[0] + target[1] * target[1]).sqrt();
    // The balance along the circle: the spring's pull toward the target's projection against
    // the bob's weight, an angle of m g / (k |target|) from it.
    let expected = [target[0] / norm, target[1] / norm];
    let off = ((p[0] - expected[0]).powi(2) + (p[1] - expected[1]).powi(2)).sqrt();
    assert!(
        off < 1e-6,
        "the bob rests at {p:?}, {off} m from {expected:?}"
    );
    let tension = sys.diagnostics().unwrap().constraint(rod).unwrap().lambda[0];
    // The rod carries the spring's pull less the weight's share along it.
    assert!(tension.is_finite() && tension < 0.0, "λ = {tension}");
}

/// The two-link chain of the issue, in joint angles: a 0.1 g bob on a 1 cm link, then 1 kg on
/// a 1 m link. Its first link swings at about 3,000 rad/s under the second's pull: three
/// radians a step at h = 1 ms.
fn joint_chain(integrator: Box<dyn Integrator>, l1: f64, m1: f64) -> (System, BodyId) {
    let mut sys = System::new(2).unwrap();
    sys.set_integrator_boxed(integrator);
    let chain = sys
        .add_parametric(
            Parametric::new(&[1.0, 0.9])
                .point("p1", m1, move |u, _t, x| {
                    x[0] = u[0].sin() * l1;
                    x[1] = -u[0].cos() * l1;
                })
                .point("p2", 1.0, move |u, _t, x| {
                    x[0] = u[0].sin() * l1 + u[1].sin();
                    x[1] = -u[0].cos() * l1 - u[1].cos();
                }),
        )
        .unwrap();
    sys.add_force(Gravity::new(&[0.0, -G])).unwrap();
    (sys, chain.body())
}

/// The same chain of two particles and two rods.
fn particle_chain(integrator: Box<dyn Integrator>, l1: f64, m1: f64) -> (System, bead::ParticleId) {
    let mut sys = System::new(2).unwrap();
    sys.set_integrator_boxed(integrator);
    sys.set_solver(SparseLdlt::default());
    let anchor = sys.add_particle(Particle::anchor(&[0.0, 0.0])).unwrap();
    let x1 = [1f64.sin() * l1, -(1f64.cos()) * l1];
    let x2 = [x1[0] + 0.9f64.sin(), x1[1] - 0.9f64.cos()];
    let p1 = sys.add_particle(Particle::new(&x1).mass(m1)).unwrap();
    let p2 = sys.add_particle(Particle::new(&x2).mass(1.0)).unwrap();
    sys.add_constraint(Distance::new(anchor, p1, l1)).unwrap();
    sys.add_constraint(Distance::new(p1, p2, 1.0)).unwrap();
    sys.add_force(Gravity::new(&[0.0, -G])).unwrap();
    (sys, p2)
}

/// The largest distance between the two chains' heavy bobs over `duration`, stepped at `h`.
fn chains_apart(make: &dyn Fn() -> Box<dyn Integrator>, h: f64, duration: f64) -> f64 {
    let (l1, m1) = (0.01, 1e-4);
    let (mut joints, body) = joint_chain(make(), l1, m1);
    let (mut particles, bob) = particle_chain(make(), l1, m1);
    let mut apart = 0.0_f64;
    let steps = (duration / h).round() as usize;
    for k in 1..=steps {
        let t = k as f64 * h;
        joints
            .step_to(t)
            .unwrap_or_else(|e| panic!("joint angles, h = {h}: {e}"));
        particles
            .step_to(t)
            .unwrap_or_else(|e| panic!("particles, h = {h}: {e}"));
        let u = joints.coordinates(body);
        let x = [u[0].sin() * l1 + u[1].sin(), -u[0].cos() * l1 - u[1].cos()];
        let y = particles.position(bob);
        apart = apart.max(((x[0] - y[0]).powi(2) + (x[1] - y[1]).powi(2)).sqrt());
    }
    apart
}

/// Under implicit Euler both chains run to the end, and they differ by what implicit Euler's
/// first-order error allows: the gap halves with the step.
#[test]
fn a_light_link_in_joint_angles_runs_as_the_particle_chain_under_implicit_euler() {
    let make = || Box::new(ImplicitEuler::default()) as Box<dyn Integrator>;
    let coarse = chains_apart(&make, 1e-3, 1.0);
    let fine = chains_apart(&make, 5e-4, 1.0);
    assert!(coarse < 5e-3, "the chains are {coarse} m apart at h = 1 ms");
    let ratio = coarse / fine;
    assert!(
        (1.7..2.3).contains(&ratio),
        "the gap goes {coarse} → {fine} m as h halves (ratio {ratio}): not first order"
    );
}

/// Under BDF2 the two chains agree to its second-order error: within 3e-5 m at h = 1 ms.
#[test]
fn a_light_link_in_joint_angles_runs_as_the_particle_chain_under_bdf2() {
    let make = || Box::new(Bdf2::default()) as Box<dyn Integrator>;
    let apart = chains_apart(&make, 1e-3, 1.0);
    assert!(apart < 3e-5, "the chains are {apart} m apart at h = 1 ms");
}

/// A bead on a circle of 0.5 m (a one-coordinate parametric object) tied by a damped spring to
/// a point off the circle: the object's own dynamics and the spring, both implicit, converge
/// at each stepper's order as h halves from 4 ms to 0.5 ms, against RK4 at 0.05 ms.
#[test]
fn an_object_on_a_spring_converges_at_the_steppers_order() {
    let build = |integrator: Box<dyn Integrator>| {
        let mut sys = System::new(2).unwrap();
        sys.set_integrator_boxed(integrator);
        let ring = sys
            .add_parametric(Parametric::new(&[1.0]).point("p", 0.3, |u, _t, x| {
                x[0] = u[0].sin() * 0.5;
                x[1] = -u[0].cos() * 0.5;
            }))
            .unwrap();
        let p = sys.parametric_point(ring, "p").unwrap();
        let anchor = sys.add_particle(Particle::anchor(&[0.8, 0.2])).unwrap();
        sys.add_force(Spring::new(p, anchor, 40.0, 0.5, 0.3))
            .unwrap();
        sys.add_force(Gravity::new(&[0.0, -G])).unwrap();
        (sys, ring.body())
    };
    let end = |integrator: Box<dyn Integrator>, h: f64| {
        let (mut sys, body) = build(integrator);
        let steps = (1.0 / h).round() as usize;
        for k in 1..=steps {
            sys.step_to(k as f64 * h).unwrap();
        }
        sys.coordinates(body)[0]
    };
    let reference = end(Box::<Rk4>::default(), 5e-5);
    assert_orders("errors", &[4e-3, 2e-3, 1e-3, 5e-4], reference, end);
}

/// `solver = dense` factors the Newton matrix dense: on a chain of 30 rods whose last link is a
/// stiff spring, and on the two-link chain in joint angles, the dense and the sparse
/// factorization take the same steps, to well within Newton's tolerance.
#[test]
fn the_dense_and_sparse_newton_solves_agree() {
    let rods = |solver: Box<dyn bead::solve::LinearSolver>| {
        let mut c = bead::models::chain(30, 1.0 / 30.0, 0.1, 0.6).unwrap();
        let last = *c.particles.last().unwrap();
        let end = c
            .system
            .add_particle(Particle::new(&[0.9, -0.9]).mass(0.2))
            .unwrap();
        c.system
            .add_force(Spring::new(last, end, 1e5, 2.0, 0.3))
            .unwrap();
        c.system.set_integrator(ImplicitEuler::default());
        c.system.set_solver_boxed(solver);
        c.system
    };
    let links = |solver: Box<dyn bead::solve::LinearSolver>| {
        let (mut sys, _) = joint_chain(Box::new(Bdf2::default()), 0.01, 1e-4);
        sys.set_solver_boxed(solver);
        sys
    };
    for (name, make) in [
        (
            "rods",
            &rods as &dyn Fn(Box<dyn bead::solve::LinearSolver>) -> System,
        ),
        ("joint angles", &links),
    ] {
        let mut sparse = make(Box::<SparseLdlt>::default());
        let mut dense = make(Box::<bead::solve::Dense>::default());
        for k in 1..=200 {
            let t = k as f64 * 1e-3;
            sparse.step_to(t).unwrap();
            dense.step_to(t).unwrap();
            let apart = sparse
                .q()
                .iter()
                .zip(dense.q())
                .fold(0.0_f64, |m, (a, b)| m.max((a - b).abs()));
            assert!(
                apart < 1e-9,
                "{name}, t = {t}: the solves are {apart} apart"
            );
        }
    }
}

/// A 60° pendulum pulled sideways by a damped spring: the rod's force at t = 1 s converges at
/// each stepper's order as h halves from 2 ms to 0.25 ms, against RK4 at 0.05 ms. The spring's
/// force is taken at the step's end with the rod's, so λ (which balances both) converges with
/// the positions.
#[test]
fn a_rods_force_beside_a_spring_converges_at_the_steppers_order() {
    let run = |integrator: Box<dyn Integrator>, h: f64| {
        let (mut sys, bob, rod) = bead::models::pendulum(1.0, 60f64.to_radians(), 1.0).unwrap();
        sys.set_integrator_boxed(integrator);
        let anchor = sys.add_particle(Particle::anchor(&[1.5, -0.2])).unwrap();
        sys.add_force(Spring::new(bob, anchor, 30.0, 0.5, 0.8))
            .unwrap();
        let steps = (1.0 / h).round() as usize;
        for k in 1..=steps {
            sys.step_to(k as f64 * h).unwrap();
        }
        sys.diagnostics().unwrap().constraint(rod).unwrap().lambda[0]
    };
    let reference = run(Box::<Rk4>::default(), 5e-5);
    assert_orders("λ errors", &[2e-3, 1e-3, 5e-4, 2.5e-4], reference, run);
}

/// The light-link chain under BDF2 at h = 0.25 ms, where the light link's swing is resolved: its
/// energy falls by what the same chain of particles and rods loses, within 2 %. (With the
/// momentum residual's rounding floor counted on `|q|` through the object's nearly singular
/// mass, Newton stopped a million times too early there, and the chain gained 4e-3 J a second.)
#[test]
fn a_light_link_loses_energy_as_the_particle_chain_does() {
    let (l1, m1, h) = (0.01, 1e-4, 2.5e-4);
    let (mut joints, _) = joint_chain(Box::new(Bdf2::default()), l1, m1);
    let (mut particles, _) = particle_chain(Box::new(Bdf2::default()), l1, m1);
    let energy = |sys: &mut System| sys.diagnostics().unwrap().total_energy();
    let (e_joints, e_particles) = (energy(&mut joints), energy(&mut particles));
    for k in 1..=4000 {
        joints.step_to(k as f64 * h).unwrap();
        particles.step_to(k as f64 * h).unwrap();
    }
    let lost_joints = e_joints - energy(&mut joints);
    let lost_particles = e_particles - energy(&mut particles);
    assert!(
        lost_particles > 0.0 && (lost_joints - lost_particles).abs() < 0.02 * lost_particles,
        "the joint-angle chain lost {lost_joints} J, the particle chain {lost_particles} J"
    );
}
