//! The sparse LDLᵀ both direct solvers use ([`super::SparseLdlt`] on `J W Jᵀ`, [`super::kkt`] on
//! the implicit steppers' KKT matrix), over faer: the stored lower triangle of a symmetric
//! matrix in compressed columns and its symbolic factor in a fill-reducing (AMD) order or one
//! the caller gives, made once per structure (each solve only refills values at the slots
//! [`slot`] finds); the numeric factorization with pivots of known sign; and the solves.

use faer::dyn_stack::{MemBuffer, MemStack, StackReq};
use faer::linalg::cholesky::ldlt::factor::LdltRegularization;
use faer::perm::PermRef;
use faer::sparse::linalg::amd;
use faer::sparse::linalg::cholesky::simplicial::SimplicialLdltRef;
use faer::sparse::linalg::cholesky::{
    CholeskySymbolicParams, LdltRef, SymbolicCholesky, SymbolicCholeskyRaw, SymmetricOrdering,
    factorize_symbolic_cholesky,
};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMat};
use faer::{Conj, MatMut, Par, Side};

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

/// The scratch one numeric factorization and one single-column solve with `symbolic` need.
pub(crate) fn workspace(symbolic: &SymbolicCholesky<usize>) -> MemBuffer {
    MemBuffer::new(StackReq::any_of(&[
        symbolic.factorize_numeric_ldlt_scratch::<f64>(Par::Seq, Default::default()),
        symbolic.solve_in_place_scratch::<f64>(1, Par::Seq),
    ]))
}

/// How the pivots of a factorization are kept from vanishing: each must have the sign
/// [`Pivots::signs`] gives its unknown, and one of the wrong sign or smaller in size than
/// [`Pivots::epsilon`] is replaced by [`Pivots::delta`] with that sign, which drops its row
/// from the elimination (the row of a redundant constraint).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pivots<'a> {
    pub(crate) signs: &'a [i8],
    pub(crate) delta: f64,
    pub(crate) epsilon: f64,
}

/// Factors the lower triangle `values`, on `matrix`'s pattern, into `factor` as LDLᵀ in
/// `symbolic`'s order, with `pivots` kept as they say.
pub(crate) fn factor<'a>(
    symbolic: &'a SymbolicCholesky<usize>,
    matrix: &SymbolicSparseColMat<usize>,
    values: &[f64],
    factor: &'a mut [f64],
    pivots: Pivots<'_>,
    workspace: &mut MemBuffer,
) -> Result<LdltRef<'a, usize, f64>, SolveError> {
    let regularization = LdltRegularization {
        dynamic_regularization_signs: Some(pivots.signs),
        dynamic_regularization_delta: pivots.delta,
        dynamic_regularization_epsilon: pivots.epsilon,
    };
    let matrix = SparseColMatRef::new(matrix.as_ref(), values);
    let result = symbolic.factorize_numeric_ldlt(
        factor,
        matrix,
        Side::Lower,
        regularization,
        Par::Seq,
        MemStack::new(workspace),
        Default::default(),
    );
    crate::math::vector_state::clear_upper_state();
    result.map_err(|_| SolveError::NonFinite)
}

/// Solves `L D Lᵀ x = b` in place (`x` holds `b` on entry), in the unknowns' own order.
pub(crate) fn solve(ldlt: LdltRef<'_, usize, f64>, x: &mut [f64], workspace: &mut MemBuffer) {
    let n = x.len();
    ldlt.solve_in_place_with_conj(
        Conj::No,
        MatMut::from_column_major_slice_mut(x, n, 1),
        Par::Seq,
        MemStack::new(workspace),
    );
    crate::math::vector_state::clear_upper_state();
}

/// The order in which [`solve_in_order`] takes a right-hand side and gives the solution, and
/// each unknown's position in it: a simplicial factor's fill-reducing order (so that a caller
/// who gathers its right-hand side in that order saves faer's two permutation passes), or the
/// unknowns' own for a factor that orders itself.
pub(crate) fn order(symbolic: &SymbolicCholesky<usize>) -> (Vec<usize>, Vec<usize>) {
    let size = symbolic.nrows();
    match (symbolic.raw(), symbolic.perm()) {
        (SymbolicCholeskyRaw::Simplicial(_), Some(perm)) => {
            let (forward, inverse) = perm.arrays();
            (forward.to_vec(), inverse.to_vec())
        }
        _ => ((0..size).collect(), (0..size).collect()),
    }
}

/// Solves in place as [`solve`] does, with `x` in the [`order`] of `symbolic`'s factor.
pub(crate) fn solve_in_order(
    symbolic: &SymbolicCholesky<usize>,
    factor: &[f64],
    x: &mut [f64],
    workspace: &mut MemBuffer,
) {
    let n = x.len();
    let rhs = MatMut::from_column_major_slice_mut(x, n, 1);
    let stack = MemStack::new(workspace);
    match (symbolic.raw(), symbolic.perm()) {
        (SymbolicCholeskyRaw::Simplicial(simplicial), Some(_)) => {
            SimplicialLdltRef::new(simplicial, factor).solve_in_place_with_conj(
                Conj::No,
                rhs,
                Par::Seq,
                stack,
            );
        }
        _ => {
            LdltRef::new(symbolic, factor).solve_in_place_with_conj(Conj::No, rhs, Par::Seq, stack);
        }
    }
    crate::math::vector_state::clear_upper_state();
}
