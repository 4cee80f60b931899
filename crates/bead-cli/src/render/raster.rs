//! The rasteriser: draws a snapshot's shapes into a tiny-skia pixmap through a [`Viewport`], one
//! style per element: wires under everything, then the faces of solids (in the depth order the
//! snapshot keeps), then the rest, and arrows over everything.

use bead::draw::Element;
use tiny_skia::{
    Color, FillRule, LineCap, LineJoin, Paint, PathBuilder, Pixmap, Stroke, Transform,
};

use super::canvas::{P2, Shape, Snapshot};
use super::viewport::Viewport;

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
        Element::Contact => ([230, 70, 20], 2.0),
        _ => ([128, 128, 128], 1.0),
    };
    Style { rgb, width }
}

/// Drawing order: wires under everything, then solids' faces, then the rest (joints and nails
/// show on a solid's surface), arrows over everything.
fn layer(shape: &Shape, element: Element) -> u8 {
    match (shape, element) {
        (_, Element::Wire) => 0,
        (Shape::Face { .. }, _) => 1,
        (Shape::Arrow { .. }, _) => 3,
        _ => 2,
    }
}

/// The fully lit colour of a solid's face; shading scales it (see [`bead::draw::faces`]).
const FACE_RGB: [u8; 3] = [150, 205, 165];
/// Width of a solid's drawn edges, pixels (finer than a wireframe's, which has nothing else).
const FACE_EDGE_WIDTH: f32 = 1.5;

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
pub(super) fn clip(a: P2, b: P2, min: P2, max: P2) -> Option<(P2, P2)> {
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
        Shape::Face {
            points,
            light,
            edges,
        } => draw_face(pixmap, points, *light, *edges, style, view),
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

/// A solid's face: filled in its shade, outlined in the same colour so that no seam shows
/// between facets, then the sides it draws as edges.
fn draw_face(
    pixmap: &mut Pixmap,
    points: &[P2],
    light: f64,
    edges: u32,
    style: Style,
    view: &Viewport,
) {
    let points: Vec<P2> = points.iter().map(|p| view.px(*p)).collect();
    let rgb = FACE_RGB.map(|c| (f64::from(c) * light.clamp(0.0, 1.0)).round() as u8);
    fill_polygon(pixmap, &points, rgb);
    stroke_polyline(pixmap, &points, true, Style { rgb, width: 1.0 });
    let edge = Style {
        width: FACE_EDGE_WIDTH,
        ..style
    };
    for k in 0..points.len() {
        if bead::draw::Face::edge(edges, k) {
            let (a, b) = (points[k], points[(k + 1) % points.len()]);
            stroke_polyline(pixmap, &[a, b], false, edge);
        }
    }
}

/// Draws one snapshot over a white background.
pub(super) fn rasterise(pixmap: &mut Pixmap, snapshot: &Snapshot, view: &Viewport) {
    pixmap.fill(Color::WHITE);
    for current in 0..=3 {
        for (shape, element) in &snapshot.shapes {
            if layer(shape, *element) == current {
                draw_shape(pixmap, shape, *element, view);
            }
        }
    }
}
