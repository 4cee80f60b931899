//! Drawing the engine's primitives with egui's painter — the viewer's [`bead::draw::Canvas`] —
//! and remembering where each piece of the model was drawn, so that a click can be turned back
//! into the particle, rod or spring under it.
//!
//! Rods are coloured by their load (red for tension, blue for compression, λ < 0 being tension
//! for a rod), and force arrows are scaled so that the largest is a fixed length on screen: both
//! scales come from the previous frame, so they follow the model without a flicker.

use bead::draw::projection::{self, Bounds, Fit};
use bead::draw::{Canvas, Element, Item};
use bead::force::ForceId;
use bead::{BodyId, ConstraintId, System};
use eframe::egui::{self, Color32, Pos2, Stroke, Vec2};

/// On-screen length of the largest force arrow, in points.
pub(crate) const ARROW_LENGTH: f32 = 60.0;

/// World metres ↔ screen points: 3D scenes in the cabinet projection of
/// [`bead::draw::projection`] (the one `bead render` draws with), then a uniform scale about a
/// centre (y up), which the user pans and zooms.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct View {
    dim: usize,
    /// The projected point at the centre of the screen rectangle.
    center: [f64; 2],
    /// Points per metre.
    pub(crate) scale: f64,
    /// The screen rectangle's centre.
    screen_center: Pos2,
}

impl View {
    /// Fits the system's particles and bodies (with a margin) into `rect`.
    pub(crate) fn fit(system: &System, rect: egui::Rect) -> View {
        let dim = system.dim();
        let mut bounds = Bounds::EMPTY;
        for p in system.particles() {
            let x = system.position(p);
            let x = [x[0], x[1], x.get(2).copied().unwrap_or(0.0)];
            bounds.include(projection::project(dim, x), 0.0);
        }
        for b in system.rigid_bodies() {
            let q = system.coordinates(b);
            bounds.include(projection::project(dim, [q[0], q[1], 0.0]), 0.3);
        }
        // Nothing to fit: a 2 m square about the origin.
        let (center, size) = if bounds.is_empty() {
            ([0.0; 2], [2.0; 2])
        } else {
            (bounds.center(), bounds.size())
        };
        // Twice the model's extent (a quarter of the picture free on each side): a pendulum
        // released sideways swings as far below its pivot as it starts beside it. The largest
        // square in the window holds it, so that the view does not depend on the window's shape,
        // and at least half a metre.
        let size = size.map(|s| s.max(0.5));
        let side = f64::from(rect.width().min(rect.height()));
        let fit = Fit::new(center, size, side, side, 0.25);
        View {
            dim,
            center: fit.center,
            scale: fit.scale.max(1e-6),
            screen_center: rect.center(),
        }
    }

    /// Where world point `x` is drawn.
    pub(crate) fn to_screen(self, x: [f64; 3]) -> Pos2 {
        let p = projection::project(self.dim, x);
        Pos2::new(
            self.screen_center.x + ((p[0] - self.center[0]) * self.scale) as f32,
            self.screen_center.y - ((p[1] - self.center[1]) * self.scale) as f32,
        )
    }

    /// The world point drawn at `p`. In 3D the screen is a projection, so a depth (y, metres)
    /// must be chosen: a dragged particle keeps its own.
    pub(crate) fn to_world(self, p: Pos2, depth: f64) -> [f64; 3] {
        let u = self.center[0] + f64::from(p.x - self.screen_center.x) / self.scale;
        let v = self.center[1] - f64::from(p.y - self.screen_center.y) / self.scale;
        projection::unproject(self.dim, [u, v], depth)
    }

    /// Keeps the world centre in the middle of `rect` when the window is resized.
    pub(crate) fn place(&mut self, rect: egui::Rect) {
        self.screen_center = rect.center();
    }

    /// Moves the picture by `delta` points.
    pub(crate) fn pan(&mut self, delta: Vec2) {
        self.center[0] -= f64::from(delta.x) / self.scale;
        self.center[1] += f64::from(delta.y) / self.scale;
    }

    /// Zooms by `factor` about the screen point `about`, which stays over the same world point.
    pub(crate) fn zoom(&mut self, factor: f64, about: Pos2) {
        let before = self.to_world(about, 0.0);
        self.scale = (self.scale * factor).clamp(1e-3, 1e9);
        let after = self.to_world(about, 0.0);
        let (b, a) = (
            projection::project(self.dim, before),
            projection::project(self.dim, after),
        );
        self.center[0] += b[0] - a[0];
        self.center[1] += b[1] - a[1];
    }
}

/// Which piece of the model a drawn shape belongs to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Owner {
    /// A particle or rigid body.
    Body(BodyId),
    /// A force.
    Force(ForceId),
    /// A constraint.
    Constraint(ConstraintId),
}

/// Where something was drawn, in screen points.
#[derive(Clone, Debug)]
enum HitShape {
    Disc(Pos2, f32),
    Segment(Pos2, Pos2),
    Polygon(Vec<Pos2>),
    Ring(Pos2, f32),
}

/// One drawn shape and its owner.
#[derive(Clone, Debug)]
pub(crate) struct Hit {
    owner: Owner,
    shape: HitShape,
}

/// Radius within which a click means a particle however small it is drawn, points.
const PARTICLE_TARGET: f32 = 4.0;

/// The piece of the model drawn nearest to `p`, within `tolerance` points. A click inside a body
/// means the body, even on a rod that ends there; anywhere else the nearest piece wins, so the
/// rods between the particles of a dense mesh can be picked too.
pub(crate) fn pick(hits: &[Hit], p: Pos2, tolerance: f32) -> Option<Owner> {
    hits.iter()
        .filter_map(|hit| {
            let d = match &hit.shape {
                HitShape::Disc(c, r) => (p.distance(*c) - r.max(PARTICLE_TARGET)).max(0.0),
                HitShape::Segment(a, b) => segment_distance(p, *a, *b),
                HitShape::Ring(c, r) => (p.distance(*c) - r).abs(),
                HitShape::Polygon(v) if inside(p, v) => 0.0,
                HitShape::Polygon(v) => (0..v.len())
                    .map(|k| segment_distance(p, v[k], v[(k + 1) % v.len()]))
                    .fold(f32::INFINITY, f32::min),
            };
            let outside_body = !(d == 0.0 && matches!(hit.owner, Owner::Body(_)));
            (d <= tolerance).then_some((hit.owner, (outside_body, d)))
        })
        .min_by(|a, b| a.1.0.cmp(&b.1.0).then(a.1.1.total_cmp(&b.1.1)))
        .map(|(owner, _)| owner)
}

fn segment_distance(p: Pos2, a: Pos2, b: Pos2) -> f32 {
    let ab = b - a;
    let t = if ab.length_sq() > 0.0 {
        ((p - a).dot(ab) / ab.length_sq()).clamp(0.0, 1.0)
    } else {
        0.0
    };
    p.distance(a + ab * t)
}

/// Even-odd rule.
fn inside(p: Pos2, v: &[Pos2]) -> bool {
    let mut inside = false;
    for k in 0..v.len() {
        let (a, b) = (v[k], v[(k + 1) % v.len()]);
        if (a.y > p.y) != (b.y > p.y) && p.x < a.x + (p.y - a.y) / (b.y - a.y) * (b.x - a.x) {
            inside = !inside;
        }
    }
    inside
}

/// How to draw: the user's toggles and the scales found on the previous frame.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Style {
    /// Colour rods by λ.
    pub(crate) tension: bool,
    /// |λ| that gets the full colour, N.
    pub(crate) tension_scale: f64,
    /// Draw the constraint forces' arrows.
    pub(crate) arrows: bool,
    /// Screen points per newton of force arrows.
    pub(crate) arrow_scale: f64,
    /// What to highlight.
    pub(crate) selected: Option<Owner>,
}

/// The largest loads seen while drawing a frame: the next frame's scales.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Loads {
    /// Largest |λ| of a rod, N.
    pub(crate) rod: f64,
    /// Largest force arrow, N.
    pub(crate) arrow: f64,
}

/// An egui painter seen through a [`View`], recording where it drew what.
pub(crate) struct WorldPainter<'a> {
    pub(crate) painter: &'a egui::Painter,
    pub(crate) view: View,
    pub(crate) style: Style,
    pub(crate) hits: &'a mut Vec<Hit>,
    pub(crate) loads: Loads,
    owner: Option<Owner>,
    lambda: Option<f64>,
}

impl<'a> WorldPainter<'a> {
    pub(crate) fn new(
        painter: &'a egui::Painter,
        view: View,
        style: Style,
        hits: &'a mut Vec<Hit>,
    ) -> Self {
        hits.clear();
        WorldPainter {
            painter,
            view,
            style,
            hits,
            loads: Loads::default(),
            owner: None,
            lambda: None,
        }
    }

    fn hit(&mut self, shape: HitShape) {
        if let Some(owner) = self.owner {
            self.hits.push(Hit { owner, shape });
        }
    }

    fn selected(&self) -> bool {
        self.owner.is_some() && self.owner == self.style.selected
    }

    fn stroke(&self, element: Element) -> Stroke {
        let (mut color, mut width) = color(element);
        if element == Element::Rod
            && self.style.tension
            && let Some(lambda) = self.lambda
        {
            // λ < 0 pulls the ends together: tension.
            let t = (lambda.abs() / self.style.tension_scale.max(1e-12)).min(1.0) as f32;
            let full = if lambda < 0.0 {
                Color32::from_rgb(235, 60, 50)
            } else {
                Color32::from_rgb(60, 120, 240)
            };
            color = lerp(Color32::from_gray(170), full, t);
            width = 2.0 + 2.0 * t;
        }
        if self.selected() {
            color = Color32::from_rgb(255, 210, 0);
            width += 2.0;
        }
        Stroke::new(width, color)
    }
}

fn lerp(a: Color32, b: Color32, t: f32) -> Color32 {
    let mix = |x: u8, y: u8| (f32::from(x) + (f32::from(y) - f32::from(x)) * t).round() as u8;
    Color32::from_rgb(mix(a.r(), b.r()), mix(a.g(), b.g()), mix(a.b(), b.b()))
}

fn color(element: Element) -> (Color32, f32) {
    match element {
        Element::Particle => (Color32::from_rgb(70, 110, 220), 1.0),
        Element::Anchor => (Color32::from_rgb(230, 230, 230), 1.0),
        Element::Rod => (Color32::from_rgb(200, 200, 200), 2.0),
        Element::Spring => (Color32::from_rgb(90, 160, 255), 1.5),
        Element::Wire => (Color32::from_rgb(110, 110, 110), 1.0),
        Element::Nail => (Color32::from_rgb(230, 80, 80), 2.0),
        Element::Joint => (Color32::from_rgb(240, 170, 60), 2.0),
        Element::Mouse => (Color32::from_rgb(255, 160, 0), 1.5),
        Element::Force => (Color32::from_rgb(240, 60, 60), 2.0),
        Element::ConstraintForce => (Color32::from_rgb(230, 0, 230), 2.0),
        Element::Body => (Color32::from_rgb(120, 200, 140), 3.0),
        _ => (Color32::GRAY, 1.0),
    }
}

impl Canvas for WorldPainter<'_> {
    fn begin(&mut self, item: Item<'_>) {
        (self.owner, self.lambda) = match item {
            Item::Body(b) => (Some(Owner::Body(b)), None),
            Item::Force(f) => (Some(Owner::Force(f)), None),
            Item::Constraint { id, lambda } => (
                Some(Owner::Constraint(id)),
                lambda.and_then(|l| l.first().copied()),
            ),
            _ => (None, None),
        };
    }

    fn disc(&mut self, center: [f64; 3], radius: f64, element: Element) {
        let c = self.view.to_screen(center);
        let r = ((radius * self.view.scale) as f32).max(3.0);
        self.painter.circle_filled(c, r, color(element).0);
        if self.selected() {
            self.painter.circle_stroke(
                c,
                r + 2.0,
                Stroke::new(2.0, Color32::from_rgb(255, 210, 0)),
            );
        }
        self.hit(HitShape::Disc(c, r));
    }

    fn line(&mut self, a: [f64; 3], b: [f64; 3], element: Element) {
        if element == Element::Rod
            && let Some(l) = self.lambda
        {
            self.loads.rod = self.loads.rod.max(l.abs());
        }
        let (a, b) = (self.view.to_screen(a), self.view.to_screen(b));
        self.painter.line_segment([a, b], self.stroke(element));
        self.hit(HitShape::Segment(a, b));
    }

    fn zigzag(&mut self, a: [f64; 3], b: [f64; 3], element: Element) {
        let (pa, pb) = (self.view.to_screen(a), self.view.to_screen(b));
        let d = pb - pa;
        let n = egui::vec2(-d.y, d.x).normalized() * (d.length() * 0.05).clamp(3.0, 8.0);
        let points: Vec<Pos2> = (0..=20)
            .map(|k| {
                let side = match k {
                    0 | 20 => 0.0,
                    k if k % 2 == 0 => 1.0,
                    _ => -1.0,
                };
                pa + d * (k as f32 / 20.0) + n * side
            })
            .collect();
        self.painter
            .add(egui::Shape::line(points, self.stroke(element)));
        self.hit(HitShape::Segment(pa, pb));
    }

    fn circle(&mut self, center: [f64; 3], radius: f64, _normal: [f64; 3], element: Element) {
        let c = self.view.to_screen(center);
        let r = (radius * self.view.scale) as f32;
        self.painter.circle_stroke(c, r, self.stroke(element));
        self.hit(if element == Element::Body {
            HitShape::Disc(c, r)
        } else {
            HitShape::Ring(c, r)
        });
    }

    fn marker(&mut self, at: [f64; 3], element: Element) {
        let p = self.view.to_screen(at);
        self.painter.rect_stroke(
            egui::Rect::from_center_size(p, egui::vec2(8.0, 8.0)),
            0.0,
            self.stroke(element),
            egui::StrokeKind::Middle,
        );
        self.hit(HitShape::Disc(p, 5.0));
    }

    fn arrow(&mut self, from: [f64; 3], vector: [f64; 3], element: Element) {
        let newtons = vector.iter().map(|v| v * v).sum::<f64>().sqrt();
        self.loads.arrow = self.loads.arrow.max(newtons);
        // The engine always says where the constraint forces are (the scale is ready when the
        // user turns the arrows on); they are drawn on demand.
        if newtons == 0.0 || (element == Element::ConstraintForce && !self.style.arrows) {
            return;
        }
        // The arrow has the force's direction in the picture and a length proportional to |F|.
        let a = self.view.to_screen(from);
        let tip = std::array::from_fn(|i| from[i] + vector[i] / newtons);
        let direction = (self.view.to_screen(tip) - a).normalized();
        let length = (newtons * self.style.arrow_scale) as f32;
        self.painter
            .arrow(a, direction * length, Stroke::new(2.0, color(element).0));
    }

    fn polygon(&mut self, vertices: &[[f64; 3]], element: Element) {
        let points: Vec<Pos2> = vertices.iter().map(|v| self.view.to_screen(*v)).collect();
        self.painter.add(egui::Shape::closed_line(
            points.clone(),
            self.stroke(element),
        ));
        self.hit(HitShape::Polygon(points));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Screen and world agree both ways, in 2D and (at the chosen depth) in 3D, and zooming
    /// keeps the point under the pointer.
    #[test]
    fn the_view_inverts() {
        let rect = egui::Rect::from_min_size(Pos2::ZERO, egui::vec2(800.0, 600.0));
        for dim in [2, 3] {
            let mut view = View::fit(&System::new(dim).unwrap(), rect);
            let x = if dim == 3 {
                [0.3, -0.2, 0.7]
            } else {
                [0.3, 0.7, 0.0]
            };
            let depth = x[1];
            let back = view.to_world(view.to_screen(x), depth);
            for k in 0..3 {
                assert!((back[k] - x[k]).abs() < 1e-5, "{dim}D: {x:?} → {back:?}");
            }
            let about = Pos2::new(500.0, 200.0);
            let under = view.to_world(about, 0.0);
            view.zoom(2.5, about);
            let still = view.to_world(about, 0.0);
            assert!((under[0] - still[0]).abs() < 1e-5 && (under[2] - still[2]).abs() < 1e-5);
            view.pan(egui::vec2(10.0, 0.0));
            assert!(view.to_screen(x).x > view.to_screen([x[0] - 1e-3, x[1], x[2]]).x);
        }
    }

    /// A click picks the nearest thing drawn; inside a particle, the particle.
    #[test]
    fn picking_prefers_bodies() {
        let (_, bob, rod) = bead::models::pendulum(1.0, 0.0, 1.0).unwrap();
        let (rod, bob) = (Owner::Constraint(rod), Owner::Body(bob.body()));
        let hits = vec![
            Hit {
                owner: rod,
                shape: HitShape::Segment(Pos2::new(0.0, 0.0), Pos2::new(100.0, 0.0)),
            },
            Hit {
                owner: bob,
                shape: HitShape::Disc(Pos2::new(100.0, 0.0), 5.0),
            },
        ];
        assert_eq!(pick(&hits, Pos2::new(50.0, 3.0), 6.0), Some(rod));
        assert_eq!(
            pick(&hits, Pos2::new(99.0, 2.0), 6.0),
            Some(bob),
            "on the rod's end"
        );
        assert_eq!(
            pick(&hits, Pos2::new(93.0, 0.0), 6.0),
            Some(rod),
            "beside the bob"
        );
        assert_eq!(pick(&hits, Pos2::new(50.0, 30.0), 6.0), None);
    }
}
