//! Which rows conflict when `J W Jᵀ λ = b` (seed 000 eq. 11) has no solution.
//!
//! `A = J W Jᵀ` is symmetric, so its null space is orthogonal to its range: `b` splits into a
//! part some λ produces and a part none does, and the rows where that second part lives are the
//! constraints that pull against each other. It is the same whatever λ a solver stopped at, unlike
//! the residual that solver left: a direct solve drops one of two nails holding a point at two
//! places and leaves the whole disagreement on it, so naming the rows of its residual would name
//! one side of the conflict only.
//!
//! The part is found as the residual of least squares, `min ‖b − A x‖`, by CGLS (conjugate
//! gradient on the normal equations `A² x = A b`, consistent even when `A x = b` is not), which
//! needs only products with `A`: it scales like the solvers themselves and runs only when a solve
//! has already failed.

use super::{MultiplierMatrix, norm};

/// The component of `b` that no λ can produce: `b − A x` at the least-squares `x`.
pub(crate) fn unreachable_part(a: &MultiplierMatrix<'_>, b: &[f64]) -> Vec<f64> {
    let m = a.size();
    let mut tmp = vec![0.0; a.inv_mass().len()];
    let mut r = b.to_vec();
    let mut s = vec![0.0; m];
    a.apply(&r, &mut s, &mut tmp);
    let mut p = s.clone();
    let mut q = vec![0.0; m];
    let mut gamma = dot(&s, &s);
    let mut diagonal = vec![0.0; m];
    a.diagonal(&mut diagonal);
    // ‖A‖ is at least the largest diagonal entry; ‖A r‖ far below ‖A‖‖r‖ means r is (close to)
    // in the null space, which is all the caller needs: which rows carry it.
    let scale = diagonal.iter().fold(0.0_f64, |s, d| s.max(d.abs()));
    for _ in 0..(4 * m).clamp(50, 5000) {
        if gamma.sqrt() <= 1e-12 * scale * norm(&r) {
            break;
        }
        a.apply(&p, &mut q, &mut tmp);
        let qq = dot(&q, &q);
        if !(qq > 0.0 && qq.is_finite()) {
            break;
        }
        let alpha = gamma / qq;
        for i in 0..m {
            r[i] -= alpha * q[i];
        }
        a.apply(&r, &mut s, &mut tmp);
        let gamma_next = dot(&s, &s);
        let beta = gamma_next / gamma;
        gamma = gamma_next;
        for i in 0..m {
            p[i] = s[i] + beta * p[i];
        }
    }
    r
}

fn dot(x: &[f64], y: &[f64]) -> f64 {
    x.iter().zip(y).map(|(a, b)| a * b).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::inverse_mass::InverseMass;
    use crate::math::sparse::BlockSparse;

    /// Two nails on one 2D point (J = [I; I]) asking for different accelerations: the part no λ
    /// reaches is half their difference, on both nails, with opposite signs.
    #[test]
    fn two_nails_share_the_disagreement() {
        let mut j = BlockSparse::new(2);
        j.add_band(2, &[(0, 2)]);
        j.add_band(2, &[(0, 2)]);
        j.values_mut()
            .copy_from_slice(&[1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0]);
        let w = InverseMass::diagonal_of(vec![0.5, 0.5]);
        let a = MultiplierMatrix::new(&j, &w);
        let r = unreachable_part(&a, &[1.0, 0.0, -1.0, 0.0]);
        let expected = [1.0, 0.0, -1.0, 0.0];
        for (got, want) in r.iter().zip(expected) {
            assert!((got - want).abs() < 1e-12, "{r:?}");
        }
        // A consistent right-hand side leaves nothing.
        let r = unreachable_part(&a, &[1.0, 2.0, 1.0, 2.0]);
        assert!(norm(&r) < 1e-12, "{r:?}");
    }
}
