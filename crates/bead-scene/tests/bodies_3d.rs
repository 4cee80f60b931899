//! 3D rigid bodies read from scene files: their output columns, a joint's reactions against
//! statics, the gyroscope scene's precession against its closed form, and errors that name the
//! field.

#![allow(clippy::unwrap_used)]
// SceneError is returned by value once per failed load, as in the library.
#![allow(clippy::result_large_err)]

use std::path::Path;

use bead_scene::record::{constraints_header, constraints_row, trajectory_header, trajectory_row};
mod common;

use bead_scene::Scene;
use common::{error, model};

const HEADER: &str = "format = 1\n[simulation]\ndimension = 3\ndt = 0.001\nduration = 1\n";

/// Two boxes hanging from a nail on a spherical joint, at rest.
fn hanging() -> String {
    format!(
        "{HEADER}integrator = \"implicit-euler\"\n\
         [[bodies]]\nname = \"upper\"\nposition = [0, 0, -0.1]\nmass = 2.0\ninertia = [0.01, 0.01, 0.002]\n\
         [[bodies]]\nname = \"lower\"\nposition = [0, 0, -0.3]\n\
         shape = {{ kind = \"box\", size = [0.05, 0.05, 0.2] }}\ndensity = 1000\n\
         [[forces]]\nkind = \"gravity\"\ng = [0, 0, -9.81]\n\
         [[constraints]]\nkind = \"nail\"\npoint = {{ body = \"upper\", local = [0, 0, 0.1] }}\nat = [0, 0, 0]\nname = \"top\"\n\
         [[constraints]]\nkind = \"spherical\"\n\
         between = [{{ body = \"upper\", local = [0, 0, -0.1] }}, {{ body = \"lower\", local = [0, 0, 0.1] }}]\nname = \"ball\"\n"
    )
}

/// The columns DESIGN's contract names: position, quaternion, velocity and world angular
/// velocity per body; force and torque on each body per joint.
#[test]
fn a_3d_body_writes_its_contract_columns() {
    let m = model(&hanging());
    let header = trajectory_header(&m);
    let expected: Vec<String> = [
        "x", "y", "z", "qw", "qx", "qy", "qz", "vx", "vy", "vz", "wx", "wy", "wz",
    ]
    .iter()
    .map(|c| format!("upper.{c}"))
    .collect();
    assert_eq!(header[1..14], expected[..]);
    let row = trajectory_row(&m).unwrap();
    assert_eq!(row.len(), header.len());
    // Identity orientation by default.
    assert_eq!(row[4..8], [1.0, 0.0, 0.0, 0.0]);
    let columns = constraints_header(&m);
    for c in ["fx", "fy", "fz", "tx", "ty", "tz"] {
        assert!(columns.contains(&format!("ball.lower.{c}")), "{columns:?}");
        assert!(columns.contains(&format!("top.upper.{c}")));
    }
}

/// At rest, the nail holds up both boxes and the ball joint the lower one: the reactions in
/// `constraints.csv` are the weights, with no torque about the centres the forces pass through.
#[test]
fn joint_reactions_are_the_weights_they_carry() {
    let mut m = model(&hanging());
    for k in 1..=5 {
        m.system.step_to(k as f64 * 1e-3).unwrap();
    }
    let lower = 1000.0 * 0.05 * 0.05 * 0.2;
    let diagnostics = m.system.diagnostics().unwrap();
    let header = constraints_header(&m);
    let row = constraints_row(&m, &diagnostics);
    let at = |name: &str| row[header.iter().position(|h| h == name).unwrap()];
    let g = 9.81;
    assert!((at("top.upper.fz") - (2.0 + lower) * g).abs() < 1e-6);
    assert!((at("ball.upper.fz") + lower * g).abs() < 1e-6);
    assert!((at("ball.lower.fz") - lower * g).abs() < 1e-6);
    for body in ["upper", "lower"] {
        for t in ["tx", "ty", "tz"] {
            assert!(at(&format!("ball.{body}.{t}")).abs() < 1e-9);
        }
    }
}

/// The gyroscope scene precesses at `m g l / (I₃ ω₃)` (to its fast-top error), and its pivot
/// holds.
#[test]
fn the_gyroscope_scene_precesses_at_its_rate() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes/gyroscope.toml");
    let mut m = Scene::load(&path).and_then(|s| s.build()).unwrap();
    let rotor = m.bodies_3d[0].1;
    let (r, len, rho, l, spin) = (0.05_f64, 0.02, 7800.0, 0.1, 1000.0);
    let mass = rho * std::f64::consts::PI * r * r * len;
    let expected = mass * 9.81 * l / (0.5 * mass * r * r * spin);
    let dt = m.run.dt;
    let (mut turned, mut last) = (0.0, 0.0_f64);
    let steps = (2.0 / dt).round() as usize;
    for k in 1..=steps {
        m.system.step_to(k as f64 * dt).unwrap();
        let x = m.system.coordinates(rotor);
        let azimuth = x[1].atan2(x[0]);
        turned += azimuth - last;
        last = azimuth;
    }
    let rate = turned / 2.0;
    assert!(
        (rate - expected).abs() / expected < 5e-3,
        "{rate} vs {expected}"
    );
    assert!(m.system.constraint_error().unwrap().0 < 1e-6);
}

/// Bad 3D bodies are errors naming the field.
#[test]
fn bad_3d_bodies_name_the_field() {
    let body = |fields: &str| {
        format!("{HEADER}[[bodies]]\nname = \"b\"\nposition = [0, 0, 0]\n{fields}\n")
    };
    let cases = [
        (
            "mass = 1\ninertia = [1, 1, 1]\norientation = [0, 0, 0, 0]",
            "zero length",
        ),
        ("mass = 1\ninertia = [1, -1, 1]", "positive definite"),
        (
            "mass = 1\ninertia = [[1, 0.5, 0], [0, 1, 0], [0, 0, 1]]",
            "symmetric",
        ),
        ("mass = 1\ninertia = 2.0", "three principal moments"),
        ("mass = 1", "missing"),
        (
            "shape = { kind = \"box\", width = 1, height = 2 }\ndensity = 1",
            "size",
        ),
        (
            "shape = { kind = \"disc\", radius = 1 }\ndensity = 1",
            "2D shapes",
        ),
        (
            "shape = { kind = \"sphere\", radius = 0 }\ndensity = 1",
            "radius",
        ),
        // A fixed body has no finite inertia, and a density makes the mass itself.
        (
            "mass = \"infinity\"\ninertia = [1, 1, 1]",
            "no finite inertia",
        ),
        (
            "mass = 1\ninertia = [1, 1, 1]\nshape = { kind = \"sphere\", radius = 0.1 }\ndensity = 1",
            "given with mass",
        ),
        // Its mass would overflow to infinity: an immovable body, silently.
        (
            "shape = { kind = \"box\", size = [1e308, 1, 1] }\ndensity = 300",
            "too large or too small",
        ),
        (
            "mass = 1\ninertia = [1, 1, 1]\nangular_velocity = 3.0",
            "vector",
        ),
        ("mass = 1\ninertia = [1, 1, 1]\nangle = 0.5", "orientation"),
    ];
    for (fields, says) in cases {
        let e = error(&body(fields));
        let text = e.to_string();
        assert!(text.contains("bodies[0]"), "{fields}: {text}");
        assert!(text.contains(says), "{fields}: expected '{says}' in {text}");
    }
    // A 2D point on a 3D body, and a spherical joint in 2D.
    let e = error(&format!(
        "{}[[constraints]]\nkind = \"nail\"\npoint = {{ body = \"b\", local = [0, 0] }}\nat = [0, 0, 0]\n",
        body("mass = 1\ninertia = [1, 1, 1]")
    ));
    assert!(e.to_string().contains("three coordinates"), "{e}");
    let e = error(
        "format = 1\n[simulation]\ndimension = 2\ndt = 0.01\nduration = 1\n\
         [[particles]]\nname = \"a\"\nposition = [0, 0]\n[[particles]]\nname = \"c\"\nposition = [1, 0]\n\
         [[constraints]]\nkind = \"spherical\"\nbetween = [\"a\", \"c\"]\n",
    );
    assert!(e.to_string().contains("3D"), "{e}");
}

/// The Cardan joint scene (four hinges from `revolute` with `axis`) turns its output as the
/// joint's kinematics say, `tan φ_out = tan φ_in / cos β`, and conserves energy.
#[test]
fn the_cardan_scene_follows_its_kinematics() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes/cardan_joint.toml");
    let mut m = Scene::load(&path).and_then(|s| s.build()).unwrap();
    let (input, output) = (m.bodies_3d[1].1, m.bodies_3d[2].1);
    let beta = 0.5_f64;
    let rotate = |q: [f64; 4], v: [f64; 3]| {
        let u = [q[1], q[2], q[3]];
        let cross = |a: [f64; 3], b: [f64; 3]| {
            [
                a[1] * b[2] - a[2] * b[1],
                a[2] * b[0] - a[0] * b[2],
                a[0] * b[1] - a[1] * b[0],
            ]
        };
        let t = cross(u, v).map(|x| 2.0 * x);
        let ut = cross(u, t);
        [0, 1, 2].map(|i| v[i] + q[0] * t[i] + ut[i])
    };
    let e0 = m.system.diagnostics().unwrap().total_energy();
    let dt = m.run.dt;
    let mut worst = 0.0_f64;
    for k in 1..=1000 {
        m.system.step_to(k as f64 * dt).unwrap();
        // The shafts' lengths are their body z. The input's fork is its body y (the world's y
        // at the start), turning about x from y toward z; the output's fork is its body −x (the
        // world's z at the start), turning about the bent axis from z toward −p, p the bend's
        // direction across the output in the shafts' plane.
        let fork_in = rotate(m.system.orientation(input), [0.0, 1.0, 0.0]);
        let fork_out = rotate(m.system.orientation(output), [-1.0, 0.0, 0.0]);
        let phi_in = fork_in[2].atan2(fork_in[1]);
        let p = [-beta.sin(), beta.cos(), 0.0];
        let phi_out = (-(fork_out[0] * p[0] + fork_out[1] * p[1])).atan2(fork_out[2]);
        let expected = phi_in.sin().atan2(phi_in.cos() * beta.cos());
        worst = worst.max((phi_out - expected).sin().abs());
    }
    let e = m.system.diagnostics().unwrap().total_energy();
    assert!(worst < 1e-8, "angle error {worst:e}");
    assert!((e - e0).abs() < 1e-8 * e0, "{e0} → {e}");
}

/// A revolute joint in 3D needs its axis, and a 2D one has none.
#[test]
fn a_revolute_joint_has_an_axis_in_3d_only() {
    let bodies = format!(
        "{HEADER}[[bodies]]\nname = \"a\"\nposition = [0, 0, 0]\nmass = 1\ninertia = [1, 1, 1]\n\
         [[bodies]]\nname = \"b\"\nposition = [1, 0, 0]\nmass = 1\ninertia = [1, 1, 1]\n"
    );
    let e = error(&format!(
        "{bodies}[[constraints]]\nkind = \"revolute\"\nbetween = [{{ body = \"a\", local = [0.5, 0, 0] }}, {{ body = \"b\", local = [-0.5, 0, 0] }}]\n"
    ));
    assert!(
        e.to_string().contains("constraints[0].axis") && e.to_string().contains("spherical"),
        "{e}"
    );
    let e = error(&format!(
        "{bodies}[[constraints]]\nkind = \"revolute\"\nbetween = [{{ body = \"a\", local = [0.5, 0, 0] }}, {{ body = \"b\", local = [-0.5, 0, 0] }}]\naxis = [0, 0, 0]\n"
    ));
    assert!(e.to_string().contains("nonzero"), "{e}");
    let e = error(
        "format = 1\n[simulation]\ndimension = 2\ndt = 0.01\nduration = 1\n\
         [[particles]]\nname = \"a\"\nposition = [0, 0]\n[[particles]]\nname = \"c\"\nposition = [0, 0]\n\
         [[constraints]]\nkind = \"revolute\"\nbetween = [\"a\", \"c\"]\naxis = [0, 0, 1]\n",
    );
    assert!(e.to_string().contains("no axis"), "{e}");
}

/// The robot arm scene: its motors reach their speeds (the turret's after its torque limit let
/// it spin up), and at the start the shoulder's motor holds the arm's weight about the shoulder,
/// `g Σ m x`, by hand statics.
#[test]
fn the_robot_arms_motors_drive_and_hold_it() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes/robot_arm.toml");
    let mut m = Scene::load(&path).and_then(|s| s.build()).unwrap();
    let dt = m.run.dt;
    for k in 1..=5 {
        m.system.step_to(k as f64 * dt).unwrap();
    }
    let header = constraints_header(&m);
    let diagnostics = m.system.diagnostics().unwrap();
    let row = constraints_row(&m, &diagnostics);
    let at = |name: &str| row[header.iter().position(|h| h == name).unwrap()];
    // Upper arm 0.5 × 0.06 × 0.06 m and forearm 0.4 × 0.05 × 0.05 m of aluminium, their centres
    // 0.25 m and 0.7 m out from the shoulder.
    let weight_moment = 9.81 * 2700.0 * (0.5 * 0.06 * 0.06 * 0.25 + 0.4 * 0.05 * 0.05 * 0.7);
    let shoulder = at("shoulder_motor.lambda");
    assert!(
        (shoulder + weight_moment).abs() < 1e-3 * weight_moment,
        "{shoulder} vs {weight_moment}"
    );
    assert_eq!(
        at("yaw_motor.lambda"),
        20.0,
        "the turret spins up at its limit"
    );
    for k in 6..=200 {
        m.system.step_to(k as f64 * dt).unwrap();
    }
    let turret = m.bodies_3d[1].1;
    assert!((m.system.angular_velocity(turret)[2] - 0.8).abs() < 1e-9);
    assert!(m.system.constraint_error().unwrap().0 < 1e-10);
}

/// A floor (fixed, given as 2D scenes give it: mass and inertia "infinity"), a cube and a
/// capsule lying on it, and a ball, in one contact group.
fn resting() -> String {
    format!(
        "{HEADER}integrator = \"implicit-euler\"\n\
         [[bodies]]\nname = \"floor\"\nposition = [0, 0, -0.5]\nmass = \"infinity\"\ninertia = \"infinity\"\n\
         shape = {{ kind = \"box\", size = [4, 4, 1] }}\n\
         [[bodies]]\nname = \"cube\"\nposition = [0, 0, 0.1]\n\
         shape = {{ kind = \"box\", size = [0.2, 0.2, 0.2] }}\ndensity = 500\n\
         [[bodies]]\nname = \"log\"\nposition = [0.5, 0, 0.05]\norientation = [0.7071067811865476, 0, 0.7071067811865476, 0]\n\
         shape = {{ kind = \"capsule\", radius = 0.05, length = 0.4 }}\ndensity = 500\n\
         [[bodies]]\nname = \"ball\"\nposition = [-0.5, 0, 0.1]\n\
         shape = {{ kind = \"sphere\", radius = 0.1 }}\ndensity = 500\n\
         [[forces]]\nkind = \"gravity\"\ng = [0, 0, -9.81]\n\
         [[contacts]]\nname = \"ground\"\nbodies = \"all\"\n"
    )
}

#[test]
fn shapes_in_a_3d_contact_group_rest_on_the_floor_with_their_weight() {
    let mut m = model(&resting());
    let masses: f64 = m
        .bodies_3d
        .iter()
        .filter(|(name, _)| name != "floor")
        .map(|(_, id)| m.system.mass(id.body()).unwrap())
        .sum();
    for _ in 0..200 {
        m.system.step(1e-3).unwrap();
    }
    let header = constraints_header(&m);
    let d = m.system.diagnostics().unwrap();
    let row = constraints_row(&m, &d);
    let column = |name: &str| row[header.iter().position(|h| h == name).unwrap()];
    // The cube's four corners, the log's two ends and the ball: three bodies touching.
    assert_eq!(column("ground.contacts"), 3.0);
    assert!((column("ground.normal_force") - masses * 9.81).abs() < 1e-8 * masses * 9.81);
    assert!(column("ground.max_penetration") < 1e-9);
    assert_eq!(d.constraints.len(), 4 + 2 + 1);
}

/// Friction between 3D shapes on a slope of tan α = 0.4 with μ = 0.5: the cube and the log
/// (lying down the slope) stick, the ball rolls, so the group's friction force is the weight's
/// share along the slope of the first two and (2/7) of the ball's (to the first-order
/// stepper's error on the ball's spin-up, dt = 1 ms), under the implicit steppers and the
/// explicit integrators alike. The explicit integrators reach the ball's share at first order
/// only (their friction rows hold the points that touched at the step's start, which the ball
/// turns away; `friction_3d` in the engine's physics tests measures it): 2.5e-4 of the whole
/// here under RK4, 5.4e-4 under symplectic Euler.
#[test]
fn friction_between_3d_shapes_holds_on_a_slope_under_every_stepper() {
    let alpha = 0.4_f64.atan();
    let g = [9.81 * alpha.sin(), 0.0, -9.81 * alpha.cos()];
    let text = resting()
        .replace(
            "[[contacts]]\nname = \"ground\"\n",
            "[[contacts]]\nname = \"ground\"\nfriction = 0.5\n",
        )
        .replace("g = [0, 0, -9.81]", &format!("g = [{}, 0, {}]", g[0], g[2]));
    for integrator in ["implicit-euler", "bdf2", "rk4", "symplectic-euler"] {
        let mut m = model(&text.replace("implicit-euler", integrator));
        let mass = |name: &str| {
            let id = m.bodies_3d.iter().find(|(n, _)| n == name).unwrap().1;
            m.system.mass(id.body()).unwrap()
        };
        let expected = (mass("cube") + mass("log") + 2.0 / 7.0 * mass("ball")) * g[0];
        for _ in 0..200 {
            m.system.step(1e-3).unwrap();
        }
        let header = constraints_header(&m);
        let d = m.system.diagnostics().unwrap();
        let row = constraints_row(&m, &d);
        let column = |name: &str| row[header.iter().position(|h| h == name).unwrap()];
        let friction = column("ground.friction_force");
        let implicit = integrator == "implicit-euler" || integrator == "bdf2";
        let within = if implicit { 1e-5 } else { 1e-3 };
        assert!(
            (friction - expected).abs() < within * expected,
            "{integrator}: friction {friction} N, not {expected} N"
        );
    }
}

/// A body named twice in one contact group is refused where the group is; a capsule of no
/// length is a ball, in a contact group as in its mass.
#[test]
fn group_members_are_checked_and_a_capsule_of_no_length_rests_as_a_ball() {
    let text = resting().replace(
        "bodies = \"all\"",
        "bodies = [\"floor\", \"ball\", \"ball\"]",
    );
    let e = error(&text);
    assert!(e.to_string().contains("contacts[0]"), "{e}");
    assert!(e.to_string().contains("'ball' is listed twice"), "{e}");
    let text = resting().replace(
        "shape = { kind = \"sphere\", radius = 0.1 }",
        "shape = { kind = \"capsule\", radius = 0.1, length = 0 }",
    );
    let mut m = model(&text);
    for _ in 0..200 {
        m.system.step(1e-3).unwrap();
    }
    let ball = m.bodies_3d.iter().find(|(n, _)| n == "ball").unwrap().1;
    let z = m.system.coordinates(ball.body())[2];
    assert!((z - 0.1).abs() < 1e-9, "the ball-like capsule rests at {z}");
}

/// Newton's cradle in 3D (`scenes/newtons_cradle_3d.toml`): the first ball, let go from 30°,
/// reaches the row at `√(2 g h (1 − cos 30°))`; the pulse passes through the three at rest, and
/// the last ball leaves at that speed while the others stay still, swings up to the height the
/// first was let go from, and comes back. Energy is kept through the impacts (restitution 1).
#[test]
fn the_3d_cradle_passes_its_pulse_through_the_row() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes/newtons_cradle_3d.toml");
    let mut m = Scene::load(&path).and_then(|s| s.build()).unwrap();
    let balls: Vec<bead::BodyId> = m.bodies_3d.iter().map(|(_, id)| id.body()).collect();
    assert_eq!(balls.len(), 5);
    let (h, g) = (0.2_f64, 9.81);
    let drop = h * (1.0 - 30_f64.to_radians().cos());
    let v0 = (2.0 * g * drop).sqrt();
    let e0 = m.system.diagnostics().unwrap().total_energy();
    let dt = m.run.dt;
    let (mut left, mut top, mut drift) = (None, 0.0_f64, 0.0_f64);
    for k in 1..=600 {
        m.system.step_to(k as f64 * dt).unwrap();
        let vx = |b: bead::BodyId| m.system.coordinate_velocities(b)[0];
        if left.is_none() && vx(balls[4]) > 0.0 {
            // The speed it left the row at, from its speed and height at the step's end (the
            // impact is located inside the step).
            let (v, z) = (
                m.system.coordinate_velocities(balls[4]),
                m.system.coordinates(balls[4])[2],
            );
            let speed = (v[0] * v[0] + v[2] * v[2] + 2.0 * g * z).sqrt();
            left = Some((
                speed,
                balls[..4].iter().map(|&b| vx(b).abs()).fold(0.0, f64::max),
            ));
        }
        top = top.max(m.system.coordinates(balls[4])[2]);
        let e = m.system.diagnostics().unwrap().total_energy();
        drift = drift.max((e - e0).abs() / e0);
    }
    let (speed, others) = left.expect("the last ball left");
    assert!(
        (speed - v0).abs() < 1e-6 * v0,
        "left at {speed}, the first arrived at {v0}"
    );
    assert!(others < 1e-9, "the others move at {others}");
    // Sampled at the steps' ends: the apex is missed by up to ½ g sin 30° (dt/2)², 2e-5 of it.
    assert!(
        (top - drop).abs() < 3e-5 * drop,
        "rose to {top}, let go from {drop}"
    );
    assert!(drift < 1e-8, "energy drifted by {drift} of itself");
}

/// The pinch grip (`scenes/pinch_grip_3d.toml`): two motorised fingers close on a box and hold
/// it by friction alone, at four times the force its weight needs. Once gripped it does not
/// creep: its height over the last two seconds stays within 1e-10 m, the fingers press with
/// their motors' force limits, and friction carries the weight.
#[test]
fn the_pinch_grip_holds_its_box_without_creep() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes/pinch_grip_3d.toml");
    let mut m = Scene::load(&path).and_then(|s| s.build()).unwrap();
    let held = m.bodies_3d.iter().find(|(n, _)| n == "box").unwrap().1;
    let dt = m.run.dt;
    let mut gripped = None;
    for k in 1..=3000 {
        m.system.step_to(k as f64 * dt).unwrap();
        if k == 1000 {
            gripped = Some(m.system.coordinates(held.body())[2]);
        }
    }
    let (start, end) = (gripped.unwrap(), m.system.coordinates(held.body())[2]);
    assert!(
        start < -1e-3,
        "the box fell {start} m while the fingers closed"
    );
    assert!(
        (end - start).abs() < 1e-10,
        "it crept {} m in 2 s",
        end - start
    );
    let header = constraints_header(&m);
    let d = m.system.diagnostics().unwrap();
    let row = constraints_row(&m, &d);
    let column = |name: &str| row[header.iter().position(|h| h == name).unwrap()];
    assert!(
        (column("grip.normal_force") - 40.0).abs() < 1e-6,
        "{}",
        column("grip.normal_force")
    );
    let weight = m.system.mass(held.body()).unwrap() * 9.81;
    assert!(column("grip.friction_force") >= weight * (1.0 - 1e-9));
}
