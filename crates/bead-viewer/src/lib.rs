//! # bead-viewer — the Tinkertoy viewer
//!
//! Witkin's aim (seed 000 §4): "build models interactively by snapping the pieces together,
//! drawing freely from a set of useful pre-defined constraints", with a structure that "we can
//! freely change … on the fly". The viewer opens a scene file (or starts from an empty one), runs
//! it in real time, and lets the user grab any particle or body point with the engine's
//! [`MouseSpring`](bead::force::MouseSpring), add particles, rods, springs and nails, delete them,
//! and edit masses, lengths and stiffnesses while the model runs. Live plots show the energy, the
//! constraint error and the λ of the selected constraint; the model saves as a scene file that
//! `bead run` runs.
//!
//! How the pieces fit:
//! - [`Document`] (document.rs): the scene file being edited and the model running from it;
//!   every edit rebuilds the model from the file ([`edit`] has the edits themselves);
//! - viewport.rs: the central canvas — stepping in real time, drawing through the engine's
//!   [`bead::draw::Canvas`] (canvas.rs; 3D solids' faces in depth order, faces.rs), and what the
//!   mouse does with each tool; view.rs: the camera, zoom, pan and orbit;
//! - inspector.rs, toolbar.rs, files.rs: the panels around it; plots.rs: the live plots;
//!   timing.rs: the frame times.
//!
//! All UI logic runs in [`App::ui`], so that tests drive it headlessly (egui_kittest).

#![warn(missing_docs)]
// A SceneError carries its location and hint by value; one is built per failed user action (an
// edit, a load, a save), never on a frame's path, so its size does not matter.
#![allow(clippy::result_large_err)]

mod canvas;
mod document;
pub mod drag;
pub mod edit;
mod faces;
mod files;
mod inspector;
mod plots;
mod timing;
mod toolbar;
mod view;
mod viewport;

use bead::draw::projection::Camera;
use bead::force::ForceId;
use bead::{Diagnostics, ParticleId, Point};
use bead_scene::Format;
use eframe::egui;

pub use document::{Document, EditError, SaveError};
pub use edit::Selection;
pub use plots::History;
pub use timing::{FrameTimes, Series};

use canvas::{Hit, Loads};
use view::View;

/// What a press on the canvas does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    /// Click to select; drag a particle, body or object point to pull it with a mouse spring (an anchor moves
    /// where it is dragged) while the selection stays; drag empty space to pan.
    Grab,
    /// Click to add a particle.
    Particle,
    /// Drag from a point to another, or to empty space (a new particle), to add a rod.
    Rod,
    /// Drag from a point to another, or to empty space, to add a spring.
    Spring,
    /// Click a point to nail it where it is, or to pull its nail out.
    Nail,
}

impl Tool {
    /// Every tool, in toolbar order.
    pub const ALL: [Tool; 5] = [
        Tool::Grab,
        Tool::Particle,
        Tool::Rod,
        Tool::Spring,
        Tool::Nail,
    ];

    /// The toolbar's label.
    pub fn label(self) -> &'static str {
        match self {
            Tool::Grab => "Grab",
            Tool::Particle => "Particle",
            Tool::Rod => "Rod",
            Tool::Spring => "Spring",
            Tool::Nail => "Nail",
        }
    }

    fn hint(self) -> &'static str {
        match self {
            Tool::Grab => {
                "click to select, drag a particle, body or object point to pull it, drag empty space to pan (key 1)"
            }
            Tool::Particle => "click empty space to add a particle (key 2)",
            Tool::Rod => "drag from a particle to another, or to empty space, to add a rod (key 3)",
            Tool::Spring => {
                "drag from a particle to another, or to empty space, to add a spring (key 4)"
            }
            Tool::Nail => {
                "click a particle to nail it where it is, or to pull its nail out (key 5)"
            }
        }
    }
}

/// The properties new pieces get.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NewPieces {
    /// Mass of a new particle, kg.
    pub mass: f64,
    /// Radius of a new particle, m.
    pub radius: f64,
    /// Stiffness of a new spring, N/m.
    pub stiffness: f64,
    /// Damping of a new spring, N·s/m.
    pub damping: f64,
}

impl Default for NewPieces {
    fn default() -> Self {
        NewPieces {
            mass: 1.0,
            radius: 0.05,
            stiffness: 100.0,
            damping: 1.0,
        }
    }
}

/// A point held by the mouse.
#[derive(Clone, Copy, Debug)]
struct Grab {
    point: Point,
    /// The mouse spring, or `None` for an anchor, which is moved where the mouse is.
    spring: Option<ForceId>,
    /// Where the point is pulled to (m): where it was grabbed, then the last target. In 3D the
    /// target moves in the plane through it across the camera's view, so that turning the
    /// camera mid-drag turns the plane with it.
    through: [f64; 3],
    /// Held by `--drag`'s script, not the mouse: the pointer leaves it alone.
    scripted: bool,
}

/// A rod or spring being drawn from a point.
#[derive(Clone, Debug)]
struct Gesture {
    /// The start, as the scene names it.
    from: bead_scene::format::PointRef,
    /// The start in the running model, which may move while the user drags.
    point: Point,
}

/// The status line: what happened last.
#[derive(Clone, Debug, Default)]
struct Status {
    text: String,
    error: bool,
}

/// The viewer: a document, how it runs, and what the user is doing.
pub struct App {
    doc: Document,
    running: bool,
    /// Simulated seconds per real second.
    speed: f64,
    /// Simulated time owed to real time, s.
    owed: f64,
    /// Whether the last frame could not keep up with real time.
    behind: bool,
    tool: Tool,
    selection: Option<Selection>,
    view: Option<View>,
    /// The camera a fitted view starts with: the cabinet, or the turned camera kept by Fit.
    camera: Camera,
    /// Where the canvas was on the last frame.
    canvas: Option<egui::Rect>,
    grab: Option<Grab>,
    gesture: Option<Gesture>,
    show_forces: bool,
    show_tension: bool,
    show_plots: bool,
    /// Anti-aliased drawing (egui's feathering).
    smooth: bool,
    /// The scene's projection settings while projection is turned off.
    projection: Option<bead_scene::format::ProjectionSpec>,
    new: NewPieces,
    /// Loads seen when drawing the last frame: this frame's colour and arrow scales.
    loads: Loads,
    /// Where the last frame drew what.
    hits: Vec<Hit>,
    /// This frame's diagnostics.
    diagnostics: Option<Diagnostics>,
    history: History,
    timing: FrameTimes,
    status: Status,
    files: files::Files,
    measure: Option<Measure>,
    /// `--drag`: the scripted pull, and where its particle was grabbed.
    drag: Option<(drag::DragScript, Option<[f64; 3]>)>,
    /// The last frame's simulation: steps taken and wall time, ms.
    last_simulation: (usize, f64),
}

/// `--frames N`: play N frames, print the frame times, close.
#[derive(Clone, Copy, Debug)]
struct Measure {
    frames: usize,
    done: usize,
}

/// Frames left out of a measurement while the window and the caches warm up.
const WARM_UP_FRAMES: usize = 30;

impl Default for App {
    /// An empty 2D scene with gravity, ready to build on.
    fn default() -> Self {
        App::with_document(Document::new(2))
    }
}

impl App {
    /// A viewer showing `doc`.
    pub fn with_document(doc: Document) -> App {
        let status = Status {
            text: format!("{} — {}", doc.name(), Tool::Grab.hint()),
            error: false,
        };
        App {
            doc,
            running: false,
            speed: 1.0,
            owed: 0.0,
            behind: false,
            tool: Tool::Grab,
            selection: None,
            view: None,
            camera: Camera::default(),
            canvas: None,
            grab: None,
            gesture: None,
            show_forces: false,
            show_tension: true,
            show_plots: true,
            smooth: true,
            projection: None,
            new: NewPieces::default(),
            loads: Loads::default(),
            hits: Vec::new(),
            diagnostics: None,
            history: History::default(),
            timing: FrameTimes::default(),
            status,
            files: files::Files::default(),
            measure: None,
            drag: None,
            last_simulation: (0, 0.0),
        }
    }

    /// A viewer showing the scene in `text` (`origin` names it in errors); an empty scene and the
    /// error if it does not load.
    pub fn from_scene_text(text: &str, format: Format, origin: &str) -> App {
        match Document::from_text(text, format, origin) {
            Ok(doc) => App::with_document(doc),
            Err(e) => App::failed(&e.to_string()),
        }
    }

    /// A viewer showing the scene file at `path`; an empty scene and the error if it does not
    /// load.
    pub fn open(path: &std::path::Path) -> App {
        match Document::open(path) {
            Ok(doc) => App::with_document(doc),
            Err(e) => App::failed(&e.to_string()),
        }
    }

    fn failed(message: &str) -> App {
        let mut app = App::default();
        app.error(message);
        app
    }

    /// Plays `frames` frames, prints the frame times on standard output, and closes the window
    /// (`bead-viewer --frames N`).
    pub fn measure_frames(&mut self, frames: usize) {
        self.measure = Some(Measure { frames, done: 0 });
        self.running = true;
    }

    /// Whether a `--frames` measurement is under way.
    pub fn measuring(&self) -> bool {
        self.measure.is_some()
    }

    /// The document: the scene and its running model.
    pub fn document(&self) -> &Document {
        &self.doc
    }

    /// The running model.
    pub fn model(&self) -> &bead_scene::Model {
        self.doc.model()
    }

    /// Whether the simulation advances by itself each frame.
    pub fn running(&self) -> bool {
        self.running
    }

    /// Starts or stops the simulation.
    pub fn set_running(&mut self, running: bool) {
        self.running = running;
        self.owed = 0.0;
    }

    /// The tool in use.
    pub fn tool(&self) -> Tool {
        self.tool
    }

    /// What is selected.
    pub fn selection(&self) -> Option<&Selection> {
        self.selection.as_ref()
    }

    /// The status line (the last thing that happened, or the last error).
    pub fn status(&self) -> &str {
        &self.status.text
    }

    /// The live plots' data.
    pub fn history(&self) -> &History {
        &self.history
    }

    /// Frame times so far.
    pub fn frame_times(&self) -> &FrameTimes {
        &self.timing
    }

    /// Where particle `p` is drawn, in screen points (once a frame has been laid out).
    pub fn screen_position(&self, p: ParticleId) -> Option<egui::Pos2> {
        self.screen_point(&Point::from(p))
    }

    /// Where any point — a particle, or a point of a rigid body — is drawn, in screen points.
    pub fn screen_point(&self, point: &Point) -> Option<egui::Pos2> {
        let x = self.doc.model().system.point_position(point).ok()?;
        Some(self.view.as_ref()?.to_screen(x))
    }

    /// Where a particle is drawn, by name.
    pub fn screen_position_of(&self, name: &str) -> Option<egui::Pos2> {
        let (_, id) = self.doc.model().particles.iter().find(|(n, _)| n == name)?;
        self.screen_position(*id)
    }

    /// Where the canvas is on screen (once a frame has been laid out).
    pub fn canvas(&self) -> Option<egui::Rect> {
        self.canvas
    }

    /// The point held by the mouse, if any.
    pub fn grabbed(&self) -> Option<Point> {
        self.grab.map(|g| g.point)
    }

    /// Where the mouse pulls the point it holds (world metres), if it holds one.
    ///
    /// ```
    /// assert_eq!(bead_viewer::App::default().grab_target(), None);
    /// ```
    pub fn grab_target(&self) -> Option<[f64; 3]> {
        self.grab.map(|g| g.through)
    }

    /// The camera the model is seen through (once a frame has been laid out): in 3D the
    /// cabinet projection `bead render` draws with until the user turns it.
    ///
    /// ```
    /// // No frame has been laid out: no view yet.
    /// assert_eq!(bead_viewer::App::default().camera(), None);
    /// ```
    pub fn camera(&self) -> Option<Camera> {
        self.view.map(|v| v.camera())
    }

    /// Refits the view to the model, keeping the camera as it is turned (Fit).
    ///
    /// ```
    /// let mut app = bead_viewer::App::default();
    /// app.fit_view(); // takes effect on the next frame
    /// ```
    pub fn fit_view(&mut self) {
        if let Some(view) = self.view {
            self.camera = view.camera();
        }
        self.view = None;
    }

    /// Back to the default camera, the cabinet projection, refitted (Reset view, the Home key).
    ///
    /// ```
    /// let mut app = bead_viewer::App::default();
    /// app.reset_view(); // takes effect on the next frame
    /// ```
    pub fn reset_view(&mut self) {
        self.camera = Camera::default();
        self.view = None;
    }

    fn info(&mut self, text: impl Into<String>) {
        self.status = Status {
            text: text.into(),
            error: false,
        };
    }

    fn error(&mut self, text: impl Into<String>) {
        self.status = Status {
            text: text.into(),
            error: true,
        };
    }

    /// Replaces the document (a new or opened scene): a fresh view, plots and selection.
    fn replace_document(&mut self, doc: Document) {
        self.doc = doc;
        self.projection = None;
        self.running = false;
        self.selection = None;
        self.view = None;
        self.camera = Camera::default();
        self.grab = None;
        self.gesture = None;
        self.history.clear();
        self.timing.clear();
        self.info(format!("{} — {}", self.doc.name(), self.tool.hint()));
    }

    /// Applies an edit (see [`Document::edit`]); a refused edit is shown, not lost in silence.
    /// The mouse spring, which the rebuilt model does not have, is let go.
    fn apply<T>(
        &mut self,
        what: &str,
        edit: impl FnOnce(&mut bead_scene::SceneFile) -> Result<T, String>,
    ) -> Option<T> {
        self.release();
        match self.doc.edit(edit) {
            Ok(out) => {
                self.info(what.to_string());
                Some(out)
            }
            Err(e) => {
                self.error(format!("{what}: {e}"));
                None
            }
        }
    }

    /// Lets go of whatever the mouse holds.
    fn release(&mut self) {
        if let Some(grab) = self.grab.take()
            && let Some(id) = grab.spring
        {
            self.doc.model_mut().system.remove_force(id);
        }
    }

    /// Back to the start state.
    pub fn reset(&mut self) {
        self.release();
        self.running = false;
        match self.doc.reset() {
            Ok(()) => self.info(format!("reset to t = {} s", self.doc.start_time())),
            Err(e) => self.error(e.to_string()),
        }
    }

    /// Advances the model by `steps` steps of its dt; a failed step stops the run and says why.
    pub fn advance(&mut self, steps: usize) {
        self.advance_within(steps, std::time::Duration::MAX);
    }

    /// Draws the viewer and handles its input: everything a frame does.
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        self.timing.frame_started();
        let smooth = self.smooth;
        ui.ctx().tessellation_options_mut(|o| o.feathering = smooth);
        self.files_input(ui);
        self.shortcuts(ui);
        egui::Panel::top("toolbar").show(ui, |ui| self.toolbar(ui));
        // The status line never wraps and the plots keep the size the user gives them, so that
        // the canvas, and the model under the mouse, do not move when a message changes.
        egui::Panel::bottom("status")
            .resizable(false)
            .show(ui, |ui| self.status_line(ui));
        if self.show_plots {
            egui::Panel::bottom("plots")
                .resizable(true)
                .default_size(180.0)
                .show(ui, |ui| self.history.ui(ui));
        }
        egui::Panel::right("inspector")
            .resizable(true)
            .default_size(260.0)
            .show(ui, |ui| {
                egui::ScrollArea::vertical().show(ui, |ui| self.inspector(ui));
            });
        self.drive_drag();
        egui::CentralPanel::default().show(ui, |ui| self.viewport(ui));
        self.dialogs(ui);
        // A measurement counts frames: it needs them to come even when the model stops (a
        // failed step, the user's Pause), or it would never end.
        if self.running || self.grab.is_some() || self.measure.is_some() {
            ui.ctx().request_repaint();
        }
        self.measure_frame(ui);
    }

    fn measure_frame(&mut self, ui: &egui::Ui) {
        let Some(m) = &mut self.measure else { return };
        m.done += 1;
        if m.done == WARM_UP_FRAMES {
            self.timing.clear();
        }
        if let Some(frame) = m.done.checked_sub(WARM_UP_FRAMES + 1) {
            self.record_drag(frame);
        }
        let Some(m) = &mut self.measure else { return };
        if m.done >= WARM_UP_FRAMES + m.frames {
            println!(
                "{}: {} frames after {WARM_UP_FRAMES} of warm-up, {} steps of {} s a frame at speed {}\n{}",
                self.doc.name(),
                m.frames,
                (self.speed / 60.0 / self.doc.model().run.dt).round(),
                self.doc.model().run.dt,
                self.speed,
                self.timing.report()
            );
            if let Some((script, _)) = &self.drag {
                println!("{}", script.summary());
            }
            self.measure = None;
            ui.ctx().send_viewport_cmd(egui::ViewportCommand::Close);
        }
    }

    fn status_line(&mut self, ui: &mut egui::Ui) {
        let system = &self.doc.model().system;
        let fps = if self.timing.frame.recent() > 0.0 {
            1000.0 / self.timing.frame.recent()
        } else {
            0.0
        };
        let facts = format!(
            "t = {:.3} s · {} particles · {} constraint rows · simulate {:.2} ms · draw {:.2} ms · {:.0} fps{} · ",
            system.time(),
            system.particles().count(),
            system.constraint_rows(),
            self.timing.simulate.recent(),
            self.timing.draw.recent(),
            fps,
            if self.behind {
                " · slower than real time"
            } else {
                ""
            }
        );
        let color = if self.status.error {
            egui::Color32::from_rgb(255, 110, 100)
        } else {
            ui.visuals().text_color()
        };
        let mut line = egui::text::LayoutJob::default();
        let font = egui::TextFormat::simple(
            egui::TextStyle::Body.resolve(ui.style()),
            ui.visuals().weak_text_color(),
        );
        line.append(&facts, 0.0, font.clone());
        line.append(&self.status.text, 0.0, egui::TextFormat { color, ..font });
        ui.add(egui::Label::new(line).truncate())
            .on_hover_text(&self.status.text);
    }

    fn shortcuts(&mut self, ui: &egui::Ui) {
        if ui.ctx().egui_wants_keyboard_input() {
            return;
        }
        let (space, delete, escape, home, keys) = ui.input(|i| {
            let keys = [
                egui::Key::Num1,
                egui::Key::Num2,
                egui::Key::Num3,
                egui::Key::Num4,
                egui::Key::Num5,
            ]
            .map(|k| i.key_pressed(k));
            (
                i.key_pressed(egui::Key::Space),
                i.key_pressed(egui::Key::Delete) || i.key_pressed(egui::Key::Backspace),
                i.key_pressed(egui::Key::Escape),
                i.key_pressed(egui::Key::Home),
                keys,
            )
        });
        if home {
            self.reset_view();
        }
        if space {
            self.set_running(!self.running);
        }
        if delete {
            self.delete_selection();
        }
        if escape {
            self.gesture = None;
            self.selection = None;
        }
        if let Some(k) = keys.iter().position(|k| *k) {
            self.set_tool(Tool::ALL[k]);
        }
    }

    /// Chooses the tool.
    pub fn set_tool(&mut self, tool: Tool) {
        self.release();
        self.tool = tool;
        self.gesture = None;
        self.info(tool.hint());
    }

    /// Deletes what is selected (and what holds it, for a particle or body).
    pub fn delete_selection(&mut self) {
        let Some(selection) = self.selection.take() else {
            return;
        };
        let what = format!("deleted {}", self.describe(&selection));
        self.apply(&what, |file| edit::delete(file, &selection));
    }

    /// A short name for a selection, as the inspector shows it.
    fn describe(&self, selection: &Selection) -> String {
        let file = self.doc.file();
        match selection {
            Selection::Particle(n) => format!("particle {n}"),
            Selection::Body(n) => format!("body {n}"),
            Selection::Constraint(name) => format!("constraint {name}"),
            Selection::Force(i) => format!(
                "force {}",
                file.forces
                    .get(*i)
                    .and_then(|f| f.name())
                    .map_or_else(|| format!("#{i}"), str::to_string)
            ),
        }
    }
}

impl eframe::App for App {
    fn ui(&mut self, ui: &mut egui::Ui, frame: &mut eframe::Frame) {
        if let Some(seconds) = frame.info().cpu_usage {
            self.timing
                .cpu
                .push(std::time::Duration::from_secs_f32(seconds));
        }
        App::ui(self, ui);
    }
}
