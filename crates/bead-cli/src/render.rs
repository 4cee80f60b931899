//! `bead render`: runs a scene's model and writes what it draws (through [`bead::draw::Canvas`])
//! as an animated GIF.
//!
//! The model steps through [`bead_scene::run::run`], the loop of `bead run` and the Python
//! package, so a render shows the trajectory a run of the same scene writes. The run is recorded
//! first, as projected primitives, so that the view can be fitted to the
//! whole animation (the camera never moves) and forces can share one arrow scale; each frame is
//! then rasterised with tiny-skia and encoded as it is drawn, so only one image is held at a time.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use anyhow::{Context, Result, ensure};
use bead::draw::{Canvas, Element};
use bead::{Diagnostics, System};
use bead_scene::Model;
use bead_scene::run::{Sink, run};
use tiny_skia::{
    Color, FillRule, LineCap, LineJoin, Paint, PathBuilder, Pixmap, Stroke, Transform,
};

/// How to draw the animation.
#[derive(Clone, Debug, PartialEq)]
pub struct RenderOptions {
    /// Frames per second, both of simulated time and of playback (real-time animation).
    pub fps: u32,
    /// Image width, in pixels.
    pub width: u32,
    /// Image height, in pixels.
    pub height: u32,
    /// Draw each constraint force `Jᵀλ` as an arrow on the body it acts on.
    pub show_forces: bool,
}

/// What was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RenderSummary {
    /// Number of frames in the GIF.
    pub frames: usize,
}

/// Runs `model` from its current state for its duration (`model.run`) and writes an animated GIF
/// of it to `output`.
///
/// Frames are taken at simulated times 0, 1/fps, 2/fps, … up to the duration (each when the
/// simulation first reaches it), so the GIF plays in real time. Nothing is written if the options
/// are invalid or the simulation fails.
pub fn render(model: &mut Model, options: &RenderOptions, output: &Path) -> Result<RenderSummary> {
    validate(model.run.dt, model.run.duration, options)?;
    let snapshots = simulate(model, options.fps, options.show_forces)?;
    let view = Viewport::fit(&snapshots, options.width, options.height);
    encode(&snapshots, &view, options, output)?;
    Ok(RenderSummary {
        frames: snapshots.len(),
    })
}

/// Smallest and largest image side, in pixels (4096 also keeps sides within GIF's u16).
const SIDES: std::ops::RangeInclusive<u32> = 16..=4096;

/// Slack on frame times, so that a frame due at exactly `duration` is not lost to rounding.
const TIME_TOLERANCE: f64 = 1e-9;

fn validate(dt: f64, duration: f64, options: &RenderOptions) -> Result<()> {
    ensure!(
        options.fps >= 1,
        "the frame rate must be at least 1 frame per second, got {}",
        options.fps
    );
    for (what, side) in [("width", options.width), ("height", options.height)] {
        ensure!(
            SIDES.contains(&side),
            "the image {what} must be between {} and {} pixels, got {side}",
            SIDES.start(),
            SIDES.end()
        );
    }
    ensure!(
        dt > 0.0 && dt.is_finite(),
        "the time step must be a positive, finite number of seconds, got {dt}"
    );
    ensure!(
        duration >= 0.0 && duration.is_finite(),
        "the duration must be zero or a positive, finite number of seconds, got {duration}"
    );
    Ok(())
}

// ----- simulation and capture -----

/// A 2D point on the projection plane, in world metres.
type P2 = [f64; 2];

/// One primitive, already projected to the plane of the image (still in metres, y up).
#[derive(Clone, Debug, PartialEq)]
enum Shape {
    Disc {
        center: P2,
        radius: f64,
    },
    Line {
        a: P2,
        b: P2,
    },
    Zigzag {
        a: P2,
        b: P2,
    },
    /// A circle that projects to a circle (any circle of a 2D system).
    Circle {
        center: P2,
        radius: f64,
    },
    /// A closed outline: a 3D circle seen obliquely.
    Polyline(Vec<P2>),
    Marker {
        at: P2,
    },
    /// `magnitude` is the world length of the vector, which sets the common arrow scale.
    Arrow {
        from: P2,
        vector: P2,
        magnitude: f64,
    },
}

/// What was drawn at one captured instant.
#[derive(Clone, Debug)]
struct Snapshot {
    /// Simulated time, in seconds.
    time: f64,
    shapes: Vec<(Shape, Element)>,
}

/// A [`Canvas`] that keeps the primitives, projected, for fitting the view after the run.
struct Recorder {
    dim: usize,
    shapes: Vec<(Shape, Element)>,
}

/// cos 30° and sin 30°: the receding y axis of the cabinet projection.
const COS_30: f64 = 0.866_025_403_784_438_6;
const SIN_30: f64 = 0.5;

/// Points on the outline of a 3D circle; enough that the projected polygon looks round.
const CIRCLE_POINTS: usize = 64;

/// Projects a world point (or, the map being linear, a vector) onto the image plane. 3D uses a
/// fixed cabinet projection with z up and y receding, so that depth stays visible in a still
/// image; 2D is the identity.
fn project(dim: usize, p: [f64; 3]) -> P2 {
    if dim == 3 {
        [p[0] + 0.5 * p[1] * COS_30, p[2] + 0.5 * p[1] * SIN_30]
    } else {
        [p[0], p[1]]
    }
}

fn norm3(v: [f64; 3]) -> f64 {
    (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt()
}

/// Two unit vectors spanning the plane normal to `normal` (z when the normal is unusable).
fn plane_basis(normal: [f64; 3]) -> ([f64; 3], [f64; 3]) {
    let len = norm3(normal);
    let n = if len > 0.0 && len.is_finite() {
        normal.map(|c| c / len)
    } else {
        [0.0, 0.0, 1.0]
    };
    // Crossing with the axis least aligned with n keeps the result well conditioned.
    let axis = if n[0].abs() <= n[1].abs() && n[0].abs() <= n[2].abs() {
        [1.0, 0.0, 0.0]
    } else if n[1].abs() <= n[2].abs() {
        [0.0, 1.0, 0.0]
    } else {
        [0.0, 0.0, 1.0]
    };
    let cross = |a: [f64; 3], b: [f64; 3]| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    let u = cross(n, axis);
    let u_len = norm3(u);
    let u = u.map(|c| c / u_len);
    (u, cross(n, u))
}

impl Canvas for Recorder {
    fn disc(&mut self, center: [f64; 3], radius: f64, element: Element) {
        let center = project(self.dim, center);
        self.shapes.push((Shape::Disc { center, radius }, element));
    }

    fn line(&mut self, a: [f64; 3], b: [f64; 3], element: Element) {
        let (a, b) = (project(self.dim, a), project(self.dim, b));
        self.shapes.push((Shape::Line { a, b }, element));
    }

    fn zigzag(&mut self, a: [f64; 3], b: [f64; 3], element: Element) {
        let (a, b) = (project(self.dim, a), project(self.dim, b));
        self.shapes.push((Shape::Zigzag { a, b }, element));
    }

    fn circle(&mut self, center: [f64; 3], radius: f64, normal: [f64; 3], element: Element) {
        if self.dim != 3 {
            let center = project(self.dim, center);
            self.shapes
                .push((Shape::Circle { center, radius }, element));
            return;
        }
        let (u, v) = plane_basis(normal);
        let points = (0..CIRCLE_POINTS)
            .map(|k| {
                let angle = std::f64::consts::TAU * k as f64 / CIRCLE_POINTS as f64;
                let (s, c) = angle.sin_cos();
                let p = std::array::from_fn(|i| center[i] + radius * (c * u[i] + s * v[i]));
                project(self.dim, p)
            })
            .collect();
        self.shapes.push((Shape::Polyline(points), element));
    }

    fn marker(&mut self, at: [f64; 3], element: Element) {
        let at = project(self.dim, at);
        self.shapes.push((Shape::Marker { at }, element));
    }

    fn arrow(&mut self, from: [f64; 3], vector: [f64; 3], element: Element) {
        let shape = Shape::Arrow {
            from: project(self.dim, from),
            vector: project(self.dim, vector),
            magnitude: norm3(vector),
        };
        self.shapes.push((shape, element));
    }
}

/// Number of frames at times 0, 1/fps, … ≤ duration.
fn frame_count(duration: f64, fps: u32) -> usize {
    let intervals = ((duration + TIME_TOLERANCE) * f64::from(fps)).floor();
    (intervals as usize).saturating_add(1)
}

/// Draws the system's current state into a [`Snapshot`].
fn snapshot(system: &mut System, show_forces: bool) -> Snapshot {
    // A state where λ cannot be solved still has a picture; the next step reports the failure.
    let diagnostics = if show_forces {
        system.diagnostics().ok()
    } else {
        None
    };
    let mut recorder = Recorder {
        dim: system.dim(),
        shapes: Vec::new(),
    };
    system.draw(&mut recorder, diagnostics.as_ref());
    Snapshot {
        time: system.time(),
        shapes: recorder.shapes,
    }
}

/// The frames of a run: a [`Sink`] that takes a snapshot whenever the run first reaches a frame
/// time.
struct Frames {
    /// Frames due in the whole run.
    count: usize,
    fps: u32,
    show_forces: bool,
    snapshots: Vec<Snapshot>,
}

impl Frames {
    fn new(count: usize, fps: u32, show_forces: bool) -> Frames {
        Frames {
            count,
            fps,
            show_forces,
            // The capacity is only a hint; a huge frame count must not reserve memory up front.
            snapshots: Vec::with_capacity(count.min(1024)),
        }
    }

    /// Takes the frames due by `elapsed` seconds into the run. Steps longer than a frame
    /// interval leave several frames due at once: repeating the state keeps the GIF's timing
    /// right.
    fn take_due(&mut self, system: &mut System, elapsed: f64) {
        let due = |frame: usize| frame as f64 / f64::from(self.fps) - TIME_TOLERANCE;
        while self.snapshots.len() < self.count && elapsed >= due(self.snapshots.len()) {
            self.snapshots.push(snapshot(system, self.show_forces));
        }
    }

    /// The frames of a finished run. It ended at its duration, where every frame is due; only
    /// rounding can leave one behind, which the last state stands for.
    fn finish(mut self, system: &mut System) -> Vec<Snapshot> {
        while self.snapshots.len() < self.count {
            self.snapshots.push(snapshot(system, self.show_forces));
        }
        self.snapshots
    }
}

impl Sink for Frames {
    type Error = anyhow::Error;

    /// Rows are `bead run`'s output; frames keep their own schedule, in [`Sink::observe`].
    fn record(&mut self, _: &mut Model, _: &Diagnostics) -> Result<()> {
        Ok(())
    }

    fn observe(&mut self, model: &mut Model, elapsed: f64) -> Result<()> {
        self.take_due(&mut model.system, elapsed);
        Ok(())
    }
}

/// Runs the model to its duration and captures a snapshot whenever it first reaches a frame
/// time. A failed step fails the render, naming the time of the last good state.
fn simulate(model: &mut Model, fps: u32, show_forces: bool) -> Result<Vec<Snapshot>> {
    let mut frames = Frames::new(frame_count(model.run.duration, fps), fps, show_forces);
    // The only errors besides a failed step: a row whose state cannot be evaluated.
    let report = run(model, &mut frames, |_, _, _| {})
        .with_context(|| format!("simulation failed at t = {} s", model.system.time()))?;
    if let Some(e) = report.failure {
        let t = report.t_end;
        return Err(anyhow::Error::new(e).context(format!("simulation failed at t = {t} s")));
    }
    Ok(frames.finish(&mut model.system))
}

// ----- view -----

/// Fraction of the image left free on each side.
const MARGIN: f64 = 0.08;

/// The largest force arrow of the run spans this fraction of the image diagonal.
const ARROW_FRACTION: f64 = 0.15;

/// How world metres (and newtons) map to pixels; fixed for the whole animation.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Viewport {
    width: u32,
    height: u32,
    /// World point drawn at the centre of the image.
    center: P2,
    /// Pixels per metre, the same on both axes.
    scale: f64,
    /// Pixels per unit of an arrow's vector (newtons for forces).
    arrow_scale: f64,
}

/// Axis-aligned bounds of a set of points.
#[derive(Clone, Copy, Debug)]
struct Bounds {
    min: P2,
    max: P2,
}

impl Bounds {
    fn add(bounds: &mut Option<Bounds>, p: P2) {
        if !(p[0].is_finite() && p[1].is_finite()) {
            return;
        }
        let b = bounds.get_or_insert(Bounds { min: p, max: p });
        for i in 0..2 {
            b.min[i] = b.min[i].min(p[i]);
            b.max[i] = b.max[i].max(p[i]);
        }
    }

    /// Bounds of everything drawn in the run. Wires are left out (an on-line constraint draws a
    /// ±100 m segment that would shrink the model to a dot; it is clipped instead), and so are
    /// arrows, whose length depends on the view being fitted.
    fn of(snapshots: &[Snapshot]) -> Option<Bounds> {
        let mut bounds = None;
        for (shape, element) in snapshots.iter().flat_map(|s| &s.shapes) {
            match shape {
                Shape::Disc { center, radius } | Shape::Circle { center, radius } => {
                    let r = if radius.is_finite() { *radius } else { 0.0 };
                    Bounds::add(&mut bounds, [center[0] - r, center[1] - r]);
                    Bounds::add(&mut bounds, [center[0] + r, center[1] + r]);
                }
                Shape::Line { .. } if *element == Element::Wire => {}
                Shape::Line { a, b } | Shape::Zigzag { a, b } => {
                    Bounds::add(&mut bounds, *a);
                    Bounds::add(&mut bounds, *b);
                }
                Shape::Polyline(points) => {
                    for p in points {
                        Bounds::add(&mut bounds, *p);
                    }
                }
                Shape::Marker { at } => Bounds::add(&mut bounds, *at),
                Shape::Arrow { .. } => {}
            }
        }
        bounds
    }
}

impl Viewport {
    /// The view that shows the whole run with a margin, keeping the aspect ratio, and the arrow
    /// scale that makes the largest arrow of the run a fixed fraction of the image diagonal.
    fn fit(snapshots: &[Snapshot], width: u32, height: u32) -> Viewport {
        let bounds = Bounds::of(snapshots).unwrap_or(Bounds {
            min: [0.0; 2],
            max: [0.0; 2],
        });
        let center = std::array::from_fn(|i| 0.5 * (bounds.min[i] + bounds.max[i]));
        let mut span: P2 = std::array::from_fn(|i| bounds.max[i] - bounds.min[i]);
        if span[0].max(span[1]) <= 1e-12 {
            // A lone point has no size to fit: show a metre around it.
            span = [1.0, 1.0];
        }
        let usable = [width, height].map(|side| f64::from(side) * (1.0 - 2.0 * MARGIN));
        // An axis with no extent (a chain hanging straight) places no limit on the scale.
        let scale = (0..2)
            .filter(|&i| span[i] > 0.0)
            .map(|i| usable[i] / span[i])
            .fold(f64::INFINITY, f64::min);
        let largest = snapshots
            .iter()
            .flat_map(|s| &s.shapes)
            .filter_map(|(shape, _)| match shape {
                Shape::Arrow { magnitude, .. } if magnitude.is_finite() => Some(*magnitude),
                _ => None,
            })
            .fold(0.0, f64::max);
        let diagonal = f64::from(width).hypot(f64::from(height));
        let arrow_scale = if largest > 0.0 {
            ARROW_FRACTION * diagonal / largest
        } else {
            0.0
        };
        Viewport {
            width,
            height,
            center,
            scale,
            arrow_scale,
        }
    }

    /// Pixel position of a world point (y down on screen).
    fn px(&self, p: P2) -> P2 {
        [
            0.5 * f64::from(self.width) + (p[0] - self.center[0]) * self.scale,
            0.5 * f64::from(self.height) - (p[1] - self.center[1]) * self.scale,
        ]
    }
}

// ----- rasterising -----

/// Colour and stroke width of an element.
#[derive(Clone, Copy, Debug)]
struct Style {
    rgb: [u8; 3],
    width: f32,
}

fn style(element: Element) -> Style {
    let (rgb, width) = match element {
        Element::Particle => ([25, 50, 140], 1.0),
        Element::Anchor => ([0, 0, 0], 1.0),
        Element::Rod => ([70, 70, 70], 2.0),
        Element::Spring => ([30, 100, 220], 1.5),
        Element::Wire => ([190, 190, 190], 1.0),
        Element::Nail => ([150, 20, 20], 2.0),
        Element::Mouse => ([255, 140, 0], 1.0),
        Element::Force => ([220, 30, 30], 2.0),
        Element::ConstraintForce => ([200, 0, 200], 2.0),
        Element::Body => ([40, 90, 60], 3.0),
        Element::Joint => ([20, 20, 20], 1.0),
        _ => ([128, 128, 128], 1.0),
    };
    Style { rgb, width }
}

/// Drawing order: wires under everything, arrows over everything.
fn layer(shape: &Shape, element: Element) -> u8 {
    match (shape, element) {
        (_, Element::Wire) => 0,
        (Shape::Arrow { .. }, _) => 2,
        _ => 1,
    }
}

/// Smallest radius of a drawn disc, in pixels, so that point masses stay visible.
const MIN_DISC_PX: f64 = 3.0;
/// Teeth of a drawn spring.
const TEETH: usize = 10;
/// Lines are clipped to the image grown by this many pixels, which hides the clipped ends.
const CLIP_PAD: f64 = 16.0;

fn paint(rgb: [u8; 3]) -> Paint<'static> {
    let mut paint = Paint::default();
    paint.set_color_rgba8(rgb[0], rgb[1], rgb[2], 255);
    paint.anti_alias = true;
    paint
}

fn stroke_polyline(pixmap: &mut Pixmap, points: &[P2], closed: bool, style: Style) {
    let mut pb = PathBuilder::new();
    for (i, p) in points.iter().enumerate() {
        if i == 0 {
            pb.move_to(p[0] as f32, p[1] as f32);
        } else {
            pb.line_to(p[0] as f32, p[1] as f32);
        }
    }
    if closed {
        pb.close();
    }
    // No path (non-finite or too few points) means nothing visible to draw.
    let Some(path) = pb.finish() else { return };
    let stroke = Stroke {
        width: style.width,
        line_cap: LineCap::Round,
        line_join: LineJoin::Round,
        ..Stroke::default()
    };
    pixmap.stroke_path(
        &path,
        &paint(style.rgb),
        &stroke,
        Transform::identity(),
        None,
    );
}

fn fill_polygon(pixmap: &mut Pixmap, points: &[P2], rgb: [u8; 3]) {
    let mut pb = PathBuilder::new();
    for (i, p) in points.iter().enumerate() {
        if i == 0 {
            pb.move_to(p[0] as f32, p[1] as f32);
        } else {
            pb.line_to(p[0] as f32, p[1] as f32);
        }
    }
    pb.close();
    let Some(path) = pb.finish() else { return };
    pixmap.fill_path(
        &path,
        &paint(rgb),
        FillRule::Winding,
        Transform::identity(),
        None,
    );
}

fn fill_circle(pixmap: &mut Pixmap, center: P2, radius: f64, rgb: [u8; 3]) {
    let Some(path) = PathBuilder::from_circle(center[0] as f32, center[1] as f32, radius as f32)
    else {
        return;
    };
    pixmap.fill_path(
        &path,
        &paint(rgb),
        FillRule::Winding,
        Transform::identity(),
        None,
    );
}

fn stroke_circle(pixmap: &mut Pixmap, center: P2, radius: f64, style: Style) {
    let Some(path) = PathBuilder::from_circle(center[0] as f32, center[1] as f32, radius as f32)
    else {
        return;
    };
    let stroke = Stroke {
        width: style.width,
        ..Stroke::default()
    };
    pixmap.stroke_path(
        &path,
        &paint(style.rgb),
        &stroke,
        Transform::identity(),
        None,
    );
}

/// The part of segment `a`–`b` inside `[min, max]` (Liang–Barsky), in pixels. Clipping here
/// keeps 200 m wires out of the rasteriser's fixed-point range.
fn clip(a: P2, b: P2, min: P2, max: P2) -> Option<(P2, P2)> {
    let d = [b[0] - a[0], b[1] - a[1]];
    let (mut t0, mut t1) = (0.0_f64, 1.0_f64);
    for i in 0..2 {
        for (p, q) in [(-d[i], a[i] - min[i]), (d[i], max[i] - a[i])] {
            if p == 0.0 {
                if q < 0.0 {
                    return None;
                }
            } else {
                let t = q / p;
                if p < 0.0 {
                    t0 = t0.max(t);
                } else {
                    t1 = t1.min(t);
                }
            }
        }
    }
    if !(t0 <= t1) {
        return None;
    }
    let at = |t: f64| [a[0] + t * d[0], a[1] + t * d[1]];
    Some((at(t0), at(t1)))
}

/// Vertices of a spring between two pixel positions: straight leads, then [`TEETH`] teeth of
/// amplitude ~4% of the length (at least a few pixels, so short springs still read as springs).
fn zigzag_points(a: P2, b: P2) -> Vec<P2> {
    let d = [b[0] - a[0], b[1] - a[1]];
    let len = d[0].hypot(d[1]);
    if !(len > 1.0) {
        return vec![a, b];
    }
    let normal = [-d[1] / len, d[0] / len];
    let amplitude = (0.04 * len).max(3.0);
    let at = |t: f64, off: f64| {
        [
            a[0] + t * d[0] + off * normal[0],
            a[1] + t * d[1] + off * normal[1],
        ]
    };
    let (lead, body) = (0.1, 0.8);
    let half_teeth = 2 * TEETH;
    let mut points = vec![a, at(lead, 0.0)];
    for k in 0..half_teeth {
        let t = lead + body * (k as f64 + 0.5) / half_teeth as f64;
        let side = if k % 2 == 0 { 1.0 } else { -1.0 };
        points.push(at(t, side * amplitude));
    }
    points.extend([at(lead + body, 0.0), b]);
    points
}

fn draw_marker(pixmap: &mut Pixmap, at: P2, element: Element) {
    let [x, y] = at;
    let style = style(element);
    match element {
        // A ceiling mount: a triangle hanging from the anchor point.
        Element::Anchor => fill_polygon(
            pixmap,
            &[[x, y], [x - 6.0, y - 10.0], [x + 6.0, y - 10.0]],
            style.rgb,
        ),
        Element::Nail => {
            stroke_polyline(
                pixmap,
                &[[x - 5.0, y - 5.0], [x + 5.0, y + 5.0]],
                false,
                style,
            );
            stroke_polyline(
                pixmap,
                &[[x - 5.0, y + 5.0], [x + 5.0, y - 5.0]],
                false,
                style,
            );
        }
        _ => fill_polygon(
            pixmap,
            &[
                [x - 3.0, y - 3.0],
                [x + 3.0, y - 3.0],
                [x + 3.0, y + 3.0],
                [x - 3.0, y + 3.0],
            ],
            style.rgb,
        ),
    }
}

/// A shaft and a filled head; `vector` is in pixels.
fn draw_arrow(pixmap: &mut Pixmap, from: P2, vector: P2, style: Style) {
    let len = vector[0].hypot(vector[1]);
    if !(len >= 1.0) || !len.is_finite() {
        return;
    }
    let dir = [vector[0] / len, vector[1] / len];
    let head = (0.35 * len).min(10.0);
    let tip = [from[0] + vector[0], from[1] + vector[1]];
    let base = [tip[0] - head * dir[0], tip[1] - head * dir[1]];
    let half = 0.45 * head;
    stroke_polyline(pixmap, &[from, base], false, style);
    fill_polygon(
        pixmap,
        &[
            tip,
            [base[0] - half * dir[1], base[1] + half * dir[0]],
            [base[0] + half * dir[1], base[1] - half * dir[0]],
        ],
        style.rgb,
    );
}

fn draw_shape(pixmap: &mut Pixmap, shape: &Shape, element: Element, view: &Viewport) {
    let style = style(element);
    match shape {
        Shape::Disc { center, radius } => {
            let r = (radius * view.scale).max(MIN_DISC_PX);
            fill_circle(pixmap, view.px(*center), r, style.rgb);
        }
        Shape::Line { a, b } => {
            let min = [-CLIP_PAD, -CLIP_PAD];
            let max = [
                f64::from(view.width) + CLIP_PAD,
                f64::from(view.height) + CLIP_PAD,
            ];
            if let Some((a, b)) = clip(view.px(*a), view.px(*b), min, max) {
                stroke_polyline(pixmap, &[a, b], false, style);
            }
        }
        Shape::Zigzag { a, b } => {
            let points = zigzag_points(view.px(*a), view.px(*b));
            stroke_polyline(pixmap, &points, false, style);
        }
        Shape::Circle { center, radius } => {
            stroke_circle(pixmap, view.px(*center), radius * view.scale, style);
        }
        Shape::Polyline(points) => {
            let points: Vec<P2> = points.iter().map(|p| view.px(*p)).collect();
            stroke_polyline(pixmap, &points, true, style);
        }
        Shape::Marker { at } => draw_marker(pixmap, view.px(*at), element),
        Shape::Arrow { from, vector, .. } => {
            let k = view.arrow_scale;
            draw_arrow(
                pixmap,
                view.px(*from),
                [vector[0] * k, -vector[1] * k],
                style,
            );
        }
    }
}

/// Draws one snapshot over a white background.
fn rasterise(pixmap: &mut Pixmap, snapshot: &Snapshot, view: &Viewport) {
    pixmap.fill(Color::WHITE);
    for current in 0..=2 {
        for (shape, element) in &snapshot.shapes {
            if layer(shape, *element) == current {
                draw_shape(pixmap, shape, *element, view);
            }
        }
    }
}

// ----- encoding -----

/// GIF delays are in hundredths of a second; 0 would mean "as fast as possible".
fn frame_delay(fps: u32) -> u16 {
    let delay = (100.0 / f64::from(fps)).round().max(1.0);
    // fps ≥ 1 keeps this ≤ 100.
    delay as u16
}

/// Rasterises each snapshot and writes them all as a looping GIF.
fn encode(
    snapshots: &[Snapshot],
    view: &Viewport,
    options: &RenderOptions,
    output: &Path,
) -> Result<()> {
    let shown = output.display();
    let (width, height) = (
        u16::try_from(options.width).context("image width does not fit a GIF")?,
        u16::try_from(options.height).context("image height does not fit a GIF")?,
    );
    let mut pixmap = Pixmap::new(options.width, options.height)
        .with_context(|| format!("cannot allocate a {width}×{height} image"))?;
    let file = File::create(output).with_context(|| format!("cannot create {shown}"))?;
    let mut encoder = gif::Encoder::new(BufWriter::new(file), width, height, &[])
        .with_context(|| format!("cannot write {shown}"))?;
    encoder
        .set_repeat(gif::Repeat::Infinite)
        .with_context(|| format!("cannot write {shown}"))?;
    let delay = frame_delay(options.fps);
    let mut rgba = Vec::with_capacity(pixmap.data().len());
    for snapshot in snapshots {
        rasterise(&mut pixmap, snapshot, view);
        rgba.clear();
        // tiny-skia stores premultiplied colour; GIF wants straight RGBA.
        rgba.extend(pixmap.pixels().iter().flat_map(|p| {
            let c = p.demultiply();
            [c.red(), c.green(), c.blue(), c.alpha()]
        }));
        let mut frame = gif::Frame::from_rgba_speed(width, height, &mut rgba, 10);
        frame.delay = delay;
        encoder
            .write_frame(&frame)
            .with_context(|| format!("cannot write frame at t = {} s to {shown}", snapshot.time))?;
    }
    let mut writer = encoder
        .into_inner()
        .with_context(|| format!("cannot write {shown}"))?;
    writer
        .flush()
        .with_context(|| format!("cannot write {shown}"))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use bead::Motion;
    use bead::Particle;
    use bead::constraint::{Distance, OnLine, OnSphere};
    use bead::force::Gravity;

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
        with_model(system, dt, duration, |model| {
            simulate(model, fps, show_forces)
        })
    }

    fn options(fps: u32, width: u32, height: u32, show_forces: bool) -> RenderOptions {
        RenderOptions {
            fps,
            width,
            height,
            show_forces,
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
        let summary =
            render_system(&mut sys, 0.001, 1.0, &options(10, 96, 64, false), &path).unwrap();
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
        let summary =
            render_system(&mut sys, 0.002, 0.5, &options(8, 80, 60, true), &path).unwrap();
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
        let err =
            render_system(&mut sys, 0.01, 1.0, &options(10, 64, 64, true), &path).unwrap_err();
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
        let err =
            render_system(&mut sys, 0.01, 0.1, &options(10, 32, 32, false), &path).unwrap_err();
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
}
