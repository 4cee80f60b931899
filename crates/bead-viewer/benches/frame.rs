//! `frame`: the viewer's frame budget (issue 6) on the 30×30 curtain — 900 particles, 1711 rods,
//! dt = 1/600 s, so ten steps make a 60 Hz frame — split into what a frame does on the CPU:
//!
//! - `simulate`: the ten steps, with a mouse spring pulling a bottom corner so that the curtain
//!   moves as it does under a user's hand;
//! - `ui`: one `App::ui` pass with the model paused — layout, panels, the live plots, the
//!   diagnostics the tension colours and plots need, and the description of the model to
//!   egui's painter;
//! - `tessellate`: egui turning that frame's shapes into triangles;
//! - `whole`: a running frame, all three;
//! - `drag`: `bead-viewer --frames 180 --drag n29_29 1.0,0.0,0.5` without a window — the
//!   corner pulled 1.1 m right and up over 60 frames, held to frame 90, let go — timed whole
//!   (30 frames of warm-up, then 180 of ten steps and the viewer's own work); each phase's
//!   figures are printed once.
//!
//! The GPU's work (on this machine Mesa's llvmpipe, on the CPU) comes on top; `bead-viewer
//! --frames N scenes/curtain.toml` measures a real window with it.

#![allow(missing_docs, clippy::unwrap_used)]

use std::path::Path;
use std::time::Duration;

use bead::Point;
use bead::force::MouseSpring;
use bead_viewer::App;
use bead_viewer::drag::DragScript;
use criterion::{Criterion, criterion_group, criterion_main};
use eframe::egui;

fn curtain() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes/curtain.toml")
}

fn input() -> egui::RawInput {
    egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(
            egui::Pos2::ZERO,
            egui::vec2(1280.0, 800.0),
        )),
        predicted_dt: 1.0 / 60.0,
        ..Default::default()
    }
}

fn bench_frame(c: &mut Criterion) {
    let mut group = c.benchmark_group("frame");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(4));

    let mut model = bead_scene::Scene::load(&curtain())
        .unwrap()
        .build()
        .unwrap();
    let corner = model.particles.last().unwrap().1;
    let x = model.system.position(corner).to_vec();
    model
        .system
        .add_force(MouseSpring::new(
            Point::from(corner),
            &[x[0] + 0.3, x[1] - 0.2, x[2] + 0.1],
            2.0,
            0.28,
        ))
        .unwrap();
    let dt = model.run.dt;
    group.bench_function("simulate", |b| {
        b.iter(|| {
            for _ in 0..10 {
                model.system.step(dt).unwrap();
            }
        });
    });

    let ctx = egui::Context::default();
    let mut app = App::open(&curtain());
    app.set_running(true);
    for _ in 0..30 {
        let _ = ctx.run_ui(input(), |ui| app.ui(ui));
    }
    app.set_running(false);
    group.bench_function("ui", |b| {
        b.iter(|| ctx.run_ui(input(), |ui| app.ui(ui)));
    });
    let output = ctx.run_ui(input(), |ui| app.ui(ui));
    group.bench_function("tessellate", |b| {
        b.iter(|| ctx.tessellate(output.shapes.clone(), output.pixels_per_point));
    });
    app.set_running(true);
    group.bench_function("whole", |b| {
        b.iter(|| {
            let out = ctx.run_ui(input(), |ui| app.ui(ui));
            ctx.tessellate(out.shapes, out.pixels_per_point)
        });
    });
    group.finish();

    let mut group = c.benchmark_group("frame");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(1))
        .measurement_time(Duration::from_secs(30));
    let drag = || {
        let mut app = App::open(&curtain());
        let script = DragScript::parse("n29_29", "1.0,0.0,0.5", 3, 180).unwrap();
        app.drag_frames(script).unwrap();
        while app.measuring() {
            let _ = ctx.run_ui(input(), |ui| app.ui(ui));
        }
        app
    };
    let summary = drag().drag_summary().unwrap();
    println!("frame/drag, one run:\n{summary}");
    group.bench_function("drag", |b| b.iter(drag));
    group.finish();
}

criterion_group!(benches, bench_frame);
criterion_main!(benches);
