//! Coulomb friction between 3D shapes (issue 33), with the circular cone: stick and slip on an
//! incline at tan α = μ ± ε in any direction of the plane, a box sliding to a stop at
//! v²/(2μg) in any direction, and a ball rolling down a slope at (5/7) g sin α.
//!
//! An incline is the floor with gravity turned: `g (sin α cos φ, sin α sin φ, −cos α)` is a
//! slope of angle α falling along the azimuth φ, so one floor tries every direction of the
//! plane against the contacts' tangent frames.

use bead::contact::ShapeContacts;
use bead::force::Gravity;
use bead::{RigidBody3d, RigidBody3dId, Shape3d, System};

const G: f64 = 9.81;

/// A 3D system under `integrator` with gravity `gravity` and a fixed floor whose top face is
/// z = 0, and `body` on it, in a contact group of coefficient `mu`.
fn on_floor(
    integrator: &str,
    gravity: [f64; 3],
    body: RigidBody3d,
    mu: f64,
) -> (System, RigidBody3dId) {
    let mut sys = System::new(3).unwrap();
    sys.set_integrator_boxed(bead::integrate::by_name(integrator).unwrap());
    let floor = sys
        .add_rigid_body_3d(
            RigidBody3d::new([0.0, 0.0, -0.5])
                .fixed()
                .outline(Shape3d::Box {
                    size: [20.0, 20.0, 1.0],
                }),
        )
        .unwrap();
    let body = sys.add_rigid_body_3d(body).unwrap();
    sys.add_force(Gravity::new(&gravity)).unwrap();
    sys.add_shape_contacts(ShapeContacts::new().body(floor, mu).body(body, mu))
        .unwrap();
    (sys, body)
}

/// Gravity on a slope of angle `alpha` falling along the azimuth `phi`.
fn slope(alpha: f64, phi: f64) -> [f64; 3] {
    [
        G * alpha.sin() * phi.cos(),
        G * alpha.sin() * phi.sin(),
        -G * alpha.cos(),
    ]
}

fn crate_at_rest() -> RigidBody3d {
    RigidBody3d::new([0.0, 0.0, 0.1]).shape(Shape3d::Box { size: [0.2; 3] }, 500.0)
}

/// Runs `steps` of `dt`, panicking with the time on failure.
fn run(sys: &mut System, steps: usize, dt: f64, what: &str) {
    for _ in 0..steps {
        sys.step(dt)
            .unwrap_or_else(|e| panic!("{what} at t = {}: {e}", sys.time()));
    }
}

const AZIMUTHS: [f64; 5] = [0.0, 0.5, std::f64::consts::FRAC_PI_4, 1.3, 2.6];

/// Where a crate at rest on a slope of angle `alpha` falling along `phi` is after `t` s under
/// `name` at steps of `dt`: along the slope and across it.
fn on_slope(name: &str, alpha: f64, phi: f64, mu: f64, t: f64, dt: f64) -> (f64, f64) {
    let (mut sys, body) = on_floor(name, slope(alpha, phi), crate_at_rest(), mu);
    let what = format!("{name}, φ = {phi}, α = {alpha}, dt = {dt}");
    run(&mut sys, (t / dt).round() as usize, dt, &what);
    let q = sys.coordinates(body.body()).to_vec();
    assert!(
        (q[2] - 0.1).abs() < 1e-9,
        "{what}: left the floor by {} m",
        q[2] - 0.1
    );
    (
        q[0] * phi.cos() + q[1] * phi.sin(),
        -q[0] * phi.sin() + q[1] * phi.cos(),
    )
}

/// The stick-slip threshold is Coulomb's circle in every direction of the plane, not a square
/// of the contact's tangent frame (which would hold a crate up to tan α = √2 μ along its
/// diagonals): just below the friction angle the crate stays put, just above it slides down
/// the slope and nowhere else, at `g (sin α − μ cos α)`, to the stepper's order.
#[test]
fn a_crate_sticks_just_below_the_friction_angle_and_slides_just_above_it_in_every_direction() {
    let (mu, t) = (0.5_f64, 0.5);
    for name in ["implicit-euler", "bdf2", "rk4", "symplectic-euler"] {
        for phi in AZIMUTHS {
            let alpha = (0.99 * mu).atan();
            let (along, across) = on_slope(name, alpha, phi, mu, t, 1e-3);
            assert!(
                along.abs() < 1e-9 && across.abs() < 1e-9,
                "{name}, φ = {phi}: creeps ({along}, {across}) m at tan α = 0.99 μ"
            );
            let alpha = (1.01 * mu).atan();
            let expected = 0.5 * G * (alpha.sin() - mu * alpha.cos()) * t * t;
            let (along, across) = on_slope(name, alpha, phi, mu, t, 1e-3);
            assert!(
                (along - expected).abs() < 0.01 * expected,
                "{name}, φ = {phi}: slides {along} m, not {expected} m"
            );
            assert!(
                across.abs() < 1e-9,
                "{name}, φ = {phi}: drifts {across} m across"
            );
        }
    }
}

/// The slide down the slope converges to the closed form at each stepper's order as dt is
/// halved: implicit Euler's error halves, BDF2's quarters.
#[test]
fn a_crate_sliding_down_a_slope_converges_at_the_steppers_order() {
    let (mu, t, phi) = (0.5_f64, 0.5, 0.5);
    let alpha = (1.2 * mu).atan();
    let expected = 0.5 * G * (alpha.sin() - mu * alpha.cos()) * t * t;
    for (name, order) in [("implicit-euler", 1.0), ("bdf2", 2.0)] {
        let errors: Vec<f64> = [2e-3, 1e-3, 5e-4]
            .iter()
            .map(|&dt| (on_slope(name, alpha, phi, mu, t, dt).0 - expected).abs())
            .collect();
        println!("{name}: errors {errors:?}");
        for pair in errors.windows(2) {
            let rate = (pair[0] / pair[1]).log2();
            assert!(
                (rate - order).abs() < 0.2,
                "{name}: errors {errors:?} fall at order {rate}, not {order}"
            );
        }
    }
}

#[test]
fn a_crate_launched_in_any_direction_slides_to_a_stop_at_v_squared_over_two_mu_g() {
    let (mu, v0) = (0.5, 2.0);
    let stop = v0 * v0 / (2.0 * mu * G);
    for phi in AZIMUTHS {
        // RK4 integrates the constant deceleration exactly and locates the stop: measured
        // within 5e-13 m.
        let body = crate_at_rest().velocity([v0 * phi.cos(), v0 * phi.sin(), 0.0]);
        let (mut sys, b) = on_floor("rk4", [0.0, 0.0, -G], body, mu);
        run(&mut sys, 600, 1e-3, &format!("RK4, φ = {phi}"));
        let q = sys.coordinates(b.body()).to_vec();
        let (along, across) = (
            q[0] * phi.cos() + q[1] * phi.sin(),
            -q[0] * phi.sin() + q[1] * phi.cos(),
        );
        assert!(
            (along - stop).abs() < 1e-11 && across.abs() < 1e-11,
            "RK4, φ = {phi}: stops at ({along}, {across}), not {stop} m ahead"
        );
        let mut errors = Vec::new();
        for dt in [1e-3, 5e-4] {
            let body = crate_at_rest().velocity([v0 * phi.cos(), v0 * phi.sin(), 0.0]);
            let (mut sys, b) = on_floor("bdf2", [0.0, 0.0, -G], body, mu);
            let what = format!("φ = {phi}, dt = {dt}");
            run(&mut sys, (0.6 / dt) as usize, dt, &what);
            let q = sys.coordinates(b.body()).to_vec();
            let along = q[0] * phi.cos() + q[1] * phi.sin();
            let across = -q[0] * phi.sin() + q[1] * phi.cos();
            assert!(across.abs() < 1e-9, "{what}: veers {across} m");
            errors.push((along - stop).abs());
        }
        println!("φ = {phi}: errors {errors:?}");
        assert!(
            errors[1] < 1e-4 * stop,
            "φ = {phi}: stops {} m off",
            errors[1]
        );
    }
}

/// A ball on a slope with tan α below (7/2) μ rolls without slipping: its centre accelerates
/// at (5/7) g sin α, and its spin keeps up with its speed, ω r = v. The friction rows hold the
/// material point that touched at the step's start, which the step turns by ω dt: the point
/// that touches at its end moves by `v (ω dt)² / 2`, second order, and each step starts afresh
/// from the new point, so it does not add up.
#[test]
fn a_ball_rolls_down_a_slope_at_five_sevenths_g_sin_alpha_without_slipping() {
    let (mu, alpha, r) = (0.5_f64, 0.3_f64, 0.1);
    let t = 0.5;
    for (name, phi) in [("bdf2", 0.0), ("bdf2", 1.3), ("rk4", 1.3)] {
        let ball = RigidBody3d::new([0.0, 0.0, r]).shape(Shape3d::Sphere { radius: r }, 500.0);
        let (mut sys, b) = on_floor(name, slope(alpha, phi), ball, mu);
        let what = format!("{name}, φ = {phi}");
        run(&mut sys, 500, 1e-3, &what);
        let q = sys.coordinates(b.body()).to_vec();
        let along = q[0] * phi.cos() + q[1] * phi.sin();
        let expected = 0.5 * 5.0 / 7.0 * G * alpha.sin() * t * t;
        let omega = sys.angular_velocity(b);
        let v = sys.coordinate_velocities(b.body()).to_vec();
        // The contact point's velocity v + ω × (−r ẑ) is zero.
        let slip = [v[0] - omega[1] * r, v[1] + omega[0] * r];
        println!("{what}: along {along:.9} (expected {expected:.9}), slip {slip:?}");
        assert!(
            (along - expected).abs() < 1e-4 * expected,
            "{what}: rolls {along} m, not {expected} m"
        );
        let bound = v[0].hypot(v[1]) * (omega[0].hypot(omega[1]) * 1e-3).powi(2);
        assert!(
            slip[0].hypot(slip[1]) < bound,
            "{what}: slips at {slip:?} m/s"
        );
    }
}

/// A pinch grip: a 0.1 m box held between two fingers that slide on rails across it, each
/// pressed against it with a force `margin` times what friction needs to carry its weight,
/// `m g / 2μ`. Where `margin` is above 1 the box stays, however near 1, to Newton's tolerance
/// (MuJoCo's elliptic cones let such a box creep out at 50–155 µm/s at margins of 20–95, its
/// issue #3328);
/// below 1 it slides out at `g − 2μF/m`. Returns the box's drop after `t` s and its mass.
fn pinch(name: &str, margin: f64, t: f64, dt: f64) -> (f64, f64) {
    let mu = 0.5;
    let mut sys = System::new(3).unwrap();
    sys.set_integrator_boxed(bead::integrate::by_name(name).unwrap());
    let palm = sys
        .add_rigid_body_3d(RigidBody3d::new([0.0; 3]).fixed())
        .unwrap();
    let held = sys
        .add_rigid_body_3d(RigidBody3d::new([0.0; 3]).shape(Shape3d::Box { size: [0.1; 3] }, 500.0))
        .unwrap();
    let mass = sys.mass(held.body()).unwrap();
    let press = margin * mass * G / (2.0 * mu);
    let mut group = ShapeContacts::new().body(held, mu);
    for side in [-1.0, 1.0] {
        let x = side * 0.07;
        let finger = sys
            .add_rigid_body_3d(RigidBody3d::new([x, 0.0, 0.0]).shape(
                Shape3d::Box {
                    size: [0.04, 0.1, 0.1],
                },
                500.0,
            ))
            .unwrap();
        sys.add_constraint(bead::constraint::Prismatic3d::new(
            palm.body(),
            finger.body(),
            ([x, 0.0, 0.0], [0.0; 3]),
            [1.0, 0.0, 0.0],
            [1.0, 0.0, 0.0, 0.0],
        ))
        .unwrap();
        sys.add_force(bead::force::ConstantForce::new(
            bead::Point::on_body_3d(finger.body(), [0.0; 3]),
            &[-side * press, 0.0, 0.0],
        ))
        .unwrap();
        group = group.body(finger, mu);
    }
    sys.add_force(Gravity::new(&[0.0, 0.0, -G])).unwrap();
    sys.add_shape_contacts(group).unwrap();
    run(
        &mut sys,
        (t / dt).round() as usize,
        dt,
        &format!("{name}, margin {margin}"),
    );
    (-sys.coordinates(held.body())[2], mass)
}

#[test]
fn a_box_in_a_pinch_grip_does_not_creep_above_the_friction_margin_and_slides_out_below_it() {
    let t = 1.0;
    for name in ["implicit-euler", "bdf2", "rk4"] {
        for margin in [1.05, 20.0] {
            let (drop, _) = pinch(name, margin, t, 1e-3);
            println!("{name}, margin {margin}: {drop:.3e} m in {t} s");
            // Each step holds the friction rows to Newton's tolerance (1e-10 m); what is left
            // over a thousand steps stays below 1e-8 m, ten nanometres a second.
            assert!(
                drop.abs() < 1e-8,
                "{name}, margin {margin}: the box crept {drop} m in {t} s"
            );
        }
    }
    // Below the margin both fingers' friction sits on its cones' edges: a = g (1 − margin),
    // to each stepper's error (while the box stays between the fingers: 2 cm). Implicit
    // Euler's is first order: it halves with dt.
    for (margin, t) in [(0.5, 0.09), (0.9, 0.2)] {
        let expected = 0.5 * G * (1.0 - margin) * t * t;
        let error =
            |name: &str, dt: f64| (pinch(name, margin, t, dt).0 - expected).abs() / expected;
        let (coarse, fine) = (error("implicit-euler", 1e-3), error("implicit-euler", 5e-4));
        assert!(
            coarse < 2e-2 && (coarse / fine - 2.0).abs() < 0.2,
            "implicit Euler, margin {margin}: relative errors {coarse} and {fine}"
        );
        let bdf2 = error("bdf2", 1e-3);
        assert!(bdf2 < 1e-3, "BDF2, margin {margin}: relative error {bdf2}");
        let rk4 = error("rk4", 1e-3);
        assert!(rk4 < 1e-9, "RK4, margin {margin}: relative error {rk4}");
    }
}

/// A crate launched across a slope steeper than its friction angle curves downhill, its
/// friction against its turning slip at every stage: under RK4 the differences between runs at
/// halved steps fall sixteenfold, its fourth order, with the friction force on its circle.
#[test]
fn a_crate_launched_across_a_slope_curves_downhill_at_rk4_s_order() {
    let (mu, t, phi) = (0.5_f64, 0.4_f64, 0.7_f64);
    let alpha = (1.3 * mu).atan();
    let across = [-phi.sin(), phi.cos(), 0.0].map(|x| 1.5 * x);
    let places: Vec<Vec<f64>> = [4e-3, 2e-3, 1e-3, 5e-4]
        .iter()
        .map(|&dt| {
            let body = crate_at_rest().velocity(across);
            let (mut sys, b) = on_floor("rk4", slope(alpha, phi), body, mu);
            run(
                &mut sys,
                (t / dt).round() as usize,
                dt,
                &format!("dt = {dt}"),
            );
            sys.coordinates(b.body())[..3].to_vec()
        })
        .collect();
    let gap = |a: &[f64], b: &[f64]| (0..3).map(|k| (a[k] - b[k]).abs()).fold(0.0, f64::max);
    let gaps: Vec<f64> = places.windows(2).map(|w| gap(&w[0], &w[1])).collect();
    println!("differences {gaps:?}");
    for pair in gaps.windows(2) {
        let rate = (pair[0] / pair[1]).log2();
        assert!(
            (rate - 4.0).abs() < 0.3,
            "differences {gaps:?} fall at order {rate}"
        );
    }
    // It went downhill and across: the slip turned.
    let p = &places[3];
    let (down, side) = (
        p[0] * phi.cos() + p[1] * phi.sin(),
        -p[0] * phi.sin() + p[1] * phi.cos(),
    );
    assert!(down > 0.05 && side > 0.1, "({down}, {side})");
}

/// A ball rolling down a slope under RK4: the friction that rolls it is `(2/7) m g sin α`, and
/// the explicit integrators reach it at first order in dt only. Their friction rows hold the
/// material points that touched at the step's start, and the ball turns those off the contact
/// within the step: the rows then ask an acceleration of a point a little up the ball, an
/// error of about `ω³ r h` (0.27 % of the force after 0.2 s, at 5 rad/s and dt = 1 ms). The measured error
/// halves with dt, as its cause says; the implicit steppers are first order anyway.
#[test]
fn a_rolling_ball_s_friction_under_rk4_converges_at_first_order() {
    let (mu, alpha, r, t) = (0.5_f64, 0.4_f64.atan(), 0.1, 0.2_f64);
    let errors: Vec<f64> = [1e-3, 5e-4, 2.5e-4]
        .iter()
        .map(|&dt| {
            let mut sys = System::new(3).unwrap();
            sys.set_integrator_boxed(bead::integrate::by_name("rk4").unwrap());
            let floor = sys
                .add_rigid_body_3d(RigidBody3d::new([0.0, 0.0, -0.5]).fixed().outline(
                    Shape3d::Box {
                        size: [20.0, 20.0, 1.0],
                    },
                ))
                .unwrap();
            let ball = sys
                .add_rigid_body_3d(
                    RigidBody3d::new([0.0, 0.0, r]).shape(Shape3d::Sphere { radius: r }, 500.0),
                )
                .unwrap();
            sys.add_force(Gravity::new(&slope(alpha, 0.0))).unwrap();
            let group = sys
                .add_shape_contacts(ShapeContacts::new().body(floor, mu).body(ball, mu))
                .unwrap();
            run(
                &mut sys,
                (t / dt).round() as usize,
                dt,
                &format!("dt = {dt}"),
            );
            let d = sys.diagnostics().unwrap();
            let friction = sys.contact_summary(group, &d).unwrap().friction_force;
            let expected = 2.0 / 7.0 * sys.mass(ball.body()).unwrap() * G * alpha.sin();
            (friction - expected).abs() / expected
        })
        .collect();
    println!("relative errors {errors:?}");
    assert!(errors[0] < 3e-3, "{errors:?}");
    for pair in errors.windows(2) {
        let rate = (pair[0] / pair[1]).log2();
        assert!((rate - 1.0).abs() < 0.15, "{errors:?} fall at order {rate}");
    }
}
