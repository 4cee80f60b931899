//! The friction rows of a 3D contact: the relative velocity of the two bodies' material points
//! where they touch, along two tangents of the contact's normal (issue 33; seed 004's contact
//! with Coulomb's cone `‖λ_t‖ ≤ μ λ_n`).
//!
//! ```text
//! Ċ_k = t_k · (v(p_a) − v(p_b)),   C_k = 0            (k = 1, 2; a velocity row)
//! t₁ = (e − (e·n) n) / |e − (e·n) n|,   t₂ = n × t₁
//! J̇ẋ_k = ṫ_k · (v(p_a) − v(p_b))
//! ```
//!
//! `p_a`, `p_b` are points fixed in the bodies at the contact (the narrow phase's, at the
//! step's start); the framework adds their own `ω × (ω × r)` to `J̇ẋ` as for any point. `n` is
//! the contact's normal as the gap defines it, a function of the gap's points, so the tangents
//! turn with it and `ṫ` comes from `ṅ` by forward-mode dual numbers. `e` is a fixed reference
//! direction kept from step to step (so a friction force's components keep their meaning as a
//! warm start), replaced only where it comes near the normal.

use crate::math::rotation::{Real, cross, dot};

/// The two tangents of unit normal `n` from the reference direction `e` (see the module docs),
/// in any scalar: with dual numbers carrying `ṅ`, their rates come with them.
pub(super) fn tangents<D: Real>(n: &[D; 3], e: &[f64; 3]) -> [[D; 3]; 2] {
    let e = e.map(D::from);
    let along = dot(&e, n);
    let off: [D; 3] = std::array::from_fn(|k| e[k] - along * n[k]);
    let len = dot(&off, &off).sqrt();
    let t1 = off.map(|x| x / len);
    [t1, cross(n, &t1)]
}

/// A reference direction for normal `n`: `previous` while it stays well away from `n` (its
/// share along `n` below 0.9), else the world axis least along `n`.
pub(crate) fn reference(n: &[f64; 3], previous: Option<[f64; 3]>) -> [f64; 3] {
    let len = dot(n, n).sqrt();
    if let Some(e) = previous {
        let e_len = dot(&e, &e).sqrt();
        if e_len > 0.0 && len > 0.0 && dot(&e, n).abs() < 0.9 * e_len * len {
            return e;
        }
    }
    let k = (0..3)
        .min_by(|&i, &j| n[i].abs().total_cmp(&n[j].abs()))
        .unwrap_or(0);
    let mut e = [0.0; 3];
    e[k] = 1.0;
    e
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::dual::Scalar;

    #[test]
    fn the_tangents_are_orthonormal_and_turn_with_the_normal() {
        let n = {
            let a = [0.3_f64, -0.5, 0.8];
            let l = dot(&a, &a).sqrt();
            a.map(|x| x / l)
        };
        let e = reference(&n, None);
        let [t1, t2] = tangents(&n, &e);
        for (a, b, want) in [
            (&t1, &t1, 1.0),
            (&t2, &t2, 1.0),
            (&t1, &t2, 0.0),
            (&t1, &n, 0.0),
            (&t2, &n, 0.0),
        ] {
            assert!((dot(a, b) - want).abs() < 1e-14);
        }
        // ṫ from ṅ (ṅ ⊥ n, as a unit normal's rate is) against a difference.
        let a = [0.4, 0.6, 0.225];
        let n_dot: [f64; 3] = std::array::from_fn(|k| a[k] - dot(&a, &n) * n[k]);
        let moving: [Scalar; 3] = std::array::from_fn(|k| Scalar::new(n[k], n_dot[k], 0.0));
        let rates = tangents(&moving, &e);
        let h = 1e-6;
        let unit = |s: f64| {
            let a: [f64; 3] = std::array::from_fn(|k| n[k] + s * n_dot[k]);
            let l = dot(&a, &a).sqrt();
            a.map(|x| x / l)
        };
        let (plus, minus) = (tangents(&unit(h), &e), tangents(&unit(-h), &e));
        for t in 0..2 {
            for k in 0..3 {
                let diff = (plus[t][k] - minus[t][k]) / (2.0 * h);
                assert!(
                    (diff - rates[t][k].v1).abs() < 1e-8,
                    "{diff} {}",
                    rates[t][k].v1
                );
            }
        }
    }

    #[test]
    fn a_reference_is_kept_until_it_nears_the_normal() {
        let n = [0.0, 0.0, 1.0];
        assert_eq!(reference(&n, None), [1.0, 0.0, 0.0]);
        assert_eq!(reference(&n, Some([0.0, 2.0, 0.5])), [0.0, 2.0, 0.5]);
        assert_eq!(reference(&n, Some([0.0, 0.1, 1.0])), [1.0, 0.0, 0.0]);
    }
}
