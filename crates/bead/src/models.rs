//! Ready-made models shared by the tests, the benchmarks and the examples: the classics of the
//! seeds, built through the public API only.

use crate::constraint::{ConstraintId, Distance};
use crate::contact::{ShapeContacts, ShapeGroupId};
use crate::force::Gravity;
use crate::{ModelError, Particle, ParticleId, RigidBody, RigidBodyId, Shape, System};

/// Standard gravity, in m/s².
pub const G: f64 = 9.81;

/// A chain of particles hanging from an anchor, linked by rods.
#[derive(Debug)]
pub struct Chain {
    /// The system (2D, gravity along −y).
    pub system: System,
    /// The anchor at the top, then the moving particles in order.
    pub particles: Vec<ParticleId>,
    /// The rods, from the anchor down.
    pub links: Vec<ConstraintId>,
}

/// A 2D chain of `n` links of `link` metres and particles of `mass` kg, hanging from an anchor at
/// the origin, initially straight at `angle` radians from the +x axis (−π/2 hangs at rest).
///
/// ```
/// let chain = bead::models::chain(10, 0.1, 0.5, -std::f64::consts::FRAC_PI_2)?;
/// assert_eq!(chain.links.len(), 10);
/// # Ok::<(), bead::ModelError>(())
/// ```
pub fn chain(n: usize, link: f64, mass: f64, angle: f64) -> Result<Chain, ModelError> {
    let mut system = System::new(2)?;
    system.add_force(Gravity::new(&[0.0, -G]))?;
    let (s, c) = angle.sin_cos();
    let mut particles = vec![system.add_particle(Particle::anchor(&[0.0, 0.0]))?];
    let mut links = Vec::with_capacity(n);
    for k in 1..=n {
        let r = k as f64 * link;
        let p = system.add_particle(Particle::new(&[r * c, r * s]).mass(mass))?;
        links.push(system.add_constraint(Distance::new(particles[k - 1], p, link))?);
        particles.push(p);
    }
    Ok(Chain {
        system,
        particles,
        links,
    })
}

/// The chain-swing scene of the benchmarks and of `scripts/compare`: `n` particles of 1 kg on
/// rods, 1 m long in all, hanging from an anchor at the origin and turning rigidly about it at
/// `omega` rad/s (each particle's velocity is `ω × r`).
///
/// ```
/// let c = bead::models::chain_swing(10, 1.0)?;
/// let tip = *c.particles.last().unwrap();
/// assert!((c.system.velocity(tip)[0] - 1.0).abs() < 1e-12); // ω r at r = 1 m
/// # Ok::<(), bead::ModelError>(())
/// ```
pub fn chain_swing(n: usize, omega: f64) -> Result<Chain, ModelError> {
    let mut c = chain(n, 1.0 / n as f64, 1.0, -std::f64::consts::FRAC_PI_2)?;
    for &p in &c.particles[1..] {
        let x = c.system.position(p).to_vec();
        c.system.set_velocity(p, &[-omega * x[1], omega * x[0]])?;
    }
    Ok(c)
}

/// A simple pendulum: a bob of `mass` kg on a rod of `length` m from an anchor at the origin,
/// released at rest `angle` radians from the downward vertical. Returns the system, the bob and
/// the rod.
///
/// ```
/// let (sys, bob, _rod) = bead::models::pendulum(1.0, 0.0, 1.0)?;
/// assert!((sys.position(bob)[1] + 1.0).abs() < 1e-12);
/// # Ok::<(), bead::ModelError>(())
/// ```
pub fn pendulum(
    length: f64,
    angle: f64,
    mass: f64,
) -> Result<(System, ParticleId, ConstraintId), ModelError> {
    let mut chain = chain(1, length, mass, angle - std::f64::consts::FRAC_PI_2)?;
    chain.system.set_constraint_name(chain.links[0], "rod")?;
    Ok((chain.system, chain.particles[1], chain.links[0]))
}

/// A pile of balls: `n` balls of radius `r` released on a grid above the floor of a box of width
/// `width`, with a little sideways velocity so that they tumble, kept apart by a contact group and
/// in the box by half-planes. Returns the system and the balls.
///
/// ```
/// let (sys, balls) = bead::models::ball_pile(20, 0.02, 0.4)?;
/// assert_eq!(balls.len(), 20);
/// # let _ = sys;
/// # Ok::<(), bead::ModelError>(())
/// ```
pub fn ball_pile(n: usize, r: f64, width: f64) -> Result<(System, Vec<ParticleId>), ModelError> {
    let mut system = System::new(2)?;
    system.add_force(Gravity::new(&[0.0, -G]))?;
    let balls = pile_balls(&mut system, n, r, width)?;
    box_walls(&mut system, &balls, r, width, 0.0)?;
    system.add_contacts(&balls, None)?;
    Ok((system, balls))
}

/// [`ball_pile`] with Coulomb friction `mu` at every contact, between balls (a contact group in
/// which they collide as discs) and with the walls: the pile of the contact benchmarks
/// (`bead bench pile`, `scripts/compare/run piles`).
///
/// ```
/// let (mut sys, balls) = bead::models::frictional_ball_pile(20, 0.02, 0.4, 0.5)?;
/// sys.step(1e-3).unwrap();
/// assert_eq!(balls.len(), 20);
/// # Ok::<(), bead::ModelError>(())
/// ```
pub fn frictional_ball_pile(
    n: usize,
    r: f64,
    width: f64,
    mu: f64,
) -> Result<(System, Vec<ParticleId>), ModelError> {
    let mut system = System::new(2)?;
    system.add_force(Gravity::new(&[0.0, -G]))?;
    let balls = pile_balls(&mut system, n, r, width)?;
    box_walls(&mut system, &balls, r, width, mu)?;
    let group = balls
        .iter()
        .fold(ShapeContacts::new(), |group, &b| group.body(b, mu));
    system.add_shape_contacts(group)?;
    Ok((system, balls))
}

/// The pile's balls: 10 g each, on a grid whose alternate rows are offset, with sideways
/// velocities that vary deterministically, so that the pile mixes.
fn pile_balls(
    system: &mut System,
    n: usize,
    r: f64,
    width: f64,
) -> Result<Vec<ParticleId>, ModelError> {
    let per_row = ((width / (2.5 * r)).floor() as usize).max(1);
    (0..n)
        .map(|k| {
            let (i, j) = (k % per_row, k / per_row);
            let x = r * 1.25 + 2.5 * r * i as f64 + if j % 2 == 1 { 0.6 * r } else { 0.0 };
            let y = r * 1.5 + 2.5 * r * j as f64;
            let vx = 0.2 * ((k as f64 * 1.7).sin());
            system.add_particle(
                Particle::new(&[x.min(width - r), y])
                    .radius(r)
                    .mass(0.01)
                    .velocity(&[vx, 0.0]),
            )
        })
        .collect()
}

/// The box: a floor at y = 0 and walls at x = 0 and x = `width`, as half-planes for each ball,
/// with friction `mu` (0: frictionless).
fn box_walls(
    system: &mut System,
    balls: &[ParticleId],
    r: f64,
    width: f64,
    mu: f64,
) -> Result<(), ModelError> {
    use crate::Motion;
    use crate::constraint::HalfPlane;
    for &b in balls {
        for (point, normal) in [
            ([0.0, 0.0], [0.0, 1.0]),
            ([0.0, 0.0], [1.0, 0.0]),
            ([width, 0.0], [-1.0, 0.0]),
        ] {
            let wall = HalfPlane::new(b, Motion::fixed(&point), &normal, r);
            if mu > 0.0 {
                system.add_constraint(wall.friction(mu))?;
            } else {
                system.add_constraint(wall)?;
            }
        }
    }
    Ok(())
}

/// A pyramid of `rows` rows of square boxes, 0.5 m and 25 kg (100 kg/m²), on a static floor
/// whose top is y = 0, with friction `mu` at every contact: row `ρ` from the bottom holds
/// `rows − ρ` boxes, 2.5 cm apart, each standing on two below. They start at rest; exact
/// contacts keep them there. Returns the system, the boxes (bottom row first) and their contact
/// group (the floor is its first member).
///
/// ```
/// let (mut sys, boxes, _) = bead::models::box_pyramid(3, 0.6)?;
/// assert_eq!(boxes.len(), 6);
/// sys.step(1.0 / 60.0).unwrap();
/// # Ok::<(), bead::ModelError>(())
/// ```
pub fn box_pyramid(
    rows: usize,
    mu: f64,
) -> Result<(System, Vec<RigidBodyId>, ShapeGroupId), ModelError> {
    const SIDE: f64 = 0.5;
    let mut system = System::new(2)?;
    system.add_force(Gravity::new(&[0.0, -G]))?;
    let width = (rows as f64 + 2.0) * SIDE * 2.0;
    let floor = system.add_rigid_body(
        RigidBody::new(&[0.0, -0.5], 0.0)
            .fixed()
            .outline(Shape::Box { width, height: 1.0 }),
    )?;
    let mut group = ShapeContacts::new().body(floor, mu);
    let mut boxes = Vec::new();
    for row in 0..rows {
        let count = rows - row;
        for k in 0..count {
            let x = (k as f64 - (count - 1) as f64 / 2.0) * SIDE * 1.05;
            let y = SIDE / 2.0 + row as f64 * SIDE;
            let body = system.add_rigid_body(RigidBody::new(&[x, y], 0.0).shape(
                Shape::Box {
                    width: SIDE,
                    height: SIDE,
                },
                100.0,
            ))?;
            group = group.body(body, mu);
            boxes.push(body);
        }
    }
    let group = system.add_shape_contacts(group)?;
    Ok((system, boxes, group))
}

/// A square cloth of `n × n` particles (3D, gravity along −z) joined by rods to their right and
/// lower neighbours, `size` metres wide and `mass` kg in all, its top row held by a rail
/// (kinematic particles, with no rods between them: a rod between two fixed points holds
/// nothing). It starts flat and horizontal, hanging from the rail, and swings down under
/// gravity: the cloth scene of the implicit stepper's benchmarks. Returns the system and the
/// particles row by row.
///
/// ```
/// let (sys, particles) = bead::models::cloth(10, 1.0, 1.0)?;
/// assert_eq!(particles.len(), 100);
/// assert_eq!(sys.constraint_rows(), 2 * 9 * 10 - 9);
/// # Ok::<(), bead::ModelError>(())
/// ```
pub fn cloth(n: usize, size: f64, mass: f64) -> Result<(System, Vec<ParticleId>), ModelError> {
    if n < 2 {
        return Err(ModelError::Setting(format!(
            "a cloth needs at least 2 × 2 particles, got {n}"
        )));
    }
    let mut system = System::new(3)?;
    system.add_force(Gravity::new(&[0.0, 0.0, -G]))?;
    let spacing = size / (n - 1) as f64;
    let m = mass / (n * n) as f64;
    let mut particles = Vec::with_capacity(n * n);
    for row in 0..n {
        for col in 0..n {
            let x = [col as f64 * spacing, row as f64 * spacing, 0.0];
            let particle = if row == 0 {
                Particle::anchor(&x)
            } else {
                Particle::new(&x).mass(m)
            };
            particles.push(system.add_particle(particle)?);
        }
    }
    for row in 0..n {
        for col in 0..n {
            let here = particles[row * n + col];
            if col + 1 < n && row > 0 {
                system.add_constraint(Distance::new(
                    here,
                    particles[row * n + col + 1],
                    spacing,
                ))?;
            }
            if row + 1 < n {
                system.add_constraint(Distance::new(
                    here,
                    particles[(row + 1) * n + col],
                    spacing,
                ))?;
            }
        }
    }
    Ok((system, particles))
}

/// The 3D chain of the benchmarks: `n` rods (square bars of 1 kg, half as thick as long) on
/// spherical joints, 1 m long in all, hanging from a fixed point at the origin along −z and
/// turning rigidly about it at the world angular velocity `omega` (each rod's centre moves at
/// `ω × r`, and each rod turns at `ω`): with a vertical part in `omega` the rods also spin about
/// their own lengths. Returns the system and its rods, top first.
///
/// ```
/// let (mut sys, rods) = bead::models::chain_3d(10, [1.0, 0.0, 0.5])?;
/// assert_eq!(rods.len(), 10);
/// // It starts on its joints, moving along them.
/// let (c, c_dot) = sys.constraint_error().unwrap();
/// assert!(c < 1e-15 && c_dot < 1e-14);
/// # Ok::<(), bead::ModelError>(())
/// ```
pub fn chain_3d(
    n: usize,
    omega: [f64; 3],
) -> Result<(System, Vec<crate::RigidBody3dId>), ModelError> {
    use crate::constraint::{Nail, Revolute};
    use crate::{Point, RigidBody3d};
    let mut system = System::new(3)?;
    system.add_force(Gravity::new(&[0.0, 0.0, -G]))?;
    let link = 1.0 / n as f64;
    let (m, w) = (1.0, 0.5 * link);
    let across = m * (w * w + link * link) / 12.0;
    let mut rods = Vec::with_capacity(n);
    for k in 0..n {
        let r = [0.0, 0.0, -(k as f64 + 0.5) * link];
        let v = [
            omega[1] * r[2] - omega[2] * r[1],
            omega[2] * r[0] - omega[0] * r[2],
            omega[0] * r[1] - omega[1] * r[0],
        ];
        let rod = system.add_rigid_body_3d(
            RigidBody3d::new(r)
                .mass(m)
                .principal_inertia([across, across, m * w * w / 6.0])
                .velocity(v)
                .angular_velocity(omega),
        )?;
        let top = Point::on_body_3d(rod, [0.0, 0.0, link / 2.0]);
        match rods.last() {
            None => system.add_constraint(Nail::new(top, &[0.0, 0.0, 0.0]))?,
            Some(&above) => system.add_constraint(Revolute::new(
                Point::on_body_3d(above, [0.0, 0.0, -link / 2.0]),
                top,
            ))?,
        };
        rods.push(rod);
    }
    Ok((system, rods))
}

/// Gravity of Box3D's default world, in m/s², along −y: the joint grid's.
///
/// ```
/// let grid = bead::models::joint_grid(2)?;
/// let m = grid.system.mass(grid.spheres[1].into())?;
/// // The joint above the hanging sphere holds up its weight.
/// assert!((m * bead::models::BOX3D_G - 2680.8).abs() < 0.1);
/// # Ok::<(), bead::ModelError>(())
/// ```
pub const BOX3D_G: f64 = 10.0;

/// Box3D's benchmark grid of spheres on spherical joints (see [`joint_grid`]).
///
/// ```
/// let grid = bead::models::joint_grid(4)?;
/// // Sphere (k, i) = (2, 3): column 2, row 3, at (2, −3, 0) m.
/// let x = grid.system.coordinates(grid.spheres[2 * 4 + 3]);
/// assert_eq!(&x[..3], &[2.0, -3.0, 0.0]);
/// // Every joint starts closed.
/// for [a, b] in &grid.joints {
///     let (a, b) = (grid.system.point_position(a)?, grid.system.point_position(b)?);
///     assert!((0..3).all(|i| (a[i] - b[i]).abs() < 1e-15));
/// }
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Debug)]
pub struct JointGrid {
    /// The system (3D, gravity 10 m/s² along −y, as in Box3D's default world).
    pub system: System,
    /// The spheres, column by column: sphere (k, i) of column k (at x = k m) and row i (at
    /// y = −i m) is `spheres[k * n + i]`. Those of row 0 are fixed.
    pub spheres: Vec<crate::RigidBody3dId>,
    /// Every joint's two points (it holds them together), the first on the upper (or left)
    /// sphere: what the joints' gaps are measured between.
    pub joints: Vec<[crate::Point; 2]>,
}

/// Box3D's benchmark `joint_grid` (`CreateJointGrid` in `shared/benchmarks.c` of
/// erincatto/box3d, where n = 100): an `n × n` grid of spheres of radius 0.4 m and density
/// 1000 kg/m³ (Box3D's default: 268 kg, inertia ⅖ m r²), sphere (k, i) at (k, −i, 0) m, joined
/// by spherical joints ([`Revolute`](crate::constraint::Revolute) between body points) to its
/// neighbours below and to the right, halfway between their centres. The top row (i = 0) is
/// fixed (Box3D's static bodies; the joints between two of them hold nothing and are left
/// out). Gravity is 10 m/s² along −y, Box3D's default. It starts at rest, hanging: each
/// column is a chain straight down, and the joints across carry nothing, so an exact solver
/// keeps it where it is while the joints down hold up to 99 spheres. Box3D steps it at 1/60 s
/// with 4 substeps, 100 times; `bead bench joint-grid` and `scripts/compare/run joint-grid` run
/// it. Needs `n ≥ 2`.
///
/// ```
/// let grid = bead::models::joint_grid(3)?;
/// assert_eq!(grid.spheres.len(), 9);
/// // 2 joints down in each of 3 columns, 2 across in each of the 2 lower rows.
/// assert_eq!(grid.joints.len(), 10);
/// assert_eq!(grid.system.constraint_rows(), 30);
/// # Ok::<(), bead::ModelError>(())
/// ```
pub fn joint_grid(n: usize) -> Result<JointGrid, ModelError> {
    use crate::constraint::Revolute;
    use crate::{Point, RigidBody3d, Shape3d};
    if n < 2 {
        return Err(ModelError::Setting(format!(
            "a joint grid needs at least 2 × 2 spheres, got {n}"
        )));
    }
    let mut system = System::new(3)?;
    system.add_force(Gravity::new(&[0.0, -BOX3D_G, 0.0]))?;
    let ball = Shape3d::Sphere { radius: 0.4 };
    let mut spheres = Vec::with_capacity(n * n);
    let mut joints = Vec::with_capacity(2 * n * (n - 1));
    for k in 0..n {
        for i in 0..n {
            let body = RigidBody3d::new([k as f64, -(i as f64), 0.0]).shape(ball.clone(), 1000.0);
            let body = system.add_rigid_body_3d(if i == 0 { body.fixed() } else { body })?;
            if i > 0 {
                let above = spheres[k * n + i - 1];
                joints.push([
                    Point::on_body_3d(above, [0.0, -0.5, 0.0]),
                    Point::on_body_3d(body, [0.0, 0.5, 0.0]),
                ]);
            }
            if k > 0 && i > 0 {
                let left = spheres[(k - 1) * n + i];
                joints.push([
                    Point::on_body_3d(left, [0.5, 0.0, 0.0]),
                    Point::on_body_3d(body, [-0.5, 0.0, 0.0]),
                ]);
            }
            spheres.push(body);
        }
    }
    for &[a, b] in &joints {
        system.add_constraint(Revolute::new(a, b))?;
    }
    Ok(JointGrid {
        system,
        spheres,
        joints,
    })
}
