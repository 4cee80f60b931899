//! The renderer's tests: frame counts and timing, where things are drawn, forces, the fitted
//! view, and the failures that write nothing.

use std::fs::File;
use std::path::Path;

use anyhow::Result;
use bead::constraint::{Distance, OnLine, OnSphere};
use bead::draw::Element;
use bead::draw::projection::Camera;
use bead::force::Gravity;
use bead::{Motion, Particle, RigidBody3d, Shape3d, System};
use bead_scene::Model;
use bead_scene::run::{RecordError, Sink};

use super::canvas::{Look, P2, Shape, Snapshot};
use super::encode::frame_delay;
use super::frames::simulate;
use super::raster::clip;
use super::viewport::Viewport;
use super::{RenderOptions, RenderSummary, parse_view, render};

/// A decoded GIF: its size, repeat mode, and each frame's RGBA pixels and delay.
struct Decoded {
    width: u16,
    height: u16,
    repeat: gif::Repeat,
    frames: Vec<Vec<u8>>,
    delays: Vec<u16>,
}

fn decode(path: &Path) -> Decoded {
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::RGBA);
    let mut decoder = options.read_info(File::open(path).unwrap()).unwrap();
    let (width, height) = (decoder.width(), decoder.height());
    let (mut frames, mut delays) = (Vec::new(), Vec::new());
    while let Some(frame) = decoder.read_next_frame().unwrap() {
        assert_eq!((frame.left, frame.top), (0, 0));
        assert_eq!((frame.width, frame.height), (width, height));
        frames.push(frame.buffer.to_vec());
        delays.push(frame.delay);
    }
    Decoded {
        width,
        height,
        repeat: decoder.repeat(),
        frames,
        delays,
    }
}

/// `system` as the model of a scene run with steps of `dt` for `duration` (the tests build
/// their systems directly).
fn model_of(system: System, dt: f64, duration: f64) -> Model {
    let text = "format = 1\n[simulation]\ndimension = 2\ndt = 1\nduration = 1";
    let scene = bead_scene::Scene::parse(text, bead_scene::Format::Toml, "test").unwrap();
    let mut model = scene.build().unwrap();
    model.system = system;
    (model.run.dt, model.run.duration) = (dt, duration);
    model
}

/// Runs `f` on `system` made a model, and hands the system back as the run left it.
fn with_model<T>(
    system: &mut System,
    dt: f64,
    duration: f64,
    f: impl FnOnce(&mut Model) -> T,
) -> T {
    let placeholder = System::new(system.dim()).unwrap();
    let mut model = model_of(std::mem::replace(system, placeholder), dt, duration);
    let result = f(&mut model);
    *system = model.system;
    result
}

fn render_system(
    system: &mut System,
    dt: f64,
    duration: f64,
    options: &RenderOptions,
    output: &Path,
) -> Result<RenderSummary> {
    with_model(system, dt, duration, |model| render(model, options, output))
}

fn simulate_system(
    system: &mut System,
    dt: f64,
    duration: f64,
    fps: u32,
    show_forces: bool,
) -> Result<Vec<Snapshot>> {
    let look = Look {
        show_forces,
        ..Look::default()
    };
    with_model(system, dt, duration, |model| simulate(model, fps, look))
}

fn options(fps: u32, width: u32, height: u32, show_forces: bool) -> RenderOptions {
    RenderOptions {
        fps,
        width,
        height,
        show_forces,
        camera: Camera::default(),
        solid: false,
    }
}

fn pixel(frame: &[u8], width: usize, x: usize, y: usize) -> [u8; 4] {
    let i = 4 * (y * width + x);
    [frame[i], frame[i + 1], frame[i + 2], frame[i + 3]]
}

fn count_pixels(frame: &[u8], matches: impl Fn([u8; 4]) -> bool) -> usize {
    frame
        .chunks_exact(4)
        .filter(|p| matches([p[0], p[1], p[2], p[3]]))
        .count()
}

fn is_magenta(p: [u8; 4]) -> bool {
    p[0] > 140 && p[1] < 90 && p[2] > 140
}

#[test]
fn pendulum_gif_has_the_requested_size_and_a_frame_per_interval() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pendulum.gif");
    let (mut sys, _bob, _rod) = bead::models::pendulum(1.0, 0.5, 1.0).unwrap();
    let summary = render_system(&mut sys, 0.001, 1.0, &options(10, 96, 64, false), &path).unwrap();
    assert_eq!(summary.frames, 11);
    // 1.0 / 0.001 is 999.999… in floating point: still 1000 steps, ending at 1 exactly.
    assert_eq!(sys.time(), 1.0);
    let gif = decode(&path);
    assert_eq!((gif.width, gif.height), (96, 64));
    assert_eq!(gif.frames.len(), 11);
    assert!(gif.delays.iter().all(|&d| d == 10));
    assert_eq!(gif.repeat, gif::Repeat::Infinite);
    // The pendulum swings: the picture changes.
    assert_ne!(gif.frames[0], gif.frames[3]);
    assert_ne!(gif.frames[3], gif.frames[7]);
}

#[test]
fn frame_count_is_floor_of_duration_times_fps_plus_one() {
    let dir = tempfile::tempdir().unwrap();
    for (duration, fps, frames) in [(0.0, 10, 1), (0.3, 10, 4), (0.35, 10, 4), (0.5, 7, 4)] {
        let path = dir.path().join("count.gif");
        let (mut sys, _, _) = bead::models::pendulum(1.0, 0.5, 1.0).unwrap();
        let summary = render_system(
            &mut sys,
            0.01,
            duration,
            &options(fps, 32, 32, false),
            &path,
        )
        .unwrap();
        assert_eq!(summary.frames, frames, "{duration} s at {fps} fps");
        assert_eq!(decode(&path).frames.len(), frames);
    }
}

/// The bob of a pendulum at rest in its first frame is a dark blue disc exactly where an
/// independent computation of the view puts it, and the background is white.
#[test]
fn the_bob_is_drawn_where_the_view_puts_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bob.gif");
    let (mut sys, _, _) = bead::models::pendulum(1.0, 0.5, 1.0).unwrap();
    render_system(&mut sys, 0.001, 0.0, &options(10, 100, 100, false), &path).unwrap();
    let gif = decode(&path);
    let frame = &gif.frames[0];
    // Bounds: the anchor at the origin and the bob at (sin 0.5, −cos 0.5).
    let (bx, by) = (0.5_f64.sin(), -(0.5_f64.cos()));
    let scale = (84.0 / bx).min(84.0 / -by);
    let px = 50.0 + (bx - 0.5 * bx) * scale;
    let py = 50.0 - (by - 0.5 * by) * scale;
    let p = pixel(frame, 100, px.round() as usize, py.round() as usize);
    assert!(p[2] > 100 && p[0] < 60 && p[1] < 80, "bob pixel {p:?}");
    for (x, y) in [(0, 0), (99, 0), (0, 99), (99, 99)] {
        assert_eq!(pixel(frame, 100, x, y), [255, 255, 255, 255]);
    }
    // The anchor's triangle hangs above the pivot.
    let ax = (50.0 - 0.5 * bx * scale).round() as usize;
    let ay = (50.0 + 0.5 * by * scale).round() as usize;
    let p = pixel(frame, 100, ax, ay - 5);
    assert!(p[0] < 60 && p[1] < 60 && p[2] < 60, "anchor pixel {p:?}");
}

#[test]
fn constraint_forces_are_drawn_only_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("chain.gif");
    let magenta_pixels = |show_forces: bool| {
        let mut chain = bead::models::chain(5, 0.2, 0.1, 0.0).unwrap();
        let opts = options(5, 120, 90, show_forces);
        render_system(&mut chain.system, 0.002, 0.4, &opts, &path).unwrap();
        let gif = decode(&path);
        assert_eq!(gif.frames.len(), 3);
        gif.frames
            .iter()
            .map(|f| count_pixels(f, is_magenta))
            .sum::<usize>()
    };
    assert!(magenta_pixels(true) > 20);
    assert_eq!(magenta_pixels(false), 0);
}

#[test]
fn a_3d_spherical_pendulum_renders_in_oblique_projection() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sphere.gif");
    let mut sys = System::new(3).unwrap();
    let p = sys
        .add_particle(Particle::new(&[1.0, 0.0, 0.0]).velocity(&[0.0, 2.0, 0.0]))
        .unwrap();
    sys.add_constraint(OnSphere::new(p, Motion::fixed(&[0.0, 0.0, 0.0]), 1.0))
        .unwrap();
    sys.add_force(Gravity::new(&[0.0, 0.0, -9.81])).unwrap();
    let summary = render_system(&mut sys, 0.002, 0.5, &options(8, 80, 60, true), &path).unwrap();
    assert_eq!(summary.frames, 5);
    let gif = decode(&path);
    assert_eq!((gif.width, gif.height), (80, 60));
    assert_eq!(gif.frames.len(), 5);
    assert_ne!(gif.frames[0], gif.frames[4]);
    // The sphere's wire outlines are drawn.
    let grey = |p: [u8; 4]| p[0] == p[1] && p[1] == p[2] && (150..240).contains(&p[0]);
    assert!(count_pixels(&gif.frames[0], grey) > 20);
}

#[test]
fn invalid_options_are_rejected_before_writing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("never.gif");
    let good = options(10, 64, 64, false);
    let cases: [(RenderOptions, f64, f64, &str); 8] = [
        (options(0, 64, 64, false), 0.01, 1.0, "frame rate"),
        (options(10, 0, 64, false), 0.01, 1.0, "width"),
        (options(10, 64, 15, false), 0.01, 1.0, "height"),
        (options(10, 4097, 64, false), 0.01, 1.0, "width"),
        (good.clone(), 0.0, 1.0, "time step"),
        (good.clone(), f64::NAN, 1.0, "time step"),
        (good.clone(), 0.01, -1.0, "duration"),
        (good, 0.01, f64::INFINITY, "duration"),
    ];
    for (opts, dt, duration, what) in cases {
        let (mut sys, _, _) = bead::models::pendulum(1.0, 0.5, 1.0).unwrap();
        let err = render_system(&mut sys, dt, duration, &opts, &path).unwrap_err();
        assert!(
            err.to_string().contains(what),
            "{err:#} should name the {what}"
        );
        assert!(!path.exists(), "{what}: a file was written");
        assert_eq!(sys.time(), 0.0);
    }
}

#[test]
fn a_failing_step_is_reported_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fail.gif");
    let mut sys = System::new(2).unwrap();
    let a = sys.add_particle(Particle::new(&[0.0, 0.0])).unwrap();
    let b = sys.add_particle(Particle::new(&[0.0, 0.0])).unwrap();
    // A rod between coincident points has no direction: the first evaluation fails.
    sys.add_constraint(Distance::new(a, b, 1.0)).unwrap();
    let err = render_system(&mut sys, 0.01, 1.0, &options(10, 64, 64, true), &path).unwrap_err();
    let message = format!("{err:#}");
    assert!(
        message.starts_with("simulation failed at t = 0 s"),
        "{message}"
    );
    assert!(message.contains("coincide"), "{message}");
    assert!(!path.exists());
}

#[test]
fn an_unwritable_output_names_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("missing").join("out.gif");
    let (mut sys, _, _) = bead::models::pendulum(1.0, 0.5, 1.0).unwrap();
    let err = render_system(&mut sys, 0.01, 0.1, &options(10, 32, 32, false), &path).unwrap_err();
    assert!(
        err.to_string().contains(&path.display().to_string()),
        "{err:#}"
    );
}

#[test]
fn frames_are_taken_when_the_simulation_first_reaches_their_time() {
    let (mut sys, _, _) = bead::models::pendulum(1.0, 0.5, 1.0).unwrap();
    let dt = 0.003;
    let snapshots = simulate_system(&mut sys, dt, 1.0, 10, false).unwrap();
    assert_eq!(snapshots.len(), 11);
    for (j, s) in snapshots.iter().enumerate() {
        let due = j as f64 / 10.0;
        assert!(
            s.time >= due - 1e-9 && s.time < due + dt,
            "frame {j} at {}",
            s.time
        );
    }
    assert!((snapshots[10].time - 1.0).abs() < 1e-9);
}

/// A render shows the trajectory `bead run` writes: the example pendulum's bob is drawn, in
/// every frame, exactly where a run of the same scene records it at that time.
#[test]
fn frames_show_the_trajectory_a_run_records() {
    /// The bob's position at each recorded row.
    struct Rows(Vec<(f64, P2)>);

    impl Sink for Rows {
        type Error = RecordError;

        fn record(&mut self, model: &mut Model, _: &bead::Diagnostics) -> Result<(), RecordError> {
            let bob = model
                .particles
                .iter()
                .find(|(name, _)| name == "bob")
                .unwrap()
                .1;
            let x = model.system.position(bob);
            self.0.push((model.system.time(), [x[0], x[1]]));
            Ok(())
        }
    }

    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes/pendulum.toml");
    let load = || {
        let mut model = bead_scene::Scene::load(&path).unwrap().build().unwrap();
        model.run.duration = 1.0;
        model
    };
    let mut rows = Rows(Vec::new());
    bead_scene::run::run(&mut load(), &mut rows, |_, _, _| {}).unwrap();
    let snapshots = simulate(&mut load(), 10, Look::default()).unwrap();
    assert_eq!(snapshots.len(), 11);
    for snapshot in &snapshots {
        let row = rows.0.iter().find(|(t, _)| *t == snapshot.time);
        let drawn = snapshot
            .shapes
            .iter()
            .find_map(|(shape, element)| match shape {
                Shape::Disc { center, .. } if *element == Element::Particle => Some(*center),
                _ => None,
            });
        assert!(drawn.is_some() && row.is_some(), "t = {}", snapshot.time);
        assert_eq!(drawn, row.map(|r| r.1), "t = {}", snapshot.time);
    }
}

/// A bead on a line: the wire's ±100 m segment must not set the view.
#[test]
fn wires_do_not_shrink_the_view() {
    let mut sys = System::new(2).unwrap();
    let anchor = sys.add_particle(Particle::anchor(&[0.0, 0.0])).unwrap();
    let bead = sys.add_particle(Particle::new(&[0.5, 0.0])).unwrap();
    sys.add_constraint(OnLine::new(bead, Motion::fixed(&[0.0, 0.0]), &[1.0, 0.0]))
        .unwrap();
    sys.add_force(bead::force::Spring::new(anchor, bead, 20.0, 0.0, 0.0))
        .unwrap();
    let snapshots = simulate_system(&mut sys, 0.001, 1.0, 10, false).unwrap();
    assert!(
        snapshots[0]
            .shapes
            .iter()
            .any(|(s, r)| matches!(s, Shape::Line { .. }) && *r == Element::Wire)
    );
    let view = Viewport::fit(&snapshots, 200, 100);
    // The bead oscillates over [−0.5, 0.5]: about 168 px for 1 m, not 0.84 px.
    assert!((view.scale - 168.0).abs() < 10.0, "scale {}", view.scale);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("line.gif");
    render_system(&mut sys, 0.001, 0.2, &options(10, 200, 100, false), &path).unwrap();
    // The clipped wire crosses the whole image.
    let gif = decode(&path);
    let row = (0..100)
        .find(|&y| (0..200).all(|x| pixel(&gif.frames[0], 200, x, y) != [255, 255, 255, 255]));
    assert!(row.is_some(), "no row is covered edge to edge");
}

/// A ball falling beside a post, above a floor 20 m wide: the view frames the fall and the
/// post whole, and the floor only where it meets them, so the ball is not a few pixels wide.
#[test]
fn a_large_still_floor_does_not_set_the_view() {
    use bead::{RigidBody, Shape as Shape2d};
    let box_at = |x: f64, y: f64, width: f64, height: f64| {
        RigidBody::new(&[x, y], 0.0)
            .fixed()
            .outline(Shape2d::Box { width, height })
    };
    let mut sys = System::new(2).unwrap();
    sys.add_rigid_body(box_at(0.0, -0.5, 20.0, 1.0)).unwrap();
    sys.add_rigid_body(box_at(0.6, 0.25, 0.1, 0.5)).unwrap();
    sys.add_rigid_body(
        RigidBody::new(&[0.0, 1.0], 0.0).shape(Shape2d::Disc { radius: 0.1 }, 100.0),
    )
    .unwrap();
    sys.add_force(Gravity::new(&[0.0, -9.81])).unwrap();
    let snapshots = simulate_system(&mut sys, 0.001, 0.4, 10, false).unwrap();
    let view = Viewport::fit(&snapshots, 200, 200);
    // What moves spans from the ball's top at the start (1.1 m) to its bottom in the last
    // frame, at 0.4 s; the post beside it is within that height. The floor adds a quarter of
    // that span below. Framed whole, the floor would give 8.4 px a metre.
    let bottom = 1.0 - 0.5 * 9.81 * 0.4 * 0.4 - 0.1;
    let span = 1.1 - bottom;
    let expected = 200.0 * (1.0 - 2.0 * 0.08) / (span * 1.25);
    assert!(
        (view.scale - expected).abs() < 1e-6 * expected,
        "scale {} px/m, expected about {expected}",
        view.scale
    );
    // With nothing moving, everything is framed: the floor sets the view.
    let mut still = System::new(2).unwrap();
    still.add_rigid_body(box_at(0.0, -0.5, 20.0, 1.0)).unwrap();
    let snapshots = simulate_system(&mut still, 0.01, 0.1, 10, false).unwrap();
    let view = Viewport::fit(&snapshots, 200, 200);
    assert!(
        (view.scale - 200.0 * 0.84 / 20.0).abs() < 1e-9,
        "scale {}",
        view.scale
    );
}

/// With forces drawn, every contact of a group is marked midway between the two surfaces:
/// a 2D disc and a 3D sphere resting on a floor, and a 3D cube's four corners.
#[test]
fn contacts_are_marked_where_shapes_touch_when_forces_are_drawn() {
    use bead::contact::ShapeContacts;
    use bead::{RigidBody, Shape as Shape2d};
    let marks = |sys: &mut System, show_forces: bool, camera: Camera| -> Vec<P2> {
        let look = Look {
            show_forces,
            camera,
            ..Look::default()
        };
        let snapshots = with_model(sys, 0.001, 0.0, |model| simulate(model, 10, look)).unwrap();
        snapshots[0]
            .shapes
            .iter()
            .filter_map(|(shape, element)| match (shape, element) {
                (Shape::Marker { at }, Element::Contact) => Some(*at),
                _ => None,
            })
            .collect()
    };
    let mut flat = System::new(2).unwrap();
    let floor = flat
        .add_rigid_body(
            RigidBody::new(&[0.0, -0.5], 0.0)
                .fixed()
                .outline(Shape2d::Box {
                    width: 4.0,
                    height: 1.0,
                }),
        )
        .unwrap();
    let disc = flat
        .add_rigid_body(RigidBody::new(&[0.3, 0.1], 0.0).shape(Shape2d::Disc { radius: 0.1 }, 1.0))
        .unwrap();
    flat.add_shape_contacts(ShapeContacts::new().body(floor, 0.0).body(disc, 0.0))
        .unwrap();
    assert!(marks(&mut flat, false, Camera::Cabinet).is_empty());
    let at = marks(&mut flat, true, Camera::Cabinet);
    assert_eq!(at.len(), 1, "{at:?}");
    assert!(
        (at[0][0] - 0.3).abs() < 1e-12 && at[0][1].abs() < 1e-12,
        "{at:?}"
    );

    // In 3D, seen from the front (yaw 0, pitch 0): x to the right, z up.
    let mut solid = System::new(3).unwrap();
    let floor = solid
        .add_rigid_body_3d(
            RigidBody3d::new([0.0, 0.0, -0.5])
                .fixed()
                .outline(Shape3d::Box {
                    size: [4.0, 4.0, 1.0],
                }),
        )
        .unwrap();
    let ball = solid
        .add_rigid_body_3d(
            RigidBody3d::new([-1.0, 0.0, 0.1]).shape(Shape3d::Sphere { radius: 0.1 }, 1.0),
        )
        .unwrap();
    let cube = solid
        .add_rigid_body_3d(
            RigidBody3d::new([1.0, 0.0, 0.15]).shape(Shape3d::Box { size: [0.3; 3] }, 1.0),
        )
        .unwrap();
    solid
        .add_shape_contacts(
            ShapeContacts::new()
                .body(floor, 0.0)
                .body(ball, 0.0)
                .body(cube, 0.0),
        )
        .unwrap();
    let mut at = marks(&mut solid, true, Camera::orbit(0.0, 0.0));
    at.sort_by(|a, b| a[0].total_cmp(&b[0]));
    // The ball's lowest point, then the cube's corners at x = 0.85 and 1.15 (two behind two).
    assert_eq!(at.len(), 5, "{at:?}");
    let expected = [-1.0, 0.85, 0.85, 1.15, 1.15];
    for (p, x) in at.iter().zip(expected) {
        assert!((p[0] - x).abs() < 1e-9 && p[1].abs() < 1e-9, "{at:?}");
    }
}

#[test]
fn degenerate_scenes_get_a_one_metre_box() {
    let mut sys = System::new(2).unwrap();
    sys.add_particle(Particle::new(&[3.0, -2.0])).unwrap();
    let snapshots = simulate_system(&mut sys, 0.01, 0.1, 10, false).unwrap();
    let view = Viewport::fit(&snapshots, 100, 50);
    assert_eq!(view.center, [3.0, -2.0]);
    assert!((view.scale - 42.0).abs() < 1e-9);
    // Nothing at all: the same box, around the origin.
    let view = Viewport::fit(&[], 100, 50);
    assert_eq!((view.center, view.scale), ([0.0, 0.0], 42.0));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empty.gif");
    let mut empty = System::new(3).unwrap();
    render_system(&mut empty, 0.01, 0.1, &options(10, 16, 16, false), &path).unwrap();
    let gif = decode(&path);
    assert_eq!(gif.frames.len(), 2);
    assert_eq!(
        count_pixels(&gif.frames[0], |p| p != [255, 255, 255, 255]),
        0
    );
}

#[test]
fn segments_are_clipped_to_the_view() {
    let (min, max) = ([0.0, 0.0], [10.0, 10.0]);
    let (a, b) = clip([-100.0, 5.0], [100.0, 5.0], min, max).unwrap();
    let close = |p: P2, q: P2| (p[0] - q[0]).hypot(p[1] - q[1]) < 1e-9;
    assert!(close(a, [0.0, 5.0]) && close(b, [10.0, 5.0]), "{a:?} {b:?}");
    assert!(clip([-100.0, 20.0], [100.0, 20.0], min, max).is_none());
    assert_eq!(
        clip([1.0, 1.0], [2.0, 3.0], min, max),
        Some(([1.0, 1.0], [2.0, 3.0]))
    );
}

#[test]
fn frame_delays_are_whole_centiseconds() {
    assert_eq!(frame_delay(1), 100);
    assert_eq!(frame_delay(30), 3);
    assert_eq!(frame_delay(25), 4);
    assert_eq!(frame_delay(1000), 1);
}

/// Two cubes, one 3 m behind the other along the camera's view direction and 3 m to the right,
/// at rest in space; and where each is drawn.
fn two_cubes(camera: &Camera) -> (System, [P2; 2]) {
    let mut sys = System::new(3).unwrap();
    let (right, d) = (camera.frame()[0], camera.view_direction());
    let mut drawn = [[0.0; 2]; 2];
    for (k, centre) in [
        [0.0; 3],
        std::array::from_fn(|i| 3.0 * d[i] + 3.0 * right[i]),
    ]
    .into_iter()
    .enumerate()
    {
        sys.add_rigid_body_3d(RigidBody3d::new(centre).shape(Shape3d::Box { size: [1.0; 3] }, 1.0))
            .unwrap();
        drawn[k] = camera.project(3, centre);
    }
    (sys, drawn)
}

/// With `--solid`, a 3D solid is drawn by the faces it turns to the camera (three of a cube's
/// six), lit, the far cube's before the near one's, so that the near one covers it; without it,
/// by its twelve edges and its axes, as it always was.
#[test]
fn solids_are_drawn_filled_in_depth_order_when_asked() {
    for camera in [
        Camera::Cabinet,
        Camera::orbit(0.6, 0.4),
        Camera::orbit(-2.0, -0.5),
    ] {
        let look = Look {
            camera,
            solid: true,
            ..Look::default()
        };
        let (mut sys, [near, far]) = two_cubes(&camera);
        let snapshots = with_model(&mut sys, 0.01, 0.0, |model| simulate(model, 10, look)).unwrap();
        let faces: Vec<(P2, f64)> = snapshots[0]
            .shapes
            .iter()
            .filter_map(|(shape, _)| match shape {
                Shape::Face { points, light, .. } => {
                    let n = points.len() as f64;
                    let c = [0, 1].map(|k| points.iter().map(|p| p[k]).sum::<f64>() / n);
                    Some((c, *light))
                }
                _ => None,
            })
            .collect();
        assert_eq!(faces.len(), 6, "{camera:?}: three faces of each cube");
        assert!(faces.iter().all(|(_, light)| *light > 0.3 && *light <= 1.0));
        let to = |c: P2, p: P2| (c[0] - p[0]).hypot(c[1] - p[1]);
        for (k, (c, _)) in faces.iter().enumerate() {
            let of_far = to(*c, far) < to(*c, near);
            assert_eq!(
                of_far,
                k < 3,
                "{camera:?}: face {k} drawn out of depth order"
            );
        }
        let (mut sys, _) = two_cubes(&camera);
        let wires = with_model(&mut sys, 0.01, 0.0, |model| {
            let look = Look {
                camera,
                ..Look::default()
            };
            simulate(model, 10, look)
        })
        .unwrap();
        assert!(
            wires[0]
                .shapes
                .iter()
                .all(|(s, _)| matches!(s, Shape::Line { .. }))
        );
        assert_eq!(wires[0].shapes.len(), 2 * (12 + 3));
    }
}

/// A solid render has filled faces in the face colour's shades; the default has none.
#[test]
fn a_solid_render_fills_its_faces() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cubes.gif");
    let greenish = |p: [u8; 4]| {
        let [r, g, b] = [p[0], p[1], p[2]].map(i32::from);
        // Lit faces, lighter than the wireframe's dark green.
        g > r + 20 && g > b + 10 && g > 120
    };
    let count = |solid: bool| {
        let (mut sys, _) = two_cubes(&Camera::Cabinet);
        let opts = RenderOptions {
            solid,
            ..options(10, 200, 150, false)
        };
        render_system(&mut sys, 0.01, 0.0, &opts, &path).unwrap();
        count_pixels(&decode(&path).frames[0], greenish)
    };
    let (filled, wire) = (count(true), count(false));
    assert!(filled > 1000, "{filled} shaded pixels");
    assert!(wire < filled / 4, "{wire} against {filled}");
}

/// `--view` takes `cabinet` or yaw and pitch in degrees, and says what is wrong otherwise.
#[test]
fn views_parse() {
    assert_eq!(parse_view("cabinet"), Ok(Camera::Cabinet));
    assert_eq!(
        parse_view(" -30, 20 "),
        Ok(Camera::orbit(-30f64.to_radians(), 20f64.to_radians()))
    );
    assert!(parse_view("0,95").unwrap_err().contains("pitch"));
    for bad in ["", "30", "a,b", "1,2,3", "nan,0"] {
        assert!(parse_view(bad).unwrap_err().contains("YAW,PITCH"), "{bad}");
    }
}
