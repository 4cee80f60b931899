//! Time-dependent constraints `c(q, t)` (seed 003): the `∂C/∂t` and `∂²C/∂t²` terms.

use bead::constraint::{Nail, OnCircle, OnSphere};
use bead::force::Gravity;
use bead::{Motion, Particle, System};

/// A particle nailed to a point going round a circle follows it exactly, and λ is the force that
/// makes it: m p̈ − m g (the centripetal force plus holding it up).
#[test]
fn nail_on_a_circular_path_supplies_the_centripetal_force() {
    let (m, r, w) = (0.7, 0.5, 3.0);
    let motion = Motion::circle(&[1.0, 2.0], r, w, 0.0);
    let mut sys = System::new(2).unwrap();
    // Start on the path with the path's velocity, so C = Ċ = 0.
    let s0 = motion.sample(0.0);
    let p = sys
        .add_particle(
            Particle::new(&s0.position[..2])
                .velocity(&s0.velocity[..2])
                .mass(m),
        )
        .unwrap();
    sys.add_force(Gravity::new(&[0.0, -9.81])).unwrap();
    let nail = sys.add_constraint(Nail::moving(p, motion.clone())).unwrap();
    for _ in 0..3000 {
        sys.step(1e-3).unwrap();
        let s = motion.sample(sys.time());
        let x = sys.position(p);
        assert!((x[0] - s.position[0]).abs() < 1e-8 && (x[1] - s.position[1]).abs() < 1e-8);
        if sys.steps().is_multiple_of(250) {
            let lambda = sys
                .diagnostics()
                .unwrap()
                .constraint(nail)
                .unwrap()
                .lambda
                .clone();
            let expected = [m * s.acceleration[0], m * s.acceleration[1] + m * 9.81];
            for i in 0..2 {
                assert!(
                    (lambda[i] - expected[i]).abs() < 1e-6,
                    "t = {}: λ = {lambda:?}, m p̈ − f = {expected:?}",
                    sys.time()
                );
            }
            // Its size: the centripetal force m r ω² when gravity is taken out.
            let centripetal = (lambda[0].powi(2) + (lambda[1] - m * 9.81).powi(2)).sqrt();
            assert!(crate::rel(centripetal, m * r * w * w) < 1e-6);
        }
    }
}

/// A bead on a circle whose centre oscillates: it stays on the moving circle, and with no
/// gravity its radial λ accounts for the centre's acceleration.
#[test]
fn bead_on_a_shaken_circle_stays_on_it() {
    let centre = Motion::oscillation(&[0.0, 0.0], &[0.3, 0.1], 4.0, 0.0);
    let mut sys = System::new(2).unwrap();
    // On the circle at t = 0, moving with the centre (C = Ċ = 0).
    let v0 = centre.sample(0.0).velocity;
    let p = sys
        .add_particle(Particle::new(&[1.0, 0.0]).velocity(&v0[..2]))
        .unwrap();
    let c = sys
        .add_constraint(OnCircle::new(p, centre.clone(), 1.0))
        .unwrap();
    let mut worst: f64 = 0.0;
    for _ in 0..5000 {
        sys.step(1e-3).unwrap();
        let s = centre.sample(sys.time());
        let x = sys.position(p);
        worst = worst.max(
            (((x[0] - s.position[0]).powi(2) + (x[1] - s.position[1]).powi(2)).sqrt() - 1.0).abs(),
        );
    }
    assert!(worst < 1e-8, "distance from the moving circle {worst:e}");
    // C̈ = 0 radially: λ = m (u·c̈ − |w_t|²/r) where w_t is the velocity relative to the centre.
    let d = sys.diagnostics().unwrap();
    let s = centre.sample(sys.time());
    let (x, v) = (sys.position(p).to_vec(), sys.velocity(p).to_vec());
    let u = [x[0] - s.position[0], x[1] - s.position[1]];
    let w = [v[0] - s.velocity[0], v[1] - s.velocity[1]];
    let expected =
        (u[0] * s.acceleration[0] + u[1] * s.acceleration[1]) - (w[0] * w[0] + w[1] * w[1]);
    let lambda = d.constraint(c).unwrap().lambda[0];
    assert!(
        (lambda - expected).abs() < 1e-6,
        "λ = {lambda}, expected {expected}"
    );
}

/// A 3D spherical pendulum: the bob stays on the sphere and energy is conserved; its conical
/// motion keeps the vertical angular momentum constant.
#[test]
fn spherical_pendulum_conserves_energy_and_vertical_angular_momentum() {
    let mut sys = System::new(3).unwrap();
    let p = sys
        .add_particle(Particle::new(&[0.6, 0.0, -0.8]).velocity(&[0.0, 1.5, 0.0]))
        .unwrap();
    sys.add_force(Gravity::new(&[0.0, 0.0, -9.81])).unwrap();
    sys.add_constraint(OnSphere::new(p, Motion::fixed(&[0.0, 0.0, 0.0]), 1.0))
        .unwrap();
    let lz = |sys: &System| {
        let (x, v) = (sys.position(p), sys.velocity(p));
        x[0] * v[1] - x[1] * v[0]
    };
    let (e0, l0) = (sys.diagnostics().unwrap().total_energy(), lz(&sys));
    for _ in 0..5000 {
        sys.step(1e-3).unwrap();
    }
    let d = sys.diagnostics().unwrap();
    assert!(
        (d.total_energy() - e0).abs() < 1e-7,
        "energy drift {}",
        d.total_energy() - e0
    );
    assert!((lz(&sys) - l0).abs() < 1e-7, "L_z drift {}", lz(&sys) - l0);
    assert!(d.max_abs_c < 1e-9);
}
