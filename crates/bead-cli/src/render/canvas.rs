//! The recording [`Canvas`]: what the model draws at one instant, kept as primitives projected
//! onto the picture plane (world metres, y up), so that the view can be fitted to the whole run
//! before any pixel is drawn.

use bead::System;
use bead::draw::projection::project;
use bead::draw::{Canvas, Element};

/// A 2D point on the projection plane, in world metres.
pub(super) type P2 = [f64; 2];

/// One primitive, already projected ([`project`]) to the plane of the image (still in metres,
/// y up).
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Shape {
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
pub(super) struct Snapshot {
    /// Simulated time, in seconds.
    pub(super) time: f64,
    pub(super) shapes: Vec<(Shape, Element)>,
}

/// A [`Canvas`] that keeps the primitives, projected, for fitting the view after the run.
struct Recorder {
    dim: usize,
    shapes: Vec<(Shape, Element)>,
}

/// Points on the outline of a 3D circle; enough that the projected polygon looks round.
const CIRCLE_POINTS: usize = 64;

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

/// Draws the system's current state into a [`Snapshot`].
pub(super) fn snapshot(system: &mut System, show_forces: bool) -> Snapshot {
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
