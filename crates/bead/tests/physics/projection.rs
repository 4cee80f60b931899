//! Post-step projection with inequality constraints: it pushes out what is violated and leaves
//! alone what is apart.
//!
//! Regression (issue "physics at the seams", item 2): with `projection = true` a ball 1 m above a
//! floor, moving up, was snapped onto the floor and stopped — the projection solved `g = 0` and
//! `ġ = 0` for every inequality row as if it were an equality.

use bead::constraint::{HalfPlane, NonPenetration};
use bead::force::Gravity;
use bead::models::G;
use bead::{Feedback, Motion, Particle, Projection, Settings, System};

const R: f64 = 0.1;

fn projected() -> Settings {
    Settings {
        feedback: Feedback::none(),
        projection: Some(Projection::default()),
        ..Settings::default()
    }
}

/// A ball thrown up 1 m above a floor follows the parabola exactly until it lands.
#[test]
fn free_flight_above_a_floor_is_the_parabola() {
    let mut sys = System::new(2).unwrap();
    let ball = sys
        .add_particle(
            Particle::new(&[0.0, 1.0 + R])
                .radius(R)
                .velocity(&[0.5, 2.0]),
        )
        .unwrap();
    sys.add_force(Gravity::new(&[0.0, -G])).unwrap();
    sys.add_constraint(HalfPlane::new(
        ball,
        Motion::fixed(&[0.0, 0.0]),
        &[0.0, 1.0],
        R,
    ))
    .unwrap();
    sys.set_settings(projected()).unwrap();
    // Lands at 1 + 2t − g t²/2 = 0.
    let t_land = (2.0 + (4.0 + 2.0 * G).sqrt()) / G;
    while sys.time() < t_land - 0.01 {
        sys.step(1e-3).unwrap();
        let t = sys.time();
        let y = sys.position(ball)[1] - R;
        assert!(
            (y - (1.0 + 2.0 * t - 0.5 * G * t * t)).abs() < 1e-12,
            "t = {t}: y = {y}"
        );
        assert!((sys.velocity(ball)[1] - (2.0 - G * t)).abs() < 1e-12);
        assert!((sys.position(ball)[0] - 0.5 * t).abs() < 1e-12);
    }
}

/// Three balls stacked on a floor stay stacked with projection on: each contact touching, and
/// carrying the weight above it.
#[test]
fn resting_stack_keeps_its_contacts() {
    let mut sys = System::new(2).unwrap();
    let m = 0.5;
    let balls: Vec<_> = (0..3)
        .map(|k| {
            sys.add_particle(
                Particle::new(&[0.0, R + 2.0 * R * k as f64])
                    .radius(R)
                    .mass(m),
            )
            .unwrap()
        })
        .collect();
    sys.add_force(Gravity::new(&[0.0, -G])).unwrap();
    let floor = sys
        .add_constraint(HalfPlane::new(
            balls[0],
            Motion::fixed(&[0.0, 0.0]),
            &[0.0, 1.0],
            R,
        ))
        .unwrap();
    let pairs: Vec<_> = (1..3)
        .map(|k| {
            sys.add_constraint(NonPenetration::new(balls[k - 1], balls[k], 2.0 * R))
                .unwrap()
        })
        .collect();
    sys.set_settings(projected()).unwrap();
    for _ in 0..1000 {
        sys.step(1e-3).unwrap();
    }
    for (k, b) in balls.iter().enumerate() {
        let y = sys.position(*b)[1];
        assert!(
            (y - (R + 2.0 * R * k as f64)).abs() < 1e-9,
            "ball {k} at {y}"
        );
        assert!(sys.velocity(*b)[1].abs() < 1e-9);
    }
    let d = sys.diagnostics().unwrap();
    let lambda = |id| d.constraint(id).unwrap().lambda[0];
    assert!((lambda(floor) - 3.0 * m * G).abs() < 1e-9);
    assert!((lambda(pairs[0]) - 2.0 * m * G).abs() < 1e-9);
    assert!((lambda(pairs[1]) - m * G).abs() < 1e-9);
    for id in [floor, pairs[0], pairs[1]] {
        assert_eq!(d.constraint(id).unwrap().active, Some(vec![true]));
    }
}

/// A ball started 1 mm inside the floor and moving into it is pushed out to touch it (g = 0, not
/// beyond) and its approach removed, in one projected step; one moving away keeps its speed.
#[test]
fn projection_pushes_out_without_pulling_in() {
    for vy in [-1.0, 1.0] {
        let mut sys = System::new(2).unwrap();
        let ball = sys
            .add_particle(
                Particle::new(&[0.0, R - 1e-3])
                    .radius(R)
                    .velocity(&[0.0, vy]),
            )
            .unwrap();
        sys.add_constraint(HalfPlane::new(
            ball,
            Motion::fixed(&[0.0, 0.0]),
            &[0.0, 1.0],
            R,
        ))
        .unwrap();
        sys.set_settings(Settings {
            impacts: bead::contact::Impacts::Off,
            ..projected()
        })
        .unwrap();
        sys.step(1e-4).unwrap();
        let (y, v) = (sys.position(ball)[1], sys.velocity(ball)[1]);
        if vy < 0.0 {
            assert!((y - R).abs() < 1e-12, "pushed out to the surface: y = {y}");
            assert!(v.abs() < 1e-12, "approach removed: v = {v}");
        } else {
            // Moving out at 1 m/s for 0.1 ms from 1 mm in: still 0.9 mm in, projected to 0.
            assert!((y - R).abs() < 1e-12, "y = {y}");
            assert_eq!(v, 1.0, "a separating contact keeps its speed");
        }
    }
}
