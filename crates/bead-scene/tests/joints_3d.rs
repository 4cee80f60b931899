//! 3D welds, sliders and limits read from scene files: the piston scene against the crank-slider's
//! closed form, the ragdoll arm held by its cone-twist and hinge limits and its weld, the lift
//! driven by its slider motor into its travel limit (and a 2D slider's), and errors that name the
//! field.

#![allow(clippy::unwrap_used)]
// SceneError is returned by value once per failed load, as in the library.
#![allow(clippy::result_large_err)]

use std::path::Path;

use bead_scene::{Format, Model, Scene};

fn scene(name: &str) -> Model {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../scenes/{name}.toml"));
    Scene::load(&path)
        .and_then(|s| s.build())
        .unwrap_or_else(|e| panic!("{e}"))
}

fn error(text: &str) -> String {
    match Scene::parse(text, Format::Toml, "bad.toml").and_then(|s| s.build()) {
        Ok(_) => panic!("the scene built"),
        Err(e) => e.to_string(),
    }
}

/// The rotation matrix of a unit quaternion `[w, x, y, z]`.
fn rotation(q: [f64; 4]) -> [[f64; 3]; 3] {
    let [w, x, y, z] = q;
    [
        [
            1.0 - 2.0 * (y * y + z * z),
            2.0 * (x * y - w * z),
            2.0 * (x * z + w * y),
        ],
        [
            2.0 * (x * y + w * z),
            1.0 - 2.0 * (x * x + z * z),
            2.0 * (y * z - w * x),
        ],
        [
            2.0 * (x * z - w * y),
            2.0 * (y * z + w * x),
            1.0 - 2.0 * (x * x + y * y),
        ],
    ]
}

/// The piston follows the crank: `x = r cos θ + √(L² − r² sin² θ)` at every step, the crank
/// turning at its motor's speed, the piston on its axis.
#[test]
fn the_piston_scene_follows_the_crank_slider_kinematics() {
    let mut m = scene("piston");
    let id = |name: &str| m.bodies_3d.iter().find(|(n, _)| n == name).unwrap().1;
    let (crank, piston) = (id("crank"), id("piston"));
    let (r, l, dt) = (0.1_f64, 0.3_f64, m.run.dt);
    let mut worst = 0.0_f64;
    for k in 1..=500 {
        m.system.step_to(k as f64 * dt).unwrap();
        let q = m.system.orientation(crank);
        let theta = 2.0 * q[2].atan2(q[0]);
        let x = r * theta.cos() + (l * l - (r * theta.sin()).powi(2)).sqrt();
        let p = m.system.coordinates(piston.body());
        worst = worst.max((p[0] - x).abs()).max(p[1].abs()).max(p[2].abs());
    }
    assert!(worst < 1e-12, "{worst:e}");
    assert!((m.system.angular_velocity(crank)[1] - 5.0).abs() < 1e-9);
}

/// The ragdoll arm falls and swings: its upper arm never leaves its 0.8 rad cone nor its ±0.3
/// rad twist, the elbow bends within [−0.05, 1.6], and the hand stays welded at its 0.3 rad.
#[test]
fn the_ragdoll_arm_stays_within_its_limits() {
    let mut m = scene("ragdoll_arm");
    let id = |name: &str| m.bodies_3d.iter().find(|(n, _)| n == name).unwrap().1;
    let (upper, fore, hand) = (id("upper_arm"), id("forearm"), id("hand"));
    let dt = m.run.dt;
    let tol = 1e-8;
    let (mut swing, mut elbow_range) = (0.0_f64, (f64::INFINITY, f64::NEG_INFINITY));
    for k in 1..=1500 {
        m.system.step_to(k as f64 * dt).unwrap();
        let (ru, rf) = (
            rotation(m.system.orientation(upper)),
            rotation(m.system.orientation(fore)),
        );
        // The upper arm's long axis (its body z) started along world x.
        swing = swing.max(ru[0][2].clamp(-1.0, 1.0).acos());
        // The elbow's angle about the upper arm's hinge axis (its body y... the world y it
        // started along, carried): the forearm's z against the upper arm's, about that axis.
        let axis = [ru[0][1], ru[1][1], ru[2][1]];
        let (zu, zf) = (
            [ru[0][2], ru[1][2], ru[2][2]],
            [rf[0][2], rf[1][2], rf[2][2]],
        );
        let cross = [
            zu[1] * zf[2] - zu[2] * zf[1],
            zu[2] * zf[0] - zu[0] * zf[2],
            zu[0] * zf[1] - zu[1] * zf[0],
        ];
        let sin: f64 = (0..3).map(|k| cross[k] * axis[k]).sum();
        let cos: f64 = (0..3).map(|k| zu[k] * zf[k]).sum();
        let angle = sin.atan2(cos);
        elbow_range = (elbow_range.0.min(angle), elbow_range.1.max(angle));
    }
    assert!(swing <= 0.8 + tol, "swing {swing}");
    assert!(swing > 0.79, "the arm fell to its cone: {swing}");
    assert!(
        elbow_range.0 >= -0.05 - tol && elbow_range.1 <= 1.6 + tol,
        "{elbow_range:?}"
    );
    // The weld: the hand keeps its 0.3 rad about the forearm's (world x) long axis.
    let (qf, qh) = (m.system.orientation(fore), m.system.orientation(hand));
    let (rf, rh) = (rotation(qf), rotation(qh));
    // Hand's y in the forearm's frame: (cos 0.3, sin 0.3) in the forearm's (−x... ) plane.
    let hy = [rh[0][1], rh[1][1], rh[2][1]];
    let local: Vec<f64> = (0..3)
        .map(|j| (0..3).map(|i| rf[i][j] * hy[i]).sum())
        .collect();
    let h = std::f64::consts::FRAC_1_SQRT_2;
    let start = rotation([h, 0.0, h, 0.0]);
    let hy0 = rotation([0.9887710779360422, 0.14943813247359922, 0.0, 0.0]);
    let expected: Vec<f64> = (0..3)
        .map(|j| (0..3).map(|i| start[i][j] * hy0[i][1]).sum())
        .collect();
    let off = local
        .iter()
        .zip(&expected)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    assert!(off < 1e-9, "{local:?} vs {expected:?}");
    assert!(m.system.constraint_error().unwrap().0 < 1e-9);
}

/// The lift: its motor, limited to 40 N against a 2 kg car, accelerates it at
/// `a = (F − m g)/m` to 0.25 m/s, so that `s = 0.25 t − 0.25²/(2a)` (to implicit Euler's
/// first-order error of the acceleration, `h` times the speed); its travel limit stops it 0.5 m
/// up, where the motor pushes with all its 40 N and the stop takes what the weight does not.
#[test]
fn the_lift_rises_at_its_motor_speed_and_stops_at_its_limit() {
    let mut m = scene("lift");
    let car = m.bodies_3d.iter().find(|(n, _)| n == "car").unwrap().1;
    let constraint =
        |m: &Model, name: &str| m.constraints.iter().find(|c| c.name == name).unwrap().id;
    let (drive, stops) = (constraint(&m, "drive"), constraint(&m, "stops"));
    let (mass, g, force, speed, dt) = (2.0, 9.81, 40.0, 0.25, m.run.dt);
    let a = (force - mass * g) / mass;
    for k in 1..=1000 {
        m.system.step_to(k as f64 * dt).unwrap();
    }
    let (z, vz) = (
        m.system.coordinates(car.body())[2],
        m.system.coordinate_velocities(car.body())[2],
    );
    let expected = speed * 1.0 - speed * speed / (2.0 * a);
    assert!(
        (z - expected).abs() < dt * speed,
        "z {z} against {expected}"
    );
    assert!((vz - speed).abs() < 1e-9, "vz {vz}");
    for k in 1001..=3000 {
        m.system.step_to(k as f64 * dt).unwrap();
        let z = m.system.coordinates(car.body())[2];
        assert!(z <= 0.5 + 1e-9, "step {k}: past the stop at {z}");
    }
    let (z, vz) = (
        m.system.coordinates(car.body())[2],
        m.system.coordinate_velocities(car.body())[2],
    );
    assert!(
        (z - 0.5).abs() < 1e-9 && vz.abs() < 1e-9,
        "at the top: z {z}, vz {vz}"
    );
    let report = m.system.diagnostics().unwrap();
    let motor = report.constraint(drive).unwrap().lambda[0];
    let stop = report.constraint(stops).unwrap().lambda.clone();
    assert_eq!(motor, force, "the motor pushes with its limit");
    assert!((stop[1] - (force - mass * g)).abs() < 1e-6, "stop {stop:?}");
    assert_eq!(stop[0], 0.0, "the lower stop is free");
}

const HEADER: &str = "format = 1\n[simulation]\ndimension = 3\ndt = 0.001\nduration = 1\n\
    [[bodies]]\nname = \"a\"\nposition = [0, 0, 0]\nmass = 1\ninertia = [1, 1, 1]\n\
    [[bodies]]\nname = \"b\"\nposition = [1, 0, 0]\nmass = 1\ninertia = [1, 1, 1]\n";

const BALL: &str = "[[constraints]]\nkind = \"spherical\"\nbetween = [{ body = \"a\", local = [0.5, 0, 0] }, { body = \"b\", local = [-0.5, 0, 0] }]\nname = \"ball\"\n";

/// Bad 3D joints and limits are errors naming the field.
#[test]
fn bad_3d_joints_name_the_field() {
    let weld = "[[constraints]]\nkind = \"weld\"\nbetween = [{ body = \"a\", local = [0.5, 0, 0] }, { body = \"b\", local = [-0.5, 0, 0] }]\n";
    let cases = [
        (
            format!("{weld}angle = 0.3\n"),
            "constraints[0].angle: a 3D joint has no angle",
        ),
        (
            "[[constraints]]\nkind = \"prismatic\"\nbetween = [\"a\", \"b\"]\naxis = [0, 0, 0]\n"
                .to_string(),
            "constraints[0].axis: an axis must have a nonzero length",
        ),
        (
            "[[constraints]]\nkind = \"prismatic\"\nbetween = [\"a\", \"b\"]\naxis = [1, 0]\n"
                .to_string(),
            "constraints[0].axis",
        ),
        (
            format!("{BALL}[[constraints]]\nkind = \"angle-limit\"\nmin = 0\nmax = 1\n"),
            "constraints[1].joint: missing",
        ),
        (
            format!(
                "{BALL}[[constraints]]\nkind = \"angle-limit\"\njoint = \"ball\"\nmin = 0\nmax = 1\n"
            ),
            "'ball' is not a revolute joint with an axis",
        ),
        (
            format!(
                "{BALL}[[constraints]]\nkind = \"cone-limit\"\njoint = \"nothing\"\naxis = [1, 0, 0]\ncone = 0.5\n"
            ),
            "no constraint is called 'nothing'",
        ),
        (
            format!(
                "{BALL}[[constraints]]\nkind = \"cone-limit\"\njoint = \"ball\"\naxis = [1, 0, 0]\ncone = 4\n"
            ),
            "half-angle must be in (0, π)",
        ),
        (
            format!(
                "{BALL}[[constraints]]\nkind = \"cone-limit\"\njoint = \"ball\"\naxis = [1, 0, 0]\ncone = 0.5\ntwist = [1, -1]\n"
            ),
            "constraints[1].twist: the range [1, -1] must have min ≤ max",
        ),
    ];
    let slider = "[[constraints]]\nkind = \"prismatic\"\nbetween = [\"a\", \"b\"]\naxis = [1, 0, 0]\nname = \"rail\"\n";
    let sliders = [
        (
            format!(
                "{slider}[[constraints]]\nkind = \"slider-motor\"\njoint = \"ball\"\nspeed = 1\n{BALL}"
            ),
            "'ball' is not a prismatic joint",
        ),
        (
            format!("{slider}[[constraints]]\nkind = \"motor\"\njoint = \"rail\"\nspeed = 1\n"),
            "kind = \"slider-motor\"",
        ),
        (
            format!(
                "{slider}[[constraints]]\nkind = \"slider-motor\"\njoint = \"rail\"\nspeed = 1\nmax_force = -2\n"
            ),
            "constraints[1].max_force",
        ),
        (
            format!(
                "{slider}[[constraints]]\nkind = \"slider-limit\"\njoint = \"rail\"\nmin = 0.5\nmax = -0.5\n"
            ),
            "constraints[1].max: max -0.5 is below min 0.5",
        ),
        (
            format!(
                "{slider}[[constraints]]\nkind = \"angle-limit\"\njoint = \"rail\"\nmin = 0\nmax = 1\n"
            ),
            "kind = \"slider-limit\"",
        ),
    ];
    for (constraints, expected) in cases.into_iter().chain(sliders) {
        let e = error(&format!("{HEADER}{constraints}"));
        assert!(e.contains(expected), "expected «{expected}» in: {e}");
    }
    let e = error(
        "format = 1\n[simulation]\ndimension = 2\ndt = 0.01\nduration = 1\n\
         [[bodies]]\nname = \"a\"\nposition = [0, 0]\nmass = 1\ninertia = 0.1\n\
         [[bodies]]\nname = \"b\"\nposition = [1, 0]\nmass = 1\ninertia = 0.1\n\
         [[constraints]]\nkind = \"revolute\"\nbetween = [\"a\", \"b\"]\nname = \"pin\"\n\
         [[constraints]]\nkind = \"cone-limit\"\njoint = \"pin\"\naxis = [1, 0, 0]\ncone = 0.5\n",
    );
    assert!(e.contains("constraints[1].kind: a cone limit is 3D"), "{e}");
}

/// A 2D slider's limit and motor read from a scene: a carriage 1 m along a rail tilted 30°,
/// driven down it at 0.2 m/s to its stop 0.3 m below where it starts; the travel is measured
/// along the tilted axis from where the joint starts. A joint of a particle is an error.
#[test]
fn a_2d_slider_stops_where_its_limit_says() {
    let text = "format = 1\n[simulation]\ndimension = 2\ndt = 0.001\nduration = 3\n\
         integrator = \"implicit-euler\"\n\
         [[bodies]]\nname = \"rail\"\nposition = [0, 0]\nangle = 0.5235987755982988\nmass = \"infinity\"\n\
         [[bodies]]\nname = \"car\"\nposition = [0.8660254037844387, 0.5]\nangle = 0.5235987755982988\nmass = 1\ninertia = 0.1\n\
         [[constraints]]\nkind = \"prismatic\"\nbetween = [\"rail\", \"car\"]\naxis = [1, 0]\nname = \"rail_joint\"\n\
         [[constraints]]\nkind = \"slider-motor\"\njoint = \"rail_joint\"\nspeed = -0.2\nmax_force = 1000\n\
         [[constraints]]\nkind = \"slider-limit\"\njoint = \"rail_joint\"\nmin = -0.3\nmax = 0.5\n";
    let mut m = Scene::parse(text, Format::Toml, "slider.toml")
        .and_then(|s| s.build())
        .unwrap_or_else(|e| panic!("{e}"));
    let car = m.bodies.iter().find(|(n, _)| n == "car").unwrap().1;
    for k in 1..=3000 {
        m.system.step_to(k as f64 * 1e-3).unwrap();
        let x = m.system.coordinates(car.body());
        let s = x[0] * 0.8660254037844387 + x[1] * 0.5;
        assert!(s >= 0.7 - 1e-9, "step {k}: past the stop, s = {s}");
        if k == 1000 {
            assert!((s - 0.8).abs() < 1e-9, "s {s} after 1 s at 0.2 m/s");
        }
    }
    let x = m.system.coordinates(car.body());
    assert!(
        (x[0] * 0.8660254037844387 + x[1] * 0.5 - 0.7).abs() < 1e-9,
        "{x:?}"
    );
    let e = error(
        "format = 1\n[simulation]\ndimension = 2\ndt = 0.01\nduration = 1\n\
         [[particles]]\nname = \"p\"\nposition = [1, 0]\n\
         [[bodies]]\nname = \"a\"\nposition = [0, 0]\nmass = 1\ninertia = 0.1\n\
         [[constraints]]\nkind = \"slider-limit\"\njoint = \"rail\"\nmin = 0\nmax = 1\n\
         [[constraints]]\nkind = \"prismatic\"\nbetween = [\"a\", \"p\"]\naxis = [1, 0]\nname = \"rail\"\n",
    );
    assert!(
        e.contains("constraints[0].joint: 'rail' joins a particle"),
        "{e}"
    );
}
