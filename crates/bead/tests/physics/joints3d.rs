//! 3D welds, sliders and joint limits against physics: a welded pair is one rigid body, a slider
//! on a spinning rail follows `r₀ cosh ωt` under the Coriolis force `2 m ω ṙ`, and the limits
//! stop a hinge, a ball joint's swing and its twist exactly where they are set, holding the
//! weight there with the torque statics gives.

use bead::constraint::{ConeLimit, Hinge, HingeLimit, HingeMotor, Nail, Prismatic3d, Weld3d};
use bead::force::Gravity;
use bead::integrate::{Bdf2, ImplicitEuler, Integrator, Rk4, SymplecticEuler};
use bead::{ConstraintId, Point, RigidBody3d, RigidBody3dId, System};

type V3 = [f64; 3];
type M3 = [[f64; 3]; 3];

fn rotation(q: [f64; 4]) -> M3 {
    let [w, x, y, z] = q;
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

fn cross(a: V3, b: V3) -> V3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn unit(q: [f64; 4]) -> [f64; 4] {
    let n = q.iter().map(|x| x * x).sum::<f64>().sqrt();
    q.map(|x| x / n)
}

/// The rotation angle between two orientations, radians: from the vector part of `p q*`, which
/// keeps its precision where the angle is small (an arccosine of the dot product would not).
fn angle_between(p: [f64; 4], q: [f64; 4]) -> f64 {
    let [pw, px, py, pz] = p;
    let [qw, qx, qy, qz] = [q[0], -q[1], -q[2], -q[3]];
    let v = [
        pw * qx + px * qw + py * qz - pz * qy,
        pw * qy - px * qz + py * qw + pz * qx,
        pw * qz + px * qy - py * qx + pz * qw,
    ];
    2.0 * v.iter().map(|x| x * x).sum::<f64>().sqrt().min(1.0).asin()
}

/// The largest |C| of a system's constraints now.
fn joint_error(sys: &mut System) -> f64 {
    sys.constraint_error().unwrap().0
}

/// Two bodies welded at a point, one of them turned, hung on a ball joint and set spinning,
/// move exactly as the one body of their combined mass and inertia (parallel axes, the turned
/// body's inertia `R I Rᵀ`): the same model built two ways.
#[test]
fn a_welded_pair_moves_as_one_body() {
    let (ma, mb) = (1.0, 2.0);
    let (ia, ib) = ([0.02, 0.03, 0.04], [0.05, 0.03, 0.04]);
    let (xa, xb) = ([0.0, 0.0, -0.5], [0.3, 0.0, -0.5]);
    let qb = unit([0.9, 0.2, -0.3, 0.1]);
    let omega = [1.0, 2.0, 0.5];
    let com = [0, 1, 2].map(|k| (ma * xa[k] + mb * xb[k]) / (ma + mb));
    let g = Gravity::new(&[0.0, 0.0, -9.81]);

    // Two bodies and a weld.
    let mut pair = System::new(3).unwrap();
    let anchor = pair
        .add_rigid_body_3d(RigidBody3d::new([0.0; 3]).fixed())
        .unwrap();
    let body = |x: V3, q: [f64; 4], m: f64, i: V3| {
        RigidBody3d::new(x)
            .orientation(q)
            .mass(m)
            .principal_inertia(i)
            .angular_velocity(omega)
            .velocity(cross(omega, x))
    };
    let a = pair
        .add_rigid_body_3d(body(xa, [1.0, 0.0, 0.0, 0.0], ma, ia))
        .unwrap();
    let b = pair.add_rigid_body_3d(body(xb, qb, mb, ib)).unwrap();
    // The weld point halfway, in each body's frame; b's orientation in a's frame is qb.
    let rb = rotation(qb);
    // Rᵀ (mid − x_b), with mid − x_b = (−0.15, 0, 0).
    let mid_in_b = [0, 1, 2].map(|j| rb[0][j] * -0.15);
    pair.add_constraint(Weld3d::new(
        a.body(),
        b.body(),
        ([0.15, 0.0, 0.0], mid_in_b),
        qb,
    ))
    .unwrap();
    pair.add_constraint(bead::constraint::Revolute::new(
        Point::on_body_3d(anchor.body(), [0.0; 3]),
        Point::on_body_3d(a.body(), [0.0, 0.0, 0.5]),
    ))
    .unwrap();
    pair.add_force(g.clone()).unwrap();

    // One body: the parallel-axis sum of the two inertias about the common centre.
    let mut tensor = [[0.0; 3]; 3];
    for (x, r, m, i) in [
        (xa, rotation([1.0, 0.0, 0.0, 0.0]), ma, ia),
        (xb, rb, mb, ib),
    ] {
        let d = [0, 1, 2].map(|k| x[k] - com[k]);
        let d2: f64 = d.iter().map(|v| v * v).sum();
        for p in 0..3 {
            for s in 0..3 {
                let own: f64 = (0..3).map(|k| r[p][k] * i[k] * r[s][k]).sum();
                let shift = m * (if p == s { d2 } else { 0.0 } - d[p] * d[s]);
                tensor[p][s] += own + shift;
            }
        }
    }
    let mut one = System::new(3).unwrap();
    let solid = one
        .add_rigid_body_3d(
            RigidBody3d::new(com)
                .mass(ma + mb)
                .inertia(tensor)
                .angular_velocity(omega)
                .velocity(cross(omega, com)),
        )
        .unwrap();
    one.add_constraint(Nail::new(
        Point::on_body_3d(solid.body(), [-com[0], -com[1], -com[2]]),
        &[0.0; 3],
    ))
    .unwrap();
    one.add_force(g).unwrap();

    pair.set_integrator(Rk4::default());
    one.set_integrator(Rk4::default());
    let (mut worst_c, mut worst_x, mut worst_q) = (0.0_f64, 0.0_f64, 0.0_f64);
    for k in 1..=1000 {
        let t = k as f64 * 1e-3;
        pair.step_to(t).unwrap();
        one.step_to(t).unwrap();
        let (pa, pb) = (pair.coordinates(a.body()), pair.coordinates(b.body()));
        let pc = one.coordinates(solid.body());
        for k in 0..3 {
            let c = (ma * pa[k] + mb * pb[k]) / (ma + mb);
            worst_x = worst_x.max((c - pc[k]).abs());
        }
        worst_q = worst_q.max(angle_between(pair.orientation(a), one.orientation(solid)));
        worst_c = worst_c.max(joint_error(&mut pair));
    }
    eprintln!(
        "welded pair against one body over 1 s: centre {worst_x:e} m, turn {worst_q:e} rad, joints {worst_c:e} m"
    );
    assert!(worst_x < 1e-8 && worst_q < 1e-8, "{worst_x:e} {worst_q:e}");
    assert!(worst_c < 1e-9, "{worst_c:e}");
}

/// A slider on a rail driven round a vertical axis at ω: with no force along the rail it moves
/// out as `r₀ cosh ωt`, the rail pushing it sideways with the Coriolis force `2 m ω ṙ`, and the
/// motor's torque is `d(m r² ω)/dt = 2 m r ṙ ω`.
fn spinning_rail(integrator: impl Integrator + 'static, dt: f64) -> (f64, f64, f64) {
    let (w, r0, m, t_end) = (2.0, 0.1, 0.5, 0.5);
    let mut sys = System::new(3).unwrap();
    let ground = sys
        .add_rigid_body_3d(RigidBody3d::new([0.0; 3]).fixed())
        .unwrap();
    let spin = [0.0, 0.0, w];
    let rail = sys
        .add_rigid_body_3d(
            RigidBody3d::new([0.0; 3])
                .mass(2.0)
                .principal_inertia([0.01, 0.1, 0.1])
                .angular_velocity(spin),
        )
        .unwrap();
    let x0 = [r0, 0.0, 0.0];
    let slider = sys
        .add_rigid_body_3d(
            RigidBody3d::new(x0)
                .mass(m)
                .principal_inertia([0.002, 0.003, 0.004])
                .angular_velocity(spin)
                .velocity(cross(spin, x0)),
        )
        .unwrap();
    let frames = (([0.0; 3], [0.0; 3]), ([0.0, 0.0, 1.0], [0.0, 0.0, 1.0]));
    sys.add_constraint(Hinge::new(ground.body(), rail.body(), frames.0, frames.1))
        .unwrap();
    let motor = sys
        .add_constraint(HingeMotor::new(
            ground.body(),
            rail.body(),
            frames.0,
            frames.1,
            w,
        ))
        .unwrap();
    let slide = sys
        .add_constraint(Prismatic3d::new(
            rail.body(),
            slider.body(),
            ([0.0; 3], [0.0; 3]),
            [1.0, 0.0, 0.0],
            [1.0, 0.0, 0.0, 0.0],
        ))
        .unwrap();
    sys.add_force(Gravity::new(&[0.0, 0.0, -9.81])).unwrap();
    sys.set_integrator(integrator);
    let steps = (t_end / dt).round() as usize;
    let mut worst_c = 0.0_f64;
    for k in 1..=steps {
        sys.step_to(k as f64 * dt).unwrap();
        worst_c = worst_c.max(joint_error(&mut sys));
    }
    let p = sys.coordinates(slider.body()).to_vec();
    let r = (p[0] * p[0] + p[1] * p[1]).sqrt();
    let report = sys.diagnostics().unwrap();
    let on_slider = |id: ConstraintId| {
        let c = report.constraint(id).unwrap();
        c.forces
            .iter()
            .find(|(b, _)| *b == slider.body())
            .unwrap()
            .1
            .clone()
    };
    let force = on_slider(slide);
    // The sideways force, along ω × r̂.
    let across = [-p[1] / r, p[0] / r, 0.0];
    let sideways: f64 = (0..3).map(|k| force[k] * across[k]).sum();
    let torque = report.constraint(motor).unwrap().lambda[0];
    let (ch, sh) = ((w * t_end).cosh(), (w * t_end).sinh());
    let (r_exact, rdot) = (r0 * ch, r0 * w * sh);
    eprintln!(
        "spinning rail, dt {dt}: r {r} vs {r_exact}; sideways {sideways} vs {}; torque {torque} vs {}; joints {worst_c:e}",
        2.0 * m * w * rdot,
        2.0 * m * r_exact * rdot * w
    );
    assert!(worst_c < 1e-9, "joints {worst_c:e}");
    (
        (r - r_exact).abs(),
        (sideways - 2.0 * m * w * rdot).abs(),
        (torque.abs() - 2.0 * m * r_exact * rdot * w).abs(),
    )
}

#[test]
fn a_slider_on_a_spinning_rail_moves_out_as_cosh() {
    let (dr, df, dt) = spinning_rail(Rk4::default(), 1e-3);
    assert!(dr < 1e-9 && df < 1e-7 && dt < 1e-7, "{dr:e} {df:e} {dt:e}");
    // Implicit Euler: first order in r, force and torque.
    let errors: Vec<_> = [4e-3, 2e-3, 1e-3]
        .into_iter()
        .map(|dt| spinning_rail(ImplicitEuler::default(), dt))
        .collect();
    for w in errors.windows(2) {
        for (e0, e1) in [(w[0].0, w[1].0), (w[0].1, w[1].1), (w[0].2, w[1].2)] {
            let ratio = e0 / e1;
            assert!((1.7..2.3).contains(&ratio), "ratio {ratio}: {errors:?}");
        }
    }
}

/// A fixed base and an arm of mass `m` whose centre is `l` along x from the hinge at the
/// origin, about y (the pivots `(0, (−l, 0, 0))`).
fn hinged_arm(m: f64, l: f64) -> (System, RigidBody3dId, RigidBody3dId) {
    let mut sys = System::new(3).unwrap();
    let base = sys
        .add_rigid_body_3d(RigidBody3d::new([0.0; 3]).fixed())
        .unwrap();
    let arm = sys
        .add_rigid_body_3d(
            RigidBody3d::new([l, 0.0, 0.0])
                .mass(m)
                .principal_inertia([0.001, 0.05, 0.05]),
        )
        .unwrap();
    let (y, pivots) = ([0.0, 1.0, 0.0], ([0.0; 3], [-l, 0.0, 0.0]));
    sys.add_constraint(Hinge::new(base.body(), arm.body(), pivots, (y, y)))
        .unwrap();
    (sys, base, arm)
}

/// An arm on a horizontal hinge falls from level onto its stop at `max`, and rests there: the
/// hinge angle is `max` to the Newton tolerance and the stop's torque is `m g l cos(max)`.
#[test]
fn a_hinge_limit_stops_a_falling_arm_and_holds_its_weight() {
    let (m, l, stop) = (1.2, 0.4, 0.6_f64);
    let integrators: [Box<dyn Integrator>; 2] =
        [Box::new(ImplicitEuler::default()), Box::new(Rk4::default())];
    for integrator in integrators {
        let (mut sys, base, arm) = hinged_arm(m, l);
        let y = [0.0, 1.0, 0.0];
        let x = [1.0, 0.0, 0.0];
        let limit = HingeLimit::new(base.body(), arm.body(), (y, y), -0.2, stop).zero((x, x));
        let id = sys.add_constraint(limit).unwrap();
        sys.add_force(Gravity::new(&[0.0, 0.0, -9.81])).unwrap();
        sys.set_integrator_boxed(integrator);
        for k in 1..=1500 {
            sys.step_to(k as f64 * 1e-3).unwrap();
        }
        let q = sys.orientation(arm);
        let angle = 2.0 * q[2].atan2(q[0]);
        let report = sys.diagnostics().unwrap();
        let lambda = &report.constraint(id).unwrap().lambda;
        let expected = m * 9.81 * l * stop.cos();
        eprintln!("hinge limit: angle {angle} (stop {stop}), λ {lambda:?} against {expected}");
        assert!((angle - stop).abs() < 1e-8, "{angle}");
        assert!((lambda[1] - expected).abs() < 1e-6 * expected, "{lambda:?}");
        assert!(lambda[0].abs() < 1e-9);
        assert!(sys.angular_velocity(arm).iter().all(|w| w.abs() < 1e-6));
    }
}

/// A hinge motor without a torque limit that turns an arm into its stop conflicts with the
/// stop once it reaches it: every stepper reports that, naming both, where the arm reaches the
/// stop (t = 0.2 s at 2 rad/s to 0.4 rad), rather than turn it through the stop (the explicit
/// integrators once did, silently) or fail on a Newton step thrown a whole turn away.
#[test]
fn a_hinge_motor_without_a_torque_limit_into_its_stop_is_a_named_conflict() {
    type Make = fn() -> Box<dyn Integrator>;
    let integrators: [(&str, Make); 4] = [
        ("RK4", || Box::new(Rk4::default())),
        ("symplectic Euler", || Box::new(SymplecticEuler::default())),
        ("implicit Euler", || Box::new(ImplicitEuler::default())),
        ("BDF2", || Box::new(Bdf2::default())),
    ];
    for (name, integrator) in integrators {
        let (mut sys, base, arm) = hinged_arm(1.2, 0.4);
        let (y, pivots) = ([0.0, 1.0, 0.0], ([0.0; 3], [-0.4, 0.0, 0.0]));
        let motor = HingeMotor::new(base.body(), arm.body(), pivots, (y, y), 2.0);
        let drive = sys.add_constraint(motor).unwrap();
        sys.set_constraint_name(drive, "drive").unwrap();
        let limit = HingeLimit::new(base.body(), arm.body(), (y, y), -0.4, 0.4);
        let stops = sys.add_constraint(limit).unwrap();
        sys.set_constraint_name(stops, "stops").unwrap();
        sys.add_force(Gravity::new(&[0.0, 0.0, -9.81])).unwrap();
        sys.set_integrator_boxed(integrator());
        let failure = (1..=400)
            .map(|k| sys.step_to(k as f64 * 1e-3))
            .find_map(Result::err);
        let error = failure
            .unwrap_or_else(|| panic!("{name}: turned through its stop silently"))
            .to_string();
        // The explicit integrators meet it as an impact, the implicit steppers in their solve.
        let expected = if name.starts_with("implicit") || name == "BDF2" {
            "'drive' and 'stops' conflict"
        } else {
            "'stops' is driven into its bound at 2.000e0 a second by 'drive'"
        };
        assert!(error.contains(expected), "{name}: {error}");
        let q = sys.orientation(arm);
        let angle = 2.0 * q[2].atan2(q[0]);
        assert!(
            angle.abs() <= 0.4 + 1e-4,
            "{name}: at {angle} rad, past the stop"
        );
        assert!(
            sys.time() > 0.19 && sys.time() < 0.202,
            "{name}: failed at t = {} rather than at the stop (t = 0.2 s)",
            sys.time()
        );
    }
}

/// A pendulum on a ball joint under gravity tilted 1 rad from its axis swings out and rests on
/// its 0.5 rad cone, the cone's torque `m g l sin(0.5)`; spun about its own axis, its twist
/// stops at the twist limit.
#[test]
fn a_cone_twist_limit_stops_swing_and_twist() {
    let (m, l, cone, tilt) = (0.8, 0.5, 0.5_f64, 1.0_f64);
    let down = [0.0, 0.0, -1.0];
    let build = |gravity: V3, spin: f64| -> (System, RigidBody3dId, ConstraintId) {
        let mut sys = System::new(3).unwrap();
        let torso = sys
            .add_rigid_body_3d(RigidBody3d::new([0.0; 3]).fixed())
            .unwrap();
        let w = [0.0, 0.0, spin];
        let limb = sys
            .add_rigid_body_3d(
                RigidBody3d::new([0.0, 0.0, -l])
                    .mass(m)
                    .principal_inertia([0.02, 0.02, 0.001])
                    .angular_velocity(w),
            )
            .unwrap();
        sys.add_constraint(bead::constraint::Revolute::new(
            Point::on_body_3d(torso.body(), [0.0; 3]),
            Point::on_body_3d(limb.body(), [0.0, 0.0, l]),
        ))
        .unwrap();
        let x = [1.0, 0.0, 0.0];
        let limit = ConeLimit::new(torso.body(), limb.body(), (down, down), cone)
            .zero((x, x))
            .twist(-0.3, 0.3);
        let id = sys.add_constraint(limit).unwrap();
        sys.add_force(Gravity::new(&gravity)).unwrap();
        sys.set_integrator(ImplicitEuler::default());
        for k in 1..=2000 {
            sys.step_to(k as f64 * 1e-3).unwrap();
        }
        (sys, limb, id)
    };
    let g = 9.81;
    let (mut sys, limb, id) = build([g * tilt.sin(), 0.0, -g * tilt.cos()], 0.0);
    let axis = rotation(sys.orientation(limb));
    // The limb's −z against the world's −z.
    let swing = axis[2][2].acos();
    let report = sys.diagnostics().unwrap();
    let c = report.constraint(id).unwrap();
    let torque = &c.forces.iter().find(|(b, _)| *b == limb.body()).unwrap().1[3..];
    let expected = m * g * l * (tilt - cone).sin();
    eprintln!("cone: swing {swing} (cone {cone}), torque {torque:?} against {expected}");
    assert!((swing - cone).abs() < 1e-8, "{swing}");
    assert!(
        (torque[1].abs() - expected).abs() < 1e-6 * expected,
        "{torque:?}"
    );
    assert!(joint_error(&mut sys) < 1e-9);

    // Straight down, spun at 3 rad/s about its axis: the twist stops at 0.3 and stays.
    let (mut sys, limb, id) = build([0.0, 0.0, -g], 3.0);
    let q = sys.orientation(limb);
    let twist = 2.0 * q[3].atan2(q[0]);
    let report = sys.diagnostics().unwrap();
    let active = report.constraint(id).unwrap().active.clone();
    eprintln!("twist {twist}, active {active:?}");
    assert!((twist - 0.3).abs() < 1e-8, "{twist}");
    assert!(sys.angular_velocity(limb)[2].abs() < 1e-6);
}

/// A spinning chain of 300 bars under implicit Euler: its joints carry up to 3 kN across bars
/// of 3 mm, so their stiffness on the bars' turns is indefinite and the factor bounds it. The
/// Newton step taken on the exact matrix around that factor keeps Newton's method quadratic,
/// as on a chain that does not spin: a few evaluations a step (it took 7.7 with the bound
/// alone, 60 at N = 1000), every joint exact.
#[test]
fn a_spinning_3d_chain_takes_exact_newton_steps() {
    let (mut sys, _) = bead::models::chain_3d(300, [1.0, 0.0, 0.5]).unwrap();
    sys.set_integrator(ImplicitEuler::default());
    let mut evaluations = 0;
    let steps = 50;
    for k in 1..=steps {
        evaluations += sys.step_to(k as f64 * 1e-3).unwrap().evaluations;
    }
    let per_step = evaluations as f64 / steps as f64;
    eprintln!("spinning chain of 300: {per_step} evaluations a step");
    assert!(per_step < 3.5, "{per_step}");
    assert!(joint_error(&mut sys) < 1e-12);
}
