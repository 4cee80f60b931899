//! Drawing the engine's primitives with egui's painter: the viewer's implementation of
//! [`bead::draw::Canvas`].

use bead::System;
use bead::draw::{Canvas, Role};
use eframe::egui::{self, Color32, Pos2, Stroke};

/// World metres to screen points: a uniform scale about a centre, y up.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Transform {
    center_world: [f64; 2],
    center_screen: Pos2,
    /// Points per metre.
    pub(crate) scale: f64,
}

impl Transform {
    /// Fits the system's initial points (with a margin) into `rect`.
    pub(crate) fn fit(system: &System, rect: egui::Rect) -> Transform {
        let mut lo = [f64::INFINITY; 2];
        let mut hi = [f64::NEG_INFINITY; 2];
        for p in system.particles() {
            let x = system.position(p);
            for k in 0..2 {
                lo[k] = lo[k].min(x[k]);
                hi[k] = hi[k].max(x[k]);
            }
        }
        for b in system.rigid_bodies() {
            let x = system.coordinates(b);
            for k in 0..2 {
                lo[k] = lo[k].min(x[k] - 0.5);
                hi[k] = hi[k].max(x[k] + 0.5);
            }
        }
        if !lo[0].is_finite() {
            (lo, hi) = ([-1.0, -1.0], [1.0, 1.0]);
        }
        let span = ((hi[0] - lo[0]).max(hi[1] - lo[1])).max(0.5) * 1.6;
        let scale = (rect.width().min(rect.height()) as f64 / span).max(1e-6);
        Transform {
            center_world: [(lo[0] + hi[0]) / 2.0, (lo[1] + hi[1]) / 2.0],
            center_screen: rect.center(),
            scale,
        }
    }

    pub(crate) fn to_screen(self, x: [f64; 3]) -> Pos2 {
        Pos2::new(
            self.center_screen.x + ((x[0] - self.center_world[0]) * self.scale) as f32,
            self.center_screen.y - ((x[1] - self.center_world[1]) * self.scale) as f32,
        )
    }

    pub(crate) fn to_world(self, p: Pos2) -> [f64; 3] {
        [
            self.center_world[0] + (p.x - self.center_screen.x) as f64 / self.scale,
            self.center_world[1] - (p.y - self.center_screen.y) as f64 / self.scale,
            0.0,
        ]
    }
}

/// An egui painter seen through a world transform.
pub(crate) struct WorldPainter<'a> {
    pub(crate) painter: &'a egui::Painter,
    pub(crate) transform: Transform,
    pub(crate) dim: usize,
}

impl WorldPainter<'_> {
    /// 3D points are drawn in the same cabinet projection as `bead render`.
    fn screen(&self, x: [f64; 3]) -> Pos2 {
        if self.dim == 3 {
            let c = 0.5 * 30f64.to_radians().cos();
            let s = 0.5 * 30f64.to_radians().sin();
            self.transform
                .to_screen([x[0] + c * x[1], x[2] + s * x[1], 0.0])
        } else {
            self.transform.to_screen(x)
        }
    }
}

fn color(role: Role) -> (Color32, f32) {
    match role {
        Role::Particle => (Color32::from_rgb(70, 110, 220), 1.0),
        Role::Anchor => (Color32::from_rgb(230, 230, 230), 1.0),
        Role::Rod => (Color32::from_rgb(200, 200, 200), 2.0),
        Role::Spring => (Color32::from_rgb(90, 160, 255), 1.5),
        Role::Wire => (Color32::from_rgb(110, 110, 110), 1.0),
        Role::Nail => (Color32::from_rgb(230, 80, 80), 2.0),
        Role::Mouse => (Color32::from_rgb(255, 160, 0), 1.5),
        Role::Force => (Color32::from_rgb(240, 60, 60), 2.0),
        Role::ConstraintForce => (Color32::from_rgb(230, 0, 230), 2.0),
        Role::Body => (Color32::from_rgb(120, 200, 140), 3.0),
        _ => (Color32::GRAY, 1.0),
    }
}

impl Canvas for WorldPainter<'_> {
    fn disc(&mut self, center: [f64; 3], radius: f64, role: Role) {
        let r = ((radius * self.transform.scale) as f32).max(4.0);
        self.painter
            .circle_filled(self.screen(center), r, color(role).0);
    }

    fn line(&mut self, a: [f64; 3], b: [f64; 3], role: Role) {
        let (c, w) = color(role);
        self.painter
            .line_segment([self.screen(a), self.screen(b)], Stroke::new(w, c));
    }

    fn zigzag(&mut self, a: [f64; 3], b: [f64; 3], role: Role) {
        let (pa, pb) = (self.screen(a), self.screen(b));
        let d = pb - pa;
        let n = egui::vec2(-d.y, d.x).normalized() * (d.length() * 0.05).max(3.0);
        let points: Vec<Pos2> = (0..=20)
            .map(|k| {
                let f = k as f32 / 20.0;
                let side = if k == 0 || k == 20 {
                    0.0
                } else if k % 2 == 0 {
                    1.0
                } else {
                    -1.0
                };
                pa + d * f + n * side
            })
            .collect();
        let (c, w) = color(role);
        self.painter
            .add(egui::Shape::line(points, Stroke::new(w, c)));
    }

    fn circle(&mut self, center: [f64; 3], radius: f64, _normal: [f64; 3], role: Role) {
        let (c, w) = color(role);
        let r = (radius * self.transform.scale) as f32;
        self.painter
            .circle_stroke(self.screen(center), r, Stroke::new(w, c));
    }

    fn marker(&mut self, at: [f64; 3], role: Role) {
        let p = self.screen(at);
        let (c, w) = color(role);
        self.painter.rect_stroke(
            egui::Rect::from_center_size(p, egui::vec2(8.0, 8.0)),
            0.0,
            Stroke::new(w, c),
            egui::StrokeKind::Middle,
        );
    }

    fn arrow(&mut self, from: [f64; 3], vector: [f64; 3], role: Role) {
        // Forces are drawn at 0.02 m per newton; the viewer's user reads directions and sizes.
        let to = std::array::from_fn(|i| from[i] + 0.02 * vector[i]);
        let (c, w) = color(role);
        self.painter.arrow(
            self.screen(from),
            self.screen(to) - self.screen(from),
            Stroke::new(w, c),
        );
    }
}
