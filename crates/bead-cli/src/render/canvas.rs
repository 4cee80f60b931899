//! The recording [`Canvas`]: what the model draws at one instant, kept as primitives projected
//! onto the picture plane (world metres, y up) by the render's camera, so that the view can be
//! fitted to the whole run before any pixel is drawn. With `--solid`, 3D solids come as faces,
//! kept lit and sorted back to front.

use bead::draw::faces::{Shaded, back_to_front};
use bead::draw::projection::{Camera, circle_points};
use bead::draw::{Canvas, Element, Face, Item};
use bead::{BodyId, System};

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
    /// A face of a 3D solid, turned to the camera: its corners, the light on it (0 to 1) and
    /// its sides drawn as lines (as [`Face::edges`]).
    Face {
        points: Vec<P2>,
        light: f64,
        edges: u32,
    },
}

/// What was drawn at one captured instant.
#[derive(Clone, Debug)]
pub(super) struct Snapshot {
    /// Simulated time, in seconds.
    pub(super) time: f64,
    pub(super) shapes: Vec<(Shape, Element)>,
    /// The body each shape was drawn for (`None`: a constraint's or a force's), one per shape:
    /// the view is fitted to what moves, not to a floor 20 m wide.
    pub(super) owners: Vec<Option<BodyId>>,
}

/// How a snapshot is drawn: the constraint forces or not, the camera, and 3D solids filled or
/// as their edges.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct Look {
    pub(super) show_forces: bool,
    pub(super) camera: Camera,
    pub(super) solid: bool,
}

/// A [`Canvas`] that keeps the primitives, projected, for fitting the view after the run.
struct Recorder {
    dim: usize,
    /// Whether forces are drawn, and with them the contact points.
    show_forces: bool,
    camera: Camera,
    solid: bool,
    shapes: Vec<(Shape, Element)>,
    /// The body each shape was drawn for.
    owners: Vec<Option<BodyId>>,
    /// The body whose primitives come now ([`Canvas::begin`]).
    owner: Option<BodyId>,
    /// The solids' faces turned to the camera, in the order they came; sorted at the end.
    faces: Vec<(Shaded, Element, Option<BodyId>)>,
}

/// Points on the outline of a 3D circle; enough that the projected polygon looks round.
const CIRCLE_POINTS: usize = 64;

fn norm3(v: [f64; 3]) -> f64 {
    (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt()
}

impl Recorder {
    fn project(&self, p: [f64; 3]) -> P2 {
        self.camera.project(self.dim, p)
    }

    fn push(&mut self, shape: Shape, element: Element) {
        self.shapes.push((shape, element));
        self.owners.push(self.owner);
    }
}

impl Canvas for Recorder {
    fn begin(&mut self, item: Item<'_>) {
        self.owner = match item {
            Item::Body(id) => Some(id),
            _ => None,
        };
    }

    fn disc(&mut self, center: [f64; 3], radius: f64, element: Element) {
        let center = self.project(center);
        self.push(Shape::Disc { center, radius }, element);
    }

    fn line(&mut self, a: [f64; 3], b: [f64; 3], element: Element) {
        let (a, b) = (self.project(a), self.project(b));
        self.push(Shape::Line { a, b }, element);
    }

    fn zigzag(&mut self, a: [f64; 3], b: [f64; 3], element: Element) {
        let (a, b) = (self.project(a), self.project(b));
        self.push(Shape::Zigzag { a, b }, element);
    }

    fn circle(&mut self, center: [f64; 3], radius: f64, normal: [f64; 3], element: Element) {
        if self.dim != 3 {
            let center = self.project(center);
            self.push(Shape::Circle { center, radius }, element);
            return;
        }
        let points = circle_points(center, radius, normal, CIRCLE_POINTS)
            .map(|p| self.project(p))
            .collect();
        self.push(Shape::Polyline(points), element);
    }

    fn marker(&mut self, at: [f64; 3], element: Element) {
        // Where shapes touch is drawn with the forces they carry (`--forces`).
        if element == Element::Contact && !self.show_forces {
            return;
        }
        let at = self.project(at);
        self.push(Shape::Marker { at }, element);
    }

    fn arrow(&mut self, from: [f64; 3], vector: [f64; 3], element: Element) {
        let shape = Shape::Arrow {
            from: self.project(from),
            vector: self.project(vector),
            magnitude: norm3(vector),
        };
        self.push(shape, element);
    }

    fn draws_faces(&self) -> bool {
        self.solid && self.dim == 3
    }

    fn face(&mut self, face: &Face<'_>, element: Element) {
        if let Some(shaded) = face.shade(&self.camera, self.dim) {
            self.faces.push((shaded, element, self.owner));
        }
    }
}

/// Draws the system's current state into a [`Snapshot`], as `look` says.
pub(super) fn snapshot(system: &mut System, look: &Look) -> Snapshot {
    // A state where λ cannot be solved still has a picture; the next step reports the failure.
    let diagnostics = if look.show_forces {
        system.diagnostics().ok()
    } else {
        None
    };
    let mut recorder = Recorder {
        dim: system.dim(),
        show_forces: look.show_forces,
        camera: look.camera,
        solid: look.solid,
        shapes: Vec::new(),
        owners: Vec::new(),
        owner: None,
        faces: Vec::new(),
    };
    system.draw(&mut recorder, diagnostics.as_ref());
    // The painter's algorithm: the rasteriser draws faces in the order kept here.
    back_to_front(&mut recorder.faces, |(face, _, _)| face.depth);
    for (face, element, owner) in std::mem::take(&mut recorder.faces) {
        let shape = Shape::Face {
            points: face.points,
            light: face.light,
            edges: face.edges,
        };
        recorder.shapes.push((shape, element));
        recorder.owners.push(owner);
    }
    Snapshot {
        time: system.time(),
        shapes: recorder.shapes,
        owners: recorder.owners,
    }
}
