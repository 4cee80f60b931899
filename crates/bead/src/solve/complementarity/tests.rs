//! The complementarity solve's own tests: small problems whose solutions are known.

use super::*;
use crate::math::sparse::BlockSparse;
use crate::solve::{Dense, SparseLdlt};

/// J with one dense row per entry of `rows` over `n` coordinates, each row its own band.
fn jacobian(n: usize, rows: &[&[f64]]) -> BlockSparse {
    let mut j = BlockSparse::new(n);
    for r in rows {
        let b = j.add_band(1, &[(0, n)]);
        j.block_values_mut(b).copy_from_slice(r);
    }
    j
}

/// Checks bounds and complementarity of a solution to 1e-10.
fn check(p: &Problem<'_>, lambda: &[f64], w: &[f64]) {
    let mut aw = vec![0.0; lambda.len()];
    p.a.apply(lambda, &mut aw, &mut vec![0.0; p.a.inv_mass().len()]);
    for i in 0..lambda.len() {
        let wi = aw[i] - p.b[i];
        assert!((wi - w[i]).abs() < 1e-10, "row {i}: w {} vs {wi}", w[i]);
        assert!(lambda[i] >= p.lo[i] - 1e-10 && lambda[i] <= p.hi[i] + 1e-10);
        let interior = lambda[i] > p.lo[i] + 1e-10 && lambda[i] < p.hi[i] - 1e-10;
        if interior {
            assert!(
                wi.abs() < 1e-10,
                "row {i}: interior λ {} but w {wi}",
                lambda[i]
            );
        } else if (lambda[i] - p.lo[i]).abs() <= 1e-10 && p.lo[i] != p.hi[i] {
            assert!(wi >= -1e-10, "row {i} at its lower bound with w {wi}");
        } else if p.lo[i] != p.hi[i] {
            assert!(wi <= 1e-10, "row {i} at its upper bound with w {wi}");
        }
    }
}

fn run(j: &BlockSparse, w_inv: &[f64], b: &[f64], lo: &[f64], hi: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let m = b.len();
    let w_inv = crate::solve::InverseMass::diagonal_of(w_inv.to_vec());
    let a = MultiplierMatrix::new(j, &w_inv);
    let allowance = vec![0.0; b.len()];
    let p = Problem {
        a,
        b,
        lo,
        hi,
        allowance: &allowance,
        slack: &[],
    };
    let mut results = Vec::new();
    for solver in [
        &mut Dense::default() as &mut dyn LinearSolver,
        &mut SparseLdlt::default(),
    ] {
        let (mut state, mut lambda, mut w) = (vec![RowState::Solve; m], vec![0.0; m], vec![0.0; m]);
        solve(
            &p,
            solver,
            &SolveParams::default(),
            1e-12,
            &mut state,
            &mut lambda,
            &mut w,
            &mut Workspace::default(),
        )
        .unwrap();
        check(&p, &lambda, &w);
        results.push((lambda, w));
    }
    results.swap_remove(0)
}

/// Seed 004's corner, f = (−1, −2), m = 1: both contacts push, λ = (1, 3), q̈ = 0.
#[test]
fn corner_pushed_into_both_walls() {
    let j = jacobian(2, &[&[1.0, -1.0], &[0.0, 1.0]]);
    // b = d − J W f with d = 0.
    let f = [-1.0, -2.0];
    let b: Vec<f64> = [[1.0, -1.0], [0.0, 1.0]]
        .iter()
        .map(|r| -(r[0] * f[0] + r[1] * f[1]))
        .collect();
    let (lambda, _) = run(&j, &[1.0, 1.0], &b, &[0.0; 2], &[f64::INFINITY; 2]);
    assert!((lambda[0] - 1.0).abs() < 1e-12 && (lambda[1] - 3.0).abs() < 1e-12);
}

/// The corner with f = (2, −1): only the floor pushes, λ = (0, 1) (eq. 13).
#[test]
fn corner_sliding_along_the_floor() {
    let j = jacobian(2, &[&[1.0, -1.0], &[0.0, 1.0]]);
    // m = 2: b = −J W f = −J (1, −½).
    let b = [-1.5, 0.5];
    let (lambda, w) = run(&j, &[0.5, 0.5], &b, &[0.0; 2], &[f64::INFINITY; 2]);
    assert_eq!(lambda[0], 0.0);
    assert!((lambda[1] - 1.0).abs() < 1e-12);
    assert!(w[0] > 0.0);
}

/// A redundant set: four identical floor contacts under one particle share its weight;
/// exactly one is held (the held set stays independent).
#[test]
fn duplicated_contacts() {
    let row: &[f64] = &[0.0, 1.0];
    let j = jacobian(2, &[row; 4]);
    let b = [9.81; 4];
    let (lambda, _) = run(&j, &[1.0, 1.0], &b, &[0.0; 4], &[f64::INFINITY; 4]);
    assert!((lambda.iter().sum::<f64>() - 9.81).abs() < 1e-12);
}

/// A boxed row: a motor limited to ±2 asked for 5 stops at 2; asked for 1 gives 1.
#[test]
fn boxed_rows_saturate() {
    let j = jacobian(1, &[&[1.0]]);
    let (lambda, w) = run(&j, &[1.0], &[5.0], &[-2.0], &[2.0]);
    assert_eq!(lambda[0], 2.0);
    assert!((w[0] + 3.0).abs() < 1e-12);
    let (lambda, _) = run(&j, &[1.0], &[-1.0], &[-2.0], &[2.0]);
    assert!((lambda[0] + 1.0).abs() < 1e-12);
    let (lambda, _) = run(&j, &[1.0], &[-7.0], &[-2.0], &[2.0]);
    assert_eq!(lambda[0], -2.0);
}

/// Rows that cannot all hold (a duplicate asking for something else) are reported.
#[test]
fn conflicting_contact_is_reported() {
    let j = jacobian(1, &[&[1.0], &[-1.0]]);
    // Row 0 wants ẍ ≥ 1, row 1 wants −ẍ ≥ 1: no solution.
    let w = crate::solve::InverseMass::diagonal_of(vec![1.0]);
    let a = MultiplierMatrix::new(&j, &w);
    let (lo, hi) = ([0.0; 2], [f64::INFINITY; 2]);
    let p = Problem {
        a,
        b: &[1.0, 1.0],
        lo: &lo,
        hi: &hi,
        allowance: &[0.0; 2],
        slack: &[],
    };
    let (mut state, mut lambda, mut w) = (vec![RowState::Solve; 2], vec![0.0; 2], vec![0.0; 2]);
    let err = solve(
        &p,
        &mut Dense::default(),
        &SolveParams::default(),
        1e-12,
        &mut state,
        &mut lambda,
        &mut w,
        &mut Workspace::default(),
    )
    .unwrap_err();
    assert!(
        matches!(err, Failure::Unbounded { .. } | Failure::PivotLimit { .. }),
        "{err}"
    );
}

/// A caller's pivot limit stops a solve that needs more pivots, with the rows it left, and
/// leaves one that needs fewer alone: five independent contacts pressed in, every one of them at
/// λ = 0 to start, take one pivot each.
#[test]
fn a_pivot_limit_stops_a_solve_that_needs_more_pivots() {
    let m = 5;
    let rows: Vec<Vec<f64>> = (0..m)
        .map(|i| (0..m).map(|k| if k == i { 1.0 } else { 0.0 }).collect())
        .collect();
    let rows: Vec<&[f64]> = rows.iter().map(|r| r.as_slice()).collect();
    let j = jacobian(m, &rows);
    let w_inv = crate::solve::InverseMass::diagonal_of(vec![1.0; m]);
    let (b, lo, hi) = (vec![1.0; m], vec![0.0; m], vec![f64::INFINITY; m]);
    let allowance = vec![0.0; m];
    let p = Problem {
        a: MultiplierMatrix::new(&j, &w_inv),
        b: &b,
        lo: &lo,
        hi: &hi,
        allowance: &allowance,
        slack: &[],
    };
    let attempt = |limit: Option<usize>| {
        let mut ws = Workspace {
            pivot_limit: limit,
            ..Workspace::default()
        };
        let (mut state, mut lambda, mut w) = (vec![RowState::Lower; m], vec![0.0; m], vec![0.0; m]);
        let result = solve(
            &p,
            &mut SparseLdlt::default(),
            &SolveParams::default(),
            1e-12,
            &mut state,
            &mut lambda,
            &mut w,
            &mut ws,
        );
        (result, lambda)
    };
    let (unlimited, lambda) = attempt(None);
    assert_eq!(unlimited.expect("solves").pivots, m);
    assert_eq!(lambda, vec![1.0; m]);
    let (enough, _) = attempt(Some(m));
    assert_eq!(enough.expect("solves within its limit").pivots, m);
    match attempt(Some(2)).0 {
        Err(Failure::PivotLimit { pivots, rows }) => {
            assert_eq!(pivots, 3, "stops at the first pivot past its limit");
            assert_eq!(rows, vec![3, 4], "names the rows still pressed in");
        }
        other => panic!("expected the pivot limit, got {other:?}"),
    }
}
