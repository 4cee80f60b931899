//! Least-norm solutions of the bounded rows' linear systems ([`super::contact_problem`]'s
//! direct solves of the rows inside their bounds, and the implicit steppers' passes of
//! Tresca's problem): redundant contacts leave a null space, the free split of their forces,
//! and the pseudo-inverse takes the solution of least norm, which splits a force evenly among
//! the rows that share it.

/// The least-squares solution of least norm of `a x = rhs`, from the singular values of `a`:
/// those below [`SUBSPACE_CUTOFF`] of the largest are its null space (the free split of
/// redundant rows, and rounding). `None` if the decomposition fails.
pub(crate) fn least_squares(a: &faer::Mat<f64>, rhs: &[f64]) -> Option<Vec<f64>> {
    let svd = a.thin_svd();
    crate::math::vector_state::clear_upper_state();
    let svd = svd.ok()?;
    let (u, s, v) = (svd.U(), svd.S(), svd.V());
    Some(pseudo_inverse(
        rhs,
        a.ncols(),
        |e| s[e],
        |i, e| u[(i, e)],
        |i, e| v[(i, e)],
    ))
}

/// [`least_squares`] for a symmetric positive semi-definite `a` (only its lower triangle is
/// read), from its eigendecomposition, a few times cheaper than the singular values.
pub(crate) fn symmetric_least_squares(a: &faer::Mat<f64>, rhs: &[f64]) -> Option<Vec<f64>> {
    use faer::linalg::solvers::Solve;
    let f = rhs.len();
    // A definite block (most faces, once the contacts take their compliance) is solved by
    // Cholesky's factors, at a twentieth of the eigendecomposition's cost; one whose pivots
    // span more than the cutoff is taken for singular.
    let llt = a.llt(faer::Side::Lower);
    crate::math::vector_state::clear_upper_state();
    if let Ok(llt) = llt {
        let l = llt.L();
        let (least, most) = (0..f).fold((f64::INFINITY, 0.0_f64), |(lo, hi), i| {
            let pivot = l[(i, i)] * l[(i, i)];
            (lo.min(pivot), hi.max(pivot))
        });
        if least > SUBSPACE_CUTOFF * most {
            let x = llt.solve(faer::Col::<f64>::from_fn(f, |i| rhs[i]));
            crate::math::vector_state::clear_upper_state();
            let x: Vec<f64> = (0..f).map(|i| x[i]).collect();
            if x.iter().all(|v| v.is_finite()) {
                return Some(x);
            }
        }
    }
    symmetric_pseudo_inverse(a).map(|solve| solve(rhs))
}

/// The pseudo-inverse of a symmetric positive semi-definite `a` (its lower triangle), from its
/// eigendecomposition, as the map from a right-hand side to its least-norm solution; `None` if
/// the decomposition fails.
pub(crate) fn symmetric_pseudo_inverse(a: &faer::Mat<f64>) -> Option<impl Fn(&[f64]) -> Vec<f64>> {
    let evd = a.self_adjoint_eigen(faer::Side::Lower);
    crate::math::vector_state::clear_upper_state();
    let evd = evd.ok()?;
    Some(move |rhs: &[f64]| {
        let (vectors, values) = (evd.U(), evd.S().column_vector());
        pseudo_inverse(
            rhs,
            rhs.len(),
            |e| values[e],
            |i, e| vectors[(i, e)],
            |i, e| vectors[(i, e)],
        )
    })
}

/// `x = Σ_e right_e (left_eᵀ rhs) / value_e` over the values above [`SUBSPACE_CUTOFF`] of the
/// largest: the pseudo-inverse applied to `rhs`, from a decomposition `Σ left_e value_e right_eᵀ`
/// (singular vectors and values, or a symmetric matrix's eigenvectors and eigenvalues) of a
/// matrix of `n` columns and at least as many rows.
fn pseudo_inverse(
    rhs: &[f64],
    n: usize,
    value: impl Fn(usize) -> f64,
    left: impl Fn(usize, usize) -> f64,
    right: impl Fn(usize, usize) -> f64,
) -> Vec<f64> {
    let m = rhs.len();
    let largest = (0..n).fold(0.0_f64, |most, e| most.max(value(e).abs()));
    let mut x = vec![0.0; n];
    for e in 0..n {
        if !(value(e) > SUBSPACE_CUTOFF * largest) {
            continue;
        }
        let along = (0..m).map(|i| left(i, e) * rhs[i]).sum::<f64>() / value(e);
        for (i, xi) in x.iter_mut().enumerate() {
            *xi += right(i, e) * along;
        }
    }
    x
}

/// Singular values of the matrix below this fraction of the largest are its null
/// space: the free split of redundant rows, and rounding.
const SUBSPACE_CUTOFF: f64 = 1e-10;
