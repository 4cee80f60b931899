//! `bead-viewer [SCENE]`: run a scene interactively, grab and drag its particles, and build or
//! edit models (see the crate documentation). `--frames N` plays N frames, prints the time per
//! frame (simulation and drawing apart) and exits.

use std::process::ExitCode;

use bead_viewer::App;
use eframe::egui;

const USAGE: &str = "usage: bead-viewer [--size WxH] [--frames N] [SCENE]

  SCENE        a scene file (.toml, or .json) to open; an empty 2D scene if none
  --size WxH   the window's size in points (default 1280x800)
  --frames N   play N frames (after 30 of warm-up), print the time per frame and exit";

fn main() -> ExitCode {
    let mut scene = None;
    let mut frames = None;
    let mut size = [1280.0, 800.0];
    let mut args = std::env::args_os().skip(1);
    while let Some(arg) = args.next() {
        match arg.to_str() {
            Some("-h" | "--help") => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            Some("--frames") => match args.next().and_then(|n| n.to_str()?.parse::<usize>().ok()) {
                Some(n) if n > 0 => frames = Some(n),
                _ => {
                    eprintln!("error: --frames needs a positive whole number\n\n{USAGE}");
                    return ExitCode::from(2);
                }
            },
            Some("--size") => {
                let parsed = args.next().and_then(|s| {
                    let (w, h) = s.to_str()?.split_once('x')?;
                    Some([w.parse::<f32>().ok()?, h.parse::<f32>().ok()?])
                });
                match parsed {
                    Some([w, h]) if w >= 200.0 && h >= 150.0 => size = [w, h],
                    _ => {
                        eprintln!("error: --size needs WIDTHxHEIGHT, at least 200x150\n\n{USAGE}");
                        return ExitCode::from(2);
                    }
                }
            }
            Some(flag) if flag.starts_with('-') => {
                eprintln!("error: unknown option {flag}\n\n{USAGE}");
                return ExitCode::from(2);
            }
            _ if scene.is_none() => scene = Some(std::path::PathBuf::from(arg)),
            _ => {
                eprintln!("error: one scene at a time\n\n{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    let mut app = match &scene {
        Some(path) => App::open(path),
        None => App::default(),
    };
    if let Some(n) = frames {
        app.measure_frames(n);
    }
    let mut options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("bead viewer")
            .with_inner_size(size)
            .with_drag_and_drop(true),
        ..Default::default()
    };
    // Measuring frame times needs frames as fast as they come, not at the display's rate.
    options.glow_options.vsync = frames.is_none();
    match eframe::run_native("bead viewer", options, Box::new(|_cc| Ok(Box::new(app)))) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: cannot open the viewer's window: {e}");
            ExitCode::FAILURE
        }
    }
}
