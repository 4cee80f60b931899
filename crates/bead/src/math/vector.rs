//! Small-vector arithmetic on slices of length 2 or 3.
//!
//! Positions in bead live in 2D or 3D, chosen when a [`System`](crate::System) is created, and one
//! code path serves both (no feature flags, no generic dimension parameter). Vectors are therefore
//! plain `&[f64]` slices of the system's dimension; these helpers are the handful of operations the
//! constraints and forces need. Storage that must not allocate uses [`Vec3`], a `[f64; 3]` whose
//! unused tail is zero in 2D.

/// Fixed storage for a 2D or 3D vector; in 2D the third component is zero.
pub(crate) type Vec3 = [f64; 3];

/// `a · b`.
pub(crate) fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// `|a|`.
pub(crate) fn norm(a: &[f64]) -> f64 {
    dot(a, a).sqrt()
}

/// `a − b` into fixed storage.
pub(crate) fn sub(a: &[f64], b: &[f64]) -> Vec3 {
    let mut out = [0.0; 3];
    for (o, (x, y)) in out.iter_mut().zip(a.iter().zip(b)) {
        *o = x - y;
    }
    out
}

/// Copies a slice of length ≤ 3 into fixed storage.
pub(crate) fn to_vec3(a: &[f64]) -> Vec3 {
    let mut out = [0.0; 3];
    copy(&mut out[..a.len()], a);
    out
}

/// `dst = src`, for slices of equal length. The slices of one point, one constraint row or one
/// Jacobian block are a few entries long, and `copy_from_slice` on a length known only at run
/// time is a call into the C library's `memcpy`, which costs more than such a copy itself (a
/// tenth of an implicit chain step went to it): short lengths are spelled out.
#[inline]
pub(crate) fn copy(dst: &mut [f64], src: &[f64]) {
    match (dst, src) {
        ([d0], [s0]) => *d0 = *s0,
        ([d0, d1], [s0, s1]) => (*d0, *d1) = (*s0, *s1),
        ([d0, d1, d2], [s0, s1, s2]) => (*d0, *d1, *d2) = (*s0, *s1, *s2),
        ([d0, d1, d2, d3], [s0, s1, s2, s3]) => {
            (*d0, *d1, *d2, *d3) = (*s0, *s1, *s2, *s3);
        }
        (dst, src) => dst.copy_from_slice(src),
    }
}

/// `x = 0`, short lengths spelled out for the reason [`copy`] gives.
#[inline]
pub(crate) fn zero(x: &mut [f64]) {
    match x {
        [] => {}
        [a] => *a = 0.0,
        [a, b] => (*a, *b) = (0.0, 0.0),
        [a, b, c] => (*a, *b, *c) = (0.0, 0.0, 0.0),
        [a, b, c, d] => (*a, *b, *c, *d) = (0.0, 0.0, 0.0, 0.0),
        x => x.fill(0.0),
    }
}

/// `a / |a|`, or `None` when `a` has no length (or is not finite).
pub(crate) fn normalized(a: &[f64]) -> Option<Vec3> {
    let n = norm(a);
    if !(n > 0.0 && n.is_finite()) {
        return None;
    }
    let mut out = to_vec3(a);
    out.iter_mut().for_each(|x| *x /= n);
    Some(out)
}

/// Two unit vectors orthogonal to the unit vector `n` and to each other (3D).
pub(crate) fn orthonormal_pair(n: &Vec3) -> (Vec3, Vec3) {
    // Cross with the axis least aligned with n, so the first tangent is never near zero.
    let axis = if n[0].abs() <= n[1].abs() && n[0].abs() <= n[2].abs() {
        [1.0, 0.0, 0.0]
    } else if n[1].abs() <= n[2].abs() {
        [0.0, 1.0, 0.0]
    } else {
        [0.0, 0.0, 1.0]
    };
    let t1 = normalized(&cross(n, &axis)).unwrap_or([1.0, 0.0, 0.0]);
    let t2 = cross(n, &t1);
    (t1, t2)
}

/// `a × b` (3D).
pub(crate) fn cross(a: &Vec3, b: &Vec3) -> Vec3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// `max |a_i|` (0 for an empty slice; NaN entries are passed over, as `f64::max` does), in four
/// lanes for the reason [`all_finite`] gives.
pub(crate) fn max_abs(a: &[f64]) -> f64 {
    let chunks = a.chunks_exact(4);
    let rest = chunks.remainder();
    let mut lanes = [0.0_f64; 4];
    for chunk in chunks {
        for (lane, x) in lanes.iter_mut().zip(chunk) {
            *lane = lane.max(x.abs());
        }
    }
    rest.iter()
        .chain(&lanes)
        .fold(0.0_f64, |m, x| m.max(x.abs()))
}

/// `max |a_i − b_i|` over the pairs (0 for empty slices): how far apart two runs' states are.
#[cfg(test)]
pub(crate) fn max_abs_difference(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .fold(0.0_f64, |d, (x, y)| d.max((x - y).abs()))
}

/// True when every component is finite.
pub(crate) fn all_finite(a: &[f64]) -> bool {
    // x · 0 is 0 for a finite x and NaN otherwise; summed in four lanes, which the compiler
    // vectorizes (a short-circuiting test goes one entry at a time over whole assemblies).
    let chunks = a.chunks_exact(4);
    let rest = chunks.remainder();
    let mut lanes = [0.0_f64; 4];
    for chunk in chunks {
        for (lane, x) in lanes.iter_mut().zip(chunk) {
            *lane += x * 0.0;
        }
    }
    lanes.iter().all(|x| *x == 0.0) && rest.iter().all(|x| x.is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_copies_and_zeros_cover_every_length() {
        for n in 0..8 {
            let src: Vec<f64> = (0..n).map(|i| i as f64 + 0.5).collect();
            let mut dst = vec![-1.0; n];
            copy(&mut dst, &src);
            assert_eq!(dst, src, "copy of length {n}");
            zero(&mut dst);
            assert!(dst.iter().all(|x| *x == 0.0), "zero of length {n}");
        }
    }

    #[test]
    fn orthonormal_pair_is_orthonormal() {
        for n in [
            [0.0, 0.0, 1.0],
            [1.0, 0.0, 0.0],
            [0.6, 0.0, 0.8],
            [0.48, 0.6, 0.64],
        ] {
            let (a, b) = orthonormal_pair(&n);
            assert!((norm(&a) - 1.0).abs() < 1e-14 && (norm(&b) - 1.0).abs() < 1e-14);
            assert!(
                dot(&a, &n).abs() < 1e-14 && dot(&b, &n).abs() < 1e-14 && dot(&a, &b).abs() < 1e-14
            );
        }
    }
}
