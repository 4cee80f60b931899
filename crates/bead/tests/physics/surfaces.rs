//! Points on lines and planes: sliding without friction, the normal force, determinism.

use bead::constraint::{OnLine, OnPlane};
use bead::force::Gravity;
use bead::models::{G, chain};
use bead::{Motion, Particle, System};

/// A bead on a straight wire inclined at α slides with acceleration g sin α, and the wire pushes
/// back with m g cos α.
#[test]
fn bead_on_an_inclined_wire() {
    let (m, alpha) = (1.5_f64, 0.4_f64);
    let mut sys = System::new(2).unwrap();
    let p = sys
        .add_particle(Particle::new(&[0.0, 0.0]).mass(m))
        .unwrap();
    sys.add_force(Gravity::new(&[0.0, -G])).unwrap();
    let wire = sys
        .add_constraint(OnLine::new(
            p,
            Motion::fixed(&[0.0, 0.0]),
            &[alpha.cos(), alpha.sin()],
        ))
        .unwrap();
    for _ in 0..1000 {
        sys.step(1e-3).unwrap();
    }
    let s = -0.5 * G * alpha.sin(); // distance along the wire after 1 s
    let x = sys.position(p);
    assert!(
        (x[0] - s * alpha.cos()).abs() < 1e-10 && (x[1] - s * alpha.sin()).abs() < 1e-10,
        "{x:?}"
    );
    let lambda = sys.diagnostics().unwrap().constraint(wire).unwrap().lambda[0];
    assert!(
        (lambda.abs() - m * G * alpha.cos()).abs() < 1e-9,
        "normal force {lambda}"
    );
}

/// A 3D particle on a tilted plane, launched across it: it stays on the plane, accelerates
/// down the slope at g sin α, and keeps its velocity across the slope.
#[test]
fn particle_on_a_tilted_plane() {
    let alpha = 0.3_f64;
    let normal = [0.0, -alpha.sin(), alpha.cos()];
    let mut sys = System::new(3).unwrap();
    let p = sys
        .add_particle(Particle::new(&[0.0, 0.0, 0.0]).velocity(&[1.0, 0.0, 0.0]))
        .unwrap();
    sys.add_force(Gravity::new(&[0.0, 0.0, -G])).unwrap();
    let plane = sys
        .add_constraint(OnPlane::new(p, Motion::fixed(&[0.0, 0.0, 0.0]), &normal))
        .unwrap();
    for _ in 0..2000 {
        sys.step(1e-3).unwrap();
    }
    let x = sys.position(p);
    let down = -0.5 * G * alpha.sin() * 4.0; // along the slope after 2 s
    assert!((x[0] - 2.0).abs() < 1e-10);
    assert!(
        (x[1] - down * alpha.cos()).abs() < 1e-9 && (x[2] - down * alpha.sin()).abs() < 1e-9,
        "{x:?}"
    );
    let d = sys.diagnostics().unwrap();
    assert!(d.max_abs_c < 1e-12);
    assert!((d.constraint(plane).unwrap().lambda[0] - G * alpha.cos()).abs() < 1e-9);
}

/// The same model stepped twice gives bit-identical states (no hidden global state, no
/// iteration-order randomness).
#[test]
fn stepping_is_deterministic() {
    let run = || {
        let mut c = chain(30, 0.1, 0.2, -0.3).unwrap();
        for _ in 0..300 {
            c.system.step(1e-3).unwrap();
        }
        c.system
            .q()
            .iter()
            .chain(c.system.q_dot())
            .map(|x| x.to_bits())
            .collect::<Vec<u64>>()
    };
    assert_eq!(run(), run());
}
