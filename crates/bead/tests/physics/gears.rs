//! Gears and racks as rolling contacts: teeth that do not slip, whichever side the pinion is on;
//! tooth forces that are equal and opposite (momentum and angular momentum kept, reactions that
//! balance); and planetary stages, whose carrier moves the line of centres, against Willis'
//! formula and the conservation laws.

use bead::constraint::{Angle, Gear, Motor, Nail, OnLine, RackAndPinion, Revolute};
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

/// Pitch radii of the planetary stage: sun, planet, ring (R = r_s + 2 r_p).
const SUN: f64 = 0.1;
const PLANET: f64 = 0.05;
const RING: f64 = SUN + 2.0 * PLANET;

/// A planetary stage: sun, carrier, ring and ring all turning about one centre, `planets`
/// planets on revolute joints at the ends of the carrier's arms (the first at `carrier_angle`).
struct Stage {
    sys: System,
    sun: RigidBodyId,
    carrier: RigidBodyId,
    ring: RigidBodyId,
    planets: Vec<RigidBodyId>,
    /// The sun–planet and planet–ring meshes.
    meshes: Vec<bead::ConstraintId>,
    /// Each body with its mass and moment of inertia.
    inertias: Vec<(RigidBodyId, f64, f64)>,
}

/// Angular velocities of the stage's sun, carrier and ring, and their common drift velocity.
#[derive(Clone, Copy)]
struct Spin {
    sun: f64,
    carrier: f64,
    drift: [f64; 2],
}

/// Builds a stage at `centre` moving as `spin` says (the planets' and ring's speeds follow from
/// rolling: ω_p − ω_c = −(r_s/r_p)(ω_s − ω_c), ω_r − ω_c = −(r_s/R)(ω_s − ω_c)). With
/// `nailed`, sun, carrier and ring are each nailed at the centre; otherwise the sun and ring
/// turn on revolute joints at the carrier's centre and the whole stage floats.
fn stage(centre: [f64; 2], carrier_angle: f64, planets: usize, spin: Spin, nailed: bool) -> Stage {
    let mut sys = System::new(2).unwrap();
    let arm = SUN + PLANET;
    let relative = spin.sun - spin.carrier;
    let w_planet = spin.carrier - SUN / PLANET * relative;
    let w_ring = spin.carrier - SUN / RING * relative;
    let mut inertias = Vec::new();
    let mut add = |sys: &mut System, at: [f64; 2], angle: f64, v: [f64; 2], w, m: f64, i: f64| {
        let b = sys
            .add_rigid_body(
                RigidBody::new(&at, angle)
                    .velocity(&v, w)
                    .mass(m)
                    .inertia(i),
            )
            .unwrap();
        inertias.push((b, m, i));
        b
    };
    let sun = add(
        &mut sys,
        centre,
        0.2,
        spin.drift,
        spin.sun,
        1.0,
        0.5 * SUN * SUN,
    );
    let carrier = add(
        &mut sys,
        centre,
        carrier_angle,
        spin.drift,
        spin.carrier,
        0.5,
        0.01,
    );
    let ring = add(
        &mut sys,
        centre,
        -0.4,
        spin.drift,
        w_ring,
        2.0,
        2.0 * RING * RING,
    );
    let mut planet_ids = Vec::new();
    let mut meshes = Vec::new();
    for k in 0..planets {
        let angle = carrier_angle + k as f64 * std::f64::consts::TAU / planets as f64;
        let local = rotate([arm, 0.0], angle - carrier_angle);
        let offset = rotate([arm, 0.0], angle);
        let at = [centre[0] + offset[0], centre[1] + offset[1]];
        let v = [
            spin.drift[0] - spin.carrier * offset[1],
            spin.drift[1] + spin.carrier * offset[0],
        ];
        let m = 0.3;
        let planet = add(
            &mut sys,
            at,
            0.1 * k as f64,
            v,
            w_planet,
            m,
            0.5 * m * PLANET * PLANET,
        );
        sys.add_constraint(Revolute::new(
            Point::on_body(carrier, local),
            Point::on_body(planet, [0.0, 0.0]),
        ))
        .unwrap();
        meshes.push(
            sys.add_constraint(Gear::meshing(&sys, sun, planet, SUN, PLANET).unwrap())
                .unwrap(),
        );
        meshes.push(
            sys.add_constraint(Gear::meshing(&sys, planet, ring, PLANET, -RING).unwrap())
                .unwrap(),
        );
        planet_ids.push(planet);
    }
    for body in [sun, carrier, ring] {
        if nailed {
            sys.add_constraint(Nail::new(Point::on_body(body, [0.0, 0.0]), &centre))
                .unwrap();
        } else if body != carrier {
            sys.add_constraint(Revolute::new(
                Point::on_body(carrier, [0.0, 0.0]),
                Point::on_body(body, [0.0, 0.0]),
            ))
            .unwrap();
        }
    }
    Stage {
        sys,
        sun,
        carrier,
        ring,
        planets: planet_ids,
        meshes,
        inertias,
    }
}

/// How far the speeds are from rolling, as a slip speed relative to the stage's speeds:
/// |r_s (ω_s − ω_c) + R (ω_r − ω_c)| / (R (|ω_s| + |ω_c| + |ω_r|)) — Willis' formula without its
/// ratio, which is 0/0 whenever sun and ring stop turning relative to the carrier.
fn rolling_error(st: &Stage) -> f64 {
    let w = |b: RigidBodyId| st.sys.coordinate_velocities(b)[2];
    let (ws, wc, wr) = (w(st.sun), w(st.carrier), w(st.ring));
    (SUN * (ws - wc) + RING * (wr - wc)).abs() / (RING * (ws.abs() + wc.abs() + wr.abs()))
}

/// Relative error of Willis' formula (ω_s − ω_c)/(ω_r − ω_c) = −R/r_s, written without the
/// division: |r_s (ω_s − ω_c) + R (ω_r − ω_c)| / (R |ω_r − ω_c|).
fn willis_error(st: &Stage) -> f64 {
    let w = |b: RigidBodyId| st.sys.coordinate_velocities(b)[2];
    let (ws, wc, wr) = (w(st.sun), w(st.carrier), w(st.ring));
    (SUN * (ws - wc) + RING * (wr - wc)).abs() / (RING * (wr - wc).abs())
}

/// Sun driven at 12 rad/s, ring held still (nailed and an `Angle` to the world), under gravity:
/// the carrier turns at ω_s r_s/(r_s + R) = 4 rad/s — nearly two turns in the run, its line of
/// centres crossing atan2's cut twice — and the planet at ω_c − (r_s/r_p)(ω_s − ω_c) = −12 rad/s.
/// The stage starts at those speeds, so the motor only holds them against gravity's torques, and
/// Willis' formula holds to 1e-8 throughout.
#[test]
fn planetary_stage_with_the_ring_held_obeys_willis() {
    let turning = Spin {
        sun: 12.0,
        carrier: 12.0 * SUN / (SUN + RING),
        drift: [0.0, 0.0],
    };
    let mut st = stage([0.05, -0.1], 2.9, 1, turning, true);
    st.sys.add_force(Gravity::new(&[0.0, -G])).unwrap();
    st.sys
        .add_constraint(Angle::to_world(st.ring, -0.4))
        .unwrap();
    st.sys
        .add_constraint(Motor::to_world(st.sun, 12.0))
        .unwrap();
    let mut worst: f64 = 0.0;
    while st.sys.time() < 3.0 {
        st.sys.step(1e-3).unwrap();
        worst = worst.max(willis_error(&st));
    }
    let w = |b: RigidBodyId| st.sys.coordinate_velocities(b)[2];
    let carrier = 12.0 * SUN / (SUN + RING);
    let planet = carrier - SUN / PLANET * (12.0 - carrier);
    assert!(worst < 1e-8, "Willis off by {worst:e}");
    assert!((w(st.carrier) - carrier).abs() < 1e-8, "{}", w(st.carrier));
    assert!(
        (w(st.planets[0]) - planet).abs() < 1e-8,
        "{}",
        w(st.planets[0])
    );
    assert!(st.sys.coordinates(st.carrier)[2] - 2.9 > 1.8 * std::f64::consts::TAU);
    eprintln!("ring held: Willis relative error ≤ {worst:.2e}");
}

/// Sun and ring both driven (12 and −3 rad/s) from rest, carrier free on its nail, under
/// gravity: the carrier settles at (r_s ω_s + R ω_r)/(r_s + R) = 2 rad/s, and Willis' formula
/// holds to 1e-8 once the spin-up is over. The motors reach their speeds within a few steps
/// (their default rate is 1/dt), an angular acceleration of ~10⁴ rad/s² that leaves the meshes
/// a rolling error of ~1e-6 which the feedback then removes: the first 1.5 s are the transient.
#[test]
fn planetary_stage_with_sun_and_ring_driven_obeys_willis() {
    let rest = Spin {
        sun: 0.0,
        carrier: 0.0,
        drift: [0.0, 0.0],
    };
    let mut st = stage([0.0, 0.0], 0.0, 1, rest, true);
    st.sys.add_force(Gravity::new(&[0.0, -G])).unwrap();
    st.sys
        .add_constraint(Motor::to_world(st.sun, 12.0))
        .unwrap();
    st.sys
        .add_constraint(Motor::to_world(st.ring, -3.0))
        .unwrap();
    let mut worst: f64 = 0.0;
    while st.sys.time() < 3.0 {
        st.sys.step(1e-3).unwrap();
        if st.sys.time() > 1.5 {
            worst = worst.max(willis_error(&st));
        }
    }
    let carrier = (SUN * 12.0 + RING * -3.0) / (SUN + RING);
    let wc = st.sys.coordinate_velocities(st.carrier)[2];
    assert!(worst < 1e-8, "Willis off by {worst:e}");
    assert!((wc - carrier).abs() < 1e-8, "{wc} vs {carrier}");
    eprintln!("sun and ring driven: Willis relative error ≤ {worst:.2e}");
}

/// A planetary stage left to itself — nothing driven, no gravity — with a torsion spring between
/// sun and ring wound up, so that the planets carry a varying torque from one to the other: the
/// tooth forces are internal, so over two seconds of RK4 (dt = 1 ms, the carrier turning about
/// two-thirds of a turn, across atan2's cut) energy and angular momentum are kept, and linear
/// momentum too when the stage floats; the speeds keep rolling (Willis) throughout. One planet, and three
/// (the meshes then redundant), floating or with sun, carrier and ring nailed at the centre.
#[test]
fn a_free_planetary_stage_keeps_energy_and_momentum() {
    use bead::force::TorsionSpring;
    let centre = [0.4, 0.2];
    for (planets, nailed) in [(1, false), (3, false), (3, true)] {
        let spin = Spin {
            sun: 5.0,
            carrier: 2.0,
            drift: if nailed { [0.0, 0.0] } else { [0.3, -0.1] },
        };
        let mut st = stage(centre, 2.5, planets, spin, nailed);
        st.sys.set_solver(bead::solve::Dense::default());
        let wound = st.sys.coordinates(st.ring)[2] - st.sys.coordinates(st.sun)[2] + 0.3;
        st.sys
            .add_force(TorsionSpring::new(st.sun, st.ring, 0.5, 0.0, wound))
            .unwrap();
        // Angular momentum about the centre, which the nails hold still when there are nails.
        let about_centre = |st: &Stage| {
            let (p, l) = momenta(&st.sys, &st.inertias);
            (p, l - (centre[0] * p[1] - centre[1] * p[0]))
        };
        let e0 = st.sys.diagnostics().unwrap().total_energy();
        let (p0, l0) = about_centre(&st);
        let (mut drift_e, mut drift_p, mut drift_l, mut worst, mut force): (
            f64,
            f64,
            f64,
            f64,
            f64,
        ) = (0.0, 0.0, 0.0, 0.0, 0.0);
        while st.sys.time() < 2.0 {
            st.sys.step(1e-3).unwrap();
            let d = st.sys.diagnostics().unwrap();
            drift_e = drift_e.max((d.total_energy() - e0).abs() / e0);
            let (p, l) = about_centre(&st);
            drift_l = drift_l.max((l - l0).abs() / l0.abs());
            if !nailed {
                drift_p = drift_p.max((p[0] - p0[0]).hypot(p[1] - p0[1]) / p0[0].hypot(p0[1]));
            }
            worst = worst.max(rolling_error(&st));
            for &id in &st.meshes {
                force = force.max(d.constraint(id).unwrap().lambda[0].abs());
            }
        }
        let tag = format!("{planets} planets, nailed {nailed}");
        eprintln!(
            "{tag}: energy {drift_e:.2e}, momentum {drift_p:.2e}, angular momentum \
             {drift_l:.2e}, rolling {worst:.2e}, largest tooth force {force:.2e} N"
        );
        assert!(force > 0.1, "{tag}: the spring loaded no tooth");
        assert!(drift_e < 1e-9, "{tag}: energy drifted by {drift_e:e}");
        assert!(drift_p < 1e-12, "{tag}: momentum drifted by {drift_p:e}");
        assert!(
            drift_l < 1e-9,
            "{tag}: angular momentum drifted by {drift_l:e}"
        );
        assert!(worst < 1e-8, "{tag}: rolling off by {worst:e}");
        // The carrier turned, so the line of centres did.
        assert!(
            (st.sys.coordinates(st.carrier)[2] - 2.5).abs() > 1.0,
            "{tag}"
        );
    }
}
