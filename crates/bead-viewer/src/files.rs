//! Opening and saving: the file dialogs (egui_file, drawn by egui itself, so they need nothing
//! from the desktop), files dropped on the window, Ctrl+O and Ctrl+S, and a question before
//! anything would throw away unsaved changes — opening another scene, starting a new one, or
//! closing the window.

use std::path::{Path, PathBuf};

use eframe::egui;
use egui_file::FileDialog;

use crate::{App, Document};

/// The viewer's file state.
#[derive(Default)]
pub(crate) struct Files {
    dialog: Option<(FileDialog, Purpose)>,
    /// An action waiting for the user to agree to lose the unsaved changes.
    confirm: Option<Pending>,
    /// The user agreed to close with unsaved changes.
    may_close: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Purpose {
    Open,
    SaveAs,
}

/// Something that replaces the document.
#[derive(Clone, Debug)]
enum Pending {
    Open(PathBuf),
    New(usize),
    Close,
}

fn is_scene(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("toml") || e.eq_ignore_ascii_case("json"))
}

impl App {
    /// Files dropped on the window, the keyboard's file shortcuts, and the window's close button.
    pub(crate) fn files_input(&mut self, ui: &egui::Ui) {
        let dropped = ui.input(|i| i.raw.dropped_files.first().map(|f| f.path().to_path_buf()));
        if let Some(path) = dropped {
            self.request_open(&path);
        }
        let (open, save) = ui.input_mut(|i| {
            (
                i.consume_key(egui::Modifiers::COMMAND, egui::Key::O),
                i.consume_key(egui::Modifiers::COMMAND, egui::Key::S),
            )
        });
        if open {
            self.request_open_dialog();
        }
        if save {
            self.save();
        }
        if ui.input(|i| i.viewport().close_requested())
            && self.doc.is_dirty()
            && !self.files.may_close
        {
            ui.ctx()
                .send_viewport_cmd(egui::ViewportCommand::CancelClose);
            self.files.confirm = Some(Pending::Close);
        }
    }

    /// Opens the scene file at `path`, after asking if unsaved changes would be lost.
    pub fn request_open(&mut self, path: &Path) {
        self.request(Pending::Open(path.to_path_buf()));
    }

    pub(crate) fn request_new(&mut self, dim: usize) {
        self.request(Pending::New(dim));
    }

    /// Shows the file dialog; the file chosen is opened after the question about unsaved
    /// changes, asked then (the user may go on editing while the dialog is open).
    pub(crate) fn request_open_dialog(&mut self) {
        let filter = Box::new(|p: &Path| is_scene(p));
        let mut dialog = FileDialog::open_file()
            .initial_path(self.directory())
            .title("Open a scene")
            .show_files_filter(filter);
        dialog.open();
        self.files.dialog = Some((dialog, Purpose::Open));
    }

    fn request(&mut self, pending: Pending) {
        if self.doc.is_dirty() {
            self.files.confirm = Some(pending);
        } else {
            self.perform(pending);
        }
    }

    /// Whether the viewer is asking to discard unsaved changes.
    pub fn asks_to_discard(&self) -> bool {
        self.files.confirm.is_some()
    }

    fn perform(&mut self, pending: Pending) {
        match pending {
            Pending::Open(path) => match Document::open(&path) {
                Ok(doc) => self.replace_document(doc),
                Err(e) => self.error(e.to_string()),
            },
            Pending::New(dim) => self.replace_document(Document::new(dim)),
            Pending::Close => self.files.may_close = true,
        }
    }

    fn directory(&self) -> PathBuf {
        self.doc
            .path()
            .and_then(Path::parent)
            .map(Path::to_path_buf)
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_default()
    }

    /// Saves to the file the scene came from (or was last saved to); asks where if none.
    pub fn save(&mut self) {
        match self.doc.path().map(Path::to_path_buf) {
            Some(path) => self.save_to(&path),
            None => self.save_as_dialog(),
        }
    }

    /// Saves to `path` (JSON for `.json`, TOML otherwise).
    pub fn save_to(&mut self, path: &Path) {
        match self.doc.save(path) {
            Ok(()) => self.info(format!("saved {}", path.display())),
            Err(e) => self.error(e.to_string()),
        }
    }

    pub(crate) fn save_as_dialog(&mut self) {
        let name = match self.doc.path().and_then(Path::file_name) {
            Some(n) => n.to_string_lossy().into_owned(),
            None => format!("{}.toml", self.doc.name().replace(' ', "_")),
        };
        let mut dialog = FileDialog::save_file()
            .initial_path(self.directory())
            .title("Save the scene")
            .default_filename(name);
        dialog.open();
        self.files.dialog = Some((dialog, Purpose::SaveAs));
    }

    /// The file dialog and the question about unsaved changes, when open.
    pub(crate) fn dialogs(&mut self, ui: &egui::Ui) {
        let mut chosen = None;
        if let Some((dialog, purpose)) = &mut self.files.dialog {
            dialog.show(ui.ctx());
            match dialog.state() {
                egui_file::State::Open => {}
                egui_file::State::Selected => {
                    chosen = dialog.path().map(|p| (p.to_path_buf(), *purpose));
                    self.files.dialog = None;
                }
                egui_file::State::Closed | egui_file::State::Cancelled => {
                    self.files.dialog = None;
                }
            }
        }
        match chosen {
            Some((path, Purpose::Open)) => self.request(Pending::Open(path)),
            Some((mut path, Purpose::SaveAs)) => {
                if path.extension().is_none() {
                    path.set_extension("toml");
                }
                self.save_to(&path);
            }
            None => {}
        }
        self.confirm_discard(ui);
    }

    fn confirm_discard(&mut self, ui: &egui::Ui) {
        let Some(pending) = self.files.confirm.clone() else {
            return;
        };
        let name = self.doc.name().to_string();
        let mut answer = None;
        egui::Modal::new(egui::Id::unique("discard changes")).show(ui.ctx(), |ui| {
            ui.heading("Unsaved changes");
            ui.label(format!(
                "The changes to {name} are not saved. Discard them?"
            ));
            ui.horizontal(|ui| {
                if ui.button("Discard").clicked() {
                    answer = Some(true);
                }
                if ui.button("Cancel").clicked() {
                    answer = Some(false);
                }
            });
        });
        match answer {
            Some(true) => {
                self.files.confirm = None;
                let close = matches!(pending, Pending::Close);
                self.perform(pending);
                if close {
                    ui.ctx().send_viewport_cmd(egui::ViewportCommand::Close);
                }
            }
            Some(false) => self.files.confirm = None,
            None => {}
        }
    }
}
