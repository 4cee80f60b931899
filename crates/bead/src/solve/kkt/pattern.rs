//! The structure of the KKT matrix, analysed once while `J`'s blocks and the movable
//! coordinates stay the same: which entries exist (the mass blocks, each band's stiffness, `J`
//! and `Jᵀ`), the fill-reducing order (bodies first where their Schur complement is the
//! sparser), the symbolic factor, and the slot each value goes to.

use faer::sparse::SymbolicSparseColMat;
use faer::sparse::linalg::cholesky::SymbolicCholesky;

use crate::math::bands::Bands;
use crate::math::inverse_mass::{DenseBlock, InverseMass};
use crate::math::sparse::{Block, BlockSparse};
use crate::solve::{SolveError, ldlt};

#[derive(Debug)]
pub(super) struct Pattern {
    pub(super) blocks: Vec<Block>,
    /// The [`BlockSparse::structure`] of a `J` with these blocks: one compare, most of the
    /// time, in place of one per block.
    pub(super) structure: u64,
    /// Whether the geometric stiffness between different bodies is left out.
    pub(super) reduced: bool,
    pub(super) movable: Vec<bool>,
    /// Unknown index of each coordinate of `q` (`usize::MAX` for what cannot move).
    pub(super) unknown: Vec<usize>,
    /// The coordinate of `q` of each unknown coordinate.
    pub(super) coordinate: Vec<usize>,
    /// The order of the right-hand side the factor solves for (a simplicial factor's
    /// fill-reducing order; the unknowns' own for a supernodal one, which orders it itself):
    /// for each entry, the unknown it is, and the index of its residual in
    /// `[F₁ (per coordinate of q); F₂]`; and for each unknown, its entry.
    pub(super) order: Vec<usize>,
    pub(super) source: Vec<usize>,
    pub(super) position: Vec<usize>,
    pub(super) n: usize,
    pub(super) matrix: SymbolicSparseColMat<usize>,
    pub(super) symbolic: SymbolicCholesky<usize>,
    /// Value slot of each entry of `J`'s values (`usize::MAX` on fixed coordinates).
    pub(super) j_slots: Vec<usize>,
    /// Slot of each unknown's diagonal entry.
    pub(super) diagonal: Vec<usize>,
    /// Per dense mass block, each entry of its lower triangle (row-major index in the block)
    /// and its slot.
    pub(super) mass_slots: Vec<Vec<(usize, usize)>>,
    /// Per band, where its stiffness goes: `(index in its coordinate block m_b × m_b,
    /// row-major; slot)` of each entry the pattern stores (on or below the diagonal, between
    /// movable coordinates, and within one body when reduced), the bands one after another.
    pub(super) band_slots: Vec<(usize, usize)>,
    /// Where each band's entries start in `band_slots`, and the end.
    pub(super) band_starts: Vec<usize>,
    /// The coordinates of the added blocks (the forces' Jacobians, the objects' own blocks)
    /// this pattern holds, and where each block's start ([`Bands::structure`]).
    pub(super) additions: (Vec<usize>, Vec<usize>),
    /// Per entry the pattern stores of the added blocks: `(index in the blocks' values, slot)`.
    pub(super) addition_slots: Vec<(usize, usize)>,
    pub(super) signs: Vec<i8>,
}

/// The coordinates a band's blocks cover, in block order, each with the first coordinate of its
/// body (a block of `J` spans one body's coordinates).
pub(super) fn band_columns(
    j: &BlockSparse,
    band: usize,
) -> impl Iterator<Item = (usize, usize)> + '_ {
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
    /// Whether this analysis was made for `j`'s blocks, these movable coordinates and the
    /// added blocks of this structure ([`Bands::structure`]).
    pub(super) fn fits(
        &self,
        j: &BlockSparse,
        inv_mass: &[f64],
        additions: (&[usize], &[usize]),
    ) -> bool {
        (self.structure == j.structure() || self.blocks == j.blocks())
            && self.additions.0 == additions.0
            && self.additions.1 == additions.1
            && self.movable.len() == inv_mass.len()
            && self
                .movable
                .iter()
                .zip(inv_mass)
                .all(|(m, w)| *m == (*w > 0.0))
    }

    /// The pattern for `j`, `w` and the blocks `additions` adds to the coordinates' block;
    /// `reduced` leaves out the geometric stiffness between different bodies.
    pub(super) fn analyse(
        j: &BlockSparse,
        w: &InverseMass,
        reduced: bool,
        additions: &Bands,
    ) -> Result<Pattern, SolveError> {
        Pattern::analyse_in(j, w, reduced, None, additions)
    }

    /// [`Pattern::analyse`], with the bodies eliminated first (in a reduced matrix) or not as
    /// `bodies_first` says, instead of as the patterns' sizes suggest.
    pub(super) fn analyse_in(
        j: &BlockSparse,
        w: &InverseMass,
        reduced: bool,
        bodies_first: Option<bool>,
        additions: &Bands,
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
        // The added blocks couple their coordinates, between bodies too: a stiff spring's
        // coupling is what makes its step implicit.
        let addition_pairs = |band: usize| {
            let coordinates = additions.coordinates(band);
            let k = coordinates.len();
            (0..k * k).filter_map(move |i| {
                let (ur, uc) = (
                    unknown_ref[coordinates[i / k]],
                    unknown_ref[coordinates[i % k]],
                );
                (ur != usize::MAX && uc != usize::MAX && ur >= uc).then_some((i, uc, ur))
            })
        };
        for band in 0..additions.len() {
            entries.extend(addition_pairs(band).map(|(_, uc, ur)| (uc, ur)));
        }
        // Reduced, the coordinates' block is block-diagonal: eliminating every body first leaves
        // the Schur complement J Ã⁻¹ Jᵀ on the rows, which is then ordered by its own AMD. On a
        // cloth, where each body has a few rows, that factor has a sixth fewer entries than in
        // AMD's order of the whole matrix; on a pile, whose contacts tie each ball to several
        // others, the complement is denser than the matrix and AMD's order does better. So
        // bodies go first only when their complement has fewer entries than the matrix.
        entries.sort_unstable();
        entries.dedup();
        let bodies_first = reduced
            && !additions.coupled()
            && bodies_first.unwrap_or_else(|| schur_size(j, &unknown) < entries.len());
        let order = if bodies_first {
            let rows = ldlt::amd_order(m, schur_pattern(j, &unknown))?;
            Some(
                (0..n)
                    .chain(rows.into_iter().map(|r| n + r))
                    .collect::<Vec<_>>(),
            )
        } else {
            None
        };
        let (matrix, symbolic) = ldlt::analyse_in(size, entries, order.as_deref())?;
        let slot = |c: usize, r: usize| ldlt::slot(&matrix, c, r);
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
        let mut addition_slots = Vec::new();
        let mut first = 0;
        for band in 0..additions.len() {
            let k = additions.coordinates(band).len();
            addition_slots
                .extend(addition_pairs(band).map(|(i, uc, ur)| (first + i, slot(uc, ur))));
            first += k * k;
        }
        let (coordinates_added, starts_added) = additions.structure();
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
        let (order, position) = ldlt::order(&symbolic);
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
        // The coordinates' pivots are positive and the rows' negative (the matrix is
        // quasi-definite), but for a parametric object's coordinates: its block is kept as it
        // is, indefinite where a light link is compressed, and its pivots take their own sign.
        let mut signs = vec![1i8; n];
        for b in w.blocks() {
            for i in b.offset..b.offset + b.n {
                if unknown[i] != usize::MAX {
                    signs[unknown[i]] = 0;
                }
            }
        }
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
            additions: (coordinates_added.to_vec(), starts_added.to_vec()),
            addition_slots,
            mass_slots,
            signs,
        })
    }
}
