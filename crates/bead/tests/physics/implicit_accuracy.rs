//! The implicit steppers at their default settings are right at every step size: their
//! multipliers are the rods' forces at dt = 1e-6 as at 1e-3, they converge at their order as dt
//! is halved all the way down, forces included.

use bead::integrate::{Bdf2, ImplicitEuler, Integrator, Rk4};
use bead::models::{G, pendulum};
use bead::{ConstraintId, ParticleId, System};

/// A 1 m, 1 kg pendulum released at rest `angle` from the vertical, stepped by `integrator`.
fn released(integrator: Box<dyn Integrator>, angle: f64) -> (System, ParticleId, ConstraintId) {
    let (mut sys, bob, rod) = pendulum(1.0, angle, 1.0).unwrap();
    sys.set_integrator_boxed(integrator);
    (sys, bob, rod)
}

/// The rod's tension from the bob's state, `m (g cos θ + |v|² / L)` (m = L = 1): the
/// pendulum's equation of motion along the rod, exact on any state that lies on the rod.
fn tension(sys: &System, bob: ParticleId) -> f64 {
    let (p, v) = (sys.position(bob), sys.velocity(bob));
    let cos = -p[1] / (p[0] * p[0] + p[1] * p[1]).sqrt();
    G * cos + v[0] * v[0] + v[1] * v[1]
}

/// The angle from the downward vertical.
fn angle(sys: &System, bob: ParticleId) -> f64 {
    let p = sys.position(bob);
    p[0].atan2(-p[1])
}

/// At dt = 1e-6 the rod's λ is its tension on every step (a rod in tension has λ < 0): the
/// Newton iteration's stop is relative to the forces, not a length that the step's forces
/// (h² a ≈ 1e-11 m) could never resolve. (Before, λ read 0 or +68 N.) What is left is rounding:
/// positions near 1 m are stored to 1e-16 m, which is 1e-4 N at this step.
#[test]
fn multipliers_are_the_rod_force_at_a_microsecond_step() {
    for integrator in [
        Box::new(ImplicitEuler::default()) as Box<dyn Integrator>,
        Box::new(Bdf2::default()),
    ] {
        let name = integrator.name();
        let (mut sys, bob, rod) = released(integrator, 60f64.to_radians());
        let h = 1e-6;
        for k in 1..=200 {
            sys.step_to(k as f64 * h).unwrap();
            let lambda = sys.diagnostics().unwrap().constraint(rod).unwrap().lambda[0];
            let expected = tension(&sys, bob);
            assert!(
                (lambda + expected).abs() < 1e-3 * expected,
                "{name}, step {k}: λ = {lambda} N, the tension is {expected} N"
            );
        }
    }
}

/// The angle at t = 1 s of a pendulum released at 60°, stepped at `h` by `integrator`, less
/// RK4's at 1e-4 s; and λ's error against the closed form `m g (3 cos θ − 2 cos θ₀)` at the
/// same state.
fn errors(integrator: Box<dyn Integrator>, h: f64, reference: f64) -> (f64, f64) {
    let start = 60f64.to_radians();
    let (mut sys, bob, rod) = released(integrator, start);
    let steps = (1.0 / h).round() as usize;
    for k in 1..=steps {
        sys.step_to(k as f64 * h).unwrap();
    }
    let theta = angle(&sys, bob);
    let lambda = sys.diagnostics().unwrap().constraint(rod).unwrap().lambda[0];
    let closed = G * (3.0 * theta.cos() - 2.0 * start.cos());
    (theta - reference, lambda + closed)
}

/// RK4's angle at t = 1 s, at h = 1e-4 (its error is far below the implicit steppers').
fn reference_angle() -> f64 {
    let (mut sys, bob, _) = released(Box::new(Rk4::default()), 60f64.to_radians());
    for k in 1..=10_000 {
        sys.step_to(k as f64 * 1e-4).unwrap();
    }
    angle(&sys, bob)
}

/// Asserts that each error is `2^order` times the next, within 15 %.
fn assert_order(what: &str, errors: &[f64], order: i32) {
    let expected = 2f64.powi(order);
    for pair in errors.windows(2) {
        let ratio = pair[0] / pair[1];
        assert!(
            (0.85 * expected..1.15 * expected).contains(&ratio),
            "{what}: errors {errors:?}, ratio {ratio}, expected {expected}"
        );
    }
}

/// BDF2 at its default tolerances is second order down to dt = 0.125 ms, in the angle and in
/// the rod's force (with the old absolute stop on the momentum residual its error turned back up
/// at 0.25 ms: 4.5e-5, 1.2e-5, 6.9e-6, −7.1e-5).
#[test]
fn bdf2_converges_at_second_order_all_the_way_down() {
    let reference = reference_angle();
    let runs: Vec<(f64, f64)> = [2e-3, 1e-3, 5e-4, 2.5e-4, 1.25e-4]
        .iter()
        .map(|&h| errors(Box::new(Bdf2::default()), h, reference))
        .collect();
    let angles: Vec<f64> = runs.iter().map(|r| r.0.abs()).collect();
    let forces: Vec<f64> = runs.iter().map(|r| r.1.abs()).collect();
    assert_order("BDF2 angle", &angles, 2);
    assert_order("BDF2 λ", &forces, 2);
}

/// Implicit Euler at its default tolerances is first order down to dt = 1/64 ms, in the angle
/// and in the rod's force.
#[test]
fn implicit_euler_converges_at_first_order_all_the_way_down() {
    let reference = reference_angle();
    let runs: Vec<(f64, f64)> = [2.5e-4, 1.25e-4, 6.25e-5, 3.125e-5, 1.5625e-5]
        .iter()
        .map(|&h| errors(Box::new(ImplicitEuler::default()), h, reference))
        .collect();
    let angles: Vec<f64> = runs.iter().map(|r| r.0.abs()).collect();
    let forces: Vec<f64> = runs.iter().map(|r| r.1.abs()).collect();
    assert_order("implicit Euler angle", &angles, 1);
    assert_order("implicit Euler λ", &forces, 1);
}

/// The fraction of a 30° pendulum's swing energy lost over 5 s at h = 1e-3 by `integrator`,
/// with or without post-step projection; no step may end with more than the start.
fn energy_lost(integrator: Box<dyn Integrator>, projection: bool) -> f64 {
    let (mut sys, _, _) = released(integrator, 30f64.to_radians());
    if projection {
        let mut settings = *sys.settings();
        settings.projection = Some(bead::Projection::default());
        sys.set_settings(settings).unwrap();
    }
    let energy = |sys: &mut System| {
        let d = sys.diagnostics().unwrap();
        d.kinetic_energy + d.potential_energy
    };
    let e0 = energy(&mut sys);
    for k in 1..=5000 {
        sys.step_to(k as f64 * 1e-3).unwrap();
    }
    (e0 - energy(&mut sys)) / (e0 + G)
}

/// Projection moves each step's end by far less than the step's error, so BDF2 continues its
/// history through it and stays second order: the pendulum loses what it loses without
/// projection (1.4e-5 of its swing energy in 5 s), where BDF2 restarted as implicit Euler at
/// every step and lost 5 %.
#[test]
fn bdf2_with_projection_keeps_its_order() {
    let plain = energy_lost(Box::new(Bdf2::default()), false);
    let projected = energy_lost(Box::new(Bdf2::default()), true);
    let euler = energy_lost(Box::new(ImplicitEuler::default()), true);
    assert!(plain > 0.0 && plain < 1e-4, "BDF2 lost {plain}");
    assert!(
        (projected - plain).abs() < 0.05 * plain,
        "BDF2 lost {projected} with projection, {plain} without"
    );
    assert!(euler > 100.0 * projected, "implicit Euler lost {euler}");
    println!(
        "energy lost in 5 s: BDF2 {plain:.3e}, with projection {projected:.3e}, implicit Euler {euler:.3e}"
    );
}

/// A 2 kg ball of radius 5 cm released at `height` (its centre) above a floor through
/// `floor` (a motion of the floor's point), stepped by `integrator`.
fn ball_over(
    integrator: Box<dyn Integrator>,
    height: f64,
    speed: f64,
    floor: bead::Motion,
) -> (System, ParticleId, ConstraintId) {
    let mut sys = System::new(2).unwrap();
    let ball = sys
        .add_particle(
            bead::Particle::new(&[0.0, height])
                .velocity(&[0.0, speed])
                .mass(2.0)
                .radius(0.05),
        )
        .unwrap();
    sys.add_force(bead::force::Gravity::new(&[0.0, -G]))
        .unwrap();
    let contact = sys
        .add_constraint(bead::constraint::HalfPlane::new(
            ball,
            floor,
            &[0.0, 1.0],
            0.05,
        ))
        .unwrap();
    sys.set_integrator_boxed(integrator);
    (sys, ball, contact)
}

/// Restitution 0 under both implicit steppers: a ball dropped from 0.5 m lands and stays, its
/// weight on the floor and `active` set on every step after the landing. (BDF2's history, which
/// still carried the fall, bounced it back to nearly its drop height.)
#[test]
fn a_dropped_ball_stays_down_under_both_implicit_steppers() {
    for integrator in [
        Box::new(ImplicitEuler::default()) as Box<dyn Integrator>,
        Box::new(Bdf2::default()),
    ] {
        let name = integrator.name();
        let (mut sys, ball, floor) =
            ball_over(integrator, 0.55, 0.0, bead::Motion::fixed(&[0.0, 0.0]));
        // Landing at t = √(2 · 0.5 / g) = 0.319 s.
        let landing = (1.0 / G).sqrt();
        for k in 1..=1000 {
            let t = k as f64 * 1e-3;
            sys.step_to(t).unwrap();
            let y = sys.position(ball)[1];
            if t > landing + 0.01 {
                assert!(
                    (y - 0.05).abs() < 1e-9,
                    "{name}, t = {t}: the ball is {} m above the floor",
                    y - 0.05
                );
                let d = sys.diagnostics().unwrap();
                let report = d.constraint(floor).unwrap();
                assert!(
                    (report.lambda[0] - 2.0 * G).abs() < 1e-6,
                    "{name}, t = {t}: λ = {:?}",
                    report.lambda
                );
                assert_eq!(report.active, Some(vec![true]), "{name}, t = {t}");
            }
        }
    }
}

/// A floor rising at 0.5 m/s carries a ball that lands on it: after the landing the ball moves
/// with the floor, and the floor pushes with the ball's weight on every step (under BDF2 the ball
/// left the floor, and λ was 0 on about half the steps).
#[test]
fn a_rising_floor_carries_its_ball_under_both_implicit_steppers() {
    for integrator in [
        Box::new(ImplicitEuler::default()) as Box<dyn Integrator>,
        Box::new(Bdf2::default()),
    ] {
        let name = integrator.name();
        let floor = bead::Motion::linear(&[0.0, 0.0], &[0.0, 0.5]);
        let (mut sys, ball, contact) = ball_over(integrator, 0.15, 0.0, floor);
        for k in 1..=1000 {
            let t = k as f64 * 1e-3;
            sys.step_to(t).unwrap();
            if t > 0.2 {
                let gap = sys.position(ball)[1] - 0.05 - 0.5 * t;
                assert!(gap.abs() < 1e-9, "{name}, t = {t}: gap {gap:e} m");
                assert!(
                    (sys.velocity(ball)[1] - 0.5).abs() < 1e-6,
                    "{name}, t = {t}: v = {:?}",
                    sys.velocity(ball)
                );
                let lambda = sys
                    .diagnostics()
                    .unwrap()
                    .constraint(contact)
                    .unwrap()
                    .lambda[0];
                assert!(
                    (lambda - 2.0 * G).abs() < 1e-6,
                    "{name}, t = {t}: λ = {lambda}"
                );
            }
        }
    }
}
