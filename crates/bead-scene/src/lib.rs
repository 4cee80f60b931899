//! # bead-scene — scene files for bead
//!
//! Reads the scene format (TOML, or the same structure in JSON; `docs/scene-format.md` is its
//! reference, written from [`format`] by [`schema`]), checks it, and builds a [`bead::System`]. Every error names the file, the line and column where known, the
//! field (`constraints[2].between[1]`) and, where there is something useful to say, a hint.
//!
//! ```
//! use bead_scene::{Format, Scene};
//! let text = r#"
//! format = 1
//! name = "pendulum"
//! [simulation]
//! dimension = 2
//! dt = 0.001
//! duration = 1.0
//! [[particles]]
//! name = "pivot"
//! position = [0.0, 0.0]
//! mass = "infinity"
//! [[particles]]
//! name = "bob"
//! position = [1.0, 0.0]
//! [[forces]]
//! kind = "gravity"
//! g = [0.0, -9.81]
//! [[constraints]]
//! kind = "distance"
//! between = ["pivot", "bob"]   # length: the initial distance
//! name = "rod"
//! "#;
//! let scene = Scene::parse(text, Format::Toml, "pendulum.toml")?;
//! let model = scene.build()?;
//! assert_eq!(model.constraints[0].name, "rod");
//! assert_eq!(model.system.dim(), 2);
//!
//! let broken = text.replace(r#"between = ["pivot", "bob"]"#, r#"between = ["pivot", "bobb"]"#);
//! let err = Scene::parse(&broken, Format::Toml, "pendulum.toml")?.build().unwrap_err();
//! assert_eq!(err.line, Some(20));
//! assert!(err.to_string().contains("constraints[0].between[1]: unknown particle 'bobb'"));
//! # Ok::<(), bead_scene::SceneError>(())
//! ```

#![warn(missing_docs)]
// A SceneError carries its location and hint by value; it is built once per failed load, never on
// a hot path, so its size does not matter.
#![allow(clippy::result_large_err)]

mod build;
mod error;
pub mod expression;
pub mod format;
mod locate;
pub mod record;
pub mod run;
pub mod schema;
pub mod start;

use std::path::Path;

pub use build::{Model, NamedConstraint, NamedContacts, RunSettings};
pub use error::SceneError;
pub use format::SceneFile;

/// The two syntaxes of a scene file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// TOML (`.toml`, and any other extension).
    Toml,
    /// JSON (`.json`).
    Json,
}

impl Format {
    /// The format a file name implies: `.json` is JSON, everything else TOML.
    pub fn of(path: &Path) -> Format {
        match path.extension().and_then(|e| e.to_str()) {
            Some(e) if e.eq_ignore_ascii_case("json") => Format::Json,
            _ => Format::Toml,
        }
    }
}

/// A parsed scene file, with its source kept for locating errors found later.
#[derive(Clone, Debug)]
pub struct Scene {
    /// The parsed contents.
    pub file: SceneFile,
    origin: String,
    source: String,
    format: Format,
}

impl Scene {
    /// Reads and parses a scene file (format from the extension).
    pub fn load(path: &Path) -> Result<Scene, SceneError> {
        let origin = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| SceneError {
            file: origin.clone(),
            line: None,
            column: None,
            field: None,
            message: format!("cannot read the file: {e}"),
            hint: None,
            within: None,
        })?;
        Scene::parse(&text, Format::of(path), &origin)
    }

    /// Parses scene text; `origin` names it in errors (a file name, or `<input>`).
    pub fn parse(text: &str, format: Format, origin: &str) -> Result<Scene, SceneError> {
        let parsed = match format {
            Format::Toml => toml::from_str::<SceneFile>(text).map_err(|e| {
                let (line, column) = e.span().map(|s| error::line_column(text, s.start)).unzip();
                let section = line.and_then(|l| toml_table_at(text, l));
                syntax_error(origin, line, column, e.message(), section.as_deref())
            }),
            Format::Json => serde_json::from_str::<SceneFile>(text).map_err(|e| {
                syntax_error(
                    origin,
                    Some(e.line()),
                    Some(e.column()),
                    &strip_position(&e.to_string()),
                    None,
                )
            }),
        };
        Ok(Scene {
            file: parsed?,
            origin: origin.to_string(),
            source: text.to_string(),
            format,
        })
    }

    /// Where the scene came from.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// Builds the system the scene describes.
    pub fn build(&self) -> Result<Model, SceneError> {
        build::build(&self.file).map_err(|mut e| {
            e.file = self.origin.clone();
            if let (Some(field), Format::Toml) = (&e.field, self.format)
                && let Some(span) = locate::toml_span(&self.source, field)
            {
                let start = match e.within {
                    Some(offset) => {
                        span.start + string_content_start(&self.source[span.clone()]) + offset
                    }
                    None => span.start,
                };
                let (line, column) = error::line_column(&self.source, start);
                (e.line, e.column) = (Some(line), Some(column));
            }
            e
        })
    }
}

impl SceneFile {
    /// Builds the system this scene describes. `origin` names it in errors, which name the field
    /// but no line: a scene made in memory (by an editor, say) has no text to point into.
    ///
    /// ```
    /// use bead_scene::{Format, Scene};
    /// let scene = Scene::load(std::path::Path::new("../../scenes/pendulum.toml"))?;
    /// let mut file = scene.build()?.resolved;
    /// file.particles[1].mass = Some(bead_scene::format::MassSpec::Kilograms(2.0));
    /// let model = file.build("edited pendulum")?;
    /// assert_eq!(model.system.mass(model.particles[1].1.body()).unwrap(), 2.0);
    /// # Ok::<(), bead_scene::SceneError>(())
    /// ```
    pub fn build(&self, origin: &str) -> Result<Model, SceneError> {
        build::build(self).map_err(|mut e| {
            e.file = origin.to_string();
            e
        })
    }

    /// The scene as TOML or JSON text, which [`Scene::parse`] reads back to an equal
    /// `SceneFile`.
    ///
    /// ```
    /// use bead_scene::{Format, Scene};
    /// let scene = Scene::load(std::path::Path::new("../../scenes/double_pendulum.toml"))?;
    /// for format in [Format::Toml, Format::Json] {
    ///     let text = scene.file.to_text(format)?;
    ///     assert_eq!(Scene::parse(&text, format, "saved")?.file, scene.file);
    /// }
    /// # Ok::<(), bead_scene::SceneError>(())
    /// ```
    pub fn to_text(&self, format: Format) -> Result<String, SceneError> {
        let mut file = self.clone();
        // JSON has no infinity (serde_json would write null): anchors are written as the word.
        let bodies = file.bodies.iter_mut().flat_map(|b| {
            let inertia = match b.inertia.as_mut() {
                Some(format::InertiaSpec::Moment(m)) => Some(m),
                _ => None,
            };
            [b.mass.as_mut(), inertia]
        });
        let particles = file.particles.iter_mut().map(|p| p.mass.as_mut());
        for m in particles.chain(bodies).flatten() {
            if *m == format::MassSpec::Kilograms(f64::INFINITY) {
                *m = format::MassSpec::Word("infinity".into());
            }
        }
        let text = match format {
            Format::Toml => toml::to_string(&file).map_err(|e| e.to_string()),
            Format::Json => serde_json::to_string_pretty(&file).map_err(|e| e.to_string()),
        };
        text.map_err(|message| SceneError {
            file: file.name.clone().unwrap_or_default(),
            line: None,
            column: None,
            field: None,
            message: format!("cannot write the scene: {message}"),
            hint: None,
            within: None,
        })
    }
}

fn syntax_error(
    origin: &str,
    line: Option<usize>,
    column: Option<usize>,
    message: &str,
    table: Option<&str>,
) -> SceneError {
    let message = message.trim().to_string();
    // Point into the reference page at the table the error is in, when it is known.
    let (reference, keys) = match table {
        Some(key) => {
            let list = schema::json_schema()["properties"][key]["type"] == "array";
            let header = if list {
                format!("[[{key}]]")
            } else {
                format!("[{key}]")
            };
            (schema::section(key), format!("the keys of `{header}`"))
        }
        None => (
            schema::REFERENCE_PAGE.to_string(),
            "the keys of each table".into(),
        ),
    };
    let hint = if message.contains("untagged enum Location") {
        "a location is a vector like [0.0, 1.0], or a motion like { kind = \"circle\", center = [0.0, 0.0], radius = 1.0, angular_velocity = 1.0 }".to_string()
    } else if message.contains("untagged enum MassSpec") {
        "a mass is a number of kilograms, or \"infinity\" for an anchor".to_string()
    } else if message.contains("untagged enum PointRef") {
        "a point is a particle's name in quotes, { body = \"arm\", local = [0.5, 0.0] }, or { object = \"bead\", point = \"p\" }".to_string()
    } else if message.contains("untagged enum ProjectionSpec") {
        "projection = true, or projection = { iterations = 10, tolerance = 1e-12 }".to_string()
    } else if message.contains("unknown field") {
        format!(
            "check the spelling; {reference} lists {keys} (`bead schema --markdown` prints that page)"
        )
    } else if message.contains("missing field") {
        format!("add the field; {reference} lists {keys} and which are required")
    } else if message.contains("unknown variant") {
        format!(
            "check the `kind`; the message lists the kinds that exist, and {reference} describes each"
        )
    } else if message.contains("duplicate key") {
        "each key may appear once per table; remove or rename one of them".to_string()
    } else {
        format!(
            "the scene must be valid TOML (or JSON for .json files) with the structure described in {reference}"
        )
    };
    SceneError {
        file: origin.to_string(),
        line,
        column,
        field: None,
        message,
        hint: Some(hint),
        within: None,
    }
}

/// The top-level key of the TOML table that line `line` (1-based) is in: the name of the last
/// `[table]` or `[[array]]` header above it, when the format has such a key.
fn toml_table_at(text: &str, line: usize) -> Option<String> {
    let header = text.lines().take(line).filter_map(|l| {
        let l = l.trim();
        l.starts_with('[').then(|| {
            l.trim_start_matches('[')
                .split([']', '.'])
                .next()
                .unwrap_or("")
                .trim()
                .to_string()
        })
    });
    let header = header.last()?;
    let schema = schema::json_schema();
    schema["properties"].get(&header).map(|_| header)
}

/// Bytes from the start of a TOML string value to its first character: past `"`, `'`, or the
/// `"""` / `'''` of a multi-line string and the newline TOML drops right after it.
fn string_content_start(value: &str) -> usize {
    let quotes = if value.starts_with("\"\"\"") || value.starts_with("'''") {
        3
    } else if value.starts_with('"') || value.starts_with('\'') {
        1
    } else {
        return 0;
    };
    let rest = &value[quotes..];
    quotes
        + if quotes == 3 && rest.starts_with("\r\n") {
            2
        } else if quotes == 3 && rest.starts_with('\n') {
            1
        } else {
            0
        }
}

/// serde_json appends " at line L column C" to its messages; the location is reported separately.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}
