//! Uniform gravity: `f = m g` on every body with mass; potential `V = −m g·x`.

use super::{Force, ForceContext, InvalidParameter};
use crate::math::vector::{Vec3, dot, to_vec3};
use crate::view::View;

/// Uniform gravitational acceleration acting on everything with mass.
///
/// ```
/// use bead::{force::Gravity, System};
/// let mut sys = System::new(2)?;
/// sys.add_force(Gravity::new(&[0.0, -9.81]))?;
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Gravity {
    g: Vec3,
    len: usize,
}

impl Gravity {
    /// Gravity of acceleration `g`, in m/s² (for example `[0.0, -9.81]`).
    pub fn new(g: &[f64]) -> Self {
        Gravity {
            g: to_vec3(g),
            len: g.len(),
        }
    }

    /// The acceleration, in m/s².
    pub fn g(&self) -> &[f64] {
        &self.g[..self.len]
    }
}

impl Force for Gravity {
    fn apply(&self, ctx: &mut ForceContext<'_>) {
        for i in 0..ctx.view().body_slots() {
            for k in 0..ctx.view().mass_points(i) {
                if let Some((point, m)) = ctx.view().mass_point(i, k) {
                    ctx.add_force(&point, &self.g.map(|g| m * g));
                }
            }
        }
    }

    fn varies(&self) -> bool {
        false
    }

    fn potential_energy(&self, view: &View<'_>) -> f64 {
        view.masses()
            .map(|(p, m)| -m * dot(&self.g, &view.position(&p)))
            .sum()
    }

    fn check(&self, dim: usize) -> Result<(), InvalidParameter> {
        InvalidParameter::check_vector("g", self.g(), dim)
    }
}
