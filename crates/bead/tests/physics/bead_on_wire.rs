//! Seed 000 §2 and seed 001: a bead on a circular wire under an applied force. The multiplier the
//! engine computes equals the closed forms of the seeds on random states (not only legal ones:
//! eq. 7 follows from C̈ = 0 alone).

use bead::autodiff::Custom;
use bead::constraint::OnCircle;
use bead::force::{ConstantForce, Gravity};
use bead::{Feedback, Motion, Particle, Settings, System};
use proptest::prelude::*;

/// A system with one bead of mass `m` at `x` with velocity `v`, gravity and a constant push.
fn bead(m: f64, x: [f64; 2], v: [f64; 2], push: [f64; 2]) -> (System, bead::ParticleId, [f64; 2]) {
    let mut sys = System::new(2).unwrap();
    let p = sys
        .add_particle(Particle::new(&x).velocity(&v).mass(m))
        .unwrap();
    sys.add_force(Gravity::new(&[0.0, -9.81])).unwrap();
    sys.add_force(ConstantForce::new(p, &push)).unwrap();
    // Eq. 7 is the multiplier of C̈ = 0: no feedback terms.
    sys.set_settings(Settings {
        feedback: Feedback::none(),
        ..Settings::default()
    })
    .unwrap();
    let f = [push[0], push[1] - 9.81 * m];
    (sys, p, f)
}

fn dot(a: [f64; 2], b: [f64; 2]) -> f64 {
    a[0] * b[0] + a[1] * b[1]
}

proptest! {
    /// Seed 000 eq. 7 for C = ½(x·x − 1): λ = (−f·x − m ẋ·ẋ) / (x·x).
    #[test]
    fn lambda_matches_witkin_eq_7(
        m in 0.1..10.0f64, r in 0.5..2.0f64, th in 0.0..6.3f64,
        vx in -5.0..5.0f64, vy in -5.0..5.0f64, fx in -20.0..20.0f64, fy in -20.0..20.0f64,
    ) {
        let x = [r * th.cos(), r * th.sin()];
        let (mut sys, p, f) = bead(m, x, [vx, vy], [fx, fy]);
        let c = sys
            .add_constraint(Custom::new([p], |x, _t| (x[0] * x[0] + x[1] * x[1] - 1.0) * 0.5))
            .unwrap();
        let lambda = sys.diagnostics().unwrap().constraint(c).unwrap().lambda[0];
        let expected = (-dot(f, x) - m * dot([vx, vy], [vx, vy])) / dot(x, x);
        prop_assert!(crate::rel(lambda, expected) < 1e-12 || (lambda - expected).abs() < 1e-12,
            "λ = {lambda}, eq. 7 gives {expected}");
    }

    /// Seed 001's form C = |x| − r: λ = −m (Ṅ·ẋ)/(N·N) − (N·f)/(N·N), N = x/|x|,
    /// Ṅ = (ẋ − (x·ẋ / x·x) x) / |x|.
    #[test]
    fn lambda_matches_treuille_unit_normal_form(
        m in 0.1..10.0f64, r in 0.5..2.0f64, th in 0.0..6.3f64,
        vx in -5.0..5.0f64, vy in -5.0..5.0f64, fx in -20.0..20.0f64, fy in -20.0..20.0f64,
    ) {
        let x = [r * th.cos(), r * th.sin()];
        let v = [vx, vy];
        let (mut sys, p, f) = bead(m, x, v, [fx, fy]);
        let c = sys.add_constraint(OnCircle::new(p, Motion::fixed(&[0.0, 0.0]), 1.0)).unwrap();
        let lambda = sys.diagnostics().unwrap().constraint(c).unwrap().lambda[0];
        let len = dot(x, x).sqrt();
        let n = [x[0] / len, x[1] / len];
        let s = dot(x, v) / dot(x, x);
        let n_dot = [(v[0] - s * x[0]) / len, (v[1] - s * x[1]) / len];
        let expected = (-m * dot(n_dot, v) - dot(n, f)) / dot(n, n);
        prop_assert!(crate::rel(lambda, expected) < 1e-12 || (lambda - expected).abs() < 1e-12,
            "λ = {lambda}, seed 001 gives {expected}");
    }
}

/// At rest, the constraint force is the projection of f onto the normal (seed 000 eq. 8), so the
/// bead's acceleration is f projected onto the tangent.
#[test]
fn at_rest_the_acceleration_is_the_tangential_projection() {
    let x = [0.6, -0.8];
    let (mut sys, p, f) = bead(2.0, x, [0.0, 0.0], [3.0, 1.0]);
    sys.add_constraint(OnCircle::new(p, Motion::fixed(&[0.0, 0.0]), 1.0))
        .unwrap();
    let a = sys.acceleration().unwrap().to_vec();
    let t = [-x[1], x[0]];
    let along = dot(f, t) / 2.0;
    assert!(
        (a[0] - along * t[0]).abs() < 1e-12 && (a[1] - along * t[1]).abs() < 1e-12,
        "{a:?}"
    );
}

/// Both forms hold the bead on the wire through a long run, and agree on the motion.
#[test]
fn both_forms_give_the_same_motion() {
    let run = |use_custom: bool| {
        let (mut sys, p, _) = bead(1.0, [1.0, 0.0], [0.0, 2.0], [0.0, 0.0]);
        sys.set_settings(Settings::default()).unwrap();
        if use_custom {
            sys.add_constraint(Custom::new([p], |x, _t| {
                (x[0] * x[0] + x[1] * x[1] - 1.0) * 0.5
            }))
            .unwrap();
        } else {
            sys.add_constraint(OnCircle::new(p, Motion::fixed(&[0.0, 0.0]), 1.0))
                .unwrap();
        }
        for _ in 0..2000 {
            sys.step(1e-3).unwrap();
        }
        let x = sys.position(p).to_vec();
        assert!(((x[0] * x[0] + x[1] * x[1]).sqrt() - 1.0).abs() < 1e-9);
        x
    };
    let (a, b) = (run(true), run(false));
    assert!(
        (a[0] - b[0]).abs() < 1e-9 && (a[1] - b[1]).abs() < 1e-9,
        "{a:?} vs {b:?}"
    );
}
