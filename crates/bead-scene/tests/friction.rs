//! Shape contacts and Coulomb friction in scene files (issue 29): every coefficient is checked
//! where it is written, the methods that cannot carry friction refuse it, a contact group's
//! columns are there, and the incline scene's crate sticks.

#![allow(clippy::unwrap_used, clippy::result_large_err)]

use std::path::Path;

use bead_scene::run::{RecordError, Sink, run};
use bead_scene::{Format, Model, Scene, record};

/// A crate on a static ground, with a ball on a floor beside it; `simulation` is added to
/// `[simulation]`, `extra` at the end of the file.
fn scene(simulation: &str, extra: &str) -> String {
    format!(
        "format = 1\nname = \"crate\"\n\
         [simulation]\ndimension = 2\ndt = 0.001\nduration = 0.05\n{simulation}\n\
         [[forces]]\nkind = \"gravity\"\ng = [0.0, -9.81]\n\
         [[particles]]\nname = \"ball\"\nposition = [5.0, 0.1]\nradius = 0.1\n\
         [[particles]]\nname = \"dot\"\nposition = [7.0, 3.0]\n\
         [[bodies]]\nname = \"ground\"\nposition = [0.0, -0.5]\nmass = \"infinity\"\n\
         inertia = \"infinity\"\nshape = {{ kind = \"box\", width = 20.0, height = 1.0 }}\n\
         [[bodies]]\nname = \"crate\"\nposition = [0.0, 0.25]\n\
         shape = {{ kind = \"box\", width = 0.5, height = 0.5 }}\ndensity = 100.0\n\
         [[bodies]]\nname = \"marker\"\nposition = [0.0, 3.0]\nmass = 1.0\ninertia = 1.0\n\
         [[constraints]]\nkind = \"half-plane\"\npoint = \"ball\"\nthrough = [0.0, 0.0]\n\
         normal = [0.0, 1.0]\nname = \"floor\"\n\
         [[constraints]]\nkind = \"nail\"\npoint = \"marker\"\n\
         {extra}"
    )
}

const GROUP: &str = "[[contacts]]\nname = \"pile\"\nbodies = \"all\"\n";

fn build(text: &str) -> Result<Model, bead_scene::SceneError> {
    Scene::parse(text, Format::Toml, "crate.toml").and_then(|s| s.build())
}

/// Each wrong setting: the field the error names, and what its message says.
#[test]
fn broken_friction_settings_are_located() {
    let cases = [
        (
            scene("friction = -1.0", GROUP),
            "simulation.friction",
            "must be zero or more, got -1",
        ),
        (
            scene("", GROUP).replace("density = 100.0", "density = 100.0\nfriction = -1.0"),
            "bodies[1].friction",
            "must be zero or more, got -1",
        ),
        (
            scene("", &format!("{GROUP}friction = -0.5\n")),
            "contacts[0].friction",
            "must be zero or more, got -0.5",
        ),
        (
            scene("", GROUP).replace("name = \"floor\"", "name = \"floor\"\nfriction = -2.0"),
            "constraints[0].friction",
            "must be zero or more, got -2",
        ),
        (
            scene("friction = 0.5\ninequality = \"platt\"", GROUP),
            "simulation.inequality",
            "platt does not carry friction; use jonquet or lcp",
        ),
        (
            scene("inequality = \"improved\"", GROUP)
                .replace("density = 100.0", "density = 100.0\nfriction = 0.3"),
            "simulation.inequality",
            "improved does not carry friction; use jonquet or lcp",
        ),
        (
            scene("", "[[contacts]]\nbodies = [\"ground\", \"marker\"]\n"),
            "contacts[0].bodies",
            "body 'marker' has no shape",
        ),
        (
            scene("", "[[contacts]]\nbodies = [\"ground\", \"crates\"]\n"),
            "contacts[0].bodies[1]",
            "unknown body 'crates'",
        ),
        (
            scene(
                "friction = 0.5",
                "[[contacts]]\nparticles = [\"ball\", \"dot\"]\n",
            ),
            "contacts[0].particles",
            "particle 'dot' has no radius",
        ),
        (
            scene("", "[[contacts]]\nrestitution = 0.5\n"),
            "contacts[0]",
            "needs bodies or particles",
        ),
        (
            scene(
                "",
                &format!("{GROUP}[[contacts]]\nname = \"pile\"\nbodies = \"all\"\n"),
            ),
            "contacts[1].name",
            "duplicate name 'pile'",
        ),
        (
            scene("", "[[contacts]]\nname = \"floor\"\nbodies = \"all\"\n"),
            "contacts[0].name",
            "duplicate name 'floor'",
        ),
    ];
    for (text, field, message) in cases {
        let error = build(&text).expect_err(&format!("accepted:\n{text}"));
        assert_eq!(error.field.as_deref(), Some(field), "{error}");
        assert!(error.message.contains(message), "{error}");
        assert!(error.line.is_some(), "not located: {error}");
    }
    // Without friction anywhere, platt is still fine with a shape group.
    build(&scene("inequality = \"platt\"", GROUP)).unwrap();
}

/// The rows of a run: each constraints.csv row, and the trajectory rows.
#[derive(Default)]
struct Rows {
    constraints: Vec<Vec<f64>>,
    trajectory: Vec<Vec<f64>>,
}

impl Sink for Rows {
    type Error = RecordError;

    fn record(&mut self, model: &mut Model, d: &bead::Diagnostics) -> Result<(), RecordError> {
        self.trajectory.push(record::trajectory_row(model)?);
        self.constraints.push(record::constraints_row(model, d));
        Ok(())
    }
}

fn column(header: &[String], name: &str) -> usize {
    header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column {name} in {header:?}"))
}

/// The incline scene: the crate on the 25° incline (tan 25° < μ = 0.5) stays where it is, the
/// one on the 30° incline slides, and the group's columns carry both crates' forces.
#[test]
fn the_incline_scenes_sticking_crate_does_not_move() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes/incline-crate.toml");
    let mut model = Scene::load(&path).unwrap().build().unwrap();
    let trajectory = record::trajectory_header(&model);
    let constraints = record::constraints_header(&model);
    for suffix in [
        "contacts",
        "normal_force",
        "friction_force",
        "max_penetration",
    ] {
        column(&constraints, &format!("slopes.{suffix}"));
    }
    let mut rows = Rows::default();
    let report = run(&mut model, &mut rows, |_, _, _| {}).unwrap();
    assert!(report.failure.is_none(), "{:?}", report.failure);
    let (first, last) = (&rows.trajectory[0], rows.trajectory.last().unwrap());
    for c in ["sticking.x", "sticking.y", "sticking.theta"] {
        let k = column(&trajectory, c);
        assert!(
            (last[k] - first[k]).abs() < 1e-9,
            "{c} moved by {}",
            last[k] - first[k]
        );
    }
    // The other slides g (sin 30° − μ cos 30°) t² / 2 down its slope.
    let (x, y) = (
        column(&trajectory, "sliding.x"),
        column(&trajectory, "sliding.y"),
    );
    let moved = (last[x] - first[x]).hypot(last[y] - first[y]);
    let a = 9.81 * (0.5 - 0.5 * 3f64.sqrt() / 2.0);
    assert!((moved - 0.5 * a * 4.0).abs() < 1e-6, "slid {moved} m");
    // Two touching pairs; 25 kg crates: normal forces m g cos α, friction m g sin α on the one
    // that sticks and μ m g cos α on the one that slides.
    let end = rows.constraints.last().unwrap();
    let (c25, s25, c30) = (
        25f64.to_radians().cos(),
        25f64.to_radians().sin(),
        30f64.to_radians().cos(),
    );
    let weight = 25.0 * 9.81;
    assert_eq!(end[column(&constraints, "slopes.contacts")], 2.0);
    let normal = end[column(&constraints, "slopes.normal_force")];
    assert!((normal - weight * (c25 + c30)).abs() < 1e-6, "{normal}");
    let friction = end[column(&constraints, "slopes.friction_force")];
    assert!(
        (friction - weight * (s25 + 0.5 * c30)).abs() < 1e-6,
        "{friction}"
    );
}

/// A half-plane with friction has two rows, the normal force and the friction force, and one
/// `active` column (its normal row's); without friction its columns are as they were.
#[test]
fn a_half_plane_with_friction_writes_two_rows_and_one_active() {
    let frictionless = build(&scene("", "")).unwrap();
    let header = record::constraints_header(&frictionless);
    assert_eq!(header[1..4], ["floor.C", "floor.lambda", "floor.active"]);
    for simulation in ["friction = 0.4", ""] {
        let text = scene(simulation, "")
            .replace("name = \"floor\"", "name = \"floor\"\nfriction = 0.4")
            .replace(
                "position = [5.0, 0.1]",
                "position = [5.0, 0.1]\nvelocity = [1.0, 0.0]",
            );
        let mut model = build(&text).unwrap();
        let header = record::constraints_header(&model);
        assert_eq!(
            header[1..6],
            [
                "floor.C0",
                "floor.C1",
                "floor.lambda0",
                "floor.lambda1",
                "floor.active"
            ]
        );
        // The ball slides, and friction slows it: |λ₁| = μ λ₀.
        let mut rows = Rows::default();
        run(&mut model, &mut rows, |_, _, _| {}).unwrap();
        let end = rows.constraints.last().unwrap();
        assert!((end[3] - 9.81).abs() < 1e-6, "normal force {}", end[3]);
        assert!(
            (end[4].abs() - 0.4 * 9.81).abs() < 1e-6,
            "friction {}",
            end[4]
        );
        assert_eq!(end[5], 1.0);
    }
}

/// Particles alone without friction make the engine's particle group (no columns); with
/// friction, a shape group with the group's columns.
#[test]
fn a_particle_group_with_friction_is_a_shape_group() {
    let particles = "[[contacts]]\nparticles = [\"ball\"]\n";
    let plain = build(&scene("", particles)).unwrap();
    assert!(plain.contacts.is_empty());
    for (simulation, group) in [
        ("friction = 0.3", particles.to_string()),
        ("", format!("{particles}friction = 0.3\n")),
    ] {
        let model = build(&scene(simulation, &group)).unwrap();
        assert_eq!(model.contacts.len(), 1);
        assert_eq!(model.contacts[0].name, "contacts0");
        let header = record::constraints_header(&model);
        column(&header, "contacts0.friction_force");
    }
}

/// Every shape kind builds and collides, a capsule and a rod among them; a body's own `friction`
/// and the group's `collide_connected` are read.
#[test]
fn every_shape_kind_collides() {
    let shapes = [
        "{ kind = \"disc\", radius = 0.25 }",
        "{ kind = \"box\", width = 0.5, height = 0.5 }",
        "{ kind = \"polygon\", vertices = [[-0.25, -0.25], [0.25, -0.25], [0.25, 0.25], [-0.25, 0.25]] }",
        "{ kind = \"capsule\", radius = 0.25, length = 0.5 }",
        "{ kind = \"rod\", length = 0.5 }",
    ];
    for shape in shapes {
        let text = scene("friction = 0.5", GROUP)
            .replace("duration = 0.05", "duration = 0.4")
            .replace(
                "shape = { kind = \"box\", width = 0.5, height = 0.5 }",
                &format!("shape = {shape}\nfriction = 0.8"),
            )
            .replace("position = [0.0, 0.25]", "position = [0.0, 0.4]");
        let mut model = build(&text).unwrap_or_else(|e| panic!("{shape}: {e}"));
        let mut rows = Rows::default();
        let report = run(&mut model, &mut rows, |_, _, _| {}).unwrap();
        assert!(report.failure.is_none(), "{shape}: {:?}", report.failure);
        let header = record::constraints_header(&model);
        let end = rows.constraints.last().unwrap();
        // Dropped from 0.15 m to 0.4 m above the ground, it lands within the run and rests.
        assert!(
            end[column(&header, "pile.contacts")] >= 1.0,
            "{shape}: {end:?}"
        );
    }
}
