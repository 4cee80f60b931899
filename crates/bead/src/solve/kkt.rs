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
//! Unlike the Schur complement `J W̃ Jᵀ`, which needs `K̃` block-diagonal, this form takes `K̃`
//! whole, so Newton's method converges quadratically even where the tension of a long chain makes
//! `h² K` thousands of times the mass.
//!
//! Where it does not, the coupling is a luxury: a cloth's rods tie each particle to its
//! neighbours by `h² λ/ℓ`, about 0.02 of its mass for the viewer's curtain and 0.1 for a
//! 100 × 100 cloth at dt = 1 ms, yet those terms make most of the factor (2.4 million entries of
//! the 100 × 100 cloth's, against 0.68 million without). When every coordinate's coupling to
//! other bodies, `h² Σ|K̃_ab|`, is below a quarter of its mass, the matrix keeps only each body's
//! own block of `K̃`; the iteration, a modified Newton method then, still gains about that ratio
//! an iteration, at a fraction of the cost of each. The Newton iteration asks for the whole
//! matrix ([`Factorization::Full`]) when the reduced one leaves it slow. A reduced matrix
//! eliminates its bodies first, leaving `J Ã⁻¹ Jᵀ` on the rows in that complement's own AMD
//! order, where the complement's pattern is the smaller of the two (a cloth: 40,296 factor
//! entries against 46,600 for the curtain); a pile's contacts make it the larger.
//!
//! [`Factorization::Full`]: crate::integrate::Factorization::Full
//!
//! The matrix is scaled symmetrically, to a unit diagonal on the coordinates and to Schur pivots
//! of about one on the constraint rows, so that masses of 1e-4 kg and tensions of 1e6 N meet
//! pivots of comparable size; redundant rows then show as vanishing λ pivots, which the
//! factorization replaces by huge ones (the row drops out, as in [`super::SparseLdlt`]).

use faer::dyn_stack::{MemBuffer, MemStack, StackReq};
use faer::linalg::cholesky::ldlt::factor::LdltRegularization;
use faer::sparse::linalg::cholesky::simplicial::SimplicialLdltRef;
use faer::sparse::linalg::cholesky::{LdltRef, SymbolicCholesky, SymbolicCholeskyRaw};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMat};
use faer::{Conj, MatMut, Par, Side};

use super::{Role, SolveError, lower_triangle};
use crate::math::inverse_mass::{DenseBlock, InverseMass};
use crate::math::sparse::{Block, BlockSparse};

/// Pivots below this (on the scaled matrix) are taken for redundancy.
const PIVOT_EPSILON: f64 = 1e-11;
/// The regularization `−δ I` of the constraint block (on the scaled matrix): with it the matrix
/// is quasi-definite and factors in the fill-reducing order (a zero block would give zero pivots
/// to the λ rows that order puts first). The Newton iteration removes its effect: its residuals
/// are those of the unregularized system.
const DELTA: f64 = 1e-10;

/// The largest ratio of a coordinate's stiffness coupling to other bodies to its own mass,
/// `h² Σ|K̃_ab| / m_a`, below which the Newton matrix leaves that coupling out: a modified Newton
/// iteration then still gains about this factor an iteration.
const REDUCED_BELOW: f64 = 0.25;
/// The ratio above which a reduced Newton matrix takes the coupling back.
const COUPLED_ABOVE: f64 = 0.5;

/// The geometric stiffness given to [`Kkt::factor`] is not finite.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct NonFiniteStiffness;

/// Sparse LDLᵀ of the implicit steppers' KKT matrix.
#[derive(Default)]
pub(crate) struct Kkt {
    pattern: Option<Pattern>,
    values: Vec<f64>,
    factor: Vec<f64>,
    workspace: Option<MemBuffer>,
    scale: Vec<f64>,
    /// `scale` in the order of the right-hand side the factor solves for (see
    /// [`Pattern::source`]).
    ordered_scale: Vec<f64>,
    /// `[F₁; F₂]` of a solve, one after the other (scratch).
    input: Vec<f64>,
    rhs: Vec<f64>,
    /// Numeric factorizations done (for the statistics).
    pub(crate) factorizations: usize,
    /// Whether `factor` holds the factor of the current pattern.
    factored: bool,
    /// Each constraint's `−h² K̃_c` of the factorization under way, and where each band's starts.
    stiffness: Vec<f64>,
    stiffness_bands: Vec<(usize, usize)>,
    /// Per coordinate, the stiffness coupling it to other bodies (scratch).
    coupling: Vec<f64>,
    /// Whether the last factorization left out the stiffness between bodies.
    reduced: bool,
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
    /// The [`BlockSparse::structure`] of a `J` with these blocks: one compare, most of the
    /// time, in place of one per block.
    structure: u64,
    /// Whether the geometric stiffness between different bodies is left out.
    reduced: bool,
    movable: Vec<bool>,
    /// Unknown index of each coordinate of `q` (`usize::MAX` for what cannot move).
    unknown: Vec<usize>,
    /// The coordinate of `q` of each unknown coordinate.
    coordinate: Vec<usize>,
    /// The order of the right-hand side the factor solves for (a simplicial factor's
    /// fill-reducing order; the unknowns' own for a supernodal one, which orders it itself):
    /// for each entry, the unknown it is, and the index of its residual in
    /// `[F₁ (per coordinate of q); F₂]`; and for each unknown, its entry.
    order: Vec<usize>,
    source: Vec<usize>,
    position: Vec<usize>,
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
    /// Per band, where its stiffness goes: `(index in its coordinate block m_b × m_b,
    /// row-major; slot)` of each entry the pattern stores (on or below the diagonal, between
    /// movable coordinates, and within one body when reduced), the bands one after another.
    band_slots: Vec<(usize, usize)>,
    /// Where each band's entries start in `band_slots`, and the end.
    band_starts: Vec<usize>,
    signs: Vec<i8>,
}

/// The coordinates a band's blocks cover, in block order, each with the first coordinate of its
/// body (a block of `J` spans one body's coordinates).
fn band_columns(j: &BlockSparse, band: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
    j.bands()[band].1.clone().flat_map(|b| {
        let block = j.blocks()[b];
        (block.col..block.col + block.ncols).map(move |c| (c, block.col))
    })
}

/// Whether block `b` of `J` acts on a body that moves (`unknown` maps each coordinate of `q` to
/// its unknown, `usize::MAX` where nothing moves).
fn moves(b: &Block, unknown: &[usize]) -> bool {
    unknown[b.col..b.col + b.ncols]
        .iter()
        .any(|u| *u != usize::MAX)
}

/// About how many entries [`schur_pattern`] has (rows that share two bodies count twice): each
/// body that moves couples its `k` rows, `k (k + 1) / 2` entries of the lower triangle.
fn schur_size(j: &BlockSparse, unknown: &[usize]) -> usize {
    let mut rows = vec![0usize; unknown.len()];
    for b in j.blocks().iter().filter(|b| moves(b, unknown)) {
        rows[b.col] += b.nrows;
    }
    rows.iter().map(|k| k * (k + 1) / 2).sum()
}

/// The lower triangle `(column, row)` of `J Ã⁻¹ Jᵀ`'s pattern for a block-diagonal `Ã`: rows
/// that share a body that moves.
fn schur_pattern(j: &BlockSparse, unknown: &[usize]) -> Vec<(usize, usize)> {
    let mut by_body: Vec<&Block> = j.blocks().iter().filter(|b| moves(b, unknown)).collect();
    by_body.sort_by_key(|b| (b.col, b.row));
    let mut entries = Vec::new();
    for group in by_body.chunk_by(|a, b| a.col == b.col) {
        for a in group {
            for b in group {
                for r in a.row..a.row + a.nrows {
                    for s in b.row..b.row + b.nrows {
                        if r >= s {
                            entries.push((s, r));
                        }
                    }
                }
            }
        }
    }
    entries.sort_unstable();
    entries.dedup();
    entries
}

impl Pattern {
    /// Whether this analysis was made for `j`'s blocks and these movable coordinates.
    fn fits(&self, j: &BlockSparse, inv_mass: &[f64]) -> bool {
        (self.structure == j.structure() || self.blocks == j.blocks())
            && self.movable.len() == inv_mass.len()
            && self
                .movable
                .iter()
                .zip(inv_mass)
                .all(|(m, w)| *m == (*w > 0.0))
    }

    /// The pattern for `j` and `w`; `reduced` leaves out the geometric stiffness between
    /// different bodies.
    fn analyse(j: &BlockSparse, w: &InverseMass, reduced: bool) -> Result<Pattern, SolveError> {
        Pattern::analyse_in(j, w, reduced, None)
    }

    /// [`Pattern::analyse`], with the bodies eliminated first (in a reduced matrix) or not as
    /// `bodies_first` says, instead of as the patterns' sizes suggest.
    fn analyse_in(
        j: &BlockSparse,
        w: &InverseMass,
        reduced: bool,
        bodies_first: Option<bool>,
    ) -> Result<Pattern, SolveError> {
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
        let couples = |(a, body_a): (usize, usize), (b, body_b): (usize, usize)| {
            let (ua, ub) = (unknown[a], unknown[b]);
            (ua != usize::MAX && ub != usize::MAX && ua >= ub && (!reduced || body_a == body_b))
                .then_some((ua, ub))
        };
        for band in 0..j.bands().len() {
            for a in band_columns(j, band) {
                for b in band_columns(j, band) {
                    if let Some((ua, ub)) = couples(a, b) {
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
        // Reduced, the coordinates' block is block-diagonal: eliminating every body first leaves
        // the Schur complement J Ã⁻¹ Jᵀ on the rows, which is then ordered by its own AMD. On a
        // cloth, where each body has a few rows, that factor has a sixth fewer entries than in
        // AMD's order of the whole matrix; on a pile, whose contacts tie each ball to several
        // others, the complement is denser than the matrix and AMD's order does better. So
        // bodies go first only when their complement has fewer entries than the matrix.
        entries.sort_unstable();
        entries.dedup();
        let bodies_first =
            reduced && bodies_first.unwrap_or_else(|| schur_size(j, &unknown) < entries.len());
        let order = if bodies_first {
            let rows = lower_triangle::amd_order(m, schur_pattern(j, &unknown))?;
            Some(
                (0..n)
                    .chain(rows.into_iter().map(|r| n + r))
                    .collect::<Vec<_>>(),
            )
        } else {
            None
        };
        let (matrix, symbolic) = lower_triangle::analyse_in(size, entries, order.as_deref())?;
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
        let (mut band_slots, mut band_starts) = (Vec::new(), vec![0]);
        for band in 0..j.bands().len() {
            let mut index = 0;
            for a in band_columns(j, band) {
                for b in band_columns(j, band) {
                    if let Some((ua, ub)) = couples(a, b) {
                        band_slots.push((index, slot(ub, ua)));
                    }
                    index += 1;
                }
            }
            band_starts.push(band_slots.len());
        }
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
        let coordinate: Vec<usize> = (0..w.len()).filter(|&i| unknown[i] != usize::MAX).collect();
        let (order, position): (Vec<usize>, Vec<usize>) = match (symbolic.raw(), symbolic.perm()) {
            (SymbolicCholeskyRaw::Simplicial(_), Some(perm)) => {
                let (forward, inverse) = perm.arrays();
                (forward.to_vec(), inverse.to_vec())
            }
            _ => ((0..size).collect(), (0..size).collect()),
        };
        let source = order
            .iter()
            .map(|&u| {
                if u < n {
                    coordinate[u]
                } else {
                    w.len() + u - n
                }
            })
            .collect();
        let mut signs = vec![1i8; n];
        signs.resize(size, -1);
        Ok(Pattern {
            blocks: j.blocks().to_vec(),
            structure: j.structure(),
            reduced,
            movable,
            unknown,
            coordinate,
            order,
            source,
            position,
            n,
            matrix,
            symbolic,
            j_slots,
            diagonal,
            band_slots,
            band_starts,
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
    /// Keep all of the geometric stiffness, even where leaving out the coupling between bodies
    /// would do.
    pub(crate) full_stiffness: bool,
}

impl Kkt {
    /// Whether the factorization under way leaves out the geometric stiffness between bodies:
    /// when it couples each coordinate to other bodies' by little against its own mass, the
    /// matrix without those terms is a close enough Newton matrix and factors into a fraction
    /// of the entries (the stiffness between neighbours is what fills the factor of a cloth),
    /// so the cheaper iterations win; a long chain's, thousands of times its links' masses,
    /// needs them. Hysteresis keeps the pattern from flickering at the threshold.
    fn choose_reduced(&mut self, j: &BlockSparse, inv_mass: &[f64]) -> bool {
        self.coupling.clear();
        self.coupling.resize(inv_mass.len(), 0.0);
        for &(band, start) in &self.stiffness_bands {
            // A band has one block per body: the coupling to other bodies is what lies outside
            // the row's own block, summed in column order.
            let blocks = &j.blocks()[j.bands()[band].1.clone()];
            let size: usize = blocks.iter().map(|b| b.ncols).sum();
            let k = &self.stiffness[start..start + size * size];
            let mut first = 0;
            for block in blocks {
                let own = first..first + block.ncols;
                for (r, row) in k[own.start * size..own.end * size]
                    .chunks_exact(size)
                    .enumerate()
                {
                    self.coupling[block.col + r] += row[..own.start]
                        .iter()
                        .chain(&row[own.end..])
                        .map(|x| x.abs())
                        .sum::<f64>();
                }
                first = own.end;
            }
        }
        let ratio = self
            .coupling
            .iter()
            .zip(inv_mass)
            .fold(0.0_f64, |r, (k, w)| r.max(k * w));
        self.reduced = if self.reduced {
            ratio <= COUPLED_ABOVE
        } else {
            ratio < REDUCED_BELOW
        };
        self.reduced
    }

    /// Whether a factor exists for a matrix of `j`'s structure and these movable coordinates:
    /// a chord iteration may reuse it.
    pub(crate) fn has_factor_for(&self, j: &BlockSparse, inv_mass: &[f64]) -> bool {
        self.factored && self.pattern.as_ref().is_some_and(|p| p.fits(j, inv_mass))
    }

    /// Assembles and factors the KKT matrix, with the geometric stiffness that `stiffness`
    /// gives per band (`K_c`, and whether `−K_c` is known positive semi-definite: see
    /// [`crate::geometric_stiffness`]). Fails with the error `stiffness` returns, or with a
    /// [`SolveError`] or [`NonFiniteStiffness`] of its own.
    pub(crate) fn factor<E: From<SolveError> + From<NonFiniteStiffness>>(
        &mut self,
        system: &KktMatrix<'_>,
        stiffness: impl FnOnce(&mut dyn FnMut(usize, &[f64], Option<bool>)) -> Result<(), E>,
    ) -> Result<(), E> {
        self.factored = false;
        let j = system.jacobian;
        // Each constraint's −h² K_c where that is positive semi-definite, else its diagonal
        // bound, gathered first: whether the terms between bodies earn their place in the
        // pattern depends on their size.
        let h2 = system.h2;
        self.stiffness.clear();
        self.stiffness_bands.clear();
        let mut finite = true;
        let mut cholesky = Vec::new();
        {
            let (values, bands) = (&mut self.stiffness, &mut self.stiffness_bands);
            stiffness(&mut |band: usize, k: &[f64], definite: Option<bool>| {
                let size = k.len().isqrt();
                let start = values.len();
                values.extend(k.iter().map(|x| -h2 * x));
                let newton = &mut values[start..];
                finite &= newton.iter().all(|x| x.is_finite());
                if !definite.unwrap_or_else(|| positive_semidefinite(newton, size, &mut cholesky)) {
                    for a in 0..size {
                        let row = &mut newton[a * size..(a + 1) * size];
                        let bound: f64 = row.iter().map(|x| x.abs()).sum();
                        row.fill(0.0);
                        row[a] = bound;
                    }
                }
                bands.push((band, start));
            })?;
        }
        if !finite {
            return Err(NonFiniteStiffness.into());
        }
        let reduced = if system.full_stiffness {
            self.reduced = false;
            false
        } else {
            self.choose_reduced(j, system.inv_mass.diagonal())
        };
        if !self
            .pattern
            .as_ref()
            .is_some_and(|p| p.fits(j, system.inv_mass.diagonal()) && p.reduced == reduced)
        {
            let pattern = Pattern::analyse(j, system.inv_mass, reduced)?;
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
        let (Some(p), Some(workspace)) = (&mut self.pattern, &mut self.workspace) else {
            return Err(SolveError::NonFinite.into());
        };
        // A layout built again with the same blocks fits: it is named for the next test.
        p.structure = j.structure();
        let p = &*p;
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
        for &(band, start) in &self.stiffness_bands {
            let stiffness = &self.stiffness[start..];
            for &(k, s) in &p.band_slots[p.band_starts[band]..p.band_starts[band + 1]] {
                self.values[s] += stiffness[k];
            }
        }
        for block in j.blocks() {
            for r in 0..block.nrows {
                if !system.roles[block.row + r].holds() {
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
            if !role.holds() {
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
                if !system.roles[block.row + r].holds() {
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
        self.ordered_scale.clear();
        self.ordered_scale
            .extend(p.order.iter().map(|&u| self.scale[u]));
        let (col_ptr, row_idx) = (p.matrix.col_ptr(), p.matrix.row_idx());
        for c in 0..n + m {
            for k in col_ptr[c]..col_ptr[c + 1] {
                self.values[k] *= self.scale[c] * self.scale[row_idx[k]];
            }
        }
        for r in 0..m {
            self.values[p.diagonal[n + r]] -= DELTA;
            if let Role::Compliant(c) = system.roles[r] {
                self.values[p.diagonal[n + r]] -= c * self.scale[n + r] * self.scale[n + r];
            }
        }
        if !crate::math::vector::all_finite(&self.values) {
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
    ) -> Result<(), SolveError> {
        let (Some(p), Some(workspace), true) = (&self.pattern, &mut self.workspace, self.factored)
        else {
            return Err(SolveError::NonFinite);
        };
        let (n, m) = (p.n, residual.len());
        let stack = MemStack::new(workspace);
        // Right-hand side −[F₁; F₂], scaled, written in the factor's order (the order applied
        // as it is written and undone as the solution is read, rather than by two passes of
        // their own): entry k is input `source[k]` of [F₁; F₂].
        self.input.clear();
        self.input.extend_from_slice(momentum);
        self.input.extend_from_slice(residual);
        self.rhs.clear();
        self.rhs.extend(
            p.source
                .iter()
                .zip(&self.ordered_scale)
                .map(|(&i, s)| -self.input[i] * s),
        );
        // One solve: the −δ I it carries leaves an error of relative size δ, which the Newton
        // iteration around it removes with the rest (refining here would double the cost of
        // every iteration for nothing the next one does not do anyway).
        let rhs = MatMut::from_column_major_slice_mut(&mut self.rhs, n + m, 1);
        match (p.symbolic.raw(), p.symbolic.perm()) {
            (SymbolicCholeskyRaw::Simplicial(simplicial), Some(_)) => {
                SimplicialLdltRef::new(simplicial, &self.factor).solve_in_place_with_conj(
                    Conj::No,
                    rhs,
                    Par::Seq,
                    stack,
                );
            }
            _ => {
                LdltRef::new(&p.symbolic, &self.factor).solve_in_place_with_conj(
                    Conj::No,
                    rhs,
                    Par::Seq,
                    stack,
                );
            }
        }
        let solution = |u: usize| self.rhs[p.position[u]] * self.scale[u];
        dq.fill(0.0);
        for (u, &i) in p.coordinate.iter().enumerate() {
            dq[i] = solution(u);
        }
        // ν = −μ
        for (r, d) in dmu.iter_mut().enumerate() {
            *d = -solution(n + r);
        }
        if !(crate::math::vector::all_finite(dq) && crate::math::vector::all_finite(dmu)) {
            return Err(SolveError::NonFinite);
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

#[cfg(test)]
mod tests {
    use super::{KktMatrix, Pattern};
    use crate::System;
    use crate::assembly::stiffness::constraint_stiffness;
    use crate::integrate::ImplicitEuler;
    use crate::integrate::Role;

    /// Steps `sys` implicitly a little; returns whether its Newton matrix left out the stiffness
    /// between bodies, its factor's entries, and those of the factor with that stiffness in.
    fn newton_matrix(mut sys: System, dt: f64) -> (bool, usize, usize) {
        sys.set_integrator(ImplicitEuler::default());
        for _ in 0..5 {
            sys.step(dt).unwrap_or_else(|e| panic!("{e}"));
        }
        let parts = sys.parts();
        let layout = parts.evaluator.layout();
        let Some(pattern) = parts.kkt.pattern.as_ref() else {
            panic!("no factor after five steps")
        };
        let coupled = Pattern::analyse(&layout.jacobian, &layout.inv_mass, false)
            .unwrap_or_else(|e| panic!("{e}"));
        (
            pattern.reduced,
            pattern.symbolic.len_val(),
            coupled.symbolic.len_val(),
        )
    }

    /// A cloth's rods couple each particle to its neighbours by `h² λ/ℓ` ≈ 0.02 of its mass: the
    /// Newton matrix leaves that out and factors into less than half the entries. A chain of
    /// 1,000 links couples its top links by ten times their mass and keeps it.
    #[test]
    fn a_cloth_leaves_out_the_stiffness_between_bodies_and_a_long_chain_keeps_it() {
        let (cloth, _) = crate::models::cloth(20, 1.0, 1.0).unwrap_or_else(|e| panic!("{e}"));
        let (reduced, entries, coupled) = newton_matrix(cloth, 1e-3);
        assert!(reduced, "the cloth's Newton matrix keeps the coupling");
        assert!(
            2 * entries < coupled,
            "reduced factor {entries} entries, coupled {coupled}"
        );
        // Asked for the whole stiffness (the Newton iteration does when the reduced matrix is
        // slow), the same cloth gets it.
        let (mut cloth, _) = crate::models::cloth(20, 1.0, 1.0).unwrap_or_else(|e| panic!("{e}"));
        cloth.set_integrator(ImplicitEuler::default());
        for _ in 0..5 {
            cloth.step(1e-3).unwrap_or_else(|e| panic!("{e}"));
        }
        let q = cloth.q().to_vec();
        let v = vec![0.0; q.len()];
        let parts = cloth.parts();
        parts
            .evaluator
            .evaluate_constraints(parts.model, 0.0, &q, &v)
            .unwrap_or_else(|e| panic!("{e}"));
        let ev = &*parts.evaluator;
        let lambda = parts.acceleration.lambda().to_vec();
        let roles = vec![Role::Held; lambda.len()];
        let kkt = parts.kkt;
        let matrix = KktMatrix {
            jacobian: &ev.layout().jacobian,
            inv_mass: &ev.layout().inv_mass,
            h2: 1e-6,
            roles: &roles,
            full_stiffness: true,
        };
        kkt.factor(&matrix, |sink| {
            constraint_stiffness(ev, parts.model, 0.0, &q, &lambda, sink)
        })
        .unwrap_or_else(|e| panic!("{e}"));
        assert!(kkt.pattern.as_ref().is_some_and(|p| !p.reduced));
        assert_eq!(kkt.factor.len(), coupled);

        let chain = crate::models::chain_swing(1000, 1.0).unwrap_or_else(|e| panic!("{e}"));
        let (reduced, entries, coupled) = newton_matrix(chain.system, 1e-3);
        assert!(
            !reduced,
            "the long chain's Newton matrix drops the coupling"
        );
        assert_eq!(entries, coupled);
    }

    /// A reduced Newton matrix eliminates the bodies first when their Schur complement is
    /// sparser than the matrix: on a cloth that factor is smaller than AMD's order of the
    /// whole matrix gives; a pile's contacts tie each ball to several others, and there AMD's
    /// order is kept, being the smaller.
    #[test]
    fn bodies_go_first_where_their_complement_factors_smaller() {
        let factor = |sys: &mut System, bodies_first: Option<bool>| {
            let layout = sys.parts().evaluator.layout();
            let (j, w) = (&layout.jacobian, &layout.inv_mass);
            Pattern::analyse_in(j, w, true, bodies_first)
                .unwrap_or_else(|e| panic!("{e}"))
                .symbolic
                .len_val()
        };
        let (mut cloth, _) = crate::models::cloth(30, 1.0, 1.0).unwrap_or_else(|e| panic!("{e}"));
        let (chosen, first, amd) = (
            factor(&mut cloth, None),
            factor(&mut cloth, Some(true)),
            factor(&mut cloth, Some(false)),
        );
        assert_eq!(chosen, first, "the cloth's bodies go first");
        assert!(
            first * 10 < amd * 9,
            "bodies first {first} entries, AMD {amd}"
        );
        let (mut pile, _) =
            crate::models::ball_pile(200, 0.02, 0.6).unwrap_or_else(|e| panic!("{e}"));
        pile.set_integrator(ImplicitEuler::default());
        for _ in 0..300 {
            pile.step(2e-3).unwrap_or_else(|e| panic!("{e}"));
        }
        let (chosen, first, amd) = (
            factor(&mut pile, None),
            factor(&mut pile, Some(true)),
            factor(&mut pile, Some(false)),
        );
        assert_eq!(chosen, amd, "the pile keeps AMD's order");
        assert!(amd < first, "AMD {amd} entries, bodies first {first}");
    }
}
