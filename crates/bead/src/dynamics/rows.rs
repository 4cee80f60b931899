//! The multiplier system's rows as the explicit integrators' solves of their bounded rows see
//! them (seed 000 eq. 11 with seed 004's inequalities, Baraff's bounds and Coulomb's cones):
//! `J W Jᵀ`, the right-hand side, each row's bounds and state at the step's start, and what a
//! solve did. Shared by the active-set algorithms ([`super::active_set`]) and the circular
//! cones' solve ([`super::cones`]).

use crate::solve::complementarity::Info;
use crate::solve::{Bounds, MultiplierMatrix};

/// The multiplier system's rows as the active-set algorithms see them.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Rows<'a> {
    /// `J W Jᵀ`.
    pub(crate) a: MultiplierMatrix<'a>,
    /// Right-hand side `b = d − J W Q`: a held row satisfies `(J W Jᵀ λ)_k = b_k`.
    pub(crate) b: &'a [f64],
    /// Which rows are inequalities `g ≥ 0`, and the bounds on each row's λ.
    pub(crate) bounds: Bounds<'a>,
    /// Inequality rows that are candidates at this state: active (`g ≤ tolerance`), and not an
    /// impact that impulses will resolve.
    pub(crate) candidates: &'a [bool],
    /// How far each held row may stay off its target when redundant rows disagree (see
    /// [`crate::solve::complementarity`]'s `solve_masked`).
    pub(crate) allowance: &'a [f64],
    /// The threshold ε ([`super::active_set::threshold`]).
    pub(crate) eps: f64,
    /// A friction row's slide: `±1` where its 2D contact slides along `±t` (its force then lies
    /// at the cone's edge against the slide), a 3D contact's rows the components of its slip's
    /// unit direction (aimed again at each stage of the step), 0 where the contact sticks (its
    /// force anywhere in the cone that holds the contact's tangential acceleration at zero).
    /// Empty without friction.
    pub(crate) slide: &'a [f64],
    /// How far each row's `w` may be from zero and count as zero: the friction rows', the
    /// rounding of the nearly singular held solves of redundant contacts (see
    /// [`crate::solve::complementarity`]); empty for ε everywhere.
    pub(crate) slack_w: &'a [f64],
}

/// What choosing or keeping the set did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Effort {
    /// Multiplier solves (seed 004's passes, complementarity pivots).
    pub(crate) solves: usize,
    /// Solver iterations, summed.
    pub(crate) iterations: usize,
    /// Largest relative residual.
    pub(crate) residual: f64,
}

impl Effort {
    /// Adds a complementarity solve's work.
    pub(crate) fn add(&mut self, info: Info) {
        self.solves += info.solves.max(1);
        self.iterations += info.iterations;
        self.residual = self.residual.max(info.residual);
    }
}
