//! The JSON Schema and the reference page in `docs/` are the ones the format's types generate
//! today, every scene in `scenes/` is valid under the schema, and the schema rejects what the
//! loader rejects for its structure (unknown keys and kinds, missing fields).
//!
//! When the format changes, regenerate the two files with
//! `BEAD_UPDATE_DOCS=1 cargo test -p bead-scene --test schema`.

#![allow(clippy::result_large_err)]

use std::path::{Path, PathBuf};

use bead_scene::schema;
use serde_json::Value;

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Compares a generated document with its copy in the repository, or rewrites the copy when
/// `BEAD_UPDATE_DOCS` is set.
fn check_generated(relative: &str, generated: &str) {
    let path = repository().join(relative);
    if std::env::var_os("BEAD_UPDATE_DOCS").is_some() {
        std::fs::write(&path, generated).expect("write the generated document");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "{relative} is stale: the scene format's types changed. Regenerate it with \
         `BEAD_UPDATE_DOCS=1 cargo test -p bead-scene --test schema` and commit the result."
    );
}

#[test]
fn the_schema_in_docs_is_current() {
    check_generated("docs/scene.schema.json", &schema::json_schema_text());
}

#[test]
fn the_reference_page_in_docs_is_current() {
    check_generated(schema::REFERENCE_PAGE, &schema::reference());
}

/// A TOML document as JSON, the way an editor's schema validator sees it. JSON has no infinity:
/// TOML's `inf` (an anchor's mass) becomes the largest float, still a number.
fn toml_to_json(value: toml::Value) -> Value {
    match value {
        toml::Value::String(s) => Value::String(s),
        toml::Value::Integer(i) => i.into(),
        toml::Value::Float(f) if f.is_infinite() => f64::MAX.copysign(f).into(),
        toml::Value::Float(f) => f.into(),
        toml::Value::Boolean(b) => b.into(),
        toml::Value::Datetime(d) => Value::String(d.to_string()),
        toml::Value::Array(items) => items.into_iter().map(toml_to_json).collect(),
        toml::Value::Table(table) => table
            .into_iter()
            .map(|(k, v)| (k, toml_to_json(v)))
            .collect::<serde_json::Map<_, _>>()
            .into(),
    }
}

fn validator() -> jsonschema::Validator {
    jsonschema::validator_for(&schema::json_schema()).expect("the schema is a valid JSON Schema")
}

fn errors(validator: &jsonschema::Validator, text: &str) -> Vec<String> {
    let document = toml_to_json(toml::from_str(text).expect("valid TOML"));
    validator
        .iter_errors(&document)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

#[test]
fn every_scene_in_the_repository_is_valid_under_the_schema() {
    let validator = validator();
    let mut checked = 0;
    let scenes = std::fs::read_dir(repository().join("scenes")).expect("scenes/ exists");
    for entry in scenes {
        let path = entry.expect("a directory entry").path();
        if path.extension().is_none_or(|e| e != "toml") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("readable scene");
        let found = errors(&validator, &text);
        assert!(found.is_empty(), "{}: {found:#?}", path.display());
        checked += 1;
    }
    assert!(checked >= 20, "only {checked} scenes found");
}

const PENDULUM: &str = r#"
format = 1
[simulation]
dimension = 2
dt = 0.001
duration = 1.0
[[particles]]
name = "bob"
position = [1.0, 0.0]
[[constraints]]
kind = "nail"
point = "bob"
at = [0.0, 0.0]
"#;

#[test]
fn the_schema_rejects_what_the_loader_rejects() {
    let validator = validator();
    assert!(errors(&validator, PENDULUM).is_empty());
    let broken = [
        PENDULUM.replace("position", "positon"),
        PENDULUM.replace("kind = \"nail\"", "kind = \"nial\""),
        PENDULUM.replace("dt = 0.001\n", ""),
        PENDULUM.replace("dimension = 2", "dimension = 4"),
        PENDULUM.replace("format = 1", "format = 2"),
        PENDULUM.replace("duration = 1.0", "duration = 1.0\nintegrator = \"rk5\""),
    ];
    for text in broken {
        assert!(
            !errors(&validator, &text).is_empty(),
            "the schema accepts:\n{text}"
        );
        assert!(
            bead_scene::Scene::parse(&text, bead_scene::Format::Toml, "broken.toml")
                .and_then(|scene| scene.build())
                .is_err(),
            "the loader accepts:\n{text}"
        );
    }
}
