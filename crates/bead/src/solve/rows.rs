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
/// most), `λ ≥ 0` besides for an inequality `g ≥ 0`, and `|λ_t| ≤ μ λ_n` for a friction row
/// (Coulomb's cone in 2D: its bounds move with its normal row's multiplier).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bounds<'a> {
    /// Whether each row is an inequality.
    inequality: &'a [bool],
    /// Each row's own bounds.
    own: &'a [(f64, f64)],
    /// A friction row's normal row and coefficient.
    friction: &'a [Option<(usize, f64)>],
}

impl<'a> Bounds<'a> {
    /// The bounds of rows that are inequalities where `inequality` says, with their `own` bounds,
    /// and friction rows where `friction` names a normal row and μ.
    pub(crate) fn new(
        inequality: &'a [bool],
        own: &'a [(f64, f64)],
        friction: &'a [Option<(usize, f64)>],
    ) -> Self {
        Bounds {
            inequality,
            own,
            friction,
        }
    }

    /// Whether any row has a bound (an inequality, a motor's limit, friction): without one,
    /// every row is an equality and nothing need be chosen.
    pub(crate) fn any(&self) -> bool {
        self.inequality.contains(&true) || (0..self.own.len()).any(|r| self.limited(r))
    }

    /// These rows with other bounds of their own (`own`, one per row).
    pub(crate) fn with_own(&self, own: &'a [(f64, f64)]) -> Bounds<'a> {
        Bounds { own, ..*self }
    }

    /// Row `r`'s bounds on λ: its own, with the lower one raised to 0 for an inequality. A
    /// friction row's are `±μ λ_n` with `lambda` its normal row's multipliers (see
    /// [`Bounds::coupled`]); here, its own.
    pub(crate) fn get(&self, r: usize) -> (f64, f64) {
        let (lo, hi) = self.own[r];
        let lo = if self.inequality[r] { lo.max(0.0) } else { lo };
        (lo, hi)
    }

    /// Row `r`'s bounds when the multipliers are `lambda`: [`Bounds::get`], and for a friction
    /// row `±μ max(λ_n, 0)`, its normal row's multiplier read from `lambda` (in whatever units
    /// `lambda` has: λ, or `h² λ`).
    pub(crate) fn coupled(&self, r: usize, lambda: &[f64]) -> (f64, f64) {
        match self.friction.get(r).copied().flatten() {
            Some((normal, mu)) => {
                let limit = mu * lambda[normal].max(0.0);
                (-limit, limit)
            }
            None => self.get(r),
        }
    }

    /// Row `r`'s normal row and coefficient when it is a friction row.
    pub(crate) fn friction(&self, r: usize) -> Option<(usize, f64)> {
        self.friction.get(r).copied().flatten()
    }

    /// Row `r`'s other friction row where it is one of a 3D contact's two (whose cone is a
    /// circle). A contact's rows are its constraint's, next to each other, so the other is a
    /// neighbour with the same normal row.
    pub(crate) fn sibling(&self, r: usize) -> Option<usize> {
        let (normal, _) = self.friction(r)?;
        let same = |k: usize| self.friction(k).is_some_and(|(n, _)| n == normal);
        [r.checked_sub(1), r.checked_add(1)]
            .into_iter()
            .flatten()
            .find(|&k| same(k))
    }

    /// Whether any contact has two friction rows (a 3D contact, whose cone is a circle).
    pub(crate) fn any_circle(&self) -> bool {
        (0..self.friction.len()).any(|r| self.sibling(r).is_some())
    }

    /// Whether any row is a friction row.
    pub(crate) fn any_friction(&self) -> bool {
        self.friction.iter().any(Option::is_some)
    }

    /// Whether row `r` has a finite bound of its own (a force limit, friction), which gives no
    /// impulse.
    pub(crate) fn limited(&self, r: usize) -> bool {
        let (lo, hi) = self.own[r];
        lo.is_finite() || hi.is_finite() || self.friction(r).is_some()
    }

    /// Whether row `r` is an inequality.
    pub(crate) fn inequality(&self, r: usize) -> bool {
        self.inequality[r]
    }

    /// Whether row `r`'s multiplier is free: an equality without a limit, whose force is
    /// whatever holds it (and which an impulse may carry).
    pub(crate) fn free(&self, r: usize) -> bool {
        !self.inequality[r] && !self.limited(r)
    }
}

/// What each row must reach, by its kind: a position row holds its value `C` (with the feedback
/// of seed 000 eq. 11 at the acceleration level); a velocity row (a motor) has no position to
/// hold, and drives its speed error `Ċ` to zero at its own rate.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Targets<'a> {
    /// Whether each row holds a velocity only.
    velocity: &'a [bool],
}

impl<'a> Targets<'a> {
    /// The targets of rows that hold a velocity only where `velocity` says.
    pub(crate) fn new(velocity: &'a [bool]) -> Self {
        Targets { velocity }
    }

    /// Row `r`'s target acceleration `d = −J̇q̇ − k_s C − k_d Ċ` (eq. 11), or a velocity row's
    /// `d = −J̇q̇ − r Ċ` at its `rate`, from its `C`, `Ċ` and `J̇q̇`.
    pub(crate) fn acceleration(
        &self,
        r: usize,
        (c, c_dot, jdot_qdot): (f64, f64, f64),
        (ks, kd): (f64, f64),
        rate: f64,
    ) -> f64 {
        if self.velocity[r] {
            -jdot_qdot - rate * c_dot
        } else {
            -jdot_qdot - ks * c - kd * c_dot
        }
    }

    /// Row `r`'s residual at the end of an implicit step of velocity scale `ĥ`: its value `c`,
    /// or a velocity row's speed error times `ĥ`, `J (q − q_b) + ĥ ∂C/∂t` (`j_dq` is
    /// `J (q − q_b)`, `c_t` is `∂C/∂t`).
    pub(crate) fn position(&self, r: usize, c: f64, j_dq: f64, c_t: f64, h: f64) -> f64 {
        if self.velocity[r] { j_dq + h * c_t } else { c }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn siblings_pair_the_two_friction_rows_of_a_3d_contact_only() {
        // Rows: a 2D contact (0, 1), a 3D contact (2, 3, 4).
        let inequality = [true, false, true, false, false];
        let own = [(0.0, f64::INFINITY); 5];
        let friction = [None, Some((0, 0.5)), None, Some((2, 0.5)), Some((2, 0.5))];
        let b = Bounds::new(&inequality, &own, &friction);
        let s: Vec<Option<usize>> = (0..5).map(|r| b.sibling(r)).collect();
        assert_eq!(s, vec![None, None, None, Some(4), Some(3)]);
    }
}
