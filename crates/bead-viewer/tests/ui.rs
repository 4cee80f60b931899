//! The viewer driven headlessly (egui_kittest): open a scene, play it, grab the pendulum's bob
//! and drag it, and check the model — the bob follows the mouse and the rod keeps its length.

#![allow(clippy::unwrap_used)]

use bead_scene::Format;
use bead_viewer::App;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

fn pendulum() -> App {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenes/pendulum.toml"
    ))
    .unwrap();
    App::from_scene_text(&text, Format::Toml, "pendulum.toml")
}

fn harness(app: App) -> Harness<'static, App> {
    Harness::builder()
        .with_size([800.0, 600.0])
        .build_ui_state(|ui, app: &mut App| app.ui(ui), app)
}

#[test]
fn play_button_runs_the_scene() {
    let mut h = harness(pendulum());
    h.run_steps(2);
    assert!(!h.state().running());
    h.get_by_label("Play").click();
    h.run_steps(5);
    assert!(h.state().running());
    let t = h.state().model().unwrap().system.time();
    assert!(t > 0.0, "time advanced: {t}");
}

#[test]
fn dragging_the_bob_pulls_it_and_the_rod_holds() {
    let mut h = harness(pendulum());
    h.run_steps(2);
    let model = h.state().model().unwrap();
    let (pivot, bob) = (model.particles[0].1, model.particles[1].1);
    let start = h.state().screen_position(bob).unwrap();
    let start_x = model.system.position(bob).to_vec();
    h.drag_at(start);
    h.run_steps(1);
    // Move the pointer to the left of the bob; dragging past egui's threshold starts the grab.
    let to = eframe::egui::pos2(start.x - 150.0, start.y);
    for k in 1..=10 {
        h.hover_at(eframe::egui::pos2(start.x - 15.0 * k as f32, start.y));
        h.run_steps(1);
    }
    h.hover_at(to);
    h.state_mut().set_running(true);
    h.run_steps(60);
    assert_eq!(h.state().grabbed(), Some(bob));
    let system = &h.state().model().unwrap().system;
    let x = system.position(bob).to_vec();
    assert!(
        x[0] < start_x[0] - 0.05,
        "the bob moved toward the mouse: {start_x:?} → {x:?}"
    );
    let p = system.position(pivot);
    let length = ((x[0] - p[0]).powi(2) + (x[1] - p[1]).powi(2)).sqrt();
    assert!((length - 1.0).abs() < 1e-6, "rod length {length}");
    h.drop_at(to);
    h.run_steps(2);
    assert_eq!(h.state().grabbed(), None);
}
