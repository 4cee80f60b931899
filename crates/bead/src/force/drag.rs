//! Viscous drag: `f = −c ẋ` on every body with mass (at its centre, so it slows a rigid body's
//! translation, not its spin; at each mass point of a parametric object). Dissipative: no
//! potential.
//! Its Jacobian `−∂f/∂ẋ = c I` at each mass point goes into the implicit steppers' Newton matrix.

use super::{Force, ForceContext, ForceJacobian, InvalidParameter};

/// Linear viscous drag on every body.
///
/// ```
/// use bead::{force::Drag, System};
/// let mut sys = System::new(2)?;
/// sys.add_force(Drag::new(0.1))?;
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Drag {
    coefficient: f64,
}

impl Drag {
    /// Drag of `coefficient` N·s/m.
    pub fn new(coefficient: f64) -> Self {
        Drag { coefficient }
    }
}

impl Force for Drag {
    fn apply(&self, ctx: &mut ForceContext<'_>) {
        for i in 0..ctx.view().body_slots() {
            for k in 0..ctx.view().mass_points(i) {
                if let Some((p, _)) = ctx.view().mass_point(i, k) {
                    let f = ctx.view().velocity(&p).map(|v| -self.coefficient * v);
                    ctx.add_force(&p, &f);
                }
            }
        }
    }

    fn jacobian(&self, ctx: &mut ForceJacobian<'_>) {
        let dim = ctx.view().dim();
        let mut damping = vec![0.0; dim * dim];
        for i in 0..dim {
            damping[i * dim + i] = self.coefficient;
        }
        for i in 0..ctx.view().body_slots() {
            for k in 0..ctx.view().mass_points(i) {
                if let Some((p, _)) = ctx.view().mass_point(i, k) {
                    ctx.add_points(&[p], &[], &damping);
                }
            }
        }
    }

    fn check(&self, _dim: usize) -> Result<(), InvalidParameter> {
        InvalidParameter::check_non_negative("coefficient", self.coefficient)
    }
}
