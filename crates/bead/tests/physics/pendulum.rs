//! The simple pendulum (seed 003's motivating example): period, energy, drift with and without
//! feedback, and the rod's tension.

use bead::models::{G, pendulum};
use bead::{Feedback, Projection, Settings, System};

/// Times at which `y` crosses its mean upward... here: x crosses 0 going positive, interpolated.
fn upward_crossings(sys: &mut System, bob: bead::ParticleId, dt: f64, duration: f64) -> Vec<f64> {
    let mut crossings = Vec::new();
    let mut prev = sys.position(bob)[0];
    while sys.time() < duration {
        sys.step(dt).unwrap();
        let x = sys.position(bob)[0];
        if prev < 0.0 && x >= 0.0 {
            crossings.push(sys.time() - dt * x / (x - prev));
        }
        prev = x;
    }
    crossings
}

/// Small-angle period 2π√(L/g) within 1e-4 (at θ₀ = 0.01 the amplitude correction θ₀²/16 is 6e-6).
#[test]
fn small_angle_period() {
    let length = 0.8;
    let (mut sys, bob, _) = pendulum(length, 0.01, 1.0).unwrap();
    let expected = 2.0 * std::f64::consts::PI * (length / G).sqrt();
    let crossings = upward_crossings(&mut sys, bob, 1e-3, 4.0 * expected);
    assert!(crossings.len() >= 3, "{crossings:?}");
    let period = (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64;
    assert!(
        crate::rel(period, expected) < 1e-4,
        "period {period}, expected {expected}"
    );
}

/// A large swing (1 rad) conserves energy to 1e-6 of m g L over 10 s with RK4.
#[test]
fn rk4_conserves_energy() {
    let (mut sys, _, _) = pendulum(1.0, 1.0, 2.0).unwrap();
    let scale = 2.0 * G * 1.0;
    let e0 = sys.diagnostics().unwrap().total_energy();
    let mut worst: f64 = 0.0;
    for _ in 0..10_000 {
        sys.step(1e-3).unwrap();
        if sys.steps() % 100 == 0 {
            let e = sys.diagnostics().unwrap().total_energy();
            worst = worst.max((e - e0).abs() / scale);
        }
    }
    assert!(worst < 1e-6, "relative energy error {worst:e}");
}

/// Max |C| over a run, with the given feedback, dt and duration.
fn drift(feedback: Feedback, dt: f64, duration: f64) -> Vec<f64> {
    let (mut sys, _, _) = pendulum(1.0, 1.5, 1.0).unwrap();
    sys.set_settings(Settings {
        feedback,
        ..Settings::default()
    })
    .unwrap();
    let mut samples = Vec::new();
    let per_second = (1.0 / dt).round() as u64;
    while sys.time() < duration - dt / 2.0 {
        sys.step(dt).unwrap();
        if sys.steps() % per_second == 0 {
            samples.push(sys.diagnostics().unwrap().max_abs_c);
        }
    }
    samples
}

/// Without feedback the rod's length drifts, and the drift grows; with feedback it stays below
/// 1e-8 (same dt, same swing). Measured here: 2.6e-9 after 10 s without, ≤ 3e-11 with.
#[test]
fn feedback_stops_drift() {
    let dt = 1e-3;
    let free = drift(Feedback::none(), dt, 10.0);
    let held = drift(Feedback::default(), dt, 10.0);
    let show = |v: &[f64]| {
        v.iter()
            .map(|c| format!("{c:.1e}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    println!("max |C| each second without feedback: {}", show(&free));
    println!("max |C| each second with feedback:    {}", show(&held));
    assert!(held.iter().all(|&c| c < 1e-8), "{held:?}");
    // Without feedback the error keeps growing (about as t²: RK4's truncation error accumulates).
    assert!(
        free.windows(2).all(|w| w[1] > w[0]),
        "drift should grow every second: {free:?}"
    );
    assert!(free[9] > 50.0 * free[0], "{free:?}");
    let held_max = held.iter().fold(0.0_f64, |m, c| m.max(*c));
    assert!(
        free[9] > 10.0 * held_max,
        "feedback bounds the error: {held_max:e} vs {:e}",
        free[9]
    );
}

/// Projection instead of feedback: |C| stays at rounding level.
#[test]
fn projection_removes_drift() {
    let (mut sys, _, _) = pendulum(1.0, 1.5, 1.0).unwrap();
    let settings = Settings {
        feedback: Feedback::none(),
        projection: Some(Projection::default()),
        ..Settings::default()
    };
    sys.set_settings(settings).unwrap();
    for _ in 0..1000 {
        sys.step(0.01).unwrap();
    }
    let d = sys.diagnostics().unwrap();
    assert!(
        d.max_abs_c < 1e-12 && d.max_abs_c_dot < 1e-10,
        "{} {}",
        d.max_abs_c,
        d.max_abs_c_dot
    );
}

/// The rod's force at the bottom of a swing from θ₀: tension m g (3 − 2 cos θ₀), so λ = −that.
#[test]
fn tension_at_the_bottom() {
    let (theta0, m, length) = (0.9_f64, 1.5, 1.2);
    let (mut sys, bob, rod) = pendulum(length, theta0, m).unwrap();
    let mut prev_x = sys.position(bob)[0];
    loop {
        sys.step(1e-4).unwrap();
        let x = sys.position(bob)[0];
        if prev_x > 0.0 && x <= 0.0 {
            break;
        }
        prev_x = x;
    }
    let d = sys.diagnostics().unwrap();
    let lambda = d.constraint(rod).unwrap().lambda[0];
    let expected = -m * G * (3.0 - 2.0 * theta0.cos());
    // The bob is within one step (|x| < v dt) of the bottom: the tension differs by O(θ²).
    assert!(
        crate::rel(lambda, expected) < 1e-6,
        "λ = {lambda}, expected {expected}"
    );
}
