//! Racks and pinions as rolling contacts: teeth that do not slip, whichever side the pinion is
//! on; tooth forces that are equal and opposite (momentum and angular momentum kept, reactions
//! that balance).

use bead::constraint::{Angle, Motor, Nail, OnLine, RackAndPinion};
use bead::force::{ConstantForce, Gravity};
use bead::models::G;
use bead::{Motion, Point, RigidBody, RigidBodyId, System};

/// `v` turned by `angle`.
fn rotate(v: [f64; 2], angle: f64) -> [f64; 2] {
    let (s, c) = angle.sin_cos();
    [c * v[0] - s * v[1], s * v[0] + c * v[1]]
}

fn dot(a: [f64; 2], b: [f64; 2]) -> f64 {
    a[0] * b[0] + a[1] * b[1]
}

/// Velocity of the material point of `body` that is at world position `k` now.
fn material_velocity(sys: &System, body: RigidBodyId, k: [f64; 2]) -> [f64; 2] {
    let (q, v) = (sys.coordinates(body), sys.coordinate_velocities(body));
    [v[0] - v[2] * (k[1] - q[1]), v[1] + v[2] * (k[0] - q[0])]
}

/// A rack's direction of travel in the world, and the pinion's pitch point `p_p − s ρ n̂`.
fn pitch_point(
    sys: &System,
    rack: RigidBodyId,
    pinion: RigidBodyId,
    axis: [f64; 2],
    rho: f64,
    s: f64,
) -> ([f64; 2], [f64; 2]) {
    let u = rotate(axis, sys.coordinates(rack)[2]);
    let n = [-u[1], u[0]];
    let p = sys.coordinates(pinion);
    (u, [p[0] - s * rho * n[0], p[1] - s * rho * n[1]])
}

/// Slip of the teeth along the rack: the pitch point's velocity as a point of the pinion minus
/// its velocity as a point of the rack, along the direction of travel.
fn slip(
    sys: &System,
    rack: RigidBodyId,
    pinion: RigidBodyId,
    axis: [f64; 2],
    rho: f64,
    s: f64,
) -> f64 {
    let (u, k) = pitch_point(sys, rack, pinion, axis, rho, s);
    let (a, b) = (
        material_velocity(sys, pinion, k),
        material_velocity(sys, rack, k),
    );
    dot(u, [a[0] - b[0], a[1] - b[1]])
}

const RACK_MASS: f64 = 3.0;
const PINION_MASS: f64 = 0.6;

/// A rack on a guide (at `rack_angle`, travelling along its own x axis) and a pinion of pitch
/// radius `rho` whose axle is nailed, on side `s` (+1 on the rack's left): returns the system,
/// rack, pinion and the axle's nail.
fn guided_rack_and_pinion(
    rho: f64,
    s: f64,
    rack_angle: f64,
) -> (System, RigidBodyId, RigidBodyId, bead::ConstraintId) {
    let mut sys = System::new(2).unwrap();
    let u = rotate([1.0, 0.0], rack_angle);
    let n = [-u[1], u[0]];
    let axle = [0.2, 0.1];
    // The rack's centre lies half its height beyond the pitch line, away from the pinion.
    let rack_centre = [
        axle[0] - s * (rho + 0.05) * n[0],
        axle[1] - s * (rho + 0.05) * n[1],
    ];
    let pinion = sys
        .add_rigid_body(
            RigidBody::new(&axle, 0.3)
                .mass(PINION_MASS)
                .inertia(0.5 * PINION_MASS * rho * rho),
        )
        .unwrap();
    let rack = sys
        .add_rigid_body(
            RigidBody::new(&rack_centre, rack_angle)
                .mass(RACK_MASS)
                .inertia(0.4),
        )
        .unwrap();
    sys.add_force(Gravity::new(&[0.0, -G])).unwrap();
    let nail = sys
        .add_constraint(Nail::new(Point::on_body(pinion, [0.0, 0.0]), &axle))
        .unwrap();
    sys.add_constraint(OnLine::new(
        Point::on_body(rack, [0.0, 0.0]),
        Motion::fixed(&rack_centre),
        &u,
    ))
    .unwrap();
    sys.add_constraint(Angle::to_world(rack, rack_angle))
        .unwrap();
    (sys, rack, pinion, nail)
}

/// A motor turns the pinion counter-clockwise; with the pinion above the rack (on its left) the
/// lowest tooth and the rack move along +û, below it along −û, at ρω. At every step the pitch
/// point has the same velocity along û as a point of either body (no slip), for a level and a
/// tilted rack.
#[test]
fn teeth_mesh_without_slip_above_and_below_the_rack() {
    let (rho, omega) = (0.1, 2.0);
    for rack_angle in [0.0, 0.5] {
        for s in [1.0, -1.0] {
            let (mut sys, rack, pinion, _) = guided_rack_and_pinion(rho, s, rack_angle);
            let teeth = RackAndPinion::meshing(&sys, rack, pinion, [1.0, 0.0], rho).unwrap();
            assert_eq!(teeth.side().sign(), s);
            sys.add_constraint(teeth).unwrap();
            sys.add_constraint(Motor::to_world(pinion, omega)).unwrap();
            let start = sys.coordinates(rack).to_vec();
            let mut worst: f64 = 0.0;
            for _ in 0..1000 {
                sys.step(1e-3).unwrap();
                worst = worst.max(slip(&sys, rack, pinion, [1.0, 0.0], rho, s).abs());
            }
            eprintln!("side {s}, rack at {rack_angle}: slip ≤ {worst:.2e} m/s");
            assert!(
                worst < 1e-9,
                "side {s}, rack at {rack_angle}: slip {worst:e}"
            );
            let u = rotate([1.0, 0.0], rack_angle);
            let v = sys.coordinate_velocities(rack);
            let (w, theta) = (
                sys.coordinate_velocities(pinion)[2],
                sys.coordinates(pinion)[2] - 0.3,
            );
            assert!((w - omega).abs() < 1e-6, "{w}");
            // The right way, at the right speed, by the right distance.
            assert!(s * dot(u, [v[0], v[1]]) > 0.0, "side {s}: rack moves {v:?}");
            assert!((dot(u, [v[0], v[1]]) - s * rho * w).abs() < 1e-9, "{v:?}");
            let q = sys.coordinates(rack);
            let travelled = dot(u, [q[0] - start[0], q[1] - start[1]]);
            assert!(
                (travelled - s * rho * theta).abs() < 1e-9,
                "{travelled} vs {}",
                s * rho * theta
            );
        }
    }
}

/// Linear momentum and angular momentum about the origin of `bodies` (with their masses and
/// moments of inertia).
fn momenta(sys: &System, bodies: &[(RigidBodyId, f64, f64)]) -> ([f64; 2], f64) {
    let (mut p, mut l) = ([0.0; 2], 0.0);
    for &(b, m, inertia) in bodies {
        let (q, v) = (sys.coordinates(b), sys.coordinate_velocities(b));
        p[0] += m * v[0];
        p[1] += m * v[1];
        l += m * (q[0] * v[1] - q[1] * v[0]) + inertia * v[2];
    }
    (p, l)
}

/// A free rack and a free pinion (no guide, no axle, no gravity), both moving and turning: the
/// tooth force acts on both bodies on one line, so linear momentum and angular momentum about
/// the origin stay what they were, over a second of RK4 (dt = 1 ms).
#[test]
fn a_free_rack_and_pinion_keep_their_momentum() {
    let (rho, s) = (0.1, 1.0);
    let rack_angle = 0.3;
    let u = rotate([1.0, 0.0], rack_angle);
    let n = [-u[1], u[0]];
    let rack_centre = [0.4, -0.2];
    let d = [(rho + 0.05) * n[0], (rho + 0.05) * n[1]];
    let pinion_centre = [rack_centre[0] + d[0], rack_centre[1] + d[1]];
    // Pinion spinning at 3 rad/s and drifting; the rack turning at 0.4 rad/s and sliding at the
    // speed that makes the teeth roll: û·(v_p − v_r) + ω_r n̂·d + s ρ (ω_p − ω_r) = 0.
    let (v_p, w_p, w_r) = ([0.1, -0.2], 3.0, 0.4);
    let alpha = w_r * dot(n, d) + s * rho * (w_p - w_r);
    let v_r = [v_p[0] + alpha * u[0], v_p[1] + alpha * u[1]];
    let (m_r, i_r, m_p, i_p) = (2.0, 0.2, 0.5, 0.0025);
    let mut sys = System::new(2).unwrap();
    let rack = sys
        .add_rigid_body(
            RigidBody::new(&rack_centre, rack_angle)
                .velocity(&v_r, w_r)
                .mass(m_r)
                .inertia(i_r),
        )
        .unwrap();
    let pinion = sys
        .add_rigid_body(
            RigidBody::new(&pinion_centre, 0.0)
                .velocity(&v_p, w_p)
                .mass(m_p)
                .inertia(i_p),
        )
        .unwrap();
    let teeth = sys
        .add_constraint(RackAndPinion::meshing(&sys, rack, pinion, [1.0, 0.0], rho).unwrap())
        .unwrap();
    let bodies = [(rack, m_r, i_r), (pinion, m_p, i_p)];
    let (p0, l0) = momenta(&sys, &bodies);
    let e0 = sys.diagnostics().unwrap().total_energy();
    let (mut drift_p, mut drift_l, mut largest_force): (f64, f64, f64) = (0.0, 0.0, 0.0);
    for _ in 0..1000 {
        sys.step(1e-3).unwrap();
        let (p, l) = momenta(&sys, &bodies);
        drift_p = drift_p.max((p[0] - p0[0]).hypot(p[1] - p0[1]) / p0[0].hypot(p0[1]));
        drift_l = drift_l.max((l - l0).abs() / l0.abs());
        let d = sys.diagnostics().unwrap();
        largest_force = largest_force.max(d.constraint(teeth).unwrap().lambda[0].abs());
    }
    // The teeth did work: the force between them is not small.
    eprintln!(
        "free rack and pinion: momentum {drift_p:.2e}, angular momentum {drift_l:.2e}, \
         largest tooth force {largest_force:.2e} N"
    );
    assert!(largest_force > 0.01, "tooth force {largest_force}");
    assert!(drift_p < 1e-12, "linear momentum drifted by {drift_p:e}");
    assert!(drift_l < 1e-9, "angular momentum drifted by {drift_l:e}");
    let e = sys.diagnostics().unwrap().total_energy();
    assert!((e - e0).abs() < 1e-9 * e0, "energy {e} vs {e0}");
    assert!(slip(&sys, rack, pinion, [1.0, 0.0], rho, s).abs() < 1e-9);
}

/// A motor turns the nailed pinion at constant speed against a load on the rack, F = 2 N
/// opposing its motion. In steady state the tooth force λ balances the load and, on a tilted
/// rack, its weight along û (the rack feels −λ û); the axle's nail holds the pinion against λ û
/// (on a level rack its λ along û is −λ; tilted, the pinion's weight adds in); and the motor
/// gives the tooth torque s ρ λ back: τ = −s ρ λ, which on a level rack is ρ F, the power F · ρω.
#[test]
fn axle_and_motor_balance_the_tooth_force() {
    let (rho, omega, load) = (0.1, 2.0, 2.0);
    for rack_angle in [0.0, 0.5] {
        for s in [1.0, -1.0] {
            let (mut sys, rack, pinion, axle) = guided_rack_and_pinion(rho, s, rack_angle);
            let u = rotate([1.0, 0.0], rack_angle);
            let teeth = sys
                .add_constraint(
                    RackAndPinion::meshing(&sys, rack, pinion, [1.0, 0.0], rho).unwrap(),
                )
                .unwrap();
            let motor = sys.add_constraint(Motor::to_world(pinion, omega)).unwrap();
            // λ exactly, not to an iterative solver's tolerance.
            sys.set_solver(bead::solve::Dense::default());
            // The rack moves along s û; the load pulls it back.
            sys.add_force(ConstantForce::new(
                Point::on_body(rack, [0.0, 0.0]),
                &[-s * load * u[0], -s * load * u[1]],
            ))
            .unwrap();
            // The motor's speed error decays as e^(−k_d t), k_d = 20/s.
            for _ in 0..2000 {
                sys.step(1e-3).unwrap();
            }
            let d = sys.diagnostics().unwrap();
            let lambda = d.constraint(teeth).unwrap().lambda[0];
            let nail = &d.constraint(axle).unwrap().lambda;
            let torque = d.constraint(motor).unwrap().lambda[0];
            let tag = format!("side {s}, rack at {rack_angle}");
            // Along û the rack feels −λ, the load and its weight (the guide takes the rest).
            let weight_along = |m: f64| -m * G * u[1];
            let expected = -s * load + weight_along(RACK_MASS);
            assert!(
                (lambda - expected).abs() < 1e-9,
                "{tag}: tooth force {lambda} vs {expected}"
            );
            // Along û the pinion feels λ, its weight and the nail.
            assert!(
                (dot(u, [nail[0], nail[1]]) + lambda + weight_along(PINION_MASS)).abs() < 1e-9,
                "{tag}: nail {nail:?}, tooth force {lambda}"
            );
            assert!(
                (torque + s * rho * lambda).abs() < 1e-9,
                "{tag}: motor torque {torque}, tooth force {lambda}"
            );
        }
    }
}
