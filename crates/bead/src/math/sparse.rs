//! The block-sparse Jacobian `J` (seed 000 §4.2–4.3).
//!
//! Each constraint–body pair that interacts owns one dense block of `J`; every other block is zero
//! and not stored. As in faer's sparse matrices, the *pattern* (which blocks exist, where) is built
//! once when the model's structure changes, and only the *values* are rewritten at each
//! evaluation. Seed 000 §4.2 needs two operations, `J x` and `Jᵀ y`; the Gauss-Seidel and dense
//! solvers also read rows and assemble `J W Jᵀ`.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

/// One dense block of a [`BlockSparse`] matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Block {
    /// First row of the block.
    pub row: usize,
    /// First column of the block.
    pub col: usize,
    /// Number of rows.
    pub nrows: usize,
    /// Number of columns.
    pub ncols: usize,
    /// Start of the block's row-major values.
    pub offset: usize,
}

/// A block-sparse matrix whose blocks are grouped by row bands (one band per constraint).
///
/// ```
/// use bead::sparse::BlockSparse;
/// // Two constraints on three 2D particles: [a b 0; 0 c d].
/// let mut j = BlockSparse::new(6);
/// j.add_band(1, &[(0, 2), (2, 2)]);
/// j.add_band(1, &[(2, 2), (4, 2)]);
/// j.values_mut().copy_from_slice(&[1., 0., -1., 0., 0., 1., 0., -1.]);
/// let mut y = [0.0; 2];
/// j.mul(&[1., 2., 3., 4., 5., 6.], &mut y);
/// assert_eq!(y, [1. - 3., 4. - 6.]);
/// ```
#[derive(Clone, Debug, Default)]
pub struct BlockSparse {
    nrows: usize,
    ncols: usize,
    blocks: Vec<Block>,
    /// Row range and block range of each band.
    bands: Vec<(Range<usize>, Range<usize>)>,
    /// The band of each row.
    row_band: Vec<usize>,
    values: Vec<f64>,
    /// Names the pattern: a new one for each matrix made and each band added, kept by clones.
    structure: u64,
}

/// The last [`BlockSparse::structure`] handed out.
static STRUCTURES: AtomicU64 = AtomicU64::new(0);

fn new_structure() -> u64 {
    STRUCTURES.fetch_add(1, Ordering::Relaxed) + 1
}

impl BlockSparse {
    /// An empty matrix with `ncols` columns and no rows.
    pub fn new(ncols: usize) -> Self {
        BlockSparse {
            ncols,
            structure: new_structure(),
            ..Default::default()
        }
    }

    /// A number that names this matrix's pattern (its blocks): equal for two matrices only if
    /// one is a clone of the other since the last band either added, so a factorization's
    /// analysis can tell that it still fits without comparing every block.
    ///
    /// ```
    /// use bead::sparse::BlockSparse;
    /// let mut j = BlockSparse::new(4);
    /// j.add_band(1, &[(0, 2)]);
    /// let copy = j.clone();
    /// assert_eq!(copy.structure(), j.structure());
    /// j.add_band(1, &[(2, 2)]);
    /// assert_ne!(copy.structure(), j.structure());
    /// ```
    pub fn structure(&self) -> u64 {
        self.structure
    }

    /// Appends a band of `nrows` rows with one block per `(first column, column count)`.
    /// Returns the index of the band's first block.
    pub fn add_band(&mut self, nrows: usize, columns: &[(usize, usize)]) -> usize {
        let first = self.blocks.len();
        for &(col, ncols) in columns {
            debug_assert!(col + ncols <= self.ncols);
            self.blocks.push(Block {
                row: self.nrows,
                col,
                nrows,
                ncols,
                offset: self.values.len(),
            });
            self.values.resize(self.values.len() + nrows * ncols, 0.0);
        }
        self.row_band
            .extend(std::iter::repeat_n(self.bands.len(), nrows));
        self.bands
            .push((self.nrows..self.nrows + nrows, first..self.blocks.len()));
        self.nrows += nrows;
        self.structure = new_structure();
        first
    }

    /// Number of rows.
    pub fn nrows(&self) -> usize {
        self.nrows
    }

    /// Number of columns.
    pub fn ncols(&self) -> usize {
        self.ncols
    }

    /// The blocks, band by band.
    pub fn blocks(&self) -> &[Block] {
        &self.blocks
    }

    /// Row range and block range of each band.
    pub fn bands(&self) -> &[(Range<usize>, Range<usize>)] {
        &self.bands
    }

    /// All block values, block after block, each row-major.
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// Mutable block values, for refilling at each evaluation.
    pub fn values_mut(&mut self) -> &mut [f64] {
        &mut self.values
    }

    /// Values of block `b`, row-major.
    pub fn block_values(&self, b: usize) -> &[f64] {
        let blk = &self.blocks[b];
        &self.values[blk.offset..blk.offset + blk.nrows * blk.ncols]
    }

    /// Mutable values of block `b`, row-major.
    pub fn block_values_mut(&mut self, b: usize) -> &mut [f64] {
        let blk = self.blocks[b];
        &mut self.values[blk.offset..blk.offset + blk.nrows * blk.ncols]
    }

    /// `y = J x`.
    pub fn mul(&self, x: &[f64], y: &mut [f64]) {
        y.fill(0.0);
        for blk in &self.blocks {
            let vals = &self.values[blk.offset..blk.offset + blk.nrows * blk.ncols];
            // A particle's or a planar body's block has 2 or 3 columns: spelled out at that
            // width, each row is a few multiply-adds rather than a loop of unknown length.
            match blk.ncols {
                2 => mul_block::<2>(blk, vals, x, y),
                3 => mul_block::<3>(blk, vals, x, y),
                _ => {
                    let xs = &x[blk.col..blk.col + blk.ncols];
                    for (r, row) in vals.chunks_exact(blk.ncols).enumerate() {
                        y[blk.row + r] += row.iter().zip(xs).map(|(a, b)| a * b).sum::<f64>();
                    }
                }
            }
        }
    }

    /// `x = Jᵀ y`.
    pub fn mul_transpose(&self, y: &[f64], x: &mut [f64]) {
        self.mul_transpose_rows(y, None, x);
    }

    /// `x = Jᵀ y` using only the rows where `rows` is true (all rows for `None`).
    pub fn mul_transpose_rows(&self, y: &[f64], rows: Option<&[bool]>, x: &mut [f64]) {
        x.fill(0.0);
        for blk in &self.blocks {
            let vals = &self.values[blk.offset..blk.offset + blk.nrows * blk.ncols];
            match blk.ncols {
                2 => mul_transpose_block::<2>(blk, vals, y, rows, x),
                3 => mul_transpose_block::<3>(blk, vals, y, rows, x),
                _ => {
                    for (r, row) in vals.chunks_exact(blk.ncols).enumerate() {
                        if rows.is_some_and(|m| !m[blk.row + r]) {
                            continue;
                        }
                        let yr = y[blk.row + r];
                        if yr != 0.0 {
                            for (xc, a) in x[blk.col..blk.col + blk.ncols].iter_mut().zip(row) {
                                *xc += a * yr;
                            }
                        }
                    }
                }
            }
        }
    }

    /// Row `i` as `(first column, coefficients)` pieces, one per block of its band.
    ///
    /// ```
    /// use bead::sparse::BlockSparse;
    /// let mut j = BlockSparse::new(6);
    /// j.add_band(1, &[(0, 2), (2, 2)]);
    /// j.add_band(1, &[(2, 2), (4, 2)]);
    /// j.values_mut().copy_from_slice(&[1., 0., -1., 0., 0., 1., 0., -1.]);
    /// let pieces: Vec<_> = j.row(1).collect();
    /// assert_eq!(pieces, [(2, &[0., 1.][..]), (4, &[0., -1.][..])]);
    /// ```
    pub fn row(&self, i: usize) -> impl Iterator<Item = (usize, &[f64])> + '_ {
        self.band_row(self.row_band[i], i)
    }

    /// Row `i` of band `band` as `(first column, coefficients)` pieces, one per block.
    pub fn band_row(&self, band: usize, i: usize) -> impl Iterator<Item = (usize, &[f64])> + '_ {
        let (rows, blocks) = &self.bands[band];
        let r = i - rows.start;
        self.blocks[blocks.clone()].iter().map(move |blk| {
            let start = blk.offset + r * blk.ncols;
            (blk.col, &self.values[start..start + blk.ncols])
        })
    }
}

/// `y += B x` for one block `B` of `N` columns, in the general loop's order of operations.
#[inline(always)]
fn mul_block<const N: usize>(blk: &Block, vals: &[f64], x: &[f64], y: &mut [f64]) {
    let xs = &x[blk.col..blk.col + N];
    if vals.len() == N {
        // One row: no row count to divide out.
        y[blk.row] += vals.iter().zip(xs).map(|(a, b)| a * b).sum::<f64>();
        return;
    }
    for (r, row) in vals.chunks_exact(N).enumerate() {
        y[blk.row + r] += row.iter().zip(xs).map(|(a, b)| a * b).sum::<f64>();
    }
}

/// `x += Bᵀ y` for one block `B` of `N` columns (the rows `rows` marks), in the general loop's
/// order of operations.
#[inline(always)]
fn mul_transpose_block<const N: usize>(
    blk: &Block,
    vals: &[f64],
    y: &[f64],
    rows: Option<&[bool]>,
    x: &mut [f64],
) {
    let xs = &mut x[blk.col..blk.col + N];
    if vals.len() == N {
        // One row (a rod's block on a particle): no row count to divide out.
        let yr = y[blk.row];
        if yr != 0.0 && rows.is_none_or(|m| m[blk.row]) {
            for (xc, a) in xs.iter_mut().zip(vals) {
                *xc += a * yr;
            }
        }
        return;
    }
    for (r, row) in vals.chunks_exact(N).enumerate() {
        if rows.is_some_and(|m| !m[blk.row + r]) {
            continue;
        }
        let yr = y[blk.row + r];
        if yr != 0.0 {
            for (xc, a) in xs.iter_mut().zip(row) {
                *xc += a * yr;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `(J x)·y = x·(Jᵀ y)` for a random-looking pattern.
    #[test]
    fn transpose_is_adjoint() {
        let mut j = BlockSparse::new(7);
        j.add_band(2, &[(0, 3), (5, 2)]);
        j.add_band(1, &[(3, 2)]);
        j.add_band(3, &[(0, 3), (3, 2), (5, 2)]);
        for (i, v) in j.values_mut().iter_mut().enumerate() {
            *v = ((i * 37 % 11) as f64 - 5.0) / 3.0;
        }
        let x: Vec<f64> = (0..7).map(|i| (i as f64).sin()).collect();
        let y: Vec<f64> = (0..6).map(|i| (i as f64 * 1.7).cos()).collect();
        let mut jx = vec![0.0; 6];
        let mut jty = vec![0.0; 7];
        j.mul(&x, &mut jx);
        j.mul_transpose(&y, &mut jty);
        let lhs: f64 = jx.iter().zip(&y).map(|(a, b)| a * b).sum();
        let rhs: f64 = x.iter().zip(&jty).map(|(a, b)| a * b).sum();
        assert!((lhs - rhs).abs() < 1e-12);
        // Rows read back as the same numbers J x used.
        let row_dot: f64 = j
            .band_row(2, 4)
            .map(|(c, a)| a.iter().zip(&x[c..]).map(|(p, q)| p * q).sum::<f64>())
            .sum();
        assert!((row_dot - jx[4]).abs() < 1e-12);
    }
}
