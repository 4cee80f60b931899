//! A constraint's geometric stiffness `Σ_r w_r ∂²C_r/∂x∂x` recovered exactly from its `J̇ẋ`:
//! seed 000's `J̇q̇` term is the quadratic form `q̇ᵀ (∂²C/∂q²) q̇` (plus time terms), so the
//! polarization identities give the Hessian the implicit steppers put into their Newton matrix
//! (Witkin's eq. 11 taken implicitly; see `docs/implicit.md`) from evaluations alone.

use super::{Constraint, ConstraintError, ConstraintEval, HessianEval};

/// `Σ_r w_r ∂²C_r/∂x∂x` recovered from `constraint`'s `J̇ẋ`, added into `hessian`.
///
/// `J̇ẋ(ẋ) = ẋᵀHẋ + 2 b·ẋ + c` (its time terms are the `b` and `c`), so with `Q(ẋ) = Σ w_r J̇ẋ_r`:
/// `H_ii = (Q(e_i) + Q(−e_i))/2 − Q(0)` and
/// `H_ij = ((Q(e_i + e_j) + Q(−e_i − e_j))/2 − Q(0) − H_ii − H_jj) / 2`: exact up to rounding,
/// whatever the constraint, because only its even part in `ẋ` is used.
///
/// ```
/// use bead::constraint::{hessian_at, Distance};
/// use bead::{Particle, System};
/// let mut sys = System::new(2)?;
/// let a = sys.add_particle(Particle::new(&[0.0, 0.0]))?;
/// let b = sys.add_particle(Particle::new(&[2.0, 0.0]))?;
/// // A rod along x: ∂²C/∂y₁² = 1/|d|, and nothing along the rod.
/// let h = hessian_at(&Distance::new(a, b, 2.0), 2, 0.0, &[0.0, 0.0, 2.0, 0.0], &[1.0]).unwrap();
/// assert_eq!(h[0], 0.0);
/// assert!((h[5] - 0.5).abs() < 1e-15);
/// # Ok::<(), bead::ModelError>(())
/// ```
pub fn polarized_hessian<C: Constraint + ?Sized>(
    constraint: &C,
    at: &HessianEval<'_>,
    weights: &[f64],
    hessian: &mut [f64],
) -> Result<(), ConstraintError> {
    let (rows, n) = (weights.len(), at.x.len());
    let (mut c, mut c_t, mut jdot) = (vec![0.0; rows], vec![0.0; rows], vec![0.0; rows]);
    let mut gradient = vec![0.0; rows * n];
    let mut q = |v: &[f64]| -> Result<f64, ConstraintError> {
        jdot.fill(0.0);
        let mut eval = ConstraintEval {
            t: at.t,
            dim: at.dim,
            offsets: at.offsets,
            x: at.x,
            v,
            start: at.start,
            c: &mut c,
            c_t: &mut c_t,
            jdot_xdot: &mut jdot,
            gradient: &mut gradient,
        };
        constraint.evaluate(&mut eval)?;
        Ok(jdot.iter().zip(weights).map(|(j, w)| j * w).sum())
    };
    polarize(n, &mut q, hessian)
}

/// `∂²Q/∂v∂v` of a quadratic form `Q(v) = vᵀHv + 2 b·v + c` in `n` unknowns, added into
/// `hessian` (row-major `n × n`): [`polarized_hessian`]'s identities.
fn polarize(
    n: usize,
    q: &mut impl FnMut(&[f64]) -> Result<f64, ConstraintError>,
    hessian: &mut [f64],
) -> Result<(), ConstraintError> {
    polarize_form(n, q, hessian, false)
}

/// [`polarize`] for a form with no linear or constant part, `Q(v) = vᵀHv` (a constraint with
/// no explicit time dependence): `H_ii = Q(e_i)`, `H_ij = (Q(e_i + e_j) − H_ii − H_jj)/2`, half
/// the evaluations. Where `Q` is computed so that `Q(−v) = Q(v)` exactly, as products of terms
/// linear in `v` are, the result is [`polarize`]'s to the bit.
pub(crate) fn polarize_quadratic(
    n: usize,
    q: &mut impl FnMut(&[f64]) -> Result<f64, ConstraintError>,
    hessian: &mut [f64],
) -> Result<(), ConstraintError> {
    polarize_form(n, q, hessian, true)
}

/// The polarization identities over the even part of `Q` along `e_i` and `e_i + e_j`: that part
/// is `Q(v)` itself for a form known to be purely `quadratic`, else `(Q(v) + Q(−v))/2 − Q(0)`.
fn polarize_form(
    n: usize,
    q: &mut impl FnMut(&[f64]) -> Result<f64, ConstraintError>,
    hessian: &mut [f64],
    quadratic: bool,
) -> Result<(), ConstraintError> {
    let mut v = vec![0.0; n];
    let q0 = if quadratic { 0.0 } else { q(&v)? };
    let mut even = |v: &mut [f64], i: usize, j: Option<usize>| -> Result<f64, ConstraintError> {
        let set = |v: &mut [f64], s: f64| {
            v[i] = s;
            if let Some(j) = j {
                v[j] = s;
            }
        };
        set(v, 1.0);
        let plus = q(v)?;
        if quadratic {
            set(v, 0.0);
            return Ok(plus);
        }
        set(v, -1.0);
        let minus = q(v)?;
        set(v, 0.0);
        Ok(0.5 * (plus + minus) - q0)
    };
    let mut diagonal = vec![0.0; n];
    for i in 0..n {
        diagonal[i] = even(&mut v, i, None)?;
        hessian[i * n + i] += diagonal[i];
    }
    for i in 0..n {
        for j in i + 1..n {
            let h = 0.5 * (even(&mut v, i, Some(j))? - diagonal[i] - diagonal[j]);
            hessian[i * n + j] += h;
            hessian[j * n + i] += h;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both polarizations recover a quadratic form's matrix, and agree to the bit where the
    /// form is even: `Q(v) = Σ a_ij v_i v_j`, summed as products of terms linear in `v`.
    #[test]
    fn the_quadratic_polarization_is_the_full_ones_with_half_the_evaluations() {
        let n = 4;
        let a: Vec<f64> = (0..n * n)
            .map(|k| {
                let (i, j) = (k / n, k % n);
                let (lo, hi) = (i.min(j) as f64, i.max(j) as f64);
                0.3 + 1.7 * lo - 0.9 * hi + 0.11 * lo * hi
            })
            .collect();
        let evaluations = std::cell::Cell::new(0);
        let mut q = |v: &[f64]| -> Result<f64, ConstraintError> {
            evaluations.set(evaluations.get() + 1);
            let av: Vec<f64> = (0..n)
                .map(|i| (0..n).map(|j| a[i * n + j] * v[j]).sum())
                .collect();
            Ok(v.iter().zip(&av).map(|(v, av)| v * av).sum())
        };
        let (mut full, mut quadratic) = (vec![0.0; n * n], vec![0.0; n * n]);
        polarize(n, &mut q, &mut full).unwrap();
        let full_evaluations = evaluations.replace(0);
        polarize_quadratic(n, &mut q, &mut quadratic).unwrap();
        assert_eq!(full_evaluations, 1 + n * (n + 1));
        assert_eq!(evaluations.get(), n * (n + 1) / 2);
        assert_eq!(full, quadratic);
        for (h, a) in quadratic.iter().zip(&a) {
            assert!((h - a).abs() <= 1e-14 * (1.0 + a.abs()), "{h} vs {a}");
        }
    }
}
