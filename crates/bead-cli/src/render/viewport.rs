//! The view of a whole run: where the picture is centred and how many pixels a metre (and a
//! newton of force) spans, fitted once so that the camera never moves.

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

/// Bounds of everything drawn in the run. Wires are left out (an on-line constraint draws a
/// ±100 m segment that would shrink the model to a dot; it is clipped instead), and so are
/// arrows, whose length depends on the view being fitted.
fn bounds(snapshots: &[Snapshot]) -> Bounds {
    let mut bounds = Bounds::EMPTY;
    for (shape, element) in snapshots.iter().flat_map(|s| &s.shapes) {
        match shape {
            Shape::Disc { center, radius } | Shape::Circle { center, radius } => {
                bounds.include(*center, *radius);
            }
            Shape::Line { .. } if *element == Element::Wire => {}
            Shape::Line { a, b } | Shape::Zigzag { a, b } => {
                bounds.include(*a, 0.0);
                bounds.include(*b, 0.0);
            }
            Shape::Polyline(points) | Shape::Face { points, .. } => {
                for p in points {
                    bounds.include(*p, 0.0);
                }
            }
            Shape::Marker { at } => bounds.include(*at, 0.0),
            Shape::Arrow { .. } => {}
        }
    }
    bounds
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
