//! A double pendulum released from the horizontal: prints energy and constraint error over time.
//!
//! Run with `cargo run --release --example double_pendulum`.

use bead::constraint::Distance;
use bead::force::Gravity;
use bead::{Particle, System};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut sys = System::new(2)?;
    let pivot = sys.add_particle(Particle::anchor(&[0.0, 0.0]))?;
    let upper = sys.add_particle(Particle::new(&[1.0, 0.0]).mass(1.0))?;
    let lower = sys.add_particle(Particle::new(&[2.0, 0.0]).mass(1.0))?;
    sys.add_force(Gravity::new(&[0.0, -9.81]))?;
    let rod1 = sys.add_constraint(Distance::new(pivot, upper, 1.0))?;
    let rod2 = sys.add_constraint(Distance::new(upper, lower, 1.0))?;
    sys.set_constraint_name(rod1, "upper rod")?;
    sys.set_constraint_name(rod2, "lower rod")?;

    let dt = 1e-3;
    let e0 = sys.diagnostics()?.total_energy();
    println!("double pendulum, RK4, dt = {dt} s, conjugate gradient; λ < 0 is tension");
    println!(
        "{:>6} {:>12} {:>12} {:>10} {:>10} {:>13} {:>13}",
        "t [s]", "x₂ [m]", "y₂ [m]", "E [J]", "ΔE [J]", "max|C| [m]", "λ upper [N]"
    );
    let started = std::time::Instant::now();
    for step in 0..=10_000 {
        if step % 500 == 0 {
            let d = sys.diagnostics()?;
            let x = sys.position(lower);
            let lambda = d.constraint(rod1).map_or(f64::NAN, |c| c.lambda[0]);
            println!(
                "{:>6.2} {:>12.6} {:>12.6} {:>10.6} {:>10.2e} {:>13.2e} {:>13.6}",
                d.time,
                x[0],
                x[1],
                d.total_energy(),
                d.total_energy() - e0,
                d.max_abs_c,
                lambda
            );
        }
        if step < 10_000 {
            sys.step(dt)?;
        }
    }
    println!("10 000 steps in {:.3} s", started.elapsed().as_secs_f64());
    Ok(())
}
