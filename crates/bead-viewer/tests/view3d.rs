//! The viewer in 3D, driven headlessly as a user drives it (egui_kittest): the right button
//! turns the camera and Home turns it back to the cabinet projection `bead render` draws with;
//! a press on a 3D solid grabs the body point under the mouse, whose target then moves in the
//! plane across the camera's view through it.

#![allow(clippy::unwrap_used)]

use bead::Point;
use bead::draw::projection::Camera;
use bead_scene::Format;
use bead_viewer::App;
use eframe::egui::{self, Modifiers, PointerButton, Pos2, Vec2};
use egui_kittest::Harness;

/// A box 0.2 × 0.2 × 0.6 m hanging from a nail at the middle of its top, as a pendulum on a ball
/// joint, at rest.
const HANGING_BOX: &str = r#"
format = 1
name = "hanging box"
[simulation]
dimension = 3
dt = 0.002
duration = 10.0
integrator = "implicit-euler"
[[bodies]]
name = "box"
position = [0.0, 0.0, -0.3]
shape = { kind = "box", size = [0.2, 0.2, 0.6] }
density = 500.0
[[forces]]
kind = "gravity"
g = [0.0, 0.0, -9.81]
[[constraints]]
kind = "nail"
point = { body = "box", local = [0.0, 0.0, 0.3] }
at = [0.0, 0.0, 0.0]
name = "pivot"
"#;

fn harness() -> Harness<'static, App> {
    let app = App::from_scene_text(HANGING_BOX, Format::Toml, "box.toml");
    assert_eq!(app.model().bodies_3d.len(), 1, "{}", app.status());
    let mut h = Harness::builder()
        .with_size([1200.0, 800.0])
        .with_step_dt(1.0 / 60.0)
        .build_ui_state(|ui, app: &mut App| app.ui(ui), app);
    h.run_steps(2);
    h
}

/// Drags with `button` from `from` by `by` in ten moves, holding `modifiers`.
fn drag_with(
    h: &mut Harness<'static, App>,
    button: PointerButton,
    modifiers: Modifiers,
    from: Pos2,
    by: Vec2,
) {
    h.event(egui::Event::ModifiersChanged(modifiers));
    h.hover_at(from);
    h.run_steps(1);
    let press = |pos: Pos2, pressed: bool| egui::Event::PointerButton {
        pos,
        button,
        pressed,
        modifiers,
    };
    h.event(press(from, true));
    h.run_steps(1);
    for k in 1..=10 {
        h.hover_at(from + by * (k as f32 / 10.0));
        h.run_steps(1);
    }
    h.event(press(from + by, false));
    h.event(egui::Event::ModifiersChanged(Modifiers::NONE));
    h.run_steps(2);
}

/// The box's world point at `local` in its frame.
fn world(app: &App, local: [f64; 3]) -> [f64; 3] {
    let id = app.model().bodies_3d[0].1;
    app.model()
        .system
        .point_position(&Point::on_body_3d(id, local))
        .unwrap()
}

/// A 3D scene opens in the cabinet projection. Dragging with the right button turns the camera
/// (to the right: a larger yaw; down: a higher pitch) about the middle of the screen; Shift with
/// the right button pans and leaves it; Home brings the cabinet back.
#[test]
fn the_right_button_orbits_and_home_resets() {
    let mut h = harness();
    assert_eq!(h.state().camera(), Some(Camera::Cabinet));
    let middle = h.state().canvas().unwrap().center();
    let [yaw0, pitch0] = Camera::cabinet_angles();
    drag_with(
        &mut h,
        PointerButton::Secondary,
        Modifiers::NONE,
        middle,
        egui::vec2(60.0, 30.0),
    );
    let Some(Camera::Orbit { yaw, pitch }) = h.state().camera() else {
        panic!("the camera turned: {:?}", h.state().camera());
    };
    assert!(yaw > yaw0 + 0.2 && pitch > pitch0 + 0.1, "{yaw}, {pitch}");
    assert_eq!(h.state().grabbed(), None, "orbiting grabs nothing");
    // Shift pans: the camera stays as it is turned, and the box moves with the mouse.
    let turned = h.state().camera();
    let centre = h.state().screen_point(&Point::on_body_3d(
        h.state().model().bodies_3d[0].1,
        [0.0; 3],
    ));
    drag_with(
        &mut h,
        PointerButton::Secondary,
        Modifiers::SHIFT,
        middle,
        egui::vec2(-50.0, 0.0),
    );
    assert_eq!(h.state().camera(), turned);
    let moved = h.state().screen_point(&Point::on_body_3d(
        h.state().model().bodies_3d[0].1,
        [0.0; 3],
    ));
    // All of the move but the first step, before egui sees a drag.
    let shift = moved.unwrap() - centre.unwrap();
    assert!(
        (shift.x + 45.0).abs() < 1.0 && shift.y.abs() < 1.0,
        "{shift:?}"
    );
    h.key_press(egui::Key::Home);
    h.run_steps(2);
    assert_eq!(h.state().camera(), Some(Camera::Cabinet));
}

/// A press on the box's front face grabs that point of the box (not its centre); as the mouse
/// moves, the spring's target stays in the plane through the grabbed point across the view, and
/// the box swings towards it. After the camera is turned, the plane is the turned view's.
#[test]
fn a_3d_body_is_grabbed_by_the_point_under_the_mouse() {
    for turn in [None, Some(egui::vec2(-70.0, 40.0))] {
        let mut h = harness();
        if let Some(by) = turn {
            let middle = h.state().canvas().unwrap().center() + egui::vec2(200.0, 0.0);
            drag_with(
                &mut h,
                PointerButton::Secondary,
                Modifiers::NONE,
                middle,
                by,
            );
        }
        let camera = h.state().camera().unwrap();
        // A point on a side the camera sees: the front (−y) from the cabinet, and from the turned
        // camera the side facing it most.
        let sides = [
            [1.0, 0.0, 0.0],
            [-1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, -1.0, 0.0],
        ];
        let d = camera.view_direction();
        let side = sides
            .iter()
            .min_by(|a, b| {
                let along = |n: &[f64; 3]| n[0] * d[0] + n[1] * d[1] + n[2] * d[2];
                along(a).total_cmp(&along(b))
            })
            .unwrap();
        let local = [
            0.1 * side[0] + 0.04 * side[1].abs(),
            0.1 * side[1] + 0.04 * side[0].abs(),
            -0.12,
        ];
        let id = h.state().model().bodies_3d[0].1;
        let at = h
            .state()
            .screen_point(&Point::on_body_3d(id, local))
            .unwrap();
        let start = world(h.state(), local);
        drag_with_primary_held(&mut h, at, egui::vec2(60.0, -20.0));
        let grabbed = h.state().grabbed();
        let Some(Point::OnBody3d { body, local: held }) = grabbed else {
            panic!("a body point is held: {grabbed:?} ({})", h.state().status());
        };
        assert_eq!(body, id.body());
        // Within a pixel or two of the point pressed (2 mm a pixel here).
        let off = (0..3)
            .map(|k| (held[k] - local[k]).powi(2))
            .sum::<f64>()
            .sqrt();
        assert!(off < 6e-3, "{camera:?}: held {held:?}, pressed {local:?}");
        let target = h.state().grab_target().unwrap();
        let along = |x: [f64; 3]| match camera {
            // The cabinet's drag plane: constant depth y, which it draws at true shape.
            Camera::Cabinet => x[1],
            Camera::Orbit { .. } => camera.depth(x),
        };
        assert!(
            (along(target) - along(start)).abs() < 6e-3,
            "{camera:?}: the target left the drag plane: {target:?} from {start:?}"
        );
        let gap = |x: [f64; 3]| {
            (0..3)
                .map(|k| (x[k] - target[k]).powi(2))
                .sum::<f64>()
                .sqrt()
        };
        let before = gap(world(h.state(), held));
        assert!(before > 0.05, "the mouse moved away: {before}");
        h.state_mut().set_running(true);
        h.run_steps(30);
        let after = gap(world(h.state(), held));
        assert!(
            after < 0.7 * before,
            "{camera:?}: the box follows: {before} → {after}"
        );
        h.event(egui::Event::PointerButton {
            pos: at,
            button: PointerButton::Primary,
            pressed: false,
            modifiers: Modifiers::NONE,
        });
        h.run_steps(2);
        assert_eq!(h.state().grabbed(), None);
    }
}

/// Presses at `from` and moves by `by` in ten moves, keeping the primary button down.
fn drag_with_primary_held(h: &mut Harness<'static, App>, from: Pos2, by: Vec2) {
    h.hover_at(from);
    h.run_steps(1);
    h.drag_at(from);
    h.run_steps(1);
    for k in 1..=10 {
        h.hover_at(from + by * (k as f32 / 10.0));
        h.run_steps(1);
    }
}

/// A click on a 3D body selects it, and the inspector shows where it is and how it is turned.
#[test]
fn a_click_selects_a_3d_body() {
    let mut h = harness();
    let id = h.state().model().bodies_3d[0].1;
    let at = h
        .state()
        .screen_point(&Point::on_body_3d(id, [0.04, -0.1, -0.2]))
        .unwrap();
    h.hover_at(at);
    h.run_steps(1);
    h.drag_at(at);
    h.run_steps(1);
    h.drop_at(at);
    h.run_steps(2);
    assert_eq!(
        h.state().selection(),
        Some(&bead_viewer::Selection::Body("box".into()))
    );
    use egui_kittest::kittest::Queryable;
    assert!(h.query_by_label_contains("(w, x, y, z)").is_some());
}

/// The Nail tool takes a solid's point as the mouse does: a click on the nailed box pulls its
/// nail out, and the next click nails the box by the body point under the mouse, where it is.
#[test]
fn the_nail_tool_takes_a_solid_s_point() {
    use bead_scene::format::{ConstraintSpec, PointRef};
    let mut h = harness();
    h.state_mut().set_tool(bead_viewer::Tool::Nail);
    let id = h.state().model().bodies_3d[0].1;
    let local = [0.05, -0.1, -0.2];
    let at = h
        .state()
        .screen_point(&Point::on_body_3d(id, local))
        .unwrap();
    let nails = |app: &App| -> Vec<PointRef> {
        let constraints = &app.document().file().constraints;
        constraints
            .iter()
            .filter_map(|c| match c {
                ConstraintSpec::Nail { point, .. } => Some(point.clone()),
                _ => None,
            })
            .collect()
    };
    for expected in [0, 1] {
        h.hover_at(at);
        h.run_steps(1);
        h.drag_at(at);
        h.run_steps(1);
        h.drop_at(at);
        h.run_steps(2);
        assert_eq!(nails(h.state()).len(), expected, "{}", h.state().status());
    }
    let point = nails(h.state()).remove(0);
    let PointRef::OnBody3d { body, local: held } = point else {
        panic!("a point of the box is nailed: {point:?}");
    };
    assert_eq!(body, "box");
    let off = (0..3)
        .map(|k| (held[k] - local[k]).powi(2))
        .sum::<f64>()
        .sqrt();
    assert!(off < 6e-3, "nailed at {held:?}, clicked {local:?}");
}
