//! A slider's motor and travel limit against physics, in 3D and in 2D: a motor lifts a carriage
//! up an incline at its speed with the force statics gives, and one too weak for the load lets it
//! slide back at `(F_max − m g sin α)/m`; a limit stops a falling carriage where it is set, holds
//! its weight there, and sends it back at `e` times its approach; on a spinning 2D rail the
//! motor's force is the centripetal one and the stop holds in the rail's frame.

use bead::constraint::{Prismatic3d, SliderLimit, SliderMotor, Weld3d};
use bead::contact::Impacts;
use bead::force::Gravity;
use bead::integrate::{ImplicitEuler, Integrator, Rk4, SymplecticEuler};
use bead::{ConstraintId, RigidBody3d, RigidBody3dId, System};

/// A named way to make a fresh integrator for each run.
type Make = fn() -> Box<dyn Integrator>;

const G: f64 = 9.81;
const MASS: f64 = 2.0;
const PIVOTS: ([f64; 3], [f64; 3]) = ([0.0; 3], [0.0; 3]);

/// A carriage of [`MASS`] on a fixed rail along `axis` through the origin, under gravity along
/// −z.
fn rail(axis: [f64; 3]) -> (System, RigidBody3dId, RigidBody3dId) {
    rail_of(axis, MASS, [0.02, 0.03, 0.04])
}

/// [`rail`] with a carriage of mass `mass` and principal moments `inertia`.
fn rail_of(axis: [f64; 3], mass: f64, inertia: [f64; 3]) -> (System, RigidBody3dId, RigidBody3dId) {
    let mut sys = System::new(3).unwrap();
    let rail = sys
        .add_rigid_body_3d(RigidBody3d::new([0.0; 3]).fixed())
        .unwrap();
    let carriage = sys
        .add_rigid_body_3d(
            RigidBody3d::new([0.0; 3])
                .mass(mass)
                .principal_inertia(inertia),
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

/// A 2D carriage driven out along a rail that spins at ω about its end, for 1 s in steps of `h`
/// with a stop at 0.4 m: the travel's error at 1 s, the largest error of the motor's force
/// against the centripetal `−m ω² s` in units of `m ω² v h`, and the stop's force at the end
/// (`s` checked at the stop and across the rail exact meanwhile).
fn spinning_rail(h: f64) -> (f64, f64, Vec<f64>) {
    use bead::constraint::{Motor, Nail, Prismatic};
    use bead::{Point, RigidBody};
    let (omega, v, stop, m) = (2.0, 0.3, 0.4, 1.5);
    let mut sys = System::new(2).unwrap();
    let spinning = |body: RigidBody| body.velocity(&[0.0, 0.0], omega);
    let rail = sys
        .add_rigid_body(spinning(
            RigidBody::new(&[0.0, 0.0], 0.0).mass(50.0).inertia(20.0),
        ))
        .unwrap();
    let carriage = sys
        .add_rigid_body(spinning(
            RigidBody::new(&[0.0, 0.0], 0.0).mass(m).inertia(0.01),
        ))
        .unwrap();
    sys.add_constraint(Nail::new(Point::on_body(rail, [0.0, 0.0]), &[0.0, 0.0]))
        .unwrap();
    sys.add_constraint(Motor::to_world(rail, omega)).unwrap();
    let (pa, pb) = (
        Point::on_body(rail, [0.0, 0.0]),
        Point::on_body(carriage, [0.0, 0.0]),
    );
    sys.add_constraint(Prismatic::new(pa, pb, [1.0, 0.0], 0.0))
        .unwrap();
    let pivots = ([0.0; 2], [0.0; 2]);
    let motor = SliderMotor::planar(rail.body(), carriage.body(), pivots, [1.0, 0.0], v);
    // Enough to reach the speed within the first step, finite so it can push into the stop.
    let drive = sys.add_constraint(motor.max_force(1000.0)).unwrap();
    let limit = SliderLimit::planar(rail.body(), carriage.body(), pivots, [1.0, 0.0], -1.0, stop);
    let stops = sys.add_constraint(limit).unwrap();
    sys.set_integrator(ImplicitEuler::default());
    let (steps, reach) = ((2.0 / h).round() as usize, stop / v);
    let (mut travel_error, mut force_off) = (0.0, 0.0_f64);
    for k in 1..=steps {
        let t = k as f64 * h;
        sys.step_to(t).unwrap();
        let (x, theta) = (
            sys.coordinates(carriage.body()),
            sys.coordinates(rail.body())[2],
        );
        let s = x[0] * theta.cos() + x[1] * theta.sin();
        let across = -x[0] * theta.sin() + x[1] * theta.cos();
        assert!(
            across.abs() < 1e-9,
            "h {h} step {k}: off the rail by {across}"
        );
        assert!(
            (theta - omega * t).abs() < 1e-9,
            "h {h} step {k}: θ {theta}"
        );
        if k == (1.0 / h).round() as usize {
            travel_error = (s - v * t).abs();
        }
        if t > 0.05 && t < reach - 0.05 {
            let force = lambda(&mut sys, drive)[0];
            let unit = m * omega * omega * v * h;
            force_off = force_off.max((force + m * omega * omega * s).abs() / unit);
        } else if t > reach + 0.1 {
            assert!((s - stop).abs() < 1e-9, "h {h} step {k}: s {s} at the stop");
        }
    }
    (travel_error, force_off, lambda(&mut sys, stops))
}

/// On a rail spinning at ω the 2D motor and limit hold in the rail's turning frame: the carriage
/// never leaves the rail, its travel is `v t` to implicit Euler's first order (the error halves
/// with the step), the motor's force is the centripetal `−m ω² s` to the step's mean
/// (`(2 + ½) m ω² v h`: the Coriolis impulse turning with the rail over the step, and half a
/// step's travel), and the stop holds the carriage at 0.4 m with the motor pushing into it.
#[test]
fn a_planar_slider_motor_and_limit_work_on_a_spinning_rail() {
    let (coarse, off_coarse, stop) = spinning_rail(1e-3);
    let (fine, off_fine, _) = spinning_rail(5e-4);
    assert!(coarse < 1e-3, "travel error {coarse} at 1 s");
    let ratio = coarse / fine;
    assert!(
        (1.8..2.2).contains(&ratio),
        "travel errors {coarse}, {fine}"
    );
    assert!(
        off_coarse < 2.6 && off_fine < 2.6,
        "force off by {off_coarse}, {off_fine} m ω² v h"
    );
    assert!(stop[0] == 0.0 && stop[1] > 0.0, "stops {stop:?}");
}

/// A motor without a force limit that drives the carriage into its stop asks for the impossible:
/// the stop must hold it still while the motor moves it. Every integrator, with either way of
/// taking impacts, stops there with an error that names both, and the carriage never passes
/// the stop (the explicit integrators once carried it through it silently, 0.25 m by t = 3 s).
#[test]
fn a_motor_without_a_force_limit_into_its_stop_is_reported_where_it_hits() {
    let z = [0.0, 0.0, 1.0];
    let top = 0.05;
    let integrators: [(&str, Make); 3] = [
        ("RK4", || Box::new(Rk4::default())),
        ("symplectic Euler", || Box::new(SymplecticEuler::default())),
        ("implicit Euler", || Box::new(ImplicitEuler::default())),
    ];
    for (name, integrator) in integrators {
        for impacts in [Impacts::Located, Impacts::Speculative] {
            let (mut sys, rail_body, carriage) = rail(z);
            let motor = SliderMotor::new(rail_body.body(), carriage.body(), PIVOTS, z, 0.25);
            let drive = sys.add_constraint(motor).unwrap();
            sys.set_constraint_name(drive, "drive").unwrap();
            let limit = SliderLimit::new(rail_body.body(), carriage.body(), PIVOTS, z, -1.0, top);
            let stops = sys.add_constraint(limit).unwrap();
            sys.set_constraint_name(stops, "stops").unwrap();
            sys.set_integrator_boxed(integrator());
            let mut settings = *sys.settings();
            settings.impacts = impacts;
            sys.set_settings(settings).unwrap();
            let failure = (1..=400)
                .map(|k| sys.step_to(k as f64 * 1e-3))
                .find_map(Result::err);
            let error = failure
                .unwrap_or_else(|| panic!("{name}, {impacts:?}: ran through its stop silently"))
                .to_string();
            // The explicit integrators meet it as an impact, the implicit stepper in its solve.
            let expected = if name.starts_with("implicit") {
                "'drive' and 'stops' conflict"
            } else {
                "'stops' is driven into its bound at 2.500e-1 a second by 'drive'"
            };
            assert!(error.contains(expected), "{name}, {impacts:?}: {error}");
            let (s, _) = travel(&sys, carriage, z);
            assert!(
                s <= top + 1e-5,
                "{name}, {impacts:?}: at {s}, past the stop"
            );
            assert!(
                sys.time() > 0.19 && sys.time() < 0.202,
                "{name}, {impacts:?}: failed at t = {} rather than at the stop (t = 0.2 s)",
                sys.time()
            );
        }
    }
}

/// A gram welded to a ten-tonne carriage, and the stop under the gram: the stop's impulse meets
/// the carriage's mass, a ten-millionth of the gram's inverse mass, which is no conflict. The
/// pair lands on the stop at 1.4 m/s and rests there (the stop carrying its whole weight) under
/// the explicit integrators, with either way of taking impacts.
#[test]
fn a_stop_under_a_gram_welded_to_ten_tonnes_holds_them_both() {
    let (heavy, light, drop) = (1e4, 1e-3, 0.1);
    let z = [0.0, 0.0, 1.0];
    let integrators: [(&str, Make); 2] = [
        ("RK4", || Box::new(Rk4::default())),
        ("symplectic Euler", || Box::new(SymplecticEuler::default())),
    ];
    for (name, integrator) in integrators {
        for impacts in [Impacts::Located, Impacts::Speculative] {
            let (mut sys, rail, carriage) = rail_of(z, heavy, [1e3; 3]);
            let gram = sys
                .add_rigid_body_3d(
                    RigidBody3d::new([0.0; 3])
                        .mass(light)
                        .principal_inertia([1e-7; 3]),
                )
                .unwrap();
            let weld = Weld3d::new(carriage.body(), gram.body(), PIVOTS, [1.0, 0.0, 0.0, 0.0]);
            sys.add_constraint(weld).unwrap();
            let limit = SliderLimit::new(rail.body(), gram.body(), PIVOTS, z, -drop, 1.0);
            let stop = sys.add_constraint(limit).unwrap();
            sys.set_integrator_boxed(integrator());
            let mut settings = *sys.settings();
            settings.impacts = impacts;
            sys.set_settings(settings).unwrap();
            for k in 1..=400 {
                let t = k as f64 * 1e-3;
                sys.step_to(t)
                    .unwrap_or_else(|e| panic!("{name}, {impacts:?}, t = {t}: {e}"));
            }
            let (s, rate) = travel(&sys, gram, z);
            // Speculative contacts leave what the step's acceleration adds (2.7 µm here),
            // removed by the feedback over its time constant (0.1 s); located impacts, nothing.
            let tol = match impacts {
                Impacts::Speculative => 1e-4,
                _ => 1e-8,
            };
            assert!((s + drop).abs() < 0.1 * tol, "{name}, {impacts:?}: at {s}");
            assert!(
                rate.abs() < tol,
                "{name}, {impacts:?}: still moving at {rate}"
            );
            let force = lambda(&mut sys, stop)[0];
            let weight = (heavy + light) * G;
            assert!(
                (force - weight).abs() < tol * weight,
                "{name}, {impacts:?}: the stop carries {force} N of {weight}"
            );
        }
    }
}
