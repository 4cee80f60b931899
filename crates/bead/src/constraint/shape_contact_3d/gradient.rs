//! A gap's derivatives over its points by dual numbers: its gradient, one seeded coordinate at a
//! time, for the gaps whose closed-form derivatives are long ([`super::rim`],
//! [`super::circle`]), and the points moving at their velocities, whose second part is `J̇ẋ`.

use crate::math::dual::Scalar;

/// The gradient of `f` at the `N` points `x`, each coordinate seeded in turn.
pub(super) fn seeded<const N: usize>(
    x: &[[f64; 3]; N],
    f: impl Fn(&[[Scalar; 3]; N]) -> Scalar,
) -> [[f64; 3]; N] {
    let mut gradient = [[0.0; 3]; N];
    for (i, row) in gradient.iter_mut().enumerate() {
        for (k, g) in row.iter_mut().enumerate() {
            let at: [[Scalar; 3]; N] = std::array::from_fn(|j| {
                std::array::from_fn(|m| {
                    let tangent = if (j, m) == (i, k) { 1.0 } else { 0.0 };
                    Scalar::new(x[j][m], tangent, 0.0)
                })
            });
            *g = f(&at).v1;
        }
    }
    gradient
}

/// The points `x` moving at the velocities `v`: a gap evaluated at them has `J̇ẋ` as its second
/// derivative.
pub(super) fn moving<const N: usize>(x: &[[f64; 3]; N], v: &[[f64; 3]; N]) -> [[Scalar; 3]; N] {
    std::array::from_fn(|i| std::array::from_fn(|k| Scalar::new(x[i][k], v[i][k], 0.0)))
}
