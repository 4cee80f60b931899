//! The toolbar: files, the run controls (play, pause, single step, reset, speed), the tools,
//! and what to show.

use eframe::egui;

use crate::{App, Tool};

impl App {
    pub(crate) fn toolbar(&mut self, ui: &mut egui::Ui) {
        ui.horizontal_wrapped(|ui| {
            ui.menu_button("New", |ui| {
                if ui.button("2D scene").clicked() {
                    self.request_new(2);
                }
                if ui.button("3D scene").clicked() {
                    self.request_new(3);
                }
            });
            if ui.button("Open…").on_hover_text("Ctrl+O").clicked() {
                self.request_open_dialog();
            }
            if ui.button("Save").on_hover_text("Ctrl+S").clicked() {
                self.save();
            }
            if ui.button("Save as…").clicked() {
                self.save_as_dialog();
            }
            ui.separator();
            let play = if self.running { "Pause" } else { "Play" };
            if ui.button(play).on_hover_text("Space").clicked() {
                self.set_running(!self.running);
            }
            if ui
                .button("Step")
                .on_hover_text("one step of the scene's dt")
                .clicked()
            {
                self.set_running(false);
                self.advance(1);
            }
            if ui
                .button("Reset")
                .on_hover_text("back to the model as loaded, or as it stood at the last edit")
                .clicked()
            {
                self.reset();
            }
            ui.add(
                egui::Slider::new(&mut self.speed, 0.01..=4.0)
                    .logarithmic(true)
                    .text("× real time"),
            );
            ui.separator();
            for tool in Tool::ALL {
                if ui
                    .selectable_label(self.tool == tool, tool.label())
                    .on_hover_text(tool.hint())
                    .clicked()
                {
                    self.set_tool(tool);
                }
            }
            ui.separator();
            if ui
                .button("Fit")
                .on_hover_text("fit the model in the view")
                .clicked()
            {
                self.fit_view();
            }
            if self.doc.model().system.dim() == 3
                && ui
                    .button("Reset view")
                    .on_hover_text(
                        "back to the cabinet projection bead render draws with, fitted (Home); \
                         the right button turns the camera",
                    )
                    .clicked()
            {
                self.reset_view();
            }
            ui.checkbox(&mut self.show_forces, "forces").on_hover_text(
                "each constraint's force Jᵀλ on each body, as arrows, and where shapes touch",
            );
            ui.checkbox(&mut self.show_tension, "tension")
                .on_hover_text("colour rods by their force: red pulls, blue pushes");
            ui.checkbox(&mut self.show_plots, "plots");
            ui.checkbox(&mut self.smooth, "smooth").on_hover_text(
                "anti-aliased lines; without it drawing is faster where OpenGL runs in software \
                 (no GPU): the 30×30 curtain goes from about 40 to 50 frames per second",
            );
        });
    }
}
