//! # bead-viewer — run a scene and grab it with the mouse
//!
//! The first piece of the Tinkertoy viewer (seed 000 §4: "build models interactively"): it opens
//! a scene file, runs it in real time with play, pause, single step and reset, draws it through
//! the engine's [`bead::draw::Canvas`] (the same description `bead render` draws), and lets the
//! user grab any particle and drag it with the engine's [`MouseSpring`]. All UI logic lives in
//! [`App::ui`] so that tests drive it headlessly (egui_kittest).

#![warn(missing_docs)]

mod canvas;

use bead::force::{ForceId, MouseSpring};
use bead::{ParticleId, Point};
use bead_scene::{Format, Model, Scene};
use eframe::egui;

use canvas::{Transform, WorldPainter};

/// The viewer's state: the scene, the running model, and what the mouse is doing.
pub struct App {
    scene: Option<Scene>,
    model: Option<Model>,
    running: bool,
    /// Simulation steps per drawn frame.
    steps_per_frame: usize,
    show_forces: bool,
    grab: Option<(ForceId, ParticleId)>,
    transform: Option<Transform>,
    status: String,
}

impl Default for App {
    fn default() -> Self {
        App {
            scene: None,
            model: None,
            running: false,
            steps_per_frame: 10,
            show_forces: false,
            grab: None,
            transform: None,
            status: "open a scene: bead-viewer SCENE".into(),
        }
    }
}

/// Stiffness (N/m per kg of the grabbed particle) and damping ratio of the mouse spring.
const GRAB_STIFFNESS: f64 = 200.0;

impl App {
    /// A viewer showing the scene in `text` (`origin` names it in errors).
    pub fn from_scene_text(text: &str, format: Format, origin: &str) -> App {
        let mut app = App::default();
        match Scene::parse(text, format, origin) {
            Ok(scene) => app.load(scene),
            Err(e) => app.status = format!("error: {e}"),
        }
        app
    }

    /// A viewer showing the scene file at `path`.
    pub fn open(path: &std::path::Path) -> App {
        let mut app = App::default();
        match Scene::load(path) {
            Ok(scene) => app.load(scene),
            Err(e) => app.status = format!("error: {e}"),
        }
        app
    }

    fn load(&mut self, scene: Scene) {
        match scene.build() {
            Ok(model) => {
                self.status = format!("{} — press Play, drag a particle", model.name);
                self.model = Some(model);
                self.scene = Some(scene);
                self.transform = None;
                self.grab = None;
            }
            Err(e) => self.status = format!("error: {e}"),
        }
    }

    /// The running model, if a scene is open.
    pub fn model(&self) -> Option<&Model> {
        self.model.as_ref()
    }

    /// Whether the simulation advances by itself each frame.
    pub fn running(&self) -> bool {
        self.running
    }

    /// The status line (the scene's name, or the last error).
    pub fn status(&self) -> &str {
        &self.status
    }

    /// Starts or stops the simulation.
    pub fn set_running(&mut self, running: bool) {
        self.running = running;
    }

    /// Back to the scene's initial state.
    pub fn reset(&mut self) {
        if let Some(scene) = self.scene.take() {
            self.load(scene);
        }
    }

    /// Advances the simulation by one frame's worth of steps; a failure stops it and is shown.
    pub fn advance(&mut self) {
        let Some(model) = self.model.as_mut() else {
            return;
        };
        for _ in 0..self.steps_per_frame {
            if let Err(e) = model.system.step(model.run.dt) {
                self.running = false;
                self.status = format!("stopped: {e}");
                return;
            }
        }
    }

    /// Draws the viewer and handles its input.
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| {
            let label = if self.running { "Pause" } else { "Play" };
            if ui.button(label).clicked() {
                self.running = !self.running;
            }
            if ui.button("Step").clicked() {
                self.running = false;
                self.advance();
            }
            if ui.button("Reset").clicked() {
                self.running = false;
                self.reset();
            }
            ui.add(egui::Slider::new(&mut self.steps_per_frame, 1..=50).text("steps per frame"));
            ui.checkbox(&mut self.show_forces, "constraint forces");
        });
        let time = self.model.as_ref().map_or(0.0, |m| m.system.time());
        ui.label(format!("t = {time:.3} s — {}", self.status));

        let size = ui.available_size();
        let (response, painter) = ui.allocate_painter(size, egui::Sense::click_and_drag());
        let Some(model) = self.model.as_mut() else {
            return;
        };
        let transform = *self
            .transform
            .get_or_insert_with(|| Transform::fit(&model.system, response.rect));
        self.handle_drag(ui, &response, &transform);
        if self.running {
            self.advance();
            ui.ctx().request_repaint();
        }
        let Some(model) = self.model.as_mut() else {
            return;
        };
        let diagnostics = if self.show_forces {
            model.system.diagnostics().ok()
        } else {
            None
        };
        let mut canvas = WorldPainter {
            painter: &painter,
            transform,
            dim: model.system.dim(),
        };
        model.system.draw(&mut canvas, diagnostics.as_ref());
    }

    /// Grab the particle under the press, move the mouse spring's target with the pointer,
    /// release on drop.
    fn handle_drag(&mut self, ui: &egui::Ui, response: &egui::Response, transform: &Transform) {
        let Some(model) = self.model.as_mut() else {
            return;
        };
        let system = &mut model.system;
        if response.drag_started() && self.grab.is_none() {
            // drag_started fires after the drag threshold: pick under where the press began.
            let origin = ui.input(|i| i.pointer.press_origin());
            if let Some(origin) = origin {
                let at = transform.to_world(origin);
                let nearest = model
                    .particles
                    .iter()
                    .filter(|(_, p)| system.mass(p.body()).is_ok_and(f64::is_finite))
                    .map(|(_, p)| {
                        let x = system.position(*p);
                        (*p, (x[0] - at[0]).hypot(x[1] - at[1]))
                    })
                    .min_by(|a, b| a.1.total_cmp(&b.1));
                let pick_radius = 12.0 / transform.scale;
                if let Some((p, d)) = nearest.filter(|(_, d)| *d <= pick_radius) {
                    let _ = d;
                    let m = system.mass(p.body()).unwrap_or(1.0);
                    let k = GRAB_STIFFNESS * m;
                    let c = 2.0 * (k * m).sqrt();
                    let target = system.position(p)[..system.dim()].to_vec();
                    if let Ok(id) =
                        system.add_force(MouseSpring::new(Point::from(p), &target, k, c))
                    {
                        self.grab = Some((id, p));
                    }
                }
            }
        }
        if let (Some((id, _)), Some(pos)) = (self.grab, response.interact_pointer_pos()) {
            let target = transform.to_world(pos);
            let dim = system.dim();
            if let Some(spring) = system.force_mut::<MouseSpring>(id) {
                spring.set_target(&target[..dim]);
            }
        }
        if response.drag_stopped()
            && let Some((id, _)) = self.grab.take()
        {
            system.remove_force(id);
        }
    }

    /// Where particle `p` is drawn, in screen points (once a frame has been laid out).
    pub fn screen_position(&self, p: ParticleId) -> Option<egui::Pos2> {
        let (model, transform) = (self.model.as_ref()?, self.transform.as_ref()?);
        let x = model.system.position(p);
        Some(transform.to_screen([x[0], x[1], 0.0]))
    }

    /// The particle being dragged, if any.
    pub fn grabbed(&self) -> Option<ParticleId> {
        self.grab.map(|(_, p)| p)
    }
}

impl eframe::App for App {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        egui::CentralPanel::default().show(ui, |ui| App::ui(self, ui));
    }
}
