//! The engine's house rules, checked on its source: every import points down the layers of
//! `docs/architecture.md`, no two modules import each other (directly or round a cycle), and no
//! file of `src/` passes 800 lines.
//!
//! The module graph is read from the non-test code of `crates/bead/src`: every `crate::` path
//! (in `use` trees and inline) and every `super::` path names the module it resolves to. A
//! module's layer is that of the longest prefix in [`LAYERS`]; a module missing from the table
//! fails the test, so a new top-level module says where it belongs.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The engine's layers, bottom first, and the top-level modules in each. A module may import
/// its own layer and those below it; within a layer the graph must still be acyclic.
const LAYERS: &[(&str, &[&str])] = &[
    ("numerics", &["math", "solve"]),
    (
        "vocabulary",
        &[
            "ids", "error", "view", "draw", "point", "body", "motion", "schedule",
        ],
    ),
    (
        "pieces",
        &["constraint", "force", "autodiff", "collide", "collide3d"],
    ),
    (
        "model",
        &[
            "model",
            "settings",
            "contact",
            "diagnostics",
            "state",
            "drawing",
        ],
    ),
    ("assembly", &["assembly"]),
    ("steppers", &["integrate"]),
    ("dynamics", &["dynamics"]),
    ("step", &["step"]),
    ("facade", &["system"]),
    ("ready-made models", &["models", "primitives"]),
];

/// Longest a file of `src/` may be, tests included.
const MAX_LINES: usize = 800;

#[test]
fn imports_point_down_and_form_no_cycle() {
    let graph = Graph::read(&source_dir());
    let mut wrong = Vec::new();
    for (from, targets) in &graph.edges {
        let layer = layer_of(from);
        for (to, path) in targets {
            let target = layer_of(to);
            if target.0 > layer.0 {
                wrong.push(format!(
                    "{from} ({}) imports {to} ({}) through `{path}`",
                    layer.1, target.1
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports that point up the layers:\n{}",
        wrong.join("\n")
    );
    let cycles = graph.cycles();
    assert!(
        cycles.is_empty(),
        "import cycles:\n{}",
        cycles
            .iter()
            .map(|c| c.join(" → "))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn no_file_passes_the_line_limit() {
    let mut long = Vec::new();
    for file in rust_files(&source_dir()) {
        let lines = std::fs::read_to_string(&file)
            .unwrap_or_else(|e| panic!("{}: {e}", file.display()))
            .lines()
            .count();
        if lines > MAX_LINES {
            long.push(format!("{} has {lines} lines", file.display()));
        }
    }
    assert!(
        long.is_empty(),
        "files over {MAX_LINES} lines:\n{}",
        long.join("\n")
    );
}

/// The check itself is checked: a cycle and an upward import in a made-up crate are found.
#[test]
fn the_check_finds_a_cycle_and_an_upward_import() {
    let dir = std::env::temp_dir().join(format!("bead-layering-{}", std::process::id()));
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{e}"));
        }
        std::fs::write(path, text).unwrap_or_else(|e| panic!("{e}"));
    };
    write("lib.rs", "mod math;\nmod system;\n");
    write(
        "math/mod.rs",
        "//! Numbers.\nmod vector;\nuse crate::system::System; // an upward import\n",
    );
    write("math/vector.rs", "use super::other::X;\n");
    write(
        "math/other.rs",
        "use crate::math::vector::{Y, Z};\n#[cfg(test)]\nmod tests { use crate::system::S; }\n\
         #[cfg(test)]\nmod more;\n",
    );
    write("math/other/more.rs", "use crate::system::T;\n");
    write("system.rs", "use crate::math::vector::V;\n");
    let graph = Graph::read(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(graph.edges["math"].contains_key("system"));
    assert!(
        !graph
            .edges
            .get("math::other")
            .is_some_and(|e| e.contains_key("system")),
        "test code counted"
    );
    assert_eq!(
        graph.cycles(),
        [vec!["math::other", "math::vector", "math::other"]]
    );
}

fn source_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The layer (index and name) of `module`, from its first segment.
fn layer_of(module: &str) -> (usize, &'static str) {
    let top = module.split("::").next().unwrap_or_default();
    LAYERS
        .iter()
        .enumerate()
        .find(|(_, (_, modules))| modules.contains(&top))
        .map(|(i, (name, _))| (i, *name))
        .unwrap_or_else(|| {
            panic!("module `{module}` is in no layer: add it to LAYERS in tests/layering.rs")
        })
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// The module graph: for each module, the modules it imports, each with one path that does.
struct Graph {
    edges: BTreeMap<String, BTreeMap<String, String>>,
}

impl Graph {
    fn read(src: &Path) -> Graph {
        let files: BTreeMap<String, PathBuf> = rust_files(src)
            .into_iter()
            .map(|f| (module_of(src, &f), f))
            .collect();
        let modules: BTreeSet<&str> = files.keys().map(String::as_str).collect();
        // Modules declared `#[cfg(test)] mod name;`: test code in a file of its own.
        let mut tests: Vec<String> = Vec::new();
        for (module, file) in &files {
            let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{e}"));
            let mut rest = text.as_str();
            while let Some(at) = rest.find("#[cfg(test)]") {
                rest = &rest[at + "#[cfg(test)]".len()..];
                let declaration = rest.trim_start();
                if let Some(name) = declaration
                    .strip_prefix("mod ")
                    .and_then(|d| d.split_once(';'))
                    .map(|(name, _)| name.trim())
                    .filter(|name| name.chars().all(|c| c.is_alphanumeric() || c == '_'))
                {
                    tests.push(join(module, name));
                }
            }
        }
        let is_test = |m: &str| {
            tests
                .iter()
                .any(|t| m == t || m.starts_with(&format!("{t}::")))
        };
        let mut edges: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
        for (module, file) in &files {
            if module.is_empty() || is_test(module) {
                // lib.rs declares and re-exports everything; tests may use any layer.
                continue;
            }
            let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{e}"));
            let code = strip_comments(&strip_test_modules(&text));
            for path in paths(&code) {
                // `super` of `a::b` (the file a/b.rs or a/b/mod.rs) is `a`.
                let mut base = module.as_str();
                let mut rest = path.as_str();
                while let Some(r) = rest.strip_prefix("super::") {
                    base = base.rsplit_once("::").map_or("", |(p, _)| p);
                    rest = r;
                }
                let absolute = match rest.strip_prefix("crate::") {
                    Some(r) => r.to_string(),
                    None => join(base, rest),
                };
                let Some(target) = resolve(&modules, &absolute) else {
                    continue;
                };
                // A module's own children and ancestors are its implementation, not imports.
                let related = target == *module
                    || target.starts_with(&format!("{module}::"))
                    || module.starts_with(&format!("{target}::"));
                if !related && !target.is_empty() {
                    edges
                        .entry(module.clone())
                        .or_default()
                        .entry(target)
                        .or_insert(path);
                }
            }
        }
        Graph { edges }
    }

    /// Every cycle (one per strongly connected set of modules), as a closed walk.
    fn cycles(&self) -> Vec<Vec<String>> {
        let nodes: BTreeSet<&String> = self
            .edges
            .keys()
            .chain(self.edges.values().flat_map(|t| t.keys()))
            .collect();
        let mut cycles = Vec::new();
        let mut done: BTreeSet<&String> = BTreeSet::new();
        for &start in &nodes {
            if done.contains(start) {
                continue;
            }
            if let Some(cycle) = self.cycle_through(start) {
                done.extend(nodes.iter().copied().filter(|n| cycle.contains(n)));
                cycles.push(cycle);
            }
            done.insert(start);
        }
        cycles
    }

    /// A shortest closed walk from `start` back to it, if any (breadth first).
    fn cycle_through(&self, start: &String) -> Option<Vec<String>> {
        let mut previous: BTreeMap<&String, &String> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([start]);
        while let Some(node) = queue.pop_front() {
            for next in self.edges.get(node).into_iter().flat_map(|t| t.keys()) {
                if next == start {
                    let mut walk = vec![node.clone()];
                    let mut at = node;
                    while at != start {
                        at = previous[at];
                        walk.push(at.clone());
                    }
                    walk.reverse();
                    walk.push(start.clone());
                    return Some(walk);
                }
                if !previous.contains_key(next) {
                    previous.insert(next, node);
                    queue.push_back(next);
                }
            }
        }
        None
    }
}

/// The module a file of `src` defines: `a/b.rs` and `a/b/mod.rs` are `a::b`, `lib.rs` is "".
fn module_of(src: &Path, file: &Path) -> String {
    let relative = file.strip_prefix(src).unwrap_or(file).with_extension("");
    let mut parts: Vec<String> = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts.join("::")
}

fn join(prefix: &str, rest: &str) -> String {
    if prefix.is_empty() {
        rest.to_string()
    } else {
        format!("{prefix}::{rest}")
    }
}

/// The longest module that `path` (from the crate root) starts with.
fn resolve(modules: &BTreeSet<&str>, path: &str) -> Option<String> {
    let parts: Vec<&str> = path.split("::").collect();
    (1..=parts.len())
        .rev()
        .map(|k| parts[..k].join("::"))
        .find(|m| modules.contains(m.as_str()))
}

/// Removes `#[cfg(test)] mod NAME { … }` blocks: tests may build whole systems from any layer.
fn strip_test_modules(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "#[cfg(test)]".len()..];
        let trimmed = after.trim_start();
        if !trimmed.starts_with("mod ") {
            // Not a module (a test-only item): keep scanning after the attribute.
            rest = after;
            continue;
        }
        let Some(open) = after.find('{') else {
            rest = after;
            continue;
        };
        let mut depth = 0usize;
        let mut end = after.len();
        for (i, ch) in after[open..].char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + i + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// Removes line comments (doc comments included, whose links are not imports).
fn strip_comments(text: &str) -> String {
    text.lines()
        .map(|line| match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every path starting `crate::` or `super::`, with `use` trees expanded.
fn paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    let mut i = 0;
    while i < code.len() {
        let rest = &code[i..];
        let starts = ["crate::", "super::"].iter().any(|p| rest.starts_with(p))
            && (i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_'));
        if !starts {
            i += rest.chars().next().map_or(1, char::len_utf8);
            continue;
        }
        // The path, and a use tree if one follows: up to the end of the tree.
        let mut end = 0;
        let mut depth = 0i32;
        for (k, ch) in rest.char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth < 0 {
                        break;
                    }
                }
                c if depth == 0 && !(c.is_alphanumeric() || c == '_' || c == ':') => break,
                _ => {}
            }
            end = k + ch.len_utf8();
        }
        expand("", &rest[..end], &mut out);
        i += end.max(1);
    }
    out
}

/// Expands a use tree `a::{b, c::{d, e}}` into `a::b`, `a::c::d`, `a::c::e`.
fn expand(prefix: &str, tree: &str, out: &mut Vec<String>) {
    let tree: String = tree.chars().filter(|c| !c.is_whitespace()).collect();
    let Some(open) = tree.find('{') else {
        let path = tree.trim_end_matches("::");
        let path = path.strip_suffix("::self").unwrap_or(path);
        if !path.is_empty() {
            out.push(join(prefix, path));
        }
        return;
    };
    let head = join(prefix, tree[..open].trim_end_matches("::"));
    let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let mut depth = 0;
    let mut start = 0;
    for (k, ch) in inner.char_indices() {
        match ch {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                expand_item(&head, &inner[start..k], out);
                start = k + 1;
            }
            _ => {}
        }
    }
    expand_item(&head, &inner[start..], out);
}

fn expand_item(head: &str, item: &str, out: &mut Vec<String>) {
    let item = item.trim();
    match item {
        "" => {}
        "self" => out.push(head.to_string()),
        _ => expand(head, item.split(" as ").next().unwrap_or(item), out),
    }
}
