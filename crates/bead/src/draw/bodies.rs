//! How bodies look: particles as discs, anchors as markers, rigid bodies by their shape (3D ones
//! in [`super::solids`]), and parametric objects by the curves and surfaces their points move on.

use super::{Canvas, Element, Item};
use crate::body::{Body, BodyId, BodyKind, MassPoint, Shape};
use crate::point::Point;
use crate::view::{View, center};

/// Draws every body: particles as discs of their radius, anchors as markers.
pub(crate) fn draw_bodies(view: &View<'_>, canvas: &mut dyn Canvas) {
    for (i, body) in view.bodies.iter().enumerate() {
        let Some(body) = body else { continue };
        canvas.begin(Item::Body(BodyId(i)));
        let at = view.position(&center(i, body));
        if let BodyKind::Rigid2d { shape, .. } = &body.kind {
            draw_rigid(view, i, shape.as_ref(), canvas);
            continue;
        }
        if let BodyKind::Rigid3d { shape, .. } = &body.kind {
            if !body.mass.is_finite() && shape.is_none() {
                // A fixed frame with no solid: where it is.
                canvas.marker(at, Element::Anchor);
            } else {
                super::solids::draw_solid(view, i, shape.as_ref(), canvas);
            }
            continue;
        }
        if let BodyKind::Parametric { points, trace, .. } = &body.kind {
            draw_object(view, i, body, points, *trace, canvas);
            continue;
        }
        if body.mass.is_finite() {
            canvas.disc(at, body.radius, Element::Particle);
        } else {
            canvas.marker(at, Element::Anchor);
            if body.radius > 0.0 {
                canvas.disc(at, body.radius, Element::Anchor);
            }
        }
    }
}

/// Segments of each round end of a capsule's outline.
const CAPSULE_ARC: usize = 12;

/// A rigid body by its shape (a small marker when it has none), with a line from its centre
/// along its x axis so that rotation shows.
fn draw_rigid(view: &View<'_>, i: usize, shape: Option<&Shape>, canvas: &mut dyn Canvas) {
    let world = |local: [f64; 2]| {
        view.position(&Point::OnBody {
            body: BodyId(i),
            local,
        })
    };
    let outline = |pts: &[[f64; 2]]| pts.iter().map(|p| world(*p)).collect::<Vec<_>>();
    match shape {
        Some(Shape::Disc { radius }) => {
            canvas.circle(world([0.0, 0.0]), *radius, [0.0, 0.0, 1.0], Element::Body);
            canvas.line(world([0.0, 0.0]), world([*radius, 0.0]), Element::Body);
        }
        Some(Shape::Box { width, height }) => {
            let (w, h) = (width / 2.0, height / 2.0);
            canvas.polygon(
                &outline(&[[-w, -h], [w, -h], [w, h], [-w, h]]),
                Element::Body,
            );
        }
        Some(Shape::Rod { length }) => canvas.line(
            world([-length / 2.0, 0.0]),
            world([length / 2.0, 0.0]),
            Element::Body,
        ),
        Some(Shape::Capsule { radius, length }) => {
            // Its outline: the two straight sides and the round ends, as a polygon.
            let (r, h) = (*radius, length / 2.0);
            let arc = |centre: f64, from: f64| {
                (0..=CAPSULE_ARC).map(move |k| {
                    let a = from + std::f64::consts::PI * k as f64 / CAPSULE_ARC as f64;
                    [centre + r * a.cos(), r * a.sin()]
                })
            };
            let pts: Vec<[f64; 2]> = arc(h, -std::f64::consts::FRAC_PI_2)
                .chain(arc(-h, std::f64::consts::FRAC_PI_2))
                .collect();
            canvas.polygon(&outline(&pts), Element::Body);
            canvas.line(world([0.0, 0.0]), world([h + r, 0.0]), Element::Body);
        }
        Some(Shape::Polygon { vertices }) => canvas.polygon(&outline(vertices), Element::Body),
        None => canvas.marker(world([0.0, 0.0]), Element::Body),
    }
}

/// A parametric object: the path each point of a one-coordinate object follows (its curve,
/// over the object's drawing range of `u`), the surface each point of a two-coordinate
/// object in 3D sweeps (a wireframe of its `u0` and `u1` lines, half a turn either side of
/// where it is), and its points as discs. In 2D a two-coordinate object's point sweeps an
/// area, not a curve: only the points are drawn.
fn draw_object(
    view: &View<'_>,
    i: usize,
    body: &Body,
    points: &[MassPoint],
    trace: Option<(f64, f64)>,
    canvas: &mut dyn Canvas,
) {
    let u = body.slice(view.q);
    if u.len() == 1 {
        let dim = view.dim;
        let pi = std::f64::consts::PI;
        let (a, b) = trace.unwrap_or((u[0] - pi, u[0] + pi));
        for p in points {
            let mut last: Option<[f64; 3]> = None;
            for s in 0..=TRACE_SEGMENTS {
                let mut x = [0.0; 3];
                let us = a + (b - a) * s as f64 / TRACE_SEGMENTS as f64;
                p.position(&[us], view.t, &mut x[..dim]);
                if let Some(prev) = last {
                    canvas.line(prev, x, Element::Wire);
                }
                last = Some(x);
            }
        }
    }
    if u.len() == 2 && view.dim == 3 {
        let pi = std::f64::consts::PI;
        for p in points {
            for (along, across) in [(0, 1), (1, 0)] {
                for line in 0..GRID_LINES {
                    let fixed = u[across] - pi + 2.0 * pi * line as f64 / GRID_LINES as f64;
                    let mut last: Option<[f64; 3]> = None;
                    for s in 0..=GRID_SEGMENTS {
                        let mut at = [0.0; 2];
                        at[across] = fixed;
                        at[along] = u[along] - pi + 2.0 * pi * s as f64 / GRID_SEGMENTS as f64;
                        let mut x = [0.0; 3];
                        p.position(&at, view.t, &mut x);
                        if let Some(prev) = last {
                            canvas.line(prev, x, Element::Wire);
                        }
                        last = Some(x);
                    }
                }
            }
        }
    }
    for k in 0..points.len() {
        let at = view.position(&Point::OfObject {
            body: BodyId(i),
            index: k,
        });
        canvas.disc(at, points[k].radius, Element::Particle);
    }
}

/// Segments of a traced curve.
pub(super) const TRACE_SEGMENTS: usize = 96;

/// Lines of each family, and segments per line, of a surface's wireframe.
pub(super) const GRID_LINES: usize = 12;
pub(super) const GRID_SEGMENTS: usize = 48;
