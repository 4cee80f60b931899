//! Contact with boundaries that move, and impacts on driven bodies: a row's approach speed is
//! `ġ = J q̇ + ∂g/∂t` in activation, in the rest rule, in locating the impact and in the impulse.
//!
//! Regression (issue "physics at the seams", item 1): a half-plane whose `through` rose at 1 m/s
//! let a falling ball pass straight through it — the impulse removed only `J q̇`, the ball kept
//! closing at the floor's speed, was then "too fast" to be a resting contact, and sank to
//! g = −0.77 m with λ = 0 and the run reporting success. The same projection `J q̇ = 0` braked
//! motors at every impact.

use bead::constraint::{HalfPlane, Motor};
use bead::force::Gravity;
use bead::models::G;
use bead::{Motion, Particle, Point, RigidBody, Settings, System};

const R: f64 = 0.1;
const TOL: f64 = 1e-9;

/// A floor rising at 1 m/s catches a ball dropped from rest and carries it at its own speed;
/// the ball never sinks deeper than the contact tolerance, and once carried the floor's force
/// is its weight.
#[test]
fn rising_floor_catches_and_carries_a_falling_ball() {
    let mut sys = System::new(2).unwrap();
    let ball = sys
        .add_particle(Particle::new(&[0.0, 1.0]).radius(R).mass(2.0))
        .unwrap();
    sys.add_force(Gravity::new(&[0.0, -G])).unwrap();
    let floor_motion = Motion::linear(&[0.0, -0.5], &[0.0, 1.0]);
    let floor = sys
        .add_constraint(HalfPlane::new(ball, floor_motion.clone(), &[0.0, 1.0], R))
        .unwrap();
    // Contact when 1 − g t²/2 − r = −0.5 + t.
    let t_contact = (-1.0 + (1.0 + 2.0 * G * 1.4).sqrt()) / G;
    let floor_y = |t: f64| floor_motion.sample(t).position[1];
    while sys.time() < 1.5 {
        sys.step(1e-3).unwrap();
        let (t, y) = (sys.time(), sys.position(ball)[1]);
        let gap = y - R - floor_y(t);
        assert!(
            gap >= -TOL,
            "t = {t}: the ball is {gap:e} m inside the floor"
        );
        if t < t_contact - 1e-3 {
            assert!(
                (y - (1.0 - 0.5 * G * t * t)).abs() < 1e-9,
                "free fall before the contact"
            );
        }
        if t > t_contact + 1e-3 {
            assert!(gap <= TOL, "t = {t}: the ball left the floor ({gap:e} m)");
            // Baumgarte feedback settles a gap of the contact tolerance at speeds of
            // (k_s / k_d)·1e-9 m/s.
            assert!(
                (sys.velocity(ball)[1] - 1.0).abs() < 1e-7,
                "t = {t}: carried at {} m/s, not the floor's 1 m/s",
                sys.velocity(ball)[1]
            );
        }
    }
    let d = sys.diagnostics().unwrap();
    let report = d.constraint(floor).unwrap();
    assert!(
        (report.lambda[0] - 2.0 * G).abs() < 1e-9,
        "λ = {:?}",
        report.lambda
    );
    assert_eq!(report.active, Some(vec![true]));
}

/// A ball resting on a floor that drops away at twice the acceleration of gravity is never
/// touched again: it falls freely, with λ = 0.
#[test]
fn floor_falling_faster_than_free_fall_is_never_touched() {
    let mut sys = System::new(2).unwrap();
    let ball = sys
        .add_particle(Particle::new(&[0.0, R]).radius(R))
        .unwrap();
    sys.add_force(Gravity::new(&[0.0, -G])).unwrap();
    let floor = sys
        .add_constraint(HalfPlane::new(
            ball,
            Motion::accelerated(&[0.0, 0.0], &[0.0, 0.0], &[0.0, -2.0 * G]),
            &[0.0, 1.0],
            R,
        ))
        .unwrap();
    for _ in 0..1000 {
        let d = sys.diagnostics().unwrap();
        assert_eq!(
            d.constraint(floor).unwrap().lambda[0],
            0.0,
            "t = {}",
            sys.time()
        );
        sys.step(1e-3).unwrap();
        let t = sys.time();
        assert!((sys.position(ball)[1] - (R - 0.5 * G * t * t)).abs() < 1e-12);
        assert!((sys.velocity(ball)[1] + G * t).abs() < 1e-12);
    }
}

/// A ball bouncing off a wall that moves toward it leaves with the restitution law in the wall's
/// frame: v⁺ − u = −e (v⁻ − u), not v⁺ = −e v⁻.
#[test]
fn bounce_on_a_moving_wall_obeys_restitution_in_its_frame() {
    for e in [0.0, 0.5, 1.0] {
        let (v0, u) = (3.0, -2.0);
        let mut sys = System::new(2).unwrap();
        let ball = sys
            .add_particle(Particle::new(&[0.0, 0.0]).radius(R).velocity(&[v0, 0.0]))
            .unwrap();
        // The wall x = 1.0123 + u t, facing −x.
        let wall = sys
            .add_constraint(HalfPlane::new(
                ball,
                Motion::linear(&[1.0123, 0.0], &[u, 0.0]),
                &[-1.0, 0.0],
                R,
            ))
            .unwrap();
        sys.set_restitution(wall, e).unwrap();
        for _ in 0..400 {
            sys.step(1e-3).unwrap();
        }
        let expected = u - e * (v0 - u);
        let v = sys.velocity(ball)[0];
        // e = 0: the ball is carried by the wall at u (it keeps touching it).
        assert!(
            (v - expected).abs() < 1e-9,
            "e = {e}: left at {v} m/s, expected {expected}"
        );
    }
}

/// A wheel spun by an unlimited motor falls on a floor touching it off its centre: the impact
/// stops the contact point and the motor keeps its speed exactly. With the old impulse (J q̇ = 0
/// on every equality row) the motor row's `∂C/∂t = −ω` was ignored and the wheel stopped.
#[test]
fn impact_on_a_motor_driven_body_leaves_the_motor_at_its_speed() {
    let omega = 3.0;
    let mut sys = System::new(2).unwrap();
    let wheel = sys
        .add_rigid_body(
            RigidBody::new(&[0.0, 0.5], 0.0)
                .velocity(&[0.0, -2.0], omega)
                .mass(1.0)
                .inertia(0.05),
        )
        .unwrap();
    sys.add_force(Gravity::new(&[0.0, -G])).unwrap();
    let motor = sys.add_constraint(Motor::to_world(wheel, omega)).unwrap();
    // A peg on the rim, 0.2 m from the centre, and a floor at y = 0.
    let peg = Point::on_body(wheel, [0.2, 0.0]);
    let floor = sys
        .add_constraint(HalfPlane::new(
            peg,
            Motion::fixed(&[0.0, 0.0]),
            &[0.0, 1.0],
            0.0,
        ))
        .unwrap();
    sys.set_settings(Settings {
        restitution: 0.3,
        ..Settings::default()
    })
    .unwrap();
    let mut impacts = 0;
    let mut vy_before = sys.coordinate_velocities(wheel)[1];
    for _ in 0..2000 {
        sys.step(1e-3).unwrap();
        let q = sys.coordinates(wheel);
        let peg_y = q[1] + 0.2 * q[2].sin();
        assert!(peg_y >= -TOL, "t = {}: peg at {peg_y:e}", sys.time());
        assert!(
            (sys.coordinate_velocities(wheel)[2] - omega).abs() < 1e-9,
            "t = {}: ω = {}",
            sys.time(),
            sys.coordinate_velocities(wheel)[2]
        );
        let vy = sys.coordinate_velocities(wheel)[1];
        if vy - vy_before > 0.1 {
            impacts += 1;
        }
        vy_before = vy;
    }
    assert!(impacts >= 1, "the peg never hit the floor");
    let d = sys.diagnostics().unwrap();
    assert!(d.constraint(motor).unwrap().lambda[0].is_finite());
    assert!(d.constraint(floor).unwrap().lambda[0] >= 0.0);
}
