//! A hinge between two 3D rigid bodies: a revolute joint with an axis (seed 002's joints, in
//! space). The bodies share a pivot and an axis through it, and turn freely about that axis
//! alone.
//!
//! Written on five points, as a Tinkertoy would be built, so every row is the chain rule through
//! the points ([`crate::Point`]): the pivot `P_a` on body a and `P_b` on body b; `A_b`, one metre
//! along the axis from `P_b` on body b; and `E₁`, `E₂` on body a, one metre from `P_a` along two
//! directions across the axis:
//!
//! ```text
//! C₀..₂ = P_a − P_b                                  the pivots coincide (3 rows)
//! C₃    = (A_b − P_b) · (E₁ − P_a)                   b's axis has no part across a's
//! C₄    = (A_b − P_b) · (E₂ − P_a)                   (2 rows; sines of the misalignment, m²)
//! J̇ẋ₃  = 2 (Ȧ_b − Ṗ_b) · (Ė₁ − Ṗ_a),  and likewise C₄
//! ```
//!
//! The last two are bilinear in the points: their geometric stiffness is `w` times the identity
//! between the factors' points. λ₀..₂ is the force on body a at the pivot, N; λ₃, λ₄ hold the
//! axes together, and each body's reported reaction (`Jᵀλ`) gives the joint's whole force and
//! torque on it.

use super::dot_rows::{Chords, add_hessians, write_rows};
use super::{Constraint, ConstraintError, ConstraintEval, HessianEval, InvalidParameter};
use crate::draw::{Canvas, Element};
use crate::ids::BodyId;
use crate::math::vector::{normalized, orthonormal_pair, sub as diff};
use crate::point::{Operand, Point};
use crate::view::View;

/// A revolute joint between two 3D rigid bodies, about an axis.
///
/// ```
/// use bead::{constraint::Hinge, RigidBody3d, System};
/// let mut sys = System::new(3)?;
/// let a = sys.add_rigid_body_3d(RigidBody3d::new([0.0, 0.0, 0.0]))?;
/// let b = sys.add_rigid_body_3d(RigidBody3d::new([0.2, 0.0, 0.0]))?;
/// // Hinged about the world's z axis at x = 0.1, both bodies unturned.
/// sys.add_constraint(Hinge::new(a.body(), b.body(), ([0.1, 0.0, 0.0], [-0.1, 0.0, 0.0]), ([0.0, 0.0, 1.0], [0.0, 0.0, 1.0])))?;
/// assert!(sys.constraint_error().unwrap().0 < 1e-15);
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Hinge {
    /// `P_a, P_b, A_b, E₁, E₂`.
    points: [Point; 5],
    /// The axis in each body's frame, as given (for `check`).
    axes: [[f64; 3]; 2],
}

impl Hinge {
    /// A hinge between bodies `a` and `b` at the pivots `pivots` (each in its body's frame) about
    /// the axes `axes` (each in its body's frame; any nonzero length). The joint holds `b`'s
    /// axis along `a`'s and the pivots together.
    pub fn new(
        a: BodyId,
        b: BodyId,
        pivots: ([f64; 3], [f64; 3]),
        axes: ([f64; 3], [f64; 3]),
    ) -> Self {
        let unit = |v: [f64; 3]| normalized(&v).unwrap_or(v);
        let ub = unit(axes.1);
        let (e1, e2) = Hinge::across_axis(axes.0);
        let plus = |p: [f64; 3], d: [f64; 3]| [p[0] + d[0], p[1] + d[1], p[2] + d[2]];
        let (pa, pb) = pivots;
        Hinge {
            points: [
                Point::on_body_3d(a, pa),
                Point::on_body_3d(b, pb),
                Point::on_body_3d(b, plus(pb, ub)),
                Point::on_body_3d(a, plus(pa, e1)),
                Point::on_body_3d(a, plus(pa, e2)),
            ],
            axes: [axes.0, axes.1],
        }
    }

    /// The pivot on body a and on body b.
    pub fn pivots(&self) -> [Point; 2] {
        [self.points[0], self.points[1]]
    }

    /// Two unit vectors across `axis` (any nonzero length), with `e₁ × e₂` along it: the
    /// directions the hinge and its motor read a body's turn by.
    pub(crate) fn across_axis(axis: [f64; 3]) -> ([f64; 3], [f64; 3]) {
        orthonormal_pair(&normalized(&axis).unwrap_or([0.0, 0.0, 1.0]))
    }
}

/// Rows 3 and 4, `(A_b − P_b)·(E₁ − P_a)` and `(A_b − P_b)·(E₂ − P_a)`, over the points
/// `P_a, P_b, A_b, E₁, E₂`.
const AXIS_ROWS: [Chords; 2] = [Chords::new([2, 1], [3, 0]), Chords::new([2, 1], [4, 0])];

impl Constraint for Hinge {
    fn rows(&self, _dim: usize) -> usize {
        5
    }

    fn operands(&self) -> Vec<Operand> {
        self.points.iter().map(|&p| p.into()).collect()
    }

    fn check(&self, dim: usize) -> Result<(), InvalidParameter> {
        let (a, b) = (self.points[0].body(), self.points[1].body());
        super::check_pair(dim, 3, a, b, "a hinge")?;
        super::check_direction("axes[0]", &self.axes[0])?;
        super::check_direction("axes[1]", &self.axes[1])
    }

    /// The pivot, and the axis through it 5 cm either way (its point `A_b` is a metre out,
    /// which would dwarf a small mechanism).
    fn draw(&self, view: &View<'_>, canvas: &mut dyn Canvas) {
        let pivot = view.position(&self.points[1]);
        let along = diff(&view.position(&self.points[2]), &pivot);
        let end = |s: f64| [0, 1, 2].map(|k| pivot[k] + s * along[k]);
        canvas.marker(pivot, Element::Joint);
        canvas.line(end(-0.05), end(0.05), Element::Rod);
    }

    fn evaluate(&self, eval: &mut ConstraintEval<'_>) -> Result<(), ConstraintError> {
        super::revolute::coincide(eval);
        write_rows(eval, 5, 3, &AXIS_ROWS);
        Ok(())
    }

    fn weighted_hessian(
        &self,
        at: &HessianEval<'_>,
        weights: &[f64],
        hessian: &mut [f64],
    ) -> Result<(), ConstraintError> {
        add_hessians(at, weights, 3, &AXIS_ROWS, hessian);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::constraint::{evaluate_at, hessian_at, polarized_hessian};
    use crate::math::vector::dot;
    use crate::{RigidBody3d, System};

    fn hinge() -> Hinge {
        let mut sys = System::new(3).unwrap_or_else(|e| panic!("{e}"));
        let a = sys
            .add_rigid_body_3d(RigidBody3d::new([0.0; 3]))
            .unwrap_or_else(|e| panic!("{e}"));
        let b = sys
            .add_rigid_body_3d(RigidBody3d::new([1.0, 0.0, 0.0]))
            .unwrap_or_else(|e| panic!("{e}"));
        Hinge::new(
            a.body(),
            b.body(),
            ([0.5, 0.0, 0.0], [-0.5, 0.0, 0.0]),
            ([0.3, 0.4, 1.2], [0.3, 0.4, 1.2]),
        )
    }

    /// Five points somewhere, moving.
    const X: [f64; 15] = [
        0.1, 0.2, 0.3, 0.15, 0.1, 0.35, 0.4, 0.9, 1.1, 0.9, -0.2, 0.1, -0.3, 0.8, 0.5,
    ];
    const V: [f64; 15] = [
        0.5, -0.3, 0.2, 1.0, 0.4, -0.6, 0.3, 0.2, 0.1, -0.7, 0.5, 0.9, 0.2, -0.4, 0.6,
    ];

    /// The hand-written gradients and `J̇ẋ` against central differences of `C` along `ẋ`, and
    /// the hand-written Hessian against the polarization of `J̇ẋ`.
    #[test]
    fn derivatives_agree_with_differences_and_polarization() {
        let h = hinge();
        let e = evaluate_at(&h, 3, 0.0, &X, &V).unwrap_or_else(|e| panic!("{e}"));
        let eps = 1e-5;
        let at = |s: f64| {
            let x: Vec<f64> = X.iter().zip(&V).map(|(x, v)| x + s * v).collect();
            evaluate_at(&h, 3, 0.0, &x, &V)
                .unwrap_or_else(|e| panic!("{e}"))
                .c
        };
        let (plus, minus) = (at(eps), at(-eps));
        for r in 0..5 {
            let rate = (plus[r] - minus[r]) / (2.0 * eps);
            assert!((rate - e.c_dot[r]).abs() < 1e-8, "row {r}");
            let second = (plus[r] - 2.0 * e.c[r] + minus[r]) / (eps * eps);
            assert!(
                (second - e.jdot_xdot[r]).abs() < 1e-4,
                "row {r}: {second} vs {}",
                e.jdot_xdot[r]
            );
        }
        let weights = [0.3, -1.2, 0.7, 2.0, -0.6];
        let hand = hessian_at(&h, 3, 0.0, &X, &weights).unwrap_or_else(|e| panic!("{e}"));
        let offsets: Vec<usize> = (0..=5).map(|k| 3 * k).collect();
        let eval = HessianEval {
            t: 0.0,
            dim: 3,
            offsets: &offsets,
            x: &X,
            start: None,
        };
        let mut polar = vec![0.0; 225];
        polarized_hessian(&h, &eval, &weights, &mut polar).unwrap_or_else(|e| panic!("{e}"));
        for (a, b) in hand.iter().zip(&polar) {
            assert!((a - b).abs() < 1e-9, "{a} vs {b}");
        }
    }

    /// The two directions across an axis are unit, perpendicular and right-handed.
    #[test]
    fn directions_across_an_axis_are_a_frame() {
        for u in [
            [0.0, 0.0, 1.0],
            [1.0, 0.0, 0.0],
            [0.6, 0.0, 0.8],
            [0.48, 0.6, 0.64],
        ] {
            let (e1, e2) = Hinge::across_axis(u);
            assert!((dot(&e1, &e1) - 1.0).abs() < 1e-15 && (dot(&e2, &e2) - 1.0).abs() < 1e-15);
            assert!(dot(&e1, &u).abs() < 1e-15 && dot(&e2, &u).abs() < 1e-15);
            let c = [
                e1[1] * e2[2] - e1[2] * e2[1],
                e1[2] * e2[0] - e1[0] * e2[2],
                e1[0] * e2[1] - e1[1] * e2[0],
            ];
            assert!(c.iter().zip(&u).all(|(a, b)| (a - b).abs() < 1e-15));
        }
    }
}
