//! Each row's bounds on the multiplier `μ = h² λ` as the implicit steppers see them: a motor's
//! limit, an inequality's `μ ≥ 0`, and a friction row's Coulomb cone `±μ_f μ_n`, which follows
//! its normal row's multiplier.

use crate::solve::Bounds;

/// Each row's bounds on `μ = h² λ`: its own (a motor's limit), and `μ ≥ 0` for an inequality.
pub(crate) struct RowBounds<'a> {
    bounds: Bounds<'a>,
    h2: f64,
}

impl<'a> RowBounds<'a> {
    /// The rows of `bounds` (in `λ`) at `h2`.
    pub(crate) fn new(bounds: Bounds<'a>, h2: f64) -> Self {
        RowBounds { bounds, h2 }
    }

    /// Whether any row has a bound (an inequality, a motor's limit).
    pub(crate) fn any_bounded(&self) -> bool {
        self.bounds.any()
    }

    /// Row `r`'s bounds on `μ` when the multipliers are `mu`: a friction row's follow its
    /// normal row's `μ_n` (`±μ_f μ_n`, Coulomb's cone).
    pub(crate) fn get(&self, r: usize, mu: &[f64]) -> (f64, f64) {
        if self.bounds.friction(r).is_some() {
            return self.bounds.coupled(r, mu);
        }
        let (lo, hi) = self.bounds.get(r);
        (scaled(lo, self.h2), scaled(hi, self.h2))
    }

    /// Whether row `r` is a friction row.
    pub(crate) fn friction(&self, r: usize) -> bool {
        self.bounds.friction(r).is_some()
    }

    /// A friction row's normal row and coefficient.
    pub(crate) fn cone(&self, r: usize) -> Option<(usize, f64)> {
        self.bounds.friction(r)
    }

    /// A 3D contact's friction row's other one (see [`Bounds::sibling`]).
    pub(crate) fn sibling(&self, r: usize) -> Option<usize> {
        self.bounds.sibling(r)
    }
}

/// A bound on λ as a bound on `μ = ĥ² λ`. An infinite bound (a contact's λ ≤ ∞) stays infinite
/// even where `ĥ²` underflows to 0 (a step of 1e-320 s), which would otherwise make it NaN.
fn scaled(bound: f64, h2: f64) -> f64 {
    if bound.is_infinite() {
        bound
    } else {
        bound * h2
    }
}
