//! A 3D slider's motor and travel limit against physics: a motor lifts a carriage up an incline
//! at its speed with the force statics gives, and one too weak for the load lets it slide back
//! at `(F_max − m g sin α)/m`; a limit stops a falling carriage where it is set, holds its
//! weight there, and sends it back at `e` times its approach.

use bead::constraint::{Prismatic3d, SliderLimit, SliderMotor};
use bead::force::Gravity;
use bead::integrate::{ImplicitEuler, Integrator, Rk4};
use bead::{ConstraintId, RigidBody3d, RigidBody3dId, System};

const G: f64 = 9.81;
const MASS: f64 = 2.0;
const PIVOTS: ([f64; 3], [f64; 3]) = ([0.0; 3], [0.0; 3]);

/// A carriage of [`MASS`] on a fixed rail along `axis` through the origin, under gravity along
/// −z.
fn rail(axis: [f64; 3]) -> (System, RigidBody3dId, RigidBody3dId) {
    let mut sys = System::new(3).unwrap();
    let rail = sys
        .add_rigid_body_3d(RigidBody3d::new([0.0; 3]).fixed())
        .unwrap();
    let carriage = sys
        .add_rigid_body_3d(
            RigidBody3d::new([0.0; 3])
                .mass(MASS)
                .principal_inertia([0.02, 0.03, 0.04]),
        )
        .unwrap();
    let slider = Prismatic3d::new(
        rail.body(),
        carriage.body(),
        PIVOTS,
        axis,
        [1.0, 0.0, 0.0, 0.0],
    );
    sys.add_constraint(slider).unwrap();
    sys.add_force(Gravity::new(&[0.0, 0.0, -G])).unwrap();
    (sys, rail, carriage)
}

/// The carriage's travel along the unit `axis`, and its rate.
fn travel(sys: &System, carriage: RigidBody3dId, axis: [f64; 3]) -> (f64, f64) {
    let (q, v) = (
        sys.coordinates(carriage.body()),
        sys.coordinate_velocities(carriage.body()),
    );
    let dot = |x: &[f64]| (0..3).map(|k| x[k] * axis[k]).sum::<f64>();
    (dot(q), dot(v))
}

fn lambda(sys: &mut System, id: ConstraintId) -> Vec<f64> {
    sys.diagnostics()
        .unwrap()
        .constraint(id)
        .unwrap()
        .lambda
        .clone()
}

/// An incline of 30° in the x–z plane.
fn incline() -> ([f64; 3], f64) {
    let alpha = 30f64.to_radians();
    ([alpha.cos(), 0.0, alpha.sin()], alpha)
}

/// Up the incline at 0.5 m/s: the travel rate is the motor's speed from the first step, and the
/// motor's force is the weight's part along the rail, `m g sin α`, by hand statics.
#[test]
fn a_slider_motor_lifts_at_its_speed_with_the_force_statics_gives() {
    let (axis, alpha) = incline();
    let (mut sys, rail_body, carriage) = rail(axis);
    let motor = SliderMotor::new(rail_body.body(), carriage.body(), PIVOTS, axis, 0.5);
    let id = sys.add_constraint(motor).unwrap();
    sys.set_integrator(ImplicitEuler::default());
    for k in 1..=200 {
        sys.step_to(k as f64 * 1e-3).unwrap();
        let (s, rate) = travel(&sys, carriage, axis);
        assert!((rate - 0.5).abs() < 1e-9, "step {k}: ṡ = {rate}");
        assert!(
            (s - 0.5 * k as f64 * 1e-3).abs() < 1e-9,
            "step {k}: s = {s}"
        );
    }
    let force = lambda(&mut sys, id)[0];
    assert!(
        (force - MASS * G * alpha.sin()).abs() < 1e-6,
        "motor force {force} against m g sin α = {}",
        MASS * G * alpha.sin()
    );
}

/// A motor limited below the load: it gives exactly its limit and the carriage slides back at
/// `a = (F_max − m g sin α)/m`, so `s = ½ a t²` from rest (RK4, whose error at 1 ms is far below
/// the tolerance); with a limit above the load it holds the speed as if unlimited.
#[test]
fn a_weak_slider_motor_gives_its_limit_and_slides_back_as_newton_says() {
    let (axis, alpha) = incline();
    let load = MASS * G * alpha.sin();
    for (limit, holds) in [(0.4 * load, false), (2.0 * load, true)] {
        let (mut sys, rail_body, carriage) = rail(axis);
        let motor =
            SliderMotor::new(rail_body.body(), carriage.body(), PIVOTS, axis, 0.0).max_force(limit);
        let id = sys.add_constraint(motor).unwrap();
        sys.set_integrator(Rk4::default());
        let h = 1e-3;
        for k in 1..=300 {
            sys.step_to(k as f64 * h).unwrap();
        }
        let t = 0.3;
        let (s, rate) = travel(&sys, carriage, axis);
        let force = lambda(&mut sys, id)[0];
        if holds {
            assert!(s.abs() < 1e-9 && rate.abs() < 1e-9, "held: s {s}, ṡ {rate}");
            assert!((force - load).abs() < 1e-6, "force {force} against {load}");
        } else {
            let a = (limit - load) / MASS;
            assert!(
                (s - 0.5 * a * t * t).abs() < 1e-9,
                "s {s} against {}",
                0.5 * a * t * t
            );
            assert!((rate - a * t).abs() < 1e-9, "ṡ {rate} against {}", a * t);
            assert!(
                (force - limit).abs() < 1e-9,
                "force {force} against its limit {limit}"
            );
        }
    }
}

/// A carriage falls from rest down a vertical rail onto its lower stop 0.3 m below: the implicit
/// stepper holds it exactly at the stop, which carries its weight; RK4's located impact sends it
/// back up at `e √(2 g d)`, and it rises to `e² d` above the stop.
#[test]
fn a_slider_limit_stops_holds_and_bounces_a_falling_carriage() {
    let z = [0.0, 0.0, 1.0];
    let d = 0.3;
    let integrators: [(Box<dyn Integrator>, f64); 3] = [
        (Box::new(ImplicitEuler::default()), 0.0),
        (Box::new(Rk4::default()), 1.0),
        (Box::new(Rk4::default()), 0.5),
    ];
    for (integrator, e) in integrators {
        let name = integrator.name();
        let (mut sys, rail_body, carriage) = rail(z);
        let limit = SliderLimit::new(rail_body.body(), carriage.body(), PIVOTS, z, -d, 1.0);
        let id = sys.add_constraint(limit).unwrap();
        sys.set_restitution(id, e).unwrap();
        sys.set_integrator_boxed(integrator);
        let h = 1e-3;
        let fall = (2.0 * d / G).sqrt();
        if e == 0.0 {
            for k in 1..=500 {
                sys.step_to(k as f64 * h).unwrap();
            }
            let (s, rate) = travel(&sys, carriage, z);
            assert!(
                (s + d).abs() < 1e-9 && rate.abs() < 1e-9,
                "{name}: s {s}, ṡ {rate}"
            );
            let force = lambda(&mut sys, id);
            assert!(
                (force[0] - MASS * G).abs() < 1e-6,
                "{name}: stop force {force:?}"
            );
            assert_eq!(force[1], 0.0, "{name}: the upper stop is free");
            continue;
        }
        // Just after the impact, then at the top of the rebound.
        let after = fall + 0.01;
        let mut k = 0;
        while (k as f64) * h < after {
            k += 1;
            sys.step_to(k as f64 * h).unwrap();
        }
        let t = k as f64 * h - fall;
        let leave = e * (2.0 * G * d).sqrt();
        let (s, rate) = travel(&sys, carriage, z);
        assert!(
            (rate - (leave - G * t)).abs() < 1e-8,
            "{name} e = {e}: ṡ {rate}"
        );
        assert!(
            (s - (-d + leave * t - 0.5 * G * t * t)).abs() < 1e-8,
            "{name} e = {e}: s {s}"
        );
        let top = fall + leave / G;
        while (k as f64) * h < top {
            k += 1;
            sys.step_to(k as f64 * h).unwrap();
        }
        let t = k as f64 * h - fall;
        let (s, _) = travel(&sys, carriage, z);
        let expected = -d + leave * t - 0.5 * G * t * t;
        assert!(
            (s - expected).abs() < 1e-8,
            "{name} e = {e}: top {s} against {expected}"
        );
        assert!(
            (s + d - e * e * d).abs() < 1e-5,
            "{name} e = {e}: rises to {}",
            s + d
        );
    }
}
