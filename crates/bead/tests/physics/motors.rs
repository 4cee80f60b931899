//! Motors: velocity-level rows driven by their own law, and torque limits (bounded rows).
//!
//! Regression (issue "physics at the seams", item 3): with `feedback = { ks = 100, kd = 0 }` a
//! motor on a nailed wheel never turned — its row was treated like a position row, whose speed
//! error is fed back with k_d only.

use bead::constraint::{Motor, Nail};
use bead::force::{Gravity, Torque};
use bead::models::G;
use bead::{Feedback, Point, RigidBody, RigidBodyId, Settings, Shape, System};

/// A wheel (a disc of 0.2 m, 1 kg) nailed at its centre, at rest, with a motor asking for
/// `speed`, under `feedback`.
fn wheel(
    speed: f64,
    feedback: Feedback,
    max_torque: Option<f64>,
) -> (System, RigidBodyId, bead::ConstraintId) {
    let mut sys = System::new(2).unwrap();
    let wheel = sys
        .add_rigid_body(RigidBody::new(&[0.0, 0.0], 0.0).shape(
            Shape::Disc { radius: 0.2 },
            1.0 / (std::f64::consts::PI * 0.04),
        ))
        .unwrap();
    sys.add_force(Gravity::new(&[0.0, -G])).unwrap();
    sys.add_constraint(Nail::new(Point::on_body(wheel, [0.0, 0.0]), &[0.0, 0.0]))
        .unwrap();
    let motor = Motor::to_world(wheel, speed);
    let motor = sys
        .add_constraint(match max_torque {
            Some(limit) => motor.max_torque(limit),
            None => motor,
        })
        .unwrap();
    sys.set_settings(Settings {
        feedback,
        ..Settings::default()
    })
    .unwrap();
    // Announced, so that what diagnostics report at t = 0 is what the first step applies.
    sys.set_time_step(1e-3).unwrap();
    (sys, wheel, motor)
}

/// With k_d = 0, and with no feedback at all, the motor still reaches its speed: its row follows
/// its own law, not the position rows' gains.
#[test]
fn motor_reaches_its_speed_without_position_feedback() {
    for feedback in [
        Feedback { ks: 100.0, kd: 0.0 },
        Feedback::none(),
        Feedback::default(),
    ] {
        let (mut sys, wheel, _) = wheel(5.0, feedback, None);
        for _ in 0..50 {
            sys.step(1e-3).unwrap();
        }
        let omega = sys.coordinate_velocities(wheel)[2];
        assert!((omega - 5.0).abs() < 1e-9, "{feedback:?}: ω = {omega}");
    }
}

/// A motor limited to τ_max spins a free wheel up at exactly α = τ_max / I, reporting λ = τ_max,
/// then holds the speed with λ = 0 (nothing to overcome).
#[test]
fn limited_motor_spins_up_at_its_limit() {
    let (mut sys, wheel, motor) = wheel(4.0, Feedback::default(), Some(0.1));
    let inertia = 0.5 * 1.0 * 0.2 * 0.2;
    let alpha = 0.1 / inertia;
    let t_full = 4.0 / alpha;
    while sys.time() < 1.2 {
        let lambda = sys.diagnostics().unwrap().constraint(motor).unwrap().lambda[0];
        let t = sys.time();
        if t < t_full - 2e-3 {
            assert_eq!(lambda, 0.1, "t = {t}: at the limit");
            assert!((sys.coordinate_velocities(wheel)[2] - alpha * t).abs() < 1e-9);
        } else if t > t_full + 0.05 {
            assert!(lambda.abs() < 1e-9, "t = {t}: λ = {lambda}");
            assert!((sys.coordinate_velocities(wheel)[2] - 4.0).abs() < 1e-9);
        }
        sys.step(1e-3).unwrap();
    }
}

/// A load torque the motor can overcome: at its speed, λ equals the load. One it cannot: the
/// motor stalls at exactly τ_max and the wheel is driven backwards at α = (τ_max − T)/I.
#[test]
fn motor_against_a_load_below_and_above_its_limit() {
    let inertia = 0.5 * 1.0 * 0.2 * 0.2;
    for load in [0.3, 1.5] {
        let (mut sys, wheel, motor) = wheel(2.0, Feedback::default(), Some(1.0));
        sys.add_force(Torque::new(wheel, -load)).unwrap();
        for _ in 0..300 {
            sys.step(1e-3).unwrap();
        }
        let lambda = sys.diagnostics().unwrap().constraint(motor).unwrap().lambda[0];
        let omega = sys.coordinate_velocities(wheel)[2];
        if load < 1.0 {
            assert!((lambda - load).abs() < 1e-9, "load {load}: λ = {lambda}");
            assert!((omega - 2.0).abs() < 1e-9);
        } else {
            assert_eq!(lambda, 1.0, "stalled at its limit");
            // From rest the wheel never moves forward: it turns backwards at α from t = 0.
            let alpha = (1.0 - load) / inertia;
            let t = sys.time();
            assert!(
                (omega - alpha * t).abs() < 1e-9,
                "ω = {omega}, expected {}",
                alpha * t
            );
        }
    }
}
