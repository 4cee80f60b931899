//! The bounded rows' problem of [`super::contact_problem`] as a linear complementarity problem in
//! the manner of Stewart and Trinkle (1996) and Anitescu and Potra (1997), solved by Lemke's
//! pivoting: where the Gauss–Seidel sweeps do not settle (dominoes that lean on one another and
//! slide), a pivoting method that ends with a solution when the problem has one.
//!
//! Each contact's friction `μ_t = β⁺ − β⁻` and a slip magnitude `σ` make Coulomb's 2D law four
//! complementarity pairs:
//!
//! ```text
//! r_n ≥ 0 ⊥ μ_n ≥ 0          r_t + σ ≥ 0 ⊥ β⁺ ≥ 0
//! μ_f μ_n − β⁺ − β⁻ ≥ 0 ⊥ σ ≥ 0        −r_t + σ ≥ 0 ⊥ β⁻ ≥ 0
//! ```
//!
//! (inside the cone `σ = 0` and `r_t = 0`; at its edge the slip runs against the force), with
//! `r = r⁰ + A (μ − μ⁰)`. A row with bounds of its own (a motor's limit) is `μ = lo + u`,
//! `r + s ≥ 0 ⊥ u ≥ 0`, `hi − lo − u ≥ 0 ⊥ s ≥ 0`. The matrix `A` is positive semidefinite, so the
//! problem's matrix is copositive-plus, and Lemke's method with the lexicographic ratio test
//! (which cannot cycle) ends either with a solution or on a ray, which it reports.

use crate::solve::coulomb::contact_problem::{ContactProblem, blocks};
use crate::solve::coulomb::row_bounds::RowBounds;

/// How a bounded row's multiplier is made of the problem's variables: `μ = offset + Σ c z`.
#[derive(Clone, Debug)]
struct Multiplier {
    offset: f64,
    terms: Vec<(usize, f64)>,
}

/// Solves the bounded rows of `p` (their residuals `p.residual` at the multipliers `p.mu`) by
/// Lemke's method, in place; returns whether it found a solution whose every row meets
/// Coulomb's law (or its bounds) to `tolerance`, as a displacement. Otherwise `p` is left as it
/// was.
pub(super) fn solve(p: &mut ContactProblem, bounds: &RowBounds<'_>, tolerance: f64) -> bool {
    let b = p.rows.len();
    blocks(p, bounds);
    // The variables, and each bounded row's multiplier in them.
    let mut multiplier: Vec<Multiplier> = vec![
        Multiplier {
            offset: 0.0,
            terms: Vec::new()
        };
        b
    ];
    // Each complementarity row w = q + M z: (constant, terms in z, terms in r (by row k)).
    struct Row {
        constant: f64,
        z: Vec<(usize, f64)>,
        r: Vec<(usize, f64)>,
    }
    let mut rows: Vec<Row> = Vec::new();
    let mut n = 0;
    let mut next = || {
        n += 1;
        n - 1
    };
    let cones: Vec<(usize, usize, f64)> = p
        .blocks
        .iter()
        .filter_map(|&(k, friction)| friction.map(|(t, coefficient)| (k, t, coefficient)))
        .collect();
    for &(k, t, coefficient) in &cones {
        let (normal, plus, minus, slip) = (next(), next(), next(), next());
        multiplier[k].terms.push((normal, 1.0));
        multiplier[t].terms = vec![(plus, 1.0), (minus, -1.0)];
        rows.push(Row {
            constant: 0.0,
            z: vec![],
            r: vec![(k, 1.0)],
        });
        rows.push(Row {
            constant: 0.0,
            z: vec![(slip, 1.0)],
            r: vec![(t, 1.0)],
        });
        rows.push(Row {
            constant: 0.0,
            z: vec![(slip, 1.0)],
            r: vec![(t, -1.0)],
        });
        rows.push(Row {
            constant: 0.0,
            z: vec![(normal, coefficient), (plus, -1.0), (minus, -1.0)],
            r: vec![],
        });
    }
    let singles: Vec<usize> = p
        .blocks
        .iter()
        .filter(|(_, friction)| friction.is_none())
        .map(|&(k, _)| k)
        .collect();
    for k in singles {
        let (lo, hi) = bounds.get(p.rows[k], &p.mu);
        if lo > f64::NEG_INFINITY {
            let u = next();
            multiplier[k] = Multiplier {
                offset: lo,
                terms: vec![(u, 1.0)],
            };
            if hi < f64::INFINITY {
                let s = next();
                rows.push(Row {
                    constant: 0.0,
                    z: vec![(s, 1.0)],
                    r: vec![(k, 1.0)],
                });
                rows.push(Row {
                    constant: hi - lo,
                    z: vec![(u, -1.0)],
                    r: vec![],
                });
            } else {
                rows.push(Row {
                    constant: 0.0,
                    z: vec![],
                    r: vec![(k, 1.0)],
                });
            }
        } else if hi < f64::INFINITY {
            let v = next();
            multiplier[k] = Multiplier {
                offset: hi,
                terms: vec![(v, -1.0)],
            };
            rows.push(Row {
                constant: 0.0,
                z: vec![],
                r: vec![(k, -1.0)],
            });
        } else {
            // Free: no complementarity; kept where it is.
            multiplier[k].offset = p.mu[p.rows[k]];
        }
    }
    debug_assert_eq!(rows.len(), n);
    // r_k = r⁰_k + Σ_j A_kj (offset_j − μ⁰_j) + Σ_j A_kj Σ c z.
    let delassus = p.block(&(0..b).collect::<Vec<_>>(), &mut Vec::new());
    let mut r_constant = p.residual.clone();
    for k in 0..b {
        for j in 0..b {
            r_constant[k] += delassus[(k, j)] * (multiplier[j].offset - p.mu[p.rows[j]]);
        }
    }
    let mut q = vec![0.0; n];
    let mut m = vec![0.0; n * n];
    for (i, row) in rows.iter().enumerate() {
        q[i] = row.constant;
        for &(z, c) in &row.z {
            m[i * n + z] += c;
        }
        for &(k, sign) in &row.r {
            q[i] += sign * r_constant[k];
            for j in 0..b {
                let a = sign * delassus[(k, j)];
                if a != 0.0 {
                    for &(z, c) in &multiplier[j].terms {
                        m[i * n + z] += a * c;
                    }
                }
            }
        }
    }
    // `w = q + M z` is homogeneous in (q, z): solved at |q|∞ = 1, so that the pivots' ties
    // and floors compare numbers of the tableau's own size, whatever the residuals' scale.
    let size = q.iter().fold(0.0_f64, |a, v| a.max(v.abs()));
    if size > 0.0 {
        for v in &mut q {
            *v /= size;
        }
    }
    let Some(mut z) = lemke(&m, &q) else {
        return false;
    };
    for v in &mut z {
        *v *= size;
    }
    // The multipliers, and the residuals with them.
    let (mu, residual) = (p.mu.clone(), p.residual.clone());
    for k in 0..b {
        let mu = multiplier[k].offset
            + multiplier[k]
                .terms
                .iter()
                .map(|&(v, c)| c * z[v])
                .sum::<f64>();
        let delta = mu - p.mu[p.rows[k]];
        if delta != 0.0 {
            p.mu[p.rows[k]] = mu;
            for j in 0..b {
                p.residual[j] += delassus[(j, k)] * delta;
            }
        }
    }
    if crate::solve::coulomb::contact_problem::error(p, bounds) <= tolerance {
        return true;
    }
    p.mu = mu;
    p.residual = residual;
    false
}

/// Lemke's method with the covering vector 1 on `w = q + M z`, `w, z ≥ 0`, `wᵀz = 0`, and the
/// lexicographic ratio test: the solution `z`, or `None` on a ray or past the pivot cap.
fn lemke(m: &[f64], q: &[f64]) -> Option<Vec<f64>> {
    let n = q.len();
    if q.iter().all(|&v| v >= 0.0) {
        return Some(vec![0.0; n]);
    }
    // Tableau rows: w_i − Σ M_ij z_j − z0 = q_i, over the columns [w (n) | z (n) | z0 | q].
    let width = 2 * n + 2;
    let (z0, rhs) = (2 * n, 2 * n + 1);
    let mut t = vec![0.0; n * width];
    for i in 0..n {
        t[i * width + i] = 1.0;
        for j in 0..n {
            t[i * width + n + j] = -m[i * n + j];
        }
        t[i * width + z0] = -1.0;
        t[i * width + rhs] = q[i];
    }
    let mut basis: Vec<usize> = (0..n).collect();
    let pivot = |t: &mut [f64], row: usize, col: usize| {
        let p = t[row * width + col];
        for c in 0..width {
            t[row * width + c] /= p;
        }
        for i in (0..n).filter(|&i| i != row) {
            let f = t[i * width + col];
            if f != 0.0 {
                for c in 0..width {
                    t[i * width + c] -= f * t[row * width + c];
                }
            }
        }
    };
    // z0 enters where q is most negative.
    let first = (0..n).min_by(|&a, &b| q[a].total_cmp(&q[b]))?;
    pivot(&mut t, first, z0);
    let mut leaving = basis[first];
    basis[first] = z0;
    let scale = 1.0 + q.iter().fold(0.0_f64, |a, v| a.max(v.abs()));
    for _ in 0..PIVOTS_PER_ROW * n + 10 {
        // The complement of the variable that left enters.
        let enter = if leaving < n {
            leaving + n
        } else {
            leaving - n
        };
        let column: Vec<f64> = (0..n).map(|i| t[i * width + enter]).collect();
        let candidates: Vec<usize> = (0..n).filter(|&i| column[i] > PIVOT_FLOOR).collect();
        if candidates.is_empty() {
            return None;
        }
        // Lexicographic minimum ratio: the right-hand side, then the columns of B⁻¹ (the w
        // block), each over the entering column.
        let key = |i: usize, c: usize| t[i * width + c] / column[i];
        let mut best = candidates[0];
        for &i in &candidates[1..] {
            let mut order = std::cmp::Ordering::Equal;
            for c in std::iter::once(rhs).chain(0..n) {
                let (a, b) = (key(i, c), key(best, c));
                let tie = TIE * scale.max(a.abs()).max(b.abs());
                if (a - b).abs() > tie {
                    order = a.total_cmp(&b);
                    break;
                }
            }
            // Prefer z0 leaving on a tie: it ends the method.
            if order == std::cmp::Ordering::Less
                || (order == std::cmp::Ordering::Equal && basis[i] == z0)
            {
                best = i;
            }
        }
        pivot(&mut t, best, enter);
        leaving = basis[best];
        basis[best] = enter;
        if leaving == z0 {
            let mut z = vec![0.0; n];
            for (i, &v) in basis.iter().enumerate() {
                if (n..2 * n).contains(&v) {
                    z[v - n] = t[i * width + rhs].max(0.0);
                }
            }
            return Some(z);
        }
    }
    None
}

/// The most bounded rows Lemke's method takes on. Its tableau is dense, about `2b × 4b`, and
/// every pivot touches all of it, so a run that fails costs `O(b³)`: a 100-ball pile's 1,020
/// rows took over ten minutes a step. A larger problem takes the contacts' compliance and
/// Tresca's passes instead ([`super::contact_lcp`]).
pub(super) const LARGEST: usize = 200;
/// Pivots allowed per row before Lemke's method gives up.
const PIVOTS_PER_ROW: usize = 20;
/// Entries of the entering column at or below this are not pivots.
const PIVOT_FLOOR: f64 = 1e-12;
/// Ratios within this fraction of each other tie, and the next column decides.
const TIE: f64 = 1e-12;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solve::Bounds;
    use crate::solve::coulomb::contact_problem::tests::{one_contact, problem, violation};

    #[test]
    fn a_contact_sticks_slides_or_parts_as_coulomb_says() {
        one_contact(|p, bounds| solve(p, bounds, 1e-14));
    }

    #[test]
    fn a_limited_row_saturates_at_its_bound_and_a_contact_beside_it_closes() {
        // Row 0: a motor limited to |μ| ≤ 0.2 (in λ, at h² = 1) that asks for more; row 1 a
        // frictionless contact coupled to it.
        let inequality = [false, true];
        let own = [(-0.2, 0.2), (0.0, f64::INFINITY)];
        let friction = [None, None];
        let bounds = RowBounds::new(Bounds::new(&inequality, &own, &friction), 1.0);
        let a = [1.0, 0.4, 0.4, 1.0];
        let mut p = problem(&a, &[-1.0, -0.5]);
        assert!(solve(&mut p, &bounds, 1e-14));
        assert!((p.mu[0] - 0.2).abs() < 1e-15, "{:?}", p.mu);
        // At its upper bound the motor's residual may stay negative (it wants more).
        assert!(p.residual[0] < 0.0);
        assert!(
            p.residual[1].abs() < 1e-14 && p.mu[1] > 0.0,
            "{:?}",
            p.residual
        );
    }

    #[test]
    fn lemke_solves_a_small_lcp_and_reports_a_ray() {
        // w = q + M z with M positive definite: one solution.
        let m = [2.0, 1.0, 1.0, 2.0];
        let z = lemke(&m, &[-1.0, -1.0]).unwrap();
        assert!((z[0] - 1.0 / 3.0).abs() < 1e-15 && (z[1] - 1.0 / 3.0).abs() < 1e-15);
        // w = −1 − z has no solution with w ≥ 0: a ray.
        assert!(lemke(&[-1.0], &[-1.0]).is_none());
    }

    /// Redundant frictional contacts: `contacts` contacts on one body of three coordinates
    /// (more rows than the body has freedoms, so `A` is singular, as for a box's two corners
    /// on a face), with random directions and residuals `r` times `scale`, built from a small
    /// linear congruential generator so that the cases repeat.
    fn redundant(seed: u64, contacts: usize, scale: f64) -> ContactProblem {
        let mut state = seed;
        let mut random = move || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        };
        let b = 2 * contacts;
        // Each contact's normal row and friction row on (x, y, θ) with W = diag(1, 1, 4).
        let mut j = vec![[0.0; 3]; b];
        for c in 0..contacts {
            let angle = 0.3 * random();
            let (n, t) = ([angle.sin(), angle.cos()], [angle.cos(), -angle.sin()]);
            let arm = [random(), 0.2 * random()];
            let cross = |d: [f64; 2]| arm[0] * d[1] - arm[1] * d[0];
            j[2 * c] = [n[0], n[1], cross(n)];
            j[2 * c + 1] = [t[0], t[1], cross(t)];
        }
        let weight = [1.0, 1.0, 4.0];
        let mut a = vec![0.0; b * b];
        for r in 0..b {
            for s in 0..b {
                a[r * b + s] = (0..3).map(|k| j[r][k] * weight[k] * j[s][k]).sum();
            }
        }
        let residual: Vec<f64> = (0..b).map(|_| scale * random()).collect();
        problem(&a, &residual)
    }

    #[test]
    fn lemke_settles_redundant_frictional_contacts_at_any_scale_of_the_residuals() {
        // The residuals of an implicit step are displacements of a picometre near rest; the
        // pivots must decide among them as they do among metres (a domino chain coming to
        // rest ended on a false ray before the tableau was scaled).
        let mut inequality = Vec::new();
        let mut own = Vec::new();
        let mut friction = Vec::new();
        for c in 0..4 {
            inequality.extend([true, false]);
            own.extend([(0.0, f64::INFINITY), (f64::NEG_INFINITY, f64::INFINITY)]);
            friction.extend([None, Some((2 * c, 0.5))]);
        }
        let bounds = RowBounds::new(Bounds::new(&inequality, &own, &friction), 1.0);
        let pairs = [(0, 1), (2, 3), (4, 5), (6, 7)];
        for seed in 0..200 {
            let mut solutions = Vec::new();
            for scale in [1.0, 1e-12] {
                let mut p = redundant(seed, 4, scale);
                assert!(
                    solve(&mut p, &bounds, 1e-9 * scale),
                    "seed {seed}, scale {scale}"
                );
                assert!(
                    violation(&p, &pairs, 0.5) <= 1e-9 * scale,
                    "seed {seed}, scale {scale}: {:?} {:?}",
                    p.mu,
                    p.residual
                );
                solutions.push(p.mu.iter().map(|m| m / scale).collect::<Vec<_>>());
            }
            // The problem is homogeneous: the same answer, scaled.
            for (x, y) in solutions[0].iter().zip(&solutions[1]) {
                assert!((x - y).abs() <= 1e-6 * (1.0 + x.abs()), "seed {seed}");
            }
        }
    }
}
