//! Each integrator converges at its order on a constrained problem: halving dt divides the error
//! by about 2^order.

use bead::integrate::{Euler, Integrator, Midpoint, Rk4, SymplecticEuler};
use bead::models::pendulum;
use bead::solve::Dense;
use bead::{Feedback, Settings};

/// Bob position of a large-amplitude pendulum at t = 1 s.
fn position_at_one_second(integrator: Box<dyn Integrator>, dt: f64) -> [f64; 2] {
    let (mut sys, bob, _) = pendulum(1.0, 1.2, 1.0).unwrap();
    sys.set_integrator_boxed(integrator);
    // A direct solve, so that λ carries no iteration error into the comparison.
    sys.set_solver(Dense::default());
    sys.set_settings(Settings {
        feedback: Feedback::none(),
        ..Settings::default()
    })
    .unwrap();
    let steps = (1.0 / dt).round() as usize;
    for _ in 0..steps {
        sys.step(dt).unwrap();
    }
    [sys.position(bob)[0], sys.position(bob)[1]]
}

fn observed_order(make: fn() -> Box<dyn Integrator>, dt: f64) -> f64 {
    let reference = position_at_one_second(Box::new(Rk4::default()), 1e-4);
    let error = |dt: f64| {
        let x = position_at_one_second(make(), dt);
        ((x[0] - reference[0]).powi(2) + (x[1] - reference[1]).powi(2)).sqrt()
    };
    let (e1, e2, e3) = (error(dt), error(dt / 2.0), error(dt / 4.0));
    println!("{}: errors {e1:.3e} {e2:.3e} {e3:.3e}", make().name());
    ((e1 / e2).log2() + (e2 / e3).log2()) / 2.0
}

#[test]
fn euler_is_first_order() {
    let p = observed_order(|| Box::new(Euler::default()), 2e-3);
    assert!((p - 1.0).abs() < 0.15, "observed order {p}");
}

#[test]
fn symplectic_euler_is_first_order() {
    let p = observed_order(|| Box::new(SymplecticEuler::default()), 2e-3);
    assert!((p - 1.0).abs() < 0.15, "observed order {p}");
}

#[test]
fn midpoint_is_second_order() {
    let p = observed_order(|| Box::new(Midpoint::default()), 5e-3);
    assert!((p - 2.0).abs() < 0.15, "observed order {p}");
}

#[test]
fn rk4_is_fourth_order() {
    let p = observed_order(|| Box::new(Rk4::default()), 2e-2);
    assert!((p - 4.0).abs() < 0.25, "observed order {p}");
}
