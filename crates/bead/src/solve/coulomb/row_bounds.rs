//! Each row's bounds on the multiplier `μ = h² λ` as the implicit steppers see them (`h² = 1`:
//! λ itself, as the explicit integrators see it): a motor's limit, an inequality's `μ ≥ 0`, a
//! friction row's Coulomb cone `±μ_f μ_n`, which follows its normal row's multiplier, and a
//! sliding contact's friction `−μ_f μ_n s` against its slide `s` (the explicit integrators',
//! whose slides are known at a step's start).

use crate::solve::Bounds;

/// Each row's bounds on `μ = h² λ`: its own (a motor's limit), and `μ ≥ 0` for an inequality.
pub(crate) struct RowBounds<'a> {
    bounds: Bounds<'a>,
    h2: f64,
    /// Each friction row's share of its contact's slide direction (empty, or 0 where the
    /// contact sticks).
    slides: &'a [f64],
}

impl<'a> RowBounds<'a> {
    /// The rows of `bounds` (in `λ`) at `h2`.
    pub(crate) fn new(bounds: Bounds<'a>, h2: f64) -> Self {
        RowBounds {
            bounds,
            h2,
            slides: &[],
        }
    }

    /// The rows of `bounds` (in λ) where the contacts slide as `slides` says: each friction
    /// row's component of its contact's unit slip direction, 0 where the contact sticks. A
    /// sliding contact's friction rows are fixed at `−s μ_f λ_n`, no cone of their own.
    pub(crate) fn with_slides(bounds: Bounds<'a>, slides: &'a [f64]) -> Self {
        RowBounds {
            bounds,
            h2: 1.0,
            slides,
        }
    }

    /// Row `r`'s component of its contact's slide, where the contact slides (a 3D contact
    /// slides when either of its rows has one).
    fn slide(&self, r: usize) -> Option<f64> {
        if self.slides.is_empty() {
            return None;
        }
        let of = |k: usize| self.slides.get(k).copied().unwrap_or(0.0);
        let sliding = of(r) != 0.0 || self.bounds.sibling(r).is_some_and(|j| of(j) != 0.0);
        (sliding && self.bounds.friction(r).is_some()).then(|| of(r))
    }

    /// Whether any row has a bound (an inequality, a motor's limit).
    pub(crate) fn any_bounded(&self) -> bool {
        self.bounds.any()
    }

    /// Row `r`'s bounds on `μ` when the multipliers are `mu`: a friction row's follow its
    /// normal row's `μ_n` (`±μ_f μ_n`, Coulomb's cone).
    pub(crate) fn get(&self, r: usize, mu: &[f64]) -> (f64, f64) {
        if let Some(s) = self.slide(r) {
            let force = -s * self.bounds.coupled(r, mu).1;
            return (force, force);
        }
        if self.bounds.friction(r).is_some() {
            return self.bounds.coupled(r, mu);
        }
        let (lo, hi) = self.bounds.get(r);
        (scaled(lo, self.h2), scaled(hi, self.h2))
    }

    /// Whether row `r` is an inequality (a contact's normal row).
    pub(crate) fn inequality(&self, r: usize) -> bool {
        self.bounds.inequality(r)
    }

    /// Whether row `r` is a friction row.
    pub(crate) fn friction(&self, r: usize) -> bool {
        self.bounds.friction(r).is_some()
    }

    /// A friction row's normal row and coefficient, where its force lies in a cone (not a
    /// sliding contact's, whose force is fixed by its normal force).
    pub(crate) fn cone(&self, r: usize) -> Option<(usize, f64)> {
        self.slide(r).map_or(self.bounds.friction(r), |_| None)
    }

    /// A sliding contact's friction row's normal row and `−s μ_f`, by which its multiplier
    /// follows its normal row's; `None` for every other row.
    pub(crate) fn slide_edge(&self, r: usize) -> Option<(usize, f64)> {
        let s = self.slide(r)?;
        let (normal, coefficient) = self.bounds.friction(r)?;
        Some((normal, -s * coefficient))
    }

    /// A 3D contact's friction row's other one (see [`Bounds::sibling`]), where the contact's
    /// force lies in its cone.
    pub(crate) fn sibling(&self, r: usize) -> Option<usize> {
        self.slide(r).map_or(self.bounds.sibling(r), |_| None)
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
