//! Constraints from one scalar function `C(x, t)`, differentiated by dual numbers (num-dual).
//!
//! A user writes only `C`; every derivative Witkin's method needs comes from second-order dual
//! numbers `a + b ε₁ + c ε₂` (num-dual's `Dual2`), exact to rounding:
//!
//! - gradient `∂C/∂x_i`: one pass per coordinate, seeded with the unit direction `e_i`;
//! - `Ċ` and `J̇ẋ`: one pass seeded with the direction `(ẋ, ṫ = 1)`, whose first-order part is
//!   `Ċ = ∇C·ẋ + ∂C/∂t` and second-order part the full second directional derivative
//!   `[ẋ; 1]ᵀ ∇²C [ẋ; 1]` — that is `ẋᵀ∇²C ẋ + 2 ẋ·∂²C/∂x∂t + ∂²C/∂t²`, exactly the `J̇ẋ` of
//!   [`crate::constraint`] (seed 003's `J̇q̇ + c_tt`, with the mixed term);
//! - `∂C/∂t = Ċ − ∇C·ẋ`.
//!
//! n + 1 evaluations of `C` for n coordinates (at most 7 for two 3D points and time), each on a
//! `Copy` scalar, no allocation inside `C`. The built-in constraints are hand-written for speed and
//! tested against this module on random states.

use std::fmt;

use crate::constraint::{Constraint, ConstraintError, ConstraintEval, ConstraintKind};
use crate::draw::Element;
use crate::point::{Operand, Point};

pub use crate::math::dual::{DualNum, Scalar};

type ScalarFn = dyn Fn(&[Scalar], Scalar) -> Scalar + Send + Sync;

/// A one-row constraint from a scalar function `C(x, t)` of its operands' coordinates.
///
/// `x` holds the operands' coordinates one after the other (for two 2D points:
/// `[x₁, y₁, x₂, y₂]`), `t` is time.
///
/// ```
/// use bead::autodiff::{Custom, DualNum};
/// use bead::{Particle, System};
///
/// let mut sys = System::new(2)?;
/// let p = sys.add_particle(Particle::new(&[2.0, 0.0]))?;
/// // A bead on the ellipse x²/4 + y² = 1: no derivative written by hand.
/// sys.add_constraint(Custom::new([p], |x, _t| x[0].powi(2) / 4.0 + x[1].powi(2) - 1.0))?;
/// # Ok::<(), bead::ModelError>(())
/// ```
pub struct Custom {
    operands: Vec<Operand>,
    c: Box<ScalarFn>,
    kind: ConstraintKind,
}

impl Custom {
    /// A constraint `c(x, t) = 0` on `operands`.
    pub fn new<O: Into<Operand>>(
        operands: impl IntoIterator<Item = O>,
        c: impl Fn(&[Scalar], Scalar) -> Scalar + Send + Sync + 'static,
    ) -> Self {
        Custom {
            operands: operands.into_iter().map(Into::into).collect(),
            c: Box::new(c),
            kind: ConstraintKind::Equality,
        }
    }

    /// The same function as an inequality `c(x, t) ≥ 0`: it takes part only when active, pushes
    /// (λ ≥ 0) and has impacts, like the built-in half-planes.
    ///
    /// ```
    /// use bead::autodiff::Custom;
    /// use bead::{force::Gravity, Particle, System};
    ///
    /// let mut sys = System::new(2)?;
    /// let p = sys.add_particle(Particle::new(&[0.0, 0.1]))?;
    /// // Inside the bowl y ≥ x²: the particle falls onto its bottom and stays there.
    /// sys.add_constraint(Custom::new([p], |x, _t| x[1] - x[0] * x[0]).inequality())?;
    /// sys.add_force(Gravity::new(&[0.0, -9.81]))?;
    /// for _ in 0..1000 {
    ///     sys.step(1e-3).unwrap();
    /// }
    /// assert!(sys.position(p)[1].abs() < 1e-6);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn inequality(mut self) -> Self {
        self.kind = ConstraintKind::Inequality;
        self
    }
}

impl Custom {
    /// For a function of one 2D point: polylines along the curve `c(x, t) = 0` near `from`,
    /// found by Newton from `from` onto the curve, then followed both ways by steps along the
    /// tangent, each corrected back onto the curve — at most 10 m each way, less where the curve
    /// closes on itself. Empty when `from` cannot be brought onto the curve.
    pub fn zero_curve(&self, from: [f64; 2], t: f64) -> Vec<Vec<[f64; 2]>> {
        const STEP: f64 = 0.02;
        const STEPS: usize = 500;
        // c and its gradient at x, from two dual passes.
        let c = |x: [f64; 2]| {
            let at = |d: [f64; 2]| {
                let args = [Scalar::new(x[0], d[0], 0.0), Scalar::new(x[1], d[1], 0.0)];
                (self.c)(&args, Scalar::from(t))
            };
            let (gx, gy) = (at([1.0, 0.0]), at([0.0, 1.0]));
            (gx.re, [gx.v1, gy.v1])
        };
        // Newton along the gradient onto c = 0.
        let project = |mut x: [f64; 2]| {
            for _ in 0..20 {
                let (value, g) = c(x);
                let g2 = g[0] * g[0] + g[1] * g[1];
                if !(g2 > 0.0 && value.is_finite() && g2.is_finite()) {
                    return None;
                }
                x = [x[0] - value * g[0] / g2, x[1] - value * g[1] / g2];
                if value.abs() < 1e-12 * (1.0 + g2.sqrt()) {
                    return Some(x);
                }
            }
            let (value, g) = c(x);
            (value.abs() <= 1e-6 * (1.0 + g[0].hypot(g[1]))).then_some(x)
        };
        let Some(start) = project(from) else {
            return Vec::new();
        };
        let mut pieces = Vec::new();
        for sense in [1.0, -1.0] {
            let mut piece = vec![start];
            let mut x = start;
            for k in 0..STEPS {
                let (_, g) = c(x);
                let norm = g[0].hypot(g[1]);
                if !(norm > 0.0) {
                    break;
                }
                let tangent = [-g[1] / norm * sense, g[0] / norm * sense];
                let Some(next) = project([x[0] + STEP * tangent[0], x[1] + STEP * tangent[1]])
                else {
                    break;
                };
                piece.push(next);
                x = next;
                // Closed: back at the start after going some way round.
                if k > 2 && (x[0] - start[0]).hypot(x[1] - start[1]) < 0.75 * STEP {
                    piece.push(start);
                    pieces.push(piece);
                    return pieces;
                }
            }
            pieces.push(piece);
        }
        pieces
    }
}

impl fmt::Debug for Custom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Custom")
            .field("operands", &self.operands)
            .field("kind", &self.kind)
            .finish_non_exhaustive()
    }
}

/// Most coordinates a custom constraint can take without allocating (three 3D points and time).
const INLINE: usize = 9;

impl Constraint for Custom {
    fn rows(&self, _dim: usize) -> usize {
        1
    }

    fn operands(&self) -> Vec<Operand> {
        self.operands.clone()
    }

    fn kind(&self) -> ConstraintKind {
        self.kind
    }

    /// One 2D point: the curve `c(x, t) = 0` it is held on (or kept on one side of), traced from
    /// the point's foot on it (see [`Custom::zero_curve`]). Several points: lines joining them,
    /// the way a rod is drawn, since a function of several points has no one picture.
    fn draw(&self, view: &crate::view::View<'_>, canvas: &mut dyn crate::draw::Canvas) {
        let points: Vec<Point> = self
            .operands
            .iter()
            .filter_map(|op| match op {
                Operand::Point(p) => Some(*p),
                Operand::Coordinates(_) => None,
            })
            .collect();
        if let ([p], 2) = (points.as_slice(), view.dim())
            && self.operands.len() == 1
        {
            let x = view.position(p);
            for piece in self.zero_curve([x[0], x[1]], view.time()) {
                for pair in piece.windows(2) {
                    canvas.line(
                        [pair[0][0], pair[0][1], 0.0],
                        [pair[1][0], pair[1][1], 0.0],
                        Element::Wire,
                    );
                }
            }
            return;
        }
        for pair in points.windows(2) {
            canvas.line(
                view.position(&pair[0]),
                view.position(&pair[1]),
                Element::Rod,
            );
        }
    }

    fn evaluate(&self, eval: &mut ConstraintEval<'_>) -> Result<(), ConstraintError> {
        let n = eval.offsets.last().copied().unwrap_or_default();
        let (x, v, t) = (eval.x, eval.v, eval.t);
        let mut inline = [Scalar::from(0.0); INLINE];
        let mut heap = Vec::new();
        let args: &mut [Scalar] = if n <= INLINE {
            &mut inline[..n]
        } else {
            heap.resize(n, Scalar::from(0.0));
            &mut heap
        };

        // Ċ and J̇ẋ: direction (ẋ, 1).
        for i in 0..n {
            args[i] = Scalar::new(x[i], v[i], 0.0);
        }
        let along = (self.c)(args, Scalar::new(t, 1.0, 0.0));
        let value = along.re;
        let mut gradient_dot_v = 0.0;

        // Gradient: one unit direction per coordinate; the operand's gradient slice is written
        // through set_gradient, so gather per operand.
        let mut g = [0.0; INLINE];
        let mut op = 0;
        for i in 0..n {
            for (j, a) in args.iter_mut().enumerate() {
                *a = Scalar::new(x[j], if i == j { 1.0 } else { 0.0 }, 0.0);
            }
            let gi = (self.c)(args, Scalar::from(t)).v1;
            gradient_dot_v += gi * v[i];
            while i >= eval.offsets[op + 1] {
                op += 1;
            }
            let local = i - eval.offsets[op];
            if local < INLINE {
                g[local] = gi;
            }
            if i + 1 == eval.offsets[op + 1] {
                let k = eval.offsets[op + 1] - eval.offsets[op];
                if k > INLINE {
                    return Err(ConstraintError::new(
                        "an operand with more than 9 coordinates",
                    ));
                }
                eval.set_gradient(0, op, &g[..k]);
            }
        }
        eval.set_value(0, value);
        eval.set_time_derivative(0, along.v1 - gradient_dot_v);
        eval.set_jdot_xdot(0, along.v2);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Particle, System};

    /// The drawn curve of a one-point constraint lies on `c = 0`: the whole ellipse, closed,
    /// from a point off it; an open piece of a wavy floor, 10 m each way.
    #[test]
    fn zero_curves_follow_the_constraint() {
        let mut sys = System::new(2).unwrap();
        let p = sys.add_particle(Particle::new(&[0.0, 0.0])).unwrap();
        let ellipse = Custom::new([p], |x, _t| x[0].powi(2) / 4.0 + x[1].powi(2) - 1.0);
        let pieces = ellipse.zero_curve([2.5, 0.3], 0.0);
        assert_eq!(pieces.len(), 1, "a closed curve is one piece");
        let curve = &pieces[0];
        assert_eq!(curve.first(), curve.last());
        let length: f64 = curve
            .windows(2)
            .map(|w| (w[1][0] - w[0][0]).hypot(w[1][1] - w[0][1]))
            .sum();
        // The ellipse with semi-axes 2 and 1 has perimeter 9.688.
        assert!((length - 9.688).abs() < 0.02, "length {length}");
        for x in curve {
            assert!(
                (x[0] * x[0] / 4.0 + x[1] * x[1] - 1.0).abs() < 1e-9,
                "{x:?}"
            );
        }
        let floor = Custom::new([p], |x, t| x[1] - (x[0] * 6.0).cos() * 0.05 + t);
        let pieces = floor.zero_curve([0.0, 1.0], 0.5);
        assert_eq!(pieces.len(), 2);
        for x in pieces.iter().flatten() {
            assert!((x[1] - (6.0 * x[0]).cos() * 0.05 + 0.5).abs() < 1e-9);
        }
        let reach = pieces[0].last().unwrap()[0] - pieces[1].last().unwrap()[0];
        assert!(reach.abs() > 7.0, "{reach}");
        // Nothing to draw where c has no zero.
        let nowhere = Custom::new([p], |x, _t| x[0].powi(2) + 1.0);
        assert!(nowhere.zero_curve([0.0, 0.0], 0.0).is_empty());
    }
}
