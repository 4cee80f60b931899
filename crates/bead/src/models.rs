//! Ready-made models shared by the tests, the benchmarks and the examples: the classics of the
//! seeds, built through the public API only.

use crate::constraint::{ConstraintId, Distance};
use crate::force::Gravity;
use crate::{ModelError, Particle, ParticleId, System};

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
    use crate::Motion;
    use crate::constraint::HalfPlane;
    let mut system = System::new(2)?;
    system.add_force(Gravity::new(&[0.0, -G]))?;
    let per_row = ((width / (2.5 * r)).floor() as usize).max(1);
    let mut balls = Vec::with_capacity(n);
    for k in 0..n {
        let (i, j) = (k % per_row, k / per_row);
        // Alternate rows are offset, and velocities vary deterministically, so the pile mixes.
        let x = r * 1.25 + 2.5 * r * i as f64 + if j % 2 == 1 { 0.6 * r } else { 0.0 };
        let y = r * 1.5 + 2.5 * r * j as f64;
        let vx = 0.2 * ((k as f64 * 1.7).sin());
        balls.push(
            system.add_particle(
                Particle::new(&[x.min(width - r), y])
                    .radius(r)
                    .mass(0.01)
                    .velocity(&[vx, 0.0]),
            )?,
        );
    }
    for &b in &balls {
        system.add_constraint(HalfPlane::new(
            b,
            Motion::fixed(&[0.0, 0.0]),
            &[0.0, 1.0],
            r,
        ))?;
        system.add_constraint(HalfPlane::new(
            b,
            Motion::fixed(&[0.0, 0.0]),
            &[1.0, 0.0],
            r,
        ))?;
        system.add_constraint(HalfPlane::new(
            b,
            Motion::fixed(&[width, 0.0]),
            &[-1.0, 0.0],
            r,
        ))?;
    }
    system.add_contacts(&balls, None)?;
    Ok((system, balls))
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
