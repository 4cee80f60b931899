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
    // A bad parameter is named, so that a caller (the scene format) can point at it.
    let parameter = |e: &ModelError| match e {
        ModelError::ConstraintParameter(p) | ModelError::ForceParameter(p) => p.parameter.clone(),
        other => panic!("not a parameter error: {other}"),
    };
    let e = sys.add_constraint(Distance::new(p, q, 0.0)).unwrap_err();
    assert_eq!(parameter(&e), "length");
    assert!(e.to_string().contains("length: must be positive"), "{e}");
    assert!(
        e.to_string().contains("a rod needs a positive length"),
        "{e}"
    );
    let e = sys
        .add_constraint(OnLine::new(p, Motion::fixed(&[0.0, 0.0]), &[0.0, 0.0]))
        .unwrap_err();
    assert_eq!(parameter(&e), "direction");
    assert!(e.to_string().contains("zero length"), "{e}");
    let e = sys
        .add_constraint(OnPlane::new(p, Motion::fixed(&[0.0, 0.0]), &[0.0, 1.0]))
        .unwrap_err();
    assert_eq!(parameter(&e), "dimension");
    assert!(e.to_string().contains("3D"), "{e}");
    let e = sys.add_force(Gravity::new(&[0.0, -9.81, 0.0])).unwrap_err();
    assert_eq!(parameter(&e), "g");
    assert!(e.to_string().contains("3 components"), "{e}");
    let e = sys.add_force(Gravity::new(&[0.0, f64::NAN])).unwrap_err();
    assert_eq!(parameter(&e), "g[1]");
    // Nothing was added by the failed calls.
    assert_eq!(sys.constraints().count(), 0);
    assert_eq!(sys.particles().count(), 2);
    assert!(sys.step(0.0).is_err() && sys.step(f64::NAN).is_err());
}

/// A constraint whose multiplier bounds are not an interval (a NaN, lo above hi) is refused
/// when it is added: the complementarity solves would otherwise read the row as free in one
/// place and bounded in another.
#[test]
fn multiplier_bounds_that_are_no_interval_are_refused() {
    #[derive(Debug)]
    struct Bounded(bead::ParticleId, (f64, f64));
    impl bead::Constraint for Bounded {
        fn rows(&self, _dim: usize) -> usize {
            1
        }
        fn operands(&self) -> Vec<bead::Operand> {
            vec![self.0.into()]
        }
        fn multiplier_bounds(&self) -> (f64, f64) {
            self.1
        }
        fn evaluate(
            &self,
            eval: &mut bead::ConstraintEval<'_>,
        ) -> Result<(), bead::ConstraintError> {
            eval.set_value(0, eval.x(0)[1]);
            eval.set_gradient(0, 0, &[0.0, 1.0]);
            Ok(())
        }
    }
    let mut sys = System::new(2).unwrap();
    let p = sys.add_particle(Particle::new(&[0.0, 0.0])).unwrap();
    for bounds in [
        (f64::NAN, 1.0),
        (0.0, f64::NAN),
        (2.0, 1.0),
        (f64::INFINITY, f64::INFINITY),
        (f64::NEG_INFINITY, f64::NEG_INFINITY),
    ] {
        let e = sys.add_constraint(Bounded(p, bounds)).unwrap_err();
        assert!(
            e.to_string().contains("multiplier bounds"),
            "{bounds:?}: {e}"
        );
    }
    for bounds in [(-1.0, 1.0), (0.0, 0.0), (f64::NEG_INFINITY, f64::INFINITY)] {
        assert!(sys.add_constraint(Bounded(p, bounds)).is_ok(), "{bounds:?}");
    }
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
    let err = step_until_failure(&mut sys, 0.1);
    assert!(
        matches!(
            err.cause,
            StepFailure::Diverged | StepFailure::Eval(bead::EvalError::NonFinite(_))
        ),
        "{err}"
    );
    assert!(sys.position(b).iter().all(|x| x.is_finite()));
}

/// A run that reads a report after every step, as `bead run` does, fails where the same run
/// without reports does. The report's evaluation is reused as the next step's first stage, and
/// the divergence check skipped it: explicit Euler on a double pendulum at dt = 0.5 s ran to its
/// end with |C| = 1e34 and exit code 0.
#[test]
fn a_report_after_every_step_does_not_hide_divergence() {
    for integrator in ["euler", "symplectic-euler", "midpoint", "rk4"] {
        let failure = |report: bool| {
            // A double pendulum released from the horizontal.
            let mut sys = bead::models::chain(2, 1.0, 1.0, 0.0).unwrap().system;
            sys.set_integrator_boxed(bead::integrate::by_name(integrator).unwrap());
            for k in 0..200 {
                if report {
                    sys.constraint_error().unwrap();
                }
                if let Err(e) = sys.step(0.5) {
                    return (k, e.cause);
                }
            }
            panic!("{integrator}: 200 steps of 0.5 s never failed (report: {report})");
        };
        let (quiet, reported) = (failure(false), failure(true));
        assert_eq!(quiet, reported, "{integrator}");
        assert!(
            matches!(quiet.1, StepFailure::Eval(bead::EvalError::Diverged { .. })),
            "{integrator}: {:?}",
            quiet.1
        );
    }
}

/// A state far past divergence can overflow a rod's curvature term `|v⊥|²/L` while its `C`
/// is still a (huge) number: that is reported as the divergence it is, not as a fault of the
/// rod (the explicit integrators once named a domino's contact for a leaning row at 1e134).
#[test]
fn an_overflow_far_past_divergence_is_reported_as_divergence() {
    let mut sys = System::new(2).unwrap();
    let nail = sys
        .add_particle(Particle::new(&[0.0, 0.0]).mass(f64::INFINITY))
        .unwrap();
    let bob = sys.add_particle(Particle::new(&[1.0, 0.0])).unwrap();
    sys.add_constraint(Distance::new(nail, bob, 1.0)).unwrap();
    sys.set_integrator_boxed(bead::integrate::by_name("rk4").unwrap());
    sys.set_position(bob, &[1e100, 0.0]).unwrap();
    sys.set_velocity(bob, &[0.0, 1e300]).unwrap();
    let err = sys.step(1e-3).unwrap_err();
    assert!(
        matches!(
            err.cause,
            StepFailure::Eval(bead::EvalError::Diverged { .. })
        ),
        "{err}"
    );
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

/// Regression: the 20×20 cloth scene, stepped with RK4 at dt = 0.002, blew up to |C| ≈ 1e153 at
/// t ≈ 0.4 s while every number stayed finite, and `bead run` reported a completed run. An
/// unstable integration must fail the step as soon as the constraint error leaves any sane range,
/// name the worst constraint, and keep the last state within that range.
///
/// A 50-link chain has a mode near 6.3·50 rad/s (the rods' geometric stiffness); RK4 at dt = 0.02 s is far outside
/// its stability region for it, and the error grows geometrically from rounding.
#[test]
fn a_finite_blow_up_is_reported_as_divergence() {
    let mut chain = bead::models::chain(50, 0.02, 0.02, -std::f64::consts::FRAC_PI_4).unwrap();
    let sys = &mut chain.system;
    let limit = sys.settings().divergence_limit;
    let err = step_until_failure(sys, 0.02);
    assert!(
        matches!(
            err.cause,
            StepFailure::Eval(bead::EvalError::Diverged { max_abs_c, .. }) if max_abs_c > limit && max_abs_c.is_finite()
        ),
        "{err}"
    );
    assert!(err.worst.is_some(), "the worst constraint is named: {err}");
    assert!(err.to_string().contains("diverged"), "{err}");
    let (kept, _) = sys.constraint_error().unwrap();
    assert!(
        kept <= limit,
        "the kept state is the last good one: max |C| = {kept}"
    );
}

/// The limit is a setting: a model legitimately far from its constraints can raise it, and a
/// non-positive limit is refused.
#[test]
fn the_divergence_limit_is_a_setting() {
    let mut sys = System::new(2).unwrap();
    let a = sys.add_particle(Particle::anchor(&[0.0, 0.0])).unwrap();
    let b = sys.add_particle(Particle::new(&[3.0, 0.0])).unwrap();
    // A rod of 1 m between points 3 m apart: |C| = 2 at the start.
    sys.add_constraint(Distance::new(a, b, 1.0)).unwrap();
    let err = sys.step(1e-3).unwrap_err();
    assert!(err.to_string().contains("divergence limit"), "{err}");
    let mut settings = *sys.settings();
    settings.divergence_limit = 10.0;
    sys.set_settings(settings).unwrap();
    sys.step(1e-3).unwrap();
    settings.divergence_limit = 0.0;
    assert!(sys.set_settings(settings).is_err());
}

/// Steps until a step fails (at most 10 000 steps) and returns its error.
fn step_until_failure(sys: &mut System, dt: f64) -> bead::StepError {
    for _ in 0..10_000 {
        if let Err(e) = sys.step(dt) {
            return e;
        }
    }
    panic!("10 000 steps of {dt} s never failed");
}
