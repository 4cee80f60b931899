//! 2D rigid bodies and joints (seed 002): joint Jacobians against autodiff, and mechanisms
//! against closed forms.

use bead::autodiff::{Custom, DualNum, Scalar};
use bead::constraint::{
    Angle, Constraint, Gear, Motor, Nail, OnLine, PinionSide, Prismatic, RackAndPinion, Revolute,
    Weld,
};
use bead::force::{Gravity, Torque};
use bead::models::G;
use bead::{Feedback, Motion, Operand, Point, RigidBody, RigidBodyId, Settings, Shape, System};
use proptest::prelude::*;
use std::sync::Arc;

/// Two free rigid bodies at given states.
fn two_bodies(s: &[f64]) -> (System, RigidBodyId, RigidBodyId) {
    let mut sys = System::new(2).unwrap();
    let a = sys
        .add_rigid_body(
            RigidBody::new(&[s[0], s[1]], s[2])
                .velocity(&[s[3], s[4]], s[5])
                .mass(1.3)
                .inertia(0.4),
        )
        .unwrap();
    let b = sys
        .add_rigid_body(
            RigidBody::new(&[s[6], s[7]], s[8])
                .velocity(&[s[9], s[10]], s[11])
                .mass(0.7)
                .inertia(0.2),
        )
        .unwrap();
    sys.set_settings(Settings {
        feedback: Feedback::none(),
        ..Settings::default()
    })
    .unwrap();
    (sys, a, b)
}

/// World position of a body point, in dual numbers, from the body's coordinates [x, y, θ].
fn world(q: &[Scalar], local: [f64; 2]) -> [Scalar; 2] {
    let (s, c) = (q[2].sin(), q[2].cos());
    [
        q[0] + c * local[0] - s * local[1],
        q[1] + s * local[0] + c * local[1],
    ]
}

/// One row of C as a scalar function of the two bodies' coordinates, for [`compare_rows`].
type Row = Arc<dyn Fn(&[Scalar]) -> Scalar + Send + Sync>;

/// [`compare_rows`] for rows that capture nothing.
fn compare(
    state: &[f64],
    builtin: impl Fn(RigidBodyId, RigidBodyId) -> Box<dyn Constraint>,
    rows: &[fn(&[Scalar]) -> Scalar],
) -> Result<(), TestCaseError> {
    let rows: Vec<Row> = rows.iter().map(|&f| Arc::new(f) as Row).collect();
    compare_rows(state, builtin, &rows)
}

/// C, Ċ, J blocks and J̇q̇ of `builtin` agree with those of `rows`, each a scalar function of the
/// two bodies' coordinates [x_a, y_a, θ_a, x_b, y_b, θ_b].
fn compare_rows(
    state: &[f64],
    builtin: impl Fn(RigidBodyId, RigidBodyId) -> Box<dyn Constraint>,
    rows: &[Row],
) -> Result<(), TestCaseError> {
    let (mut sys, a, b) = two_bodies(state);
    let id = sys.add_constraint_boxed(builtin(a, b)).unwrap();
    let d = sys.diagnostics().unwrap();
    let report = d.constraint(id).unwrap();
    for (r, f) in rows.iter().enumerate() {
        let (mut other, a2, b2) = two_bodies(state);
        let f = Arc::clone(f);
        let custom = Custom::new(
            [
                Operand::Coordinates(a2.body()),
                Operand::Coordinates(b2.body()),
            ],
            move |x, _t| f(x),
        );
        let cid = other.add_constraint(custom).unwrap();
        let od = other.diagnostics().unwrap();
        let expected = od.constraint(cid).unwrap();
        let close = |p: f64, q: f64| (p - q).abs() <= 1e-9 * (1.0 + p.abs().max(q.abs()));
        prop_assert!(
            close(report.c[r], expected.c[0]),
            "C row {}: {} vs {}",
            r,
            report.c[r],
            expected.c[0]
        );
        prop_assert!(
            close(report.c_dot[r], expected.c_dot[0]),
            "Ċ row {}: {} vs {}",
            r,
            report.c_dot[r],
            expected.c_dot[0]
        );
        prop_assert!(
            close(report.jdot_qdot[r], expected.jdot_qdot[0]),
            "J̇q̇ row {}: {} vs {}",
            r,
            report.jdot_qdot[r],
            expected.jdot_qdot[0]
        );
        for (body, block) in &report.jacobian {
            let ncols = 3;
            let row = &block[r * ncols..(r + 1) * ncols];
            let theirs = expected
                .jacobian
                .iter()
                .find(|(bb, _)| bb.index() == body.index())
                .map(|(_, v)| v.clone())
                .unwrap_or(vec![0.0; 3]);
            for k in 0..3 {
                prop_assert!(
                    close(row[k], theirs[k]),
                    "J row {} body {:?}: {:?} vs {:?}",
                    r,
                    body,
                    row,
                    theirs
                );
            }
        }
    }
    Ok(())
}

fn states() -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(-2.0..2.0f64, 12)
}

const RA: [f64; 2] = [0.4, -0.1];
const RB: [f64; 2] = [-0.3, 0.2];

proptest! {
    #[test]
    fn revolute_matches_autodiff(s in states()) {
        compare(&s, |a, b| Box::new(Revolute::new(Point::on_body(a, RA), Point::on_body(b, RB))), &[
            |x| world(&x[..3], RA)[0] - world(&x[3..], RB)[0],
            |x| world(&x[..3], RA)[1] - world(&x[3..], RB)[1],
        ])?;
    }

    #[test]
    fn weld_matches_autodiff(s in states()) {
        compare(&s, |a, b| Box::new(Weld::new(Point::on_body(a, RA), Point::on_body(b, RB), 0.3)), &[
            |x| world(&x[..3], RA)[0] - world(&x[3..], RB)[0],
            |x| world(&x[..3], RA)[1] - world(&x[3..], RB)[1],
            |x| x[5] - x[2] - 0.3,
        ])?;
    }

    #[test]
    fn prismatic_matches_autodiff(s in states()) {
        // Axis (0.6, 0.8) in a's frame; its normal (−0.8, 0.6) turned into the world.
        compare(&s, |a, b| Box::new(Prismatic::new(Point::on_body(a, RA), Point::on_body(b, RB), [0.6, 0.8], -0.2)), &[
            |x| {
                let (s, c) = (x[2].sin(), x[2].cos());
                let n = [c * -0.8 - s * 0.6, s * -0.8 + c * 0.6];
                let (pa, pb) = (world(&x[..3], RA), world(&x[3..], RB));
                n[0] * (pb[0] - pa[0]) + n[1] * (pb[1] - pa[1])
            },
            |x| x[5] - x[2] + 0.2,
        ])?;
    }

    #[test]
    fn angle_matches_autodiff(s in states()) {
        compare(&s, |a, b| Box::new(Angle::new(a, b, 0.5)), &[|x| x[5] - x[2] - 0.5])?;
    }

    /// Gears external, internal either way round, and of opposite equal radii (Σ = 0, no φ), on
    /// moving and turning centres: C = r_a (θ_a − φ) + r_b (θ_b − φ) − c with φ = atan2 of
    /// p_b − p_a, the constant chosen so that C = −δ is inside the wrap (|C| < π|Σ|). Whole
    /// turns of the line of centres added to the built-in's constant change nothing: its C is
    /// the continuous one, whatever branch atan2 is on.
    #[test]
    fn gear_matches_autodiff(
        s in states(),
        pair in 0..4usize,
        delta in -0.1..0.1f64,
        turns in -3..=3i32,
    ) {
        let [ra, rb] = [[0.1, 0.25], [0.1, -0.3], [-0.4, 0.15], [0.2, -0.2]][pair];
        let sum = ra + rb;
        let (dx, dy) = (s[6] - s[0], s[7] - s[1]);
        prop_assume!(dx.hypot(dy) > 0.1);
        let c = ra * s[2] + rb * s[8] - sum * dy.atan2(dx) + delta;
        let row: Row = Arc::new(move |x: &[Scalar]| {
            let phi = (x[4] - x[1]).atan2(x[3] - x[0]);
            (x[2] - phi) * ra + (x[5] - phi) * rb - c
        });
        let shifted = c + f64::from(turns) * std::f64::consts::TAU * sum;
        compare_rows(&s, |a, b| Box::new(Gear::new(a, b, ra, rb).with_constant(shifted)), &[row])?;
    }

    /// Rack a turning and moving (θ_r, ω_r random), the pinion on either side, any axis in the
    /// rack's frame: C = û_w·(p_p − p_r) + s ρ (θ_p − θ_r) − c with û_w = R(θ_r) û.
    #[test]
    fn rack_and_pinion_matches_autodiff(
        s in states(),
        axis_angle in -3.2..3.2f64,
        length in 0.2..3.0f64,
        radius in 0.05..0.5f64,
        below in any::<bool>(),
        c in -1.0..1.0f64,
    ) {
        let axis = [length * axis_angle.cos(), length * axis_angle.sin()];
        let (side, sign) = if below { (PinionSide::Right, -1.0) } else { (PinionSide::Left, 1.0) };
        let row: Row = Arc::new(move |x: &[Scalar]| {
            let (sn, cs) = (x[2].sin(), x[2].cos());
            let u = [cs * axis_angle.cos() - sn * axis_angle.sin(), sn * axis_angle.cos() + cs * axis_angle.sin()];
            u[0] * (x[3] - x[0]) + u[1] * (x[4] - x[1]) + (x[5] - x[2]) * (sign * radius) - c
        });
        compare_rows(
            &s,
            |rack, pinion| Box::new(RackAndPinion::new(rack, pinion, axis, radius).with_side(side).with_constant(c)),
            &[row],
        )?;
    }

    /// A motor has no position (C ≡ 0); its row is the relative angle's: J = ∂(θ_b − θ_a)/∂q,
    /// J̇q̇ = 0, and Ċ is the speed error.
    #[test]
    fn motor_row_is_the_relative_angular_velocity(s in states(), speed in -5.0..5.0f64) {
        let (mut sys, a, b) = two_bodies(&s);
        let id = sys.add_constraint(Motor::new(a, b, speed)).unwrap();
        let d = sys.diagnostics().unwrap();
        let report = d.constraint(id).unwrap();
        prop_assert_eq!(report.c[0], 0.0);
        prop_assert_eq!(report.jdot_qdot[0], 0.0);
        prop_assert!((report.c_dot[0] - (s[11] - s[5] - speed)).abs() < 1e-12);
        prop_assert_eq!(&report.jacobian[0].1, &vec![0.0, 0.0, -1.0]);
        prop_assert_eq!(&report.jacobian[1].1, &vec![0.0, 0.0, 1.0]);
    }
}

/// A body point's world velocity equals the finite difference of its position.
#[test]
fn body_points_move_rigidly() {
    let mut sys = System::new(2).unwrap();
    let b = sys
        .add_rigid_body(RigidBody::new(&[0.3, -0.2], 0.7).velocity(&[1.0, 0.5], 2.0))
        .unwrap();
    let p = Point::on_body(b, [0.4, 0.1]);
    let x0 = sys.point_position(&p).unwrap();
    sys.step(1e-6).unwrap();
    let x1 = sys.point_position(&p).unwrap();
    // ẋ = v + ω × d
    let (s, c) = 0.7_f64.sin_cos();
    let d = [c * 0.4 - s * 0.1, s * 0.4 + c * 0.1];
    let v = [1.0 - 2.0 * d[1], 0.5 + 2.0 * d[0]];
    for i in 0..2 {
        assert!(((x1[i] - x0[i]) / 1e-6 - v[i]).abs() < 1e-5, "{i}");
    }
}

/// Time between upward zero crossings of `f`.
fn period(sys: &mut System, dt: f64, duration: f64, f: impl Fn(&System) -> f64) -> f64 {
    let mut crossings = Vec::new();
    let mut prev = f(sys);
    while sys.time() < duration {
        sys.step(dt).unwrap();
        let x = f(sys);
        if prev < 0.0 && x >= 0.0 {
            crossings.push(sys.time() - dt * x / (x - prev));
        }
        prev = x;
    }
    (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64
}

/// A uniform rod pivoted at one end: small-angle period 2π√(2L/(3g)).
#[test]
fn physical_pendulum_period() {
    let length = 0.9;
    let theta0 = 0.01_f64;
    let mut sys = System::new(2).unwrap();
    // Hanging from the origin, tilted by θ₀ from the downward vertical.
    let angle = -std::f64::consts::FRAC_PI_2 + theta0;
    let center = [0.5 * length * angle.cos(), 0.5 * length * angle.sin()];
    let rod = sys
        .add_rigid_body(RigidBody::new(&center, angle).shape(Shape::Rod { length }, 1.5))
        .unwrap();
    sys.add_force(Gravity::new(&[0.0, -G])).unwrap();
    sys.add_constraint(Nail::new(
        Point::on_body(rod, [-0.5 * length, 0.0]),
        &[0.0, 0.0],
    ))
    .unwrap();
    let expected = 2.0 * std::f64::consts::PI * (2.0 * length / (3.0 * G)).sqrt();
    let measured = period(&mut sys, 1e-3, 4.0 * expected, |s| s.coordinates(rod)[0]);
    assert!(
        (measured - expected).abs() / expected < 1e-4,
        "{measured} vs {expected}"
    );
}

/// A box sliding on a frictionless incline of angle α: s = ½ g sin α t², and the incline pushes
/// with m g cos α.
#[test]
fn body_slides_down_an_incline() {
    let alpha = 0.35_f64;
    let mut sys = System::new(2).unwrap();
    let (w, h) = (0.4, 0.2);
    let body = sys
        .add_rigid_body(RigidBody::new(&[0.0, 0.0], alpha).shape(
            Shape::Box {
                width: w,
                height: h,
            },
            10.0,
        ))
        .unwrap();
    let m = 10.0 * w * h;
    sys.add_force(Gravity::new(&[0.0, -G])).unwrap();
    let dir = [alpha.cos(), alpha.sin()];
    let rail = sys
        .add_constraint(OnLine::new(
            Point::on_body(body, [0.0, 0.0]),
            Motion::fixed(&[0.0, 0.0]),
            &dir,
        ))
        .unwrap();
    sys.add_constraint(Angle::to_world(body, alpha)).unwrap();
    for _ in 0..1000 {
        sys.step(1e-3).unwrap();
    }
    let s = -0.5 * G * alpha.sin();
    let q = sys.coordinates(body);
    assert!(
        (q[0] - s * dir[0]).abs() < 1e-9
            && (q[1] - s * dir[1]).abs() < 1e-9
            && (q[2] - alpha).abs() < 1e-12,
        "{q:?}"
    );
    let normal = sys.diagnostics().unwrap().constraint(rail).unwrap().lambda[0];
    assert!(
        (normal.abs() - m * G * alpha.cos()).abs() < 1e-9,
        "{normal}"
    );
}

/// A motor turns a crank; a connecting rod pushes a piston along the x axis. The piston follows
/// x(θ) = r cos θ + √(l² − r² sin² θ) over a full turn.
#[test]
fn crank_slider_kinematics() {
    let (r, l, omega) = (0.2, 0.6, 2.0 * std::f64::consts::PI);
    let mut sys = System::new(2).unwrap();
    let crank = sys
        .add_rigid_body(RigidBody::new(&[r / 2.0, 0.0], 0.0).shape(Shape::Rod { length: r }, 1.0))
        .unwrap();
    let rod = sys
        .add_rigid_body(
            RigidBody::new(&[r + l / 2.0, 0.0], 0.0).shape(Shape::Rod { length: l }, 1.0),
        )
        .unwrap();
    let piston = sys
        .add_rigid_body(RigidBody::new(&[r + l, 0.0], 0.0).shape(
            Shape::Box {
                width: 0.1,
                height: 0.06,
            },
            50.0,
        ))
        .unwrap();
    sys.add_force(Gravity::new(&[0.0, -G])).unwrap();
    sys.add_constraint(Nail::new(
        Point::on_body(crank, [-r / 2.0, 0.0]),
        &[0.0, 0.0],
    ))
    .unwrap();
    sys.add_constraint(Revolute::new(
        Point::on_body(crank, [r / 2.0, 0.0]),
        Point::on_body(rod, [-l / 2.0, 0.0]),
    ))
    .unwrap();
    sys.add_constraint(Revolute::new(
        Point::on_body(rod, [l / 2.0, 0.0]),
        Point::on_body(piston, [0.0, 0.0]),
    ))
    .unwrap();
    sys.add_constraint(OnLine::new(
        Point::on_body(piston, [0.0, 0.0]),
        Motion::fixed(&[0.0, 0.0]),
        &[1.0, 0.0],
    ))
    .unwrap();
    sys.add_constraint(Angle::to_world(piston, 0.0)).unwrap();
    // A motor with a torque limit spins up over a few dozen steps; an unlimited one would reach
    // its speed within one step, an impulse-like start after which the joints' drift of ~1e-5 m
    // takes Baumgarte's τ to decay.
    let motor = sys
        .add_constraint(Motor::to_world(crank, omega).max_torque(2.0))
        .unwrap();
    sys.set_solver(bead::solve::Dense::default());
    let mut worst: f64 = 0.0;
    let mut turned = 0.0;
    while turned < 2.0 * std::f64::consts::PI + 0.5 {
        sys.step(1e-3).unwrap();
        let theta = sys.coordinates(crank)[2];
        turned = theta;
        let expected = r * theta.cos() + (l * l - (r * theta.sin()).powi(2)).sqrt();
        worst = worst.max((sys.coordinates(piston)[0] - expected).abs());
    }
    assert!(
        worst < 1e-6,
        "piston off its kinematic position by {worst:e}"
    );
    // The motor reached its speed, and its torque is finite.
    let d = sys.diagnostics().unwrap();
    assert!((sys.coordinate_velocities(crank)[2] - omega).abs() < 1e-6);
    assert!(d.constraint(motor).unwrap().lambda[0].is_finite());
}

/// Two meshing gears, unpowered: r_a θ_a + r_b θ_b stays constant to 1e-9 and energy is kept.
#[test]
fn gears_keep_their_ratio_and_energy() {
    let (ra, rb) = (0.1, 0.25);
    let mut sys = System::new(2).unwrap();
    let a = sys
        .add_rigid_body(
            RigidBody::new(&[0.0, 0.0], 0.0)
                .shape(Shape::Disc { radius: ra }, 5.0)
                .velocity(&[0.0, 0.0], 3.0),
        )
        .unwrap();
    let b = sys
        .add_rigid_body(
            RigidBody::new(&[ra + rb, 0.0], 0.0)
                .shape(Shape::Disc { radius: rb }, 5.0)
                .velocity(&[0.0, 0.0], -3.0 * ra / rb),
        )
        .unwrap();
    sys.add_force(Gravity::new(&[0.0, -G])).unwrap();
    sys.add_constraint(Nail::new(Point::on_body(a, [0.0, 0.0]), &[0.0, 0.0]))
        .unwrap();
    sys.add_constraint(Nail::new(Point::on_body(b, [0.0, 0.0]), &[ra + rb, 0.0]))
        .unwrap();
    sys.add_constraint(Gear::meshing(&sys, a, b, ra, rb).unwrap())
        .unwrap();
    // An unbalanced torque on a: the gear passes it to b; energy includes its potential −τθ.
    sys.add_force(Torque::new(a, 0.05)).unwrap();
    let e0 = sys.diagnostics().unwrap().total_energy();
    for _ in 0..3000 {
        sys.step(1e-3).unwrap();
        let c = ra * sys.coordinates(a)[2] + rb * sys.coordinates(b)[2];
        assert!(c.abs() < 1e-9, "{c:e}");
    }
    let e = sys.diagnostics().unwrap().total_energy();
    assert!((e - e0).abs() < 1e-8 * e0.abs().max(1.0), "{e} vs {e0}");
}

/// A pinion on top of a rack drives it along x: turning counter-clockwise, its lowest tooth moves
/// towards +x and takes the rack with it, so x_rack − r θ_pinion stays constant (to 1e-9), and
/// energy is kept.
#[test]
fn rack_and_pinion_keep_their_relation_and_energy() {
    let r = 0.15;
    let mut sys = System::new(2).unwrap();
    let pinion = sys
        .add_rigid_body(
            RigidBody::new(&[0.0, r], 0.0)
                .shape(Shape::Disc { radius: r }, 4.0)
                .velocity(&[0.0, 0.0], 2.0),
        )
        .unwrap();
    let rack = sys
        .add_rigid_body(
            RigidBody::new(&[0.0, -0.05], 0.0)
                .shape(
                    Shape::Box {
                        width: 1.0,
                        height: 0.1,
                    },
                    4.0,
                )
                .velocity(&[2.0 * r, 0.0], 0.0),
        )
        .unwrap();
    sys.add_force(Gravity::new(&[0.0, -G])).unwrap();
    sys.add_constraint(Nail::new(Point::on_body(pinion, [0.0, 0.0]), &[0.0, r]))
        .unwrap();
    sys.add_constraint(OnLine::new(
        Point::on_body(rack, [0.0, 0.0]),
        Motion::fixed(&[0.0, -0.05]),
        &[1.0, 0.0],
    ))
    .unwrap();
    sys.add_constraint(Angle::to_world(rack, 0.0)).unwrap();
    sys.add_constraint(RackAndPinion::meshing(&sys, rack, pinion, [1.0, 0.0], r).unwrap())
        .unwrap();
    sys.add_force(Torque::new(pinion, -0.2)).unwrap();
    let e0 = sys.diagnostics().unwrap().total_energy();
    for _ in 0..2000 {
        sys.step(1e-3).unwrap();
        let c = sys.coordinates(rack)[0] - r * sys.coordinates(pinion)[2];
        assert!(c.abs() < 1e-9, "{c:e}");
    }
    let e = sys.diagnostics().unwrap().total_energy();
    assert!((e - e0).abs() < 1e-8 * e0.abs().max(1.0), "{e} vs {e0}");
}

/// A motor holds its speed against a load torque; in steady state its torque equals the load.
#[test]
fn motor_holds_speed_under_load() {
    let mut sys = System::new(2).unwrap();
    let wheel = sys
        .add_rigid_body(RigidBody::new(&[0.0, 0.0], 0.0).shape(Shape::Disc { radius: 0.2 }, 10.0))
        .unwrap();
    sys.add_constraint(Nail::new(Point::on_body(wheel, [0.0, 0.0]), &[0.0, 0.0]))
        .unwrap();
    let load = -1.7;
    sys.add_force(Torque::new(wheel, load)).unwrap();
    let motor = sys.add_constraint(Motor::to_world(wheel, 4.0)).unwrap();
    for _ in 0..2000 {
        sys.step(1e-3).unwrap();
    }
    let d = sys.diagnostics().unwrap();
    assert!((sys.coordinate_velocities(wheel)[2] - 4.0).abs() < 1e-9);
    let torque = d.constraint(motor).unwrap().lambda[0];
    assert!(
        (torque + load).abs() < 1e-9,
        "motor torque {torque}, load {load}"
    );
}

/// Springs attached to body points: a bar hung from two damped springs at its ends settles where
/// the springs carry its weight and it hangs level (equal springs, symmetric).
#[test]
fn springs_between_body_points_carry_a_bar() {
    use bead::force::Spring;
    let (k, length) = (200.0, 1.0);
    let mut sys = System::new(2).unwrap();
    let bar = sys
        .add_rigid_body(RigidBody::new(&[0.0, -0.5], 0.05).shape(Shape::Rod { length }, 2.0))
        .unwrap();
    let m = 2.0 * length;
    let left = sys
        .add_particle(bead::Particle::anchor(&[-0.5, 0.0]))
        .unwrap();
    let right = sys
        .add_particle(bead::Particle::anchor(&[0.5, 0.0]))
        .unwrap();
    sys.add_force(Gravity::new(&[0.0, -G])).unwrap();
    sys.add_force(Spring::new(
        left,
        Point::on_body(bar, [-0.5, 0.0]),
        k,
        5.0,
        0.4,
    ))
    .unwrap();
    sys.add_force(Spring::new(
        right,
        Point::on_body(bar, [0.5, 0.0]),
        k,
        5.0,
        0.4,
    ))
    .unwrap();
    for _ in 0..20_000 {
        sys.step(1e-3).unwrap();
    }
    let q = sys.coordinates(bar);
    // Each spring carries m g / 2: stretch m g / (2k) beyond its rest length, hanging straight down.
    let expected_y = -(0.4 + m * G / (2.0 * k));
    // The sideways swing is damped only weakly (the dampers act along the springs), so x is
    // looser.
    assert!(
        (q[1] - expected_y).abs() < 1e-6 && q[2].abs() < 1e-6 && q[0].abs() < 1e-4,
        "{q:?} vs y = {expected_y}"
    );
}
