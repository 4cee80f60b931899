//! A constraint's or a force's bad parameter is refused by the engine's own `check`, which names
//! the parameter; the scene points that at the field, its line and column, with the engine's
//! reason and hint.

#![allow(clippy::unwrap_used)]

use bead_scene::{Format, Scene};

const BASE: &str = r#"format = 1

[simulation]
dimension = 2
dt = 0.001
duration = 1.0

[[particles]]
name = "pivot"
position = [0.0, 0.0]
mass = "infinity"

[[particles]]
name = "bob"
position = [1.0, 0.0]

[[bodies]]
name = "wheel"
position = [0.0, 0.5]
mass = 1.0
inertia = 0.1

[[bodies]]
name = "gear"
position = [0.3, 0.5]
mass = 1.0
inertia = 0.1
"#;

/// `(the entry appended to BASE, its faulty line, the field, the message, part of the hint)`.
const CASES: &[(&str, &str, &str, &str, &str)] = &[
    (
        "[[constraints]]\nkind = \"distance\"\nbetween = [\"pivot\", \"bob\"]\nlength = -2.0\n",
        "length = -2.0",
        "constraints[0].length",
        "must be positive and finite, got -2",
        "to join two points use a nail",
    ),
    (
        "[[constraints]]\nkind = \"motor\"\nbody = \"wheel\"\nspeed = 1.0\nmax_torque = -1.0\n",
        "max_torque = -1.0",
        "constraints[0].max_torque",
        "must be positive, got -1",
        "no limit",
    ),
    (
        "[[constraints]]\nkind = \"gear\"\nbetween = [\"wheel\", \"gear\"]\nradii = [0.1, 0.0]\n",
        "radii = [0.1, 0.0]",
        "constraints[0].radii[1]",
        "must be non-zero and finite, got 0",
        "a negative radius makes an internal mesh",
    ),
    (
        "[[constraints]]\nkind = \"half-plane\"\npoint = \"bob\"\n\
         through = [0.0, 0.0]\nnormal = [0.0, 0.0]\n",
        "normal = [0.0, 0.0]",
        "constraints[0].normal",
        "has zero length",
        "non-zero vector",
    ),
    (
        "[[constraints]]\nkind = \"on-plane\"\npoint = \"bob\"\n\
         through = [0.0, 0.0]\nnormal = [0.0, 1.0]\n",
        "kind = \"on-plane\"",
        "constraints[0].kind",
        "on-plane is for 3D systems; in 2D use on-line",
        "",
    ),
    (
        "[[forces]]\nkind = \"spring\"\nbetween = [\"pivot\", \"bob\"]\nstiffness = -5.0\n",
        "stiffness = -5.0",
        "forces[0].stiffness",
        "must be zero or positive and finite, got -5",
        "zero or more",
    ),
    (
        "[[forces]]\nkind = \"torque\"\nbody = \"wheel\"\ntorque = nan\n",
        "torque = nan",
        "forces[0].torque",
        "must be finite, got NaN",
        "nan and inf are not allowed",
    ),
];

#[test]
fn a_bad_parameter_is_reported_at_its_field() {
    for (entry, line, field, message, hint) in CASES {
        let text = format!("{BASE}\n{entry}");
        let err = Scene::parse(&text, Format::Toml, "case.toml")
            .unwrap()
            .build()
            .unwrap_err();
        let expected_line = text.lines().position(|l| l == *line).unwrap() + 1;
        assert_eq!(err.field.as_deref(), Some(*field), "{err}");
        assert_eq!(err.message, *message, "{err}");
        assert_eq!(err.line, Some(expected_line), "{err}");
        assert!(
            err.hint.as_deref().unwrap_or("").contains(hint),
            "hint '{hint}' not in: {err}"
        );
        assert!(
            err.to_string()
                .starts_with(&format!("case.toml:{expected_line}:")),
            "{err}"
        );
    }
}

/// An angle limit's `max` below its `min`: the engine's check says which, the scene where.
#[test]
fn an_angle_limit_upside_down_names_max() {
    let text = format!(
        "{BASE}\n[[constraints]]\nkind = \"angle-limit\"\nbody = \"wheel\"\nmin = 1.0\nmax = 0.5\n"
    );
    let err = Scene::parse(&text, Format::Toml, "case.toml")
        .unwrap()
        .build()
        .unwrap_err();
    assert_eq!(err.field.as_deref(), Some("constraints[0].max"));
    assert_eq!(err.message, "max 0.5 is below min 1");
}
