//! Lagrangian dynamics (seed 000 §5): parametric objects against closed forms, against the same
//! mechanism in maximal coordinates, and hybrid models (§5.1) against a hand calculation.

use std::f64::consts::PI;

use bead::constraint::{Distance, HalfPlane, Nail, OnCircle};
use bead::force::Gravity;
use bead::integrate::{Bdf2, ImplicitEuler, Rk4};
use bead::{Feedback, Motion, Parametric, Particle, Point, System, primitives};

const G: f64 = 9.81;

/// Time of the first downward zero crossing of `u0` after release, by cubic Hermite
/// interpolation on (u, u̇) inside the step that crosses.
fn first_crossing(sys: &mut System, body: bead::BodyId, dt: f64) -> f64 {
    let (mut u, mut w) = (sys.coordinates(body)[0], sys.coordinate_velocities(body)[0]);
    for _ in 0..1_000_000 {
        let t0 = sys.time();
        sys.step(dt).unwrap();
        let (u1, w1) = (sys.coordinates(body)[0], sys.coordinate_velocities(body)[0]);
        if u > 0.0 && u1 <= 0.0 {
            // Hermite basis on s ∈ [0, 1]; Newton on the cubic.
            let h = sys.time() - t0;
            let p = |s: f64| {
                let (s2, s3) = (s * s, s * s * s);
                (2.0 * s3 - 3.0 * s2 + 1.0) * u
                    + (s3 - 2.0 * s2 + s) * h * w
                    + (-2.0 * s3 + 3.0 * s2) * u1
                    + (s3 - s2) * h * w1
            };
            let mut s = u / (u - u1);
            for _ in 0..50 {
                let d = (p(s + 1e-7) - p(s - 1e-7)) / 2e-7;
                s -= p(s) / d;
            }
            return t0 + s * h;
        }
        (u, w) = (u1, w1);
    }
    panic!("no crossing");
}

/// Huygens' tautochrone: on a cycloid bowl of generating radius r the quarter period is
/// π √(r/g) whatever the amplitude (three amplitudes, 1e-6 relative).
#[test]
fn tautochrone_period_does_not_depend_on_amplitude() {
    let r = 0.25;
    let quarter = PI * (r / G).sqrt();
    for u0 in [0.3, 1.5, 2.8] {
        let mut sys = System::new(2).unwrap();
        sys.set_integrator(Rk4::default());
        let bowl = sys.add_parametric(primitives::cycloid(r, 1.0, u0)).unwrap();
        sys.add_force(Gravity::new(&[0.0, -G])).unwrap();
        let t = first_crossing(&mut sys, bowl.body(), 1e-4);
        assert!(
            ((t - quarter) / quarter).abs() < 1e-6,
            "amplitude {u0}: quarter period {t} vs {quarter}"
        );
    }
}

/// A cycloid started at its cusp has a singular generalized mass: a located error, not a NaN.
#[test]
fn singular_generalized_mass_is_an_error() {
    let mut sys = System::new(2).unwrap();
    let err = sys
        .add_parametric(primitives::cycloid(0.25, 1.0, PI))
        .unwrap_err()
        .to_string();
    assert!(err.contains("cycloid") && err.contains("singular"), "{err}");
}

/// A double pendulum in joint angles (reduced coordinates) and as two rods (maximal
/// coordinates with multipliers) follow the same motion to 1e-6 over 5 s.
#[test]
fn reduced_and_maximal_double_pendulum_agree() {
    let (l1, l2, m1, m2) = (1.0, 0.7, 1.0, 0.5);
    let (a1, a2) = (0.6_f64, -0.4_f64);
    let dt = 5e-4;

    let mut reduced = System::new(2).unwrap();
    reduced.set_integrator(Rk4::default());
    let chain = reduced
        .add_parametric(
            primitives::pendulum_chain([0.0, 0.0], &[l1, l2], &[m1, m2], &[a1, a2]).unwrap(),
        )
        .unwrap();
    reduced.add_force(Gravity::new(&[0.0, -G])).unwrap();
    let bob = reduced.parametric_point(chain, "p1").unwrap();

    let mut maximal = System::new(2).unwrap();
    maximal.set_integrator(Rk4::default());
    maximal
        .set_settings(bead::Settings {
            feedback: Feedback::none(),
            ..Default::default()
        })
        .unwrap();
    let pivot = maximal.add_particle(Particle::anchor(&[0.0, 0.0])).unwrap();
    let p1 = [l1 * a1.sin(), -l1 * a1.cos()];
    let p2 = [p1[0] + l2 * a2.sin(), p1[1] - l2 * a2.cos()];
    let a = maximal.add_particle(Particle::new(&p1).mass(m1)).unwrap();
    let b = maximal.add_particle(Particle::new(&p2).mass(m2)).unwrap();
    maximal.add_constraint(Distance::new(pivot, a, l1)).unwrap();
    maximal.add_constraint(Distance::new(a, b, l2)).unwrap();
    maximal.add_force(Gravity::new(&[0.0, -G])).unwrap();

    let mut worst = 0.0_f64;
    for _ in 0..(5.0 / dt) as usize {
        reduced.step(dt).unwrap();
        maximal.step(dt).unwrap();
        let x = reduced.point_position(&bob).unwrap();
        let y = maximal.position(b);
        worst = worst.max((x[0] - y[0]).hypot(x[1] - y[1]));
    }
    assert!(worst < 1e-6, "the two models part by {worst} m");
}

/// A bead on a parametric circle moves as a particle held by the `on-circle` constraint.
#[test]
fn parametric_circle_matches_on_circle() {
    let (r, u0, w0) = (0.8, -0.3_f64, 2.0);
    let dt = 1e-3;
    let mut param = System::new(2).unwrap();
    param.set_integrator(Rk4::default());
    let ring = param
        .add_parametric(primitives::circle([0.1, 0.2], r, 0.3, u0).rates(&[w0]))
        .unwrap();
    param.add_force(Gravity::new(&[0.0, -G])).unwrap();
    let bead_point = param.parametric_point(ring, "bead").unwrap();

    let mut held = System::new(2).unwrap();
    held.set_integrator(Rk4::default());
    let start = [0.1 + r * u0.cos(), 0.2 + r * u0.sin()];
    let speed = [-r * u0.sin() * w0, r * u0.cos() * w0];
    let p = held
        .add_particle(Particle::new(&start).velocity(&speed).mass(0.3))
        .unwrap();
    held.add_constraint(OnCircle::new(p, bead::Motion::fixed(&[0.1, 0.2]), r))
        .unwrap();
    held.add_force(Gravity::new(&[0.0, -G])).unwrap();

    let mut worst = 0.0_f64;
    for _ in 0..3000 {
        param.step(dt).unwrap();
        held.step(dt).unwrap();
        let x = param.point_position(&bead_point).unwrap();
        let y = held.position(p);
        worst = worst.max((x[0] - y[0]).hypot(x[1] - y[1]));
    }
    assert!(
        worst < 1e-6,
        "parametric and constrained beads part by {worst} m"
    );
}

/// Energy on a helix is conserved to RK4's order: halving dt divides the drift by about 16.
/// Gravity across the helix's axis makes the motion a pendulum's (along the axis it would be a
/// uniform acceleration, which RK4 integrates exactly).
#[test]
fn helix_energy_is_conserved_to_the_integrators_order() {
    let drift = |dt: f64| {
        let mut sys = System::new(3).unwrap();
        sys.set_integrator(Rk4::default());
        sys.add_parametric(primitives::helix(0.5, 0.3, 2.0, 0.0).rates(&[6.0]))
            .unwrap();
        sys.add_force(Gravity::new(&[0.0, -G, 0.0])).unwrap();
        let e0 = sys.diagnostics().unwrap().total_energy();
        let mut worst = 0.0_f64;
        for _ in 0..(2.0 / dt).round() as usize {
            sys.step(dt).unwrap();
            worst = worst.max((sys.diagnostics().unwrap().total_energy() - e0).abs());
        }
        worst
    };
    let (coarse, fine) = (drift(0.02), drift(0.01));
    assert!(coarse > 0.0 && fine < 1e-5, "{coarse} {fine}");
    let ratio = coarse / fine;
    assert!(
        (12.0..20.0).contains(&ratio),
        "drift ratio {ratio} ({coarse} → {fine})"
    );
}

/// The bead on a helix, under gravity along its axis, held at rest by a rod to a nailed
/// particle: the rod carries exactly the tangential weight, T cos α = m g c / √(R² + c²), with α
/// the angle between the rod and the helix's tangent. The same λ with the implicit steppers.
#[test]
fn hybrid_rod_to_a_helix_bead_holds_the_hand_calculated_force() {
    let (radius, rise, m, u0) = (0.5_f64, 0.4_f64, 2.0, 0.3_f64);
    let c = rise / (2.0 * PI);
    let tangent = {
        let t = [-radius * u0.sin(), radius * u0.cos(), c];
        let n = (t[0] * t[0] + t[1] * t[1] + t[2] * t[2]).sqrt();
        t.map(|x| x / n)
    };
    let outward = [u0.cos(), u0.sin(), 0.0];
    let alpha = 0.5_f64;
    let length = 0.6;
    let bead_at = [radius * u0.cos(), radius * u0.sin(), c * u0];
    let anchor_at: Vec<f64> = (0..3)
        .map(|k| bead_at[k] + length * (alpha.cos() * tangent[k] + alpha.sin() * outward[k]))
        .collect();
    let expected = m * G * c / (radius * radius + c * c).sqrt() / alpha.cos();

    for stepper in ["rk4", "implicit-euler", "bdf2"] {
        let mut sys = System::new(3).unwrap();
        match stepper {
            "rk4" => sys.set_integrator(Rk4::default()),
            // λ of a position-level step is known to M·tol/h²: tighten Newton for 1e-8.
            "implicit-euler" => sys.set_integrator(ImplicitEuler::new(1e-14, 200)),
            _ => sys.set_integrator(Bdf2::new(1e-14, 200)),
        }
        let helix = sys
            .add_parametric(primitives::helix(radius, rise, m, u0))
            .unwrap();
        let bead = sys.parametric_point(helix, "bead").unwrap();
        let hook = sys
            .add_particle(Particle::new(&anchor_at).mass(0.5))
            .unwrap();
        sys.add_constraint(Nail::new(hook, &anchor_at)).unwrap();
        let rod = sys
            .add_constraint(Distance::new(Point::from(hook), bead, length))
            .unwrap();
        sys.add_force(Gravity::new(&[0.0, 0.0, -G])).unwrap();
        for _ in 0..500 {
            sys.step(2e-3).unwrap();
        }
        let d = sys.diagnostics().unwrap();
        let lambda = d.constraint(rod).unwrap().lambda[0];
        assert!(
            (lambda.abs() - expected).abs() < 1e-8 * expected,
            "{stepper}: rod λ {lambda} vs {expected}"
        );
        let u = sys.coordinates(helix.body())[0];
        assert!((u - u0).abs() < 1e-9, "{stepper}: the bead slid to u = {u}");
    }
}

/// A spherical pendulum written on the sphere primitive keeps its angular momentum about the
/// vertical (the chart's poles are off the vertical axis, so nothing singular is crossed).
#[test]
fn spherical_pendulum_keeps_vertical_angular_momentum() {
    let mut sys = System::new(3).unwrap();
    sys.set_integrator(Rk4::default());
    let bob = sys
        .add_parametric(
            primitives::sphere([0.0, 0.0, 0.0], 1.0, 1.0, [1.2, 0.4]).rates(&[0.0, 1.5]),
        )
        .unwrap();
    sys.add_force(Gravity::new(&[0.0, 0.0, -G])).unwrap();
    let p = sys.parametric_point(bob, "point").unwrap();
    let lz = |sys: &System| {
        let v = sys.view();
        let (x, u) = (v.position(&p), v.velocity(&p));
        x[0] * u[1] - x[1] * u[0]
    };
    let l0 = lz(&sys);
    assert!(l0.abs() > 0.1);
    for _ in 0..4000 {
        sys.step(1e-3).unwrap();
    }
    assert!((lz(&sys) - l0).abs() < 1e-8, "{} vs {l0}", lz(&sys));
}

/// The spline primitive passes through its knots with a continuous second derivative, and a bead
/// on a straight spline falls as on an inclined line: a = g sin(slope).
#[test]
fn spline_interpolates_and_a_straight_one_is_an_incline() {
    let knots = vec![
        vec![0.0, 0.0],
        vec![1.0, 0.5],
        vec![2.0, -0.2],
        vec![3.0, 0.4],
    ];
    let mut sys = System::new(2).unwrap();
    let id = sys
        .add_parametric(primitives::spline(&knots, 1.0, 0.0).unwrap())
        .unwrap();
    let p = sys.parametric_point(id, "bead").unwrap();
    for (i, k) in knots.iter().enumerate() {
        sys.set_coordinates(id, &[i as f64]).unwrap();
        let x = sys.point_position(&p).unwrap();
        assert!((x[0] - k[0]).abs() < 1e-12 && (x[1] - k[1]).abs() < 1e-12);
    }
    assert!(primitives::spline(&knots[..1], 1.0, 0.0).is_err());

    let line = vec![vec![0.0, 0.0], vec![1.0, -0.5], vec![2.0, -1.0]];
    let mut sys = System::new(2).unwrap();
    sys.set_integrator(Rk4::default());
    let id = sys
        .add_parametric(primitives::spline(&line, 1.0, 0.5).unwrap())
        .unwrap();
    sys.add_force(Gravity::new(&[0.0, -G])).unwrap();
    let p = sys.parametric_point(id, "bead").unwrap();
    let x0 = sys.point_position(&p).unwrap();
    let t = 0.3;
    for _ in 0..300 {
        sys.step(1e-3).unwrap();
    }
    let x = sys.point_position(&p).unwrap();
    let travelled = (x[0] - x0[0]).hypot(x[1] - x0[1]);
    let slope = (0.5_f64).atan2(1.0);
    let expected = 0.5 * G * slope.sin() * t * t;
    assert!(
        (travelled - expected).abs() < 1e-9,
        "{travelled} vs {expected}"
    );
}

/// A user-written object with two points (a dumbbell pinned at one end, by its angle) has the
/// summed generalized mass: it swings with the compound pendulum's period.
#[test]
fn custom_object_with_two_points_swings_as_a_compound_pendulum() {
    // A rigid dumbbell pinned at the origin, written as one angle: masses m at distances a, b.
    let (m, a, b) = (1.0, 0.4, 1.0);
    use bead::autodiff::DualNum;
    let object = Parametric::new(&[0.2])
        .point("near", m, move |u, _t, x| {
            x[0] = u[0].sin() * a;
            x[1] = -(u[0].cos() * a);
        })
        .point("far", m, move |u, _t, x| {
            x[0] = u[0].sin() * b;
            x[1] = -(u[0].cos() * b);
        });
    let mut sys = System::new(2).unwrap();
    sys.set_integrator(Rk4::default());
    let id = sys.add_parametric(object).unwrap();
    sys.add_force(Gravity::new(&[0.0, -G])).unwrap();
    // Small-angle period 2π √(I / (M g d)), I = m(a² + b²), M d = m(a + b).
    let period = 2.0 * PI * ((a * a + b * b) / (G * (a + b))).sqrt();
    sys.set_coordinates(id, &[1e-4]).unwrap();
    let quarter = first_crossing(&mut sys, id.body(), 1e-4);
    assert!(
        ((4.0 * quarter - period) / period).abs() < 1e-6,
        "{} vs {period}",
        4.0 * quarter
    );
}

/// Contact on a parametric point (hybrid with an inequality): a bead on a circle falls onto a
/// floor, stops there (inelastic), and rests with the floor carrying its whole weight — along
/// the circle's tangent only N sin θ balances m g sin θ, so N = m g at any angle. With every
/// solver, and with the implicit steppers.
#[test]
fn bead_on_a_parametric_circle_rests_on_a_floor() {
    let (m, r, floor) = (0.4, 1.0, -0.6);
    let mut runs: Vec<(String, System)> = Vec::new();
    for solver in crate::solvers() {
        let mut sys = System::new(2).unwrap();
        sys.set_integrator(Rk4::default());
        sys.set_solver_boxed(solver);
        runs.push((format!("rk4 + {}", sys.solver().name()), sys));
    }
    let mut implicit = System::new(2).unwrap();
    implicit.set_integrator(ImplicitEuler::new(1e-13, 200));
    runs.push(("implicit-euler".into(), implicit));
    for (label, mut sys) in runs {
        let ring = sys
            .add_parametric(primitives::circle([0.0, 0.0], r, m, -0.2))
            .unwrap();
        let bead = sys.parametric_point(ring, "bead").unwrap();
        sys.add_force(Gravity::new(&[0.0, -G])).unwrap();
        let contact = sys
            .add_constraint(HalfPlane::new(
                bead,
                Motion::fixed(&[0.0, floor]),
                &[0.0, 1.0],
                0.0,
            ))
            .unwrap();
        for _ in 0..3000 {
            sys.step(1e-3).unwrap();
        }
        let y = sys.point_position(&bead).unwrap()[1];
        let d = sys.diagnostics().unwrap();
        let lambda = d.constraint(contact).unwrap().lambda[0];
        assert!(
            (y - floor).abs() < 1e-6,
            "{label}: bead at y = {y}, floor at {floor}"
        );
        assert!(
            (lambda - m * G).abs() < 1e-6 * m * G,
            "{label}: floor λ {lambda} vs m g {}",
            m * G
        );
    }
}
