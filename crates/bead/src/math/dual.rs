//! The scalar of automatic differentiation: a second-order dual number `a + b ε₁ + c ε₂`
//! (num-dual's `Dual2`), in which parametric objects write their points `x(u, t)` and custom
//! constraints their `C(x, t)`; one pass gives a value with its first and second directional
//! derivatives, exact to rounding.

use num_dual::Dual2_64;

/// The scalar type a custom constraint function or a parametric object's point is written in:
/// a second-order dual number. Arithmetic with `f64` constants mixes in directly
/// (`x[0] * 2.0 - 1.0`); functions such as `sqrt`, `sin`, `powi` come from [`DualNum`].
///
/// ```
/// use bead::autodiff::{DualNum, Scalar};
/// // x² at x = 3 in the direction 1: value 9, first derivative 6, second 2.
/// let x = Scalar::new(3.0, 1.0, 0.0);
/// let y = x.powi(2);
/// assert_eq!((y.re, y.v1, y.v2), (9.0, 6.0, 2.0));
/// ```
pub type Scalar = Dual2_64;

pub use num_dual::DualNum;
