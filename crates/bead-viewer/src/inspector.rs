//! The side panel: the simulation's settings (integrator, solver, feedback, dt), switched while
//! it runs; the selected piece, its live values and what can be edited about it (mass, length,
//! stiffness…); and the properties new pieces get.

use bead_scene::format::{
    ConstraintSpec, FeedbackSpec, ForceSpec, MassSpec, PointRef, ProjectionSpec,
};
use eframe::egui::{self, DragValue};

use crate::{App, Selection, edit};

/// Positions and velocities: 3 decimals of each component.
fn vector(v: &[f64]) -> String {
    let parts: Vec<String> = v.iter().map(|x| format!("{x:.3}")).collect();
    format!("[{}]", parts.join(", "))
}

/// Constraint values and multipliers, which span many orders of magnitude: 4 significant digits.
fn scientific(v: &[f64]) -> String {
    let parts: Vec<String> = v.iter().map(|x| format!("{x:.3e}")).collect();
    format!("[{}]", parts.join(", "))
}

/// The kind of an entry as scene files spell it (`on-circle`), from its Rust variant name.
fn kind<T: std::fmt::Debug>(spec: &T) -> String {
    let debug = format!("{spec:?}");
    let variant = debug.split([' ', '{', '(']).next().unwrap_or_default();
    let mut out = String::new();
    for (k, c) in variant.chars().enumerate() {
        if c.is_uppercase() && k > 0 {
            out.push('-');
        }
        out.extend(c.to_lowercase());
    }
    out
}

/// A number field that reports a finished change: `Some(new value)` when the user changed it.
fn number(ui: &mut egui::Ui, label: &str, value: f64, unit: &str, min: f64) -> Option<f64> {
    let mut v = value;
    let speed = (value.abs() * 0.01).max(1e-4);
    let changed = ui
        .horizontal(|ui| {
            let name = ui.label(label);
            // Typed numbers apply when the field is left, not at every keystroke (typing 0.5
            // would set 0 first); a value outside the range is shown as it is, never clamped
            // into a silent change; dragging applies as it goes, to watch the model respond.
            ui.add(
                DragValue::new(&mut v)
                    .speed(speed)
                    .range(min..=f64::MAX)
                    .clamp_existing_to_range(false)
                    .update_while_editing(false)
                    .suffix(unit),
            )
            .labelled_by(name.id)
            .changed()
        })
        .inner;
    (changed && v != value).then_some(v)
}

impl App {
    pub(crate) fn inspector(&mut self, ui: &mut egui::Ui) {
        ui.heading(self.doc.name().to_string());
        if let Some(path) = self.doc.path() {
            ui.label(egui::RichText::new(path.display().to_string()).small());
        }
        if self.doc.is_dirty() {
            ui.label(egui::RichText::new("unsaved changes").small().italics());
        }
        egui::CollapsingHeader::new("Simulation")
            .default_open(true)
            .show(ui, |ui| self.settings(ui));
        egui::CollapsingHeader::new("Selection")
            .default_open(true)
            .show(ui, |ui| self.selected(ui));
        egui::CollapsingHeader::new("New pieces")
            .default_open(false)
            .show(ui, |ui| {
                let n = &mut self.new;
                for (label, v, unit) in [
                    ("particle mass", &mut n.mass, " kg"),
                    ("particle radius", &mut n.radius, " m"),
                    ("spring stiffness", &mut n.stiffness, " N/m"),
                    ("spring damping", &mut n.damping, " N·s/m"),
                ] {
                    if let Some(x) = number(ui, label, *v, unit, 0.0) {
                        *v = x;
                    }
                }
            });
    }

    fn settings(&mut self, ui: &mut egui::Ui) {
        let system = &self.doc.model().system;
        let (integrator, solver) = (system.integrator().name(), system.solver().name());
        let settings = *system.settings();
        let before = self.doc.file().simulation.clone();
        let mut sim = before.clone();
        let choose = |ui: &mut egui::Ui, label: &str, current: &str, names: &[&'static str]| {
            let mut chosen = None;
            egui::ComboBox::from_label(label)
                .selected_text(current)
                .show_ui(ui, |ui| {
                    for name in names {
                        if ui.selectable_label(*name == current, *name).clicked() {
                            chosen = Some(*name);
                        }
                    }
                });
            chosen.filter(|c| *c != current)
        };
        if let Some(name) = choose(
            ui,
            "integrator",
            integrator,
            &bead::integrate::INTEGRATOR_NAMES,
        ) {
            sim.integrator = Some(name.into());
        }
        if let Some(name) = choose(ui, "solver", solver, &bead::solve::SOLVER_NAMES) {
            sim.solver = Some(name.into());
        }
        if let Some(dt) = number(ui, "dt", self.doc.model().run.dt, " s", 1e-7) {
            sim.dt = dt;
        }
        let f = settings.feedback;
        ui.label("feedback (seed 000 eq. 11)");
        let ks = number(ui, "  k_s", f.ks, " 1/s²", 0.0);
        let kd = number(ui, "  k_d", f.kd, " 1/s", 0.0);
        if ks.is_some() || kd.is_some() {
            sim.feedback = Some(FeedbackSpec {
                ks: ks.unwrap_or(f.ks),
                kd: kd.unwrap_or(f.kd),
            });
            sim.baumgarte_tau = None;
        }
        if let Some(mu) = self.doc.friction()
            && let Some(new) = number(ui, "friction μ", mu, "", 0.0)
        {
            match self.doc.edit_friction(new) {
                Ok(()) => self.info(format!("every contact now has μ = {new}")),
                Err(e) => self.error(e.to_string()),
            }
        }
        let mut projection = settings.projection.is_some();
        if ui
            .checkbox(&mut projection, "project onto the constraints")
            .on_hover_text("after each step, move q and q̇ back onto C = 0 and Ċ = 0")
            .changed()
        {
            // Turned off and on again, a scene's own iterations and tolerance come back.
            sim.projection = if projection {
                Some(
                    self.projection
                        .take()
                        .unwrap_or(ProjectionSpec::Enabled(true)),
                )
            } else {
                self.projection = sim.projection.take();
                None
            };
        }
        if sim == before {
            return;
        }
        match self.doc.edit_settings(|s| *s = sim) {
            Ok(()) => {
                let system = &self.doc.model().system;
                let text = format!(
                    "now {} with the {} solver, dt = {} s",
                    system.integrator().name(),
                    system.solver().name(),
                    self.doc.model().run.dt
                );
                self.info(text);
            }
            Err(e) => self.error(e.to_string()),
        }
    }

    fn selected(&mut self, ui: &mut egui::Ui) {
        let Some(selection) = self.selection.clone() else {
            ui.label("Click a piece to select it.");
            return;
        };
        let shown = match &selection {
            Selection::Particle(name) => self.particle(ui, name),
            Selection::Body(name) => self.body(ui, name),
            Selection::Constraint(name) => self.constraint(ui, name),
            Selection::Force(i) => self.force(ui, *i),
        };
        if !shown {
            self.selection = None;
            return;
        }
        if ui.button("Delete").on_hover_text("Delete key").clicked() {
            self.delete_selection();
        }
    }

    /// A particle: where it is, how fast, its mass and radius, its nail. False if it is gone.
    fn particle(&mut self, ui: &mut egui::Ui, name: &str) -> bool {
        let model = self.doc.model();
        let Some(i) = model.particles.iter().position(|(n, _)| n == name) else {
            return false;
        };
        let id = model.particles[i].1;
        let system = &model.system;
        ui.label(format!("particle {name}"));
        ui.label(format!("x = {} m", vector(system.position(id))));
        ui.label(format!("v = {} m/s", vector(system.velocity(id))));
        let mass = system.mass(id.body()).unwrap_or(f64::NAN);
        let radius = system.radius(id.body()).unwrap_or(0.0);
        let here = system.position(id).to_vec();
        let point = PointRef::Particle(name.to_string());
        let nailed = self
            .doc
            .file()
            .constraints
            .iter()
            .any(|c| matches!(c, ConstraintSpec::Nail { point: p, .. } if *p == point));
        let mut anchor = mass.is_infinite();
        let restore = self.new.mass;
        let mut new_mass = None;
        if ui.checkbox(&mut anchor, "anchor (infinite mass)").changed() {
            new_mass = Some(if anchor { f64::INFINITY } else { restore });
        }
        if !anchor && let Some(m) = number(ui, "mass", mass, " kg", 1e-9) {
            new_mass = Some(m);
        }
        if let Some(m) = new_mass {
            self.apply(&format!("mass of {name}"), |file| {
                let spec = file
                    .particles
                    .get_mut(i)
                    .ok_or_else(|| format!("no particle {name}"))?;
                spec.mass = Some(if m.is_infinite() {
                    MassSpec::Word("infinity".into())
                } else {
                    MassSpec::Kilograms(m)
                });
                Ok(())
            });
        }
        if let Some(r) = number(ui, "radius", radius, " m", 0.0) {
            self.apply(&format!("radius of {name}"), |file| {
                if let Some(spec) = file.particles.get_mut(i) {
                    spec.radius = Some(r);
                }
                Ok(())
            });
        }
        let label = if nailed {
            "Pull the nail out"
        } else {
            "Nail here"
        };
        if ui.button(label).clicked() {
            self.apply(label, |file| edit::toggle_nail(file, &point, here));
        }
        true
    }

    fn body(&mut self, ui: &mut egui::Ui, name: &str) -> bool {
        let model = self.doc.model();
        if let Some((_, id)) = model.bodies_3d.iter().find(|(n, _)| n == name) {
            let system = &model.system;
            let (q, v) = (system.coordinates(*id), system.coordinate_velocities(*id));
            ui.label(format!("rigid body {name}"));
            ui.label(format!("x = {} m", vector(&q[..3])));
            ui.label(format!(
                "q = {} (w, x, y, z)",
                vector(&system.orientation(*id))
            ));
            ui.label(format!("v = {} m/s", vector(&v[..3])));
            ui.label(format!(
                "ω = {} rad/s",
                vector(&system.angular_velocity(*id))
            ));
            ui.label(format!(
                "mass {:.4} kg",
                system.mass(id.body()).unwrap_or(f64::NAN)
            ));
            return true;
        }
        let Some((_, id)) = model.bodies.iter().find(|(n, _)| n == name) else {
            return false;
        };
        let system = &model.system;
        let (q, v) = (system.coordinates(*id), system.coordinate_velocities(*id));
        ui.label(format!("rigid body {name}"));
        ui.label(format!("x = {} m, θ = {:.3} rad", vector(&q[..2]), q[2]));
        ui.label(format!(
            "v = {} m/s, ω = {:.3} rad/s",
            vector(&v[..2]),
            v[2]
        ));
        ui.label(format!(
            "mass {:.4} kg",
            system.mass(id.body()).unwrap_or(f64::NAN)
        ));
        true
    }

    /// A constraint: its kind, C and λ now; a rod's length. False if it is gone.
    fn constraint(&mut self, ui: &mut egui::Ui, name: &str) -> bool {
        let file = self.doc.file();
        let Some(i) = file.constraints.iter().position(|c| c.name() == Some(name)) else {
            return false;
        };
        let spec = file.constraints[i].clone();
        let Some(named) = self.doc.model().constraints.iter().find(|c| c.name == name) else {
            return false;
        };
        ui.label(format!("{} {name}", kind(&spec)));
        if let Some(r) = self
            .diagnostics
            .as_ref()
            .and_then(|d| d.constraint(named.id))
        {
            ui.label(format!("C = {}", scientific(&r.c)));
            ui.label(format!("λ = {}", scientific(&r.lambda)))
                .on_hover_text(
                    "newtons for a rod (λ < 0 is tension); the force on each body is Jᵀλ",
                );
        }
        if let ConstraintSpec::Distance {
            length: Some(length),
            ..
        } = spec
            && let Some(l) = number(ui, "length", length, " m", 1e-9)
        {
            self.apply("rod length", |file| {
                let rod = file
                    .constraints
                    .iter_mut()
                    .find(|c| c.name() == Some(name))
                    .ok_or_else(|| format!("no constraint {name}"))?;
                if let ConstraintSpec::Distance { length, .. } = rod {
                    *length = Some(l);
                }
                Ok(())
            });
        }
        true
    }

    /// A force: its kind; a spring's stiffness, damping and rest length; gravity's g; drag's
    /// coefficient. False if it is gone.
    fn force(&mut self, ui: &mut egui::Ui, i: usize) -> bool {
        let Some(spec) = self.doc.file().forces.get(i).cloned() else {
            return false;
        };
        ui.label(format!(
            "{} {}",
            kind(&spec),
            spec.name().unwrap_or_default()
        ));
        let mut changed = spec.clone();
        match &mut changed {
            ForceSpec::Spring {
                stiffness,
                damping,
                rest_length,
                ..
            } => {
                if let Some(k) = number(ui, "stiffness", *stiffness, " N/m", 0.0) {
                    *stiffness = k;
                }
                if let Some(c) = number(ui, "damping", *damping, " N·s/m", 0.0) {
                    *damping = c;
                }
                if let Some(rest) = rest_length
                    && let Some(l) = number(ui, "rest length", *rest, " m", 0.0)
                {
                    *rest = l;
                }
            }
            ForceSpec::Gravity { g, .. } => {
                for (k, gk) in g.iter_mut().enumerate() {
                    if let Some(x) = number(ui, &format!("g{k}"), *gk, " m/s²", f64::MIN) {
                        *gk = x;
                    }
                }
            }
            ForceSpec::Drag { coefficient, .. } => {
                if let Some(c) = number(ui, "coefficient", *coefficient, " N·s/m", 0.0) {
                    *coefficient = c;
                }
            }
            _ => {}
        }
        if changed != spec {
            self.apply(&format!("{} changed", kind(&spec)), |file| {
                if let Some(f) = file.forces.get_mut(i) {
                    *f = changed;
                }
                Ok(())
            });
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_are_spelled_as_in_scene_files() {
        let spec = ConstraintSpec::OnCircle {
            point: PointRef::Particle("a".into()),
            center: bead_scene::format::Location::Fixed(vec![0.0, 0.0]),
            radius: None,
            normal: None,
            name: None,
        };
        assert_eq!(kind(&spec), "on-circle");
        assert_eq!(
            kind(&ForceSpec::Drag {
                coefficient: 1.0,
                name: None
            }),
            "drag"
        );
    }
}
