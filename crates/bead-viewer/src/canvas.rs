//! Drawing the engine's primitives with egui's painter — the viewer's [`bead::draw::Canvas`] —
//! and remembering where each piece of the model was drawn, so that a click can be turned back
//! into the particle, rod or spring under it, or the point of a 3D solid under it (solids come
//! as faces, which faces.rs paints in depth order).
//!
//! Rods are coloured by their load (red for tension, blue for compression, λ < 0 being tension
//! for a rod), and force arrows are scaled so that the largest is a fixed length on screen: both
//! scales come from the previous frame, so they follow the model without a flicker.

use bead::draw::projection::circle_points;
use bead::draw::{Canvas, Element, Face, Item};
use bead::force::ForceId;
use bead::{BodyId, ConstraintId};
use eframe::egui::{self, Color32, Pos2, Stroke};

use crate::faces::FaceLayer;
use crate::view::View;

/// On-screen length of the largest force arrow, in points.
pub(crate) const ARROW_LENGTH: f32 = 60.0;

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
pub(crate) enum HitShape {
    Disc(Pos2, f32),
    Segment(Pos2, Pos2),
    /// A filled outline: a press inside picks it.
    Polygon(Vec<Pos2>),
    /// A closed line that only a press on the line picks (a 3D circle).
    Outline(Vec<Pos2>),
    Ring(Pos2, f32),
    /// A face of a 3D solid: its outline on screen, its depth along the view (larger is
    /// farther) and its plane in the world (a point of it and its normal).
    Face {
        outline: Vec<Pos2>,
        depth: f64,
        point: [f64; 3],
        normal: [f64; 3],
    },
}

/// One drawn shape and its owner.
#[derive(Clone, Debug)]
pub(crate) struct Hit {
    pub(crate) owner: Owner,
    pub(crate) shape: HitShape,
}

/// Points on a 3D circle's drawn outline.
const CIRCLE_POINTS: usize = 48;

/// Radius within which a click means a particle however small it is drawn, points.
const PARTICLE_TARGET: f32 = 4.0;

/// Points from `p` to the closed outline `v` (0 inside it).
fn polygon_distance(p: Pos2, v: &[Pos2]) -> f32 {
    if inside(p, v) {
        0.0
    } else {
        outline_distance(p, v)
    }
}

/// Points from `p` to the line of the closed outline `v`.
fn outline_distance(p: Pos2, v: &[Pos2]) -> f32 {
    (0..v.len())
        .map(|k| segment_distance(p, v[k], v[(k + 1) % v.len()]))
        .fold(f32::INFINITY, f32::min)
}

/// The piece of the model drawn nearest to `p`, within `tolerance` points. A click inside a body
/// means the body, even on a rod that ends there; anywhere else the nearest piece wins, so the
/// rods between the particles of a dense mesh can be picked too. Among solids' faces under `p`,
/// the nearest to the viewer wins; everything else is drawn over the faces and wins over them.
pub(crate) fn pick(hits: &[Hit], p: Pos2, tolerance: f32) -> Option<Owner> {
    hits.iter()
        .filter_map(|hit| {
            let (d, depth) = match &hit.shape {
                HitShape::Disc(c, r) => ((p.distance(*c) - r.max(PARTICLE_TARGET)).max(0.0), None),
                HitShape::Segment(a, b) => (segment_distance(p, *a, *b), None),
                HitShape::Ring(c, r) => ((p.distance(*c) - r).abs(), None),
                HitShape::Polygon(v) => (polygon_distance(p, v), None),
                HitShape::Outline(v) => (outline_distance(p, v), None),
                HitShape::Face { outline, depth, .. } => {
                    (polygon_distance(p, outline), Some(*depth))
                }
            };
            let outside_body = !(d == 0.0 && matches!(hit.owner, Owner::Body(_)));
            let depth = depth.unwrap_or(f64::NEG_INFINITY);
            (d <= tolerance).then_some((hit.owner, (outside_body, d, depth)))
        })
        .min_by(|a, b| {
            let (a, b) = (a.1, b.1);
            a.0.cmp(&b.0)
                .then(a.1.total_cmp(&b.1))
                .then(a.2.total_cmp(&b.2))
        })
        .map(|(owner, _)| owner)
}

/// The world point under `p` on the solid `owner` drew as faces: on the nearest of its faces
/// under `p` (or, within the pick tolerance outside them, the one drawn nearest `p`), in that
/// face's plane. `None` if `owner` drew no face.
pub(crate) fn surface_point(hits: &[Hit], owner: Owner, p: Pos2, view: &View) -> Option<[f64; 3]> {
    hits.iter()
        .filter(|hit| hit.owner == owner)
        .filter_map(|hit| match &hit.shape {
            HitShape::Face {
                outline,
                depth,
                point,
                normal,
            } => Some((polygon_distance(p, outline), *depth, *point, *normal)),
            _ => None,
        })
        .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)))
        .and_then(|(_, _, point, normal)| view.on_plane(p, point, normal))
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

/// An egui painter seen through a [`View`], recording where it drew what. 3D solids come as
/// faces, painted under the rest in depth order when the drawing is done ([`Self::finish`]).
pub(crate) struct WorldPainter<'a> {
    pub(crate) painter: &'a egui::Painter,
    pub(crate) view: View,
    pub(crate) style: Style,
    pub(crate) hits: &'a mut Vec<Hit>,
    pub(crate) loads: Loads,
    owner: Option<Owner>,
    lambda: Option<f64>,
    faces: FaceLayer,
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
            faces: FaceLayer::new(painter),
        }
    }

    /// Paints the solids' faces, back to front under everything else drawn, and hands back the
    /// loads seen: the next frame's scales.
    pub(crate) fn finish(self) -> Loads {
        self.faces.paint(self.painter, &self.view, self.hits);
        self.loads
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
        Element::Contact => (Color32::from_rgb(255, 90, 40), 1.0),
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

    fn circle(&mut self, center: [f64; 3], radius: f64, normal: [f64; 3], element: Element) {
        if self.view.is_3d() {
            // Seen obliquely: its projected outline.
            let points: Vec<Pos2> = circle_points(center, radius, normal, CIRCLE_POINTS)
                .map(|x| self.view.to_screen(x))
                .collect();
            self.painter.add(egui::Shape::closed_line(
                points.clone(),
                self.stroke(element),
            ));
            self.hit(if element == Element::Body {
                HitShape::Polygon(points)
            } else {
                HitShape::Outline(points)
            });
            return;
        }
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
        if element == Element::Contact {
            // Where shapes touch, shown with the forces they carry; not a target for the
            // mouse, which grabs the bodies there.
            if self.style.arrows {
                self.painter.circle_filled(p, 3.0, color(element).0);
            }
            return;
        }
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

    fn draws_faces(&self) -> bool {
        self.view.is_3d()
    }

    fn face(&mut self, face: &Face<'_>, _: Element) {
        let selected = self.selected();
        self.faces.push(face, &self.view, self.owner, selected);
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

    /// Of two solids' faces under the pointer the nearer is picked, and the point under the
    /// pointer is found on its plane; a particle drawn over them wins over both.
    #[test]
    fn the_nearest_face_is_picked_with_the_point_under_the_pointer() {
        use bead::draw::projection::Camera;
        let mut sys = bead::System::new(3).unwrap();
        let ids: Vec<Owner> = (0..3)
            .map(|k| {
                let p = sys.add_particle(bead::Particle::new(&[k as f64, 0.0, 0.0]));
                Owner::Body(p.unwrap().body())
            })
            .collect();
        let rect = egui::Rect::from_min_size(Pos2::ZERO, egui::vec2(800.0, 600.0));
        let view = View::fit(&sys, rect, Camera::orbit(0.3, 0.2));
        let normal = view.camera().view_direction().map(|c| -c);
        // A square across the view at depth `depth`, a metre wide about the origin's ray.
        let square = |depth: f64| {
            let [right, up, forward] = view.camera().frame();
            let corner = |a: f64, b: f64| -> [f64; 3] {
                std::array::from_fn(|i| a * right[i] + b * up[i] + depth * forward[i])
            };
            let outline = [(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)]
                .map(|(a, b)| view.to_screen(corner(a, b)))
                .to_vec();
            HitShape::Face {
                outline,
                depth,
                point: corner(0.0, 0.0),
                normal,
            }
        };
        let (far, near) = (ids[0], ids[1]);
        let mut hits = vec![
            Hit {
                owner: near,
                shape: square(-1.0),
            },
            Hit {
                owner: far,
                shape: square(2.0),
            },
        ];
        let at = view.to_screen([0.1, 0.0, 0.2]);
        assert_eq!(pick(&hits, at, 6.0), Some(near));
        hits.reverse();
        assert_eq!(pick(&hits, at, 6.0), Some(near), "whatever the order drawn");
        let x = surface_point(&hits, far, at, &view).unwrap();
        assert!(
            (view.camera().depth(x) - 2.0).abs() < 1e-9,
            "on the far face"
        );
        assert!(view.to_screen(x).distance(at) < 1e-3);
        assert_eq!(surface_point(&hits, ids[2], at, &view), None);
        hits.push(Hit {
            owner: ids[2],
            shape: HitShape::Disc(at, 3.0),
        });
        assert_eq!(
            pick(&hits, at, 6.0),
            Some(ids[2]),
            "a particle over the faces"
        );
    }
}
