//! 3D rigid bodies against physics: Euler's equations for a free body (the Dzhanibekov flip),
//! conservation of world angular momentum and energy, the orders of the integrators through the
//! moving chart, a compound pendulum on a spherical joint and a heavy top's precession.

use bead::constraint::Nail;
use bead::force::Gravity;
use bead::integrate::{Bdf2, ImplicitEuler, Integrator, Rk4};
use bead::{Point, RigidBody3d, RigidBody3dId, System};

type V3 = [f64; 3];
type Quat = [f64; 4];

fn cross(a: V3, b: V3) -> V3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn norm(a: V3) -> f64 {
    (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt()
}

fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// `v` rotated by the unit quaternion `q` (body to world).
fn rotate(q: Quat, v: V3) -> V3 {
    let u = [q[1], q[2], q[3]];
    let t = cross(u, v).map(|x| 2.0 * x);
    let ut = cross(u, t);
    [0, 1, 2].map(|i| v[i] + q[0] * t[i] + ut[i])
}

/// `v` rotated back by `q` (world to body).
fn rotate_back(q: Quat, v: V3) -> V3 {
    rotate([q[0], -q[1], -q[2], -q[3]], v)
}

/// A free body's motion by Euler's equations in its own frame, `I ω̇ = −ω × I ω`, with
/// `q̇ = ½ q ⊗ (0, ω)`, by classical RK4 at a step fine enough to be exact here: the reference
/// that shares no code with the engine.
fn euler_reference(inertia: V3, omega_world: V3, q0: Quat, t_end: f64, steps: usize) -> (V3, Quat) {
    let h = t_end / steps as f64;
    let slope = |s: &[f64; 7]| -> [f64; 7] {
        let (w, q) = ([s[0], s[1], s[2]], [s[3], s[4], s[5], s[6]]);
        let iw = [0, 1, 2].map(|i| inertia[i] * w[i]);
        let g = cross(w, iw);
        let dw = [0, 1, 2].map(|i| -g[i] / inertia[i]);
        let dq = [
            -0.5 * (q[1] * w[0] + q[2] * w[1] + q[3] * w[2]),
            0.5 * (q[0] * w[0] + q[2] * w[2] - q[3] * w[1]),
            0.5 * (q[0] * w[1] + q[3] * w[0] - q[1] * w[2]),
            0.5 * (q[0] * w[2] + q[1] * w[1] - q[2] * w[0]),
        ];
        [dw[0], dw[1], dw[2], dq[0], dq[1], dq[2], dq[3]]
    };
    let wb = rotate_back(q0, omega_world);
    let mut s = [wb[0], wb[1], wb[2], q0[0], q0[1], q0[2], q0[3]];
    for _ in 0..steps {
        let k1 = slope(&s);
        let k2 = slope(&std::array::from_fn(|i| s[i] + 0.5 * h * k1[i]));
        let k3 = slope(&std::array::from_fn(|i| s[i] + 0.5 * h * k2[i]));
        let k4 = slope(&std::array::from_fn(|i| s[i] + h * k3[i]));
        for i in 0..7 {
            s[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
    }
    let n = (s[3] * s[3] + s[4] * s[4] + s[5] * s[5] + s[6] * s[6]).sqrt();
    let q = [s[3] / n, s[4] / n, s[5] / n, s[6] / n];
    (rotate(q, [s[0], s[1], s[2]]), q)
}

const INERTIA: V3 = [1.0, 2.0, 3.0];
/// Spinning about the intermediate axis, nearly: the Dzhanibekov flip within 2 s.
const SPIN: V3 = [0.01, 5.0, 0.02];

fn q0() -> Quat {
    let (w, x, y, z) = (0.9_f64, 0.3, -0.2, 0.25);
    let n = (w * w + x * x + y * y + z * z).sqrt();
    [w / n, x / n, y / n, z / n]
}

/// A free asymmetric body spinning near its intermediate axis.
fn free_body(integrator: impl Integrator + 'static) -> (System, RigidBody3dId) {
    let mut sys = System::new(3).unwrap();
    let q = q0();
    let body = sys
        .add_rigid_body_3d(
            RigidBody3d::new([0.0, 0.0, 0.0])
                .orientation(q)
                .principal_inertia(INERTIA)
                .mass(2.0)
                .angular_velocity(rotate(q, SPIN)),
        )
        .unwrap();
    sys.set_integrator(integrator);
    (sys, body)
}

fn energy(sys: &System, body: RigidBody3dId) -> f64 {
    let (w, l) = (sys.angular_velocity(body), sys.angular_momentum(body));
    0.5 * (w[0] * l[0] + w[1] * l[1] + w[2] * l[2])
}

/// The error in ω (world) and in the orientation at `t_end` of the free body, against the
/// reference.
fn free_body_error(integrator: impl Integrator + 'static, dt: f64, t_end: f64) -> f64 {
    let (mut sys, body) = free_body(integrator);
    let steps = (t_end / dt).round() as usize;
    for k in 1..=steps {
        sys.step_to(k as f64 * dt).unwrap();
    }
    let (w_ref, q_ref) = euler_reference(INERTIA, rotate(q0(), SPIN), q0(), t_end, 200_000);
    let q = sys.orientation(body);
    let sign = if q.iter().zip(&q_ref).map(|(a, b)| a * b).sum::<f64>() < 0.0 {
        -1.0
    } else {
        1.0
    };
    let dq = (0..4)
        .map(|i| (q[i] - sign * q_ref[i]).abs())
        .fold(0.0, f64::max);
    norm(sub(sys.angular_velocity(body), w_ref)) / norm(w_ref) + dq
}

/// The Dzhanibekov flip: the body spinning near its intermediate axis turns over, and bead's
/// RK4 follows Euler's equations through the flip at fourth order: the error falls 16-fold as
/// dt halves.
#[test]
fn the_dzhanibekov_flip_follows_eulers_equations_at_fourth_order() {
    let t_end = 3.0;
    // The reference does flip: ω along the intermediate axis reverses.
    let (w_ref, q_ref) = euler_reference(INERTIA, rotate(q0(), SPIN), q0(), t_end, 200_000);
    let wb = rotate_back(q_ref, w_ref);
    assert!(wb[1] < -4.0, "no flip in the reference: body ω = {wb:?}");
    let errors: Vec<f64> = [4e-3, 2e-3, 1e-3]
        .iter()
        .map(|&dt| free_body_error(Rk4::default(), dt, t_end))
        .collect();
    eprintln!("rk4 errors {errors:?}");
    assert!(errors[2] < 1e-6, "{errors:?}");
    assert_ratios(&errors, 12.0..20.0, "order-4");
}

/// Each error over the next (dt halved) lies in `range`.
fn assert_ratios(errors: &[f64], range: std::ops::Range<f64>, what: &str) {
    for pair in errors.windows(2) {
        let ratio = pair[0] / pair[1];
        assert!(range.contains(&ratio), "{what} ratio {ratio}: {errors:?}");
    }
}

/// The implicit steppers converge at their orders through the chart's re-centring, BDF2 with
/// its two-step history carried into each new chart.
#[test]
fn the_implicit_steppers_converge_at_their_orders() {
    let t_end = 1.0;
    let euler: Vec<f64> = [4e-3, 2e-3, 1e-3]
        .iter()
        .map(|&dt| free_body_error(ImplicitEuler::default(), dt, t_end))
        .collect();
    let bdf2: Vec<f64> = [4e-3, 2e-3, 1e-3]
        .iter()
        .map(|&dt| free_body_error(Bdf2::default(), dt, t_end))
        .collect();
    eprintln!("implicit euler {euler:?}\nbdf2 {bdf2:?}");
    assert_ratios(&euler, 1.8..2.2, "order-1");
    assert_ratios(&bdf2, 3.5..4.5, "order-2");
}

/// A fast asymmetric spin at a large step under implicit Euler: world angular momentum is
/// kept to the Newton tolerance, and the energy never grows (the gyroscopic term is implicit).
#[test]
fn implicit_euler_keeps_angular_momentum_and_never_gains_energy() {
    let mut sys = System::new(3).unwrap();
    let q = q0();
    let body = sys
        .add_rigid_body_3d(
            RigidBody3d::new([0.0; 3])
                .orientation(q)
                .principal_inertia([0.2, 1.0, 1.1])
                .angular_velocity([12.0, -30.0, 20.0]),
        )
        .unwrap();
    sys.set_integrator(ImplicitEuler::default());
    let l0 = sys.angular_momentum(body);
    let mut e = energy(&sys, body);
    let e0 = e;
    let dt = 0.05;
    for k in 1..=200 {
        sys.step_to(k as f64 * dt).unwrap();
        let e_next = energy(&sys, body);
        assert!(
            e_next <= e * (1.0 + 1e-12),
            "energy grew at step {k}: {e} → {e_next}"
        );
        e = e_next;
        let dl = norm(sub(sys.angular_momentum(body), l0)) / norm(l0);
        assert!(dl < 1e-9, "angular momentum drifted by {dl:e} at step {k}");
    }
    eprintln!("energy {e0} → {e}");
    // RK4 at the same step gains or loses energy; the implicit step dissipates some, not all.
    assert!(e < e0 && e > 0.05 * e0);
}

/// A box hanging from a nail at one corner, a compound pendulum on a spherical joint: its
/// small swings have the period `2π √(I_O / (m g l))`, `I_O` its moment of inertia about the
/// pivot across the swing.
#[test]
fn a_compound_pendulum_on_a_spherical_joint_has_its_period() {
    let (a, b, c, m, g) = (0.1, 0.2, 0.6, 3.0, 9.81);
    let mut sys = System::new(3).unwrap();
    // Hanging along −z from its top face's centre, swinging in the x–z plane.
    let body = sys
        .add_rigid_body_3d(
            RigidBody3d::new([0.0, 0.0, -c / 2.0])
                .mass(m)
                .principal_inertia([
                    m * (b * b + c * c) / 12.0,
                    m * (a * a + c * c) / 12.0,
                    m * (a * a + b * b) / 12.0,
                ])
                .angular_velocity([0.0, 0.05, 0.0])
                // The pivot at rest: v = −ω × (pivot − centre).
                .velocity([-0.05 * c / 2.0, 0.0, 0.0]),
        )
        .unwrap();
    sys.add_constraint(Nail::new(
        Point::on_body_3d(body, [0.0, 0.0, c / 2.0]),
        &[0.0, 0.0, 0.0],
    ))
    .unwrap();
    sys.add_force(Gravity::new(&[0.0, 0.0, -g])).unwrap();
    sys.set_integrator(Rk4::default());
    let l = c / 2.0;
    let i_pivot = m * (a * a + c * c) / 12.0 + m * l * l;
    let period = 2.0 * std::f64::consts::PI * (i_pivot / (m * g * l)).sqrt();
    // Time between successive upward zero crossings of ω_y (linear interpolation).
    let dt = 1e-3;
    let (mut crossings, mut last) = (Vec::new(), sys.angular_velocity(body)[1]);
    let mut k = 0;
    while crossings.len() < 3 {
        k += 1;
        sys.step_to(k as f64 * dt).unwrap();
        let w = sys.angular_velocity(body)[1];
        if last < 0.0 && w >= 0.0 {
            crossings.push(sys.time() - dt * w / (w - last));
        }
        last = w;
        assert!(k < 100_000, "no swing");
    }
    let measured = (crossings[2] - crossings[0]) / 2.0;
    eprintln!("period {measured} against {period}");
    // The swing's amplitude θ₀ (0.01 rad) lengthens the period by θ₀²/16 ≈ 6e-6.
    let amplitude = 0.05 * period / (2.0 * std::f64::consts::PI);
    let finite = period * (1.0 + amplitude * amplitude / 16.0);
    assert!((measured - finite).abs() / period < 5e-7);
    // The joint held: the pivot point stays at the origin.
    let pivot = sys
        .point_position(&Point::on_body_3d(body, [0.0, 0.0, c / 2.0]))
        .unwrap();
    assert!(norm(pivot) < 1e-8, "{pivot:?}");
}

/// A fast symmetric top on a spherical pivot precesses at `Ω ≈ m g l / (I₃ ω₃)`, averaged over
/// its nutation; its axis keeps its tilt to within the nutation's small amplitude.
#[test]
fn a_fast_heavy_top_precesses_at_m_g_l_over_its_spin() {
    let (m, g, l) = (1.0, 9.81, 0.1);
    let (i1, i3, spin) = (0.002, 0.004, 300.0);
    let tilt = 0.3_f64;
    let mut sys = System::new(3).unwrap();
    // The top's axis (body z) tilted by `tilt` about x; its tip at the origin.
    let q = [(tilt / 2.0).cos(), (tilt / 2.0).sin(), 0.0, 0.0];
    let axis = rotate(q, [0.0, 0.0, 1.0]);
    let body = sys
        .add_rigid_body_3d(
            RigidBody3d::new(axis.map(|x| x * l))
                .orientation(q)
                .mass(m)
                .principal_inertia([i1, i1, i3])
                .angular_velocity(axis.map(|x| x * spin)),
        )
        .unwrap();
    sys.add_constraint(Nail::new(
        Point::on_body_3d(body, [0.0, 0.0, -l]),
        &[0.0, 0.0, 0.0],
    ))
    .unwrap();
    sys.add_force(Gravity::new(&[0.0, 0.0, -g])).unwrap();
    sys.set_integrator(Rk4::default());
    let dt: f64 = 2e-4;
    let t_end: f64 = 1.0;
    let steps = (t_end / dt).round() as usize;
    let azimuth = |s: &System| {
        let a = rotate(s.orientation(body), [0.0, 0.0, 1.0]);
        a[1].atan2(a[0])
    };
    let start = azimuth(&sys);
    let mut max_tilt_change = 0.0_f64;
    // The tilt's turning points away from the start: the nutation's half periods.
    let (mut tilts, mut extremes) = (vec![tilt], Vec::new());
    for k in 1..=steps {
        sys.step_to(k as f64 * dt).unwrap();
        let a = rotate(sys.orientation(body), [0.0, 0.0, 1.0]);
        let now = a[2].acos();
        max_tilt_change = max_tilt_change.max((now - tilt).abs());
        tilts.push(now);
        let n = tilts.len();
        if n >= 3 && (tilts[n - 2] - tilts[n - 3]) * (tilts[n - 1] - tilts[n - 2]) < 0.0 {
            extremes.push(sys.time() - dt);
        }
    }
    let mut turned = azimuth(&sys) - start;
    if turned < -std::f64::consts::PI {
        turned += 2.0 * std::f64::consts::PI;
    }
    let rate = turned / t_end;
    let expected = m * g * l / (i3 * spin);
    eprintln!("precession {rate} rad/s against {expected}; tilt moved ≤ {max_tilt_change}");
    assert!((rate - expected).abs() / expected < 0.02);
    // Released without precession, the axis first falls and nutates at `I₃ ω₃ / I₁'`
    // (`I₁'` about the tip) by `2 m g l I₁' sin θ / (I₃ ω₃)²` (fast-top limits).
    let i1_tip = i1 + m * l * l;
    let (nutation, depth) = (
        i3 * spin / i1_tip,
        2.0 * m * g * l * i1_tip * tilt.sin() / (i3 * spin).powi(2),
    );
    let cycles = (extremes.len() - 1) as f64 / 2.0;
    let measured =
        2.0 * std::f64::consts::PI * cycles / (extremes[extremes.len() - 1] - extremes[0]);
    eprintln!(
        "nutation {measured} rad/s against {nutation}, depth {max_tilt_change} against {depth}"
    );
    assert!((measured - nutation).abs() / nutation < 0.03);
    assert!((max_tilt_change - depth).abs() / depth < 0.05);
}

/// A chain of `n` boxes on spherical joints hanging from a nail, tilted by `tilt` about x from
/// straight down, at rest; each box `link` m long, of `mass` kg.
fn box_chain(n: usize, tilt: f64, link: f64, mass: f64) -> (System, Vec<bead::ConstraintId>) {
    use bead::constraint::Revolute;
    let mut sys = System::new(3).unwrap();
    let q = [(tilt / 2.0).cos(), (tilt / 2.0).sin(), 0.0, 0.0];
    let down = rotate(q, [0.0, 0.0, -1.0]);
    // Boxes 4 cm square across.
    let w = 0.04;
    let inertia = [
        mass * (w * w + link * link) / 12.0,
        mass * (w * w + link * link) / 12.0,
        mass * 2.0 * w * w / 12.0,
    ];
    let mut joints = Vec::new();
    let mut above: Option<RigidBody3dId> = None;
    for k in 0..n {
        let centre = down.map(|d| d * link * (k as f64 + 0.5));
        let body = sys
            .add_rigid_body_3d(
                RigidBody3d::new(centre)
                    .orientation(q)
                    .mass(mass)
                    .principal_inertia(inertia),
            )
            .unwrap();
        let top = Point::on_body_3d(body, [0.0, 0.0, link / 2.0]);
        joints.push(match above {
            None => sys
                .add_constraint(Nail::new(top, &[0.0, 0.0, 0.0]))
                .unwrap(),
            Some(a) => sys
                .add_constraint(Revolute::new(
                    Point::on_body_3d(a, [0.0, 0.0, -link / 2.0]),
                    top,
                ))
                .unwrap(),
        });
        above = Some(body);
    }
    sys.add_force(Gravity::new(&[0.0, 0.0, -9.81])).unwrap();
    (sys, joints)
}

/// A hanging chain of boxes on spherical joints at rest: each joint carries the weight of the
/// boxes below it, and no torque.
#[test]
fn a_hanging_box_chain_carries_the_weight_below_each_joint() {
    let (n, mass) = (12, 0.5);
    let (mut sys, joints) = box_chain(n, 0.0, 0.2, mass);
    sys.set_integrator(ImplicitEuler::default());
    for k in 1..=10 {
        sys.step_to(k as f64 * 1e-3).unwrap();
    }
    let report = sys.diagnostics().unwrap();
    for (k, &id) in joints.iter().enumerate() {
        let c = report.constraint(id).unwrap();
        let below = (n - k) as f64 * mass * 9.81;
        // λ is the force on the joint's first point's body: the nail holds the top box up, each
        // other joint holds the box above it down by the weight below.
        let expected = if k == 0 { below } else { -below };
        assert!(
            (c.lambda[2] - expected).abs() < 1e-6 * below,
            "joint {k}: {:?}",
            c.lambda
        );
        assert!(c.lambda[0].abs() < 1e-9 && c.lambda[1].abs() < 1e-9);
        // The force on each body: its joint's pull, and no torque about its centre (the
        // force passes through it).
        for (_, f) in &c.forces {
            assert_eq!(f.len(), 6);
            assert!(f[3..].iter().all(|t| t.abs() < 1e-9), "torque {f:?}");
        }
    }
}

/// The chain let go at 60° swings with every spherical joint exact to 1e-9 m at dt = 1 ms,
/// under both implicit steppers, and its energy never grows.
#[test]
fn a_swinging_box_chain_keeps_its_joints_exact() {
    for bdf2 in [false, true] {
        let (mut sys, _) = box_chain(20, 1.0, 0.1, 0.3);
        if bdf2 {
            sys.set_integrator(Bdf2::default());
        } else {
            sys.set_integrator(ImplicitEuler::default());
        }
        let e0 = sys.diagnostics().unwrap().total_energy();
        let mut worst = 0.0_f64;
        for k in 1..=500 {
            sys.step_to(k as f64 * 1e-3).unwrap();
            worst = worst.max(sys.constraint_error().unwrap().0);
        }
        let e = sys.diagnostics().unwrap().total_energy();
        eprintln!("bdf2 {bdf2}: max |C| {worst:e}, energy {e0} → {e}");
        assert!(worst < 1e-9);
        assert!(e <= e0 + 1e-9 * e0.abs().max(1.0));
    }
}

/// A box on a hinge whose axis is tilted by `alpha` from the horizontal: the hinge lets it swing
/// only about the axis, where gravity's part across the axis, `g cos α`, drives it. Returns the
/// system, the box and its hinge axis in the world.
fn tilted_hinge_pendulum(
    alpha: f64,
    l: f64,
    m: f64,
    size: [f64; 3],
) -> (System, RigidBody3dId, V3) {
    use bead::constraint::Hinge;
    let mut sys = System::new(3).unwrap();
    let (s, c) = alpha.sin_cos();
    let axis = [0.0, c, s];
    let down = [0.0, s, -c];
    let q = [(alpha / 2.0).cos(), (alpha / 2.0).sin(), 0.0, 0.0];
    let [a, b, h] = size;
    let spin = 0.05;
    let omega = axis.map(|x| x * spin);
    let anchor = sys
        .add_rigid_body_3d(RigidBody3d::new([0.0; 3]).fixed())
        .unwrap();
    let body = sys
        .add_rigid_body_3d(
            RigidBody3d::new(down.map(|x| x * l))
                .orientation(q)
                .mass(m)
                .principal_inertia([
                    m * (b * b + h * h) / 12.0,
                    m * (a * a + h * h) / 12.0,
                    m * (a * a + b * b) / 12.0,
                ])
                .angular_velocity(omega)
                .velocity(cross(omega, down.map(|x| x * l))),
        )
        .unwrap();
    sys.add_constraint(Hinge::new(
        anchor.body(),
        body.body(),
        ([0.0; 3], [0.0, 0.0, l]),
        (axis, [0.0, 1.0, 0.0]),
    ))
    .unwrap();
    sys.add_force(Gravity::new(&[0.0, 0.0, -9.81])).unwrap();
    (sys, body, axis)
}

/// The tilted hinge's pendulum: its period is `2π √(I_axis / (m g cos α l))` (with the
/// amplitude's `θ₀²/16`), and it turns about the hinge's axis alone.
#[test]
fn a_pendulum_on_a_tilted_hinge_swings_about_its_axis_alone() {
    let (alpha, l, m, size) = (0.5_f64, 0.25, 2.0, [0.05, 0.08, 0.5]);
    let (mut sys, body, axis) = tilted_hinge_pendulum(alpha, l, m, size);
    sys.set_integrator(Rk4::default());
    let i_axis = m * (size[0] * size[0] + size[2] * size[2]) / 12.0 + m * l * l;
    let period = 2.0 * std::f64::consts::PI * (i_axis / (m * 9.81 * alpha.cos() * l)).sqrt();
    let amplitude = 0.05 * period / (2.0 * std::f64::consts::PI);
    let expected = period * (1.0 + amplitude * amplitude / 16.0);
    let along = |s: &System| {
        let w = s.angular_velocity(body);
        (
            w[0] * axis[0] + w[1] * axis[1] + w[2] * axis[2],
            norm(cross(w, axis)),
        )
    };
    let dt = 1e-3;
    let (mut crossings, mut last, mut off_axis) = (Vec::new(), along(&sys).0, 0.0_f64);
    let mut k = 0;
    while crossings.len() < 3 {
        k += 1;
        sys.step_to(k as f64 * dt).unwrap();
        let (w, across) = along(&sys);
        off_axis = off_axis.max(across);
        if last < 0.0 && w >= 0.0 {
            crossings.push(sys.time() - dt * w / (w - last));
        }
        last = w;
        assert!(k < 100_000, "no swing");
    }
    let measured = (crossings[2] - crossings[0]) / 2.0;
    eprintln!("tilted hinge: period {measured} against {expected}; off-axis ω ≤ {off_axis:e}");
    assert!((measured - expected).abs() / expected < 5e-7);
    assert!(off_axis < 1e-7);
}

/// A hinge chain hanging at rest under implicit Euler: each hinge carries the weight below it,
/// and set swinging it keeps every hinge exact to 1e-9 (pivots and axes) at dt = 1 ms.
#[test]
fn a_hinge_chain_carries_its_weight_and_stays_exact() {
    use bead::constraint::Hinge;
    let (n, link, mass) = (8, 0.1, 0.4);
    for swinging in [false, true] {
        let mut sys = System::new(3).unwrap();
        let anchor = sys
            .add_rigid_body_3d(RigidBody3d::new([0.0; 3]).fixed())
            .unwrap();
        let mut above = anchor;
        let mut joints = Vec::new();
        // Hinges about the world x axis; the swinging chain starts turned by 0.8 rad about it.
        let tilt = if swinging { 0.8_f64 } else { 0.0 };
        let q = [(tilt / 2.0).cos(), (tilt / 2.0).sin(), 0.0, 0.0];
        let down = rotate(q, [0.0, 0.0, -1.0]);
        for k in 0..n {
            let centre = down.map(|d| d * link * (k as f64 + 0.5));
            let body = sys
                .add_rigid_body_3d(
                    RigidBody3d::new(centre)
                        .orientation(q)
                        .mass(mass)
                        .principal_inertia([0.001, 0.0012, 0.0002]),
                )
                .unwrap();
            let top = [0.0, 0.0, link / 2.0];
            let (pivot_above, axis_above) = if above == anchor {
                ([0.0; 3], [1.0, 0.0, 0.0])
            } else {
                ([0.0, 0.0, -link / 2.0], [1.0, 0.0, 0.0])
            };
            joints.push(
                sys.add_constraint(Hinge::new(
                    above.body(),
                    body.body(),
                    (pivot_above, top),
                    (axis_above, [1.0, 0.0, 0.0]),
                ))
                .unwrap(),
            );
            above = body;
        }
        sys.add_force(Gravity::new(&[0.0, 0.0, -9.81])).unwrap();
        sys.set_integrator(ImplicitEuler::default());
        let mut worst = 0.0_f64;
        let steps = if swinging { 500 } else { 5 };
        for k in 1..=steps {
            sys.step_to(k as f64 * 1e-3).unwrap();
            worst = worst.max(sys.constraint_error().unwrap().0);
        }
        assert!(worst < 1e-9, "max |C| {worst:e}");
        if !swinging {
            let report = sys.diagnostics().unwrap();
            for (k, &id) in joints.iter().enumerate() {
                let c = report.constraint(id).unwrap();
                let below = (n - k) as f64 * mass * 9.81;
                // λ₂ is the force on the body above (the anchor for the first): it holds the
                // weight below down.
                assert!(
                    (c.lambda[2] + below).abs() < 1e-6 * below,
                    "joint {k}: {:?}",
                    c.lambda
                );
                assert!(c.lambda[3].abs() < 1e-9 && c.lambda[4].abs() < 1e-9);
            }
        }
    }
}

/// A Cardan joint (a Tinkertoy in 3D): an input shaft along x and an output shaft bent by
/// `beta` in the x–y plane, each hinged to the world at its centre, joined through a cross by
/// two hinges. Returns the system and the input shaft, the output shaft and the bend.
fn cardan(beta: f64, w: f64) -> (System, [RigidBody3dId; 2]) {
    use bead::constraint::Hinge;
    let mut sys = System::new(3).unwrap();
    let (s, c) = beta.sin_cos();
    let b = [c, s, 0.0];
    let world = sys
        .add_rigid_body_3d(RigidBody3d::new([0.0; 3]).fixed())
        .unwrap();
    // Consistent rates: ω_A = w x̂, and the output and the cross turn at (w, w tan β, 0) at the
    // start, where the input's fork (along y) lies in the shafts' plane.
    let shaft = |at: [f64; 3], omega: [f64; 3]| {
        RigidBody3d::new(at)
            .mass(1.0)
            .principal_inertia([0.004, 0.003, 0.005])
            .angular_velocity(omega)
    };
    let a = sys
        .add_rigid_body_3d(shaft([-0.3, 0.0, 0.0], [w, 0.0, 0.0]))
        .unwrap();
    let out = sys
        .add_rigid_body_3d(shaft([0.3 * c, 0.3 * s, 0.0], [w, w * s / c, 0.0]))
        .unwrap();
    let cross = sys
        .add_rigid_body_3d(
            RigidBody3d::new([0.0; 3])
                .mass(0.2)
                .principal_inertia([1e-4, 1e-4, 1.5e-4])
                .angular_velocity([w, w * s / c, 0.0]),
        )
        .unwrap();
    let hinge = |sys: &mut System, p: RigidBody3dId, q: RigidBody3dId, pivots, axis: V3| {
        sys.add_constraint(Hinge::new(p.body(), q.body(), pivots, (axis, axis)))
            .unwrap();
    };
    hinge(
        &mut sys,
        world,
        a,
        ([-0.3, 0.0, 0.0], [0.0; 3]),
        [1.0, 0.0, 0.0],
    );
    hinge(&mut sys, world, out, ([0.3 * c, 0.3 * s, 0.0], [0.0; 3]), b);
    hinge(
        &mut sys,
        a,
        cross,
        ([0.3, 0.0, 0.0], [0.0; 3]),
        [0.0, 1.0, 0.0],
    );
    hinge(
        &mut sys,
        out,
        cross,
        ([-0.3 * c, -0.3 * s, 0.0], [0.0; 3]),
        [0.0, 0.0, 1.0],
    );
    (sys, [a, out])
}

/// The Cardan joint's output angle follows its kinematics, `tan φ_B = tan φ_A / cos β`, through
/// whole turns, under the implicit stepper at a large step and under RK4.
#[test]
fn a_cardan_joint_follows_its_kinematics() {
    let beta = 0.5_f64;
    let b = [beta.cos(), beta.sin(), 0.0];
    let p = [-beta.sin(), beta.cos(), 0.0];
    for implicit in [true, false] {
        let (mut sys, [a, out]) = cardan(beta, 10.0);
        let dt = if implicit {
            sys.set_integrator(ImplicitEuler::default());
            0.01
        } else {
            sys.set_integrator(Rk4::default());
            1e-3
        };
        let mut worst = 0.0_f64;
        let steps = (2.0 / dt) as usize;
        for k in 1..=steps {
            sys.step_to(k as f64 * dt).unwrap();
            let fork_a = rotate(sys.orientation(a), [0.0, 1.0, 0.0]);
            let phi_a = fork_a[2].atan2(fork_a[1]);
            let fork_b = rotate(sys.orientation(out), [0.0, 0.0, 1.0]);
            let along_p = fork_b[0] * p[0] + fork_b[1] * p[1];
            let phi_b = (-along_p).atan2(fork_b[2]);
            let expected = phi_a.sin().atan2(phi_a.cos() * beta.cos());
            worst = worst.max((phi_b - expected).sin().abs());
            let axis_b = rotate(sys.orientation(out), b);
            assert!(norm(sub(axis_b, b)) < 1e-8);
        }
        let turns = {
            let fork_a = rotate(sys.orientation(a), [0.0, 1.0, 0.0]);
            fork_a[2].atan2(fork_a[1])
        };
        eprintln!("cardan implicit {implicit}: worst angle error {worst:e}, input at {turns}");
        assert!(worst < 1e-8, "{worst:e}");
    }
}

/// An arm on a horizontal hinge held level by its motor at speed 0: the motor's torque is the
/// arm's weight times its lever, `m g l`, by hand statics; with a smaller torque limit the arm
/// sags and the motor gives exactly its limit.
#[test]
fn a_hinge_motor_holds_an_arm_against_its_weight() {
    use bead::constraint::{Hinge, HingeMotor};
    let (m, l) = (1.5, 0.4);
    for limit in [None, Some(2.0)] {
        let mut sys = System::new(3).unwrap();
        let base = sys
            .add_rigid_body_3d(RigidBody3d::new([0.0; 3]).fixed())
            .unwrap();
        let arm = sys
            .add_rigid_body_3d(
                RigidBody3d::new([l, 0.0, 0.0])
                    .mass(m)
                    .principal_inertia([0.001, 0.08, 0.08]),
            )
            .unwrap();
        let frames = (
            ([0.0; 3], [-l, 0.0, 0.0]),
            ([0.0, 1.0, 0.0], [0.0, 1.0, 0.0]),
        );
        sys.add_constraint(Hinge::new(base.body(), arm.body(), frames.0, frames.1))
            .unwrap();
        let motor = HingeMotor::new(base.body(), arm.body(), frames.0, frames.1, 0.0);
        let motor = match limit {
            Some(t) => motor.max_torque(t),
            None => motor,
        };
        let id = sys.add_constraint(motor).unwrap();
        sys.add_force(Gravity::new(&[0.0, 0.0, -9.81])).unwrap();
        sys.set_integrator(ImplicitEuler::default());
        for k in 1..=20 {
            sys.step_to(k as f64 * 1e-3).unwrap();
        }
        let report = sys.diagnostics().unwrap();
        let torque = report.constraint(id).unwrap().lambda[0];
        let w = sys.angular_velocity(arm);
        match limit {
            // The weight turns the arm about +y (x̂ × −ẑ = +ŷ): the motor pushes back.
            None => {
                assert!((torque + m * 9.81 * l).abs() < 1e-6, "torque {torque}");
                assert!(w.iter().all(|x| x.abs() < 1e-9), "{w:?}");
            }
            Some(t) => {
                assert!(
                    (torque + t).abs() < 1e-9,
                    "torque {torque} against the limit {t}"
                );
                assert!(w[1] > 0.0, "the arm does not sag: {w:?}");
            }
        }
    }
}
