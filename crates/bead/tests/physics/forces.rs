//! The applied forces against closed forms: spring oscillator, drag decay, mouse spring.

use bead::force::{ConstantForce, Drag, MouseSpring, Spring};
use bead::{Particle, System};

/// A mass on a spring from an anchor oscillates with period 2π√(m/k) and conserves energy.
#[test]
fn spring_oscillator_period_and_energy() {
    let (m, k) = (0.5, 200.0);
    let mut sys = System::new(3).unwrap();
    let a = sys
        .add_particle(Particle::anchor(&[0.0, 0.0, 0.0]))
        .unwrap();
    let b = sys
        .add_particle(Particle::new(&[1.1, 0.0, 0.0]).mass(m))
        .unwrap();
    sys.add_force(Spring::new(a, b, k, 0.0, 1.0)).unwrap();
    let e0 = sys.diagnostics().unwrap().total_energy();
    let period = 2.0 * std::f64::consts::PI * (m / k).sqrt();
    let dt = period / 2000.0;
    for _ in 0..2000 {
        sys.step(dt).unwrap();
    }
    let x = sys.position(b)[0];
    assert!((x - 1.1).abs() < 1e-9, "after one period x = {x}");
    let e = sys.diagnostics().unwrap().total_energy();
    assert!((e - e0).abs() < 1e-9 * e0, "{e} vs {e0}");
}

/// Viscous drag: v(t) = v₀ e^{−c t / m}.
#[test]
fn drag_decays_exponentially() {
    let (m, c) = (2.0, 0.8);
    let mut sys = System::new(2).unwrap();
    let p = sys
        .add_particle(Particle::new(&[0.0, 0.0]).velocity(&[3.0, -1.0]).mass(m))
        .unwrap();
    sys.add_force(Drag::new(c)).unwrap();
    for _ in 0..1000 {
        sys.step(1e-3).unwrap();
    }
    let decay = (-c * 1.0 / m).exp();
    let v = sys.velocity(p);
    assert!(
        (v[0] - 3.0 * decay).abs() < 1e-10 && (v[1] + decay).abs() < 1e-10,
        "{v:?}"
    );
}

/// A constant force: x = ½ (F/m) t², and the potential −F·x keeps the energy constant.
#[test]
fn constant_force_accelerates_uniformly() {
    let mut sys = System::new(2).unwrap();
    let p = sys
        .add_particle(Particle::new(&[0.0, 0.0]).mass(4.0))
        .unwrap();
    sys.add_force(ConstantForce::new(p, &[2.0, -8.0])).unwrap();
    for _ in 0..100 {
        sys.step(0.01).unwrap();
    }
    let x = sys.position(p);
    assert!(
        (x[0] - 0.25).abs() < 1e-12 && (x[1] + 1.0).abs() < 1e-12,
        "{x:?}"
    );
    assert!(sys.diagnostics().unwrap().total_energy().abs() < 1e-12);
}

/// The mouse spring drags a particle to the target and, damped, it settles there; moving the
/// target moves the particle.
#[test]
fn mouse_spring_pulls_to_the_target() {
    let mut sys = System::new(2).unwrap();
    let p = sys.add_particle(Particle::new(&[0.0, 0.0])).unwrap();
    let grab = sys
        .add_force(MouseSpring::new(p, &[1.0, 1.0], 100.0, 20.0))
        .unwrap();
    for _ in 0..3000 {
        sys.step(1e-3).unwrap();
    }
    let x = sys.position(p);
    assert!(
        (x[0] - 1.0).abs() < 1e-6 && (x[1] - 1.0).abs() < 1e-6,
        "{x:?}"
    );
    sys.force_mut::<MouseSpring>(grab)
        .unwrap()
        .set_target(&[-1.0, 0.0]);
    for _ in 0..3000 {
        sys.step(1e-3).unwrap();
    }
    let x = sys.position(p);
    assert!((x[0] + 1.0).abs() < 1e-6 && x[1].abs() < 1e-6, "{x:?}");
    assert!(
        sys.force_mut::<Spring>(grab).is_none(),
        "downcast to the wrong type is None"
    );
    assert!(sys.remove_force(grab));
}
