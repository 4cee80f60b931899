//! Rotations in 3D by exponential coordinates: the chart in which a 3D rigid body's orientation
//! is a coordinate vector like any other (seed 003: a body in space has six degrees of freedom).
//!
//! An orientation near a reference `R₀` is `R(θ) = Exp(θ) R₀`, `Exp` Rodrigues' formula
//!
//! ```text
//! Exp(θ) x = x + c θ×x + a θ×(θ×x)          c = sin φ/φ,  a = (1 − cos φ)/φ²,  φ = |θ|
//! ω = J_l(θ) θ̇,   J_l(θ) x = x + a θ×x + b θ×(θ×x)     b = (φ − sin φ)/φ³
//! ```
//!
//! with `ω` the world angular velocity and `J_l` the left Jacobian of SO(3). The functions are
//! generic over dual numbers, so that derivatives of anything built on them (a point's
//! curvature, the gyroscopic term's Jacobian) come exact to rounding; near `φ = 0` the
//! coefficients come from their series in `φ²`, which have no singular derivative there.
//! Quaternions are Hamilton's, `[w, x, y, z]`.

use num_dual::DualNum;

/// A real scalar or a dual number over one: what the functions here are generic over.
pub(crate) trait Real: DualNum<Primitive = f64> + Copy {}

impl<D: DualNum<Primitive = f64> + Copy> Real for D {}

/// A 3-vector of any scalar.
pub(crate) type V3<D> = [D; 3];

/// `a × b`.
pub(crate) fn cross<D: Real>(a: &V3<D>, b: &V3<D>) -> V3<D> {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// `a · b`.
pub(crate) fn dot<D: Real>(a: &V3<D>, b: &V3<D>) -> D {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Below this `φ²` the coefficients come from their series (eight terms: exact to rounding
/// there), above it from their closed forms (whose cancellation costs at most 25 ε there).
const SERIES_BELOW: f64 = 0.25;

/// `Σ_k (−1)^k s^k / (2k + first)!` for k < 8: the series of `c` (first = 1), `a` (2), `b` (3).
fn series<D: Real>(s: D, first: u32) -> D {
    let mut term = 1.0 / (1..=first).map(f64::from).product::<f64>();
    let mut sum = D::from(term);
    let mut power = D::from(1.0);
    for k in 1..8u32 {
        term /= -f64::from((2 * k + first - 1) * (2 * k + first));
        power *= s;
        sum += power * term;
    }
    sum
}

/// The coefficients `(c, a, b)` of Rodrigues' formula and the left Jacobian at `θ`.
pub(crate) fn coefficients<D: Real>(theta: &V3<D>) -> (D, D, D) {
    let s = dot(theta, theta);
    if s.re() < SERIES_BELOW {
        return (series(s, 1), series(s, 2), series(s, 3));
    }
    let phi = s.sqrt();
    let (sin, cos) = (phi.sin(), phi.cos());
    (sin / phi, (-cos + 1.0) / s, (phi - sin) / (s * phi))
}

/// `x + p θ×x + r θ×(θ×x)`.
fn combine<D: Real>(theta: &V3<D>, x: &V3<D>, p: D, r: D) -> V3<D> {
    let tx = cross(theta, x);
    let ttx = cross(theta, &tx);
    [
        x[0] + tx[0] * p + ttx[0] * r,
        x[1] + tx[1] * p + ttx[1] * r,
        x[2] + tx[2] * p + ttx[2] * r,
    ]
}

/// `Exp(θ) x`.
pub(crate) fn rotate<D: Real>(theta: &V3<D>, x: &V3<D>) -> V3<D> {
    let (c, a, _) = coefficients(theta);
    combine(theta, x, c, a)
}

/// `Exp(θ)ᵀ x = Exp(−θ) x`.
pub(crate) fn rotate_back<D: Real>(theta: &V3<D>, x: &V3<D>) -> V3<D> {
    let (c, a, _) = coefficients(theta);
    combine(theta, x, -c, a)
}

/// `J_l(θ) x`: the world angular velocity of the rate `x` of `θ`.
pub(crate) fn left_jacobian<D: Real>(theta: &V3<D>, x: &V3<D>) -> V3<D> {
    let (_, a, b) = coefficients(theta);
    combine(theta, x, a, b)
}

/// `J_l(θ)ᵀ x`: a world torque `x` as the generalized force on `θ`.
pub(crate) fn left_jacobian_transpose<D: Real>(theta: &V3<D>, x: &V3<D>) -> V3<D> {
    let (_, a, b) = coefficients(theta);
    combine(theta, x, -a, b)
}

/// `J_l(θ)⁻¹ x`, by solving with the matrix of [`left_jacobian`] (regular for `|θ| < 2π`).
pub(crate) fn left_jacobian_inverse(theta: &V3<f64>, x: &V3<f64>) -> Option<V3<f64>> {
    let m = matrix(|e| left_jacobian(theta, e));
    solve3(&m, x)
}

/// The matrix of a linear map of 3-vectors, row-major, column by column from the unit vectors.
pub(crate) fn matrix(f: impl Fn(&V3<f64>) -> V3<f64>) -> [[f64; 3]; 3] {
    let mut m = [[0.0; 3]; 3];
    for c in 0..3 {
        let mut e = [0.0; 3];
        e[c] = 1.0;
        let col = f(&e);
        for r in 0..3 {
            m[r][c] = col[r];
        }
    }
    m
}

/// `m x`.
pub(crate) fn apply<D: Real>(m: &[[f64; 3]; 3], x: &V3<D>) -> V3<D> {
    [0, 1, 2].map(|r| x[0] * m[r][0] + x[1] * m[r][1] + x[2] * m[r][2])
}

/// `m⁻¹ b` by Cramer's rule; `None` for a singular `m`.
pub(crate) fn solve3(m: &[[f64; 3]; 3], b: &V3<f64>) -> Option<V3<f64>> {
    let det = |m: &[[f64; 3]; 3]| {
        m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
            - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
    };
    let d = det(m);
    let scale = m.iter().flatten().fold(0.0_f64, |s, x| s.max(x.abs()));
    if !(d.abs() > 1e-14 * scale * scale * scale) {
        return None;
    }
    let mut x = [0.0; 3];
    for (c, xc) in x.iter_mut().enumerate() {
        let mut mc = *m;
        for r in 0..3 {
            mc[r][c] = b[r];
        }
        *xc = det(&mc) / d;
    }
    Some(x)
}

/// The unit quaternion of `Exp(θ)`.
pub(crate) fn quaternion_of(theta: &V3<f64>) -> [f64; 4] {
    let phi = dot(theta, theta).sqrt();
    // sin(φ/2)/φ, by its series where φ is small.
    let half = if phi < 1e-4 {
        0.5 - phi * phi / 48.0
    } else {
        (0.5 * phi).sin() / phi
    };
    [
        (0.5 * phi).cos(),
        half * theta[0],
        half * theta[1],
        half * theta[2],
    ]
}

/// The Hamilton product `p q` (the rotation `q`, then `p`).
pub(crate) fn multiply(p: &[f64; 4], q: &[f64; 4]) -> [f64; 4] {
    [
        p[0] * q[0] - p[1] * q[1] - p[2] * q[2] - p[3] * q[3],
        p[0] * q[1] + p[1] * q[0] + p[2] * q[3] - p[3] * q[2],
        p[0] * q[2] - p[1] * q[3] + p[2] * q[0] + p[3] * q[1],
        p[0] * q[3] + p[1] * q[2] - p[2] * q[1] + p[3] * q[0],
    ]
}

/// `q / |q|`, the sign chosen with `w ≥ 0`; `None` for a quaternion of zero or non-finite length.
pub(crate) fn normalized(q: &[f64; 4]) -> Option<[f64; 4]> {
    let n = q.iter().map(|x| x * x).sum::<f64>().sqrt();
    if !(n > 1e-300 && n.is_finite()) {
        return None;
    }
    let s = if q[0] < 0.0 { -1.0 / n } else { 1.0 / n };
    Some(q.map(|x| x * s))
}

/// The rotation vector `θ` of a unit quaternion (`|θ| ≤ π`): `Exp(θ)` is its rotation.
pub(crate) fn log(q: &[f64; 4]) -> V3<f64> {
    let q = normalized(q).unwrap_or([1.0, 0.0, 0.0, 0.0]);
    let s = (q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    // φ = 2 atan2(s, w); θ = φ/s · (x, y, z), by its series where s is small.
    let factor = if s < 1e-8 {
        2.0 / q[0]
    } else {
        2.0 * s.atan2(q[0]) / s
    };
    [q[1] * factor, q[2] * factor, q[3] * factor]
}

/// The rotation matrix of a unit quaternion, row-major: body to world.
pub(crate) fn rotation_matrix(q: &[f64; 4]) -> [[f64; 3]; 3] {
    let [w, x, y, z] = *q;
    [
        [
            1.0 - 2.0 * (y * y + z * z),
            2.0 * (x * y - w * z),
            2.0 * (x * z + w * y),
        ],
        [
            2.0 * (x * y + w * z),
            1.0 - 2.0 * (x * x + z * z),
            2.0 * (y * z - w * x),
        ],
        [
            2.0 * (x * z - w * y),
            2.0 * (y * z + w * x),
            1.0 - 2.0 * (x * x + y * y),
        ],
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_dual::Dual64;

    const THETAS: [[f64; 3]; 4] = [
        [0.0, 0.0, 0.0],
        [0.1, -0.2, 0.05],
        [0.3, 0.2, -0.25],
        [1.2, -2.0, 0.7],
    ];

    fn close(a: &[f64; 3], b: &[f64; 3], tol: f64) -> bool {
        a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol)
    }

    /// Rodrigues' formula agrees with the matrix of the quaternion of `θ`, on both sides of the
    /// switch from series to closed forms.
    #[test]
    fn exp_agrees_with_its_quaternion() {
        let x = [0.3, -1.1, 0.7];
        for theta in THETAS {
            let r = rotation_matrix(&quaternion_of(&theta));
            assert!(close(&rotate(&theta, &x), &apply(&r, &x), 1e-15));
            assert!(close(&rotate_back(&theta, &rotate(&theta, &x)), &x, 1e-15));
            assert!(close(&log(&quaternion_of(&theta)), &theta, 1e-14));
        }
    }

    /// `J_l(θ) θ̇` is the world angular velocity: `Ṙ Rᵀ = [ω]×`, by dual numbers along `θ̇`.
    #[test]
    fn the_left_jacobian_gives_the_angular_velocity() {
        let rate = [0.4, 0.9, -1.3];
        let x = [0.2, 0.5, -0.8];
        for theta in THETAS {
            let moving: [Dual64; 3] = [0, 1, 2].map(|i| Dual64::new(theta[i], rate[i]));
            let xd = rotate(&moving, &x.map(Dual64::from));
            let velocity = xd.map(|c| c.eps);
            let omega = left_jacobian(&theta, &rate);
            let expected = cross(&omega, &rotate(&theta, &x));
            assert!(close(&velocity, &expected, 1e-14), "{theta:?}");
            let back = left_jacobian_inverse(&theta, &omega).unwrap_or([f64::NAN; 3]);
            assert!(close(&back, &rate, 1e-13));
            // J_lᵀ is the transpose: ⟨J_l a, b⟩ = ⟨a, J_lᵀ b⟩.
            let lhs = dot(&left_jacobian(&theta, &rate), &x);
            let rhs = dot(&rate, &left_jacobian_transpose(&theta, &x));
            assert!((lhs - rhs).abs() < 1e-14);
        }
    }

    /// Composition: `Exp(θ₁) Exp(θ₂)` is the product of their quaternions.
    #[test]
    fn quaternions_compose_as_rotations() {
        let (a, b) = (THETAS[2], THETAS[3]);
        let x = [1.0, 2.0, 3.0];
        let r = rotation_matrix(&multiply(&quaternion_of(&a), &quaternion_of(&b)));
        assert!(close(&apply(&r, &x), &rotate(&a, &rotate(&b, &x)), 1e-14));
        assert!(normalized(&[0.0; 4]).is_none());
    }
}
