//! Restitution under the implicit steppers: a contact hit within a step bounces at its end with
//! `e` times its approach. The rebound converges at the stepper's first order as the step
//! halves, energy never grows, and momentum is kept between free bodies.

use bead::constraint::{HalfPlane, NonPenetration};
use bead::force::Gravity;
use bead::integrate::{Bdf2, ImplicitEuler, Integrator};
use bead::models::G;
use bead::{Motion, Particle, ParticleId, System};

const R: f64 = 0.1;

/// A ball of radius R dropped from `h` above a floor of restitution `e`, under `integrator`.
fn dropped_ball(h: f64, e: f64, integrator: Box<dyn Integrator>) -> (System, ParticleId) {
    let mut sys = System::new(2).unwrap();
    let ball = sys
        .add_particle(Particle::new(&[0.0, h + R]).radius(R))
        .unwrap();
    sys.add_force(Gravity::new(&[0.0, -G])).unwrap();
    let floor = HalfPlane::new(ball, Motion::fixed(&[0.0, 0.0]), &[0.0, 1.0], R);
    let floor = sys.add_constraint(floor).unwrap();
    sys.set_restitution(floor, e).unwrap();
    sys.set_integrator_boxed(integrator);
    (sys, ball)
}

/// The highest point of the first rebound, in steps of `dt`; the ball never goes through.
fn rebound(h: f64, e: f64, dt: f64, integrator: Box<dyn Integrator>) -> f64 {
    let (mut sys, ball) = dropped_ball(h, e, integrator);
    let fall = (2.0 * h / G).sqrt();
    let (mut top, mut bounced) = (0.0_f64, false);
    let steps = ((fall * (1.0 + 2.0 * e) + 0.05) / dt).ceil() as usize;
    for k in 1..=steps {
        sys.step_to(k as f64 * dt).unwrap();
        let (y, vy) = (sys.position(ball)[1] - R, sys.velocity(ball)[1]);
        assert!(y >= -1e-9, "through the floor at step {k}: {y:e}");
        bounced |= vy > 0.0;
        if bounced {
            top = top.max(y);
        }
    }
    top
}

/// A ball dropped from 1 m with e = 0.5 and 0.8 rebounds to `e² h`, to an error that halves
/// with the step (implicit Euler and BDF2 alike: both bounce at the step's end), and rebounds at
/// all only because of its restitution.
#[test]
fn a_ball_rebounds_to_e_squared_of_its_height_at_first_order() {
    let h = 1.0;
    for e in [0.5, 0.8] {
        for make in [
            || -> Box<dyn Integrator> { Box::new(ImplicitEuler::default()) },
            || -> Box<dyn Integrator> { Box::new(Bdf2::default()) },
        ] {
            let name = make().name();
            let errors: Vec<f64> = [4e-3, 2e-3, 1e-3, 5e-4]
                .iter()
                .map(|&dt| (rebound(h, e, dt, make()) - e * e * h).abs())
                .collect();
            // First order: within `g t h` at every step, t the flight's time down and up
            // (implicit Euler's free flight lags `½ g h t`, and the approach read at the step's
            // start misses at most `g h`); an eighth of the step gives at most a quarter of the
            // error (the hit's place within the step varies with the step, so single halvings
            // scatter about 2).
            let flight = (1.0 + e) * (2.0 * h / G).sqrt();
            for (error, dt) in errors.iter().zip([4e-3, 2e-3, 1e-3, 5e-4]) {
                assert!(
                    *error < G * flight * dt,
                    "{name} e = {e}: errors {errors:?}"
                );
            }
            assert!(
                errors[3] < errors[0] / 4.0,
                "{name} e = {e}: errors {errors:?}"
            );
        }
    }
    // Without restitution the ball stays on the floor.
    assert!(rebound(h, 0.0, 1e-3, Box::new(ImplicitEuler::default())) < 1e-9);
}

/// With e = 1 a ball bounces for seconds and its energy never grows above where it started;
/// two free balls colliding head-on with e = 1 keep their momentum exactly and swap velocities
/// to the step's first order.
#[test]
fn bounces_never_gain_energy_and_collisions_keep_momentum() {
    let (mut sys, ball) = dropped_ball(1.0, 1.0, Box::new(ImplicitEuler::default()));
    let energy = |sys: &System| {
        let (y, v) = (sys.position(ball)[1] - R, sys.velocity(ball));
        G * y + 0.5 * (v[0] * v[0] + v[1] * v[1])
    };
    let start = energy(&sys);
    let mut bounces = 0;
    let mut falling = true;
    for k in 1..=3000 {
        sys.step_to(k as f64 * 1e-3).unwrap();
        assert!(energy(&sys) <= start + 1e-12, "step {k}: energy grew");
        let vy = sys.velocity(ball)[1];
        if falling && vy > 0.0 {
            bounces += 1;
        }
        falling = vy <= 0.0;
    }
    assert!(bounces >= 3, "{bounces} bounces in 3 s");

    let mut sys = System::new(2).unwrap();
    let (ma, mb, v0) = (1.0, 1.0, 2.0);
    let a = sys
        .add_particle(
            Particle::new(&[0.0, 0.0])
                .mass(ma)
                .radius(R)
                .velocity(&[v0, 0.0]),
        )
        .unwrap();
    let b = sys
        .add_particle(Particle::new(&[0.5, 0.0]).mass(mb).radius(R))
        .unwrap();
    let contact = sys
        .add_constraint(NonPenetration::new(a, b, 2.0 * R))
        .unwrap();
    sys.set_restitution(contact, 1.0).unwrap();
    sys.set_integrator(ImplicitEuler::default());
    let dt = 1e-3;
    for k in 1..=400 {
        sys.step_to(k as f64 * dt).unwrap();
        let p = ma * sys.velocity(a)[0] + mb * sys.velocity(b)[0];
        assert!((p - ma * v0).abs() < 1e-12, "step {k}: momentum {p}");
    }
    let (va, vb) = (sys.velocity(a)[0], sys.velocity(b)[0]);
    assert!(
        va.abs() < 1e-9 && (vb - v0).abs() < 1e-9,
        "after: {va}, {vb}"
    );
}
