//! The rows 3D joints are built from: the dot product of two chords between body points,
//! `(x_i − x_j) · (x_k − x_l)`, and the angle `atan2(s, c)` of two sums of them.
//!
//! A body's directions enter as chords from its centre to a point one metre away, so every row
//! is the chain rule through the points ([`crate::Point`]), as a Tinkertoy is built (seed 000
//! §4); only the dot products are written here. For a dot row
//!
//! ```text
//! C    = (x_i − x_j) · (x_k − x_l)
//! ∂C   = (x_k − x_l) on x_i, −(…) on x_j,  (x_i − x_j) on x_k, −(…) on x_l
//! J̇ẋ  = 2 (ẋ_i − ẋ_j) · (ẋ_k − ẋ_l)
//! ∂²C  = ±I between a point of the left chord and one of the right
//! ```
//!
//! and for an angle `φ = atan2(s, c)` of two sums of dot rows, with `r² = s² + c²`,
//! `φ̇ = (c ṡ − s ċ)/r²` and `J̇ẋ = (c s̈ − s c̈)/r² − 2 (c ṡ − s ċ)(c ċ + s ṡ)/r⁴`.

use super::{ConstraintEval, HessianEval};
use crate::math::vector::{dot, sub as diff};

/// `(x_i − x_j) · (x_k − x_l)` over four of a constraint's 3D point operands, `[i, j]` and
/// `[k, l]`; a sum of them is a `&[(f64, Chords)]` of signed terms.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Chords {
    pub(crate) left: [usize; 2],
    pub(crate) right: [usize; 2],
}

/// The most point operands a constraint built of chords has (a cone limit with its twist):
/// the rows' gradients live in arrays of this size, not on the heap, since every 3D joint
/// evaluates them at every assembly.
const MAX_POINTS: usize = 8;

/// A sum of signed dot rows at a state: its value, its rate and its `J̇ẋ`, with the gradient on
/// each of its `operands` (3 per operand) accumulated, since one point may sit in several
/// chords.
pub(crate) struct DotSum {
    pub(crate) value: f64,
    pub(crate) rate: f64,
    pub(crate) jdot: f64,
    operands: usize,
    gradient: [[f64; 3]; MAX_POINTS],
}

impl Chords {
    /// `[i, j]` dotted with `[k, l]`.
    pub(crate) const fn new(left: [usize; 2], right: [usize; 2]) -> Self {
        Chords { left, right }
    }

    fn chord(eval: &ConstraintEval<'_>, [i, j]: [usize; 2]) -> ([f64; 3], [f64; 3]) {
        (diff(eval.x(i), eval.x(j)), diff(eval.v(i), eval.v(j)))
    }

    /// Adds `w ∂²C/∂x∂x` into `hessian` (`at.len()` square, row-major).
    pub(crate) fn add_hessian(&self, at: &HessianEval<'_>, w: f64, hessian: &mut [f64]) {
        let n = at.len();
        let [i, j] = self.left;
        let [k, l] = self.right;
        for (p, q, sign) in [(i, k, 1.0), (j, l, 1.0), (i, l, -1.0), (j, k, -1.0)] {
            let (op, oq) = (at.offset(p), at.offset(q));
            // A plane's points have two coordinates (a 2D slider's travel).
            for d in 0..at.dim {
                hessian[(op + d) * n + oq + d] += sign * w;
                hessian[(oq + d) * n + op + d] += sign * w;
            }
        }
    }
}

impl DotSum {
    /// `Σ sign · chords` at `eval`'s state, over a constraint of `operands` 3D points (at most
    /// [`MAX_POINTS`]).
    pub(crate) fn at(eval: &ConstraintEval<'_>, operands: usize, terms: &[(f64, Chords)]) -> Self {
        let mut sum = DotSum {
            value: 0.0,
            rate: 0.0,
            jdot: 0.0,
            operands,
            gradient: [[0.0; 3]; MAX_POINTS],
        };
        for &(sign, chords) in terms {
            let (a, a_rate) = Chords::chord(eval, chords.left);
            let (b, b_rate) = Chords::chord(eval, chords.right);
            sum.value += sign * dot(&a, &b);
            sum.rate += sign * (dot(&a_rate, &b) + dot(&a, &b_rate));
            sum.jdot += sign * 2.0 * dot(&a_rate, &b_rate);
            for (points, along) in [(chords.left, b), (chords.right, a)] {
                for (point, s) in points.into_iter().zip([sign, -sign]) {
                    for d in 0..3 {
                        sum.gradient[point][d] += s * along[d];
                    }
                }
            }
        }
        sum
    }

    /// Writes this sum plus `offset` as row `row` of `eval`.
    pub(crate) fn write(&self, eval: &mut ConstraintEval<'_>, row: usize, offset: f64) {
        eval.set_value(row, self.value + offset);
        eval.set_jdot_xdot(row, self.jdot);
        // A plane's points have two coordinates (a 2D slider's travel).
        let dim = eval.dim();
        for (operand, g) in self.gradient[..self.operands].iter().enumerate() {
            eval.set_gradient(row, operand, &g[..dim]);
        }
    }
}

/// Writes `rows[k]` as row `first + k` of a constraint of `operands` 3D point operands.
pub(crate) fn write_rows(
    eval: &mut ConstraintEval<'_>,
    operands: usize,
    first: usize,
    rows: &[Chords],
) {
    for (k, &chords) in rows.iter().enumerate() {
        DotSum::at(eval, operands, &[(1.0, chords)]).write(eval, first + k, 0.0);
    }
}

/// Adds `Σ_k w_{first+k} ∂²C/∂x∂x` of `rows[k]` into `hessian`.
pub(crate) fn add_hessians(
    at: &HessianEval<'_>,
    weights: &[f64],
    first: usize,
    rows: &[Chords],
    hessian: &mut [f64],
) {
    for (k, chords) in rows.iter().enumerate() {
        chords.add_hessian(at, weights[first + k], hessian);
    }
}

/// The angle `φ = atan2(s, c)`, its rate, its `J̇ẋ` and its gradient on each operand: `None`
/// where `s = c = 0`, at which it has no direction.
pub(crate) struct ChordAngle {
    pub(crate) value: f64,
    pub(crate) jdot: f64,
    operands: usize,
    gradient: [[f64; 3]; MAX_POINTS],
}

impl ChordAngle {
    /// `atan2(s, c)` of two dot sums.
    pub(crate) fn of(s: &DotSum, c: &DotSum) -> Option<Self> {
        let r2 = s.value * s.value + c.value * c.value;
        if !(r2 > 1e-24) {
            return None;
        }
        let turn = c.value * s.rate - s.value * c.rate;
        let stretch = c.value * c.rate + s.value * s.rate;
        let jdot = (c.value * s.jdot - s.value * c.jdot) / r2 - 2.0 * turn * stretch / (r2 * r2);
        let gradient = std::array::from_fn(|k| {
            let (gs, gc) = (s.gradient[k], c.gradient[k]);
            [0, 1, 2].map(|d| (c.value * gs[d] - s.value * gc[d]) / r2)
        });
        Some(ChordAngle {
            value: s.value.atan2(c.value),
            jdot,
            operands: s.operands,
            gradient,
        })
    }

    /// Writes `sign · (φ + offset)` as row `row` of `eval`.
    pub(crate) fn write(&self, eval: &mut ConstraintEval<'_>, row: usize, sign: f64, offset: f64) {
        eval.set_value(row, sign * (self.value + offset));
        eval.set_jdot_xdot(row, sign * self.jdot);
        for (operand, g) in self.gradient[..self.operands].iter().enumerate() {
            eval.set_gradient(row, operand, &g.map(|x| sign * x));
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use crate::constraint::{
        ConeLimit, Constraint, HessianEval, HingeLimit, Prismatic3d, SliderLimit, SliderMotor,
        Weld3d, evaluate_at, hessian_at, polarized_hessian,
    };
    use crate::{BodyId, RigidBody3d, System};

    /// Two free 3D bodies of a system, for constraints to be built on.
    pub(in crate::constraint) fn bodies() -> (BodyId, BodyId) {
        let mut sys = System::new(3).unwrap_or_else(|e| panic!("{e}"));
        let mut add = |x: [f64; 3]| {
            sys.add_rigid_body_3d(RigidBody3d::new(x))
                .unwrap_or_else(|e| panic!("{e}"))
                .body()
        };
        (add([0.0; 3]), add([1.0, 0.0, 0.0]))
    }

    /// Points somewhere, moving: a deterministic scatter of `n` 3D points.
    fn scatter(n: usize, seed: f64) -> Vec<f64> {
        (0..3 * n)
            .map(|k| (seed * (k as f64 + 1.0) * 1.618_033_988_75).sin())
            .collect()
    }

    /// The gradients and `J̇ẋ` against central differences of `C` along `ẋ`, and the weighted
    /// Hessian (hand-written or not) against the polarization of `J̇ẋ`.
    pub(in crate::constraint) fn check(c: &dyn Constraint, x: &[f64], v: &[f64]) {
        let rows = c.rows(3);
        let e = evaluate_at(c, 3, 0.0, x, v).unwrap_or_else(|e| panic!("{e}"));
        let eps = 1e-5;
        let at = |s: f64| {
            let x: Vec<f64> = x.iter().zip(v).map(|(x, v)| x + s * v).collect();
            evaluate_at(c, 3, 0.0, &x, v)
                .unwrap_or_else(|e| panic!("{e}"))
                .c
        };
        let (plus, minus) = (at(eps), at(-eps));
        for r in 0..rows {
            let rate = (plus[r] - minus[r]) / (2.0 * eps);
            assert!(
                (rate - e.c_dot[r]).abs() < 1e-8,
                "{c:?} row {r}: {rate} vs {}",
                e.c_dot[r]
            );
            let second = (plus[r] - 2.0 * e.c[r] + minus[r]) / (eps * eps);
            assert!(
                (second - e.jdot_xdot[r]).abs() < 2e-4 * (1.0 + second.abs()),
                "{c:?} row {r}: {second} vs {}",
                e.jdot_xdot[r]
            );
        }
        let weights: Vec<f64> = (0..rows).map(|r| 0.7 - 0.45 * r as f64).collect();
        let hand = hessian_at(c, 3, 0.0, x, &weights).unwrap_or_else(|e| panic!("{e}"));
        let offsets: Vec<usize> = (0..=x.len() / 3).map(|k| 3 * k).collect();
        let eval = HessianEval {
            t: 0.0,
            dim: 3,
            offsets: &offsets,
            x,
            start: None,
        };
        let mut polar = vec![0.0; x.len() * x.len()];
        polarized_hessian(c, &eval, &weights, &mut polar).unwrap_or_else(|e| panic!("{e}"));
        for (a, b) in hand.iter().zip(&polar) {
            assert!((a - b).abs() < 1e-8, "{c:?}: {a} vs {b}");
        }
    }

    #[test]
    fn weld_and_slider_rows_agree_with_differences_and_polarization() {
        let (a, b) = bodies();
        let q = [0.9, 0.1, -0.3, 0.2];
        let weld = Weld3d::new(a, b, ([0.1, 0.2, 0.0], [-0.3, 0.0, 0.1]), q);
        check(&weld, &scatter(6, 0.7), &scatter(6, 1.3));
        let slider = Prismatic3d::new(a, b, ([0.1, 0.2, 0.0], [0.0; 3]), [0.3, -0.4, 1.0], q);
        check(&slider, &scatter(6, 0.4), &scatter(6, 2.1));
    }

    #[test]
    fn limit_rows_agree_with_differences_and_polarization() {
        let (a, b) = bodies();
        let axes = ([0.2, 0.3, 1.0], [0.0, -0.4, 1.0]);
        let hinge = HingeLimit::new(a, b, axes, -0.4, 1.1);
        check(&hinge, &scatter(6, 0.9), &scatter(6, 1.7));
        let cone = ConeLimit::new(a, b, axes, 0.6);
        check(&cone, &scatter(4, 0.3), &scatter(4, 1.1));
        let cone = ConeLimit::new(a, b, axes, 0.6).twist(-2.0, 0.5);
        check(&cone, &scatter(8, 0.55), &scatter(8, 1.9));
    }

    #[test]
    fn slider_travel_rows_agree_with_differences_and_polarization() {
        let (a, b) = bodies();
        let pivots = ([0.1, 0.2, 0.0], [0.0, -0.1, 0.3]);
        let axis = [0.3, -0.4, 1.0];
        let limit = SliderLimit::new(a, b, pivots, axis, -0.4, 0.7);
        let (x, v) = (scatter(3, 0.45), scatter(3, 1.6));
        check(&limit, &x, &v);
        // The motor's row is the travel's rate less its speed, with the travel's J̇ẋ.
        let motor = SliderMotor::new(a, b, pivots, axis, 0.25);
        let travel = evaluate_at(&limit, 3, 0.0, &x, &v).unwrap_or_else(|e| panic!("{e}"));
        let drive = evaluate_at(&motor, 3, 0.0, &x, &v).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(drive.c[0], 0.0);
        assert!((drive.c_dot[0] - (travel.c_dot[0] - 0.25)).abs() < 1e-12);
        assert!((drive.jdot_xdot[0] - travel.jdot_xdot[0]).abs() < 1e-12);
    }
}
