//! Ready-made parametric objects (seed 000 §5: "an off-line tool for defining new primitive
//! objects"): a bead on a circle, a helix, a cycloid or a spline; a point on a sphere or a torus;
//! a pendulum chain in joint angles. Each is a [`Parametric`] whose points are written once on
//! dual numbers; add it with [`System::add_parametric`](crate::System::add_parametric) and
//! connect its points to anything else (hybrid models, seed 000 §5.1).
//!
//! Curves lie in the x–y plane (vertical in 2D, with gravity along −y) unless said otherwise;
//! in a 3D system the missing coordinates are 0.

use crate::autodiff::{DualNum, Scalar};
use crate::body::Parametric;

/// Writes `values` into the first components of `x` and zeros after (2D or 3D).
fn put(x: &mut [Scalar], values: [Scalar; 3]) {
    for (k, xk) in x.iter_mut().enumerate() {
        *xk = values.get(k).copied().unwrap_or(Scalar::from(0.0));
    }
}

/// A bead of `mass` kg on a circle of `radius` m about `center`, at angle `u0` (rad, from the +x
/// axis, counter-clockwise).
///
/// ```
/// use bead::{primitives, System};
/// let mut sys = System::new(2)?;
/// let ring = sys.add_parametric(primitives::circle([0.0, 0.0], 0.5, 1.0, 0.0))?;
/// let p = sys.parametric_point(ring, "bead")?;
/// assert_eq!(sys.point_position(&p)?, [0.5, 0.0, 0.0]);
/// # Ok::<(), bead::ModelError>(())
/// ```
pub fn circle(center: [f64; 2], radius: f64, mass: f64, angle: f64) -> Parametric {
    Parametric::new(&[angle])
        .name("circle")
        .point("bead", mass, move |u, _t, x| {
            let c = [
                u[0].cos() * radius + center[0],
                u[0].sin() * radius + center[1],
            ];
            put(x, [c[0], c[1], Scalar::from(0.0)]);
        })
        .trace(angle - std::f64::consts::PI, angle + std::f64::consts::PI)
}

/// A bead on a helix about the z axis (3D): `x = (r cos u, r sin u, rise·u/2π)`, `rise` metres
/// per turn.
pub fn helix(radius: f64, rise: f64, mass: f64, angle: f64) -> Parametric {
    let k = rise / std::f64::consts::TAU;
    Parametric::new(&[angle])
        .name("helix")
        .point("bead", mass, move |u, _t, x| {
            put(x, [u[0].cos() * radius, u[0].sin() * radius, u[0] * k]);
        })
        .trace(
            angle - 2.0 * std::f64::consts::TAU,
            angle + 2.0 * std::f64::consts::TAU,
        )
}

/// A bead in a cycloid bowl of generating radius `r`, lowest point at the origin:
/// `x = r (u + sin u)`, `y = r (1 − cos u)`, `u ∈ (−π, π)`. Under gravity −y its period is
/// `4π √(r/g)` whatever the amplitude (Huygens' tautochrone). The cusps at `u = ±π` make the
/// generalized mass singular there.
pub fn cycloid(r: f64, mass: f64, u: f64) -> Parametric {
    Parametric::new(&[u])
        .name("cycloid")
        .point("bead", mass, move |u, _t, x| {
            put(
                x,
                [
                    (u[0] + u[0].sin()) * r,
                    (-u[0].cos() + 1.0) * r,
                    Scalar::from(0.0),
                ],
            );
        })
        .trace(-std::f64::consts::PI, std::f64::consts::PI)
}

/// A bead on the natural cubic spline through `knots` (2 or 3 components each, at least two
/// knots), at parameter `u ∈ [0, knots − 1]` (knot `i` at `u = i`); beyond the ends the end
/// pieces extend. The spline is C²: the bead feels no jump in force along it.
///
/// Returns an error naming the problem if the knots are too few, ragged or not finite.
pub fn spline(knots: &[Vec<f64>], mass: f64, u: f64) -> Result<Parametric, String> {
    if knots.len() < 2 {
        return Err(format!(
            "a spline needs at least 2 knots, got {}",
            knots.len()
        ));
    }
    let dim = knots[0].len();
    if !(2..=3).contains(&dim) || knots.iter().any(|k| k.len() != dim) {
        return Err("spline knots must all have 2 or all have 3 components".into());
    }
    if knots.iter().flatten().any(|x| !x.is_finite()) {
        return Err("a spline knot is not finite".into());
    }
    let n = knots.len();
    // Second derivatives per coordinate: the natural spline's tridiagonal system (Thomas).
    let mut second = vec![[0.0; 3]; n];
    for c in 0..dim {
        let y: Vec<f64> = knots.iter().map(|k| k[c]).collect();
        let mut diag = vec![4.0; n];
        let mut rhs = vec![0.0; n];
        for i in 1..n - 1 {
            rhs[i] = 6.0 * (y[i + 1] - 2.0 * y[i] + y[i - 1]);
        }
        // Rows 1..n−2 with M_0 = M_{n−1} = 0.
        for i in 2..n - 1 {
            let f = 1.0 / diag[i - 1];
            diag[i] -= f;
            rhs[i] -= f * rhs[i - 1];
        }
        for i in (1..n - 1).rev() {
            let next = if i + 1 < n - 1 { second[i + 1][c] } else { 0.0 };
            second[i][c] = (rhs[i] - next) / diag[i];
        }
    }
    let knots: Vec<[f64; 3]> = knots
        .iter()
        .map(|k| [k[0], k[1], k.get(2).copied().unwrap_or(0.0)])
        .collect();
    Ok(Parametric::new(&[u])
        .name("spline")
        .point("bead", mass, move |u, _t, x| {
            let i = (u[0].re.floor().max(0.0) as usize).min(n - 2);
            let s = u[0] - i as f64;
            let r = -s + 1.0;
            let mut out = [Scalar::from(0.0); 3];
            for (c, o) in out.iter_mut().enumerate() {
                let (y0, y1) = (knots[i][c], knots[i + 1][c]);
                let (m0, m1) = (second[i][c], second[i + 1][c]);
                *o = r * y0 + s * y1 + (r.powi(3) - r) * (m0 / 6.0) + (s.powi(3) - s) * (m1 / 6.0);
            }
            put(x, out);
        })
        .trace(0.0, (n - 1) as f64))
}

/// A point on a sphere of `radius` about `center` (3D), by two angles `[θ, φ]`:
/// `x = c + r (cos θ, sin θ sin φ, −sin θ cos φ)`. The poles of this chart are on the x axis, so
/// the bottom `(θ, φ) = (π/2, 0)` — where a spherical pendulum hangs — is regular.
pub fn sphere(center: [f64; 3], radius: f64, mass: f64, angles: [f64; 2]) -> Parametric {
    Parametric::new(&angles)
        .name("sphere")
        .point("point", mass, move |u, _t, x| {
            let (st, ct) = (u[0].sin(), u[0].cos());
            put(
                x,
                [
                    ct * radius + center[0],
                    st * u[1].sin() * radius + center[1],
                    -(st * u[1].cos()) * radius + center[2],
                ],
            );
        })
}

/// A point on a torus about the z axis (3D), major radius `major`, tube radius `minor`, by its
/// two angles `[u, v]`: `x = ((R + r cos v) cos u, (R + r cos v) sin u, r sin v)`.
pub fn torus(major: f64, minor: f64, mass: f64, angles: [f64; 2]) -> Parametric {
    Parametric::new(&angles)
        .name("torus")
        .point("point", mass, move |u, _t, x| {
            let ring = u[1].cos() * minor + major;
            put(
                x,
                [ring * u[0].cos(), ring * u[0].sin(), u[1].sin() * minor],
            );
        })
}

/// A planar pendulum chain in reduced coordinates (2D): link `k` of length `lengths[k]` hangs
/// from the end of link `k − 1` (the first from `pivot`) at absolute angle `θ_k` from the
/// downward vertical; point `p{k}` of `masses[k]` kg is at its end. No rods, no multipliers: the
/// links' lengths are built into the coordinates.
pub fn pendulum_chain(
    pivot: [f64; 2],
    lengths: &[f64],
    masses: &[f64],
    angles: &[f64],
) -> Result<Parametric, String> {
    if lengths.is_empty() || lengths.len() != masses.len() || lengths.len() != angles.len() {
        return Err(format!(
            "a pendulum chain needs as many lengths, masses and angles, at least one ({}, {}, {})",
            lengths.len(),
            masses.len(),
            angles.len()
        ));
    }
    let mut object = Parametric::new(angles).name("pendulum chain");
    for k in 0..lengths.len() {
        let lengths = lengths[..=k].to_vec();
        object = object.point(format!("p{k}"), masses[k], move |u, _t, x| {
            let (mut px, mut py) = (Scalar::from(pivot[0]), Scalar::from(pivot[1]));
            for (j, l) in lengths.iter().enumerate() {
                px += u[j].sin() * *l;
                py -= u[j].cos() * *l;
            }
            put(x, [px, py, Scalar::from(0.0)]);
        });
    }
    Ok(object)
}
