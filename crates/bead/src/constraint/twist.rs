//! The twist of body b about an axis relative to body a, kept within `[min, max]`: the angle a
//! hinge's limit stops, and the twist part of a ball joint's cone-twist limit.
//!
//! Each body carries a frame across its axis, `(e₁, e₂, u)` on a and `(f₁, f₂, u_b)` on b,
//! which coincide where the twist is zero. With `R` the turn of b's frame against a's, the twist
//! of the swing–twist decomposition `R = R_swing R_twist(u)` is, for any swing short of a half
//! turn,
//!
//! ```text
//! ψ = atan2(e₂·f₁ − e₁·f₂, e₁·f₁ + e₂·f₂)
//! ```
//!
//! (from `R = (w² − v·v) I + 2 v vᵀ + 2 w [v]×`: the two sums are `4 w v_u` and
//! `2 (w² − v_u²)`, whose angle is `2 atan2(v_u, w)`). On a hinge, where `u_b = u`, it is the
//! hinge's angle. a's frame is turned by the middle of the range `m = (min + max)/2` before the
//! angle is read, so that `atan2` is never near its cut and any range short of a whole turn
//! works: the rows are
//!
//! ```text
//! g₀ = (ψ − m) + h ≥ 0,   g₁ = h − (ψ − m) ≥ 0,    h = (max − min)/2
//! ```
//!
//! each a [`ChordAngle`] of chords between points one metre from the bodies' centres. λ ≥ 0 is
//! the stop's torque about the axis, N·m.

use super::dot_rows::{ChordAngle, Chords, DotSum};
use super::{ConstraintError, ConstraintEval, InvalidParameter};
use crate::ids::BodyId;
use crate::math::vector::{cross, dot, normalized, orthonormal_pair};
use crate::point::Point;

/// The frames a twist is read from, and its range.
#[derive(Clone, Debug)]
pub(crate) struct Twist {
    /// `O_a, E₁, E₂` on a (a's frame turned by the range's middle), `O_b, F₁, F₂` on b.
    pub(crate) points: [Point; 6],
    range: [f64; 2],
    /// The axes and references as given, for `check`.
    given: [[f64; 3]; 4],
}

impl Twist {
    /// The twist of `b` against `a` about `axes` (each in its body's frame), zero where the
    /// directions `references` (each in its body's frame, across its axis) coincide.
    pub(crate) fn new(
        a: BodyId,
        b: BodyId,
        axes: ([f64; 3], [f64; 3]),
        references: ([f64; 3], [f64; 3]),
        range: [f64; 2],
    ) -> Self {
        let (e1, e2) = across(axes.0, references.0);
        let (f1, f2) = across(axes.1, references.1);
        let middle = 0.5 * (range[0] + range[1]);
        let (c, s) = (middle.cos(), middle.sin());
        let turned1 = [0, 1, 2].map(|k| c * e1[k] + s * e2[k]);
        let turned2 = [0, 1, 2].map(|k| -s * e1[k] + c * e2[k]);
        Twist {
            points: [
                Point::on_body_3d(a, [0.0; 3]),
                Point::on_body_3d(a, turned1),
                Point::on_body_3d(a, turned2),
                Point::on_body_3d(b, [0.0; 3]),
                Point::on_body_3d(b, f1),
                Point::on_body_3d(b, f2),
            ],
            range,
            given: [axes.0, axes.1, references.0, references.1],
        }
    }

    /// The range, `[min, max]`.
    pub(crate) fn range(&self) -> [f64; 2] {
        self.range
    }

    /// The directions across `axis` that [`Twist::new`] takes as zero when none are given.
    pub(crate) fn default_reference(axis: [f64; 3]) -> [f64; 3] {
        orthonormal_pair(&normalized(&axis).unwrap_or([0.0, 0.0, 1.0])).0
    }

    /// Checks the axes, the references and the range, `range` naming the parameter that gave
    /// it.
    pub(crate) fn check(&self, range: &str) -> Result<(), InvalidParameter> {
        let names = ["axes[0]", "axes[1]", "references[0]", "references[1]"];
        for (name, v) in names.iter().zip(&self.given) {
            super::check_direction(name, v)?;
        }
        for k in 0..2 {
            let (axis, reference) = (self.given[k], self.given[k + 2]);
            let sine = dot(&cross(&axis, &reference), &cross(&axis, &reference)).sqrt()
                / (dot(&axis, &axis) * dot(&reference, &reference)).sqrt();
            if !(sine > 1e-6) {
                return Err(InvalidParameter::new(
                    names[k + 2],
                    format!("must point across axes[{k}], got {reference:?} along it"),
                ));
            }
        }
        let [min, max] = self.range;
        InvalidParameter::check_finite(range, min)?;
        InvalidParameter::check_finite(range, max)?;
        if !(min <= max && max - min < 2.0 * std::f64::consts::PI) {
            return Err(InvalidParameter::new(
                range,
                format!("the range [{min}, {max}] must have min ≤ max and be shorter than 2π"),
            ));
        }
        Ok(())
    }

    /// Writes the two rows at `row`, `row + 1`, the six points being operands `operands`
    /// (`O_a, E₁, E₂, O_b, F₁, F₂`) of a constraint of `count` point operands.
    pub(crate) fn evaluate(
        &self,
        eval: &mut ConstraintEval<'_>,
        operands: [usize; 6],
        count: usize,
        row: usize,
    ) -> Result<(), ConstraintError> {
        let [oa, e1, e2, ob, f1, f2] = operands;
        let (e1, e2, f1, f2) = ([e1, oa], [e2, oa], [f1, ob], [f2, ob]);
        let s = DotSum::at(
            eval,
            count,
            &[(1.0, Chords::new(e2, f1)), (-1.0, Chords::new(e1, f2))],
        );
        let c = DotSum::at(
            eval,
            count,
            &[(1.0, Chords::new(e1, f1)), (1.0, Chords::new(e2, f2))],
        );
        let angle = ChordAngle::of(&s, &c).ok_or_else(|| {
            ConstraintError::new(
                "the twist has no direction: b's axis is turned half a turn from a's",
            )
        })?;
        let half = 0.5 * (self.range[1] - self.range[0]);
        angle.write(eval, row, 1.0, half);
        angle.write(eval, row + 1, -1.0, -half);
        Ok(())
    }
}

/// A right-handed unit pair `(e₁, e₂)` across `axis`, `e₁` along `reference`'s part across it
/// (`e₁ × e₂` along the axis).
fn across(axis: [f64; 3], reference: [f64; 3]) -> ([f64; 3], [f64; 3]) {
    let u = normalized(&axis).unwrap_or([0.0, 0.0, 1.0]);
    let along = dot(&reference, &u);
    let off = [0, 1, 2].map(|k| reference[k] - along * u[k]);
    let e1 = normalized(&off).unwrap_or_else(|| orthonormal_pair(&u).0);
    (e1, cross(&u, &e1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::constraint::{Constraint, HingeLimit, evaluate_at};
    use crate::math::rotation::rotation_matrix;
    use crate::{RigidBody3d, System};

    /// The rows read the twist of the swing–twist decomposition of b's turn, `2 atan2(q·u, w)`,
    /// whatever the swing, for ranges whose middle is far from zero.
    #[test]
    fn the_rows_read_the_swing_twist_angle() {
        let mut sys = System::new(3).unwrap_or_else(|e| panic!("{e}"));
        let mut add = || {
            sys.add_rigid_body_3d(RigidBody3d::new([0.0; 3]))
                .unwrap_or_else(|e| panic!("{e}"))
                .body()
        };
        let (a, b) = (add(), add());
        let u = [0.0, 0.0, 1.0];
        for (range, q) in [
            ([-0.5, 0.5], [0.9, 0.2, -0.1, 0.3]),
            ([2.0, 3.0], [0.3, -0.2, 0.1, 0.9]),
            ([-3.0, -1.0], [0.5, 0.4, 0.3, -0.6]),
        ] {
            let limit = HingeLimit::new(a, b, (u, u), range[0], range[1]);
            let norm = q.iter().map(|x| x * x).sum::<f64>().sqrt();
            let q = q.map(|x| x / norm);
            let r = rotation_matrix(&q);
            let turn = |v: [f64; 3]| [0, 1, 2].map(|i| (0..3).map(|j| r[i][j] * v[j]).sum());
            // a unturned at the origin, b turned by q at the origin: its points are R local.
            let e1 = Twist::default_reference(u);
            let e2 = cross(&u, &e1);
            let m = 0.5 * (range[0] + range[1]);
            let x: Vec<f64> = [
                [0.0; 3],
                [0, 1, 2].map(|k| m.cos() * e1[k] + m.sin() * e2[k]),
                [0, 1, 2].map(|k| -m.sin() * e1[k] + m.cos() * e2[k]),
                [0.0; 3],
                turn(e1),
                turn(e2),
            ]
            .concat();
            let e = evaluate_at(&limit, 3, 0.0, &x, &[0.0; 18]).unwrap_or_else(|e| panic!("{e}"));
            let twist = 2.0 * q[3].atan2(q[0]);
            let half = 0.5 * (range[1] - range[0]);
            // ψ − m in (−π, π]: the twist, wrapped about the range's middle.
            let tau = 2.0 * std::f64::consts::PI;
            let off = (twist - m + std::f64::consts::PI).rem_euclid(tau) - std::f64::consts::PI;
            assert!(
                (e.c[0] - (off + half)).abs() < 1e-12,
                "{:?} vs {}",
                e.c,
                off + half
            );
            assert!((e.c[1] - (half - off)).abs() < 1e-12);
            assert_eq!(limit.rows(3), 2);
        }
    }
}
