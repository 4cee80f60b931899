//! Every hand-written constraint against the same C written once as a scalar function and
//! differentiated by dual numbers: C, ∇C, Ċ, J̇ẋ and the Hessian ∇²C (the geometric stiffness of
//! the implicit stepper) agree on random states. (Joints between rigid
//! bodies, gears and racks included, are compared in `rigid.rs`, through a system's Jacobian.)

use bead::autodiff::{Custom, DualNum, Scalar};
use bead::constraint::{
    AngleLimit, Constraint, Distance, HalfPlane, Linear, Motor, Nail, NonPenetration, OnCircle,
    OnLine, OnPlane, OnSphere, evaluate_at, hessian_at,
};
use bead::{Motion, Operand, Particle, RigidBody, RigidBodyId, System};
use proptest::prelude::*;

/// Compares a built-in's rows against one custom constraint per row.
fn compare(
    builtin: &dyn Constraint,
    rows: &[Custom],
    dim: usize,
    t: f64,
    x: &[f64],
    v: &[f64],
) -> Result<(), TestCaseError> {
    let b = evaluate_at(builtin, dim, t, x, v).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(b.c.len(), rows.len());
    for (r, custom) in rows.iter().enumerate() {
        let a =
            evaluate_at(custom, dim, t, x, v).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let close = |p: f64, q: f64| (p - q).abs() <= 1e-9 * (1.0 + p.abs().max(q.abs()));
        prop_assert!(
            close(a.c[0], b.c[r]),
            "C row {}: autodiff {} vs {}",
            r,
            a.c[0],
            b.c[r]
        );
        for (ga, gb) in a.gradient[0].iter().zip(&b.gradient[r]) {
            prop_assert!(
                close(*ga, *gb),
                "J row {}: {:?} vs {:?}",
                r,
                a.gradient[0],
                b.gradient[r]
            );
        }
        prop_assert!(
            close(a.c_dot[0], b.c_dot[r]),
            "Ċ row {}: {} vs {}",
            r,
            a.c_dot[0],
            b.c_dot[r]
        );
        prop_assert!(
            close(a.jdot_xdot[0], b.jdot_xdot[r]),
            "J̇ẋ row {}: {} vs {}",
            r,
            a.jdot_xdot[0],
            b.jdot_xdot[r]
        );
        // ∇²C_r: the built-in's own, weighted by the unit vector of row r, against the dual
        // numbers' second derivatives.
        let mut weights = vec![0.0; rows.len()];
        weights[r] = 1.0;
        let hb = hessian_at(builtin, dim, t, x, &weights)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let ha = hessian_at(custom, dim, t, x, &[1.0])
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let scale = ha.iter().chain(&hb).fold(1.0_f64, |m, h| m.max(h.abs()));
        for (i, (p, q)) in ha.iter().zip(&hb).enumerate() {
            prop_assert!(
                (p - q).abs() <= 1e-8 * scale,
                "∇²C row {} entry {}: autodiff {} vs {}",
                r,
                i,
                p,
                q
            );
        }
    }
    Ok(())
}

/// Two particles in a `dim`-D system, as handles for the constraints under test.
fn handles(dim: usize) -> (bead::ParticleId, bead::ParticleId) {
    let mut sys = System::new(dim).unwrap();
    let z = vec![0.0; dim];
    (
        sys.add_particle(Particle::new(&z)).unwrap(),
        sys.add_particle(Particle::new(&z)).unwrap(),
    )
}

/// Two rigid bodies in a 2D system, as handles for the constraints on body coordinates (each
/// operand is then a body's [x, y, θ]).
fn rigid_handles() -> (RigidBodyId, RigidBodyId) {
    let mut sys = System::new(2).unwrap();
    (
        sys.add_rigid_body(RigidBody::new(&[0.0, 0.0], 0.0))
            .unwrap(),
        sys.add_rigid_body(RigidBody::new(&[0.0, 0.0], 0.0))
            .unwrap(),
    )
}

/// The straight-line motion of `Motion::linear(start, velocity)` as a function of dual time.
fn line_path(
    start: [f64; 3],
    velocity: [f64; 3],
) -> impl Fn(Scalar) -> [Scalar; 3] + Send + Sync + Copy {
    move |t: Scalar| std::array::from_fn(|i| t * velocity[i] + start[i])
}

/// The circular motion of `Motion::circle(center, r, w, phase)` as a function of dual time.
fn circle_path(
    center: [f64; 3],
    r: f64,
    w: f64,
    phase: f64,
) -> impl Fn(Scalar) -> [Scalar; 3] + Send + Sync + Copy {
    move |t: Scalar| {
        let angle = t * w + phase;
        [
            angle.cos() * r + center[0],
            angle.sin() * r + center[1],
            Scalar::from(center[2]),
        ]
    }
}

fn norm(d: &[Scalar]) -> Scalar {
    d.iter().fold(Scalar::from(0.0), |s, x| s + *x * *x).sqrt()
}

fn coords(dim: usize, n: usize) -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(-2.0..2.0f64, dim * n)
}

proptest! {
    #[test]
    fn distance(dim in 2..=3usize, seed in coords(3, 4), len in 0.1..3.0f64) {
        let (a, b) = handles(dim);
        let x: Vec<f64> = seed[..2 * dim].to_vec();
        let v: Vec<f64> = seed[6..6 + 2 * dim].to_vec();
        prop_assume!((0..dim).map(|i| (x[i] - x[dim + i]).powi(2)).sum::<f64>() > 1e-2);
        let custom = Custom::new([a, b], move |x, _t| {
            let d: Vec<Scalar> = (0..dim).map(|i| x[i] - x[dim + i]).collect();
            norm(&d) - len
        });
        compare(&Distance::new(a, b, len), &[custom], dim, 0.0, &x, &v)?;
    }

    #[test]
    fn nail_on_a_circular_path(dim in 2..=3usize, seed in coords(3, 2), t in 0.0..10.0f64, w in -3.0..3.0f64) {
        let (a, _) = handles(dim);
        let (x, v) = (seed[..dim].to_vec(), seed[3..3 + dim].to_vec());
        let center = [0.3, -0.2, 0.5];
        let path = circle_path(center, 0.7, w, 0.4);
        let nail = Nail::moving(a, Motion::circle(&center[..dim], 0.7, w, 0.4));
        let rows: Vec<Custom> = (0..dim).map(|r| Custom::new([a], move |x, t| x[r] - path(t)[r])).collect();
        compare(&nail, &rows, dim, t, &x, &v)?;
    }

    #[test]
    fn on_circle_with_an_oscillating_centre(seed in coords(2, 2), t in 0.0..10.0f64, r in 0.2..2.0f64) {
        let (a, _) = handles(2);
        let (x, v) = (seed[..2].to_vec(), seed[2..4].to_vec());
        let (c0, amp, w) = ([0.1, 0.2], [0.5, -0.3], 2.5);
        prop_assume!((x[0] - c0[0]).hypot(x[1] - c0[1]) > 0.8);
        let centre = move |t: Scalar| [(t * w).sin() * amp[0] + c0[0], (t * w).sin() * amp[1] + c0[1]];
        let builtin = OnCircle::new(a, Motion::oscillation(&c0, &amp, w, 0.0), r);
        let custom = Custom::new([a], move |x, t| {
            let c = centre(t);
            norm(&[x[0] - c[0], x[1] - c[1]]) - r
        });
        compare(&builtin, &[custom], 2, t, &x, &v)?;
    }

    #[test]
    fn on_circle_in_3d_with_a_moving_centre(seed in coords(3, 2), t in 0.0..5.0f64) {
        let (a, _) = handles(3);
        let (x, v) = (seed[..3].to_vec(), seed[3..6].to_vec());
        let n = [1.0 / 3f64.sqrt(); 3];
        let (start, vel) = ([0.1, 0.0, -0.1], [0.2, 0.1, 0.3]);
        let c = move |t: Scalar| [t * vel[0] + start[0], t * vel[1] + start[1], t * vel[2] + start[2]];
        let at = |tt: f64| [start[0] + vel[0] * tt, start[1] + vel[1] * tt, start[2] + vel[2] * tt];
        let ct = at(t);
        prop_assume!(((x[0] - ct[0]).powi(2) + (x[1] - ct[1]).powi(2) + (x[2] - ct[2]).powi(2)).sqrt() > 0.1);
        let builtin = OnCircle::new(a, Motion::linear(&start, &vel), 1.2).with_normal(&[1.0, 1.0, 1.0]);
        let sphere = Custom::new([a], move |x, t| {
            let c = c(t);
            norm(&[x[0] - c[0], x[1] - c[1], x[2] - c[2]]) - 1.2
        });
        let plane = Custom::new([a], move |x, t| {
            let c = c(t);
            (x[0] - c[0]) * n[0] + (x[1] - c[1]) * n[1] + (x[2] - c[2]) * n[2]
        });
        compare(&builtin, &[sphere, plane], 3, t, &x, &v)?;
    }

    #[test]
    fn on_sphere(seed in coords(3, 2), r in 0.2..2.0f64) {
        let (a, _) = handles(3);
        let (x, v) = (seed[..3].to_vec(), seed[3..6].to_vec());
        prop_assume!((x[0] - 0.2).hypot(x[1]).hypot(x[2]) > 0.1);
        let builtin = OnSphere::new(a, Motion::fixed(&[0.2, 0.0, 0.0]), r);
        let custom = Custom::new([a], move |x, _t| norm(&[x[0] - 0.2, x[1], x[2]]) - r);
        compare(&builtin, &[custom], 3, 0.0, &x, &v)?;
    }

    #[test]
    fn on_line_2d_and_3d(dim in 2..=3usize, seed in coords(3, 2), t in 0.0..5.0f64) {
        let (a, _) = handles(dim);
        let (x, v) = (seed[..dim].to_vec(), seed[3..3 + dim].to_vec());
        let direction = [0.6, 0.8, 0.0];
        let (c0, amp, w) = ([0.0, 0.5, 0.1], [0.3, 0.0, -0.2], 1.7);
        let builtin = OnLine::new(a, Motion::oscillation(&c0[..dim], &amp[..dim], w, 0.0), &direction[..dim]);
        let through = move |t: Scalar| -> [Scalar; 3] { std::array::from_fn(|i| (t * w).sin() * amp[i] + c0[i]) };
        // The built-in picks its own normals; the line is the same, so compare each row against
        // n̂·(x − p(t)) for the normals it reports (checked orthonormal and ⊥ the direction).
        let e = evaluate_at(&builtin, dim, t, &x, &v).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let mut rows = Vec::new();
        for g in &e.gradient {
            let n: Vec<f64> = g.clone();
            prop_assert!((n.iter().map(|c| c * c).sum::<f64>() - 1.0).abs() < 1e-12);
            prop_assert!(n.iter().zip(&direction).map(|(a, b)| a * b).sum::<f64>().abs() < 1e-12);
            rows.push(Custom::new([a], move |x, t| {
                let p = through(t);
                (0..n.len()).fold(Scalar::from(0.0), |s, i| s + (x[i] - p[i]) * n[i])
            }));
        }
        compare(&builtin, &rows, dim, t, &x, &v)?;
    }

    #[test]
    fn on_plane_moving(seed in coords(3, 2), t in 0.0..5.0f64) {
        let (a, _) = handles(3);
        let (x, v) = (seed[..3].to_vec(), seed[3..6].to_vec());
        let n = [0.0, 0.6, 0.8];
        let path = circle_path([0.0, 0.0, 1.0], 0.5, 2.0, 0.0);
        let builtin = OnPlane::new(a, Motion::circle(&[0.0, 0.0, 1.0], 0.5, 2.0, 0.0), &[0.0, 3.0, 4.0]);
        let custom = Custom::new([a], move |x, t| {
            let p = path(t);
            (x[0] - p[0]) * n[0] + (x[1] - p[1]) * n[1] + (x[2] - p[2]) * n[2]
        });
        compare(&builtin, &[custom], 3, t, &x, &v)?;
    }
}

// The inequality constraints, compared as their functions g (g ≥ 0 is allowed), and the
// constraints on body coordinates.
proptest! {
    /// A floor or wall through a point moving on a line or a circle: g = n̂·(x − p(t)) − r, with
    /// n̂ the given normal normalized.
    #[test]
    fn half_plane_through_a_moving_point(
        dim in 2..=3usize,
        seed in coords(3, 2),
        t in 0.0..10.0f64,
        circular in any::<bool>(),
        radius in 0.0..0.5f64,
    ) {
        let (a, _) = handles(dim);
        let (x, v) = (seed[..dim].to_vec(), seed[3..3 + dim].to_vec());
        let normal = [1.0, -2.0, 2.0];
        let length = normal[..dim].iter().map(|c| c * c).sum::<f64>().sqrt();
        let n: [f64; 3] = std::array::from_fn(|i| if i < dim { normal[i] / length } else { 0.0 });
        let (centre, start, velocity) = ([0.3, -0.2, 0.5], [0.1, 0.4, -0.3], [0.7, -0.5, 0.2]);
        let (through, path): (Motion, Box<dyn Fn(Scalar) -> [Scalar; 3] + Send + Sync>) = if circular {
            (Motion::circle(&centre[..dim], 0.8, 1.7, 0.3), Box::new(circle_path(centre, 0.8, 1.7, 0.3)))
        } else {
            (Motion::linear(&start[..dim], &velocity[..dim]), Box::new(line_path(start, velocity)))
        };
        let builtin = HalfPlane::new(a, through, &normal[..dim], radius);
        let custom = Custom::new([a], move |x, t| {
            let p = path(t);
            (0..dim).fold(Scalar::from(0.0), |g, i| g + (x[i] - p[i]) * n[i]) - radius
        });
        compare(&builtin, &[custom], dim, t, &x, &v)?;
    }

    /// Two balls: g = |x₁ − x₂| − (r₁ + r₂).
    #[test]
    fn non_penetration(dim in 2..=3usize, seed in coords(3, 4), distance in 0.0..1.0f64) {
        let (a, b) = handles(dim);
        let x: Vec<f64> = seed[..2 * dim].to_vec();
        let v: Vec<f64> = seed[6..6 + 2 * dim].to_vec();
        prop_assume!((0..dim).map(|i| (x[i] - x[dim + i]).powi(2)).sum::<f64>() > 1e-2);
        let custom = Custom::new([a, b], move |x, _t| {
            let d: Vec<Scalar> = (0..dim).map(|i| x[i] - x[dim + i]).collect();
            norm(&d) - distance
        });
        compare(&NonPenetration::new(a, b, distance), &[custom], dim, 0.0, &x, &v)?;
    }

    /// A rope: g = L − |x₁ − x₂|, whose J̇ẋ is the distance's with the sign flipped.
    #[test]
    fn rope(dim in 2..=3usize, seed in coords(3, 4), length in 0.1..3.0f64) {
        let (a, b) = handles(dim);
        let x: Vec<f64> = seed[..2 * dim].to_vec();
        let v: Vec<f64> = seed[6..6 + 2 * dim].to_vec();
        prop_assume!((0..dim).map(|i| (x[i] - x[dim + i]).powi(2)).sum::<f64>() > 1e-2);
        let custom = Custom::new([a, b], move |x, _t| {
            let d: Vec<Scalar> = (0..dim).map(|i| x[i] - x[dim + i]).collect();
            -norm(&d) + length
        });
        compare(&NonPenetration::rope(a, b, length), &[custom], dim, 0.0, &x, &v)?;
    }

    /// Seed 004's a·x + b ≥ 0, a not normalized.
    #[test]
    fn linear(dim in 2..=3usize, seed in coords(3, 2), coefficients in coords(3, 1), b in -2.0..2.0f64) {
        let (p, _) = handles(dim);
        let (x, v) = (seed[..dim].to_vec(), seed[3..3 + dim].to_vec());
        let a: [f64; 3] = std::array::from_fn(|i| coefficients[i]);
        prop_assume!(a[..dim].iter().any(|c| c.abs() > 1e-3));
        let custom = Custom::new([p], move |x, _t| {
            (0..dim).fold(Scalar::from(b), |g, i| g + x[i] * a[i])
        });
        compare(&Linear::new(p, &a[..dim], b), &[custom], dim, 0.0, &x, &v)?;
    }

    /// A joint limit between two bodies, and one body against the world: g₀ = angle − min,
    /// g₁ = max − angle, the angle θ_b − θ_a (or θ_a).
    #[test]
    fn angle_limit(seed in coords(3, 4), min in -2.0..0.0f64, span in 0.0..3.0f64) {
        let (a, b) = rigid_handles();
        let (x, v) = (seed[..6].to_vec(), seed[6..12].to_vec());
        let max = min + span;
        let ops = [Operand::Coordinates(a.body()), Operand::Coordinates(b.body())];
        let pair = [
            Custom::new(ops, move |x, _t| x[5] - x[2] - min),
            Custom::new(ops, move |x, _t| -(x[5] - x[2]) + max),
        ];
        compare(&AngleLimit::new(a, b, min, max), &pair, 2, 0.0, &x, &v)?;
        let world = [
            Custom::new([ops[0]], move |x, _t| x[2] - min),
            Custom::new([ops[0]], move |x, _t| -x[2] + max),
        ];
        compare(&AngleLimit::to_world(a, min, max), &world, 2, 0.0, &x[..3], &v[..3])?;
    }

    /// A motor holds no position (its C is 0 by design); its row is that of
    /// C = θ_b − θ_a − ω t (or θ_a − ω t): the same J, ∂C/∂t = −ω, Ċ the speed error, J̇ẋ = 0.
    #[test]
    fn motor(seed in coords(3, 4), speed in -5.0..5.0f64, t in 0.0..10.0f64) {
        let (a, b) = rigid_handles();
        let (x, v) = (seed[..6].to_vec(), seed[6..12].to_vec());
        let ops = [Operand::Coordinates(a.body()), Operand::Coordinates(b.body())];
        let cases: [(Motor, Custom, usize); 2] = [
            (Motor::new(a, b, speed), Custom::new(ops, move |x, t| x[5] - x[2] - t * speed), 6),
            (Motor::to_world(a, speed), Custom::new([ops[0]], move |x, t| x[2] - t * speed), 3),
        ];
        for (builtin, custom, n) in cases {
            let m = evaluate_at(&builtin, 2, t, &x[..n], &v[..n]).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let c = evaluate_at(&custom, 2, t, &x[..n], &v[..n]).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(m.c[0], 0.0);
            prop_assert_eq!(&m.gradient, &c.gradient);
            let close = |p: f64, q: f64| (p - q).abs() <= 1e-12 * (1.0 + p.abs().max(q.abs()));
            prop_assert!(close(m.c_t[0], c.c_t[0]), "∂C/∂t {} vs {}", m.c_t[0], c.c_t[0]);
            prop_assert!(close(m.c_dot[0], c.c_dot[0]), "Ċ {} vs {}", m.c_dot[0], c.c_dot[0]);
            prop_assert!(close(m.jdot_xdot[0], c.jdot_xdot[0]), "J̇ẋ {} vs {}", m.jdot_xdot[0], c.jdot_xdot[0]);
        }
    }
}

proptest! {
    /// A 3D slider's travel `s = (P_b − P_a)·(E − P_a)` over its three points: the limit's rows
    /// `s − min` and `max − s`, and the motor's velocity row, that of `C = s − v t`.
    #[test]
    fn slider_travel(seed in coords(3, 6), min in -2.0..0.0f64, span in 0.0..3.0f64, speed in -2.0..2.0f64, t in 0.0..5.0f64) {
        use bead::constraint::{SliderLimit, SliderMotor};
        let mut sys = System::new(3).unwrap();
        let mut body = || sys.add_rigid_body_3d(bead::RigidBody3d::new([0.0; 3])).unwrap().body();
        let (a, b) = (body(), body());
        let (x, v) = (seed[..9].to_vec(), seed[9..].to_vec());
        // The custom rows see the three points as three particles.
        let mut points = System::new(3).unwrap();
        let mut particle = || points.add_particle(Particle::new(&[0.0; 3])).unwrap();
        let ops = [particle(), particle(), particle()];
        let travel = |x: &[Scalar]| (0..3).fold(Scalar::from(0.0), |s, k| s + (x[3 + k] - x[k]) * (x[6 + k] - x[k]));
        let max = min + span;
        let rows = [
            Custom::new(ops, move |x, _t| travel(x) - min),
            Custom::new(ops, move |x, _t| -travel(x) + max),
        ];
        let pivots = ([0.1, -0.2, 0.3], [0.0; 3]);
        let limit = SliderLimit::new(a, b, pivots, [0.2, 0.5, -1.0], min, max);
        compare(&limit, &rows, 3, 0.0, &x, &v)?;
        let motor = SliderMotor::new(a, b, pivots, [0.2, 0.5, -1.0], speed);
        let custom = Custom::new(ops, move |x, t| travel(x) - t * speed);
        let m = evaluate_at(&motor, 3, t, &x, &v).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let c = evaluate_at(&custom, 3, t, &x, &v).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let close = |p: f64, q: f64| (p - q).abs() <= 1e-12 * (1.0 + p.abs().max(q.abs()));
        prop_assert_eq!(m.c[0], 0.0);
        for (gm, gc) in m.gradient[0].iter().zip(&c.gradient[0]) {
            prop_assert!(close(*gm, *gc), "J {:?} vs {:?}", m.gradient[0], c.gradient[0]);
        }
        prop_assert!(close(m.c_t[0], c.c_t[0]), "∂C/∂t {} vs {}", m.c_t[0], c.c_t[0]);
        prop_assert!(close(m.c_dot[0], c.c_dot[0]), "Ċ {} vs {}", m.c_dot[0], c.c_dot[0]);
        prop_assert!(close(m.jdot_xdot[0], c.jdot_xdot[0]), "J̇ẋ {} vs {}", m.jdot_xdot[0], c.jdot_xdot[0]);
    }

    /// The same travel rows on a 2D slider (`SliderLimit::planar`), over three points in the
    /// plane.
    #[test]
    fn planar_slider_travel(seed in coords(2, 6), min in -2.0..0.0f64, span in 0.0..3.0f64) {
        use bead::constraint::SliderLimit;
        let (a, b) = rigid_handles();
        let (x, v) = (seed[..6].to_vec(), seed[6..].to_vec());
        let mut points = System::new(2).unwrap();
        let mut particle = || points.add_particle(Particle::new(&[0.0; 2])).unwrap();
        let ops = [particle(), particle(), particle()];
        let travel = |x: &[Scalar]| (0..2).fold(Scalar::from(0.0), |s, k| s + (x[2 + k] - x[k]) * (x[4 + k] - x[k]));
        let max = min + span;
        let rows = [
            Custom::new(ops, move |x, _t| travel(x) - min),
            Custom::new(ops, move |x, _t| -travel(x) + max),
        ];
        let limit = SliderLimit::planar(a.body(), b.body(), ([0.1, -0.2], [0.0; 2]), [0.6, -0.8], min, max);
        compare(&limit, &rows, 2, 0.0, &x, &v)?;
    }
}

/// The autodiff derivatives themselves against the CRATES.md identities for C = ½(x·x − 1):
/// ∇C = x, J̇ẋ = ẋ·ẋ, Ċ = x·ẋ.
#[test]
fn autodiff_identities() {
    let (a, _) = handles(3);
    let custom = Custom::new([a], |x, _t| {
        (x[0] * x[0] + x[1] * x[1] + x[2] * x[2] - 1.0) * 0.5
    });
    let (x, v) = ([0.3, -1.2, 0.7], [2.0, 0.5, -1.0]);
    let e = evaluate_at(&custom, 3, 0.0, &x, &v).unwrap();
    assert_eq!(e.gradient[0], x.to_vec());
    assert!((e.jdot_xdot[0] - 5.25).abs() < 1e-14);
    assert!((e.c_dot[0] - (0.6 - 0.6 - 0.7)).abs() < 1e-14);
    assert_eq!(e.c_t[0], 0.0);
}

/// Shape contacts (issue 29): the normal row of both kinds of gap against the gap written once
/// in dual numbers; the friction row's Jacobian against the tangential displacement of the two
/// surface points frozen in their bodies, and its J̇ẋ against a central difference of `J ẋ`
/// along `ẋ`.
mod shape_contact {
    use super::*;
    use bead::constraint::{Gap, ShapeContact};

    fn rot(a: Scalar, p: [f64; 2]) -> [Scalar; 2] {
        [
            a.cos() * p[0] - a.sin() * p[1],
            a.sin() * p[0] + a.cos() * p[1],
        ]
    }

    /// The gap as a scalar function of `[x_a, y_a, θ_a, x_b, y_b, θ_b]`.
    fn gap(g: Gap, r: f64) -> impl Fn(&[Scalar], Scalar) -> Scalar + Send + Sync + 'static {
        move |x: &[Scalar], _t| {
            let core = |o: usize, p: [f64; 2]| {
                let w = rot(x[o + 2], p);
                [x[o] + w[0], x[o + 1] + w[1]]
            };
            match g {
                Gap::Round { a, b } => {
                    let (ca, cb) = (core(0, a), core(3, b));
                    norm(&[ca[0] - cb[0], ca[1] - cb[1]]) - r
                }
                Gap::Face { a, b, normal } => {
                    let (ca, cb) = (core(0, a), core(3, b));
                    let n = rot(x[5], normal);
                    n[0] * (ca[0] - cb[0]) + n[1] * (ca[1] - cb[1]) - r
                }
            }
        }
    }

    proptest! {
        #[test]
        fn normal_and_friction_rows(
            seed in coords(2, 6),
            pa in coords(2, 1),
            pb in coords(2, 1),
            angle in -3.0..3.0f64,
            radii in prop::collection::vec(0.0..0.5f64, 2),
            face in any::<bool>(),
        ) {
            let (a, b) = rigid_handles();
            let (x, v) = (seed[..6].to_vec(), seed[6..12].to_vec());
            let ops = [Operand::Coordinates(a.body()), Operand::Coordinates(b.body())];
            let (la, lb) = ([pa[0], pa[1]], [pb[0], pb[1]]);
            let g = if face {
                Gap::Face { a: la, b: lb, normal: [angle.cos(), angle.sin()] }
            } else {
                Gap::Round { a: la, b: lb }
            };
            let r = radii[0] + radii[1];
            // The normal row, against dual numbers (a frictionless contact has it alone).
            let custom = Custom::new(ops, gap(g, r));
            compare(&ShapeContact::new(a, b, g, [radii[0], radii[1]]), &[custom], 2, 0.0, &x, &v)?;
            // The friction row.
            let contact = ShapeContact::new(a, b, g, [radii[0], radii[1]]).friction(0.5);
            let e = evaluate_at(&contact, 2, 0.0, &x, &v).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(e.c[1], 0.0);
            // n and t at this state, and each surface point's offset in its body's frame.
            let n: [f64; 2] = {
                let gn = &e.gradient[0];
                [gn[0], gn[1]]
            };
            let t = [-n[1], n[0]];
            let local = |o: usize, p: [f64; 2], radius: f64, sign: f64| {
                let (s, c) = x[o + 2].sin_cos();
                let w = [c * p[0] - s * p[1] + sign * radius * n[0], s * p[0] + c * p[1] + sign * radius * n[1]];
                // Back into the body's frame.
                [c * w[0] + s * w[1], -s * w[0] + c * w[1]]
            };
            let (sa, sb) = (local(0, la, radii[0], -1.0), local(3, lb, radii[1], 1.0));
            let slip = Custom::new(ops, move |x: &[Scalar], _t| {
                let (wa, wb) = (rot(x[2], sa), rot(x[5], sb));
                (x[0] + wa[0] - x[3] - wb[0]) * t[0] + (x[1] + wa[1] - x[4] - wb[1]) * t[1]
            });
            let s = evaluate_at(&slip, 2, 0.0, &x, &v).map_err(|e| TestCaseError::fail(e.to_string()))?;
            for (p, q) in s.gradient[0].iter().zip(&e.gradient[1]) {
                prop_assert!((p - q).abs() <= 1e-9 * (1.0 + p.abs()), "J_t {:?} vs {:?}", s.gradient[0], e.gradient[1]);
            }
            // J̇ẋ = d/dt (J(q) ẋ) at fixed ẋ: a central difference along ẋ.
            let h = 1e-5;
            let jv = |sign: f64| -> Result<f64, TestCaseError> {
                let xs: Vec<f64> = x.iter().zip(&v).map(|(x, v)| x + sign * h * v).collect();
                let e = evaluate_at(&contact, 2, 0.0, &xs, &v).map_err(|e| TestCaseError::fail(e.to_string()))?;
                Ok(e.gradient[1].iter().zip(&v).map(|(g, v)| g * v).sum())
            };
            let numeric = (jv(1.0)? - jv(-1.0)?) / (2.0 * h);
            let scale = 1.0 + v.iter().map(|v| v * v).sum::<f64>() * 10.0;
            prop_assert!((numeric - e.jdot_xdot[1]).abs() <= 1e-5 * scale, "J̇ẋ_t {} vs {}", numeric, e.jdot_xdot[1]);
            // The friction row's geometric stiffness, the symmetric part of ∂J_t/∂q (J̇ẋ_t =
            // ẋᵀ ∂J_t/∂q ẋ), against central differences of J_t; with the normal row's weight
            // beside it, each row's part adds.
            // A step of 1e-6: the difference's truncation, h² times the third derivative, grows
            // past the tolerance at 1e-5 where the shapes' points are close (a seed once gave
            // 9e-5 against 6e-5), and its rounding stays near 1e-8.
            let h = 1e-6;
            let n = x.len();
            let mut dj = vec![0.0; n * n];
            for k in 0..n {
                let at = |sign: f64| -> Result<Vec<f64>, TestCaseError> {
                    let mut xs = x.clone();
                    xs[k] += sign * h;
                    let e = evaluate_at(&contact, 2, 0.0, &xs, &v).map_err(|e| TestCaseError::fail(e.to_string()))?;
                    Ok(e.gradient[1].clone())
                };
                let (plus, minus) = (at(1.0)?, at(-1.0)?);
                for j in 0..n {
                    dj[j * n + k] = (plus[j] - minus[j]) / (2.0 * h);
                }
            }
            let ht = hessian_at(&contact, 2, 0.0, &x, &[0.0, 1.0]).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let hn = hessian_at(&contact, 2, 0.0, &x, &[1.0, 0.0]).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let both = hessian_at(&contact, 2, 0.0, &x, &[2.0, -3.0]).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let scale = 1.0 + ht.iter().fold(0.0_f64, |m, h| m.max(h.abs()));
            for j in 0..n {
                for k in 0..n {
                    let numeric = 0.5 * (dj[j * n + k] + dj[k * n + j]);
                    prop_assert!((numeric - ht[j * n + k]).abs() <= 1e-6 * scale, "∇²C_t ({}, {}): {} vs {}", j, k, numeric, ht[j * n + k]);
                    let sum = 2.0 * hn[j * n + k] - 3.0 * ht[j * n + k];
                    prop_assert!((sum - both[j * n + k]).abs() <= 1e-9 * (1.0 + sum.abs()), "weighted rows ({}, {})", j, k);
                }
            }
        }
    }
}
