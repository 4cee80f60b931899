//! Three rows that hold two 3D bodies' relative orientation: the part a weld and a slider share.
//!
//! a carries a right-handed unit frame `(e₁, e₂, u)`, b the same three directions as they sit in
//! b's frame when the bodies are at the held orientation, `R_aᵀ R_b = R(q)`: `f₁ = R(q)ᵀ e₁`,
//! `u_b = R(q)ᵀ u`. With points one metre along them from a pivot `P` on each body:
//!
//! ```text
//! C₀ = (U_b − P_b) · (E₁ − P_a)      b's u has no part along a's e₁
//! C₁ = (U_b − P_b) · (E₂ − P_a)      … nor along e₂
//! C₂ = (F₁ − P_b) · (E₂ − P_a)       b's e₁ has no part along a's e₂
//! ```
//!
//! For a small turn `δφ` of b against the held orientation the rows move by `−e₂·δφ`, `e₁·δφ`
//! and `u·δφ`: three independent rows, each a dot row of [`dot_rows`](super::dot_rows).

use super::dot_rows::Chords;
use crate::ids::BodyId;
use crate::math::rotation::rotation_matrix;
use crate::point::Point;

/// The lock's points beyond the pivots: `E₁, E₂` on a and `F₁, U_b` on b.
#[derive(Clone, Copy, Debug)]
pub(crate) struct OrientationLock {
    pub(crate) points: [Point; 4],
}

impl OrientationLock {
    /// The lock of `b` against `a` at `relative` (a unit quaternion `[w, x, y, z]`, b's
    /// orientation in a's frame), with pivots `pivots` (each in its body's frame) and a's frame
    /// `(e₁, e₂, u)` (unit, right-handed, in a's frame).
    pub(crate) fn new(
        a: BodyId,
        b: BodyId,
        pivots: ([f64; 3], [f64; 3]),
        frame: [[f64; 3]; 3],
        relative: [f64; 4],
    ) -> Self {
        let r = rotation_matrix(&relative);
        // R(q)ᵀ v: v's coordinates in b's frame.
        let in_b = |v: [f64; 3]| [0, 1, 2].map(|j| (0..3).map(|i| r[i][j] * v[i]).sum::<f64>());
        let plus = |p: [f64; 3], d: [f64; 3]| [0, 1, 2].map(|k| p[k] + d[k]);
        let [e1, e2, u] = frame;
        OrientationLock {
            points: [
                Point::on_body_3d(a, plus(pivots.0, e1)),
                Point::on_body_3d(a, plus(pivots.0, e2)),
                Point::on_body_3d(b, plus(pivots.1, in_b(e1))),
                Point::on_body_3d(b, plus(pivots.1, in_b(u))),
            ],
        }
    }

    /// The three rows, for operands `[P_a, P_b]` at `pivots` and this lock's points from
    /// `first` on.
    pub(crate) fn rows(pivots: [usize; 2], first: usize) -> [Chords; 3] {
        let [pa, pb] = pivots;
        let (e1, e2, f1, ub) = (first, first + 1, first + 2, first + 3);
        [
            Chords::new([ub, pb], [e1, pa]),
            Chords::new([ub, pb], [e2, pa]),
            Chords::new([f1, pb], [e2, pa]),
        ]
    }
}

/// Checks that `q` is a quaternion that can be normalized, and returns it unit.
pub(crate) fn unit_quaternion(q: [f64; 4]) -> Option<[f64; 4]> {
    crate::math::rotation::normalized(&q)
}
