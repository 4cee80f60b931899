//! A small dense complementarity problem `w = A x + q ≥ 0, x ≥ 0, xᵀ w = 0`, solved exactly by
//! trying the held sets in turn: the impulses of one contact manifold (the two to four points
//! where one pair of shapes touches) taken at once, as Box2D's block solver does for two points.
//!
//! Why enumeration: a manifold has at most four points, so at most sixteen held sets, each a
//! Cholesky factor of at most 4×4. Four coplanar corners make `A` singular (rank three); the
//! held set of a basic solution is independent, so only sets whose `A_SS` factors well are
//! tried. With `A = J W Jᵀ` positive semi-definite the velocities `J W Jᵀ x + q` are the same
//! for every solution, so which one is found first does not change the motion.

/// Largest problem solved by enumeration (`2ⁿ` held sets).
pub(crate) const MAX_ROWS: usize = 6;

/// A pivot below this share of the largest diagonal entry means the held set is dependent.
const DEPENDENT: f64 = 1e-10;

/// `x ≥ 0` with `w = A x + q ≥ −tolerance` and `x_k w_k = 0`, for `A` row-major `n × n`
/// symmetric positive semi-definite: `None` if no held set gives one (more than [`MAX_ROWS`]
/// rows, or an inconsistent problem).
pub(crate) fn solve_small(a: &[f64], q: &[f64], tolerance: f64) -> Option<Vec<f64>> {
    let n = q.len();
    if n > MAX_ROWS || a.len() != n * n {
        return None;
    }
    if q.iter().all(|&x| x >= -tolerance) {
        return Some(vec![0.0; n]);
    }
    let largest = (0..n).fold(0.0_f64, |m, k| m.max(a[k * n + k]));
    if !(largest > 0.0) {
        return None;
    }
    // Larger held sets first: the manifold's points share the impulse where they can.
    let mut sets: Vec<u32> = (1..(1u32 << n)).collect();
    sets.sort_by_key(|s| std::cmp::Reverse(s.count_ones()));
    let mut x = vec![0.0; n];
    for set in sets {
        let held: Vec<usize> = (0..n).filter(|&k| set & (1 << k) != 0).collect();
        if !solve_held(a, q, n, &held, largest, &mut x) {
            continue;
        }
        let scale = x.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
        if held.iter().any(|&k| x[k] < -1e-12 * scale) {
            continue;
        }
        for &k in &held {
            x[k] = x[k].max(0.0);
        }
        let feasible = (0..n).filter(|k| set & (1 << k) == 0).all(|k| {
            let w: f64 = (0..n).map(|j| a[k * n + j] * x[j]).sum::<f64>() + q[k];
            w >= -tolerance
        });
        if feasible {
            return Some(x);
        }
    }
    None
}

/// Solves `A_SS x_S = −q_S` for the `held` rows by Cholesky, leaving the other entries of `x`
/// zero: `false` if `A_SS` is dependent (a pivot below [`DEPENDENT`] of `largest`).
fn solve_held(a: &[f64], q: &[f64], n: usize, held: &[usize], largest: f64, x: &mut [f64]) -> bool {
    let m = held.len();
    let mut l = vec![0.0; m * m];
    for i in 0..m {
        for j in 0..=i {
            let mut s = a[held[i] * n + held[j]];
            for k in 0..j {
                s -= l[i * m + k] * l[j * m + k];
            }
            if i == j {
                if !(s > DEPENDENT * largest) {
                    return false;
                }
                l[i * m + i] = s.sqrt();
            } else {
                l[i * m + j] = s / l[j * m + j];
            }
        }
    }
    let mut y: Vec<f64> = held.iter().map(|&k| -q[k]).collect();
    for i in 0..m {
        for k in 0..i {
            y[i] -= l[i * m + k] * y[k];
        }
        y[i] /= l[i * m + i];
    }
    for i in (0..m).rev() {
        for k in i + 1..m {
            y[i] -= l[k * m + i] * y[k];
        }
        y[i] /= l[i * m + i];
    }
    x.fill(0.0);
    for (i, &k) in held.iter().enumerate() {
        x[k] = y[i];
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `J W Jᵀ` of a cube of mass `m` and edge 2 (half-edge 1) on its four bottom corners, for
    /// the normal along z: `1/m + (r_i × n)·I⁻¹(r_j × n)`, with `I = 2m/3`.
    fn cube_corners(m: f64) -> (Vec<f64>, [[f64; 2]; 4]) {
        let corners = [[1.0, 1.0], [1.0, -1.0], [-1.0, -1.0], [-1.0, 1.0]];
        let inertia = 2.0 * m / 3.0;
        let mut a = vec![0.0; 16];
        for i in 0..4 {
            for j in 0..4 {
                // r × ẑ = (r_y, −r_x, 0).
                let dot = corners[i][1] * corners[j][1] + corners[i][0] * corners[j][0];
                a[i * 4 + j] = 1.0 / m + dot / inertia;
            }
        }
        (a, corners)
    }

    fn w(a: &[f64], q: &[f64], x: &[f64]) -> Vec<f64> {
        let n = q.len();
        (0..n)
            .map(|k| (0..n).map(|j| a[k * n + j] * x[j]).sum::<f64>() + q[k])
            .collect()
    }

    #[test]
    fn a_cube_landing_flat_stops_flat_though_its_four_corners_are_dependent() {
        let m = 3.0;
        let (a, corners) = cube_corners(m);
        let q = [-2.0; 4];
        let x = solve_small(&a, &q, 1e-12).unwrap();
        // Every corner stops: no spin, whichever corners carry the impulse.
        for wk in w(&a, &q, &x) {
            assert!(wk.abs() < 1e-12, "{wk}");
        }
        assert!(x.iter().all(|&p| p >= 0.0));
        // The impulses sum to the momentum removed and give no torque.
        let total: f64 = x.iter().sum();
        assert!((total - m * 2.0).abs() < 1e-12, "{total}");
        for axis in 0..2 {
            let torque: f64 = (0..4).map(|k| x[k] * corners[k][axis]).sum();
            assert!(torque.abs() < 1e-12, "{torque}");
        }
    }

    #[test]
    fn a_tilted_landing_pushes_only_where_the_corners_approach() {
        let (a, _) = cube_corners(1.0);
        // Corners 0 and 1 approach, 2 and 3 separate fast enough to stay free.
        let q = [-1.0, -1.0, 3.0, 3.0];
        let x = solve_small(&a, &q, 1e-12).unwrap();
        let after = w(&a, &q, &x);
        for k in 0..4 {
            assert!(x[k] >= 0.0 && after[k] >= -1e-12, "{x:?} {after:?}");
            assert!((x[k] * after[k]).abs() < 1e-12, "{x:?} {after:?}");
        }
        assert!(x[2] == 0.0 && x[3] == 0.0 && x[0] > 0.0, "{x:?}");
    }

    #[test]
    fn nothing_approaching_needs_no_impulse_and_too_many_rows_are_refused() {
        let (a, _) = cube_corners(1.0);
        assert_eq!(
            solve_small(&a, &[0.0, 1.0, 2.0, 0.0], 0.0),
            Some(vec![0.0; 4])
        );
        let n = MAX_ROWS + 1;
        let big: Vec<f64> = (0..n * n)
            .map(|k| if k % (n + 1) == 0 { 1.0 } else { 0.0 })
            .collect();
        assert_eq!(solve_small(&big, &vec![-1.0; n], 0.0), None);
    }
}
