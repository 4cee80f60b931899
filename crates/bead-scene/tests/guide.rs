//! The user's guide (`docs/`, built with mdBook) and the README: every page is in the guide's
//! summary, and every relative link points to a file that exists and, with `#section`, to a
//! heading that exists. mdBook itself does not check links, so a renamed heading would
//! otherwise leave hints and pages pointing nowhere.

#![allow(clippy::unwrap_used)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use bead_scene::schema::anchor;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The targets of the Markdown links `[text](target)` in `text`, outside code blocks and spans.
fn links(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut fenced = false;
    for (n, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Code spans may hold `](` that is not a link.
        let prose: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
        let mut rest = prose.as_str();
        while let Some(start) = rest.find("](") {
            let after = &rest[start + 2..];
            let Some(end) = after.find(')') else { break };
            out.push((n + 1, after[..end].to_string()));
            rest = &after[end..];
        }
    }
    out
}

fn anchors(page: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(page).unwrap();
    let mut fenced = false;
    let mut out = BTreeSet::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            out.insert(anchor(line.trim_start_matches('#').trim()));
        }
    }
    out
}

fn check_links(page: &Path, problems: &mut Vec<String>) {
    let text = std::fs::read_to_string(page).unwrap();
    let dir = page.parent().unwrap();
    for (line, target) in links(&text) {
        if target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        let (file, section) = target.split_once('#').unwrap_or((&target, ""));
        let file = if file.is_empty() {
            page.to_path_buf()
        } else {
            dir.join(file)
        };
        let shown = format!("{}:{line}: ({target})", page.display());
        if !file.exists() {
            problems.push(format!("{shown}: no such file"));
        } else if !section.is_empty()
            && file.extension().is_some_and(|e| e == "md")
            && !anchors(&file).contains(section)
        {
            problems.push(format!("{shown}: no heading with anchor '{section}'"));
        }
    }
}

#[test]
fn every_page_is_in_the_summary_and_every_link_resolves() {
    let docs = root().join("docs");
    let summary = std::fs::read_to_string(docs.join("SUMMARY.md")).unwrap();
    let listed: BTreeSet<String> = links(&summary).into_iter().map(|(_, t)| t).collect();
    let mut problems = Vec::new();
    let mut pages: Vec<PathBuf> = std::fs::read_dir(&docs)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    pages.sort();
    for page in &pages {
        let name = page.file_name().unwrap().to_string_lossy().to_string();
        if name != "SUMMARY.md" && !listed.contains(&name) {
            problems.push(format!("docs/{name} is not in docs/SUMMARY.md"));
        }
        check_links(page, &mut problems);
    }
    check_links(&root().join("README.md"), &mut problems);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_link_reader_finds_links_outside_code_only() {
    let text = "see [a](a.md#b) and `x](y)`\n```\n[c](d)\n```\n[e](f.md)";
    assert_eq!(
        links(text),
        [(1, "a.md#b".to_string()), (5, "f.md".to_string())]
    );
}
