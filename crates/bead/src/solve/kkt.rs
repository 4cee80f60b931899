//! The Newton system of the implicit steppers in its augmented (KKT) form, seed 004 eq. 6:
//!
//! ```text
//! [ M + h² K̃   Jᵀ ] [ Δq ]   [ −M (q − q̃) ]
//! [ J         0  ] [ ν  ] = [ −r          ]      (ν = −h² λ)
//! ```
//!
//! `K̃` is the geometric stiffness, each constraint's part kept when it is positive
//! semi-definite (a rod in tension) and replaced by its positive diagonal bound when not (a rod
//! in compression), so the upper-left block stays positive definite and the matrix
//! quasi-definite: an LDLᵀ with `n` positive and `m` negative pivots exists in any symmetric
//! order, which lets the fill-reducing order be chosen once, from the structure alone. The
//! symbolic analysis is cached while `J`'s blocks stay the same; only values are refilled.
//!
//! Unlike the Schur complement `J W̃ Jᵀ`, which needs `K̃` diagonal, this form takes `K̃` whole,
//! so Newton's method converges quadratically even where the tension of a long chain makes
//! `h² K` thousands of times the mass.
//!
//! The matrix is scaled symmetrically, to a unit diagonal on the coordinates and to Schur pivots
//! of about one on the constraint rows, so that masses of 1e-4 kg and tensions of 1e6 N meet
//! pivots of comparable size; redundant rows then show as vanishing λ pivots, which the
//! factorization replaces by huge ones (the row drops out, as in [`super::SparseLdlt`]).

use faer::dyn_stack::{MemBuffer, MemStack, StackReq};
use faer::linalg::cholesky::ldlt::factor::LdltRegularization;
use faer::sparse::linalg::cholesky::{LdltRef, SymbolicCholesky};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMat};
use faer::{Conj, MatMut, Par, Side};

use super::{SolveError, lower_triangle};
use crate::integrate::Role;
use crate::inverse_mass::{DenseBlock, InverseMass};
use crate::sparse::{Block, BlockSparse};

/// Pivots below this (on the scaled matrix) are taken for redundancy.
const PIVOT_EPSILON: f64 = 1e-11;
/// The regularization `−δ I` of the constraint block (on the scaled matrix): with it the matrix
/// is quasi-definite and factors in the fill-reducing order (a zero block would give zero pivots
/// to the λ rows that order puts first). The Newton iteration removes its effect: its residuals
/// are those of the unregularized system.
const DELTA: f64 = 1e-10;

/// Sparse LDLᵀ of the implicit steppers' KKT matrix.
#[derive(Default)]
pub(crate) struct Kkt {
    pattern: Option<Pattern>,
    values: Vec<f64>,
    factor: Vec<f64>,
    workspace: Option<MemBuffer>,
    scale: Vec<f64>,
    rhs: Vec<f64>,
    /// Numeric factorizations done (for the statistics).
    pub(crate) factorizations: usize,
    /// Whether `factor` holds the factor of the current pattern.
    factored: bool,
}

impl std::fmt::Debug for Kkt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kkt")
            .field("factor_entries", &self.factor.len())
            .finish_non_exhaustive()
    }
}

#[derive(Debug)]
struct Pattern {
    blocks: Vec<Block>,
    movable: Vec<bool>,
    /// Unknown index of each coordinate of `q` (`usize::MAX` for what cannot move).
    unknown: Vec<usize>,
    n: usize,
    matrix: SymbolicSparseColMat<usize>,
    symbolic: SymbolicCholesky<usize>,
    /// Value slot of each entry of `J`'s values (`usize::MAX` on fixed coordinates).
    j_slots: Vec<usize>,
    /// Slot of each unknown's diagonal entry.
    diagonal: Vec<usize>,
    /// Per dense mass block, each entry of its lower triangle (row-major index in the block)
    /// and its slot.
    mass_slots: Vec<Vec<(usize, usize)>>,
    /// Per band, the slots of its coordinate block `m_b × m_b` (row-major; `usize::MAX` above
    /// the diagonal or on fixed coordinates).
    band_slots: Vec<Vec<usize>>,
    signs: Vec<i8>,
}

/// The coordinates a band's blocks cover, in block order.
fn band_columns(j: &BlockSparse, band: usize) -> Vec<usize> {
    j.bands()[band]
        .1
        .clone()
        .flat_map(|b| {
            let block = j.blocks()[b];
            block.col..block.col + block.ncols
        })
        .collect()
}

impl Pattern {
    /// Whether this analysis was made for `j`'s blocks and these movable coordinates.
    fn fits(&self, j: &BlockSparse, inv_mass: &[f64]) -> bool {
        self.blocks == j.blocks()
            && self.movable.len() == inv_mass.len()
            && self
                .movable
                .iter()
                .zip(inv_mass)
                .all(|(m, w)| *m == (*w > 0.0))
    }

    fn analyse(j: &BlockSparse, w: &InverseMass) -> Result<Pattern, SolveError> {
        let movable: Vec<bool> = w.diagonal().iter().map(|w| *w > 0.0).collect();
        let mut unknown = vec![usize::MAX; w.len()];
        let mut n = 0;
        for (i, &m) in movable.iter().enumerate() {
            if m {
                unknown[i] = n;
                n += 1;
            }
        }
        let m = j.nrows();
        let size = n + m;
        // (col, row) of the lower triangle.
        let mut entries: Vec<(usize, usize)> = Vec::new();
        for band in 0..j.bands().len() {
            let cols = band_columns(j, band);
            for &a in &cols {
                for &b in &cols {
                    let (ua, ub) = (unknown[a], unknown[b]);
                    if ua != usize::MAX && ub != usize::MAX && ua >= ub {
                        entries.push((ub, ua));
                    }
                }
            }
        }
        for block in j.blocks() {
            for r in 0..block.nrows {
                for c in 0..block.ncols {
                    let u = unknown[block.col + c];
                    if u != usize::MAX {
                        entries.push((u, n + block.row + r));
                    }
                }
            }
        }
        // A dense mass block couples its coordinates whether or not a constraint does.
        let unknown_ref = &unknown;
        let mass_pairs = |b: &DenseBlock| {
            let (offset, size) = (b.offset, b.n);
            (0..size).flat_map(move |r| {
                (0..=r).filter_map(move |c| {
                    let (ur, uc) = (unknown_ref[offset + r], unknown_ref[offset + c]);
                    (ur != usize::MAX && uc != usize::MAX).then_some((r, c, uc, ur))
                })
            })
        };
        for b in w.blocks() {
            entries.extend(mass_pairs(b).map(|(_, _, uc, ur)| (uc, ur)));
        }
        let (matrix, symbolic) = lower_triangle::analyse(size, entries)?;
        let slot = |c: usize, r: usize| lower_triangle::slot(&matrix, c, r);
        let mut j_slots = vec![usize::MAX; j.values().len()];
        for block in j.blocks() {
            for r in 0..block.nrows {
                for c in 0..block.ncols {
                    let u = unknown[block.col + c];
                    if u != usize::MAX {
                        j_slots[block.offset + r * block.ncols + c] = slot(u, n + block.row + r);
                    }
                }
            }
        }
        let band_slots = (0..j.bands().len())
            .map(|band| {
                let cols = band_columns(j, band);
                let mut slots = Vec::with_capacity(cols.len() * cols.len());
                for &a in &cols {
                    for &b in &cols {
                        let (ua, ub) = (unknown[a], unknown[b]);
                        slots.push(if ua != usize::MAX && ub != usize::MAX && ua >= ub {
                            slot(ub, ua)
                        } else {
                            usize::MAX
                        });
                    }
                }
                slots
            })
            .collect();
        let diagonal = (0..size).map(|i| slot(i, i)).collect();
        let mass_slots = w
            .blocks()
            .iter()
            .map(|b| {
                mass_pairs(b)
                    .map(|(r, c, uc, ur)| (r * b.n + c, slot(uc, ur)))
                    .collect()
            })
            .collect();
        let mut signs = vec![1i8; n];
        signs.resize(size, -1);
        Ok(Pattern {
            blocks: j.blocks().to_vec(),
            movable,
            unknown,
            n,
            matrix,
            symbolic,
            j_slots,
            diagonal,
            band_slots,
            mass_slots,
            signs,
        })
    }
}

/// The parts of the KKT matrix at one iterate.
pub(crate) struct KktMatrix<'a> {
    /// `J` at the iterate.
    pub(crate) jacobian: &'a BlockSparse,
    /// `W = M⁻¹` (0 where nothing moves).
    pub(crate) inv_mass: &'a InverseMass,
    /// `h²`.
    pub(crate) h2: f64,
    /// How each row takes part: a row with a fixed multiplier has the row `−Δν = ·` in place
    /// of its constraint (the pattern stays; its entries of `J` are zero).
    pub(crate) roles: &'a [Role],
}

impl Kkt {
    /// Whether a factor exists for a matrix of `j`'s structure and these movable coordinates:
    /// a chord iteration may reuse it.
    pub(crate) fn has_factor_for(&self, j: &BlockSparse, inv_mass: &[f64]) -> bool {
        self.factored && self.pattern.as_ref().is_some_and(|p| p.fits(j, inv_mass))
    }

    /// Assembles and factors the KKT matrix, with the geometric stiffness that `stiffness`
    /// gives per band (`K_c`, see [`crate::geometric_stiffness`]).
    pub(crate) fn factor(
        &mut self,
        system: &KktMatrix<'_>,
        stiffness: impl FnOnce(&mut dyn FnMut(usize, &[f64])) -> Result<(), crate::EvalError>,
    ) -> Result<(), crate::EvalError> {
        self.factored = false;
        let j = system.jacobian;
        if !self
            .pattern
            .as_ref()
            .is_some_and(|p| p.fits(j, system.inv_mass.diagonal()))
        {
            let pattern = Pattern::analyse(j, system.inv_mass)?;
            self.values.resize(pattern.matrix.row_idx().len(), 0.0);
            self.factor.resize(pattern.symbolic.len_val(), 0.0);
            let req = StackReq::any_of(&[
                pattern
                    .symbolic
                    .factorize_numeric_ldlt_scratch::<f64>(Par::Seq, Default::default()),
                pattern.symbolic.solve_in_place_scratch::<f64>(1, Par::Seq),
            ]);
            self.workspace = Some(MemBuffer::new(req));
            self.pattern = Some(pattern);
        }
        let (Some(p), Some(workspace)) = (&self.pattern, &mut self.workspace) else {
            return Err(SolveError::NonFinite.into());
        };
        let (n, m) = (p.n, j.nrows());
        self.values.fill(0.0);
        let diagonal = system.inv_mass.diagonal();
        for (i, &u) in p.unknown.iter().enumerate() {
            if u != usize::MAX {
                self.values[p.diagonal[u]] = 1.0 / diagonal[i];
            }
        }
        // Dense blocks overwrite their entries, diagonal included, with M_b itself.
        for (block, slots) in system.inv_mass.blocks().iter().zip(&p.mass_slots) {
            for &(k, s) in slots {
                self.values[s] = block.mass[k];
            }
        }
        // K̃: each constraint's −h² K_c where that is positive semi-definite, else its diagonal
        // bound.
        let h2 = system.h2;
        let values = &mut self.values;
        let mut finite = true;
        let (mut newton, mut cholesky) = (Vec::new(), Vec::new());
        let mut add = |band: usize, k: &[f64]| {
            let size = k.len().isqrt();
            let slots = &p.band_slots[band];
            newton.clear();
            newton.extend(k.iter().map(|x| -h2 * x));
            finite &= newton.iter().all(|x| x.is_finite());
            if positive_semidefinite(&newton, size, &mut cholesky) {
                for (s, v) in slots.iter().zip(&newton) {
                    if *s != usize::MAX {
                        values[*s] += v;
                    }
                }
            } else {
                for a in 0..size {
                    let bound: f64 = newton[a * size..(a + 1) * size]
                        .iter()
                        .map(|x| x.abs())
                        .sum();
                    let s = slots[a * size + a];
                    if s != usize::MAX {
                        values[s] += bound;
                    }
                }
            }
        };
        stiffness(&mut add)?;
        if !finite {
            return Err(crate::EvalError::NonFinite(
                "the geometric stiffness".into(),
            ));
        }
        for block in j.blocks() {
            for r in 0..block.nrows {
                if system.roles[block.row + r] != Role::Held {
                    continue;
                }
                let at = block.offset + r * block.ncols..block.offset + (r + 1) * block.ncols;
                for (v, &s) in j.values()[at.clone()].iter().zip(&p.j_slots[at]) {
                    if s != usize::MAX {
                        self.values[s] += v;
                    }
                }
            }
        }
        for (r, role) in system.roles.iter().enumerate() {
            if *role != Role::Held {
                self.values[p.diagonal[n + r]] = -1.0;
            }
        }
        // Symmetric scaling: a unit diagonal on the coordinates, and each held row scaled so
        // that its Schur pivot (J Ã⁻¹ Jᵀ)_rr is about 1. Then δ and the pivot threshold are
        // relative everywhere: a 1e5-link chain's top rods, under 1e6 N, have pivots 1e5 times
        // smaller than its free end's.
        self.scale.clear();
        self.scale.resize(n + m, 0.0);
        for u in 0..n {
            self.scale[u] = 1.0 / self.values[p.diagonal[u]].sqrt();
        }
        for block in j.blocks() {
            for r in 0..block.nrows {
                if system.roles[block.row + r] != Role::Held {
                    continue;
                }
                let at = block.offset + r * block.ncols;
                for (c, v) in j.values()[at..at + block.ncols].iter().enumerate() {
                    let u = p.unknown[block.col + c];
                    if u != usize::MAX {
                        self.scale[n + block.row + r] += (v * self.scale[u]).powi(2);
                    }
                }
            }
        }
        for s in &mut self.scale[n..] {
            *s = if *s > 0.0 { 1.0 / s.sqrt() } else { 1.0 };
        }
        let (col_ptr, row_idx) = (p.matrix.col_ptr(), p.matrix.row_idx());
        for c in 0..n + m {
            for k in col_ptr[c]..col_ptr[c + 1] {
                self.values[k] *= self.scale[c] * self.scale[row_idx[k]];
            }
        }
        for r in 0..m {
            self.values[p.diagonal[n + r]] -= DELTA;
        }
        if !self.values.iter().all(|v| v.is_finite()) {
            return Err(SolveError::NonFinite.into());
        }
        let stack = MemStack::new(workspace);
        let regularization = LdltRegularization {
            dynamic_regularization_signs: Some(&p.signs),
            dynamic_regularization_delta: 1.0 / PIVOT_EPSILON,
            dynamic_regularization_epsilon: PIVOT_EPSILON,
        };
        let matrix = SparseColMatRef::new(p.matrix.as_ref(), &self.values);
        p.symbolic
            .factorize_numeric_ldlt(
                &mut self.factor,
                matrix,
                Side::Lower,
                regularization,
                Par::Seq,
                stack,
                Default::default(),
            )
            .map_err(|_| SolveError::NonFinite)?;
        self.factorizations += 1;
        self.factored = true;
        Ok(())
    }

    /// Solves the factored system for the Newton correction of the residuals
    /// `F₁ = M (q − q̃) − Jᵀμ` (per coordinate of `q`) and `F₂` (per row: a held row's `r`, a
    /// fixed row's `μ − target`): writes `Δq` (zero where nothing moves) and `Δμ`.
    pub(crate) fn solve(
        &mut self,
        momentum: &[f64],
        residual: &[f64],
        dq: &mut [f64],
        dmu: &mut [f64],
    ) -> Result<(), crate::EvalError> {
        let (Some(p), Some(workspace), true) = (&self.pattern, &mut self.workspace, self.factored)
        else {
            return Err(SolveError::NonFinite.into());
        };
        let (n, m) = (p.n, residual.len());
        let stack = MemStack::new(workspace);
        let ldlt = LdltRef::new(&p.symbolic, &self.factor);
        // Right-hand side −[F₁; F₂], scaled.
        self.rhs.clear();
        self.rhs.resize(n + m, 0.0);
        for (i, &u) in p.unknown.iter().enumerate() {
            if u != usize::MAX {
                self.rhs[u] = -momentum[i] * self.scale[u];
            }
        }
        for r in 0..m {
            self.rhs[n + r] = -residual[r] * self.scale[n + r];
        }
        // One solve: the −δ I it carries leaves an error of relative size δ, which the Newton
        // iteration around it removes with the rest (refining here would double the cost of
        // every iteration for nothing the next one does not do anyway).
        ldlt.solve_in_place_with_conj(
            Conj::No,
            MatMut::from_column_major_slice_mut(&mut self.rhs, n + m, 1),
            Par::Seq,
            stack,
        );
        let solution = &self.rhs;
        for (i, &u) in p.unknown.iter().enumerate() {
            dq[i] = if u == usize::MAX {
                0.0
            } else {
                solution[u] * self.scale[u]
            };
        }
        // ν = −μ
        for r in 0..m {
            dmu[r] = -solution[n + r] * self.scale[n + r];
        }
        if !dq.iter().chain(dmu.iter()).all(|x| x.is_finite()) {
            return Err(SolveError::NonFinite.into());
        }
        Ok(())
    }
}

/// Whether the symmetric `size × size` matrix `a` is positive semi-definite (up to rounding),
/// by a Cholesky factorization of `a + ε I` into the scratch `l`.
fn positive_semidefinite(a: &[f64], size: usize, l: &mut Vec<f64>) -> bool {
    let trace: f64 = (0..size).map(|i| a[i * size + i].abs()).sum();
    if trace == 0.0 {
        return true;
    }
    let eps = 1e-12 * trace;
    l.clear();
    l.resize(size * size, 0.0);
    for i in 0..size {
        for k in 0..=i {
            let mut sum = a[i * size + k] + if i == k { eps } else { 0.0 };
            for p in 0..k {
                sum -= l[i * size + p] * l[k * size + p];
            }
            if i == k {
                if sum <= 0.0 {
                    return false;
                }
                l[i * size + i] = sum.sqrt();
            } else {
                l[i * size + k] = sum / l[k * size + k];
            }
        }
    }
    true
}
