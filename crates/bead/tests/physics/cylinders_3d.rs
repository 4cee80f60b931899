//! Cylinders in contact (issue 33): a cylinder rolling down a slope at (2/3) g sin α on its
//! rims' lowest points, a can standing on four points of its rim, tipping over on an incline
//! exactly where statics says, coins stacked, and momentum kept when cylinders collide.

use bead::contact::ShapeContacts;
use bead::force::Gravity;
use bead::{RigidBody3d, RigidBody3dId, Shape3d, System};

const G: f64 = 9.81;

/// A 3D system under `integrator` with gravity `gravity`, a fixed floor whose top face is z = 0,
/// and `bodies` on it, all in one contact group of coefficient `mu`.
fn on_floor(
    integrator: &str,
    gravity: [f64; 3],
    bodies: Vec<RigidBody3d>,
    mu: f64,
) -> (System, Vec<RigidBody3dId>) {
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
    let mut group = ShapeContacts::new().body(floor, mu);
    let mut ids = Vec::new();
    for body in bodies {
        let id = sys.add_rigid_body_3d(body).unwrap();
        group = group.body(id, mu);
        ids.push(id);
    }
    sys.add_force(Gravity::new(&gravity)).unwrap();
    sys.add_shape_contacts(group).unwrap();
    (sys, ids)
}

/// Gravity on a slope of angle `alpha` falling along x.
fn slope(alpha: f64) -> [f64; 3] {
    [G * alpha.sin(), 0.0, -G * alpha.cos()]
}

/// Runs `steps` of `dt`, panicking with the time on failure.
fn run(sys: &mut System, steps: usize, dt: f64, what: &str) {
    for _ in 0..steps {
        sys.step(dt)
            .unwrap_or_else(|e| panic!("{what} at t = {}: {e}", sys.time()));
    }
}

/// A quarter turn about x: the cylinder's axis along y, lying on its side.
const LYING: [f64; 4] = [
    std::f64::consts::FRAC_1_SQRT_2,
    -std::f64::consts::FRAC_1_SQRT_2,
    0.0,
    0.0,
];

/// How far a cylinder lying across a slope rolls in `t` s at steps of `dt`, and the slip of
/// its contact along the slope.
fn rolled(name: &str, alpha: f64, t: f64, dt: f64) -> (f64, f64) {
    let r = 0.1;
    let log = RigidBody3d::new([0.0, 0.0, r]).orientation(LYING).shape(
        Shape3d::Cylinder {
            radius: r,
            length: 0.3,
        },
        500.0,
    );
    let (mut sys, ids) = on_floor(name, slope(alpha), vec![log], 0.5);
    let what = format!("{name}, dt = {dt}");
    run(&mut sys, (t / dt).round() as usize, dt, &what);
    let q = sys.coordinates(ids[0].body()).to_vec();
    let v = sys.coordinate_velocities(ids[0].body()).to_vec();
    let omega = sys.angular_velocity(ids[0]);
    assert!(
        (q[2] - r).abs() < 1e-9,
        "{what}: its axis is {} m off the floor",
        q[2] - r
    );
    // The contact's velocity v + ω × (−r ẑ), along the slope.
    (q[0], v[0] - omega[1] * r)
}

/// A solid cylinder rolls down a slope at (2/3) g sin α without slipping, on its two rims'
/// lowest points, which run round the rims as it rolls ([`bead::constraint::Gap3d::Circle`]).
/// Its distance converges to the closed form at each stepper's order as dt halves: implicit
/// Euler's error halves, BDF2's and RK4's quarter (RK4 is second order here, its friction rows
/// holding the points that touched at the step's start); the slip quarters.
#[test]
fn a_cylinder_rolls_down_a_slope_at_two_thirds_g_sin_alpha_at_each_steppers_order() {
    let (alpha, t) = (0.3_f64, 0.5);
    let expected = 0.5 * 2.0 / 3.0 * G * alpha.sin() * t * t;
    for (name, order) in [("implicit-euler", 1.0), ("bdf2", 2.0), ("rk4", 2.0)] {
        let runs: Vec<(f64, f64)> = [2e-3, 1e-3, 5e-4]
            .iter()
            .map(|&dt| rolled(name, alpha, t, dt))
            .collect();
        let errors: Vec<f64> = runs.iter().map(|r| (r.0 - expected).abs()).collect();
        for k in 1..3 {
            let ratio = errors[k - 1] / errors[k];
            assert!(
                (ratio.log2() - order).abs() < 0.15,
                "{name}: the error falls by {ratio} as dt halves, not 2^{order}"
            );
            let slips = runs[k - 1].1.abs() / runs[k].1.abs();
            assert!(
                (slips.log2() - 2.0).abs() < 0.15,
                "{name}: the slip falls by {slips} as dt halves"
            );
        }
        assert!(
            errors[2] < 1e-3 * expected,
            "{name}: rolls {} m, not {expected} m",
            runs[2].0
        );
    }
}

/// A can of radius `r` and length `l` standing on a slope of `ratio` times its tipping angle
/// (tan α = 2r/l), turned `turn` about its axis: its tilt and slide after `t` s.
fn on_incline(name: &str, ratio: f64, turn: f64, t: f64, dt: f64) -> (f64, f64) {
    let (r, l) = (0.05, 0.2);
    let alpha = (ratio * 2.0 * r / l).atan();
    let can = RigidBody3d::new([0.0, 0.0, l / 2.0])
        .orientation([(turn / 2.0).cos(), 0.0, 0.0, (turn / 2.0).sin()])
        .shape(
            Shape3d::Cylinder {
                radius: r,
                length: l,
            },
            500.0,
        );
    let (mut sys, ids) = on_floor(name, slope(alpha), vec![can], 0.9);
    let what = format!("{name}, {ratio} of the tipping angle, turned {turn}");
    run(&mut sys, (t / dt).round() as usize, dt, &what);
    let q = sys.coordinates(ids[0].body()).to_vec();
    let o = sys.orientation(ids[0]);
    // The axis's tilt from the floor's normal.
    let tilt = 2.0 * o[1].hypot(o[2]).asin();
    (tilt, q[0].hypot(q[1]))
}

/// A can standing on a slope, with friction enough not to slide, stays put below the angle
/// where its centre of mass passes over its rim, tan α = 2r/l, and tips over above it — in
/// whichever direction the slope falls across the can. Its flat rim stands on four of its
/// points, turned to where its pressure leans: fixed in the can, they would tip it 29 % early
/// between them.
#[test]
fn a_can_on_a_slope_stands_below_its_tipping_angle_and_tips_over_above_it_in_any_direction() {
    for name in ["bdf2", "rk4"] {
        for turn in [0.0, 0.4, std::f64::consts::FRAC_PI_4] {
            let (tilt, slide) = on_incline(name, 0.97, turn, 1.0, 1e-3);
            assert!(
                tilt < 1e-9 && slide < 1e-9,
                "{name}, turned {turn}: tilts {tilt} rad and slides {slide} m at 0.97 of the angle"
            );
            let (tilt, _) = on_incline(name, 1.03, turn, 1.0, 1e-3);
            assert!(
                tilt > 1.0,
                "{name}, turned {turn}: tilts only {tilt} rad at 1.03 of the angle"
            );
        }
    }
}

/// Five coins stacked, each set 1 mm off the one below and turned about its axis, or all on one
/// axis, stand under every integrator, and the floor carries their weight. Set off, each coin
/// rests on the part of its rim that the coin below holds: its points are moved along the rim
/// to where the two rims cross. On one axis, each rim lies on the other's to rounding.
#[test]
fn coins_stacked_on_and_off_their_axes_stand_and_the_floor_carries_their_weight() {
    let (r, h, density) = (0.1, 0.02, 8000.0);
    let mass = density * std::f64::consts::PI * r * r * h;
    for name in ["implicit-euler", "bdf2", "rk4", "symplectic-euler"] {
        // Set off and turned, and on one axis, where each rim lies on the other's to rounding.
        for (offset, turning) in [(0.001, 0.37), (0.0, 0.0)] {
            let coins: Vec<RigidBody3d> = (0..5)
                .map(|k| {
                    let turn = turning * k as f64;
                    RigidBody3d::new([offset * k as f64, 0.0, h / 2.0 + h * k as f64])
                        .orientation([(turn / 2.0).cos(), 0.0, 0.0, (turn / 2.0).sin()])
                        .shape(
                            Shape3d::Cylinder {
                                radius: r,
                                length: h,
                            },
                            density,
                        )
                })
                .collect();
            let (mut sys, ids) = on_floor(name, slope(0.0), coins, 0.5);
            let start: Vec<Vec<f64>> = ids
                .iter()
                .map(|b| sys.coordinates(b.body()).to_vec())
                .collect();
            run(&mut sys, 1000, 1e-3, name);
            for (b, s0) in ids.iter().zip(&start) {
                let q = sys.coordinates(b.body());
                let moved = (0..q.len())
                    .map(|k| (q[k] - s0[k]).abs())
                    .fold(0.0, f64::max);
                assert!(moved < 1e-9, "{name}: a coin moved {moved}");
            }
            let report = sys.diagnostics().unwrap();
            let floor: f64 = (report.constraints.iter())
                .filter(|c| c.name.contains("member 0"))
                .map(|c| c.lambda[0])
                .sum();
            assert!(
                (floor - 5.0 * mass * G).abs() < 1e-9 * mass * G,
                "{name}: the floor carries {floor} N, not {} N",
                5.0 * mass * G
            );
        }
    }
}

/// Two cylinders thrown at each other in empty space, one lying, one tumbling: their momentum
/// is kept through the collision to rounding, and with restitution 0 their energy never grows.
#[test]
fn cylinders_colliding_keep_their_momentum_and_never_gain_energy() {
    let (ma, mb) = (
        500.0 * std::f64::consts::PI * 0.01 * 0.3,
        700.0 * std::f64::consts::PI * 0.0064 * 0.2,
    );
    for name in ["implicit-euler", "bdf2", "rk4"] {
        let mut sys = System::new(3).unwrap();
        sys.set_integrator_boxed(bead::integrate::by_name(name).unwrap());
        let a = sys
            .add_rigid_body_3d(
                RigidBody3d::new([0.0, 0.0, 0.0])
                    .orientation(LYING)
                    .velocity([1.0, 0.0, 0.0])
                    .shape(
                        Shape3d::Cylinder {
                            radius: 0.1,
                            length: 0.3,
                        },
                        500.0,
                    ),
            )
            .unwrap();
        let b = sys
            .add_rigid_body_3d(
                RigidBody3d::new([0.35, 0.05, 0.02])
                    .orientation([0.9, 0.1, 0.3, 0.2])
                    .velocity([-0.5, 0.1, 0.0])
                    .shape(
                        Shape3d::Cylinder {
                            radius: 0.08,
                            length: 0.2,
                        },
                        700.0,
                    ),
            )
            .unwrap();
        sys.add_shape_contacts(ShapeContacts::new().body(a, 0.3).body(b, 0.3))
            .unwrap();
        let momentum = |sys: &System| {
            let (va, vb) = (
                sys.coordinate_velocities(a.body()).to_vec(),
                sys.coordinate_velocities(b.body()).to_vec(),
            );
            [0, 1, 2].map(|k| ma * va[k] + mb * vb[k])
        };
        let p0 = momentum(&sys);
        let mut energy = sys.diagnostics().unwrap().total_energy();
        let mut touched = false;
        for _ in 0..600 {
            sys.step(1e-3).unwrap_or_else(|e| panic!("{name}: {e}"));
            let report = sys.diagnostics().unwrap();
            touched |= report.constraints.iter().any(|c| c.lambda[0] != 0.0);
            let now = report.total_energy();
            assert!(
                now <= energy * (1.0 + 1e-9),
                "{name}: the energy grew from {energy} J to {now} J at t = {}",
                sys.time()
            );
            energy = now;
        }
        assert!(touched, "{name}: they never met");
        let p1 = momentum(&sys);
        for k in 0..3 {
            assert!(
                (p1[k] - p0[k]).abs() < 1e-12 * (ma + mb),
                "{name}: momentum {p0:?} became {p1:?}"
            );
        }
    }
}
