//! The viewer driven headlessly, as a user drives it (egui_kittest): open a scene, play it, grab
//! a particle and drag it, build a model with the tools — add a rod between two particles by
//! dragging, nail one — run it and check the physics, edit it in the inspector, switch the
//! integrator and solver while it runs, save it and read it back.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use bead_scene::Format;
use bead_scene::format::ConstraintSpec;
use bead_viewer::{App, Document, Selection, Tool};
use eframe::egui::{self, Pos2, accesskit::Role};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

fn scenes() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes")
}

fn harness(app: App) -> Harness<'static, App> {
    let mut h = Harness::builder()
        .with_size([1200.0, 800.0])
        // One frame is 1/60 s of real time: the viewer steps the model by as much.
        .with_step_dt(1.0 / 60.0)
        .build_ui_state(|ui, app: &mut App| app.ui(ui), app);
    h.run_steps(2);
    h
}

fn pendulum() -> App {
    App::open(&scenes().join("pendulum.toml"))
}

/// `--frames N` ends even when the model stops in the middle (Pause, or a failed step): a
/// measurement keeps asking for frames until it has them. (It hung: a paused viewer asks for
/// none, and eframe draws only the frames asked for; kittest's `run` steps the same way.)
#[test]
fn a_measurement_ends_when_the_model_is_paused() {
    let mut h = Harness::builder()
        .with_size([1200.0, 800.0])
        .with_step_dt(1.0 / 60.0)
        .with_max_steps(500)
        .build_ui_state(|ui, app: &mut App| app.ui(ui), pendulum());
    h.state_mut().measure_frames(5);
    h.run_steps(3);
    h.get_by_label("Pause").click();
    h.run();
    assert!(!h.state().measuring(), "the measurement finished");
    assert!(!h.state().running());
}

/// `--drag bob 0.5,0.3` played headlessly: the bob is grabbed with the viewer's spring at the
/// first measured frame, pulled towards 0.5 m right and 0.3 m up over 60 frames, held to frame
/// 65 and let go. The summary has every phase, a frame's worth of the scene's steps (16.7
/// of 1 ms on average), the rod within the tolerance, and the spring is gone at the end.
#[test]
fn a_scripted_drag_pulls_holds_and_lets_go() {
    let mut h = Harness::builder()
        .with_size([1200.0, 800.0])
        .with_step_dt(1.0 / 60.0)
        .with_max_steps(1000)
        .build_ui_state(|ui, app: &mut App| app.ui(ui), pendulum());
    let bob = h.state().model().particles[1].1;
    let dt = h.state().model().run.dt;
    let script = bead_viewer::drag::DragScript::parse("bob", "0.5,0.3", 2, 130).unwrap();
    h.state_mut().drag_frames(script).unwrap();
    // Warm-up (30 frames), then the pull's first 40.
    h.run_steps(70);
    assert_eq!(h.state().grabbed(), Some(bead::Point::from(bob)));
    h.run_steps(40);
    assert_eq!(h.state().grabbed(), None, "let go at frame 65");
    h.run_steps(60);
    assert!(!h.state().measuring(), "the drag ended");
    let summary = h.state().drag_summary().unwrap();
    assert_eq!(summary.failure, None);
    // 16 or 17 steps a frame, as the owed time comes: 16.7 on average.
    assert!(
        (summary.steps_per_frame - 1.0 / 60.0 / dt).abs() < 0.1,
        "{summary:?}"
    );
    for phase in summary.phases {
        assert!(phase.simulate[1] > 0.0 && phase.fps > 0.0, "{summary:?}");
    }
    assert!(summary.max_c < 1e-6, "{summary:?}");
    assert_eq!(
        live_forces(&h),
        1,
        "the mouse spring is gone; gravity stays"
    );
    let last = summary.to_string();
    let last = last.lines().last().unwrap();
    assert!(last.starts_with("pull: p95 simulate "), "{last}");
    assert!(last.contains(" m; steps per frame "), "{last}");
}

/// Two particles standing free, 0.6 m apart sideways and 0.3 m down, under gravity.
const TWO_PARTICLES: &str = r#"
format = 1
name = "two particles"
[simulation]
dimension = 2
dt = 0.001
duration = 10.0
[[particles]]
name = "a"
position = [0.0, 0.0]
radius = 0.03
[[particles]]
name = "b"
position = [0.6, -0.3]
radius = 0.03
[[forces]]
kind = "gravity"
g = [0.0, -9.81]
"#;

/// A viewer on [`TWO_PARTICLES`], and where `a` and `b` are drawn.
fn two_particles() -> (Harness<'static, App>, Pos2, Pos2) {
    let h = harness(App::from_scene_text(
        TWO_PARTICLES,
        Format::Toml,
        "two.toml",
    ));
    let (a, b) = (
        h.state().screen_position_of("a").unwrap(),
        h.state().screen_position_of("b").unwrap(),
    );
    (h, a, b)
}

/// Drags the mouse from `from` to `to` in small moves, as a hand does (egui starts a drag only
/// past a threshold), and releases there.
fn drag(h: &mut Harness<'static, App>, from: Pos2, to: Pos2) {
    h.hover_at(from);
    h.run_steps(1);
    h.drag_at(from);
    h.run_steps(1);
    for k in 1..=10 {
        h.hover_at(from + (to - from) * (k as f32 / 10.0));
        h.run_steps(1);
    }
    h.drop_at(to);
    h.run_steps(2);
}

/// The ends and length of the rod at `index` among the scene's constraints.
fn rod(app: &App, index: usize) -> ([String; 2], f64) {
    match app.document().file().constraints.get(index) {
        Some(ConstraintSpec::Distance {
            between,
            length: Some(length),
            ..
        }) => (between.clone().map(|p| p.owner().to_string()), *length),
        other => panic!("constraint {index} is not a rod: {other:?}"),
    }
}

fn click(h: &mut Harness<'static, App>, at: Pos2) {
    h.hover_at(at);
    h.run_steps(1);
    h.drag_at(at);
    h.run_steps(1);
    h.drop_at(at);
    h.run_steps(2);
}

fn distance(app: &App, a: &str, b: &str) -> f64 {
    let sys = &app.model().system;
    let id = |n: &str| {
        app.model()
            .particles
            .iter()
            .find(|(m, _)| m == n)
            .unwrap()
            .1
    };
    let (x, y) = (sys.position(id(a)), sys.position(id(b)));
    ((x[0] - y[0]).powi(2) + (x[1] - y[1]).powi(2)).sqrt()
}

#[test]
fn play_step_and_reset() {
    let mut h = harness(pendulum());
    assert!(!h.state().running());
    h.get_by_label("Step").click();
    h.run_steps(1);
    assert_eq!(h.state().model().system.steps(), 1, "one step of dt");
    h.get_by_label("Play").click();
    h.run_steps(30);
    assert!(h.state().running());
    let t = h.state().model().system.time();
    // 30 frames of 1/60 s in real time.
    assert!((t - 0.501).abs() < 0.02, "t = {t}");
    h.get_by_label("Pause").click();
    h.run_steps(1);
    let paused = h.state().model().system.time();
    assert!(paused >= t && !h.state().running());
    h.run_steps(10);
    assert_eq!(h.state().model().system.time(), paused, "paused");
    h.get_by_label("Reset").click();
    h.run_steps(1);
    assert_eq!(h.state().model().system.time(), 0.0);
    assert!(!h.state().running());
}

#[test]
fn dragging_the_bob_pulls_it_and_the_rod_holds() {
    let mut h = harness(pendulum());
    let model = h.state().model();
    let (pivot, bob) = (model.particles[0].1, model.particles[1].1);
    let start = h.state().screen_position(bob).unwrap();
    let x0 = h.state().model().system.position(bob).to_vec();
    h.hover_at(start);
    h.run_steps(1);
    h.drag_at(start);
    h.run_steps(1);
    // Move the pointer to the left of the bob; past egui's threshold the grab starts.
    let to = egui::pos2(start.x - 150.0, start.y);
    for k in 1..=10 {
        h.hover_at(egui::pos2(start.x - 15.0 * k as f32, start.y));
        h.run_steps(1);
    }
    h.state_mut().set_running(true);
    h.run_steps(60);
    assert_eq!(h.state().grabbed(), Some(bead::Point::from(bob)));
    let sys = &h.state().model().system;
    let x = sys.position(bob).to_vec();
    assert!(
        x[0] < x0[0] - 0.05,
        "the bob moved toward the mouse: {x0:?} → {x:?}"
    );
    let p = sys.position(pivot);
    let length = ((x[0] - p[0]).powi(2) + (x[1] - p[1]).powi(2)).sqrt();
    assert!((length - 1.0).abs() < 1e-6, "rod length {length}");
    h.drop_at(to);
    h.run_steps(2);
    assert_eq!(h.state().grabbed(), None);
    assert_eq!(
        live_forces(&h),
        1,
        "the mouse spring is gone; gravity stays"
    );
}

/// The curtain, the viewer's mesh scene, runs the implicit stepper: pulled out by its bottom
/// corner, every one of its 1711 rods holds to the Newton tolerance (semi-implicit Euler, its
/// integrator before, let a rod stretch by 13 mm under this pull).
#[test]
fn a_pulled_curtain_keeps_every_rod_exact() {
    let mut h = harness(App::open(&scenes().join("curtain.toml")));
    assert_eq!(
        h.state().model().system.integrator().name(),
        "implicit-euler"
    );
    let corner = h.state().model().particles.last().unwrap().1;
    let start = h.state().screen_position(corner).unwrap();
    let x0 = h.state().model().system.position(corner).to_vec();
    h.hover_at(start);
    h.run_steps(1);
    h.drag_at(start);
    h.run_steps(1);
    for k in 1..=10 {
        h.hover_at(egui::pos2(
            start.x + 12.0 * k as f32,
            start.y + 6.0 * k as f32,
        ));
        h.run_steps(1);
    }
    h.state_mut().set_running(true);
    h.run_steps(20);
    assert_eq!(h.state().grabbed(), Some(bead::Point::from(corner)));
    let sys = &h.state().model().system;
    let x = sys.position(corner).to_vec();
    let moved = x
        .iter()
        .zip(&x0)
        .map(|(a, b)| (a - b).powi(2))
        .sum::<f64>()
        .sqrt();
    assert!(moved > 0.01, "the corner follows the mouse: {x0:?} → {x:?}");
    // The rods join grid neighbours n{row}_{col}, 0.04 m apart (the rail's row has none).
    let model = h.state().model();
    let at = |row: usize, col: usize| sys.position(model.particles[row * 30 + col].1).to_vec();
    let mut max_c = 0.0_f64;
    for row in 0..30 {
        for col in 0..30 {
            let here = at(row, col);
            let mut neighbours = Vec::new();
            if row > 0 && col + 1 < 30 {
                neighbours.push(at(row, col + 1));
            }
            if row + 1 < 30 {
                neighbours.push(at(row + 1, col));
            }
            for there in neighbours {
                let d = here
                    .iter()
                    .zip(&there)
                    .map(|(a, b)| (a - b).powi(2))
                    .sum::<f64>();
                max_c = max_c.max((d.sqrt() - 0.04).abs());
            }
        }
    }
    assert!(max_c <= 1e-9, "a rod is off its length by {max_c} m");
}

/// A rigid body is grabbed by the point under the mouse, not by its centre: the mouse spring
/// holds that body point, which then follows the mouse while the joints hold.
#[test]
fn a_rigid_body_is_grabbed_by_the_point_under_the_mouse() {
    let mut h = harness(App::open(&scenes().join("four_bar.toml")));
    let app = h.state();
    let (name, body) = app.model().bodies[1].clone();
    let q = app.model().system.coordinates(body).to_vec();
    // A point a little along the body's x axis from its centre.
    let (s, c) = q[2].sin_cos();
    let world = bead::Point::on_body(body, [0.0, 0.0]);
    let centre = app.screen_point(&world).unwrap();
    let along = egui::vec2(c as f32, -(s as f32)) * 6.0;
    let at = centre + along;
    h.hover_at(at);
    h.run_steps(1);
    h.drag_at(at);
    h.run_steps(1);
    for k in 1..=8 {
        h.hover_at(at + egui::vec2(0.0, 5.0 * k as f32));
        h.run_steps(1);
    }
    let grabbed = h.state().grabbed();
    let Some(bead::Point::OnBody { body: b, local }) = grabbed else {
        panic!(
            "{name}: a body point is held: {grabbed:?} ({})",
            h.state().status()
        );
    };
    assert_eq!(b, body.body());
    assert!(
        local[0] > 0.0 && local[1].abs() < local[0],
        "{local:?}: off the centre, along x"
    );
    assert_eq!(h.state().selection(), None, "{name} is held, not selected");
    h.drop_at(at + egui::vec2(0.0, 40.0));
    h.run_steps(2);
    assert_eq!(h.state().grabbed(), None);
}

/// The forces in the running system (the scene's, and a mouse spring if one is held), counted
/// as the engine draws them.
fn live_forces(h: &Harness<'static, App>) -> usize {
    use bead::draw::{Canvas, Element, Item};
    #[derive(Default)]
    struct Count(usize);
    impl Canvas for Count {
        fn begin(&mut self, item: Item<'_>) {
            if matches!(item, Item::Force(_)) {
                self.0 += 1;
            }
        }
        fn disc(&mut self, _: [f64; 3], _: f64, _: Element) {}
        fn line(&mut self, _: [f64; 3], _: [f64; 3], _: Element) {}
        fn zigzag(&mut self, _: [f64; 3], _: [f64; 3], _: Element) {}
        fn circle(&mut self, _: [f64; 3], _: f64, _: [f64; 3], _: Element) {}
        fn marker(&mut self, _: [f64; 3], _: Element) {}
        fn arrow(&mut self, _: [f64; 3], _: [f64; 3], _: Element) {}
    }
    let mut count = Count::default();
    h.state().model().system.draw(&mut count, None);
    count.0
}

/// Changing the tool in the middle of a drag lets the particle go: no mouse spring is left
/// pulling toward where the mouse was.
#[test]
fn the_mouse_lets_go_when_the_tool_changes_mid_drag() {
    let mut h = harness(pendulum());
    let bob = h.state().model().particles[1].1;
    let start = h.state().screen_position(bob).unwrap();
    h.hover_at(start);
    h.run_steps(1);
    h.drag_at(start);
    h.run_steps(1);
    for k in 1..=8 {
        h.hover_at(start + egui::vec2(-10.0 * k as f32, 0.0));
        h.run_steps(1);
    }
    assert!(h.state().grabbed().is_some());
    assert_eq!(live_forces(&h), 2, "gravity and the mouse spring");
    h.key_press(egui::Key::Num2);
    h.run_steps(2);
    assert_eq!(h.state().grabbed(), None);
    assert_eq!(live_forces(&h), 1);
}

/// The issue's scenario: a rod added by dragging from one particle to another, one end nailed by
/// a click, the model run: the rod keeps its length (1e-6) and the nail its particle, while the
/// other end swings under gravity.
#[test]
fn a_rod_drawn_by_dragging_holds_and_a_nail_holds() {
    let (mut h, a, b) = two_particles();
    h.get_by_label("Rod").click();
    h.run_steps(1);
    assert_eq!(h.state().tool(), Tool::Rod);
    drag(&mut h, a, b);
    let (ends, length) = rod(h.state(), 0);
    assert_eq!(ends, ["a", "b"], "from a to b");
    assert!((length - 0.45f64.sqrt()).abs() < 1e-12, "length {length}");
    assert_eq!(
        h.state().selection(),
        Some(&Selection::Constraint("rod1".into()))
    );

    h.get_by_label("Nail").click();
    h.run_steps(1);
    click(&mut h, a);
    assert!(
        matches!(
            h.state().document().file().constraints.get(1),
            Some(ConstraintSpec::Nail { .. })
        ),
        "{:?}",
        h.state().document().file().constraints
    );

    h.get_by_label("Play").click();
    h.run_steps(120);
    let app = h.state();
    assert!(app.model().system.time() > 1.9, "ran 2 s");
    let d = distance(app, "a", "b");
    assert!((d - length).abs() < 1e-6, "rod length {d} vs {length}");
    let sys = &app.model().system;
    let xa = sys.position(app.model().particles[0].1);
    assert!(
        xa[0].abs() < 1e-6 && xa[1].abs() < 1e-6,
        "the nail holds a: {xa:?}"
    );
    let xb = sys.position(app.model().particles[1].1);
    assert!((xb[0] - 0.6).abs() > 0.05, "b swings: {xb:?}");
}

/// The selection is a rod by name: pulling out a nail that came before it in the scene does not
/// make the inspector, the λ plot or Delete act on another constraint.
#[test]
fn the_selection_follows_its_rod_when_an_earlier_constraint_goes() {
    let (mut h, a, b) = two_particles();
    h.key_press(egui::Key::Num5);
    h.run_steps(1);
    click(&mut h, a);
    h.key_press(egui::Key::Num3);
    h.run_steps(1);
    drag(&mut h, a, b);
    let names = |h: &Harness<'static, App>| -> Vec<String> {
        h.state()
            .model()
            .constraints
            .iter()
            .map(|c| c.name.clone())
            .collect()
    };
    assert_eq!(names(&h), ["nail1", "rod1"]);
    assert_eq!(
        h.state().selection(),
        Some(&Selection::Constraint("rod1".into()))
    );
    h.key_press(egui::Key::Num5);
    h.run_steps(1);
    click(&mut h, a);
    assert_eq!(names(&h), ["rod1"], "{}", h.state().status());
    assert_eq!(
        h.state().selection(),
        Some(&Selection::Constraint("rod1".into()))
    );
    h.key_press(egui::Key::Delete);
    h.run_steps(2);
    assert!(
        names(&h).is_empty(),
        "the selected rod went: {:?}",
        names(&h)
    );
}

/// Building from nothing: particles by clicks, a rod dragged from a particle to empty space
/// (which makes a new particle), a particle deleted by selecting it and pressing Delete.
#[test]
fn building_from_an_empty_scene() {
    let mut h = harness(App::default());
    assert!(h.state().model().particles.is_empty());
    h.key_press(egui::Key::Num2);
    h.run_steps(1);
    assert_eq!(h.state().tool(), Tool::Particle);
    let centre = h.state().canvas().unwrap().center();
    click(&mut h, centre);
    click(&mut h, centre + egui::vec2(120.0, 0.0));
    assert_eq!(h.state().model().particles.len(), 2);
    h.key_press(egui::Key::Num3);
    h.run_steps(1);
    let p1 = h.state().screen_position_of("p1").unwrap();
    drag(&mut h, p1, p1 + egui::vec2(0.0, 100.0));
    let app = h.state();
    assert_eq!(
        app.model().particles.len(),
        3,
        "the rod's free end made a particle"
    );
    let (_, length) = rod(app, 0);
    assert!(
        (distance(app, "p1", "p3") - length).abs() < 1e-9,
        "the rod is as long as the drag"
    );

    h.key_press(egui::Key::Num1);
    h.run_steps(1);
    let p1 = h.state().screen_position_of("p1").unwrap();
    click(&mut h, p1);
    assert_eq!(
        h.state().selection(),
        Some(&Selection::Particle("p1".into()))
    );
    h.key_press(egui::Key::Delete);
    h.run_steps(2);
    let app = h.state();
    let names: Vec<&str> = app
        .model()
        .particles
        .iter()
        .map(|(n, _)| n.as_str())
        .collect();
    assert_eq!(names, ["p2", "p3"]);
    assert!(app.model().constraints.is_empty(), "the rod went with p1");
    h.get_by_label("Play").click();
    h.run_steps(10);
    assert!(h.state().model().system.time() > 0.1, "and the rest runs");
}

/// A rod clicked in the grab tool is selected; its λ is plotted; the inspector changes its
/// length, and the model takes the new length while it runs.
#[test]
fn the_inspector_edits_a_running_model() {
    let mut h = harness(pendulum());
    h.get_by_label("Play").click();
    h.run_steps(20);
    // Pause to aim at the rod, select it, and play on.
    h.key_press(egui::Key::Space);
    h.run_steps(1);
    let app = h.state();
    let (pivot, bob) = (app.model().particles[0].1, app.model().particles[1].1);
    let (p, b) = (
        app.screen_position(pivot).unwrap(),
        app.screen_position(bob).unwrap(),
    );
    click(&mut h, p + (b - p) * 0.5);
    assert_eq!(
        h.state().selection(),
        Some(&Selection::Constraint("rod".into()))
    );
    h.key_press(egui::Key::Space);
    h.run_steps(10);
    let lambda: Vec<(f64, f64)> = h.state().history().lambda(0).collect();
    assert!(
        lambda.len() >= 8,
        "λ of the selected rod is plotted: {}",
        lambda.len()
    );
    assert!(lambda.iter().all(|(_, l)| *l < 0.0), "a hanging rod pulls");

    h.get_by_role_and_label(Role::SpinButton, "length")
        .set_value_accesskit(0.5);
    h.run_steps(60);
    let app = h.state();
    let Some(ConstraintSpec::Distance { length, .. }) = app.document().file().constraints.first()
    else {
        panic!()
    };
    assert_eq!(*length, Some(0.5));
    let d = distance(app, "pivot", "bob");
    assert!((d - 0.5).abs() < 1e-3, "the rod pulled the bob in: {d}");
    assert!(app.running(), "and it kept running");
}

/// Integrator, solver and feedback switched while the model runs.
#[test]
fn settings_switch_while_running() {
    let mut h = harness(pendulum());
    h.get_by_label("Play").click();
    h.run_steps(5);
    combo(&h, "rk4").click();
    // A popup opens over a few frames.
    h.run_steps(3);
    h.get_by_label("midpoint").click();
    h.run_steps(3);
    combo(&h, "cg").click();
    h.run_steps(3);
    h.get_by_label("dense").click();
    h.run_steps(1);
    h.get_by_role_and_label(Role::SpinButton, "  k_s")
        .set_value_accesskit(400.0);
    h.run_steps(10);
    let app = h.state();
    let system = &app.model().system;
    assert_eq!(system.integrator().name(), "midpoint");
    assert_eq!(system.solver().name(), "dense");
    assert_eq!(system.settings().feedback.ks, 400.0);
    assert!(app.running() && system.time() > 0.2);
    assert_eq!(
        app.document().file().simulation.solver.as_deref(),
        Some("dense")
    );
}

/// The combo box showing `current`.
fn combo<'h>(h: &'h Harness<'static, App>, current: &str) -> egui_kittest::Node<'h> {
    h.get_all_by_role(Role::ComboBox)
        .find(|n| n.value().as_deref() == Some(current))
        .unwrap_or_else(|| panic!("no combo box shows {current}"))
}

/// Saved with the Save button, read back by `bead_scene`: the same scene, and it runs.
#[test]
fn save_and_reload_give_the_same_model() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pendulum.toml");
    std::fs::copy(scenes().join("pendulum.toml"), &path).unwrap();
    let mut h = harness(App::open(&path));
    h.get_by_label("Particle").click();
    h.run_steps(1);
    let bob = h.state().screen_position_of("bob").unwrap();
    click(&mut h, bob + egui::vec2(80.0, -40.0));
    h.get_by_label("Spring").click();
    h.run_steps(1);
    let new = h.state().screen_position_of("p1").unwrap();
    drag(&mut h, bob, new);
    assert!(h.state().document().is_dirty());
    h.get_by_label("Save").click();
    h.run_steps(1);
    assert!(!h.state().document().is_dirty(), "{}", h.state().status());

    let saved = Document::open(&path).unwrap();
    assert_eq!(saved.file(), &h.state().document().saved_scene());
    assert_eq!(saved.model().system.q(), h.state().model().system.q());
    assert_eq!(saved.file().forces.len(), 2, "gravity and the new spring");
    // What the viewer saves, the scene loader builds and the engine steps.
    let mut model = bead_scene::Scene::load(&path).unwrap().build().unwrap();
    for _ in 0..100 {
        model.system.step(model.run.dt).unwrap();
    }
}

/// A file dropped on the window opens; with unsaved changes the viewer asks first.
#[test]
fn dropped_files_open_and_unsaved_changes_are_kept_until_discarded() {
    #[derive(Debug)]
    struct Dropped(PathBuf);
    impl egui::DroppedFile for Dropped {
        fn path(&self) -> &Path {
            &self.0
        }
        fn bytes(&self) -> Result<Vec<u8>, String> {
            std::fs::read(&self.0).map_err(|e| e.to_string())
        }
    }
    let drop = |h: &mut Harness<'static, App>, name: &str| {
        h.input_mut()
            .dropped_files
            .push(std::sync::Arc::new(Dropped(scenes().join(name))));
        h.run_steps(2);
    };
    let mut h = harness(App::default());
    drop(&mut h, "double_pendulum.toml");
    assert_eq!(h.state().document().name(), "double pendulum");

    h.key_press(egui::Key::Num5);
    h.run_steps(1);
    let a = h.state().screen_position_of("a").unwrap();
    click(&mut h, a);
    assert!(h.state().document().is_dirty());
    drop(&mut h, "pendulum.toml");
    assert!(h.state().asks_to_discard());
    h.get_by_label("Cancel").click();
    h.run_steps(2);
    assert_eq!(h.state().document().name(), "double pendulum", "kept");
    drop(&mut h, "pendulum.toml");
    h.get_by_label("Discard").click();
    h.run_steps(2);
    assert_eq!(h.state().document().name(), "pendulum");
}

/// A scene that does not load is reported with its location, and the viewer stays usable.
#[test]
fn a_broken_scene_is_reported() {
    let broken =
        TWO_PARTICLES.replace("radius = 0.03\n[[particles]]", "radius = -1\n[[particles]]");
    let mut h = harness(App::from_scene_text(&broken, Format::Toml, "broken.toml"));
    let status = h.state().status().to_string();
    assert!(
        status.contains("broken.toml") && status.contains("particles[0].radius"),
        "{status}"
    );
    h.key_press(egui::Key::Num2);
    h.run_steps(1);
    let centre = h.state().canvas().unwrap().center();
    click(&mut h, centre);
    assert_eq!(h.state().model().particles.len(), 1);
}

/// A bead on a parabolic wire (a parametric object) and a particle below it.
const BEAD_AND_PARTICLE: &str = r#"
format = 1
[simulation]
dimension = 2
dt = 0.001
duration = 10.0
[[parametric]]
name = "cart"
coordinates = [0.3]
points = [{ name = "p", mass = 1.0, radius = 0.05, position = ["u0", "0.5*u0^2"] }]
[[particles]]
name = "bob"
position = [0.3, -0.5]
[[forces]]
kind = "gravity"
g = [0.0, -9.81]
"#;

/// Hybrid models built in the viewer (seed 000 §5.1): a rod dragged from a particle to the point
/// of a parametric object connects to that point, `{ object, point }`, and holds its length while
/// the model runs; the object's point can be grabbed like a particle.
#[test]
fn rods_and_the_mouse_take_points_of_parametric_objects() {
    let mut h = harness(App::from_scene_text(
        BEAD_AND_PARTICLE,
        Format::Toml,
        "hybrid.toml",
    ));
    let cart = h.state().model().objects[0].id.body();
    let point = bead::Point::OfObject {
        body: cart,
        index: 0,
    };
    let bob = h.state().screen_position_of("bob").unwrap();
    let bead_at = h.state().screen_point(&point).unwrap();
    h.get_by_label("Rod").click();
    h.run_steps(1);
    drag(&mut h, bob, bead_at);
    match h.state().document().file().constraints.first() {
        Some(ConstraintSpec::Distance { between, .. }) => assert_eq!(
            between[1],
            bead_scene::format::PointRef::OnObject {
                object: "cart".into(),
                point: "p".into()
            },
            "{}",
            h.state().status()
        ),
        other => panic!("no rod: {other:?} ({})", h.state().status()),
    }
    let (_, length) = rod(h.state(), 0);
    h.get_by_label("Play").click();
    h.run_steps(30);
    let system = &h.state().model().system;
    let (x, y) = (
        system.point_position(&point).unwrap(),
        system.position(h.state().model().particles[0].1),
    );
    let now = (x[0] - y[0]).hypot(x[1] - y[1]);
    assert!((now - length).abs() < 1e-6, "rod {now} vs {length}");
    // Grab the bead on its wire with the pointer.
    h.get_by_label("Grab").click();
    h.run_steps(1);
    let at = h.state().screen_point(&point).unwrap();
    h.hover_at(at);
    h.run_steps(1);
    h.drag_at(at);
    h.run_steps(1);
    for k in 1..=8 {
        h.hover_at(at + egui::vec2(4.0 * k as f32, 0.0));
        h.run_steps(1);
    }
    assert_eq!(h.state().grabbed(), Some(point), "{}", h.state().status());
    h.drop_at(at + egui::vec2(32.0, 0.0));
    h.run_steps(2);
    assert_eq!(h.state().grabbed(), None);
}
