//! The pattern shared by the sparse direct solvers: the stored lower triangle of a symmetric
//! matrix in compressed columns, and its symbolic LDLᵀ factor in a fill-reducing (AMD) order or
//! one the caller gives.
//! Made once per structure; each solve only refills values at the slots [`slot`] finds.

use faer::Side;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::perm::PermRef;
use faer::sparse::SymbolicSparseColMat;
use faer::sparse::linalg::amd;
use faer::sparse::linalg::cholesky::{
    CholeskySymbolicParams, SymbolicCholesky, SymmetricOrdering, factorize_symbolic_cholesky,
};

use super::SolveError;

/// The lower triangle with entries at `(column, row)` (row ≥ column; duplicates allowed) and
/// every diagonal entry of a `size × size` matrix, with its symbolic factor in AMD order.
pub(crate) fn analyse(
    size: usize,
    entries: Vec<(usize, usize)>,
) -> Result<(SymbolicSparseColMat<usize>, SymbolicCholesky<usize>), SolveError> {
    analyse_in(size, entries, None)
}

/// [`analyse`], eliminating in the order `order` (the unknowns, first eliminated first) when
/// given, else in AMD order.
pub(crate) fn analyse_in(
    size: usize,
    entries: Vec<(usize, usize)>,
    order: Option<&[usize]>,
) -> Result<(SymbolicSparseColMat<usize>, SymbolicCholesky<usize>), SolveError> {
    let matrix = compressed(size, entries);
    let inverse = order.map(|order| {
        let mut inverse = vec![0; size];
        for (position, &unknown) in order.iter().enumerate() {
            inverse[unknown] = position;
        }
        inverse
    });
    let ordering = match (order, &inverse) {
        (Some(order), Some(inverse)) => {
            SymmetricOrdering::Custom(PermRef::new_checked(order, inverse, size))
        }
        _ => SymmetricOrdering::Amd,
    };
    let symbolic = factorize_symbolic_cholesky(
        matrix.as_ref(),
        Side::Lower,
        ordering,
        CholeskySymbolicParams::default(),
    )
    .map_err(|_| SolveError::NonFinite)?;
    Ok((matrix, symbolic))
}

/// The lower triangle with entries at `(column, row)` (duplicates allowed) and every diagonal
/// entry, in compressed columns with sorted rows.
fn compressed(size: usize, mut entries: Vec<(usize, usize)>) -> SymbolicSparseColMat<usize> {
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
    SymbolicSparseColMat::new_checked(size, size, col_ptr, None, row_idx)
}

/// The approximate-minimum-degree order of the symmetric pattern whose lower triangle has the
/// entries `(column, row)`: the unknowns, first eliminated first.
pub(crate) fn amd_order(
    size: usize,
    entries: Vec<(usize, usize)>,
) -> Result<Vec<usize>, SolveError> {
    let matrix = compressed(size, entries);
    let (mut order, mut inverse) = (vec![0; size], vec![0; size]);
    let mut memory = MemBuffer::new(amd::order_scratch::<usize>(size, matrix.row_idx().len()));
    amd::order(
        &mut order,
        &mut inverse,
        matrix.as_ref(),
        amd::Control::default(),
        MemStack::new(&mut memory),
    )
    .map_err(|_| SolveError::NonFinite)?;
    Ok(order)
}

/// Index in the values of entry `(column c, row r)`, which must be stored.
pub(crate) fn slot(matrix: &SymbolicSparseColMat<usize>, c: usize, r: usize) -> usize {
    let (col_ptr, row_idx) = (matrix.col_ptr(), matrix.row_idx());
    let rows = &row_idx[col_ptr[c]..col_ptr[c + 1]];
    col_ptr[c] + rows.partition_point(|&x| x < r)
}
