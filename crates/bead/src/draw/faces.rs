//! Solids drawn filled, with the painter's algorithm: the flat [`Face`]s a 3D body's solid is
//! made of (given to a canvas that asks for them, [`super::Canvas::draws_faces`]), and how a
//! renderer draws them — each face turned to the camera projected and lit by a light fixed to
//! the camera ([`Face::shade`]), then all of them drawn from the farthest to the nearest
//! ([`back_to_front`]), so that a near face covers a far one.
//!
//! Faces turned away from the camera are left out: a convex solid's faces turned to the camera
//! never overlap one another, so depth order matters only between bodies. There the order is by
//! each face's mean depth, which is right for bodies apart and can be wrong for faces that
//! interpenetrate or are long and close: the painter's algorithm's usual limit.

use super::projection::Camera;

/// Light on a face turned away from the light: faces in shadow still show their shape.
const AMBIENT: f64 = 0.35;

/// A face of the second tone is this much darker than one of the first.
const SECOND_TONE: f64 = 0.82;

/// One flat face of a 3D solid, in world metres.
///
/// ```
/// use bead::draw::Face;
/// use bead::draw::projection::Camera;
///
/// // The top of a unit cube, seen from above: lit, with its four edges drawn.
/// let top = Face {
///     vertices: &[[0.0, 0.0, 1.0], [1.0, 0.0, 1.0], [1.0, 1.0, 1.0], [0.0, 1.0, 1.0]],
///     normal: [0.0, 0.0, 1.0],
///     edges: 0b1111,
///     tone: 0,
/// };
/// let camera = Camera::orbit(0.0, 1.0);
/// let shaded = top.shade(&camera, 3).unwrap();
/// assert_eq!(shaded.points.len(), 4);
/// assert!(shaded.light > 0.35 && shaded.light <= 1.0);
/// assert!(Face::edge(shaded.edges, 3));
/// // From below, it faces away: not drawn.
/// assert!(top.shade(&Camera::orbit(0.0, -1.0), 3).is_none());
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Face<'a> {
    /// The corners, in order around the face.
    pub vertices: &'a [[f64; 3]],
    /// The outward normal, a unit vector.
    pub normal: [f64; 3],
    /// Which sides are drawn as lines: bit k for the side from corner k to corner k + 1 (the
    /// last to the first). A box draws all its edges; the facets of a round solid none, or only
    /// a rim.
    pub edges: u32,
    /// 0 or 1: round solids alternate two tones in stripes, so that a spin shows.
    pub tone: u8,
}

/// A face as a renderer draws it: projected onto the picture plane, with its depth and the
/// light on it.
///
/// ```
/// use bead::draw::faces::{back_to_front, Shaded};
/// let face = |depth: f64| Shaded { points: vec![], depth, light: 1.0, edges: 0 };
/// let mut faces = vec![face(-1.0), face(2.0), face(0.5)];
/// back_to_front(&mut faces, |f| f.depth);
/// assert_eq!(faces.iter().map(|f| f.depth).collect::<Vec<_>>(), [2.0, 0.5, -1.0]);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Shaded {
    /// The corners on the picture plane, metres (y up).
    pub points: Vec<[f64; 2]>,
    /// The mean depth of the corners along the view direction, metres: larger is farther.
    pub depth: f64,
    /// How lit the face is, from 0 (black) to 1 (its full colour); renderers scale their colour
    /// by it.
    pub light: f64,
    /// The sides drawn as lines, as [`Face::edges`].
    pub edges: u32,
}

impl Face<'_> {
    /// The face as `camera` draws it in a `dim`-dimensional scene, or `None` if it is turned
    /// away from the camera (or has no corners). Flat shading: the light on it is a fixed
    /// ambient share plus the rest in proportion to the cosine between its normal and the
    /// direction of the camera's light ([`Camera::light`]), darker for the second tone.
    ///
    /// ```
    /// use bead::draw::Face;
    /// use bead::draw::projection::Camera;
    /// // A triangle facing −y, seen by the cabinet (which looks along +y, from the front).
    /// let corners = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]];
    /// let face = Face { vertices: &corners, normal: [0.0, -1.0, 0.0], edges: 0, tone: 1 };
    /// let shaded = face.shade(&Camera::Cabinet, 3).unwrap();
    /// assert_eq!(shaded.points, [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]);
    /// let back = Face { normal: [0.0, 1.0, 0.0], ..face };
    /// assert!(back.shade(&Camera::Cabinet, 3).is_none());
    /// ```
    pub fn shade(&self, camera: &Camera, dim: usize) -> Option<Shaded> {
        let along = |a: [f64; 3], b: [f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
        if self.vertices.is_empty() || !(along(self.normal, camera.view_direction()) < 0.0) {
            return None;
        }
        let lit = along(self.normal, camera.light()).max(0.0);
        let tone = if self.tone == 0 { 1.0 } else { SECOND_TONE };
        let depth = self.vertices.iter().map(|v| camera.depth(*v)).sum::<f64>()
            / self.vertices.len() as f64;
        Some(Shaded {
            points: self
                .vertices
                .iter()
                .map(|v| camera.project(dim, *v))
                .collect(),
            depth,
            light: (AMBIENT + (1.0 - AMBIENT) * lit) * tone,
            edges: self.edges,
        })
    }

    /// Whether side `k` (from corner k to corner k + 1) is drawn as a line, by `edges` as in
    /// [`Face::edges`].
    ///
    /// ```
    /// use bead::draw::Face;
    /// assert!(Face::edge(0b010, 1) && !Face::edge(0b010, 0) && !Face::edge(0b010, 40));
    /// ```
    pub fn edge(edges: u32, k: usize) -> bool {
        k < 32 && edges & (1 << k) != 0
    }
}

/// Sorts `faces` from the farthest to the nearest by `depth` (larger is farther), for drawing in
/// that order; faces at the same depth keep their order, and a depth that is not a number goes
/// first, under the rest.
///
/// ```
/// use bead::draw::faces::back_to_front;
/// let mut depths = [0.5, f64::NAN, 3.0, -1.0];
/// back_to_front(&mut depths, |d| *d);
/// assert!(depths[0].is_nan());
/// assert_eq!(depths[1..], [3.0, 0.5, -1.0]);
/// ```
pub fn back_to_front<T>(faces: &mut [T], depth: impl Fn(&T) -> f64) {
    faces.sort_by(|a, b| {
        let (a, b) = (depth(a), depth(b));
        // NaN sorts as the farthest.
        let key = |d: f64| if d.is_nan() { f64::INFINITY } else { d };
        key(b).total_cmp(&key(a))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two squares facing the camera, one behind the other: the near one is drawn after the far
    /// one, whatever order they came in; a face turned away is not drawn at all.
    #[test]
    fn a_near_face_is_drawn_after_a_far_one() {
        let square = |y: f64| [[0.0, y, 0.0], [1.0, y, 0.0], [1.0, y, 1.0], [0.0, y, 1.0]];
        let (near, far) = (square(-1.0), square(2.0));
        for camera in [
            Camera::Cabinet,
            Camera::orbit(0.0, 0.0),
            Camera::orbit(0.5, 0.3),
            Camera::orbit(-0.8, -0.4),
        ] {
            let face = |vertices| Face {
                vertices,
                normal: [0.0, -1.0, 0.0],
                edges: 0b1111,
                tone: 0,
            };
            let mut shaded: Vec<(&str, Shaded)> = [("near", face(&near)), ("far", face(&far))]
                .iter()
                .map(|(name, f)| (*name, f.shade(&camera, 3).unwrap()))
                .collect();
            back_to_front(&mut shaded, |(_, s)| s.depth);
            let order: Vec<&str> = shaded.iter().map(|(n, _)| *n).collect();
            assert_eq!(order, ["far", "near"], "{camera:?}");
            let back = Face {
                vertices: &far,
                normal: [0.0, 1.0, 0.0],
                edges: 0,
                tone: 0,
            };
            assert!(back.shade(&camera, 3).is_none(), "{camera:?}");
        }
    }

    /// A face square to the light is fully lit, one edge-on to it gets the ambient light, and
    /// the second tone is darker.
    #[test]
    fn faces_are_lit_by_their_normal() {
        let camera = Camera::orbit(0.2, 0.3);
        let light = camera.light();
        let vertices = [[0.0; 3]; 3];
        let lit = Face {
            vertices: &vertices,
            normal: light,
            edges: 0,
            tone: 0,
        };
        assert!((lit.shade(&camera, 3).unwrap().light - 1.0).abs() < 1e-12);
        let dark = Face { tone: 1, ..lit };
        assert!((dark.shade(&camera, 3).unwrap().light - SECOND_TONE).abs() < 1e-12);
        // Across the light and towards the viewer: ambient only.
        let forward = camera.frame()[2];
        let d: [f64; 3] = std::array::from_fn(|i| -forward[i]);
        let across = |v: [f64; 3]| {
            let l = v[0] * light[0] + v[1] * light[1] + v[2] * light[2];
            let w: [f64; 3] = std::array::from_fn(|i| v[i] - l * light[i]);
            let n = (w[0] * w[0] + w[1] * w[1] + w[2] * w[2]).sqrt();
            w.map(|c| c / n)
        };
        let side = Face {
            normal: across(d),
            ..lit
        };
        let shaded = side.shade(&camera, 3).unwrap();
        assert!((shaded.light - AMBIENT).abs() < 1e-12, "{shaded:?}");
    }

    /// Not-a-number depths go first; equal depths keep their order.
    #[test]
    fn sorting_is_stable_and_total() {
        let mut faces = vec![(1.0, 'a'), (f64::NAN, 'b'), (1.0, 'c'), (3.0, 'd')];
        back_to_front(&mut faces, |f| f.0);
        let order: String = faces.iter().map(|f| f.1).collect();
        assert_eq!(order, "bdac");
    }
}
