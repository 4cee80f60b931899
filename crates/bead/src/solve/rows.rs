//! How constraint rows take part in the solves that keep some of them complementary: each row's
//! bounds on its multiplier (a motor's torque limit; `λ ≥ 0` for an inequality, seed 004) and
//! the [`Role`] a row plays in one solve.
//!
//! The exact complementarity solve of the explicit integrators
//! ([`complementarity`](super::complementarity) with the active-set algorithms over it), the
//! implicit steppers' semismooth and interior-point iterations, impacts and projection all read a
//! row's bounds here, so that an inequality's lower bound and what counts as a bounded row are
//! written once.

/// How a constraint row takes part in one solve: the implicit steppers give each row a role in
/// each Newton step, and the KKT matrix is assembled from them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Role {
    /// The row holds its target (`C = 0`, a motor's speed): an equality in the step.
    Held,
    /// The row's multiplier `μ = h² λ` is set to this value (0 for an inequality apart, `h²`
    /// times a motor's limit when saturated); its target is given up.
    Fixed(f64),
    /// The row holds its target with this compliance `c ≥ 0`: its linearized equation is
    /// `J Δq + c Δμ = −r` (an interior-point step on a contact, whose slack and multiplier set
    /// `c = s/μ`).
    Compliant(f64),
}

impl Role {
    /// Whether the row holds a target in the step (is not at a fixed multiplier).
    ///
    /// ```
    /// use bead::integrate::Role;
    /// assert!(Role::Held.holds() && Role::Compliant(1e-6).holds());
    /// assert!(!Role::Fixed(0.0).holds());
    /// ```
    pub fn holds(&self) -> bool {
        !matches!(self, Role::Fixed(_))
    }
}

/// The bounds on each row's multiplier: the row's own (a motor's torque limit; `(−∞, ∞)` for
/// most), and `λ ≥ 0` besides for an inequality `g ≥ 0`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bounds<'a> {
    /// Whether each row is an inequality.
    inequality: &'a [bool],
    /// Each row's own bounds.
    own: &'a [(f64, f64)],
}

impl<'a> Bounds<'a> {
    /// The bounds of rows that are inequalities where `inequality` says, with their `own` bounds.
    pub(crate) fn new(inequality: &'a [bool], own: &'a [(f64, f64)]) -> Self {
        Bounds { inequality, own }
    }

    /// Whether any row has a bound (an inequality, a motor's limit): without one, every row is
    /// an equality and nothing need be chosen.
    pub(crate) fn any(&self) -> bool {
        self.inequality.contains(&true) || (0..self.own.len()).any(|r| self.limited(r))
    }

    /// Row `r`'s bounds on λ: its own, with the lower one raised to 0 for an inequality.
    pub(crate) fn get(&self, r: usize) -> (f64, f64) {
        let (lo, hi) = self.own[r];
        let lo = if self.inequality[r] { lo.max(0.0) } else { lo };
        (lo, hi)
    }

    /// Whether row `r` has a finite bound of its own (a force limit, which gives no impulse).
    pub(crate) fn limited(&self, r: usize) -> bool {
        let (lo, hi) = self.own[r];
        lo.is_finite() || hi.is_finite()
    }

    /// Whether row `r` is an inequality.
    pub(crate) fn inequality(&self, r: usize) -> bool {
        self.inequality[r]
    }
}
