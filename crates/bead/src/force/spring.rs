//! A damped spring between two points (Hooke plus damping along the spring's axis).
//!
//! ```text
//! d = x₁ − x₂,  u = d/|d|,  w = ẋ₁ − ẋ₂
//! f₁ = −[k (|d| − L) + c (w·u)] u,   f₂ = −f₁,      V = ½ k (|d| − L)²
//! ```
//!
//! When the two ends coincide the axis is undefined and the spring exerts no force.

use super::{Force, ForceContext, InvalidParameter};
use crate::draw::{Canvas, Element};
use crate::math::vector::{dot, norm, sub};
use crate::point::Point;
use crate::view::View;

/// A damped spring with a rest length.
///
/// ```
/// use bead::{force::Spring, Particle, System};
/// let mut sys = System::new(2)?;
/// let a = sys.add_particle(Particle::new(&[0.0, 0.0]))?;
/// let b = sys.add_particle(Particle::new(&[1.5, 0.0]))?;
/// sys.add_force(Spring::new(a, b, 100.0, 1.0, 1.0))?;
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Spring {
    points: [Point; 2],
    stiffness: f64,
    damping: f64,
    rest_length: f64,
}

impl Spring {
    /// A spring of `stiffness` N/m, `damping` N·s/m and `rest_length` m between `a` and `b`.
    pub fn new(
        a: impl Into<Point>,
        b: impl Into<Point>,
        stiffness: f64,
        damping: f64,
        rest_length: f64,
    ) -> Self {
        Spring {
            points: [a.into(), b.into()],
            stiffness,
            damping,
            rest_length,
        }
    }

    /// Stiffness, in N/m.
    pub fn stiffness(&self) -> f64 {
        self.stiffness
    }

    /// Sets the stiffness, in N/m.
    pub fn set_stiffness(&mut self, k: f64) {
        self.stiffness = k;
    }

    /// Rest length, in metres.
    pub fn rest_length(&self) -> f64 {
        self.rest_length
    }

    /// Sets the rest length, in metres.
    pub fn set_rest_length(&mut self, length: f64) {
        self.rest_length = length;
    }

    /// The two ends.
    pub fn points(&self) -> [Point; 2] {
        self.points
    }
}

impl Force for Spring {
    fn apply(&self, ctx: &mut ForceContext<'_>) {
        let view = ctx.view();
        let dim = view.dim();
        let d = sub(
            &view.position(&self.points[0]),
            &view.position(&self.points[1]),
        );
        let w = sub(
            &view.velocity(&self.points[0]),
            &view.velocity(&self.points[1]),
        );
        let len = norm(&d[..dim]);
        if !(len > 0.0) {
            return;
        }
        let u = d.map(|x| x / len);
        let magnitude = self.stiffness * (len - self.rest_length) + self.damping * dot(&w, &u);
        let f1 = u.map(|x| -magnitude * x);
        let f2 = u.map(|x| magnitude * x);
        ctx.add_force(&self.points[0], &f1);
        ctx.add_force(&self.points[1], &f2);
    }

    fn draw(&self, view: &View<'_>, canvas: &mut dyn Canvas) {
        canvas.zigzag(
            view.position(&self.points[0]),
            view.position(&self.points[1]),
            Element::Spring,
        );
    }

    fn potential_energy(&self, view: &View<'_>) -> f64 {
        let d = sub(
            &view.position(&self.points[0]),
            &view.position(&self.points[1]),
        );
        0.5 * self.stiffness * (norm(&d) - self.rest_length).powi(2)
    }

    fn points(&self) -> Vec<Point> {
        self.points.to_vec()
    }

    fn check(&self, _dim: usize) -> Result<(), InvalidParameter> {
        InvalidParameter::check_non_negative("stiffness", self.stiffness)?;
        InvalidParameter::check_non_negative("damping", self.damping)?;
        InvalidParameter::check_non_negative("rest_length", self.rest_length)?;
        if self.points[0] == self.points[1] {
            return Err(InvalidParameter::new(
                "between",
                "a spring needs two different points",
            ));
        }
        Ok(())
    }
}
