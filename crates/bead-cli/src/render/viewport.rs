//! The view of a whole run: where the picture is centred and how many pixels a metre (and a
//! newton of force) spans, fitted once so that the camera never moves.

use bead::BodyId;
use bead::draw::Element;
use bead::draw::projection::{Bounds, Fit};

use super::canvas::{P2, Shape, Snapshot};

/// Fraction of the image left free on each side.
const MARGIN: f64 = 0.08;

/// The largest force arrow of the run spans this fraction of the image diagonal.
const ARROW_FRACTION: f64 = 0.15;

/// How world metres (and newtons) map to pixels; fixed for the whole animation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Viewport {
    pub(super) width: u32,
    pub(super) height: u32,
    /// World point drawn at the centre of the image.
    pub(super) center: P2,
    /// Pixels per metre, the same on both axes.
    pub(super) scale: f64,
    /// Pixels per unit of an arrow's vector (newtons for forces).
    pub(super) arrow_scale: f64,
}

/// Bounds of what the run shows, fitted to what moves.
///
/// A body that does not move (the same bounds in every snapshot) is framed whole when it is
/// no larger than twice what moves (a nail, a support, a bin), and otherwise only where it
/// meets what moves, grown by a quarter on each side: a 20 m floor under a tower of 0.2 m
/// cubes is seen under the tower, not as a plain with the cubes a few pixels wide. With
/// nothing moving, everything is framed.
fn bounds(snapshots: &[Snapshot]) -> Bounds {
    let still = still_bodies(snapshots);
    let is_still = |owner: &Option<BodyId>| owner.is_some_and(|b| still.contains(&b));
    let mut moving = Bounds::EMPTY;
    for snapshot in snapshots {
        for (shape, owner) in snapshot.shapes.iter().zip(&snapshot.owners) {
            if !is_still(owner) {
                include(&mut moving, shape, |p| p);
            }
        }
    }
    let mut all = moving;
    let Some(first) = snapshots.first() else {
        return all;
    };
    if moving.is_empty() {
        for shape in &first.shapes {
            include(&mut all, shape, |p| p);
        }
        return all;
    }
    let reach = moving.size()[0].max(moving.size()[1]);
    let grown = Bounds {
        min: moving.min.map(|x| x - 0.25 * reach),
        max: moving.max.map(|x| x + 0.25 * reach),
    };
    for body in &still {
        let mut own = Bounds::EMPTY;
        let shapes = first.shapes.iter().zip(&first.owners);
        let mine: Vec<&(Shape, Element)> = shapes
            .filter(|(_, owner)| **owner == Some(*body))
            .map(|(shape, _)| shape)
            .collect();
        for shape in &mine {
            include(&mut own, shape, |p| p);
        }
        let large = own.size()[0].max(own.size()[1]) > 2.0 * reach;
        for shape in mine {
            if large {
                include(&mut all, shape, |p| {
                    std::array::from_fn(|i| p[i].clamp(grown.min[i], grown.max[i]))
                });
            } else {
                include(&mut all, shape, |p| p);
            }
        }
    }
    all
}

/// The bodies whose shapes have the same bounds in every snapshot.
fn still_bodies(snapshots: &[Snapshot]) -> Vec<BodyId> {
    let per_body = |snapshot: &Snapshot| {
        let mut bodies: Vec<(BodyId, Bounds)> = Vec::new();
        for (shape, owner) in snapshot.shapes.iter().zip(&snapshot.owners) {
            let Some(body) = owner else { continue };
            let at = match bodies.iter().position(|(b, _)| b == body) {
                Some(at) => at,
                None => {
                    bodies.push((*body, Bounds::EMPTY));
                    bodies.len() - 1
                }
            };
            include(&mut bodies[at].1, shape, |p| p);
        }
        bodies
    };
    let Some(first) = snapshots.first() else {
        return Vec::new();
    };
    let mut still = per_body(first);
    for snapshot in &snapshots[1..] {
        let now = per_body(snapshot);
        still.retain(|(body, bounds)| now.iter().any(|(b, n)| b == body && n == bounds));
    }
    still.into_iter().map(|(body, _)| body).collect()
}

/// Grows `bounds` to hold `shape`, each of its points mapped by `place`. Wires are left out (an
/// on-line constraint draws a ±100 m segment that would shrink the model to a dot; it is
/// clipped instead), and so are arrows, whose length depends on the view being fitted.
fn include(bounds: &mut Bounds, (shape, element): &(Shape, Element), place: impl Fn(P2) -> P2) {
    match shape {
        Shape::Disc { center, radius } | Shape::Circle { center, radius } => {
            bounds.include(place(*center), *radius);
        }
        Shape::Line { .. } if *element == Element::Wire => {}
        Shape::Line { a, b } | Shape::Zigzag { a, b } => {
            bounds.include(place(*a), 0.0);
            bounds.include(place(*b), 0.0);
        }
        Shape::Polyline(points) | Shape::Face { points, .. } => {
            for p in points {
                bounds.include(place(*p), 0.0);
            }
        }
        Shape::Marker { at } => bounds.include(place(*at), 0.0),
        Shape::Arrow { .. } => {}
    }
}

impl Viewport {
    /// The view that shows the whole run with a margin, keeping the aspect ratio, and the arrow
    /// scale that makes the largest arrow of the run a fixed fraction of the image diagonal.
    pub(super) fn fit(snapshots: &[Snapshot], width: u32, height: u32) -> Viewport {
        let bounds = bounds(snapshots);
        let (center, mut size) = if bounds.is_empty() {
            ([0.0; 2], [0.0; 2])
        } else {
            (bounds.center(), bounds.size())
        };
        if size[0].max(size[1]) <= 1e-12 {
            // A lone point has no size to fit: show a metre around it.
            size = [1.0, 1.0];
        }
        let Fit { center, scale } =
            Fit::new(center, size, f64::from(width), f64::from(height), MARGIN);
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
    pub(super) fn px(&self, p: P2) -> P2 {
        [
            0.5 * f64::from(self.width) + (p[0] - self.center[0]) * self.scale,
            0.5 * f64::from(self.height) - (p[1] - self.center[1]) * self.scale,
        ]
    }
}
