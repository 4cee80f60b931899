//! The scene format as a JSON Schema, and the reference page written from that schema.
//!
//! Both come from the serde types of [`crate::format`] (schemars reads their fields, their
//! `#[serde]` attributes and their `///` docs), so the format is described once: a field added to
//! a type appears in the schema, in `bead schema` and on the reference page `docs/scene-format.md`
//! without being written again. The names that are plain strings in the types (integrators,
//! solvers, inequality methods) are filled in from the engine's own lists.
//!
//! The schema is JSON Schema draft 2020-12. Editors take it to validate and complete scene
//! files: Taplo (Even Better TOML) through a `#:schema` comment, VS Code through a JSON file's
//! `"$schema"` key.

use serde_json::{Map, Value};

use crate::format::SceneFile;

/// Where the reference page lives in the repository, for hints that point into it.
pub const REFERENCE_PAGE: &str = "docs/scene-format.md";

/// The JSON Schema of a scene file, as a JSON value.
///
/// ```
/// let schema = bead_scene::schema::json_schema();
/// assert_eq!(schema["required"], serde_json::json!(["format", "simulation"]));
/// let integrators = &schema["$defs"]["Simulation"]["properties"]["integrator"]["enum"];
/// assert!(integrators.as_array().is_some_and(|names| names.contains(&"rk4".into())));
/// ```
pub fn json_schema() -> Value {
    let mut schema = schemars::schema_for!(SceneFile).to_value();
    // TOML has no null: an absent key is how an option is left out, in JSON files as well.
    drop_null(&mut schema);
    if let Some(simulation) = schema.pointer_mut("/$defs/Simulation/properties") {
        let names = [
            ("integrator", bead::integrate::INTEGRATOR_NAMES.to_vec()),
            ("solver", bead::solve::SOLVER_NAMES.to_vec()),
            (
                "inequality",
                bead::InequalityMethod::ALL.map(|m| m.name()).to_vec(),
            ),
        ];
        for (key, names) in names {
            if let Some(Value::Object(field)) = simulation.get_mut(key) {
                field.insert("enum".into(), names.into());
            }
        }
    }
    if let Some(Value::Object(format)) = schema.pointer_mut("/properties/format") {
        format.insert("const".into(), 1.into());
    }
    // What an editor shows first: which schema this is, then the rules.
    let Value::Object(rules) = schema else {
        return schema;
    };
    let mut ordered = Map::new();
    ordered.insert("$schema".into(), rules["$schema"].clone());
    ordered.insert("title".into(), "bead scene file".into());
    ordered.insert(
        "description".into(),
        "A scene for bead, the constrained-dynamics engine (format 1). Reference: \
         docs/scene-format.md in bead's repository, or `bead schema --markdown`."
            .into(),
    );
    for (key, value) in rules {
        ordered.entry(key).or_insert(value);
    }
    Value::Object(ordered)
}

/// The JSON Schema of a scene file as pretty-printed text (what `bead schema` prints and
/// `docs/scene.schema.json` holds), ending in a newline.
pub fn json_schema_text() -> String {
    let mut text = serde_json::to_string_pretty(&json_schema()).unwrap_or_default();
    text.push('\n');
    text
}

/// Removes `"null"` from every `type` list and `{"type": "null"}` from every `anyOf`, collapsing
/// what is left to a single schema.
fn drop_null(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if let Some(Value::Array(types)) = map.get_mut("type") {
                types.retain(|t| t != "null");
                if types.len() == 1 {
                    let only = types.remove(0);
                    map.insert("type".into(), only);
                }
            }
            if let Some(Value::Array(options)) = map.get_mut("anyOf") {
                options.retain(|o| o.get("type").is_none_or(|t| t != "null"));
                if options.len() == 1
                    && let Some(Value::Object(only)) = options.pop()
                {
                    map.remove("anyOf");
                    for (k, v) in only {
                        map.entry(k).or_insert(v);
                    }
                }
            }
            map.values_mut().for_each(drop_null);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_null),
        _ => {}
    }
}

/// The reference page of the scene format, in Markdown, written from [`json_schema`]: one
/// section per top-level table, one subsection per `kind` of force and constraint, then the
/// values (points, locations, masses, ...) the tables refer to.
///
/// ```
/// let page = bead_scene::schema::reference();
/// assert!(page.contains("## `[[constraints]]`"));
/// assert!(page.contains("### Constraint: `distance`"));
/// ```
pub fn reference() -> String {
    Reference::new(json_schema()).write()
}

/// The section of the reference page that documents the top-level key `key` (`"constraints"`,
/// `"simulation"`, ...), as a path with its anchor, for hints in error messages.
///
/// ```
/// assert_eq!(
///     bead_scene::schema::section("constraints"),
///     "docs/scene-format.md#constraints"
/// );
/// ```
pub fn section(key: &str) -> String {
    format!("{REFERENCE_PAGE}#{}", anchor(key))
}

/// The anchor GitHub and mdBook give a heading: lower case, spaces to `-`, punctuation dropped.
///
/// ```
/// assert_eq!(bead_scene::schema::anchor("Constraint: `rack-and-pinion`"), "constraint-rack-and-pinion");
/// ```
pub fn anchor(heading: &str) -> String {
    heading
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c.to_ascii_lowercase()),
            _ => None,
        })
        .collect()
}

/// The reader-facing name of a schema definition: `PointRef` → `Point`, `ForceSpec` → `Force`.
fn title(definition: &str) -> &str {
    definition
        .strip_suffix("Spec")
        .or_else(|| definition.strip_suffix("Ref"))
        .unwrap_or(definition)
}

struct Reference {
    schema: Value,
    /// Definitions in the order they are first met, with the anchor of their section.
    order: Vec<String>,
    anchors: Map<String, Value>,
}

impl Reference {
    fn new(schema: Value) -> Reference {
        let mut reference = Reference {
            schema,
            order: Vec::new(),
            anchors: Map::new(),
        };
        // Top-level tables get their own sections, named as written in a file.
        let top: Vec<(String, Value)> = reference.properties(&reference.schema.clone());
        for (key, field) in &top {
            if let Some(definition) = field_definition(field) {
                reference.anchors.insert(definition, anchor(key).into());
            }
        }
        reference.collect(&reference.schema.clone());
        for name in reference.order.clone() {
            if !reference.anchors.contains_key(&name) {
                reference
                    .anchors
                    .insert(name.clone(), anchor(title(&name)).into());
            }
        }
        reference
    }

    fn definition(&self, name: &str) -> Value {
        self.schema["$defs"][name].clone()
    }

    /// Every definition reachable from `value`, depth first, in order of appearance.
    fn collect(&mut self, value: &Value) {
        match value {
            Value::Object(map) => {
                if let Some(name) = map.get("$ref").and_then(Value::as_str).map(definition_name)
                    && !self.order.iter().any(|n| n == name)
                {
                    self.order.push(name.to_string());
                    let definition = self.definition(name);
                    self.collect(&definition);
                }
                for (key, v) in map {
                    if key != "$defs" {
                        self.collect(v);
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|v| self.collect(v)),
            _ => {}
        }
    }

    fn properties(&self, node: &Value) -> Vec<(String, Value)> {
        node.get("properties")
            .and_then(Value::as_object)
            .map(|p| p.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default()
    }

    fn write(&self) -> String {
        let mut page = String::new();
        page.push_str(INTRODUCTION);
        page.push_str("\n## Top level\n");
        page.push_str(&self.table(&self.schema, None));
        let mut written = Vec::new();
        for (key, field) in self.properties(&self.schema) {
            let Some(name) = field_definition(&field) else {
                continue;
            };
            let brackets = if field.get("type") == Some(&"array".into()) {
                format!("[[{key}]]")
            } else {
                format!("[{key}]")
            };
            page.push_str(&format!("\n## `{brackets}`\n\n"));
            self.definition_body(&mut page, &name, "###");
            written.push(name);
        }
        page.push_str("\n## Values\n\nThe values the tables above refer to.\n");
        for name in &self.order {
            if written.contains(name) {
                continue;
            }
            page.push_str(&format!("\n### {}\n\n", title(name)));
            self.definition_body(&mut page, name, "####");
        }
        page.push_str(&expressions());
        page
    }

    /// A definition's description, then its fields, its kinds (a `kind`-tagged enum) or its
    /// alternatives (an untagged enum).
    fn definition_body(&self, page: &mut String, name: &str, level: &str) {
        let definition = self.definition(name);
        page.push_str(&describe(&definition));
        if definition.get("properties").is_some() {
            page.push_str(&self.table(&definition, None));
            return;
        }
        let variants = definition
            .get("oneOf")
            .or_else(|| definition.get("anyOf"))
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        if !variants.is_empty() && variants.iter().all(|v| kind_of(v).is_some()) {
            for variant in &variants {
                let kind = kind_of(variant).unwrap_or_default();
                page.push_str(&format!("\n{level} {}: `{kind}`\n\n", title(name)));
                page.push_str(&describe(variant));
                page.push_str(&self.table(variant, Some("kind")));
            }
        } else if !variants.is_empty() {
            page.push_str("\nOne of:\n\n");
            for variant in &variants {
                let text = one_line(variant.get("description"));
                let shape = if variant.get("properties").is_some() {
                    "a table with".to_string()
                } else {
                    self.type_of(variant)
                };
                page.push_str(&format!("- {shape}"));
                if !text.is_empty() {
                    page.push_str(&format!(": {text}"));
                }
                page.push('\n');
                if variant.get("properties").is_some() {
                    let fields = self.table(variant, None);
                    page.push('\n');
                    for line in fields.lines().filter(|l| !l.is_empty()) {
                        page.push_str(&format!("  {line}\n"));
                    }
                    page.push('\n');
                }
            }
        } else {
            page.push_str(&format!("Type: {}.\n", self.type_of(&definition)));
        }
    }

    /// The field table of an object schema, leaving out the key `skip` (the `kind` tag, which
    /// the heading shows).
    fn table(&self, node: &Value, skip: Option<&str>) -> String {
        let required: Vec<&str> = node
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut rows = String::from("\n| key | type | | description |\n|---|---|---|---|\n");
        for (key, field) in self.properties(node) {
            if Some(key.as_str()) == skip {
                continue;
            }
            let presence = if required.contains(&key.as_str()) {
                "required".to_string()
            } else if let Some(default) = field.get("default") {
                format!("default `{}`", compact(default))
            } else {
                "optional".to_string()
            };
            rows.push_str(&format!(
                "| `{key}` | {} | {presence} | {} |\n",
                cell(&self.type_of(&field)),
                cell(&one_line(field.get("description"))),
            ));
        }
        rows
    }

    /// A short description of the values a schema admits, with links to definitions.
    fn type_of(&self, node: &Value) -> String {
        if let Some(name) = node
            .get("$ref")
            .and_then(Value::as_str)
            .map(definition_name)
        {
            let anchor = self.anchors.get(name).and_then(Value::as_str).unwrap_or("");
            return format!("[{}](#{anchor})", title(name).to_lowercase());
        }
        if let Some(constant) = node.get("const") {
            return format!("`{}`", compact(constant));
        }
        if let Some(Value::Array(names)) = node.get("enum") {
            let names: Vec<String> = names.iter().map(|n| format!("`{}`", compact(n))).collect();
            return names.join(", ");
        }
        if let Some(Value::Array(options)) = node.get("anyOf").or_else(|| node.get("oneOf")) {
            let options: Vec<String> = options.iter().map(|o| self.type_of(o)).collect();
            return options.join(" or ");
        }
        match node.get("type").and_then(Value::as_str) {
            Some("array") => {
                let item = node
                    .get("items")
                    .map(|i| self.type_of(i))
                    .unwrap_or_else(|| "value".into());
                match (node.get("minItems"), node.get("maxItems")) {
                    (Some(min), Some(max)) if min == max => format!("{min} × {item}"),
                    _ => format!("list of {item}"),
                }
            }
            Some("object") => match node.get("additionalProperties") {
                Some(value @ Value::Object(_)) => format!("table of {}", self.type_of(value)),
                _ => "table".into(),
            },
            Some(number @ ("number" | "integer")) => {
                match (node.get("minimum"), node.get("maximum")) {
                    (Some(min), Some(max)) => format!("{number}, {min} to {max}"),
                    (Some(min), None) => format!("{number} ≥ {min}"),
                    _ => number.into(),
                }
            }
            Some(other) => other.into(),
            None => "value".into(),
        }
    }
}

const INTRODUCTION: &str = "# Scene file reference

<!-- Generated from the scene format's types by `bead schema --markdown`; do not edit by hand.
     `cargo test -p bead-scene --test schema` fails when this page is stale. -->

A scene is a TOML file, or the same structure in JSON (a file ending in `.json`). Every table
rejects keys it does not know, so a misspelt key is an error, not a silent default. Points are
referred to by name ([point](#point)); vectors have the scene's dimension, 2 or 3.

The same description is available as a JSON Schema, `docs/scene.schema.json`, also printed by
`bead schema`. Editors use it to check and complete scene files as you type:

- **TOML** (Taplo, and VS Code's *Even Better TOML*): start the file with a comment naming the
  schema, `#:schema ../docs/scene.schema.json` (a path relative to the scene, or a URL).
- **JSON** (VS Code and most editors): a top-level key `\"$schema\": \"../docs/scene.schema.json\"`
  is not part of the format; map the schema to your scene files in the editor's settings instead
  (VS Code: `json.schemas`).
";

/// The section on expressions (parametric positions, expression constraints), from the
/// expression module's own lists and limit, so that the page says what the parser does.
fn expressions() -> String {
    use crate::expression::{MAX_NESTING, RESERVED};
    let functions: Vec<&str> = RESERVED
        .iter()
        .copied()
        .filter(|name| !matches!(*name, "atan2" | "pi"))
        .collect();
    format!(
        "
## Expressions

A parametric point's `position` and an `expression` constraint's `c` are expressions: numbers
(`2`, `0.5`, `1e-3`), the names the field allows (`u0, u1, ...` and `t` in a position;
`ALIAS.x ALIAS.y [ALIAS.z]` and `t` in `c`), `pi`, `+ - * /`, `^` (or `**`) for powers,
parentheses, and the functions
`{}` and `atan2(y, x)`.
A power binds tightest and groups from the right (`2^3^2` is 2⁹); a sign binds looser than a
power (`-u0^2` is −(u0²)). Expressions are evaluated on dual numbers, so every derivative the
engine takes of them is exact. A mistake is reported at its line and column in the file.

An expression may be as long as you like: a sum or product of 100,000 terms is fine. Only
nesting is limited: parentheses and function calls may nest at most **{MAX_NESTING}** deep
(`sin((u0))` is 2 deep); a deeper expression is an error naming the limit, at the parenthesis
that goes past it. The limit keeps a generated or hostile file from overflowing the stack.
",
        functions.join(" ")
    )
}

/// The name of the definition a `$ref` points to.
fn definition_name(reference: &str) -> &str {
    reference.rsplit('/').next().unwrap_or(reference)
}

/// The definition a top-level field refers to, directly or through its list's items.
fn field_definition(field: &Value) -> Option<String> {
    let reference = field
        .get("$ref")
        .or_else(|| field.get("items").and_then(|i| i.get("$ref")))?;
    Some(definition_name(reference.as_str()?).to_string())
}

/// The `kind` constant of a variant of a `kind`-tagged enum.
fn kind_of(variant: &Value) -> Option<String> {
    variant
        .pointer("/properties/kind/const")
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// A description, its lines joined, or nothing.
fn describe(node: &Value) -> String {
    let text = node
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or("");
    if text.is_empty() {
        String::new()
    } else {
        format!("{}\n", text.replace('\n', " "))
    }
}

fn one_line(description: Option<&Value>) -> String {
    description
        .and_then(Value::as_str)
        .unwrap_or("")
        .replace('\n', " ")
}

/// Text that can stand in a Markdown table cell: `|` escaped (GitHub and mdBook both honour
/// `\|`, also inside code spans).
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

fn compact(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_match_the_headings_renderers_make() {
        assert_eq!(anchor("[[constraints]]"), "constraints");
        assert_eq!(
            anchor("Constraint: rack-and-pinion"),
            "constraint-rack-and-pinion"
        );
    }

    #[test]
    fn options_are_never_null() {
        let text = json_schema_text();
        assert!(!text.contains("\"null\""), "{text}");
    }

    #[test]
    fn every_link_on_the_page_has_its_heading() {
        let page = reference();
        let anchors: Vec<String> = page
            .lines()
            .filter_map(|l| l.strip_prefix('#'))
            .map(|h| anchor(h.trim_start_matches('#').trim()))
            .collect();
        for link in page.split("](#").skip(1) {
            let target = link.split(')').next().unwrap_or("");
            assert!(
                anchors.iter().any(|a| a == target),
                "no heading for #{target}"
            );
        }
    }
}
