//! What the scene tests share: a scene built from text, or the error that refuses it.

// SceneError is returned by value once per failed load, as in the library.
#![allow(clippy::result_large_err)]

use bead_scene::{Format, Model, Scene, SceneError};

/// The model of the TOML scene `text`, panicking with the error if it does not build.
pub fn model(text: &str) -> Model {
    Scene::parse(text, Format::Toml, "test.toml")
        .and_then(|s| s.build())
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Why the TOML scene `text` does not build, panicking if it does.
pub fn error(text: &str) -> SceneError {
    match Scene::parse(text, Format::Toml, "bad.toml").and_then(|s| s.build()) {
        Ok(_) => panic!("the scene built"),
        Err(e) => e,
    }
}
