//! The faces of 3D solids on the canvas. They are kept as the engine draws them, then painted
//! back to front (the painter's algorithm of [`bead::draw::faces`]) into a slot of the painter
//! taken before anything else was drawn, so that joints, nails, springs and the mouse spring
//! show over the solids they hold. Each face is a mesh of its own, lit flat, and a box's edges
//! and a cylinder's rims are lines drawn with it. Each face is recorded for picking with the
//! plane it lies in, so that a press finds the body point under the mouse.

use bead::draw::Face;
use bead::draw::faces::{Shaded, back_to_front};
use eframe::egui::{self, Color32, Pos2, Stroke};

use crate::canvas::{Hit, HitShape, Owner};
use crate::view::View;

/// A solid's colour in full light, the Body colour of the wireframes.
const FILL: [u8; 3] = [120, 200, 140];
/// A selected solid's colour in full light.
const SELECTED_FILL: [u8; 3] = [255, 210, 0];
/// The edges drawn on solids (a box's, a cylinder's rims).
const EDGE: Color32 = Color32::from_rgb(30, 60, 40);
const EDGE_WIDTH: f32 = 1.5;

/// A face turned to the camera, with what it belongs to and the plane it lies in.
struct Kept {
    owner: Option<Owner>,
    selected: bool,
    shaded: Shaded,
    /// A corner, in the world.
    point: [f64; 3],
    normal: [f64; 3],
}

/// The solids' faces of one frame.
pub(crate) struct FaceLayer {
    /// Where they are painted: under everything drawn after the layer was made.
    slot: egui::layers::ShapeIdx,
    faces: Vec<Kept>,
}

impl FaceLayer {
    /// A layer painted under whatever `painter` draws from now on.
    pub(crate) fn new(painter: &egui::Painter) -> FaceLayer {
        FaceLayer {
            slot: painter.add(egui::Shape::Noop),
            faces: Vec::new(),
        }
    }

    /// Keeps `face` if it is turned to the camera.
    pub(crate) fn push(
        &mut self,
        face: &Face<'_>,
        view: &View,
        owner: Option<Owner>,
        selected: bool,
    ) {
        // Faces come from 3D solids only.
        let (Some(shaded), Some(point)) = (face.shade(&view.camera(), 3), face.vertices.first())
        else {
            return;
        };
        self.faces.push(Kept {
            owner,
            selected,
            shaded,
            point: *point,
            normal: face.normal,
        });
    }

    /// Paints the faces back to front and records where each was drawn in `hits`.
    pub(crate) fn paint(mut self, painter: &egui::Painter, view: &View, hits: &mut Vec<Hit>) {
        back_to_front(&mut self.faces, |f| f.shaded.depth);
        let mut shapes = Vec::with_capacity(2 * self.faces.len());
        for face in self.faces {
            let outline: Vec<Pos2> = face
                .shaded
                .points
                .iter()
                .map(|p| view.picture_to_screen(*p))
                .collect();
            let base = if face.selected { SELECTED_FILL } else { FILL };
            let light = face.shaded.light.clamp(0.0, 1.0);
            let [r, g, b] = base.map(|c| (f64::from(c) * light).round() as u8);
            // A mesh of its own, without egui's feathering: the feather of a sliver (a face seen
            // nearly edge-on) spikes out along its miters, and facets that share an edge meet
            // without a seam.
            let mut mesh = egui::Mesh::default();
            for p in &outline {
                mesh.colored_vertex(*p, Color32::from_rgb(r, g, b));
            }
            for k in 1..outline.len().saturating_sub(1) {
                mesh.add_triangle(0, k as u32, k as u32 + 1);
            }
            shapes.push(egui::Shape::mesh(mesh));
            for k in 0..outline.len() {
                if Face::edge(face.shaded.edges, k) {
                    let (a, b) = (outline[k], outline[(k + 1) % outline.len()]);
                    shapes.push(egui::Shape::line_segment(
                        [a, b],
                        Stroke::new(EDGE_WIDTH, EDGE),
                    ));
                }
            }
            if let Some(owner) = face.owner {
                hits.push(Hit {
                    owner,
                    shape: HitShape::Face {
                        outline,
                        depth: face.shaded.depth,
                        point: face.point,
                        normal: face.normal,
                    },
                });
            }
        }
        painter.set(self.slot, egui::Shape::Vec(shapes));
    }
}
