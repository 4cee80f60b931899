//! The mouse spring: pulls a point toward a target that the caller (a viewer) moves.
//!
//! `f = k (target − x) − c ẋ`. It is how a user "grabs" a model (seed 000 §4's interactive
//! Tinkertoys). Its energy is work done by the user, so it is not counted as potential energy.
//! Its Jacobians, `k I` and `c I`, go into the implicit steppers' Newton matrix: a stiff grab
//! costs no extra Newton iterations.

use super::{Force, ForceContext, ForceJacobian, InvalidParameter};
use crate::draw::{Canvas, Element};
use crate::math::vector::{Vec3, to_vec3};
use crate::point::Point;
use crate::view::View;

/// A spring from a point to a movable target.
///
/// ```
/// use bead::{force::MouseSpring, Particle, System};
/// let mut sys = System::new(2)?;
/// let p = sys.add_particle(Particle::new(&[0.0, 0.0]))?;
/// let grab = sys.add_force(MouseSpring::new(p, &[0.0, 0.0], 50.0, 5.0))?;
/// // Each frame, the viewer moves the target under the cursor:
/// sys.force_mut::<MouseSpring>(grab).unwrap().set_target(&[1.0, 0.5]);
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Debug)]
pub struct MouseSpring {
    point: Point,
    target: Vec3,
    len: usize,
    stiffness: f64,
    damping: f64,
}

impl MouseSpring {
    /// A spring of `stiffness` N/m and `damping` N·s/m from `point` to `target`.
    pub fn new(point: impl Into<Point>, target: &[f64], stiffness: f64, damping: f64) -> Self {
        MouseSpring {
            point: point.into(),
            target: to_vec3(target),
            len: target.len(),
            stiffness,
            damping,
        }
    }

    /// Moves the target, in metres.
    pub fn set_target(&mut self, target: &[f64]) {
        self.target = to_vec3(target);
    }

    /// The target, in metres.
    pub fn target(&self) -> &[f64] {
        &self.target[..self.len]
    }

    /// The grabbed point.
    pub fn point(&self) -> Point {
        self.point
    }
}

impl Force for MouseSpring {
    fn apply(&self, ctx: &mut ForceContext<'_>) {
        let x = ctx.view().position(&self.point);
        let v = ctx.view().velocity(&self.point);
        let f: Vec3 =
            std::array::from_fn(|i| self.stiffness * (self.target[i] - x[i]) - self.damping * v[i]);
        ctx.add_force(&self.point, &f);
    }

    fn jacobian(&self, ctx: &mut ForceJacobian<'_>) {
        let dim = ctx.view().dim();
        let (mut stiffness, mut damping) = (vec![0.0; dim * dim], vec![0.0; dim * dim]);
        for i in 0..dim {
            stiffness[i * dim + i] = self.stiffness;
            damping[i * dim + i] = self.damping;
        }
        ctx.add_points(&[self.point], &stiffness, &damping);
    }

    fn draw(&self, view: &View<'_>, canvas: &mut dyn Canvas) {
        canvas.line(view.position(&self.point), self.target, Element::Mouse);
    }

    fn points(&self) -> Vec<Point> {
        vec![self.point]
    }

    fn check(&self, dim: usize) -> Result<(), InvalidParameter> {
        InvalidParameter::check_vector("target", self.target(), dim)?;
        InvalidParameter::check_non_negative("stiffness", self.stiffness)?;
        InvalidParameter::check_non_negative("damping", self.damping)
    }
}
