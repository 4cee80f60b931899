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

use num_dual::Dual2_64;

use crate::constraint::{Constraint, ConstraintError, ConstraintEval};
use crate::point::Operand;

/// The scalar type a custom constraint function is written in: a second-order dual number.
/// Arithmetic with `f64` constants mixes in directly (`x[0] * 2.0 - 1.0`); functions such as
/// `sqrt`, `sin`, `powi` come from the [`DualNum`] trait.
pub type Scalar = Dual2_64;

pub use num_dual::DualNum;

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
        }
    }
}

impl fmt::Debug for Custom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Custom")
            .field("operands", &self.operands)
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
            args[i] = Dual2_64::new(x[i], v[i], 0.0);
        }
        let along = (self.c)(args, Dual2_64::new(t, 1.0, 0.0));
        let value = along.re;
        let mut gradient_dot_v = 0.0;

        // Gradient: one unit direction per coordinate; the operand's gradient slice is written
        // through set_gradient, so gather per operand.
        let mut g = [0.0; INLINE];
        let mut op = 0;
        for i in 0..n {
            for (j, a) in args.iter_mut().enumerate() {
                *a = Dual2_64::new(x[j], if i == j { 1.0 } else { 0.0 }, 0.0);
            }
            let gi = (self.c)(args, Dual2_64::from(t)).v1;
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
