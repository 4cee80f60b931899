//! Impulses inside the equalities' subspace: the velocity change a unit impulse along an
//! inequality row makes while every equality keeps holding.
//!
//! During an impact the equality rows (joints, rods, motors) hold at the velocity level,
//! `Jₑ q̇ + ∂Cₑ/∂t = 0`. An impulse `P` along row `k` then moves the velocities by
//!
//! ```text
//! Δq̇ = W_c J_kᵀ P,   W_c = W − W Jₑᵀ (Jₑ W Jₑᵀ)⁻¹ Jₑ W
//! ```
//!
//! the constrained system's inverse mass (seed 000 §3's projection, applied to an impulse):
//! a door on its hinge turns about the hinge, with its inertia about the hinge, not about its
//! centre. Its row's effective inverse mass is `J_k W_c J_kᵀ`, so the impulse that reverses an
//! approach `ġ` with restitution `e` is `P = −(1 + e) ġ / (J_k W_c J_kᵀ)`. Taken with `W`
//! alone and the equalities restored afterwards by projection, the projection would take back
//! part of the rebound and a stop with `e = 1` would stop dead.

use crate::assembly::Layout;
use crate::error::StepFailure;
use crate::solve::{LinearSolver, MultiplierMatrix, SolveParams};

/// Below this share of its free inverse mass `J_k W J_kᵀ`, a row's inverse mass in the
/// equalities' subspace is rounding: the equalities hold it still.
const BLOCKED: f64 = 1e-12;

/// Below this share, the projection that found it may be what is left: it is solved to the
/// solver's tolerance, not to rounding, and an elbow held by its motor against its stop came
/// out at 6.6e-8 of its free value under conjugate gradient at 1e-10 (the impulse meant to stop
/// it, 15,000 times a free elbow's, threw the arm apart). A true share this small is possible
/// (a gram welded to a tonne), so such a row's impulse is tried before it is taken
/// ([`ImpulseDirections::doubtful`]).
const DOUBTFUL: f64 = 1e-6;

/// The rows an impact's velocity projection keeps: equalities and motors, but not inequalities
/// (the impulses handle them) nor rows with a force limit (a finite force gives no impulse).
pub(super) fn impulsive_rows(layout: &Layout) -> Vec<bool> {
    let bounds = layout.bounds();
    (0..layout.inequality.len())
        .map(|k| bounds.free(k))
        .collect()
}

/// Removes from `v` its component that breaks the equality rows `Jₑ v + c_t = 0` (mass-weighted,
/// as projection does; `c_t` is `∂C/∂t`, or zero for a velocity change rather than a
/// velocity).
fn project_onto_equalities(
    layout: &Layout,
    mask: &[bool],
    c_t: Option<&[f64]>,
    solver: &mut dyn LinearSolver,
    v: &mut [f64],
    params: &SolveParams,
) -> Result<(), StepFailure> {
    let mut c_dot = vec![0.0; mask.len()];
    layout.jacobian.mul(v, &mut c_dot);
    let scale = 1.0 + v.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
    for k in 0..c_dot.len() {
        let rate = c_t.map_or(0.0, |c_t| c_t[k]);
        c_dot[k] = if mask[k] { c_dot[k] + rate } else { 0.0 };
    }
    if c_dot.iter().all(|x| x.abs() <= 1e-12 * scale) {
        return Ok(());
    }
    let mut mu = vec![0.0; mask.len()];
    let matrix = MultiplierMatrix::new(&layout.jacobian, &layout.inv_mass).masked(mask);
    solver
        .solve(&matrix, &c_dot, &mut mu, params)
        .map_err(|e| StepFailure::Eval(e.into()))?;
    let mut correction = vec![0.0; v.len()];
    layout.jacobian.mul_transpose(&mu, &mut correction);
    layout.inv_mass.apply_in_place(&mut correction);
    for (vi, c) in v.iter_mut().zip(&correction) {
        *vi -= c;
    }
    Ok(())
}

/// A row's impulse direction `W_c J_kᵀ` and effective inverse mass `J_k W_c J_kᵀ`, computed
/// once per impact (positions, so `J` and `W`, do not change during one).
pub(super) struct ImpulseDirections {
    /// The rows held as equalities during the impact ([`impulsive_rows`]).
    mask: Vec<bool>,
    /// Coordinates some equality row acts on: an impulse that moves none of them needs no
    /// projection (`Jₑ W J_kᵀ = 0`), and takes the cheap path through `W` alone.
    constrained: Vec<bool>,
    /// Per row, once computed.
    cache: Vec<Option<Direction>>,
}

/// One row's impulse direction in the equalities' subspace.
#[derive(Clone)]
struct Direction {
    /// The nonzeros of `W_c J_kᵀ`, by coordinate.
    nonzeros: Vec<(usize, f64)>,
    /// `J_k W_c J_kᵀ`.
    effective: f64,
    /// Whether it is below [`DOUBTFUL`] of `J_k W J_kᵀ`.
    doubtful: bool,
}

impl ImpulseDirections {
    /// The directions for the rows of `layout`.
    pub(super) fn new(layout: &Layout) -> Self {
        let mask = impulsive_rows(layout);
        let n = layout.inv_mass.len();
        let mut constrained = vec![false; n];
        for k in (0..mask.len()).filter(|&k| mask[k]) {
            for (c, a) in layout.jacobian.row(k) {
                constrained[layout.inv_mass.span(c, a.len())].fill(true);
            }
        }
        ImpulseDirections {
            cache: vec![None; mask.len()],
            mask,
            constrained,
        }
    }

    /// Puts the velocities `v` back onto the equalities `Jₑ v + ∂Cₑ/∂t = 0` (`c_t` the rows'
    /// `∂C/∂t`): before the impulses, so that each, taken in their subspace, keeps them; and
    /// after each sweep, for what rounding and the solves' tolerance leave.
    pub(super) fn hold_equalities(
        &self,
        layout: &Layout,
        c_t: &[f64],
        solver: &mut dyn LinearSolver,
        v: &mut [f64],
        params: &SolveParams,
    ) -> Result<(), StepFailure> {
        if !self.mask.contains(&true) {
            return Ok(());
        }
        project_onto_equalities(layout, &self.mask, Some(c_t), solver, v, params)
    }

    /// `v += P W_c J_kᵀ`: the velocity change of impulse `P` along row `k` (after
    /// [`ImpulseDirections::effective_inverse_mass`] for the same row).
    pub(super) fn apply(&self, layout: &Layout, k: usize, impulse: f64, v: &mut [f64]) {
        match &self.cache[k] {
            Some(direction) => {
                for &(i, d) in &direction.nonzeros {
                    v[i] += impulse * d;
                }
            }
            None => {
                for (c, a) in layout.jacobian.row(k) {
                    layout.inv_mass.add_weighted_row(c, a, impulse, v);
                }
            }
        }
    }

    /// Whether row `k`'s inverse mass in the equalities' subspace (after
    /// [`ImpulseDirections::effective_inverse_mass`]) is so small a share of its free one that
    /// it may be the projection's error rather than the row's motion ([`DOUBTFUL`]).
    pub(super) fn doubtful(&self, k: usize) -> bool {
        self.cache[k].as_ref().is_some_and(|d| d.doubtful)
    }

    /// `J_k W J_kᵀ`, row `k`'s inverse mass without the equalities.
    pub(super) fn free_inverse_mass(&self, layout: &Layout, k: usize) -> f64 {
        let (j, w) = (&layout.jacobian, &layout.inv_mass);
        j.row(k).map(|(c, a)| w.weighted_dot(c, a, a)).sum()
    }

    /// Whether an impulse along row `k` moves a coordinate some equality acts on.
    fn coupled(&self, layout: &Layout, k: usize) -> bool {
        layout
            .jacobian
            .row(k)
            .any(|(c, a)| self.constrained[layout.inv_mass.span(c, a.len())].contains(&true))
    }

    /// `J_k W_c J_kᵀ`, the inverse of the mass row `k`'s impulse meets: zero where the
    /// equalities leave the row no motion of its own (below [`BLOCKED`] of `J_k W J_kᵀ`).
    /// A row coupled to some equality has its direction computed and kept, for
    /// [`ImpulseDirections::apply`].
    pub(super) fn effective_inverse_mass(
        &mut self,
        layout: &Layout,
        k: usize,
        solver: &mut dyn LinearSolver,
        params: &SolveParams,
    ) -> Result<f64, StepFailure> {
        if let Some(direction) = &self.cache[k] {
            return Ok(direction.effective);
        }
        let (j, w) = (&layout.jacobian, &layout.inv_mass);
        let free = self.free_inverse_mass(layout, k);
        if !self.coupled(layout, k) {
            return Ok(free);
        }
        let mut u = vec![0.0; w.len()];
        for (c, a) in j.row(k) {
            w.add_weighted_row(c, a, 1.0, &mut u);
        }
        project_onto_equalities(layout, &self.mask, None, solver, &mut u, params)?;
        let mut effective: f64 = j
            .row(k)
            .map(|(c, a)| a.iter().zip(&u[c..]).map(|(x, y)| x * y).sum::<f64>())
            .sum();
        if effective <= BLOCKED * free {
            effective = 0.0;
        }
        let doubtful = effective < DOUBTFUL * free;
        let nonzeros = u
            .iter()
            .enumerate()
            .filter(|&(_, &x)| x != 0.0)
            .map(|(i, &x)| (i, x))
            .collect();
        self.cache[k] = Some(Direction {
            nonzeros,
            effective,
            doubtful,
        });
        Ok(effective)
    }
}
