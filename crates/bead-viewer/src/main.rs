//! `bead-viewer [SCENE]`: run a scene interactively, grab and drag its particles, and build or
//! edit models (see the crate documentation). `--frames N` plays N frames, prints the time per
//! frame (simulation and drawing apart) and exits; with `--drag PARTICLE DX,DY[,DZ]` it pulls
//! that particle with the mouse spring while it plays, and prints each phase's times.

use std::process::ExitCode;

use bead_viewer::App;
use bead_viewer::drag::DragScript;
use eframe::egui;

const USAGE: &str =
    "usage: bead-viewer [--size WxH] [--frames N [--drag PARTICLE DX,DY[,DZ]]] [SCENE]

  SCENE        a scene file (.toml, or .json) to open; an empty 2D scene if none
  --size WxH   the window's size in points (default 1280x800)
  --frames N   play N frames (after 30 of warm-up), print the time per frame and exit
  --drag PARTICLE DX,DY[,DZ]
               with --frames: grab PARTICLE with the mouse spring, move its target by
               (DX, DY, DZ) m over the first 60 frames, hold it to frame N/2, let go, and
               print the simulate and whole-frame times of each phase (pull, hold, release)";

fn main() -> ExitCode {
    let mut scene = None;
    let mut frames = None;
    let mut drag = None;
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
            Some("--drag") => {
                let particle = args.next().and_then(|a| a.to_str().map(str::to_string));
                let offset = args.next().and_then(|a| a.to_str().map(str::to_string));
                match (particle, offset) {
                    (Some(p), Some(o)) if !p.starts_with('-') => drag = Some((p, o)),
                    _ => {
                        eprintln!(
                            "error: --drag needs a particle and an offset DX,DY[,DZ]\n\n{USAGE}"
                        );
                        return ExitCode::from(2);
                    }
                }
            }
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
    if drag.is_some() && frames.is_none() {
        eprintln!("error: --drag needs --frames N\n\n{USAGE}");
        return ExitCode::from(2);
    }
    if drag.is_some() && scene.is_none() {
        eprintln!("error: --drag needs a scene\n\n{USAGE}");
        return ExitCode::from(2);
    }
    let mut app = match &scene {
        // The window would show a scene that failed to load as an empty one, with the error in
        // its status line; a scripted drag has nothing to pull there.
        Some(path) if drag.is_some() => match bead_viewer::Document::open(path) {
            Ok(doc) => App::with_document(doc),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        },
        Some(path) => App::open(path),
        None => App::default(),
    };
    match (frames, drag) {
        (Some(n), Some((particle, offset))) => {
            let dimension = app.model().system.dim();
            let started = DragScript::parse(&particle, &offset, dimension, n)
                .and_then(|script| app.drag_frames(script));
            if let Err(e) = started {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        }
        (Some(n), None) => app.measure_frames(n),
        _ => {}
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
