//! World metres ↔ screen points: a 3D scene seen through a [`Camera`] of
//! [`bead::draw::projection`] (the one `bead render` draws with), then a uniform scale about a
//! centre (y up), which the user pans and zooms, and in 3D turns about the middle of the screen
//! (the orbit).

use bead::System;
use bead::draw::projection::{Bounds, Camera, Fit};
use eframe::egui::{self, Pos2, Vec2};

/// Radians the camera turns per screen point the mouse moves while orbiting: a drag across a
/// 400-point canvas turns it by about 180°.
const ORBIT_RATE: f64 = 0.008;

/// How the model is seen: the camera, and where and how large its picture is on screen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct View {
    dim: usize,
    camera: Camera,
    /// The picture-plane point at the centre of the screen rectangle.
    center: [f64; 2],
    /// A world point whose depth the orbit turns about: the middle of the model when fitted,
    /// then the last point turned about.
    focus: [f64; 3],
    /// Points per metre.
    pub(crate) scale: f64,
    /// The screen rectangle's centre.
    screen_center: Pos2,
}

impl View {
    /// Fits the system's particles and bodies (with a margin), seen through `camera`, into
    /// `rect`.
    pub(crate) fn fit(system: &System, rect: egui::Rect, camera: Camera) -> View {
        let dim = system.dim();
        let mut bounds = Bounds::EMPTY;
        // The model's extent in the world, for the point the orbit turns about.
        let mut world = [[f64::INFINITY; 3], [f64::NEG_INFINITY; 3]];
        let mut include = |x: [f64; 3], margin: f64| {
            bounds.include(camera.project(dim, x), margin);
            if x.iter().all(|c| c.is_finite()) {
                for k in 0..3 {
                    world[0][k] = world[0][k].min(x[k]);
                    world[1][k] = world[1][k].max(x[k]);
                }
            }
        };
        for p in system.particles() {
            let x = system.position(p);
            include([x[0], x[1], x.get(2).copied().unwrap_or(0.0)], 0.0);
        }
        for b in system.rigid_bodies() {
            let q = system.coordinates(b);
            include([q[0], q[1], 0.0], 0.3);
        }
        for b in system.rigid_bodies_3d() {
            let q = system.coordinates(b);
            include([q[0], q[1], q[2]], 0.3);
        }
        // Nothing to fit: a 2 m square about the origin.
        let (center, size) = if bounds.is_empty() {
            ([0.0; 2], [2.0; 2])
        } else {
            (bounds.center(), bounds.size())
        };
        let focus = if world[0][0].is_finite() {
            std::array::from_fn(|k| 0.5 * (world[0][k] + world[1][k]))
        } else {
            [0.0; 3]
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
            camera,
            center: fit.center,
            focus,
            scale: fit.scale.max(1e-6),
            screen_center: rect.center(),
        }
    }

    /// The camera the model is seen through.
    pub(crate) fn camera(&self) -> Camera {
        self.camera
    }

    /// Whether the model is 3D, where the camera turns.
    pub(crate) fn is_3d(&self) -> bool {
        self.dim == 3
    }

    /// Where world point `x` is drawn.
    pub(crate) fn to_screen(self, x: [f64; 3]) -> Pos2 {
        self.picture_to_screen(self.camera.project(self.dim, x))
    }

    /// Where picture-plane point `p` (metres, y up) is drawn.
    pub(crate) fn picture_to_screen(self, p: [f64; 2]) -> Pos2 {
        Pos2::new(
            self.screen_center.x + ((p[0] - self.center[0]) * self.scale) as f32,
            self.screen_center.y - ((p[1] - self.center[1]) * self.scale) as f32,
        )
    }

    /// The picture-plane point drawn at screen point `p`.
    fn to_picture(self, p: Pos2) -> [f64; 2] {
        [
            self.center[0] + f64::from(p.x - self.screen_center.x) / self.scale,
            self.center[1] - f64::from(p.y - self.screen_center.y) / self.scale,
        ]
    }

    /// The world point drawn at `p`. In 3D the screen is a projection, so a plane is chosen:
    /// the one through `through` across the view (see [`Camera::unproject`]), in which a
    /// dragged point moves.
    pub(crate) fn to_world(self, p: Pos2, through: [f64; 3]) -> [f64; 3] {
        self.camera.unproject(self.dim, self.to_picture(p), through)
    }

    /// The world point drawn at `p` on the plane through `point` with `normal` (a solid's
    /// face), if the plane is not seen edge-on.
    pub(crate) fn on_plane(self, p: Pos2, point: [f64; 3], normal: [f64; 3]) -> Option<[f64; 3]> {
        self.camera
            .on_plane(self.dim, self.to_picture(p), point, normal)
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
        let before = self.to_picture(about);
        self.scale = (self.scale * factor).clamp(1e-3, 1e9);
        let after = self.to_picture(about);
        self.center[0] += before[0] - after[0];
        self.center[1] += before[1] - after[1];
    }

    /// Turns a 3D camera as the mouse moved by `delta` points, about the world point drawn at
    /// the middle of the screen at the focus's depth, which stays there: right turns the model
    /// to the right about the vertical, down tilts its top towards the viewer. Nothing in 2D.
    pub(crate) fn orbit(&mut self, delta: Vec2) {
        if self.dim != 3 {
            return;
        }
        let pivot = self.camera.unproject(self.dim, self.center, self.focus);
        self.camera = self.camera.orbited(
            f64::from(delta.x) * ORBIT_RATE,
            f64::from(delta.y) * ORBIT_RATE,
        );
        self.center = self.camera.project(self.dim, pivot);
        self.focus = pivot;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Screen and world agree both ways, in 2D and (on the drag plane) in 3D, for the cabinet
    /// and turned cameras, and zooming keeps the point under the pointer.
    #[test]
    fn the_view_inverts() {
        let rect = egui::Rect::from_min_size(Pos2::ZERO, egui::vec2(800.0, 600.0));
        for (dim, camera) in [
            (2, Camera::Cabinet),
            (3, Camera::Cabinet),
            (3, Camera::orbit(0.7, 0.3)),
            (3, Camera::orbit(-2.5, -1.2)),
        ] {
            let mut view = View::fit(&System::new(dim).unwrap(), rect, camera);
            let x = if dim == 3 {
                [0.3, -0.2, 0.7]
            } else {
                [0.3, 0.7, 0.0]
            };
            let back = view.to_world(view.to_screen(x), x);
            for k in 0..3 {
                assert!((back[k] - x[k]).abs() < 1e-5, "{dim}D: {x:?} → {back:?}");
            }
            let about = Pos2::new(500.0, 200.0);
            let under = view.to_world(about, [0.0; 3]);
            view.zoom(2.5, about);
            let still = view.to_world(about, [0.0; 3]);
            for k in 0..3 {
                assert!((under[k] - still[k]).abs() < 1e-5, "{camera:?}");
            }
            view.pan(egui::vec2(10.0, 0.0));
            let moved = view.to_screen(x);
            view.pan(egui::vec2(-10.0, 0.0));
            assert!((moved.x - view.to_screen(x).x - 10.0).abs() < 1e-3);
        }
    }

    /// Orbiting keeps the model's middle in the middle of the screen, turns the cabinet into an
    /// orbit camera, and in 2D changes nothing.
    #[test]
    fn orbiting_turns_about_the_middle_of_the_screen() {
        let rect = egui::Rect::from_min_size(Pos2::ZERO, egui::vec2(800.0, 600.0));
        let mut sys = System::new(3).unwrap();
        for x in [[1.0, 2.0, 3.0], [1.4, 2.0, 2.5], [0.8, 2.6, 3.1]] {
            sys.add_particle(bead::Particle::new(&x)).unwrap();
        }
        let mut view = View::fit(&sys, rect, Camera::Cabinet);
        let middle = view.to_world(rect.center(), view.focus);
        view.orbit(egui::vec2(40.0, -25.0));
        assert!(matches!(view.camera(), Camera::Orbit { .. }));
        for _ in 0..5 {
            view.orbit(egui::vec2(-13.0, 31.0));
            assert!(view.to_screen(middle).distance(rect.center()) < 1e-3);
        }
        let mut flat = View::fit(&System::new(2).unwrap(), rect, Camera::Cabinet);
        let before = flat;
        flat.orbit(egui::vec2(40.0, 10.0));
        assert_eq!(flat, before);
    }
}
