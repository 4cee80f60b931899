//! Parametric objects and expression constraints read from scene files, tested against physics:
//! closed forms (the tautochrone's quarter period, a helix bead's parabola, the weight a wire
//! carries), the built-in constraints an expression spells out, and errors that point at the
//! offending token.

#![allow(clippy::unwrap_used)]
// SceneError is returned by value once per failed load, as in the library.
#![allow(clippy::result_large_err)]

use std::f64::consts::PI;
use std::path::Path;

use bead::autodiff::{Custom, DualNum};
use bead::{Particle, System};
use bead_scene::{Format, Model, Scene};

const G: f64 = 9.81;

fn model(text: &str) -> Model {
    Scene::parse(text, Format::Toml, "test.toml")
        .and_then(|s| s.build())
        .unwrap_or_else(|e| panic!("{e}"))
}

fn scene_file(name: &str) -> Model {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenes")
        .join(name);
    Scene::load(&path).and_then(|s| s.build()).unwrap()
}

fn error(text: &str) -> bead_scene::SceneError {
    match Scene::parse(text, Format::Toml, "bad.toml").and_then(|s| s.build()) {
        Ok(_) => panic!("the scene built"),
        Err(e) => e,
    }
}

fn step(model: &mut Model) {
    let dt = model.run.dt;
    model.system.step(dt).unwrap();
}

/// Where a coordinate crosses zero between two steps, from the cubic through (u, u̇) at both
/// ends: the interpolation error is O(h⁴), below the integrator's.
fn crossing(t0: f64, h: f64, (u0, v0): (f64, f64), (u1, v1): (f64, f64)) -> f64 {
    let at = |s: f64| {
        let (s2, s3) = (s * s, s * s * s);
        (2.0 * s3 - 3.0 * s2 + 1.0) * u0
            + (s3 - 2.0 * s2 + s) * h * v0
            + (-2.0 * s3 + 3.0 * s2) * u1
            + (s3 - s2) * h * v1
    };
    let (mut a, mut b) = (0.0, 1.0);
    for _ in 0..60 {
        let m = 0.5 * (a + b);
        if (at(a) > 0.0) == (at(m) > 0.0) {
            a = m;
        } else {
            b = m;
        }
    }
    t0 + h * 0.5 * (a + b)
}

/// The scene of three cycloid bowls: every bead reaches the bottom after π √(r/g) whatever its
/// height (1e-6 relative).
#[test]
fn tautochrone_scene_reaches_the_bottom_after_a_quarter_period() {
    let mut m = scene_file("tautochrone.toml");
    let quarter = PI * (0.25_f64 / G).sqrt();
    let h = m.run.dt;
    let objects = m.objects.clone();
    let mut arrived = vec![None; objects.len()];
    let state = |m: &Model, k: usize| {
        let id = objects[k].id;
        (
            m.system.coordinates(id)[0],
            m.system.coordinate_velocities(id)[0],
        )
    };
    while m.system.time() < 0.6 {
        let before: Vec<_> = (0..objects.len()).map(|k| state(&m, k)).collect();
        let t0 = m.system.time();
        step(&mut m);
        for k in 0..objects.len() {
            let after = state(&m, k);
            if arrived[k].is_none() && before[k].0 > 0.0 && after.0 <= 0.0 {
                arrived[k] = Some(crossing(t0, h, before[k], after));
            }
        }
    }
    for (k, t) in arrived.iter().enumerate() {
        let t = t.unwrap_or_else(|| panic!("{} never reached the bottom", objects[k].name));
        assert!(
            ((t - quarter) / quarter).abs() < 1e-6,
            "{}: {t} s vs {quarter} s",
            objects[k].name
        );
    }
}

/// The helix scene: m (R² + c²) ü = −m g c, so u0 = 12 − ½ g c/(R² + c²) t², which RK4 follows
/// exactly; the energy stays where it started.
#[test]
fn helix_bead_scene_winds_down_on_its_parabola() {
    let mut m = scene_file("helix_bead.toml");
    let (r, c) = (0.5_f64, 0.1_f64);
    let e0 = m.system.diagnostics().unwrap().total_energy();
    while m.system.time() < 1.0 - 1e-9 {
        step(&mut m);
    }
    let t = m.system.time();
    let id = m.objects[0].id;
    let expected = 12.0 - 0.5 * G * c / (r * r + c * c) * t * t;
    let u = m.system.coordinates(id)[0];
    assert!((u - expected).abs() < 1e-9, "u0 {u} vs {expected}");
    let e1 = m.system.diagnostics().unwrap().total_energy();
    assert!((e1 - e0).abs() < 1e-9 * e0.abs(), "energy {e0} → {e1}");
}

const DOUBLE_PENDULUM: &str = r#"
format = 1
[simulation]
dimension = 2
dt = 0.001
duration = 2.0
[[particles]]
name = "pivot"
position = [0.0, 0.0]
mass = "infinity"
[[particles]]
name = "a"
position = [0.8, -0.6]
[[particles]]
name = "b"
position = [1.2, -1.4]
mass = 0.5
velocity = [0.5, 1.0]
[[forces]]
kind = "gravity"
g = [0.0, -9.81]
"#;

/// A double pendulum on `distance` rods and the same one on expression rods
/// `√((a.x − b.x)² + (a.y − b.y)²) − L = 0` are the same constraints: they move together to
/// 1e-10 over 2 s of chaotic motion and carry the same λ.
#[test]
fn expression_rods_move_as_distance_constraints() {
    let builtin = format!(
        "{DOUBLE_PENDULUM}
[[constraints]]
kind = \"distance\"
between = [\"pivot\", \"a\"]
name = \"upper\"
[[constraints]]
kind = \"distance\"
between = [\"a\", \"b\"]
name = \"lower\"
"
    );
    let expression = format!(
        "{DOUBLE_PENDULUM}
[[constraints]]
kind = \"expression\"
points = {{ p = \"pivot\", a = \"a\" }}
c = \"sqrt((a.x - p.x)^2 + (a.y - p.y)^2) - 1\"
name = \"upper\"
[[constraints]]
kind = \"expression\"
points = {{ a = \"a\", b = \"b\" }}
c = \"sqrt((a.x - b.x)^2 + (a.y - b.y)^2) - sqrt(0.8)\"
name = \"lower\"
"
    );
    let (mut one, mut two) = (model(&builtin), model(&expression));
    for _ in 0..2000 {
        step(&mut one);
        step(&mut two);
    }
    for (k, (_, p)) in one.particles.iter().enumerate() {
        let (x, y) = (
            one.system.position(*p),
            two.system.position(two.particles[k].1),
        );
        for i in 0..2 {
            assert!((x[i] - y[i]).abs() < 1e-10, "particle {k}: {x:?} vs {y:?}");
        }
    }
    let (d1, d2) = (
        one.system.diagnostics().unwrap(),
        two.system.diagnostics().unwrap(),
    );
    for k in 0..2 {
        let l1 = d1.constraint(one.constraints[k].id).unwrap().lambda[0];
        let l2 = d2.constraint(two.constraints[k].id).unwrap().lambda[0];
        assert!((l1 - l2).abs() < 1e-8 * l1.abs(), "rod {k}: λ {l1} vs {l2}");
    }
}

const ELLIPSE: &str = r#"
format = 1
[simulation]
dimension = 2
dt = 0.001
duration = 1.0
[[particles]]
name = "bead"
position = [POSITION]
velocity = [VELOCITY]
mass = 0.5
[[forces]]
kind = "gravity"
g = [0.0, -9.81]
[[constraints]]
kind = "expression"
points = { p = "bead" }
c = "p.x^2/4 + p.y^2 - 1"
name = "wire"
"#;

/// The ellipse of the README, at rest at its lowest point: the wire carries the weight exactly,
/// Jᵀλ = (0, −2) λ = (0, m g), so λ = −m g / 2, and the bead does not move.
#[test]
fn expression_ellipse_carries_the_weight_at_rest() {
    let mut m = model(
        &ELLIPSE
            .replace("POSITION", "0.0, -1.0")
            .replace("VELOCITY", "0.0, 0.0"),
    );
    for _ in 0..500 {
        step(&mut m);
    }
    let lambda = m
        .system
        .diagnostics()
        .unwrap()
        .constraint(m.constraints[0].id)
        .unwrap()
        .lambda[0];
    assert!((lambda + 0.5 * G / 2.0).abs() < 1e-10, "λ = {lambda}");
    let x = m.system.position(m.particles[0].1);
    assert!(x[0].abs() < 1e-12 && (x[1] + 1.0).abs() < 1e-12, "{x:?}");
}

/// The expression and the same function written in Rust with `autodiff::Custom` are the same
/// constraint: a moving bead follows the same path to rounding.
#[test]
fn expression_ellipse_equals_the_rust_custom_constraint() {
    let mut m = model(
        &ELLIPSE
            .replace("POSITION", "2.0, 0.0")
            .replace("VELOCITY", "0.0, 1.5"),
    );
    let mut sys = System::new(2).unwrap();
    let p = sys
        .add_particle(Particle::new(&[2.0, 0.0]).velocity(&[0.0, 1.5]).mass(0.5))
        .unwrap();
    sys.add_constraint(Custom::new([p], |x, _t| {
        x[0].powi(2) / 4.0 + x[1].powi(2) - 1.0
    }))
    .unwrap();
    sys.add_force(bead::force::Gravity::new(&[0.0, -G]))
        .unwrap();
    sys.set_settings(*m.system.settings()).unwrap();
    for _ in 0..1000 {
        step(&mut m);
        sys.step(1e-3).unwrap();
    }
    let (x, y) = (m.system.position(m.particles[0].1), sys.position(p));
    assert!(
        (x[0] - y[0]).abs() < 1e-12 && (x[1] - y[1]).abs() < 1e-12,
        "{x:?} vs {y:?}"
    );
}

/// A bead on a circle written as a `[[parametric]]` object and a particle held by `on-circle`
/// follow the same path (1e-6 over 2 s).
#[test]
fn parametric_circle_scene_matches_on_circle() {
    let object = model(
        r#"
format = 1
[simulation]
dimension = 2
dt = 0.001
duration = 2.0
[[parametric]]
name = "ring"
coordinates = [1.0]
rates = [2.0]
points = [{ name = "bead", mass = 0.3, position = ["0.7*sin(u0)", "-0.7*cos(u0)"] }]
[[forces]]
kind = "gravity"
g = [0.0, -9.81]
"#,
    );
    let (s, c) = 1f64.sin_cos();
    let particle = model(&format!(
        r#"
format = 1
[simulation]
dimension = 2
dt = 0.001
duration = 2.0
[[particles]]
name = "bead"
mass = 0.3
position = [{}, {}]
velocity = [{}, {}]
[[forces]]
kind = "gravity"
g = [0.0, -9.81]
[[constraints]]
kind = "on-circle"
point = "bead"
center = [0.0, 0.0]
"#,
        0.7 * s,
        -0.7 * c,
        1.4 * c,
        1.4 * s
    ));
    let (mut a, mut b) = (object, particle);
    let bead = bead::Point::OfObject {
        body: a.objects[0].id.body(),
        index: 0,
    };
    let mut worst = 0.0_f64;
    for _ in 0..2000 {
        step(&mut a);
        step(&mut b);
        let x = a.system.point_position(&bead).unwrap();
        let y = b.system.position(b.particles[0].1);
        worst = worst.max((x[0] - y[0]).hypot(x[1] - y[1]));
    }
    assert!(worst < 1e-6, "the beads part by {worst} m");
}

/// Hybrid (seed 000 §5.1) from a file: a bead on a helix held at rest by a rod from a nailed
/// particle. The rod carries the tangential weight: T cos α = m g c / √(R² + c²).
#[test]
fn hybrid_scene_rod_carries_the_hand_calculated_force() {
    let (radius, c, m, u0, alpha, length) = (0.5_f64, 0.08_f64, 2.0, 0.3_f64, 0.5_f64, 0.6);
    let norm = (radius * radius + c * c).sqrt();
    let tangent = [
        -radius * u0.sin() / norm,
        radius * u0.cos() / norm,
        c / norm,
    ];
    let outward = [u0.cos(), u0.sin(), 0.0];
    let bead_at = [radius * u0.cos(), radius * u0.sin(), c * u0];
    let hook: Vec<f64> = (0..3)
        .map(|k| bead_at[k] + length * (alpha.cos() * tangent[k] + alpha.sin() * outward[k]))
        .collect();
    let mut scene = model(&format!(
        r#"
format = 1
[simulation]
dimension = 3
dt = 0.002
duration = 1.0
[[parametric]]
name = "helix"
coordinates = [{u0}]
points = [{{ name = "bead", mass = {m}, position = ["{radius}*cos(u0)", "{radius}*sin(u0)", "{c}*u0"] }}]
[[particles]]
name = "hook"
position = [{}, {}, {}]
[[forces]]
kind = "gravity"
g = [0.0, 0.0, -9.81]
[[constraints]]
kind = "nail"
point = "hook"
[[constraints]]
kind = "distance"
between = ["hook", {{ object = "helix", point = "bead" }}]
name = "rod"
"#,
        hook[0], hook[1], hook[2]
    ));
    for _ in 0..500 {
        step(&mut scene);
    }
    let expected = m * G * c / norm / alpha.cos();
    let rod = scene.constraints[1].id;
    let lambda = scene
        .system
        .diagnostics()
        .unwrap()
        .constraint(rod)
        .unwrap()
        .lambda[0];
    assert!(
        (lambda.abs() - expected).abs() < 1e-8 * expected,
        "rod λ {lambda} vs {expected}"
    );
    let u = scene.system.coordinates(scene.objects[0].id)[0];
    assert!((u - u0).abs() < 1e-9, "the bead slid to u = {u}");
}

const BALL: &str = r#"
format = 1
[simulation]
dimension = 2
dt = 0.001
duration = 2.0
restitution = 0.6
[[particles]]
name = "ball"
position = [0.0, 1.0]
velocity = [0.3, 0.0]
radius = 0.1
[[forces]]
kind = "gravity"
g = [0.0, -9.81]
"#;

/// An inequality written as an expression is a half-plane: the ball bounces, with restitution,
/// exactly as on the built-in floor (impacts located, λ ≥ 0, resting contact at the end).
#[test]
fn expression_inequality_bounces_like_a_half_plane() {
    let mut floor = model(&format!(
        "{BALL}
[[constraints]]
kind = \"half-plane\"
point = \"ball\"
through = [0.0, 0.0]
normal = [0.0, 1.0]
"
    ));
    let mut written = model(&format!(
        "{BALL}
[[constraints]]
kind = \"expression\"
points = {{ b = \"ball\" }}
c = \"b.y - 0.1\"
inequality = true
"
    ));
    let mut bounces = 0;
    let mut last_vy = 0.0;
    for _ in 0..2000 {
        step(&mut floor);
        step(&mut written);
        let (x, y) = (
            floor.system.position(floor.particles[0].1),
            written.system.position(written.particles[0].1),
        );
        assert!(
            (x[0] - y[0]).abs() < 1e-9 && (x[1] - y[1]).abs() < 1e-9,
            "t = {}: {x:?} vs {y:?}",
            floor.system.time()
        );
        assert!(y[1] > 0.1 - 1e-6, "the ball sank to {}", y[1]);
        let vy = written.system.velocity(written.particles[0].1)[1];
        if last_vy < -0.1 && vy > 0.0 {
            bounces += 1;
        }
        last_vy = vy;
    }
    assert!(bounces >= 2, "{bounces} bounces");
}

/// Where a bad expression or object is, the error says: file, line, column of the token, field.
#[test]
fn bad_expressions_and_objects_are_located() {
    let object = |points: &str| {
        format!(
            "format = 1\n[simulation]\ndimension = 2\ndt = 0.001\nduration = 1.0\n\n[[parametric]]\nname = \"w\"\ncoordinates = [0.5]\npoints = [\n  {points},\n]\n"
        )
    };
    // Line 11 holds the point; the token `u1` starts at column 57.
    let e = error(&object(
        r#"{ name = "p", mass = 1.0, position = ["cos(u0)", "sin(u1)"] }"#,
    ));
    assert_eq!((e.line, e.column), (Some(11), Some(57)), "{e}");
    assert_eq!(
        e.field.as_deref(),
        Some("parametric[0].points[0].position[1]")
    );
    assert!(e.message.contains("unknown name 'u1'"), "{e}");
    assert!(e.hint.as_deref().unwrap().contains("u0, t, pi"), "{e}");

    let e = error(&object(
        r#"{ name = "p", mass = 1.0, position = ["cos(u0)"] }"#,
    ));
    assert!(
        e.message.contains("has 1 expressions; the scene is 2D"),
        "{e}"
    );

    let e = error(&object(
        r#"{ name = "p", mass = 1.0, position = ["1.0", "2 t"] }"#,
    ));
    assert!(e.message.contains("expected an operator before 't'"), "{e}");

    let e = error(&object(
        r#"{ name = "p", mass = 1.0, position = ["ln(u0 - 1)", "0"] }"#,
    ));
    assert!(e.message.contains("is NaN at u = [0.5]"), "{e}");

    let e = error(&object(
        r#"{ name = "p", mass = 1.0, position = ["cos(t)", "sin(t)"] }"#,
    ));
    assert!(
        e.message.contains("no point's position depends on u0"),
        "{e}"
    );

    let e = error(&object(
        r#"{ name = "p", mass = 0.0, position = ["u0", "0"] }"#,
    ));
    assert_eq!(e.field.as_deref(), Some("parametric[0].points[0].mass"));

    // A cusp at the start: the generalized mass is singular there.
    let e = error(&object(
        r#"{ name = "p", mass = 1.0, position = ["(u0 - 0.5)^2", "(u0 - 0.5)^3"] }"#,
    ));
    assert!(e.message.contains("singular"), "{e}");

    let with = |constraint: &str| {
        format!(
            "{}\n[[particles]]\nname = \"b\"\nposition = [1.0, 0.0]\n\n[[constraints]]\n{constraint}\n",
            object(r#"{ name = "p", mass = 1.0, position = ["u0", "0"] }"#)
        )
    };
    let e = error(&with(
        "kind = \"expression\"\npoints = { a = \"b\" }\nc = \"a.x + a.w\"",
    ));
    assert_eq!((e.line, e.column), (Some(21), Some(12)), "{e}");
    assert!(e.message.contains("unknown name 'a.w'"), "{e}");
    assert!(e.hint.as_deref().unwrap().contains("a.x, a.y, t"), "{e}");

    let e = error(&with(
        "kind = \"distance\"\nbetween = [\"b\", { object = \"w\", point = \"q\" }]",
    ));
    assert_eq!(e.field.as_deref(), Some("constraints[0].between[1].point"));
    assert!(e.message.contains("object 'w' has no point 'q'"), "{e}");

    let e = error(&with(
        "kind = \"expression\"\npoints = { t = \"b\" }\nc = \"t.x\"",
    ));
    assert_eq!(e.field.as_deref(), Some("constraints[0].points.t"));

    let e = error(&with(
        "kind = \"expression\"\npoints = { a = \"b\" }\nc = \"a.x\"\nrestitution = 0.5",
    ));
    assert!(e.message.contains("restitution is for inequalities"), "{e}");

    let e = error(&with(
        "kind = \"expression\"\npoints = { a = \"b\" }\nc = \"sqrt(a.x - 2)\"",
    ));
    assert!(e.message.contains("NaN at the initial positions"), "{e}");

    // A single-point object stands for its point by name; a body's joint does not take it.
    let ok = with("kind = \"distance\"\nbetween = [\"b\", \"w\"]");
    assert_eq!(model(&ok).constraints.len(), 1);
    let e = error(&with("kind = \"angle\"\nbody = \"w\""));
    assert!(
        e.message
            .contains("is a parametric object, not a rigid body"),
        "{e}"
    );
}
