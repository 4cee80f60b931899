//! The pattern shared by the sparse direct solvers: the stored lower triangle of a symmetric
//! matrix in compressed columns, and its symbolic LDLᵀ factor in a fill-reducing (AMD) order.
//! Made once per structure; each solve only refills values at the slots [`slot`] finds.

use faer::Side;
use faer::sparse::SymbolicSparseColMat;
use faer::sparse::linalg::cholesky::{
    CholeskySymbolicParams, SymbolicCholesky, SymmetricOrdering, factorize_symbolic_cholesky,
};

use super::SolveError;

/// The lower triangle with entries at `(column, row)` (row ≥ column; duplicates allowed) and
/// every diagonal entry of a `size × size` matrix, with its symbolic factor.
pub(crate) fn analyse(
    size: usize,
    mut entries: Vec<(usize, usize)>,
) -> Result<(SymbolicSparseColMat<usize>, SymbolicCholesky<usize>), SolveError> {
    // Every diagonal entry exists, so that rows with nothing else still get a pivot.
    entries.extend((0..size).map(|i| (i, i)));
    entries.sort_unstable();
    entries.dedup();
    let mut col_ptr = vec![0usize; size + 1];
    for &(c, _) in &entries {
        col_ptr[c + 1] += 1;
    }
    for c in 0..size {
        col_ptr[c + 1] += col_ptr[c];
    }
    let row_idx: Vec<usize> = entries.iter().map(|&(_, r)| r).collect();
    let matrix = SymbolicSparseColMat::new_checked(size, size, col_ptr, None, row_idx);
    let symbolic = factorize_symbolic_cholesky(
        matrix.as_ref(),
        Side::Lower,
        SymmetricOrdering::Amd,
        CholeskySymbolicParams::default(),
    )
    .map_err(|_| SolveError::NonFinite)?;
    Ok((matrix, symbolic))
}

/// Index in the values of entry `(column c, row r)`, which must be stored.
pub(crate) fn slot(matrix: &SymbolicSparseColMat<usize>, c: usize, r: usize) -> usize {
    let (col_ptr, row_idx) = (matrix.col_ptr(), matrix.row_idx());
    let rows = &row_idx[col_ptr[c]..col_ptr[c + 1]];
    col_ptr[c] + rows.partition_point(|&x| x < r)
}
