//! GMRES (Saad and Schultz 1986): the iterate of least residual over a Krylov space, for a
//! small nonsymmetric system reached only through its products.
//!
//! The implicit steppers' interior-point iteration uses it for the one nonsymmetric part of its
//! Newton step, a friction row's coupling to its normal force, with the symmetric KKT factor
//! inside the product (see `integrate::implicit::cone_coupling`). Written here because it is
//! forty lines over a closure that may fail; the linear-algebra crates offer Krylov methods
//! over their own matrix types only.

/// Solves `A x = b` from `x = 0` by GMRES, `A` given by `apply(v, A v)`, until the residual is
/// within `relative` of `|b|` or after `max_iterations` products. Returns the iterations taken
/// and the residual reached, relative to `|b|`.
pub(crate) fn gmres<E>(
    mut apply: impl FnMut(&[f64], &mut [f64]) -> Result<(), E>,
    b: &[f64],
    x: &mut [f64],
    relative: f64,
    max_iterations: usize,
) -> Result<(usize, f64), E> {
    let n = b.len();
    x.fill(0.0);
    let norm_b = b.iter().map(|v| v * v).sum::<f64>().sqrt();
    if norm_b == 0.0 || n == 0 {
        return Ok((0, 0.0));
    }
    // The Krylov basis, the Hessenberg matrix by columns, its Givens rotations, and the
    // rotated right-hand side whose last entry is the residual's norm.
    let mut basis: Vec<Vec<f64>> = vec![b.iter().map(|v| v / norm_b).collect()];
    let mut hessenberg: Vec<Vec<f64>> = Vec::new();
    let mut rotations: Vec<(f64, f64)> = Vec::new();
    let mut g = vec![norm_b];
    let mut residual = norm_b;
    let mut w = vec![0.0; n];
    for k in 0..max_iterations.min(n) {
        apply(&basis[k], &mut w)?;
        let mut h = vec![0.0; k + 2];
        for (j, v) in basis.iter().enumerate() {
            let dot: f64 = w.iter().zip(v).map(|(a, b)| a * b).sum();
            h[j] = dot;
            for (wi, vi) in w.iter_mut().zip(v) {
                *wi -= dot * vi;
            }
        }
        let norm_w = w.iter().map(|v| v * v).sum::<f64>().sqrt();
        h[k + 1] = norm_w;
        for (j, &(c, s)) in rotations.iter().enumerate() {
            let (a, b) = (h[j], h[j + 1]);
            h[j] = c * a + s * b;
            h[j + 1] = -s * a + c * b;
        }
        let (a, b) = (h[k], h[k + 1]);
        let r = a.hypot(b);
        let (c, s) = if r == 0.0 { (1.0, 0.0) } else { (a / r, b / r) };
        h[k] = r;
        h[k + 1] = 0.0;
        rotations.push((c, s));
        g.push(-s * g[k]);
        g[k] *= c;
        residual = g[k + 1].abs();
        hessenberg.push(h);
        let done = residual <= relative * norm_b || norm_w <= f64::EPSILON * norm_b;
        if done || k + 1 == max_iterations.min(n) {
            // x = V y, with H y = g solved backwards.
            let m = k + 1;
            let mut y = vec![0.0; m];
            for i in (0..m).rev() {
                let tail: f64 = (i + 1..m).map(|j| hessenberg[j][i] * y[j]).sum();
                let pivot = hessenberg[i][i];
                // A zero pivot (the operator singular on the space found) adds nothing rather
                // than a NaN: the residual returned says how far the answer is.
                y[i] = if pivot == 0.0 {
                    0.0
                } else {
                    (g[i] - tail) / pivot
                };
            }
            for (yj, v) in y.iter().zip(&basis) {
                for (xi, vi) in x.iter_mut().zip(v) {
                    *xi += yj * vi;
                }
            }
            return Ok((m, residual / norm_b));
        }
        basis.push(w.iter().map(|v| v / norm_w).collect());
    }
    Ok((0, residual / norm_b))
}

#[cfg(test)]
mod tests {
    use super::gmres;

    /// A nonsymmetric system of 30 unknowns, the kind the cones' coupling makes (the identity
    /// less a coupling of spectral radius near one), against its direct solution.
    #[test]
    fn solves_a_nonsymmetric_system_to_its_direct_solution() {
        let n = 30;
        let a = |i: usize, j: usize| -> f64 {
            if i == j {
                1.0
            } else if j == (i + 1) % n {
                -0.9
            } else if j == (i + 7) % n {
                0.05 * (i as f64).sin()
            } else {
                0.0
            }
        };
        let b: Vec<f64> = (0..n).map(|i| (i as f64 * 0.3).cos()).collect();
        let mut x = vec![0.0; n];
        let apply = |v: &[f64], out: &mut [f64]| -> Result<(), ()> {
            for (i, o) in out.iter_mut().enumerate() {
                *o = (0..n).map(|j| a(i, j) * v[j]).sum();
            }
            Ok(())
        };
        let (_, residual) = gmres(apply, &b, &mut x, 1e-13, 40).unwrap();
        assert!(residual < 1e-13, "{residual}");
        for (i, bi) in b.iter().enumerate() {
            let ax: f64 = (0..n).map(|j| a(i, j) * x[j]).sum();
            assert!((ax - bi).abs() < 1e-12, "row {i}: {ax} against {bi}");
        }
    }
}
