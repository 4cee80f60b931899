//! Distance: a rigid rod of length L between two points (seed 000 §4, seed 002).
//!
//! ```text
//! d = x₁ − x₂,  u = d / |d|,  w = ẋ₁ − ẋ₂
//! C   = |d| − L
//! Ċ   = u·w                          ∂C/∂x₁ = uᵀ,  ∂C/∂x₂ = −uᵀ
//! J̇ẋ  = (|w|² − (u·w)²) / |d|        (the rate of turn of u, projected on w)
//! ∂²C/∂x₁² = (I − u uᵀ) / |d| = −∂²C/∂x₁∂x₂   (the geometric stiffness: a rod resists turning)
//! ```
//!
//! The gradient has unit length, so λ is the rod's force in newtons: the rod pushes x₁ by `λ u`
//! and x₂ by `−λ u`. **λ < 0 is tension** (the rod pulls its ends together), λ > 0 compression.

use super::{Constraint, ConstraintError, ConstraintEval, InvalidParameter, Separation};
use crate::draw::{Canvas, Element};
use crate::math::vector::{Vec3, dot, norm, sub};
use crate::point::{Operand, Point};
use crate::view::View;

/// A rigid rod between two points.
///
/// ```
/// use bead::{constraint::Distance, Particle, System};
/// let mut sys = System::new(2)?;
/// let a = sys.add_particle(Particle::anchor(&[0.0, 0.0]))?;
/// let b = sys.add_particle(Particle::new(&[1.0, 0.0]))?;
/// sys.add_constraint(Distance::new(a, b, 1.0))?;
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Distance {
    points: [Point; 2],
    length: f64,
}

impl Distance {
    /// A rod of `length` metres between `a` and `b`.
    pub fn new(a: impl Into<Point>, b: impl Into<Point>, length: f64) -> Self {
        Distance {
            points: [a.into(), b.into()],
            length,
        }
    }

    /// Rest length, in metres.
    pub fn length(&self) -> f64 {
        self.length
    }

    /// Changes the rest length, in metres (the feedback term then pulls the rod to it).
    pub fn set_length(&mut self, length: f64) {
        self.length = length;
    }

    /// The two ends.
    pub fn points(&self) -> [Point; 2] {
        self.points
    }
}

impl Constraint for Distance {
    fn rows(&self, _dim: usize) -> usize {
        1
    }

    fn operands(&self) -> Vec<Operand> {
        self.points.iter().map(|&p| p.into()).collect()
    }

    fn check(&self, _dim: usize) -> Result<(), InvalidParameter> {
        InvalidParameter::check_positive("length", self.length)
            .map_err(|e| e.hint("a rod needs a positive length; to join two points use a nail"))?;
        if self.points[0] == self.points[1] {
            return Err(InvalidParameter::new(
                "between",
                "a rod needs two different points",
            ));
        }
        Ok(())
    }

    fn draw(&self, view: &View<'_>, canvas: &mut dyn Canvas) {
        canvas.line(
            view.position(&self.points[0]),
            view.position(&self.points[1]),
            Element::Rod,
        );
    }

    fn separation(&self) -> Option<Separation> {
        Some(Separation {
            length: self.length,
            sign: 1.0,
        })
    }

    fn evaluate(&self, eval: &mut ConstraintEval<'_>) -> Result<(), ConstraintError> {
        separation_row(eval, self.length, 1.0)
    }

    fn weighted_hessian(
        &self,
        at: &super::HessianEval<'_>,
        weights: &[f64],
        hessian: &mut [f64],
    ) -> Result<(), ConstraintError> {
        separation_hessian(at, weights[0], hessian)
    }
}

/// `sign · (|x₀ − x₁| − length)` of two points at an instant: what a [`Separation`]'s row is.
///
/// [`Separation`]: super::Separation
#[derive(Clone, Copy, Debug)]
pub(crate) struct SeparationRow {
    /// `C`.
    pub(crate) value: f64,
    /// `∂C/∂x₀ = sign · u` (`∂C/∂x₁` is its negative); zero past the dimension.
    pub(crate) gradient: Vec3,
    /// `J̇ẋ`.
    pub(crate) jdot_xdot: f64,
}

/// The row of `sign · (|x₀ − x₁| − length)` at positions `x₀, x₁` and velocities `v₀, v₁` (all
/// of the system's dimension): shared by the constraints that are separations and by the
/// evaluator's loop over those between particles, so both compute the same numbers.
#[inline(always)]
pub(crate) fn separation(
    x: [&[f64]; 2],
    v: [&[f64]; 2],
    length: f64,
    sign: f64,
) -> Result<SeparationRow, ConstraintError> {
    let dim = x[0].len();
    let d = sub(x[0], x[1]);
    let w = sub(v[0], v[1]);
    let len = norm(&d[..dim]);
    if !(len > 0.0) {
        return Err(ConstraintError::new(
            "the two points coincide: the direction between them is undefined",
        ));
    }
    // One division: a chain or cloth evaluates this for every rod at every Newton iteration,
    // and the square root and divisions are most of its time.
    let inv = 1.0 / len;
    let gradient: Vec3 = std::array::from_fn(|i| sign * d[i] * inv);
    let uw = dot(&gradient, &w);
    Ok(SeparationRow {
        value: sign * (len - length),
        gradient,
        jdot_xdot: sign * (dot(&w, &w) - uw * uw) * inv,
    })
}

/// The row of a contact between two points held along the normal `n₀` they had at the step's
/// start `s₀, s₁` (see [`ConstraintEval::step_start`](super::ConstraintEval::step_start)):
/// `n₀·(x₀ − x₁) − length`, linear in the points, so `J̇ẋ = 0`; never above the true gap
/// `|x₀ − x₁| − length`.
#[inline(always)]
pub(crate) fn separation_along(
    x: [&[f64]; 2],
    start: [&[f64]; 2],
    length: f64,
) -> Result<SeparationRow, ConstraintError> {
    let dim = x[0].len();
    let d0 = sub(start[0], start[1]);
    let len = norm(&d0[..dim]);
    if !(len > 0.0) {
        return Err(ConstraintError::new(
            "the two points coincided at the step's start: the contact has no normal",
        ));
    }
    let inv = 1.0 / len;
    let gradient: Vec3 = std::array::from_fn(|i| d0[i] * inv);
    let d = sub(x[0], x[1]);
    Ok(SeparationRow {
        value: dot(&gradient, &d) - length,
        gradient,
        jdot_xdot: 0.0,
    })
}

/// Writes row 0 as `sign · (|x₀ − x₁| − length)` (shared with the contact constraints: a
/// non-penetration is `+`, a rope `−`).
pub(super) fn separation_row(
    eval: &mut ConstraintEval<'_>,
    length: f64,
    sign: f64,
) -> Result<(), ConstraintError> {
    let dim = eval.dim();
    let row = separation([eval.x(0), eval.x(1)], [eval.v(0), eval.v(1)], length, sign)?;
    write_row(eval, dim, row);
    Ok(())
}

/// Writes row 0 of a contact between two points: [`separation_row`] with sign `+`, or, where
/// the stepper holds contacts along their normals at the step's start, [`separation_along`].
pub(super) fn contact_row(
    eval: &mut ConstraintEval<'_>,
    length: f64,
) -> Result<(), ConstraintError> {
    let dim = eval.dim();
    let row = match (eval.step_start(0), eval.step_start(1)) {
        (Some(s0), Some(s1)) => separation_along([eval.x(0), eval.x(1)], [s0, s1], length)?,
        _ => separation([eval.x(0), eval.x(1)], [eval.v(0), eval.v(1)], length, 1.0)?,
    };
    write_row(eval, dim, row);
    Ok(())
}

fn write_row(eval: &mut ConstraintEval<'_>, dim: usize, row: SeparationRow) {
    eval.set_value(0, row.value);
    eval.set_gradient(0, 0, &row.gradient[..dim]);
    eval.set_gradient(0, 1, &row.gradient.map(|x| -x)[..dim]);
    eval.set_jdot_xdot(0, row.jdot_xdot);
}

/// Adds `w ∂²C/∂x²` of [`separation_row`] (either sign: `|d|` is curved the same way) into
/// `hessian`: `[[A, −A], [−A, A]]` with `A = w (I − u uᵀ) / |d|`.
pub(super) fn separation_hessian(
    at: &super::HessianEval<'_>,
    weight: f64,
    hessian: &mut [f64],
) -> Result<(), ConstraintError> {
    add_separation_hessian([at.x(0), at.x(1)], weight, hessian)
}

/// [`separation_hessian`] at the two points `x₀, x₁` (of the system's dimension), into the
/// row-major `2 dim × 2 dim` `hessian`.
pub(crate) fn add_separation_hessian(
    x: [&[f64]; 2],
    weight: f64,
    hessian: &mut [f64],
) -> Result<(), ConstraintError> {
    let dim = x[0].len();
    let d = sub(x[0], x[1]);
    let len = norm(&d[..dim]);
    if !(len > 0.0) {
        return Err(ConstraintError::new(
            "the two points coincide: the direction between them is undefined",
        ));
    }
    let n = 2 * dim;
    // A cloth's factorization computes this for every rod: one division, not two per entry.
    let inv = 1.0 / len;
    let u = d.map(|x| x * inv);
    let scale = weight * inv;
    for i in 0..dim {
        for j in 0..dim {
            let identity = if i == j { 1.0 } else { 0.0 };
            let a = scale * (identity - u[i] * u[j]);
            hessian[i * n + j] += a;
            hessian[(i + dim) * n + j + dim] += a;
            hessian[i * n + j + dim] -= a;
            hessian[(i + dim) * n + j] -= a;
        }
    }
    Ok(())
}
