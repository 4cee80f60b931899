//! Huygens' tautochrone, as a parametric object (seed 000 §5): a bead in a cycloid bowl reaches
//! the bottom after π √(r/g) whatever height it starts from. Prints the measured time to the
//! bottom for several release points beside the closed form, and a hybrid model: the same bead
//! held by a rod to a hook, whose tension is computed like any other constraint force.
//!
//! Run with `cargo run --release --example tautochrone`.

use bead::constraint::Distance;
use bead::force::Gravity;
use bead::integrate::Rk4;
use bead::{Particle, Point, System, primitives};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (r, g, dt): (f64, f64, f64) = (0.25, 9.81, 1e-4);
    let quarter = std::f64::consts::PI * (r / g).sqrt();
    println!("cycloid bowl, generating radius {r} m: time to the bottom π√(r/g) = {quarter:.9} s");
    println!(
        "{:>10} {:>12} {:>14} {:>12}",
        "u₀ [rad]", "height [m]", "t_bottom [s]", "rel. error"
    );
    for u0 in [0.2, 1.0, 2.0, 2.9] {
        let mut sys = System::new(2)?;
        sys.set_integrator(Rk4::default());
        let bowl = sys.add_parametric(primitives::cycloid(r, 1.0, u0))?;
        sys.add_force(Gravity::new(&[0.0, -g]))?;
        let height = sys.point_position(&sys.parametric_point(bowl, "bead")?)?[1];
        let mut previous = (sys.time(), sys.coordinates(bowl.body())[0]);
        while sys.coordinates(bowl.body())[0] > 0.0 {
            previous = (sys.time(), sys.coordinates(bowl.body())[0]);
            sys.step(dt)?;
        }
        // Linear interpolation inside the last step (u is nearly linear in t at the bottom).
        let u1 = sys.coordinates(bowl.body())[0];
        let t = previous.0 + (sys.time() - previous.0) * previous.1 / (previous.1 - u1);
        println!(
            "{u0:>10.2} {height:>12.5} {t:>14.9} {:>12.2e}",
            (t - quarter) / quarter
        );
    }

    // Hybrid: the bead held up the bowl's side by a rod to a hook. Along the tangent t̂ the
    // rod's tension T balances the weight's component: T (d̂·t̂) = m g sin(u/2).
    let (m, u0) = (1.0, 1.2_f64);
    let mut sys = System::new(2)?;
    let bowl = sys.add_parametric(primitives::cycloid(r, m, u0))?;
    let bead = sys.parametric_point(bowl, "bead")?;
    let at = sys.point_position(&bead)?;
    let hook_at = [at[0] - 0.2, at[1] + 0.35];
    let hook = sys.add_particle(Particle::anchor(&hook_at))?;
    let length = (0.2_f64).hypot(0.35);
    let rod = sys.add_constraint(Distance::new(Point::from(hook), bead, length))?;
    sys.add_force(Gravity::new(&[0.0, -g]))?;
    for _ in 0..1000 {
        sys.step(1e-3)?;
    }
    let tangent = [1.0 + u0.cos(), u0.sin()].map(|x| x / (2.0 * (u0 / 2.0).cos()));
    let d = [-0.2 / length, 0.35 / length];
    let expected = m * g * (u0 / 2.0).sin() / (d[0] * tangent[0] + d[1] * tangent[1]);
    let lambda = sys
        .diagnostics()?
        .constraint(rod)
        .map_or(f64::NAN, |c| c.lambda[0]);
    println!(
        "hybrid: rod to a hook holds the bead at u = {:.6}: |λ| = {:.9} N, by hand {expected:.9} N",
        sys.coordinates(bowl.body())[0],
        lambda.abs()
    );
    Ok(())
}
