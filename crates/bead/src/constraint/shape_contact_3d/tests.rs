//! The 3D contact's rows against differences and polarization, its refusals, its witness.

use super::*;
// The rows on points against differences and polarization, as the 3D joints' are (the
// chain rule through the bodies is the points' own, tested with them).
use crate::constraint::dot_rows::tests::{bodies, check};

#[test]
fn rows_agree_with_differences_and_polarization() {
    let (a, b) = bodies();
    let x = [0.3, -0.2, 0.9, 0.1, 0.4, -0.5, 0.2, 0.1, 0.3];
    let v = [0.7, -1.1, 0.2, -0.4, 0.9, 0.5, 0.3, -0.6, 1.2];
    let face = Gap3d::Face {
        a: [0.1, 0.0, 0.0],
        b: [0.0; 3],
        normal: [0.0, 0.0, 1.0],
    };
    check(
        &ShapeContact3d::new(a, b, face, [0.05, 0.0]),
        &x12(&x),
        &x12(&v),
    );
    let round = Gap3d::Round {
        a: [0.0; 3],
        b: [0.2, 0.0, 0.0],
    };
    check(
        &ShapeContact3d::new(a, b, round, [0.1, 0.2]),
        &x12(&x),
        &x12(&v),
    );
    let line = Gap3d::Line {
        a: [0.0; 3],
        b: [0.2, 0.0, 0.0],
        direction: [0.0, 0.6, 0.8],
    };
    check(
        &ShapeContact3d::new(a, b, line, [0.1, 0.0]),
        &x12(&x),
        &x12(&v),
    );
    let edges = Gap3d::Edges {
        a: [[0.0; 3], [1.0, 0.2, 0.0]],
        b: [[0.2, 0.0, 0.0], [0.3, 1.0, 0.1]],
    };
    check(
        &ShapeContact3d::new(a, b, edges, [0.0, 0.0]),
        &x12(&x),
        &x12(&v),
    );
    let within = Gap3d::Within {
        a: [0.0; 3],
        b: [0.2, 0.0, 0.0],
        radius: 1.5,
    };
    check(
        &ShapeContact3d::new(a, b, within, [0.1, 0.0]),
        &x12(&x),
        &x12(&v),
    );
    let rim = Gap3d::Rim {
        a: [0.0; 3],
        b: [0.2, 0.0, 0.0],
        axis: [0.0, 0.6, 0.8],
        radius: 0.3,
    };
    check(
        &ShapeContact3d::new(a, b, rim, [0.1, 0.0]),
        &x12(&x),
        &x12(&v),
    );
    let circle = Gap3d::Circle {
        a: [0.0; 3],
        axis: [0.0, 0.6, 0.8],
        radius: 0.3,
        b: [0.2, 0.0, 0.0],
        normal: [0.0, 0.0, 1.0],
    };
    check(
        &ShapeContact3d::new(a, b, circle, [0.1, 0.0]),
        &x12(&x),
        &x12(&v),
    );
}

/// Four points from three (the fourth a little off the first).
fn x12(x: &[f64; 9]) -> Vec<f64> {
    let mut out = x.to_vec();
    out.extend([x[0] + 0.7, x[1] - 0.3, x[2] + 0.4]);
    out
}

#[test]
fn bad_contacts_are_refused_with_the_field() {
    let (a, b) = bodies();
    let tilted = Gap3d::Face {
        a: [0.0; 3],
        b: [0.0; 3],
        normal: [0.0, 0.0, 2.0],
    };
    let e = ShapeContact3d::new(a, b, tilted, [0.0, 0.0]).check(3);
    assert!(e.unwrap_err().to_string().contains("unit vector"));
    let round = Gap3d::Round {
        a: [0.0; 3],
        b: [0.0; 3],
    };
    let e = ShapeContact3d::new(a, b, round, [-0.1, 0.0]).check(3);
    assert!(e.unwrap_err().to_string().contains("radius"));
    assert!(
        ShapeContact3d::new(a, b, round, [0.1, 0.0])
            .check(2)
            .is_err()
    );
    // Two edges each along its own box's x axis cross where the boxes are turned apart:
    // their frames cannot say whether they are parallel (a tumbling tower's step failed on
    // that). A point given twice is no edge.
    let along_x = Gap3d::Edges {
        a: [[0.0; 3], [1.0, 0.0, 0.0]],
        b: [[0.0, 0.0, 0.3], [1.0, 0.0, 0.3]],
    };
    assert!(
        ShapeContact3d::new(a, b, along_x, [0.0, 0.0])
            .check(3)
            .is_ok()
    );
    let point = Gap3d::Edges {
        a: [[0.0; 3], [0.0; 3]],
        b: [[0.0, 0.0, 0.3], [1.0, 0.0, 0.3]],
    };
    let e = ShapeContact3d::new(a, b, point, [0.0, 0.0]).check(3);
    assert!(e.unwrap_err().to_string().contains("no direction"));
}

/// The marked point lies midway between the surfaces, for every kind of features.
#[test]
fn the_witness_lies_midway_between_the_surfaces() {
    let (a, b) = bodies();
    let at = |gap: Gap3d, radii: [f64; 2], x: [[f64; 3]; 4]| {
        ShapeContact3d::new(a, b, gap, radii).witness(&x).unwrap()
    };
    let close = |p: [f64; 3], q: [f64; 3]| (0..3).all(|k| (p[k] - q[k]).abs() < 1e-12);
    let o = [0.0; 3];
    // A ball of radius 0.5 centred 0.6 above a face through the origin: 0.1 apart.
    let face = Gap3d::Face {
        a: o,
        b: o,
        normal: [0.0, 0.0, 1.0],
    };
    let x = [[0.2, 0.0, 0.6], o, [0.0, 0.0, 1.0], [0.2, 0.0, 0.6]];
    assert!(close(at(face, [0.5, 0.0], x), [0.2, 0.0, 0.05]));
    // The same ball over a line along x.
    let line = Gap3d::Line {
        a: o,
        b: o,
        direction: [1.0, 0.0, 0.0],
    };
    let x = [[0.2, 0.0, 0.6], o, [1.0, 0.0, 0.0], [0.2, 0.0, 0.6]];
    assert!(close(at(line, [0.5, 0.0], x), [0.2, 0.0, 0.05]));
    // Two spheres of radii 0.5 and 0.3 whose centres are 1 m apart along y.
    let round = Gap3d::Round { a: o, b: o };
    let x = [[0.0, 1.0, 0.0], o, o, [0.0, 1.0, 0.0]];
    assert!(close(at(round, [0.5, 0.3], x), [0.0, 0.4, 0.0]));
    // An edge along x at height 0.1 crossing one along y through the origin.
    let edges = Gap3d::Edges {
        a: [o, [1.0, 0.0, 0.0]],
        b: [o, [0.0, 1.0, 0.0]],
    };
    let x = [
        [-1.0, 0.3, 0.1],
        [0.2, -1.0, 0.0],
        [0.2, 1.0, 0.0],
        [1.0, 0.3, 0.1],
    ];
    assert!(close(at(edges, [0.0, 0.0], x), [0.2, 0.3, 0.05]));
    // A ball of radius 0.5 whose centre is 1.2 m along z from the centre of a bowl's sphere
    // of radius 2: its surface 1.7 m out, the bowl's 2 m, the mark between at 1.85 m.
    let within = Gap3d::Within {
        a: o,
        b: o,
        radius: 2.0,
    };
    let x = [[0.0, 0.0, 1.2], o, o, [0.0, 0.0, 1.2]];
    assert!(close(at(within, [0.5, 0.0], x), [0.0, 0.0, 1.85]));
    // A ball of radius 0.5 whose centre is 1 m above a rim of radius 2 about the z axis: its
    // surface 0.5 m above the rim, the mark halfway.
    let rim = Gap3d::Rim {
        a: o,
        b: o,
        axis: [0.0, 0.0, 1.0],
        radius: 2.0,
    };
    let x = [[2.0, 0.0, 1.0], o, [0.0, 0.0, 1.0], [2.0, 0.0, 1.0]];
    assert!(close(at(rim, [0.5, 0.0], x), [2.0, 0.0, 0.25]));
}

/// The friction rows of every kind of features: no value, `Ċ = t·(v(p_a) − v(p_b))` with
/// `t` a unit tangent, `J̇ẋ` the rate of `Ċ` along the motion, and a Hessian that is the
/// polarization of that `J̇ẋ`.
#[test]
fn friction_rows_agree_with_differences_and_polarization() {
    use crate::constraint::{HessianEval, evaluate_at, hessian_at, polarized_hessian};
    let (a, b) = bodies();
    let o = [0.0; 3];
    let gaps = [
        Gap3d::Face {
            a: [0.1, 0.0, 0.0],
            b: o,
            normal: [0.0, 0.0, 1.0],
        },
        Gap3d::Round {
            a: o,
            b: [0.2, 0.0, 0.0],
        },
        Gap3d::Line {
            a: o,
            b: o,
            direction: [1.0, 0.0, 0.0],
        },
        Gap3d::Edges {
            a: [o, [1.0, 0.0, 0.0]],
            b: [o, [0.0, 1.0, 0.0]],
        },
        Gap3d::Within {
            a: o,
            b: [0.2, 0.0, 0.0],
            radius: 1.5,
        },
        Gap3d::Rim {
            a: o,
            b: [0.2, 0.0, 0.0],
            axis: [0.0, 0.6, 0.8],
            radius: 0.3,
        },
    ];
    // Six points: the gap's four (a face's second point one metre along its normal from
    // the first), then the two touching points.
    let x = [
        0.3, -0.2, 0.9, 0.1, 0.4, -0.5, 0.1, 0.4, 0.5, 1.0, 0.1, 0.7, 0.25, -0.1, 0.2, 0.2, 0.0,
        0.1,
    ];
    let v = [
        0.7, -1.1, 0.2, -0.4, 0.9, 0.5, 0.3, -0.6, 1.2, 0.2, 0.8, -0.3, -0.5, 0.4, 0.9, 0.6, -0.2,
        0.3,
    ];
    for gap in gaps {
        let c = ShapeContact3d::new(a, b, gap, [0.05, 0.0]).with_friction(
            0.5,
            [[0.0; 3], [0.1, 0.0, 0.0]],
            [0.3, 1.0, 0.2],
        );
        assert_eq!(c.rows(3), 3);
        let e = evaluate_at(&c, 3, 0.0, &x, &v).unwrap_or_else(|e| panic!("{e}"));
        let h = 1e-6;
        let moved = |s: f64| {
            let x: Vec<f64> = x.iter().zip(&v).map(|(x, v)| x + s * v).collect();
            evaluate_at(&c, 3, 0.0, &x, &v).unwrap_or_else(|e| panic!("{e}"))
        };
        let (plus, minus) = (moved(h), moved(-h));
        for r in 1..3 {
            assert_eq!(e.c[r], 0.0);
            let t = &e.gradient[r][12..15];
            assert!((t.iter().map(|x| x * x).sum::<f64>() - 1.0).abs() < 1e-12);
            let rate = (plus.c_dot[r] - minus.c_dot[r]) / (2.0 * h);
            assert!(
                (rate - e.jdot_xdot[r]).abs() < 1e-7 * (1.0 + rate.abs()),
                "{gap:?} row {r}: {rate} vs {}",
                e.jdot_xdot[r]
            );
        }
        // The two tangents and the normal row's gradient on the touching points: none.
        assert!(e.gradient[0][12..].iter().all(|&g| g == 0.0));
        let weights = [0.0, 0.7, -0.4];
        let hand = hessian_at(&c, 3, 0.0, &x, &weights).unwrap_or_else(|e| panic!("{e}"));
        let offsets: Vec<usize> = (0..=6).map(|k| 3 * k).collect();
        let at = HessianEval {
            t: 0.0,
            dim: 3,
            offsets: &offsets,
            x: &x,
            start: None,
        };
        let mut polar = vec![0.0; x.len() * x.len()];
        polarized_hessian(&c, &at, &weights, &mut polar).unwrap_or_else(|e| panic!("{e}"));
        for (p, q) in hand.iter().zip(&polar) {
            assert!((p - q).abs() < 1e-8, "{gap:?}: {p} vs {q}");
        }
    }
}
