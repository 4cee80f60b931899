//! A scene that starts off its constraints is said to (issue 28, item 10), and
//! `[simulation] assemble = true` moves it onto them before the first step: to the closed form
//! of the mass-weighted projection, and into the same motion as a scene built there directly.
//! A scene already on its constraints neither warns nor changes with `assemble`.

#![allow(clippy::unwrap_used, clippy::result_large_err)]

use std::path::Path;

use bead_scene::run::{RecordError, Sink, run, summary_json};
use bead_scene::{Format, Model, Scene};

/// A pendulum: a nail at the origin, a bob of 2 kg at `position` moving at `velocity`, a 1 m rod
/// between them, gravity; `simulation` is added to `[simulation]`.
fn pendulum(position: [f64; 2], velocity: [f64; 2], simulation: &str) -> String {
    format!(
        "format = 1\nname = \"pendulum\"\n\
         [simulation]\ndimension = 2\ndt = 0.001\nduration = 0.5\n{simulation}\n\
         [[particles]]\nname = \"nail\"\nposition = [0.0, 0.0]\nmass = \"infinity\"\n\
         [[particles]]\nname = \"bob\"\nposition = [{:?}, {:?}]\nvelocity = [{:?}, {:?}]\n\
         mass = 2.0\n\
         [[forces]]\nkind = \"gravity\"\ng = [0.0, -9.81]\n\
         [[constraints]]\nkind = \"distance\"\nbetween = [\"nail\", \"bob\"]\nlength = 1.0\n\
         name = \"rod\"\n",
        position[0], position[1], velocity[0], velocity[1]
    )
}

fn build(text: &str) -> Model {
    Scene::parse(text, Format::Toml, "test.toml")
        .and_then(|s| s.build())
        .unwrap()
}

/// The bob 1.5 m from the nail (0.5 m off its 1 m rod), at 60° from the downward vertical,
/// moving both along the rod and across it.
const OFF: [f64; 2] = [1.299038105676658, -0.75];
const MOVING: [f64; 2] = [0.3, 1.1];

/// Every state of a run, bit for bit: time, `q` and `q̇` at each recorded row.
#[derive(Default)]
struct States(Vec<Vec<f64>>);

impl Sink for States {
    type Error = RecordError;
    fn record(&mut self, model: &mut Model, _: &bead::Diagnostics) -> Result<(), RecordError> {
        let system = &model.system;
        let mut row = vec![system.time()];
        row.extend_from_slice(system.q());
        row.extend_from_slice(system.q_dot());
        self.0.push(row);
        Ok(())
    }
}

fn states(model: &mut Model) -> Vec<Vec<f64>> {
    let mut states = States::default();
    let report = run(model, &mut states, |_, _, _| {}).unwrap();
    assert!(report.failure.is_none(), "{:?}", report.failure);
    states.0
}

/// Without `assemble`, the start is reported off the rod by 0.5 m (and moving off it), in the
/// check, in the run's report and in summary.json.
#[test]
fn a_bob_off_its_rod_is_reported() {
    let mut model = build(&pendulum(OFF, MOVING, ""));
    let start = bead_scene::start::check(&mut model).unwrap();
    assert!((start.abs_c - 0.5).abs() < 1e-12, "{start:?}");
    // Ċ = x̂ · v: the speed along the rod.
    let along = (OFF[0] * MOVING[0] + OFF[1] * MOVING[1]) / 1.5;
    assert!((start.abs_c_dot - along.abs()).abs() < 1e-12, "{start:?}");
    assert_eq!(start.off.len(), 1);
    let warning = start.warning().unwrap();
    assert!(
        warning.contains("'rod' |C| = 5.000e-1, |Ċ| = ") && warning.contains("assemble = true"),
        "{warning}"
    );
    let report = run(&mut model, &mut States::default(), |_, _, _| {}).unwrap();
    assert!((report.initial_abs_c - 0.5).abs() < 1e-12);
    let summary = summary_json(&model, &report);
    let initial = summary["initial_abs_C"].as_f64().unwrap();
    assert!((initial - 0.5).abs() < 1e-12, "{summary}");
    assert!((summary["initial_abs_Cdot"].as_f64().unwrap() - along.abs()).abs() < 1e-12);
    assert_eq!(summary["assemble"], false);
}

/// With `assemble = true` the bob starts on the rod where the mass-weighted projection puts a
/// single bob, along the rod (`x L / |x|`), with the speed along the rod removed (`J q̇ = 0`);
/// nothing is reported; and it moves exactly as a scene built there directly.
#[test]
fn assemble_starts_the_bob_on_its_rod_in_the_same_motion_as_a_scene_built_there() {
    let mut model = build(&pendulum(OFF, MOVING, "assemble = true"));
    let report = model.assembly.unwrap();
    assert!((report.abs_c - 0.5).abs() < 1e-12);
    let (x, v) = {
        let bob = model.particles[1].1;
        let s = &model.system;
        (
            [s.position(bob)[0], s.position(bob)[1]],
            [s.velocity(bob)[0], s.velocity(bob)[1]],
        )
    };
    let n = [OFF[0] / 1.5, OFF[1] / 1.5];
    let along = MOVING[0] * n[0] + MOVING[1] * n[1];
    for i in 0..2 {
        assert!((x[i] - n[i]).abs() < 1e-12, "{x:?}");
        assert!((v[i] - (MOVING[i] - along * n[i])).abs() < 1e-12, "{v:?}");
    }
    // On the rod and moving along it: |C| and J q̇ within Newton's tolerance.
    let c = x[0].hypot(x[1]) - 1.0;
    let j_v = (x[0] * v[0] + x[1] * v[1]) / x[0].hypot(x[1]);
    assert!(
        c.abs() <= 1e-10 && j_v.abs() <= 1e-10,
        "C = {c}, J q̇ = {j_v}"
    );
    let start = bead_scene::start::check(&mut model).unwrap();
    assert!(
        start.warning().is_none() && start.abs_c <= 1e-10,
        "{start:?}"
    );

    let assembled = states(&mut model);
    let mut direct = build(&pendulum(x, v, ""));
    assert!(
        bead_scene::start::check(&mut direct)
            .unwrap()
            .warning()
            .is_none()
    );
    let direct = states(&mut direct);
    assert_eq!(assembled.len(), 501);
    assert_eq!(assembled, direct);
    // And the motion is the pendulum's: the rod holds.
    let last = assembled.last().unwrap();
    assert!((last[3].hypot(last[4]) - 1.0).abs() < 1e-8);
}

/// Every example scene starts on its constraints: no warning. Where it is within Newton's
/// tolerance (most are exactly), `assemble = true` changes neither the start nor the motion, to
/// the bit; a scene written with rounded positions (within the warning's 1e-6, not within 1e-10)
/// is moved by no more than it was off, onto its constraints.
#[test]
fn scenes_on_their_constraints_neither_warn_nor_change() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes");
    let (mut exact, mut rounded) = (Vec::new(), Vec::new());
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "toml") {
            continue;
        }
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let mut scene = Scene::load(&path).unwrap();
        // A few steps of each: what assembly could change shows from the first.
        scene.file.simulation.duration = 5.0 * scene.file.simulation.dt;
        let mut plain = scene.build().unwrap();
        let start = bead_scene::start::check(&mut plain).unwrap();
        assert!(start.warning().is_none(), "{name}: {:?}", start.warning());
        scene.file.simulation.assemble = Some(true);
        let mut assembled = scene.build().unwrap();
        let report = assembled.assembly.unwrap();
        let tolerance = plain.run.newton_tolerance;
        if start.abs_c <= tolerance && start.abs_c_dot <= tolerance {
            assert_eq!((report.displacement, report.velocity_change), (0.0, 0.0));
        }
        if (report.displacement, report.velocity_change) == (0.0, 0.0) {
            assert_eq!(assembled.system.q(), plain.system.q(), "{name}");
            assert_eq!(assembled.system.q_dot(), plain.system.q_dot(), "{name}");
            assert_eq!(states(&mut assembled), states(&mut plain), "{name}");
            exact.push(name);
        } else {
            assert!(
                report.displacement <= 10.0 * start.abs_c.max(tolerance),
                "{name}"
            );
            let after = bead_scene::start::check(&mut assembled).unwrap();
            // Contacts are held to within the contact tolerance (1e-9), the rest to Newton's.
            assert!(after.abs_c <= tolerance + 1e-9, "{name}: {after:?}");
            rounded.push(name);
        }
    }
    eprintln!("unchanged: {exact:?}\nassembled: {rounded:?}");
    assert!(
        exact.len() >= 15,
        "unchanged: {exact:?}, assembled: {rounded:?}"
    );
    assert!(exact.iter().any(|n| n == "pendulum.toml"), "{exact:?}");
}

/// Constraints that cannot hold together are an error at `assemble`, naming them.
#[test]
fn a_start_that_cannot_be_assembled_is_an_error_naming_the_constraints() {
    let text = pendulum([0.0, -1.0], [0.0, 0.0], "assemble = true")
        + "[[constraints]]\nkind = \"nail\"\npoint = \"bob\"\nat = [0.0, -2.0]\nname = \"held\"\n";
    let err = Scene::parse(&text, Format::Toml, "test.toml")
        .unwrap()
        .build()
        .unwrap_err();
    assert_eq!(err.field.as_deref(), Some("simulation.assemble"));
    assert_eq!(err.line, Some(7), "{err}");
    let message = err.to_string();
    assert!(
        message.contains("'held'") && message.contains("'rod'"),
        "{message}"
    );
}

/// `newton_tolerance` sets how close assembly goes, with any integrator; without `assemble` an
/// explicit integrator still refuses it.
#[test]
fn newton_tolerance_sets_the_assembly_tolerance() {
    let loose = pendulum(OFF, MOVING, "assemble = true\nnewton_tolerance = 1e-3");
    let mut model = build(&loose);
    let start = bead_scene::start::check(&mut model).unwrap();
    assert!(start.abs_c <= 1e-3 && start.tolerance == 1e-3, "{start:?}");
    let err = Scene::parse(
        &pendulum(OFF, MOVING, "newton_tolerance = 1e-3"),
        Format::Toml,
        "test.toml",
    )
    .unwrap()
    .build()
    .unwrap_err();
    assert_eq!(err.field.as_deref(), Some("simulation.newton_tolerance"));
    assert!(err.to_string().contains("assemble = true"), "{err}");
}
