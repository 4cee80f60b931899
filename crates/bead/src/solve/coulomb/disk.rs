//! Coulomb's circular cone for a 3D contact in the bounded rows' problem
//! ([`super::contact_problem`]): the normal row and its two friction rows solved together, the
//! friction force `μ_t = (μ_t1, μ_t2)` within the disk `|μ_t| ≤ μ_f μ_n` (issue 33, the
//! circular cone of seed 004's contact carried into 3D).
//!
//! ```text
//! r = f + A_c μ_c       (f: the residuals with the contact's own force taken out)
//! stick:  r = 0,                      μ_n ≥ 0, |μ_t| ≤ μ_f μ_n
//! slide:  r_n = 0, μ_t = −μ_f μ_n s,  r_t = α s, α ≥ 0, |s| = 1
//! apart:  μ = 0,                      r_n ≥ 0
//! ```
//!
//! A slide's direction `s` is where the contact slips; its force lies on the circle against
//! it (the principle of maximal dissipation). With `μ_n` from `r_n = 0`, the slip's part
//! across `s`, `g(θ) = s⊥ · r_t`, is a function of the angle of `s` alone: its root is found to
//! rounding, which no polygon of the cone can give — by secant steps from the direction the
//! contact slid in at the last sweep, and where they do not land, by sampling the circle and
//! bisection. Written here rather than taken from a library: it is the engine's heart, a
//! scalar root on a circle, and no crate solves Coulomb's three-row local problem.

/// Samples of the circle searched for a slide's direction.
const SAMPLES: usize = 64;
/// Secant steps on the slide's direction before the samples take over.
const SECANT_STEPS: usize = 30;
/// Bisections of an interval where the slip across the direction changes sign.
const BISECTIONS: usize = 60;

/// One 3D contact solved on its own, every other row where it is: `a` its rows' block of the
/// problem's matrix (normal, then the two tangents), `free` their residuals with the contact's
/// own force taken out. The cases of Coulomb's law with the circular cone in turn — sticking,
/// sliding, apart — and the first that holds; returns the multipliers.
pub(crate) fn contact(
    a: &[[f64; 3]; 3],
    free: &[f64; 3],
    coefficient: f64,
    current: &[f64; 3],
) -> [f64; 3] {
    let stick = solve3(a, &free.map(|f| -f));
    if let Some(x) = stick
        && x[0] >= 0.0
        && x[1].hypot(x[2]) <= coefficient * x[0]
    {
        return x;
    }
    // Pulled apart with no force, no slide can press it (a slide's normal force is
    // `−f_n / slope` with the slope positive): the search of the circle would find nothing.
    if free[0] > 0.0 {
        return [0.0; 3];
    }
    // The slip runs against the force the contact has (a sweep's slide moves little from the
    // last one's), or else about against the force that would have held it.
    let guess = if current[1] != 0.0 || current[2] != 0.0 {
        (-current[2]).atan2(-current[1])
    } else {
        stick.map_or(free[2].atan2(free[1]), |x| (-x[2]).atan2(-x[1]))
    };
    if let Some(x) = slide(a, free, coefficient, guess) {
        return x;
    }
    if free[0] >= 0.0 {
        return [0.0; 3];
    }
    // No case holds exactly (a block that rounding has left indefinite): the normal row on
    // its own, the friction projected onto its disk, for the sweeps to go on from.
    let n = if a[0][0] > 0.0 {
        -free[0] / a[0][0]
    } else {
        0.0
    };
    let t: [f64; 2] = std::array::from_fn(|i| {
        let d = a[i + 1][i + 1];
        if d > 0.0 {
            -(free[i + 1] + a[i + 1][0] * n) / d
        } else {
            0.0
        }
    });
    let t = project(t, coefficient * n);
    [n, t[0], t[1]]
}

/// The slide of a contact with matrix `a` and free residuals `f`: the multipliers with the
/// force on the circle against the slip, `None` where no direction gives one.
fn slide(a: &[[f64; 3]; 3], f: &[f64; 3], coefficient: f64, guess: f64) -> Option<[f64; 3]> {
    // At angle θ: the normal multiplier from r_n = 0, and the residuals along and across s.
    let at = |theta: f64| -> Option<(f64, f64, f64)> {
        let s = [theta.cos(), theta.sin()];
        let slope = a[0][0] - coefficient * (a[0][1] * s[0] + a[0][2] * s[1]);
        if !(slope > 0.0) {
            return None;
        }
        let n = -f[0] / slope;
        let r: [f64; 2] = std::array::from_fn(|i| {
            f[i + 1] + n * (a[i + 1][0] - coefficient * (a[i + 1][1] * s[0] + a[i + 1][2] * s[1]))
        });
        Some((n, r[0] * s[0] + r[1] * s[1], -r[0] * s[1] + r[1] * s[0]))
    };
    // The samples straddle the guess, so a slip along it (a symmetric case, where the root
    // lies exactly there) falls inside an interval, not on its end.
    let force = |theta: f64, n: f64| {
        [
            n,
            -coefficient * n * theta.cos(),
            -coefficient * n * theta.sin(),
        ]
    };
    // Secant steps from the guess find the direction in a few evaluations where it is near;
    // the samples below find it wherever it is.
    let (mut t0, mut t1) = (guess, guess + 1e-3);
    if let (Some(mut v0), Some(mut v1)) = (at(t0), at(t1)) {
        for _ in 0..SECANT_STEPS {
            let slope = (v1.2 - v0.2) / (t1 - t0);
            if !(slope.is_finite() && slope != 0.0) {
                break;
            }
            let next = t1 - v1.2 / slope;
            let Some(v) = at(next) else {
                break;
            };
            (t0, v0, t1, v1) = (t1, v1, next, v);
            if (t1 - t0).abs() <= 1e-15 * (1.0 + t1.abs()) || v1.2 == 0.0 {
                if v1.0 >= 0.0 && v1.1 >= 0.0 && (t1 - guess).abs() < std::f64::consts::PI {
                    return Some(force(t1, v1.0));
                }
                break;
            }
        }
    }
    let step = std::f64::consts::TAU / SAMPLES as f64;
    let angle = |i: usize| guess + (i as f64 - 0.5) * step;
    let mut best: Option<(f64, [f64; 3])> = None;
    let mut last = at(angle(0)).map(|v| (angle(0), v));
    for i in 1..=SAMPLES {
        let theta = angle(i);
        let here = at(theta).map(|v| (theta, v));
        if let (Some((lo, (_, _, g_lo))), Some((hi, (_, _, g_hi)))) = (last, here)
            && (g_lo == 0.0 || g_lo.signum() != g_hi.signum())
        {
            let (mut lo, mut hi, mut g_lo) = (lo, hi, g_lo);
            for _ in 0..BISECTIONS {
                let mid = 0.5 * (lo + hi);
                match at(mid) {
                    Some((_, _, g)) if g.signum() == g_lo.signum() && g != 0.0 => {
                        (lo, g_lo) = (mid, g);
                    }
                    Some(_) => hi = mid,
                    None => break,
                }
            }
            let theta = 0.5 * (lo + hi);
            if let Some((n, along, across)) = at(theta)
                && n >= 0.0
                && along >= 0.0
            {
                let x = force(theta, n);
                if best.is_none_or(|(b, _)| across.abs() < b) {
                    best = Some((across.abs(), x));
                }
            }
        }
        last = here;
    }
    best.map(|(_, x)| x)
}

/// `a x = b` for a 3 × 3 `a`, by Cramer's rule; `None` where `a` is singular.
fn solve3(a: &[[f64; 3]; 3], b: &[f64; 3]) -> Option<[f64; 3]> {
    let det = |m: &[[f64; 3]; 3]| {
        m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
            - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
    };
    let d = det(a);
    let scale = a.iter().flatten().fold(0.0_f64, |m, v| m.max(v.abs()));
    if !(d.abs() > 1e-14 * scale.powi(3)) {
        return None;
    }
    Some(std::array::from_fn(|c| {
        let mut m = *a;
        for (row, value) in m.iter_mut().zip(b) {
            row[c] = *value;
        }
        det(&m) / d
    }))
}

/// `v` projected onto the disk of `radius` about the origin.
pub(crate) fn project(v: [f64; 2], radius: f64) -> [f64; 2] {
    let len = v[0].hypot(v[1]);
    let radius = radius.max(0.0);
    if len <= radius {
        v
    } else {
        [v[0] * radius / len, v[1] * radius / len]
    }
}

/// The largest `α ∈ [0, 1]` for which the force `u + α d` stays within the disk of radius
/// `c + α e` (a friction force and its normal force's share moving together), from `u` within
/// the disk of radius `c`.
pub(crate) fn room(u: [f64; 2], d: [f64; 2], c: f64, e: f64) -> f64 {
    // f(α) = |u + α d|² − (c + α e)² ≤ 0, and c + α e ≥ 0.
    let qa = d[0] * d[0] + d[1] * d[1] - e * e;
    let qb = 2.0 * (u[0] * d[0] + u[1] * d[1] - c * e);
    let qc = (u[0] * u[0] + u[1] * u[1] - c * c).min(0.0);
    let outside = |alpha: f64| {
        let radius = c + alpha * e;
        radius < 0.0 || qa * alpha * alpha + qb * alpha + qc > 0.0
    };
    let mut alpha = 1.0_f64;
    if e < 0.0 {
        alpha = alpha.min(c.max(0.0) / -e);
    }
    let mut roots = Vec::with_capacity(2);
    if qa.abs() <= 1e-300 {
        if qb > 0.0 {
            roots.push(-qc / qb);
        }
    } else {
        let disc = qb * qb - 4.0 * qa * qc;
        if disc >= 0.0 {
            let sq = disc.sqrt();
            // The stable pair of roots.
            let q = -0.5 * (qb + qb.signum() * sq);
            if q != 0.0 {
                roots.push(q / qa);
                roots.push(qc / q);
            }
        }
    }
    roots.retain(|r| *r > 0.0 && *r < alpha);
    roots.sort_by(f64::total_cmp);
    for r in roots {
        if outside(r + 1e-12 * (1.0 + r)) {
            return r;
        }
    }
    if outside(alpha) { 0.0 } else { alpha }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `r = free + a x` for a contact's multipliers `x`.
    fn residual(a: &[[f64; 3]; 3], free: &[f64; 3], x: &[f64; 3]) -> [f64; 3] {
        std::array::from_fn(|i| free[i] + (0..3).map(|j| a[i][j] * x[j]).sum::<f64>())
    }

    /// A contact pressed in and pushed sideways along a direction the tangents do not share:
    /// gently it sticks with its force inside the circle; hard, it slides with the force on the
    /// circle, against the slip, which runs along the push (an isotropic block).
    #[test]
    fn a_contact_sticks_inside_the_circle_and_slides_on_it_against_the_slip() {
        let a = [[2.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
        let push = [0.6_f64, 0.8];
        for (strength, sticks) in [(0.2, true), (3.0, false)] {
            let x = contact(
                &a,
                &[-1.0, strength * push[0], strength * push[1]],
                0.5,
                &[0.0; 3],
            );
            let [n, t1, t2] = x;
            assert!((n - 0.5).abs() < 1e-14, "{x:?}");
            let force = t1.hypot(t2);
            if sticks {
                assert!(
                    force < 0.5 * n && (t1 + strength * push[0]).abs() < 1e-14,
                    "{x:?}"
                );
            } else {
                assert!((force - 0.5 * n).abs() < 1e-14, "{x:?}");
                // Against the push: the slip runs along it.
                assert!((t1 / force + 0.6).abs() < 1e-12 && (t2 / force + 0.8).abs() < 1e-12);
            }
        }
        // Pulled apart: no force.
        assert_eq!(contact(&a, &[1.0, 0.3, 0.0], 0.5, &[0.0; 3]), [0.0; 3]);
    }

    /// A slip exactly along a tangent (a capsule lying down a slope) is found, though the
    /// slip across it is zero to rounding on both sides of the direction.
    #[test]
    fn a_slip_along_a_tangent_is_found() {
        let a = [[1.701, 0.0, 0.0], [0.0, 0.618, 0.0], [0.0, 0.0, 2.824]];
        for push in [3.6e-6, -3.6e-6] {
            let x = contact(&a, &[-9.1e-6, push, 0.0], 0.5, &[0.0; 3]);
            assert!((x[0] - 9.1e-6 / 1.701).abs() < 1e-18, "{x:?}");
            assert!(
                (x[1] + push.signum() * 0.5 * x[0]).abs() < 1e-18 && x[2].abs() < 1e-18,
                "{x:?}"
            );
        }
    }

    /// With a coupled block the slip does not run along the push, and the force found is the
    /// one whose slip it opposes: the residual along the tangents is parallel to the force and
    /// opposite it.
    #[test]
    fn a_coupled_contact_slides_with_its_force_against_its_own_slip() {
        let a = [[2.0, 0.3, -0.2], [0.3, 1.5, 0.4], [-0.2, 0.4, 0.8]];
        let free = [-1.0, 2.0, -1.5];
        let x = contact(&a, &free, 0.4, &[0.0; 3]);
        // From a force far from the answer the same slide is found.
        let y = contact(&a, &free, 0.4, &[1.0, 0.0, 0.3]);
        assert!(
            x.iter().zip(&y).all(|(x, y)| (x - y).abs() < 1e-13),
            "{x:?} against {y:?}"
        );
        let r = residual(&a, &free, &x);
        assert!(r[0].abs() < 1e-13, "{r:?}");
        assert!((x[1].hypot(x[2]) - 0.4 * x[0]).abs() < 1e-13);
        let cross = x[1] * r[2] - x[2] * r[1];
        let along = x[1] * r[1] + x[2] * r[2];
        assert!(
            cross.abs() < 1e-12 && along < 0.0,
            "force {x:?}, slip {r:?}"
        );
    }

    #[test]
    fn room_stops_a_move_where_it_meets_the_circle() {
        // From the centre of a unit disk along x by 2: half the move.
        assert!((room([0.0, 0.0], [2.0, 0.0], 1.0, 0.0) - 0.5).abs() < 1e-14);
        // A disk that grows as fast as the force moves: the whole move.
        assert_eq!(room([0.0, 0.0], [1.0, 0.0], 1.0, 1.0), 1.0);
        // A disk that shrinks to nothing at α = 0.5.
        assert!((room([0.0, 0.0], [0.0, 0.0], 1.0, -2.0) - 0.5).abs() < 1e-14);
        assert_eq!(project([3.0, 4.0], 1.0), [0.6, 0.8]);
    }
}
