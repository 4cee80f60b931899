//! Coulomb friction with exact stiction (issue 29): the stick/slip threshold on an incline at
//! μ = tan α ± ε, the slide to a stop at v²/(2 a) in v/a seconds, zero creep of a resting
//! particle over 10⁴ steps, under every integrator.

use bead::constraint::HalfPlane;
use bead::force::Gravity;
use bead::integrate::INTEGRATOR_NAMES;
use bead::{Motion, Particle, System};

const G: f64 = 9.81;

/// A particle on an incline of `alpha` through the origin with friction `mu`, sent down the
/// slope at `v0`: returns (distance down the slope, speed down the slope, λ) after `steps` of
/// `dt` under `integrator`.
fn incline(
    integrator: &str,
    alpha: f64,
    mu: f64,
    v0: f64,
    dt: f64,
    steps: usize,
) -> (f64, f64, Vec<f64>) {
    let n = [-alpha.sin(), alpha.cos()];
    // Down the slope: the normal turned +90°, t = (−cos α, −sin α).
    let t = [-n[1], n[0]];
    let mut sys = System::new(2).unwrap();
    sys.set_integrator_boxed(bead::integrate::by_name(integrator).unwrap());
    let p = sys
        .add_particle(Particle::new(&[0.0, 0.0]).velocity(&[v0 * t[0], v0 * t[1]]))
        .unwrap();
    let floor = HalfPlane::new(p, Motion::fixed(&[0.0, 0.0]), &n, 0.0).friction(mu);
    let floor = sys.add_constraint(floor).unwrap();
    sys.add_force(Gravity::new(&[0.0, -G])).unwrap();
    for _ in 0..steps {
        sys.step(dt).unwrap();
    }
    let lambda = sys
        .diagnostics()
        .unwrap()
        .constraint(floor)
        .unwrap()
        .lambda
        .clone();
    let (x, v) = (sys.position(p), sys.velocity(p));
    (x[0] * t[0] + x[1] * t[1], v[0] * t[0] + v[1] * t[1], lambda)
}

fn implicit(name: &str) -> bool {
    matches!(name, "implicit-euler" | "bdf2")
}

#[test]
fn a_particle_sticks_below_the_friction_angle_and_slides_above_it() {
    let mu: f64 = 0.5;
    let critical = mu.atan();
    for name in INTEGRATOR_NAMES {
        // A hundredth of a degree below: held exactly, with λ_t = m g sin α up the slope.
        let alpha = critical - 1e-4;
        let (s, v, lambda) = incline(name, alpha, mu, 0.0, 1e-3, 1000);
        assert!(
            s.abs() < 1e-12 && v.abs() < 1e-12,
            "{name}: crept {s} m at {v} m/s"
        );
        assert!(
            (lambda[0] - G * alpha.cos()).abs() < 1e-7,
            "{name}: λ_n {}",
            lambda[0]
        );
        // λ_t > 0 is along t, down the slope; friction holds up it.
        assert!(
            (lambda[1] + G * alpha.sin()).abs() < 1e-7,
            "{name}: λ_t {}",
            lambda[1]
        );
        // A hundredth of a degree above: slides at a = g (sin α − μ cos α) with the edge force.
        let alpha = critical + 1e-4;
        let a = G * (alpha.sin() - mu * alpha.cos());
        let (s, v, lambda) = incline(name, alpha, mu, 0.0, 1e-3, 1000);
        // The implicit steppers solve to 1e-8 of the step's forces (g), not of their small net.
        let tol = if implicit(name) { 1e-8 * G } else { 1e-12 };
        assert!((v - a).abs() < tol, "{name}: v {v}, a t = {a}");
        assert!(
            (s - 0.5 * a).abs() < 1e-3 * a,
            "{name}: s {s}, ½ a t² = {}",
            0.5 * a
        );
        assert!(
            (lambda[1] + mu * lambda[0]).abs() < 1e-9,
            "{name}: λ {lambda:?}"
        );
    }
}

#[test]
fn a_slide_stops_at_v_squared_over_two_a_and_then_sticks() {
    // On a 10° incline with μ = 0.5 a slide down at 1 m/s decelerates at
    // a = g (μ cos α − sin α) and stops after v/a seconds, v²/(2a) metres; then it sticks.
    let (alpha, mu, v0): (f64, f64, f64) = (10f64.to_radians(), 0.5, 1.0);
    let a = G * (mu * alpha.cos() - alpha.sin());
    let (stop_time, stop_distance) = (v0 / a, v0 * v0 / (2.0 * a));
    for name in INTEGRATOR_NAMES {
        // Halfway: still sliding at v0 − a t.
        let (_, v, _) = incline(name, alpha, mu, v0, 1e-3, 160);
        assert!((v - (v0 - a * 0.16)).abs() < 1e-8 * G, "{name}: v {v}");
        // Long after: stopped where the closed form says, and held exactly.
        let (s, v_end, lambda) = incline(name, alpha, mu, v0, 1e-3, 2000);
        // Midpoint and RK4 are exact under a constant acceleration, and locate the stop inside
        // its step: exact to rounding. The Euler schemes are off by about half a step's travel
        // in any uniformly accelerated motion, as the implicit steppers, which stop at a step's
        // end, are off by up to a step's.
        let exact = matches!(name, "midpoint" | "rk4");
        let tol = if exact { 1e-9 } else { v0 * 1e-3 };
        // It stops at v/a: a step before, it still slides at v0 − a t; a step after, it rests.
        let before = (stop_time / 1e-3).floor() as usize - 1;
        let (_, v, _) = incline(name, alpha, mu, v0, 1e-3, before);
        let expected = v0 - a * before as f64 * 1e-3;
        assert!(
            v > 0.0 && (v - expected).abs() < 1e-8 * G,
            "{name}: v {v} at {before} ms"
        );
        let (_, v, _) = incline(name, alpha, mu, v0, 1e-3, before + 3);
        assert!(
            v.abs() < 1e-12,
            "{name}: v {v} at {} ms, after the stop",
            before + 3
        );
        assert!(
            (s - stop_distance).abs() < tol,
            "{name}: stopped at {s}, not {stop_distance}"
        );
        assert!(v_end.abs() < 1e-12, "{name}: still moving at {v_end}");
        assert!(
            (lambda[1] + G * alpha.sin()).abs() < 1e-7,
            "{name}: λ_t {}",
            lambda[1]
        );
    }
}

#[test]
fn a_resting_particle_does_not_creep_in_ten_thousand_steps() {
    // At 95 % of the friction angle, the cone holds with margin: no creep at all.
    let mu: f64 = 0.8;
    let alpha = 0.95 * mu.atan();
    for name in INTEGRATOR_NAMES {
        let (s, v, _) = incline(name, alpha, mu, 0.0, 1e-3, 10_000);
        assert!(
            s.abs() < 1e-10 && v.abs() < 1e-12,
            "{name}: crept {s} m, {v} m/s"
        );
    }
}
