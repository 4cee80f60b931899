//! Box2D v3's benchmark scenes `large_pyramid`, `many_pyramids` and `tumbler`, built in bead as
//! `scripts/compare/piles.py` and the Rapier harness build them in pymunk, Box2D and Rapier (the
//! geometry, term for term from v3's `shared/benchmarks.c`, is in `scripts/compare/README.md`).
//! Boxes of 1 m (0.25 m in the tumbler) and density 1 kg/m², friction μ at every contact.
//!
//! One difference is bead's: a body has one shape, so the tumbler's container is four wall
//! bodies welded to the right-hand one, which is hinged to the world at the container's centre
//! and driven by the motor. Bodies joined by a constraint do not collide, but the top and bottom
//! walls are welded to the right wall only, so the side walls are 18.9 m tall rather than 20 m:
//! their ends then stay 5 cm clear of the top and bottom walls instead of overlapping them. The
//! container's inside is v3's, but for those 5 cm notches in its corners, too narrow for a box
//! of 25 cm.

use anyhow::Result;
use bead::constraint::{Motor, Nail, Weld};
use bead::contact::ShapeContacts;
use bead::force::Gravity;
use bead::{BodyId, Point, RigidBody, Shape, System};

/// Gravity, m/s², as every scene of `scripts/compare`.
const G: f64 = 9.81;

/// A square box of side `side` and density 1 at `(x, y)`, at rest.
fn square(x: f64, y: f64, side: f64) -> RigidBody {
    RigidBody::new(&[x, y], 0.0).shape(
        Shape::Box {
            width: side,
            height: side,
        },
        1.0,
    )
}

/// `large_pyramid`: `rows` rows of touching 1 m boxes on a floor whose top is y = 0, spanning
/// x = ±100 m (±`rows` m past 100 rows). Returns the system and the boxes.
pub(super) fn large_pyramid(rows: usize, mu: f64) -> Result<(System, Vec<BodyId>)> {
    let mut system = System::new(2)?;
    system.add_force(Gravity::new(&[0.0, -G]))?;
    let width = (2.0 * rows as f64).max(200.0);
    let floor = system.add_rigid_body(
        RigidBody::new(&[0.0, -1.0], 0.0)
            .fixed()
            .outline(Shape::Box { width, height: 2.0 }),
    )?;
    let mut group = ShapeContacts::new().body(floor, mu);
    let mut boxes = Vec::new();
    for i in 0..rows {
        for j in i..rows {
            let x = 0.5 * (i + 1) as f64 + (j - i) as f64 - 0.5 * rows as f64;
            let y = 0.5 * (2 * i + 1) as f64;
            let body = system.add_rigid_body(square(x, y, 1.0))?;
            group = group.body(body, mu);
            boxes.push(body.body());
        }
    }
    system.add_shape_contacts(group)?;
    Ok((system, boxes))
}

/// `many_pyramids`: `n` floors 11 m apart, segments from x = −11 n to 11 n m, each carrying `n`
/// pyramids of 10 rows of touching 1 m boxes. Returns the system and the boxes.
pub(super) fn many_pyramids(n: usize, mu: f64) -> Result<(System, Vec<BodyId>)> {
    const ROWS: usize = 10;
    let mut system = System::new(2)?;
    system.add_force(Gravity::new(&[0.0, -G]))?;
    let mut group = ShapeContacts::new();
    let mut boxes = Vec::new();
    for i in 0..n {
        let level = 11.0 * i as f64;
        let floor = system.add_rigid_body(RigidBody::new(&[0.0, level], 0.0).fixed().outline(
            Shape::Rod {
                length: 22.0 * n as f64,
            },
        ))?;
        group = group.body(floor, mu);
        for j in 0..n {
            let centre = -5.5 * n as f64 + 11.0 * j as f64 + 0.5;
            for k in 0..ROWS {
                for l in k..ROWS {
                    let x = 0.5 * (k + 1) as f64 + (l - k) as f64 + centre - 0.5;
                    let y = level + 0.5 * (2 * k + 1) as f64;
                    let body = system.add_rigid_body(square(x, y, 1.0))?;
                    group = group.body(body, mu);
                    boxes.push(body.body());
                }
            }
        }
    }
    system.add_shape_contacts(group)?;
    Ok((system, boxes))
}

/// `tumbler`: an `n × n` grid of 0.25 m boxes in a 20 m container (walls 1 m thick, density
/// 50) hinged to the world at (0, 10) m and turned by a motor at 25°/s counterclockwise, with a
/// torque limit of 10⁸ N·m. Returns the system and the boxes.
pub(super) fn tumbler(n: usize, mu: f64) -> Result<(System, Vec<BodyId>)> {
    const CENTRE: [f64; 2] = [0.0, 10.0];
    let mut system = System::new(2)?;
    system.add_force(Gravity::new(&[0.0, -G]))?;
    let wall = |x: f64, y: f64, width: f64, height: f64| {
        RigidBody::new(&[CENTRE[0] + x, CENTRE[1] + y], 0.0)
            .shape(Shape::Box { width, height }, 50.0)
    };
    let right = system.add_rigid_body(wall(10.0, 0.0, 1.0, 18.9))?;
    let left = system.add_rigid_body(wall(-10.0, 0.0, 1.0, 18.9))?;
    let top = system.add_rigid_body(wall(0.0, 10.0, 20.0, 1.0))?;
    let bottom = system.add_rigid_body(wall(0.0, -10.0, 20.0, 1.0))?;
    let hub = Point::on_body(right, [-10.0, 0.0]);
    for (other, at) in [
        (left, [10.0, 0.0]),
        (top, [0.0, -10.0]),
        (bottom, [0.0, 10.0]),
    ] {
        system.add_constraint(Weld::new(hub, Point::on_body(other, at), 0.0))?;
    }
    system.add_constraint(Nail::new(hub, &CENTRE))?;
    system.add_constraint(Motor::to_world(right, 25f64.to_radians()).max_torque(1e8))?;
    let mut group = ShapeContacts::new();
    for wall in [right, left, top, bottom] {
        group = group.body(wall, mu);
    }
    let mut boxes = Vec::new();
    let side = n as f64;
    for i in 0..n {
        for j in 0..n {
            let x = -0.2 * side + 0.4 * j as f64;
            let y = -0.2 * side + 10.0 + 0.4 * i as f64;
            let body = system.add_rigid_body(square(x, y, 0.25))?;
            group = group.body(body, mu);
            boxes.push(body.body());
        }
    }
    system.add_shape_contacts(group)?;
    Ok((system, boxes))
}
