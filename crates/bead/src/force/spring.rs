//! A damped spring between two points (Hooke plus damping along the spring's axis).
//!
//! ```text
//! d = x₁ − x₂,  u = d/|d|,  w = ẋ₁ − ẋ₂
//! f₁ = −[k (|d| − L) + c (w·u)] u,   f₂ = −f₁,      V = ½ k (|d| − L)²
//! ```
//!
//! When the two ends coincide the axis is undefined and the spring exerts no force.
//!
//! Its Jacobian for the implicit steppers (see [`ForceJacobian`]) is, with the tension
//! `T = k (|d| − L) + c (w·u)`, `−∂f₁/∂x₁ = k u uᵀ + (T/|d|)(I − u uᵀ)` and `−∂f₁/∂ẋ₁ = c u uᵀ`,
//! in the pattern `[[A, −A], [−A, A]]` over the two ends. The transverse term is kept only in
//! tension (Choi and Ko 2002): compressed, it would make the Newton matrix indefinite.

use super::{Force, ForceContext, ForceJacobian, InvalidParameter};
use crate::draw::{Canvas, Element};
use crate::math::vector::{Vec3, dot, norm, sub};
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

    /// The axis `u` from the second end to the first, the length `|d|` and the tension
    /// `k (|d| − L) + c (w·u)` at the state `view` gives; `None` where the ends coincide.
    fn axis(&self, view: &View<'_>) -> Option<(Vec3, f64, f64)> {
        let d = sub(
            &view.position(&self.points[0]),
            &view.position(&self.points[1]),
        );
        let w = sub(
            &view.velocity(&self.points[0]),
            &view.velocity(&self.points[1]),
        );
        let len = norm(&d[..view.dim()]);
        if !(len > 0.0) {
            return None;
        }
        let u = d.map(|x| x / len);
        Some((
            u,
            len,
            self.stiffness * (len - self.rest_length) + self.damping * dot(&w, &u),
        ))
    }
}

impl Force for Spring {
    fn apply(&self, ctx: &mut ForceContext<'_>) {
        let Some((u, _, tension)) = self.axis(ctx.view()) else {
            return;
        };
        let f1 = u.map(|x| -tension * x);
        let f2 = u.map(|x| tension * x);
        ctx.add_force(&self.points[0], &f1);
        ctx.add_force(&self.points[1], &f2);
    }

    fn jacobian(&self, ctx: &mut ForceJacobian<'_>) {
        let dim = ctx.view().dim();
        let Some((u, len, tension)) = self.axis(ctx.view()) else {
            return;
        };
        let transverse = (tension / len).max(0.0);
        let size = 2 * dim;
        let (mut stiffness, mut damping) = (vec![0.0; size * size], vec![0.0; size * size]);
        for r in 0..dim {
            for c in 0..dim {
                let along = u[r] * u[c];
                let across = if r == c { 1.0 - along } else { -along };
                let k = self.stiffness * along + transverse * across;
                let d = self.damping * along;
                for (a, b, sign) in [(0, 0, 1.0), (0, 1, -1.0), (1, 0, -1.0), (1, 1, 1.0)] {
                    let at = (a * dim + r) * size + b * dim + c;
                    stiffness[at] = sign * k;
                    damping[at] = sign * d;
                }
            }
        }
        ctx.add_points(&self.points, &stiffness, &damping);
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
