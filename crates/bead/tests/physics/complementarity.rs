//! The exact complementarity solve (`inequality = "lcp"`): redundant and degenerate contact sets
//! against their known solutions, complementarity residuals, and conflicts reported by name.
//!
//! Regression (issue "physics at the seams", item 6): `lcp` used to pivot one row per full solve,
//! gave up after 4n + 10 pivots and reported that as "… is not finite".

use bead::constraint::{HalfPlane, Linear, Nail};
use bead::force::{ConstantForce, Gravity};
use bead::models::G;
use bead::{
    ConstraintId, InequalityMethod, Motion, Particle, Point, RigidBody, Settings, Shape, System,
};

fn lcp() -> Settings {
    Settings {
        inequality: InequalityMethod::Lcp,
        ..Settings::default()
    }
}

/// `(λ_k, w_k)` of every row of `ids`, with `w = J q̈ − d` recomputed from the diagnostics:
/// the row's acceleration minus its target `d = −J̇q̇ − k_s g − k_d ġ`.
fn rows(sys: &mut System, ids: &[ConstraintId]) -> Vec<(f64, f64)> {
    let qdd = sys.acceleration().unwrap().to_vec();
    let f = sys.settings().feedback;
    let d = sys.diagnostics().unwrap();
    let mut out = Vec::new();
    for id in ids {
        let r = d.constraint(*id).unwrap();
        for k in 0..r.lambda.len() {
            let mut j_qdd = 0.0;
            for (body, block) in &r.jacobian {
                let a = sys.body_slice(*body, &qdd);
                let n = a.len();
                j_qdd += (0..n).map(|c| block[k * n + c] * a[c]).sum::<f64>();
            }
            let target = -r.jdot_qdot[k] - f.ks * r.c[k] - f.kd * r.c_dot[k];
            out.push((r.lambda[k], j_qdd - target));
        }
    }
    out
}

/// λ ≥ 0, w ≥ 0 and the natural residual |min(λ, w)| within `tol` on every row.
fn assert_complementary(rows: &[(f64, f64)], tol: f64) {
    for (k, &(lambda, w)) in rows.iter().enumerate() {
        assert!(lambda >= -tol, "row {k}: λ = {lambda:e}");
        assert!(w >= -tol, "row {k}: w = {w:e}");
        assert!(
            lambda.min(w).abs() <= tol,
            "row {k}: λ = {lambda:e}, w = {w:e}"
        );
    }
}

/// A box resting on a floor on four contact points of its bottom edge (two corners and two
/// between): four rows for two degrees of freedom (y, θ). The forces are not unique; their
/// resultant is: Σλ = m g and no moment about the centre, the box does not move, and each row is
/// complementary. With an off-centre push down, the moment balance moves the resultant.
#[test]
fn box_on_four_contacts() {
    let (w, h, m) = (1.0, 0.4, 2.0);
    for push in [0.0, 5.0] {
        let mut sys = System::new(2).unwrap();
        let body = sys
            .add_rigid_body(RigidBody::new(&[0.0, h / 2.0], 0.0).shape(
                Shape::Box {
                    width: w,
                    height: h,
                },
                m / (w * h),
            ))
            .unwrap();
        sys.add_force(Gravity::new(&[0.0, -G])).unwrap();
        // A push straight down at x = 0.3.
        let at = Point::on_body(body, [0.3, h / 2.0]);
        sys.add_force(ConstantForce::new(at, &[0.0, -push]))
            .unwrap();
        let xs = [-w / 2.0, -w / 4.0, w / 4.0, w / 2.0];
        let contacts: Vec<ConstraintId> = xs
            .iter()
            .map(|&x| {
                sys.add_constraint(HalfPlane::new(
                    Point::on_body(body, [x, -h / 2.0]),
                    Motion::fixed(&[0.0, 0.0]),
                    &[0.0, 1.0],
                    0.0,
                ))
                .unwrap()
            })
            .collect();
        sys.set_settings(lcp()).unwrap();
        for _ in 0..100 {
            sys.step(1e-3).unwrap();
        }
        let r = rows(&mut sys, &contacts);
        assert_complementary(&r, 1e-10);
        let total: f64 = r.iter().map(|(l, _)| l).sum();
        let moment: f64 = r.iter().zip(xs).map(|((l, _), x)| l * x).sum::<f64>() - 0.3 * push;
        assert!((total - m * G - push).abs() < 1e-9, "Σλ = {total}");
        assert!(moment.abs() < 1e-9, "moment {moment}");
        let q = sys.coordinates(body);
        assert!((q[1] - h / 2.0).abs() < 1e-9 && q[2].abs() < 1e-9, "{q:?}");
    }
}

/// A ball wedged in a V of half-angle 30° under gravity and a sideways push f: both walls push,
/// with the forces that balance m g and f; a third wall duplicating one side changes nothing.
#[test]
fn ball_wedged_in_a_v() {
    let (m, r, f) = (1.5, 0.1, 2.0);
    let a = 30f64.to_radians();
    // Wall normals point into the V: left wall (cos a, sin a), right wall (−cos a, sin a).
    let (n1, n2) = ([a.cos(), a.sin()], [-a.cos(), a.sin()]);
    // λ₁ n₁ + λ₂ n₂ = (−f, m g).
    let det = n1[0] * n2[1] - n2[0] * n1[1];
    let l1 = (-f * n2[1] - n2[0] * m * G) / det;
    let l2 = (n1[0] * m * G + f * n1[1]) / det;
    for duplicate in [false, true] {
        let mut sys = System::new(2).unwrap();
        // Touching both walls through the origin: at distance r from each.
        let ball = sys
            .add_particle(Particle::new(&[0.0, r / a.sin()]).mass(m).radius(r))
            .unwrap();
        sys.add_force(Gravity::new(&[0.0, -G])).unwrap();
        sys.add_force(ConstantForce::new(ball, &[f, 0.0])).unwrap();
        let mut walls = vec![
            sys.add_constraint(HalfPlane::new(ball, Motion::fixed(&[0.0, 0.0]), &n1, r))
                .unwrap(),
            sys.add_constraint(HalfPlane::new(ball, Motion::fixed(&[0.0, 0.0]), &n2, r))
                .unwrap(),
        ];
        if duplicate {
            walls.push(
                sys.add_constraint(HalfPlane::new(ball, Motion::fixed(&[0.0, 0.0]), &n2, r))
                    .unwrap(),
            );
        }
        sys.set_settings(lcp()).unwrap();
        for _ in 0..100 {
            sys.step(1e-3).unwrap();
        }
        let rw = rows(&mut sys, &walls);
        assert_complementary(&rw, 1e-10);
        assert!((rw[0].0 - l1).abs() < 1e-9, "λ₁ = {} vs {l1}", rw[0].0);
        let right: f64 = rw[1..].iter().map(|(l, _)| l).sum();
        assert!((right - l2).abs() < 1e-9, "λ₂ = {right} vs {l2}");
        assert!(sys.velocity(ball).iter().all(|v| v.abs() < 1e-9));
    }
}

/// The paper's corner (fig. 1) with the exact solve: f = (2, −1) slides along the floor with
/// λ = (0, 1); f = (−1, −2) is held in the corner with λ = (1, 3).
#[test]
fn paper_corner_with_the_exact_solve() {
    for (f, expected) in [([2.0, -1.0], [0.0, 1.0]), ([-1.0, -2.0], [1.0, 3.0])] {
        let mut sys = System::new(2).unwrap();
        let p = sys.add_particle(Particle::new(&[0.0, 0.0])).unwrap();
        sys.add_force(ConstantForce::new(p, &f)).unwrap();
        let g = [
            sys.add_constraint(Linear::new(p, &[1.0, -1.0], 0.0))
                .unwrap(),
            sys.add_constraint(Linear::new(p, &[0.0, 1.0], 0.0))
                .unwrap(),
        ];
        sys.set_settings(lcp()).unwrap();
        let r = rows(&mut sys, &g);
        assert_complementary(&r, 1e-10);
        for k in 0..2 {
            assert!((r[k].0 - expected[k]).abs() < 1e-12, "f = {f:?}: λ = {r:?}");
        }
    }
}

/// A contact no force can satisfy — a ball nailed 5 cm below a floor it must stay above — fails
/// the step with an error naming the floor, not a NaN or a mislabelled message.
#[test]
fn unsatisfiable_contact_is_named() {
    for method in [InequalityMethod::Lcp, InequalityMethod::Jonquet] {
        let mut sys = System::new(2).unwrap();
        let ball = sys.add_particle(Particle::new(&[0.0, 0.05])).unwrap();
        sys.add_constraint(Nail::new(ball, &[0.0, 0.05])).unwrap();
        let floor = sys
            .add_constraint(HalfPlane::new(
                ball,
                Motion::fixed(&[0.0, 0.1]),
                &[0.0, 1.0],
                0.0,
            ))
            .unwrap();
        sys.set_constraint_name(floor, "floor").unwrap();
        sys.set_settings(Settings {
            inequality: method,
            ..Settings::default()
        })
        .unwrap();
        let err = sys.step(1e-3).unwrap_err().to_string();
        assert!(err.contains("floor"), "{method:?}: {err}");
        assert!(!err.contains("not finite"), "{err}");
    }
}
