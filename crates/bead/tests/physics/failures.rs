//! Failure is reported, not hidden: bad input is refused with a clear error, and a step that
//! cannot be taken leaves the last good state intact.

use bead::autodiff::{Custom, DualNum};
use bead::constraint::{Distance, OnLine, OnPlane};
use bead::force::Gravity;
use bead::{ModelError, Motion, Particle, StepFailure, System};

#[test]
fn bad_model_input_is_refused() {
    assert_eq!(System::new(4).unwrap_err(), ModelError::Dimension(4));
    let mut sys = System::new(2).unwrap();
    assert!(matches!(
        sys.add_particle(Particle::new(&[0.0, 0.0, 1.0])),
        Err(ModelError::WrongLength { got: 3, .. })
    ));
    assert!(matches!(
        sys.add_particle(Particle::new(&[0.0, f64::NAN])),
        Err(ModelError::NonFinite(_))
    ));
    for m in [0.0, -1.0, f64::NAN] {
        assert!(matches!(
            sys.add_particle(Particle::new(&[0.0, 0.0]).mass(m)),
            Err(ModelError::Mass(_))
        ));
    }
    let p = sys.add_particle(Particle::new(&[0.0, 0.0])).unwrap();
    let q = sys.add_particle(Particle::new(&[1.0, 0.0])).unwrap();
    let e = sys.add_constraint(Distance::new(p, q, 0.0)).unwrap_err();
    assert!(e.to_string().contains("rod length must be positive"), "{e}");
    let e = sys
        .add_constraint(OnLine::new(p, Motion::fixed(&[0.0, 0.0]), &[0.0, 0.0]))
        .unwrap_err();
    assert!(e.to_string().contains("zero length"), "{e}");
    let e = sys
        .add_constraint(OnPlane::new(p, Motion::fixed(&[0.0, 0.0]), &[0.0, 1.0]))
        .unwrap_err();
    assert!(e.to_string().contains("3D"), "{e}");
    let e = sys.add_force(Gravity::new(&[0.0, -9.81, 0.0])).unwrap_err();
    assert!(e.to_string().contains("3 components"), "{e}");
    // Nothing was added by the failed calls.
    assert_eq!(sys.constraints().count(), 0);
    assert_eq!(sys.particles().count(), 2);
    assert!(sys.step(0.0).is_err() && sys.step(f64::NAN).is_err());
}

/// A constraint that returns NaN: the step fails naming it; the state is untouched.
#[test]
fn a_nan_from_a_constraint_is_reported() {
    let mut sys = System::new(2).unwrap();
    let p = sys
        .add_particle(Particle::new(&[0.5, 0.0]).velocity(&[0.0, 1.0]))
        .unwrap();
    // sqrt of a negative number once the particle rises above y = 0.05.
    let c = sys
        .add_constraint(Custom::new([p], |x, _t| {
            (x[1] * -1.0 + 0.05).sqrt() * 0.0 + x[0] - 0.5
        }))
        .unwrap();
    sys.set_constraint_name(c, "fragile").unwrap();
    let mut last_good = sys.position(p).to_vec();
    let err = loop {
        match sys.step(1e-2) {
            Ok(_) => last_good = sys.position(p).to_vec(),
            Err(e) => break e,
        }
        assert!(sys.time() < 1.0, "the constraint should have failed");
    };
    let message = err.to_string();
    assert!(
        message.contains("fragile") && message.contains("not finite"),
        "{message}"
    );
    assert_eq!(sys.position(p), &last_good[..]);
}

/// Divergence is reported: a stiff spring stepped far too coarsely blows up; the step that
/// produces a non-finite state fails and the system keeps the last finite one.
#[test]
fn divergence_is_reported() {
    let mut sys = System::new(2).unwrap();
    let a = sys.add_particle(Particle::anchor(&[0.0, 0.0])).unwrap();
    let b = sys
        .add_particle(Particle::new(&[1.5, 0.0]).mass(1e-3))
        .unwrap();
    sys.add_force(bead::force::Spring::new(a, b, 1e9, 0.0, 1.0))
        .unwrap();
    let mut steps = 0;
    let err = loop {
        match sys.step(0.1) {
            Ok(_) => steps += 1,
            Err(e) => break e,
        }
        assert!(steps < 10_000, "never diverged");
    };
    assert!(
        matches!(
            err.cause,
            StepFailure::Diverged | StepFailure::Eval(bead::EvalError::NonFinite(_))
        ),
        "{err}"
    );
    assert!(sys.position(b).iter().all(|x| x.is_finite()));
}

/// A rod whose ends meet has no direction: an error naming it, not NaN.
#[test]
fn coincident_rod_ends_are_reported() {
    let mut sys = System::new(2).unwrap();
    let a = sys
        .add_particle(Particle::new(&[0.0, 0.0]).velocity(&[1.0, 0.0]))
        .unwrap();
    let b = sys.add_particle(Particle::new(&[1.0, 0.0])).unwrap();
    let rod = sys.add_constraint(Distance::new(a, b, 1.0)).unwrap();
    sys.set_position(a, &[1.0, 0.0]).unwrap();
    let err = sys.step(1e-3).unwrap_err();
    assert_eq!(err.worst.as_ref().map(|w| w.id), Some(rod));
    assert!(err.to_string().contains("coincide"), "{err}");
}
