//! No input panics: every example scene, mutated at random (bytes deleted, inserted or replaced,
//! numbers swapped for extreme values, lines duplicated or dropped), either fails with a
//! `SceneError` or builds a system that steps or returns a `StepError` — never a panic.

#![allow(clippy::unwrap_used)]

use std::path::Path;

use bead_scene::{Format, Scene};
use proptest::prelude::*;

fn example_scenes() -> Vec<(String, Format)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        // The cloth and the curtain are large; their structure is the same as the chain's, so
        // leave them to the CLI test.
        let large = path.ends_with("cloth.toml") || path.ends_with("curtain.toml");
        if path.extension().is_some_and(|e| e == "toml") && !large {
            out.push((std::fs::read_to_string(&path).unwrap(), Format::Toml));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// Values that stress number handling.
const NASTY: &[&str] = &[
    "0",
    "-0.0",
    "nan",
    "inf",
    "-inf",
    "1e308",
    "-1e308",
    "1e-320",
    "\"infinity\"",
    "[]",
    "[0.0]",
    "\"\"",
    "{}",
];

#[derive(Clone, Debug)]
enum Mutation {
    Delete { at: usize, len: usize },
    Insert { at: usize, text: String },
    ReplaceNumber { which: usize, with: usize },
    DuplicateLine { line: usize },
    DropLine { line: usize },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 1..20usize).prop_map(|(at, len)| Mutation::Delete { at, len }),
        (any::<usize>(), "[\\[\\]{}=,\"a-z0-9.\\n -]{1,12}")
            .prop_map(|(at, text)| Mutation::Insert { at, text }),
        (any::<usize>(), 0..NASTY.len())
            .prop_map(|(which, with)| Mutation::ReplaceNumber { which, with }),
        any::<usize>().prop_map(|line| Mutation::DuplicateLine { line }),
        any::<usize>().prop_map(|line| Mutation::DropLine { line }),
    ]
}

fn apply(text: &str, m: &Mutation) -> String {
    let boundary = |at: usize| text.floor_char_boundary(at % (text.len() + 1));
    match m {
        Mutation::Delete { at, len } => {
            let start = boundary(*at);
            let end = text.floor_char_boundary((start + len).min(text.len()));
            format!("{}{}", &text[..start], &text[end..])
        }
        Mutation::Insert { at, text: t } => {
            let at = boundary(*at);
            format!("{}{t}{}", &text[..at], &text[at..])
        }
        Mutation::ReplaceNumber { which, with } => {
            let numbers: Vec<(usize, usize)> = number_spans(text);
            if numbers.is_empty() {
                return text.to_string();
            }
            let (s, e) = numbers[which % numbers.len()];
            format!("{}{}{}", &text[..s], NASTY[*with], &text[e..])
        }
        Mutation::DuplicateLine { line } | Mutation::DropLine { line } => {
            let mut lines: Vec<&str> = text.lines().collect();
            let i = line % lines.len().max(1);
            if matches!(m, Mutation::DuplicateLine { .. }) {
                let l = lines.get(i).copied().unwrap_or("");
                lines.insert(i, l);
            } else if !lines.is_empty() {
                lines.remove(i);
            }
            lines.join("\n")
        }
    }
}

/// Byte spans of the numeric literals in `text`.
fn number_spans(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut spans = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let starts = bytes[i].is_ascii_digit()
            || (bytes[i] == b'-' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit));
        let after_word = i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
        if starts && !after_word {
            let s = i;
            i += 1;
            while i < bytes.len()
                && (bytes[i].is_ascii_digit()
                    || matches!(bytes[i], b'.' | b'e' | b'E' | b'-' | b'+'))
            {
                i += 1;
            }
            spans.push((s, i));
        } else {
            i += 1;
        }
    }
    spans
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn mutated_scenes_never_panic(which in any::<usize>(), mutations in prop::collection::vec(mutation(), 1..4)) {
        let scenes = example_scenes();
        let (text, format) = &scenes[which % scenes.len()];
        let mut text = text.clone();
        for m in &mutations {
            text = apply(&text, m);
        }
        if let Ok(scene) = Scene::parse(&text, *format, "mutated.toml")
            && let Ok(mut model) = scene.build() {
                for _ in 0..5 {
                    let dt = model.run.dt.min(1e-3);
                    if model.system.step(dt).is_err() {
                        break;
                    }
                }
            }
    }
}

#[test]
fn every_example_scene_builds() {
    for (text, format) in example_scenes() {
        Scene::parse(&text, format, "example")
            .unwrap()
            .build()
            .unwrap();
    }
}

/// A case the random search found: the Roman arch with `dt = 1e-320`, under implicit Euler.
/// `ĥ²` underflows to 0, and a contact's bound `λ ≤ ∞` scaled by it became NaN, on which the
/// choice of the rows' roles panicked. It must end in a `StepError`, never a panic.
#[test]
fn an_implicit_step_of_a_denormal_dt_does_not_panic() {
    // The arch by its name: the search's index into the list moves as scenes are added.
    let scenes = example_scenes();
    let Some((text, format)) = scenes
        .iter()
        .find(|(text, _)| text.contains("name = \"roman arch\""))
    else {
        panic!("the Roman arch scene is gone");
    };
    let m = Mutation::ReplaceNumber {
        which: 4031265417560036266,
        with: 7,
    };
    let text = apply(text, &m);
    let mut model = Scene::parse(&text, *format, "mutated.toml")
        .unwrap()
        .build()
        .unwrap();
    let dt = model.run.dt.min(1e-3);
    assert!(
        dt < 1e-300,
        "the mutation no longer makes dt denormal:\n{text}"
    );
    let failed = (0..5).any(|_| model.system.step(dt).is_err());
    assert!(
        failed,
        "the mutated scene stepped without an error:\n{text}"
    );
}

/// A case the random search found: the robot arm under a gravity of 1e308 m/s² along x, under
/// implicit Euler. Its first evaluation is not finite, before the Newton iteration has sized
/// its rows' buffers, and the report of the divergence indexed an empty residual. It must end
/// in a `StepError`, never a panic.
#[test]
fn an_implicit_step_that_diverges_at_once_does_not_panic() {
    let scenes = example_scenes();
    let Some((text, format)) = scenes
        .iter()
        .find(|(text, _)| text.contains("name = \"robot arm\""))
    else {
        panic!("the robot arm scene is gone");
    };
    let text = text.replacen("g = [0.0, 0.0, -9.81]", "g = [1e308, 0.0, -9.81]", 1);
    assert!(text.contains("1e308"), "the robot arm's gravity moved");
    let mut model = Scene::parse(&text, *format, "mutated.toml")
        .unwrap()
        .build()
        .unwrap();
    let dt = model.run.dt.min(1e-3);
    let failed = (0..5).any(|_| model.system.step(dt).is_err());
    assert!(failed, "the arm under 1e308 m/s² stepped without an error");
}
