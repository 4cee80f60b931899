//! The central canvas: the model stepped in real time, drawn through the engine's
//! [`bead::draw::Canvas`], and what a press, a click or a drag does with each [`Tool`].
//!
//! Picking uses where the previous frame drew each piece (the canvas records it), so whatever a
//! constraint draws — a line, a circle, a marker — is what the user clicks on, with no per-type
//! code here.

use std::time::{Duration, Instant};

use bead::force::MouseSpring;
use bead::{Point, System};
use bead_scene::format::PointRef;
use eframe::egui::{self, Color32, PointerButton, Pos2, Sense, Stroke};

use crate::canvas::{ARROW_LENGTH, Owner, Style, WorldPainter, pick, surface_point};
use crate::view::View;
use crate::{App, Gesture, Grab, Selection, Tool, edit};

/// Stiffness of the mouse spring per kilogram of the model's moving mass, N/m per kg: a point
/// pulls what hangs on it, so the spring is sized by what the user moves (a pendulum's bob is
/// pulled at 14 rad/s), not by the particle under the mouse (a cloth's corner weighs grams).
const GRAB_STIFFNESS: f64 = 200.0;
/// The mouse spring on its point alone stays this far inside the integrators' stability region:
/// its frequency times dt at most.
const GRAB_OMEGA_DT: f64 = 0.3;
/// How far from a piece a click still hits it, in points.
const PICK_TOLERANCE: f32 = 8.0;
/// Wall time a frame may spend simulating before it gives up keeping real time.
const SIMULATION_BUDGET: Duration = Duration::from_millis(50);

impl App {
    pub(crate) fn viewport(&mut self, ui: &mut egui::Ui) {
        let (response, painter) = ui.allocate_painter(ui.available_size(), Sense::click_and_drag());
        let rect = response.rect;
        self.canvas = Some(rect);
        let mut view = match self.view {
            Some(view) => view,
            None => View::fit(&self.doc.model().system, rect, self.camera),
        };
        view.place(rect);
        zoom_and_pan(ui, &response, &mut view);
        self.pointer(ui, &response, &mut view);
        self.view = Some(view);
        if self.running {
            self.run_frame(ui);
        }
        let wanted = self.show_forces || self.show_tension || self.show_plots;
        self.diagnostics = None;
        if wanted {
            match self.doc.model_mut().system.diagnostics() {
                Ok(d) => self.diagnostics = Some(d),
                Err(e) => {
                    self.running = false;
                    self.error(format!("stopped: {e}"));
                }
            }
        }
        if let Some(d) = &self.diagnostics {
            let followed = match &self.selection {
                Some(Selection::Constraint(name)) => Some(name.as_str()),
                _ => None,
            };
            self.history.record(d, followed);
        }
        self.draw(&painter, &view);
        self.overlays(ui, &painter, rect, &view);
    }

    /// Steps as far as real time (times the speed) went since the last frame, within the budget.
    fn run_frame(&mut self, ui: &egui::Ui) {
        // Measuring the frame budget: a 60 Hz frame's worth of steps every frame, however long
        // frames take, so that the time per frame is that of a fixed amount of work.
        let (frame, budget) = if self.measure.is_some() {
            (1.0 / 60.0, Duration::MAX)
        } else {
            (
                f64::from(ui.input(|i| i.stable_dt)).min(0.1),
                SIMULATION_BUDGET,
            )
        };
        let dt = self.doc.model().run.dt;
        self.owed += frame * self.speed;
        // A hair of tolerance so that 1/60 s of dt = 1/600 s is 10 steps, not 9.
        let wanted = (self.owed / dt + 1e-6).floor() as usize;
        let done = self.advance_within(wanted, budget);
        self.behind = done < wanted;
        self.owed = if self.behind {
            // Do not try to catch up later: the model simply runs slower than real time.
            0.0
        } else {
            (self.owed - done as f64 * dt).max(0.0)
        };
    }

    /// Takes up to `steps` steps, stopping early past `budget`; returns how many it took.
    pub(crate) fn advance_within(&mut self, steps: usize, budget: Duration) -> usize {
        let dt = self.doc.model().run.dt;
        let system = &mut self.doc.model_mut().system;
        let start = Instant::now();
        let mut done = 0;
        let mut failure = None;
        self.timing.simulate.time(|| {
            while done < steps && start.elapsed() < budget {
                if let Err(e) = system.step(dt) {
                    failure = Some(e);
                    break;
                }
                done += 1;
            }
        });
        self.last_simulation = (done, start.elapsed().as_secs_f64() * 1e3);
        if let Some(e) = failure {
            self.running = false;
            self.error(format!("stopped: {e}"));
        }
        done
    }

    fn draw(&mut self, painter: &egui::Painter, view: &View) {
        let style = Style {
            tension: self.show_tension,
            tension_scale: self.loads.rod,
            arrows: self.show_forces,
            arrow_scale: f64::from(ARROW_LENGTH) / self.loads.arrow.max(1e-12),
            selected: self.selection.as_ref().and_then(|s| self.owner_of(s)),
        };
        let system = &self.doc.model().system;
        let mut canvas = WorldPainter::new(painter, *view, style, &mut self.hits);
        let diagnostics = self.diagnostics.as_ref();
        self.timing.draw.time(|| {
            system.draw(&mut canvas, diagnostics);
            self.loads = canvas.finish();
        });
    }

    fn overlays(&self, ui: &egui::Ui, painter: &egui::Painter, rect: egui::Rect, view: &View) {
        let font = egui::FontId::proportional(12.0);
        let text = ui.visuals().weak_text_color();
        if let (Some(g), Some(p)) = (&self.gesture, ui.input(|i| i.pointer.hover_pos()))
            && let Ok(from) = self.doc.model().system.point_position(&g.point)
        {
            let color = if self.tool == Tool::Spring {
                Color32::from_rgb(90, 160, 255)
            } else {
                Color32::from_rgb(255, 160, 0)
            };
            painter.line_segment([view.to_screen(from), p], Stroke::new(2.0, color));
        }
        let mut notes = Vec::new();
        if self.show_tension && self.loads.rod > 0.0 {
            notes.push(format!(
                "rods: red pulls (tension), blue pushes; full colour at {:.3} N",
                self.loads.rod
            ));
        }
        if self.show_forces && self.loads.arrow > 0.0 {
            notes.push(format!(
                "constraint forces Jᵀλ: {ARROW_LENGTH:.0} pt = {:.3} N",
                self.loads.arrow
            ));
        }
        for (k, note) in notes.iter().enumerate() {
            painter.text(
                rect.left_bottom() + egui::vec2(8.0, -8.0 - 16.0 * k as f32),
                egui::Align2::LEFT_BOTTOM,
                note,
                font.clone(),
                text,
            );
        }
        let system = &self.doc.model().system;
        if system.particles().next().is_none()
            && system.rigid_bodies().next().is_none()
            && system.rigid_bodies_3d().next().is_none()
        {
            painter.text(
                rect.center(),
                egui::Align2::CENTER_CENTER,
                "An empty scene: choose Particle (key 2) and click to add particles,\nthen Rod (3) and drag between them. Or open a scene file, or drop one here.",
                egui::FontId::proportional(15.0),
                text,
            );
        }
        if ui.input(|i| !i.raw.hovered_files.is_empty()) {
            painter.rect_filled(rect, 0.0, Color32::from_black_alpha(160));
            painter.text(
                rect.center(),
                egui::Align2::CENTER_CENTER,
                "Drop a scene file (.toml or .json) to open it",
                egui::FontId::proportional(20.0),
                Color32::WHITE,
            );
        }
    }

    /// What the pointer does on the canvas, by tool.
    fn pointer(&mut self, ui: &egui::Ui, response: &egui::Response, view: &mut View) {
        let hover = response.interact_pointer_pos().or(response.hover_pos());
        // A drag starts past egui's threshold: what it grabs is what was under the press.
        let origin = ui.input(|i| i.pointer.press_origin());
        let under = |p: Option<Pos2>| p.and_then(|p| pick(&self.hits, p, PICK_TOLERANCE));
        let (under_hover, under_origin) = (under(hover), under(origin));
        let drag_started = response.drag_started_by(PointerButton::Primary);
        // Whatever ended the drag (a release outside the canvas, a key that changed the tool),
        // the mouse lets go when the button is up.
        let by_mouse = self.grab.is_some_and(|g| !g.scripted);
        if by_mouse && !ui.input(|i| i.pointer.primary_down()) {
            self.release();
        }
        if response.clicked() {
            self.click(under_hover, hover, view);
        }
        match self.tool {
            Tool::Grab => {
                if drag_started && let (Some(owner), Some(at)) = (under_origin, origin) {
                    self.start_grab(owner, at, view);
                }
                match (self.grab, hover) {
                    (Some(grab), _) if grab.scripted => {}
                    (Some(grab), Some(p)) => self.move_grab(&grab, p, view),
                    // Dragging empty space pans.
                    _ if response.dragged_by(PointerButton::Primary) => {
                        view.pan(response.drag_delta());
                    }
                    _ => {}
                }
                if response.drag_stopped() && by_mouse {
                    self.release();
                }
            }
            Tool::Rod | Tool::Spring => {
                if drag_started {
                    self.gesture = under_origin.zip(origin).and_then(|(owner, at)| {
                        let (from, point) = self.point_at(owner, at, view)?;
                        Some(Gesture { from, point })
                    });
                    if self.gesture.is_none() {
                        self.info("start the drag on a particle or a body");
                    }
                }
                if response.drag_stopped()
                    && let (Some(g), Some(p)) = (self.gesture.take(), hover)
                {
                    self.finish_gesture(g, under_hover, p, view);
                }
            }
            Tool::Particle | Tool::Nail => {}
        }
    }

    fn click(&mut self, owner: Option<Owner>, at: Option<Pos2>, view: &View) {
        match (self.tool, owner, at) {
            (Tool::Particle, None, Some(p)) => {
                let dim = self.doc.model().system.dim();
                // In 3D, in the plane through the origin across the view.
                let x = view.to_world(p, [0.0; 3])[..dim].to_vec();
                let (mass, radius) = (self.new.mass, self.new.radius);
                if let Some(name) = self.apply("added a particle", |file| {
                    Ok(edit::add_particle(file, x, mass, radius))
                }) {
                    self.selection = Some(Selection::Particle(name));
                }
            }
            (Tool::Nail, Some(owner), Some(p)) => {
                let Some((point_ref, point)) = self.point_at(owner, p, view) else {
                    return;
                };
                let Ok(x) = self.doc.model().system.point_position(&point) else {
                    return;
                };
                let at = x[..self.doc.model().system.dim()].to_vec();
                let name = point_ref.owner().to_string();
                let nailed = self.apply(&format!("nail on {name}"), |file| {
                    edit::toggle_nail(file, &point_ref, at)
                });
                match nailed {
                    Some(true) => self.info(format!("nailed {name} where it is")),
                    Some(false) => self.info(format!("pulled the nail out of {name}")),
                    None => {}
                }
            }
            (_, owner, _) => {
                self.selection = owner.and_then(|o| self.selection_of(o));
                let text = self
                    .selection
                    .as_ref()
                    .map(|s| format!("selected {}", self.describe(s)));
                if let Some(text) = text {
                    self.info(text);
                }
            }
        }
    }

    fn start_grab(&mut self, owner: Owner, at: Pos2, view: &View) {
        let Some((_, point)) = self.point_at(owner, at, view) else {
            return;
        };
        // The selection stays: a user pulls the model while watching the selected rod's λ.
        self.grab_point(point);
    }

    /// Takes hold of `point` as the mouse does: a mouse spring sized by the model's moving mass
    /// (an anchor is moved instead). Returns whether it holds it.
    pub(crate) fn grab_point(&mut self, point: Point) -> bool {
        let dt = self.doc.model().run.dt;
        let system = &mut self.doc.model_mut().system;
        let (Ok(mass), Ok(x)) = (system.mass(point.body()), system.point_position(&point)) else {
            return false;
        };
        let spring = if mass.is_finite() {
            let moving: f64 = system.view().masses().map(|(_, m)| m).sum();
            let k = (GRAB_STIFFNESS * moving).min(mass * (GRAB_OMEGA_DT / dt).powi(2));
            // Critically damped on the point itself.
            let c = 2.0 * (k * mass).sqrt();
            let target = x[..system.dim()].to_vec();
            match system.add_force(MouseSpring::new(point, &target, k, c)) {
                Ok(id) => Some(id),
                Err(_) => return false,
            }
        } else if matches!(point, Point::Particle(_)) {
            // An anchor does not respond to forces: it goes where it is dragged.
            None
        } else {
            return false;
        };
        self.grab = Some(Grab {
            point,
            spring,
            through: x,
            scripted: false,
        });
        true
    }

    /// Moves the target under the pointer, in the plane through the last target across the
    /// view.
    fn move_grab(&mut self, grab: &Grab, p: Pos2, view: &View) {
        self.set_grab_target(grab, &view.to_world(p, grab.through));
    }

    /// Moves what `grab` holds towards `target` (world coordinates; a 2D model reads x and y).
    pub(crate) fn set_grab_target(&mut self, grab: &Grab, target: &[f64]) {
        if let Some(held) = &mut self.grab {
            held.through = std::array::from_fn(|k| target.get(k).copied().unwrap_or(0.0));
        }
        let system = &mut self.doc.model_mut().system;
        let dim = system.dim();
        match (grab.spring, grab.point) {
            (Some(id), _) => {
                if let Some(spring) = system.force_mut::<MouseSpring>(id) {
                    spring.set_target(&target[..dim]);
                }
            }
            (None, Point::Particle(id)) => {
                let _ = system.set_position(id, &target[..dim]);
            }
            _ => {}
        }
    }

    fn finish_gesture(&mut self, g: Gesture, owner: Option<Owner>, p: Pos2, view: &View) {
        let system = &self.doc.model().system;
        let dim = system.dim();
        // Where the start point is now: it may have moved during the drag.
        let Ok(start) = system.point_position(&g.point) else {
            return;
        };
        let to = owner.and_then(|o| self.point_at(o, p, view));
        let end = match &to {
            Some((_, point)) => system.point_position(point).ok(),
            None => Some(view.to_world(p, start)),
        };
        let Some(end) = end else { return };
        let length = (0..3)
            .map(|k| (end[k] - start[k]).powi(2))
            .sum::<f64>()
            .sqrt();
        if !(length > 1e-9) {
            self.info("the two ends are at the same place");
            return;
        }
        let (tool, new) = (self.tool, self.new);
        let from = g.from;
        let what = if tool == Tool::Rod {
            "added a rod"
        } else {
            "added a spring"
        };
        let added = self.apply(what, |file| {
            let to = match to {
                Some((r, _)) => r,
                None => PointRef::Particle(edit::add_particle(
                    file,
                    end[..dim].to_vec(),
                    new.mass,
                    new.radius,
                )),
            };
            let between = [from, to];
            if tool == Tool::Rod {
                edit::add_rod(file, between, length).map(Selection::Constraint)
            } else {
                edit::add_spring(file, between, new.stiffness, new.damping, length)
                    .map(Selection::Force)
            }
        });
        if added.is_some() {
            self.selection = added;
        }
    }

    /// The scene point under `at` on the piece `owner`: a particle, or the point of a rigid body
    /// under the pointer (in the body's frame).
    fn point_at(&self, owner: Owner, at: Pos2, view: &View) -> Option<(PointRef, Point)> {
        let Owner::Body(body) = owner else {
            return None;
        };
        let model = self.doc.model();
        if let Some((name, id)) = model.particles.iter().find(|(_, p)| p.body() == body) {
            return Some((PointRef::Particle(name.clone()), Point::from(*id)));
        }
        if let Some(object) = model.objects.iter().find(|o| o.id.body() == body) {
            // A parametric object: the mass point drawn nearest the pointer (hybrid models,
            // seed 000 §5.1, connect to its points like to particles).
            let distance = |index: usize| {
                let point = Point::OfObject { body, index };
                let x = model.system.point_position(&point).ok()?;
                Some(view.to_screen(x).distance(at))
            };
            let index = (0..object.points.len())
                .filter_map(|k| Some((k, distance(k)?)))
                .min_by(|a, b| a.1.total_cmp(&b.1))?
                .0;
            return Some((
                PointRef::OnObject {
                    object: object.name.clone(),
                    point: object.points[index].clone(),
                },
                Point::OfObject { body, index },
            ));
        }
        if let Some((name, id)) = model.bodies_3d.iter().find(|(_, b)| b.body() == body) {
            // The point of the face under the pointer, or, off its faces, the point in the plane
            // across the view through the body's centre.
            let centre = model
                .system
                .point_position(&Point::on_body_3d(*id, [0.0; 3]))
                .ok()?;
            let x = surface_point(&self.hits, owner, at, view)
                .unwrap_or_else(|| view.to_world(at, centre));
            let local = body_local_3d(model.system.orientation(*id), centre, x);
            return Some((
                PointRef::OnBody3d {
                    body: name.clone(),
                    local,
                },
                Point::on_body_3d(*id, local),
            ));
        }
        let (name, id) = model.bodies.iter().find(|(_, b)| b.body() == body)?;
        let local = body_local(&model.system, *id, view.to_world(at, [0.0; 3]));
        Some((
            PointRef::OnBody {
                body: name.clone(),
                local,
            },
            Point::on_body(*id, local),
        ))
    }

    fn selection_of(&self, owner: Owner) -> Option<Selection> {
        let model = self.doc.model();
        match owner {
            Owner::Body(b) => model
                .particles
                .iter()
                .find(|(_, p)| p.body() == b)
                .map(|(n, _)| Selection::Particle(n.clone()))
                .or_else(|| {
                    model
                        .bodies
                        .iter()
                        .find(|(_, r)| r.body() == b)
                        .map(|(n, _)| Selection::Body(n.clone()))
                })
                .or_else(|| {
                    model
                        .bodies_3d
                        .iter()
                        .find(|(_, r)| r.body() == b)
                        .map(|(n, _)| Selection::Body(n.clone()))
                }),
            Owner::Constraint(id) => model
                .constraints
                .iter()
                .find(|c| c.id == id)
                .map(|c| Selection::Constraint(c.name.clone())),
            Owner::Force(id) => model
                .forces
                .iter()
                .position(|f| *f == id)
                .map(Selection::Force),
        }
    }

    pub(crate) fn owner_of(&self, selection: &Selection) -> Option<Owner> {
        let model = self.doc.model();
        match selection {
            Selection::Particle(n) => model
                .particles
                .iter()
                .find(|(m, _)| m == n)
                .map(|(_, p)| Owner::Body(p.body())),
            Selection::Body(n) => model
                .bodies
                .iter()
                .find(|(m, _)| m == n)
                .map(|(_, b)| b.body())
                .or_else(|| {
                    let mut bodies = model.bodies_3d.iter();
                    bodies.find(|(m, _)| m == n).map(|(_, b)| b.body())
                })
                .map(Owner::Body),
            Selection::Constraint(name) => model
                .constraints
                .iter()
                .find(|c| &c.name == name)
                .map(|c| Owner::Constraint(c.id)),
            Selection::Force(i) => model.forces.get(*i).map(|f| Owner::Force(*f)),
        }
    }
}

/// The body-frame coordinates of world point `x` on rigid body `body`.
fn body_local(system: &System, body: bead::RigidBodyId, x: [f64; 3]) -> [f64; 2] {
    let q = system.coordinates(body);
    let (s, c) = q[2].sin_cos();
    let (dx, dy) = (x[0] - q[0], x[1] - q[1]);
    [c * dx + s * dy, -s * dx + c * dy]
}

/// The body-frame coordinates of world point `x` on a 3D body turned by the unit quaternion
/// `q` (`[w, x, y, z]`) about its centre `centre`: `Rᵀ (x − centre)`.
fn body_local_3d(q: [f64; 4], centre: [f64; 3], x: [f64; 3]) -> [f64; 3] {
    let [w, a, b, c] = q;
    // The rows of R(q), body to world; Rᵀ d is their dot products with the columns.
    let r = [
        [
            1.0 - 2.0 * (b * b + c * c),
            2.0 * (a * b - w * c),
            2.0 * (a * c + w * b),
        ],
        [
            2.0 * (a * b + w * c),
            1.0 - 2.0 * (a * a + c * c),
            2.0 * (b * c - w * a),
        ],
        [
            2.0 * (a * c - w * b),
            2.0 * (b * c + w * a),
            1.0 - 2.0 * (a * a + b * b),
        ],
    ];
    let d: [f64; 3] = std::array::from_fn(|k| x[k] - centre[k]);
    std::array::from_fn(|col| (0..3).map(|row| r[row][col] * d[row]).sum())
}

/// Scrolling zooms about the pointer. The right button pans a 2D model and turns the camera
/// about the middle of the screen in 3D, where Shift with the right button pans; the middle
/// button always pans.
fn zoom_and_pan(ui: &egui::Ui, response: &egui::Response, view: &mut View) {
    if let Some(p) = response.hover_pos() {
        let (scroll, zoom) = ui.input(|i| (i.smooth_scroll_delta.y, i.zoom_delta()));
        let factor = f64::from(zoom) * (f64::from(scroll) * 0.002).exp();
        if factor != 1.0 {
            view.zoom(factor, p);
        }
    }
    let shift = ui.input(|i| i.modifiers.shift);
    let right = response.dragged_by(PointerButton::Secondary);
    if right && view.is_3d() && !shift {
        view.orbit(response.drag_delta());
    } else if right || response.dragged_by(PointerButton::Middle) {
        view.pan(response.drag_delta());
    }
}
