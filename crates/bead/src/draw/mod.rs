//! One description of what to draw, for every renderer (the viewer, `bead render`, tests):
//! models say what they look like once.
//!
//! The engine describes a model as a few primitives — discs, lines, zigzag springs, wire
//! outlines, anchors, arrows — through [`Canvas`], as box2d's and rapier's debug-draw interfaces
//! do. Each force and constraint draws itself ([`crate::Force::draw`](crate::force::Force::draw),
//! [`crate::Constraint::draw`]); a renderer (the CLI's GIF frames, the viewer) only implements the
//! primitives, so a new constraint type shows up in every renderer without touching any of them.
//! Coordinates are world metres with 3 components (z = 0 in 2D). Renderers that draw a picture
//! share [`projection`]: the camera that projects 3D points onto the picture plane and the fit
//! of a view to what is drawn. 3D solids come as their edges, or, to a renderer that fills them
//! ([`Canvas::draws_faces`]), as flat [`Face`]s that [`faces`] shades and sorts by depth.

mod bodies;
pub mod faces;
pub mod projection;
mod solids;
mod surfaces;

pub(crate) use bodies::draw_bodies;
pub use faces::Face;

use crate::ids::{BodyId, ConstraintId, ForceId};

/// What a primitive stands for; renderers choose colours and widths from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Element {
    /// A particle with mass.
    Particle,
    /// A kinematic anchor (infinite mass).
    Anchor,
    /// A rigid body's outline.
    Body,
    /// A rigid rod (distance constraint).
    Rod,
    /// A spring.
    Spring,
    /// A wire, a track or a surface a point is held on.
    Wire,
    /// A nail's location.
    Nail,
    /// A joint between bodies (revolute, weld).
    Joint,
    /// The user's mouse spring.
    Mouse,
    /// An applied force vector.
    Force,
    /// A constraint force `Jᵀλ`.
    ConstraintForce,
    /// Where two shapes of a contact group touch (or are about to): a marker midway between
    /// the two surfaces.
    Contact,
}

/// The piece of the model that the primitives drawn next belong to (see [`Canvas::begin`]).
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum Item<'a> {
    /// A body (particle or rigid body).
    Body(BodyId),
    /// A force.
    Force(ForceId),
    /// A constraint, with its multipliers λ (one per row) when the drawing was given
    /// diagnostics. For a rod, λ < 0 is tension.
    Constraint {
        /// The constraint.
        id: ConstraintId,
        /// Its multipliers, if known.
        lambda: Option<&'a [f64]>,
    },
}

/// The drawing primitives a renderer implements.
///
/// Only the primitives are required. [`Canvas::begin`] tells a renderer which piece of the model
/// the primitives that follow belong to, for renderers that colour rods by their load or let the
/// user pick what they click on; others ignore it.
///
/// ```
/// use bead::draw::{Canvas, Item, Element};
/// use bead::{constraint::Distance, Particle, System};
///
/// /// Collects the multipliers of the rods as they are drawn.
/// #[derive(Default)]
/// struct RodLoads { current: Option<f64>, loads: Vec<f64> }
///
/// impl Canvas for RodLoads {
///     fn begin(&mut self, item: Item<'_>) {
///         self.current = match item {
///             Item::Constraint { lambda: Some(l), .. } => Some(l[0]),
///             _ => None,
///         };
///     }
///     fn line(&mut self, _: [f64; 3], _: [f64; 3], element: Element) {
///         if let (Element::Rod, Some(l)) = (element, self.current) {
///             self.loads.push(l);
///         }
///     }
///     fn disc(&mut self, _: [f64; 3], _: f64, _: Element) {}
///     fn zigzag(&mut self, _: [f64; 3], _: [f64; 3], _: Element) {}
///     fn circle(&mut self, _: [f64; 3], _: f64, _: [f64; 3], _: Element) {}
///     fn marker(&mut self, _: [f64; 3], _: Element) {}
///     fn arrow(&mut self, _: [f64; 3], _: [f64; 3], _: Element) {}
/// }
///
/// let (mut sys, _, _) = bead::models::pendulum(1.0, 0.0, 1.0)?;
/// let d = sys.diagnostics().unwrap();
/// let mut canvas = RodLoads::default();
/// sys.draw(&mut canvas, Some(&d));
/// // A bob of 1 kg hanging at rest: the rod pulls with 9.81 N (λ < 0 is tension).
/// assert!((canvas.loads[0] + 9.81).abs() < 1e-9);
/// # Ok::<(), bead::ModelError>(())
/// ```
pub trait Canvas {
    /// The primitives that follow belong to `item`, until the next call.
    fn begin(&mut self, item: Item<'_>) {
        let _ = item;
    }
    /// A filled disc (a particle).
    fn disc(&mut self, center: [f64; 3], radius: f64, element: Element);
    /// A straight segment.
    fn line(&mut self, a: [f64; 3], b: [f64; 3], element: Element);
    /// A zigzag between two points (a spring).
    fn zigzag(&mut self, a: [f64; 3], b: [f64; 3], element: Element);
    /// A circle outline of `radius` about `center`, in the plane normal to `normal`.
    fn circle(&mut self, center: [f64; 3], radius: f64, normal: [f64; 3], element: Element);
    /// A small mark at a location (an anchor, a nail).
    fn marker(&mut self, at: [f64; 3], element: Element);
    /// An arrow from `from` along `vector` (world units; renderers scale forces).
    fn arrow(&mut self, from: [f64; 3], vector: [f64; 3], element: Element);
    /// A closed polygon outline (a rigid body); by default drawn as its edges.
    fn polygon(&mut self, vertices: &[[f64; 3]], element: Element) {
        for (k, a) in vertices.iter().enumerate() {
            self.line(*a, vertices[(k + 1) % vertices.len()], element);
        }
    }
    /// Whether 3D solids come to this canvas as their flat faces, through [`Canvas::face`], to
    /// be filled in depth order (see [`faces`]). By default they come as their edges and
    /// circles, and their body axes.
    fn draws_faces(&self) -> bool {
        false
    }
    /// One flat face of a 3D solid, to a canvas whose [`Canvas::draws_faces`] is true; ignored
    /// by default. A renderer keeps the faces of a whole drawing and draws them back to front.
    fn face(&mut self, face: &Face<'_>, element: Element) {
        let _ = (face, element);
    }
}

#[cfg(test)]
mod tests {
    use super::bodies::{GRID_LINES, GRID_SEGMENTS};
    use super::*;
    use crate::constraint::{Distance, Nail};
    use crate::force::{Gravity, Spring};
    use crate::{Particle, Point, System};

    /// Records the primitives drawn, by kind and element.
    #[derive(Default)]
    struct Record(Vec<(&'static str, Element)>);

    impl Canvas for Record {
        fn disc(&mut self, _: [f64; 3], _: f64, element: Element) {
            self.0.push(("disc", element));
        }
        fn line(&mut self, _: [f64; 3], _: [f64; 3], element: Element) {
            self.0.push(("line", element));
        }
        fn zigzag(&mut self, _: [f64; 3], _: [f64; 3], element: Element) {
            self.0.push(("zigzag", element));
        }
        fn circle(&mut self, _: [f64; 3], _: f64, _: [f64; 3], element: Element) {
            self.0.push(("circle", element));
        }
        fn marker(&mut self, _: [f64; 3], element: Element) {
            self.0.push(("marker", element));
        }
        fn arrow(&mut self, _: [f64; 3], _: [f64; 3], element: Element) {
            self.0.push(("arrow", element));
        }
    }

    /// Each piece of a model draws itself once, and constraint forces are arrows on the moving
    /// bodies only.
    #[test]
    fn a_model_draws_each_piece() {
        let mut sys = System::new(2).unwrap();
        let a = sys.add_particle(Particle::anchor(&[0.0, 0.0])).unwrap();
        let b = sys
            .add_particle(Particle::new(&[1.0, 0.0]).radius(0.1))
            .unwrap();
        let c = sys.add_particle(Particle::new(&[2.0, 0.0])).unwrap();
        sys.add_force(Gravity::new(&[0.0, -9.81])).unwrap();
        sys.add_force(Spring::new(b, c, 10.0, 0.0, 1.0)).unwrap();
        sys.add_constraint(Distance::new(a, b, 1.0)).unwrap();
        sys.add_constraint(Nail::new(c, &[2.0, 0.0])).unwrap();
        let d = sys.diagnostics().unwrap();
        let mut rec = Record::default();
        sys.draw(&mut rec, Some(&d));
        let count = |kind: &str, element: Element| {
            rec.0
                .iter()
                .filter(|&&(k, r)| k == kind && r == element)
                .count()
        };
        assert_eq!(count("zigzag", Element::Spring), 1);
        assert_eq!(count("line", Element::Rod), 1);
        assert_eq!(count("marker", Element::Nail), 1);
        assert_eq!(count("marker", Element::Anchor), 1);
        assert_eq!(count("disc", Element::Particle), 2);
        // Rod on b, nail on c (the anchor end of the rod is not drawn).
        assert_eq!(count("arrow", Element::ConstraintForce), 2);
    }

    /// A rod from a particle to a parametric object's point draws its force on the particle only
    /// (the object's share is a generalized force on u; it panicked, read as a position).
    #[test]
    fn constraint_forces_skip_parametric_objects() {
        let mut sys = System::new(2).unwrap();
        let ring = sys
            .add_parametric(crate::primitives::circle([0.0, 0.0], 1.0, 1.0, 0.3))
            .unwrap();
        let bead = sys.parametric_point(ring, "bead").unwrap();
        let bob = sys.add_particle(Particle::new(&[0.3, -1.5])).unwrap();
        sys.add_force(Gravity::new(&[0.0, -9.81])).unwrap();
        sys.add_constraint(Distance::new(bead, Point::from(bob), 1.2))
            .unwrap();
        let d = sys.diagnostics().unwrap();
        let mut rec = Record::default();
        sys.draw(&mut rec, Some(&d));
        let arrows = rec
            .0
            .iter()
            .filter(|&&(k, r)| k == "arrow" && r == Element::ConstraintForce)
            .count();
        assert_eq!(arrows, 1);
    }

    /// A point on a sphere draws the sphere: a wireframe whose every vertex lies on it.
    #[test]
    fn a_surface_object_draws_its_wireframe() {
        #[derive(Default)]
        struct Wires(Vec<[f64; 3]>);
        impl Canvas for Wires {
            fn disc(&mut self, _: [f64; 3], _: f64, _: Element) {}
            fn line(&mut self, a: [f64; 3], b: [f64; 3], element: Element) {
                if element == Element::Wire {
                    self.0.extend([a, b]);
                }
            }
            fn zigzag(&mut self, _: [f64; 3], _: [f64; 3], _: Element) {}
            fn circle(&mut self, _: [f64; 3], _: f64, _: [f64; 3], _: Element) {}
            fn marker(&mut self, _: [f64; 3], _: Element) {}
            fn arrow(&mut self, _: [f64; 3], _: [f64; 3], _: Element) {}
        }
        let mut sys = System::new(3).unwrap();
        sys.add_parametric(crate::primitives::sphere(
            [0.0, 0.0, 1.0],
            0.5,
            1.0,
            [1.0, 0.3],
        ))
        .unwrap();
        let mut wires = Wires::default();
        sys.draw(&mut wires, None);
        assert_eq!(wires.0.len(), 2 * 2 * GRID_LINES * GRID_SEGMENTS);
        for x in &wires.0 {
            let r = (x[0] * x[0] + x[1] * x[1] + (x[2] - 1.0).powi(2)).sqrt();
            assert!((r - 0.5).abs() < 1e-12, "{x:?}");
        }
    }
}
