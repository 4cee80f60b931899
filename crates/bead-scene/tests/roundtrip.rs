//! Writing scenes back: every example scene survives TOML and JSON round trips unchanged, and its
//! resolved form (every default from the initial geometry written out) builds the same model and
//! keeps its lengths when the particles move.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use bead_scene::format::{ConstraintSpec, ForceSpec, Location};
use bead_scene::{Format, Scene};

fn example_scenes() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes");
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    out.sort();
    out
}

#[test]
fn every_scene_survives_a_round_trip_in_both_formats() {
    for path in example_scenes() {
        let scene = Scene::load(&path).unwrap();
        for format in [Format::Toml, Format::Json] {
            let text = scene.file.to_text(format).unwrap();
            let back = Scene::parse(&text, format, "written").unwrap_or_else(|e| {
                panic!("{} as {format:?} does not read back: {e}", path.display())
            });
            assert_eq!(back.file, scene.file, "{} as {format:?}", path.display());
        }
    }
}

/// The resolved file is the same model: same bodies where they were, the same constraints holding
/// with the same error, the same forces; and resolving it again changes nothing.
#[test]
fn the_resolved_scene_builds_the_same_model() {
    for path in example_scenes() {
        let mut original = Scene::load(&path).unwrap().build().unwrap();
        let resolved = original.resolved.clone();
        let text = resolved.to_text(Format::Toml).unwrap();
        let mut again = Scene::parse(&text, Format::Toml, "resolved")
            .unwrap()
            .build()
            .unwrap();
        let name = path.display();
        assert_eq!(again.resolved, resolved, "{name}: resolving is idempotent");
        assert_eq!(again.system.q(), original.system.q(), "{name}");
        assert_eq!(again.system.q_dot(), original.system.q_dot(), "{name}");
        assert_eq!(again.constraints, original.constraints, "{name}");
        assert_eq!(again.forces.len(), original.forces.len(), "{name}");
        let (d0, d1) = (
            original.system.diagnostics().unwrap(),
            again.system.diagnostics().unwrap(),
        );
        for (a, b) in d0.constraints.iter().zip(&d1.constraints) {
            assert_eq!(a.c, b.c, "{name}, constraint '{}'", a.name);
            assert_eq!(a.lambda.len(), b.lambda.len(), "{name}");
        }
        assert!(
            (d0.total_energy() - d1.total_energy()).abs() <= 1e-12 * d0.total_energy().abs(),
            "{name}"
        );
    }
}

/// What resolving is for: in the file as written the double pendulum's rods and the spring's rest
/// length come from where the particles start, so a file whose particles start elsewhere is
/// another model. In the resolved file they are numbers, and moving a particle stretches the rod
/// instead of changing its length.
#[test]
fn resolved_defaults_do_not_follow_the_particles() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes");
    let scene = Scene::load(&dir.join("spring_and_rod.toml")).unwrap();
    let mut file = scene.build().unwrap().resolved;
    for c in &file.constraints {
        match c {
            ConstraintSpec::Distance { length, .. } => assert!(length.is_some()),
            ConstraintSpec::Nail { at, .. } => assert!(matches!(at, Some(Location::Fixed(_)))),
            _ => {}
        }
    }
    for f in &file.forces {
        if let ForceSpec::Spring { rest_length, .. } = f {
            assert!(rest_length.is_some());
        }
    }
    // Every constraint is named, so removing one does not rename the others.
    let names: Vec<String> = file
        .constraints
        .iter()
        .map(|c| c.name().unwrap().to_string())
        .collect();
    let mut fewer = file.clone();
    fewer.constraints.remove(0);
    let rebuilt = fewer.build("fewer").unwrap();
    let kept: Vec<&str> = rebuilt
        .constraints
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(
        kept,
        names[1..].iter().map(String::as_str).collect::<Vec<_>>()
    );
    let before = scene.build().unwrap().system.diagnostics().unwrap();
    for p in &mut file.particles {
        p.position[0] += 0.25 * p.position[1];
    }
    let moved = file.build("moved").unwrap().system.diagnostics().unwrap();
    let changed = before
        .constraints
        .iter()
        .zip(&moved.constraints)
        .filter(|(a, b)| a.c != b.c)
        .count();
    assert!(
        changed > 0,
        "moving the particles leaves some constraint unsatisfied: the lengths stayed"
    );
}

/// A scene captured mid-run and shifted in time continues exactly as the original: the pendulum
/// on a circling pivot, run to t0, written out with its state at t0 and its motion shifted by t0,
/// then both stepped on (the copy from its own t = 0).
#[test]
fn a_scene_started_later_continues_the_run() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes");
    let mut original = Scene::load(&dir.join("moving_nail.toml"))
        .unwrap()
        .build()
        .unwrap();
    let dt = original.run.dt;
    for k in 1..=700 {
        original.system.step_to(k as f64 * dt).unwrap();
    }
    let t0 = original.system.time();
    let mut file = original.resolved.clone();
    for (spec, (_, id)) in file.particles.iter_mut().zip(&original.particles) {
        spec.position = original.system.position(*id).to_vec();
        spec.velocity = Some(original.system.velocity(*id).to_vec());
    }
    let mut copy = file.starting_at(t0).build("later").unwrap();
    for k in 1..=700 {
        original.system.step_to(t0 + k as f64 * dt).unwrap();
        copy.system.step_to(k as f64 * dt).unwrap();
    }
    for (a, b) in original.system.q().iter().zip(copy.system.q()) {
        assert!((a - b).abs() < 1e-9, "{a} vs {b}");
    }
}
