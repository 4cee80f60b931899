//! Assembly (`System::assemble`): a start moved onto its constraints before the first step, by
//! the correction smallest in kinetic metric, against closed forms.
//!
//! Regression (issue 28, item 10): a pendulum whose rod length was swept without moving its bob
//! started 0.5 m off the rod, and the feedback snapped it on in the first steps, silently.

use bead::autodiff::DualNum;
use bead::constraint::{Distance, HalfPlane, Nail};
use bead::{
    Assembly, AssemblyError, Motion, Parametric, Particle, Point, RigidBody, Shape, System,
};

/// A bob of mass `m` at `x` moving at `v`, on a rod of length `length` from a nail at the
/// origin.
fn pendulum(x: [f64; 2], v: [f64; 2], m: f64, length: f64) -> (System, bead::ParticleId) {
    let mut sys = System::new(2).unwrap();
    let nail = sys.add_particle(Particle::anchor(&[0.0, 0.0])).unwrap();
    let bob = sys
        .add_particle(Particle::new(&x).velocity(&v).mass(m))
        .unwrap();
    let rod = sys
        .add_constraint(Distance::new(nail, bob, length))
        .unwrap();
    sys.set_constraint_name(rod, "rod").unwrap();
    (sys, bob)
}

/// A single bob is moved along the rod (the nearest point of the circle: `x L / |x|`) and keeps
/// only its velocity across the rod (`v − (v·x̂) x̂`), whatever its mass.
#[test]
fn a_bob_off_its_rod_moves_radially_onto_it() {
    let (x0, v0) = ([1.2, -0.9], [0.7, 1.9]); // |x0| = 1.5
    for m in [0.1, 1.0, 30.0] {
        let (mut sys, bob) = pendulum(x0, v0, m, 1.0);
        let off = sys.violations().unwrap();
        assert!((off[0].abs_c - 0.5).abs() < 1e-12, "{off:?}");
        let report = sys.assemble(&Assembly::default()).unwrap();
        assert!((report.abs_c - 0.5).abs() < 1e-12);
        let (x, v) = (sys.position(bob).to_vec(), sys.velocity(bob).to_vec());
        let r = x0[0].hypot(x0[1]);
        let n = [x0[0] / r, x0[1] / r];
        let along = v0[0] * n[0] + v0[1] * n[1];
        for i in 0..2 {
            assert!((x[i] - n[i]).abs() < 1e-12, "m = {m}: x = {x:?}");
            assert!(
                (v[i] - (v0[i] - along * n[i])).abs() < 1e-10,
                "m = {m}: v = {v:?}"
            );
        }
        let after = sys.violations().unwrap();
        assert!(
            after[0].abs_c <= 1e-10 && after[0].abs_c_dot <= 1e-10,
            "{after:?}"
        );
        assert!((report.displacement - 0.5 * n[0].abs().max(n[1].abs())).abs() < 1e-12);
    }
}

/// Two free masses on a rod: the correction is mass-weighted, so the centre of mass stays and
/// each end moves inversely to its mass, along the rod.
#[test]
fn two_masses_share_the_correction_by_their_masses() {
    let (m1, m2) = (1.0, 3.0);
    let mut sys = System::new(2).unwrap();
    let a = sys
        .add_particle(Particle::new(&[0.0, 0.0]).mass(m1))
        .unwrap();
    let b = sys
        .add_particle(Particle::new(&[1.6, 1.2]).mass(m2))
        .unwrap(); // 2 m apart
    sys.add_constraint(Distance::new(a, b, 1.0)).unwrap();
    sys.assemble(&Assembly::default()).unwrap();
    let (xa, xb) = (sys.position(a).to_vec(), sys.position(b).to_vec());
    let n = [0.8, 0.6];
    // Δa = +(m2/(m1+m2)) · 1 m · n, Δb = −(m1/(m1+m2)) · 1 m · n.
    for i in 0..2 {
        assert!((xa[i] - 0.75 * n[i]).abs() < 1e-12, "{xa:?}");
        assert!((xb[i] - (2.0 - 0.25) * n[i]).abs() < 1e-12, "{xb:?}");
        let centre = (m1 * xa[i] + m2 * xb[i]) / (m1 + m2);
        assert!((centre - (m2 * 2.0 * n[i]) / (m1 + m2)).abs() < 1e-12);
    }
}

/// A state on its constraints is left bit for bit, positions and velocities.
#[test]
fn a_start_on_its_constraints_is_left_as_it_is() {
    let (mut sys, _) = pendulum([0.6, -0.8], [0.8, 0.6], 1.0, 1.0);
    let (q, v) = (sys.q().to_vec(), sys.q_dot().to_vec());
    let report = sys.assemble(&Assembly::default()).unwrap();
    assert_eq!(report.iterations, 0);
    assert_eq!(sys.q(), q.as_slice());
    assert_eq!(sys.q_dot(), v.as_slice());
    assert_eq!((report.displacement, report.velocity_change), (0.0, 0.0));
}

/// A rod between two anchors further apart than its length cannot be assembled: the error
/// names it, and the state is left as it was.
#[test]
fn constraints_out_of_reach_are_named() {
    let mut sys = System::new(2).unwrap();
    let a = sys.add_particle(Particle::anchor(&[0.0, 0.0])).unwrap();
    let b = sys.add_particle(Particle::anchor(&[3.0, 0.0])).unwrap();
    let free = sys.add_particle(Particle::new(&[0.0, -1.2])).unwrap();
    let rod = sys.add_constraint(Distance::new(a, b, 1.0)).unwrap();
    sys.set_constraint_name(rod, "too short").unwrap();
    sys.add_constraint(Distance::new(a, free, 1.0)).unwrap();
    let q = sys.q().to_vec();
    let err = sys.assemble(&Assembly::default()).unwrap_err();
    let AssemblyError::NoConvergence { off, .. } = &err else {
        panic!("{err}");
    };
    assert_eq!(off.len(), 1, "{err}");
    assert_eq!(off[0].name, "too short");
    assert!((off[0].abs_c - 2.0).abs() < 1e-12);
    assert!(
        err.to_string().contains("'too short' |C| = 2.000e0"),
        "{err}"
    );
    assert_eq!(sys.q(), q.as_slice());
}

/// Two nails holding one particle at two places conflict: the error names both.
#[test]
fn conflicting_constraints_are_named() {
    let mut sys = System::new(2).unwrap();
    let p = sys.add_particle(Particle::new(&[0.0, 0.0])).unwrap();
    let left = sys.add_constraint(Nail::new(p, &[-0.5, 0.0])).unwrap();
    let right = sys.add_constraint(Nail::new(p, &[0.5, 0.0])).unwrap();
    sys.set_constraint_name(left, "left").unwrap();
    sys.set_constraint_name(right, "right").unwrap();
    let q = sys.q().to_vec();
    let err = sys.assemble(&Assembly::default()).unwrap_err().to_string();
    assert!(err.contains("left") && err.contains("right"), "{err}");
    assert_eq!(sys.q(), q.as_slice());
}

/// A rigid rod whose pinned end starts 0.3 m from its nail, spinning, ends with the end on the
/// nail and the end's velocity zero.
#[test]
fn a_rigid_body_is_moved_onto_its_pin() {
    let mut sys = System::new(2).unwrap();
    let rod = sys
        .add_rigid_body(
            RigidBody::new(&[0.5, 0.3], 0.2)
                .velocity(&[0.4, -0.1], 2.0)
                .shape(Shape::Rod { length: 1.0 }, 1.5),
        )
        .unwrap();
    let end = Point::on_body(rod, [-0.5, 0.0]);
    sys.add_constraint(Nail::new(end, &[0.0, 0.3])).unwrap();
    let before = sys.violations().unwrap()[0].clone();
    assert!(before.abs_c > 0.05 && before.abs_c_dot > 0.1, "{before:?}");
    sys.assemble(&Assembly::default()).unwrap();
    let x = sys.point_position(&end).unwrap();
    assert!(x[0].abs() < 1e-10 && (x[1] - 0.3).abs() < 1e-10, "{x:?}");
    let after = sys.violations().unwrap()[0].clone();
    assert!(
        after.abs_c <= 1e-10 && after.abs_c_dot <= 1e-10,
        "{after:?}"
    );
}

/// A parametric pendulum (one angle u) whose point is nailed where u = 0.5 is moved there, and
/// its rate, which the nail forbids, removed.
#[test]
fn a_parametric_object_is_moved_along_its_coordinates() {
    let mut sys = System::new(2).unwrap();
    let object = sys
        .add_parametric(
            Parametric::new(&[0.2])
                .rates(&[1.0])
                .point("bob", 2.0, |u, _t, x| {
                    x[0] = u[0].sin();
                    x[1] = -u[0].cos();
                }),
        )
        .unwrap();
    let bob = sys.parametric_point(object, "bob").unwrap();
    sys.add_constraint(Nail::new(bob, &[0.5_f64.sin(), -0.5_f64.cos()]))
        .unwrap();
    sys.assemble(&Assembly::default()).unwrap();
    assert!((sys.coordinates(object)[0] - 0.5).abs() < 1e-10);
    assert!(sys.coordinate_velocities(object)[0].abs() < 1e-10);
}

/// A ball started inside a floor is pushed out onto it, its velocity left (the approach is an
/// impact for the first step, with its restitution); a ball above the floor is not pulled down.
#[test]
fn inequalities_are_pushed_out_never_pulled_in() {
    let r = 0.1;
    for (height, expected) in [(0.05, 0.1), (1.0, 1.0)] {
        let mut sys = System::new(2).unwrap();
        let ball = sys
            .add_particle(
                Particle::new(&[0.0, height])
                    .radius(r)
                    .velocity(&[0.3, -1.0]),
            )
            .unwrap();
        sys.add_constraint(HalfPlane::new(
            ball,
            Motion::fixed(&[0.0, 0.0]),
            &[0.0, 1.0],
            r,
        ))
        .unwrap();
        sys.assemble(&Assembly::default()).unwrap();
        assert!((sys.position(ball)[1] - expected).abs() < 1e-10, "{height}");
        assert_eq!(sys.velocity(ball), [0.3, -1.0]);
    }
}
