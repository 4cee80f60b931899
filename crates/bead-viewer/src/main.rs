//! `bead-viewer [SCENE]`: run a scene interactively; drag particles with the mouse.

use bead_viewer::App;

fn main() -> eframe::Result {
    let app = match std::env::args_os().nth(1) {
        Some(path) => App::open(std::path::Path::new(&path)),
        None => App::default(),
    };
    let options = eframe::NativeOptions::default();
    eframe::run_native("bead viewer", options, Box::new(|_cc| Ok(Box::new(app))))
}
