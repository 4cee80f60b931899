//! Sparse direct solve of `J W Jᵀ λ = b`: an LDLᵀ factorization whose symbolic analysis (the
//! fill-reducing AMD ordering and the factor's pattern) is done once per model structure and
//! reused at every evaluation (the "pattern and values apart" idea of seed 000 §4.3 carried
//! through to the factor).
//!
//! Why a direct solve next to conjugate gradient: `J W Jᵀ` of a mesh (a cloth, a net) behaves
//! like a graph Laplacian, whose condition number grows with the square of the mesh's width, so
//! CG's iteration count grows with the width too (thousands of iterations on a 30×30 cloth at a
//! relative residual of 1e-8). The factor of the same matrix has `O(m log m)` entries on such a
//! mesh and costs about as much as a few dozen CG iterations, with a residual near rounding.
//!
//! The entries of `J W Jᵀ` are sums over bodies: rows `i` and `j` couple through every body both
//! constraints touch, `(J W Jᵀ)ᵢⱼ = Σ_bodies Jᵢ,body W_body Jⱼ,bodyᵀ`. Each such product is a
//! *contribution*; their list, and the slot of the stored lower triangle each one adds to, are
//! part of the cached pattern, so refilling the values is one pass over it.
//!
//! Redundant constraints make `J W Jᵀ` singular. A pivot that vanishes (relative to the largest
//! diagonal entry) is replaced by a huge one, which drops its row from the elimination: its λ is
//! 0 and the rows it depends on carry its load. For a consistent system the dropped row's
//! equation follows from the others, so λ is exact with the right constraint force; for an
//! inconsistent one (redundant contacts whose targets disagree slightly) the other rows still
//! hold exactly and the disagreement stays on the dropped row, a bounded answer rather than the
//! huge one a small replacement pivot would give. Every solution is checked by its residual (and
//! refined); when rounding on a nearly singular matrix spoils it, conjugate gradient finishes the
//! solve. A residual that remains is reported as [`SolveError::Inconsistent`], with that answer
//! left in λ. Rows left out by a mask become unit rows with λ = 0, so the pattern does not change
//! when inequality constraints enter or leave.

use faer::dyn_stack::MemBuffer;
use faer::sparse::SymbolicSparseColMat;
use faer::sparse::linalg::cholesky::SymbolicCholesky;

use super::ldlt::{self, Pivots};
use super::{LinearSolver, MultiplierMatrix, SolveError, SolveInfo, SolveParams, norm};
use crate::math::sparse::{Block, BlockSparse};

/// Sparse LDLᵀ of `J W Jᵀ`, with the symbolic factorization reused while the structure holds.
///
/// ```
/// use bead::{constraint::Distance, force::Gravity, solve::SparseLdlt, Particle, System};
/// let mut sys = System::new(2)?;
/// sys.set_solver(SparseLdlt::default());
/// let pivot = sys.add_particle(Particle::anchor(&[0.0, 0.0]))?;
/// let bob = sys.add_particle(Particle::new(&[1.0, 0.0]))?;
/// sys.add_force(Gravity::new(&[0.0, -9.81]))?;
/// sys.add_constraint(Distance::new(pivot, bob, 1.0))?;
/// sys.step(1e-3).expect("a pendulum steps");
/// assert_eq!(sys.last_solver_iterations(), 1);
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Default)]
pub struct SparseLdlt {
    pattern: Option<Pattern>,
    /// The stored lower triangle of `J W Jᵀ`, in the pattern's column-major order.
    values: Vec<f64>,
    /// The factor's values (L below the diagonal, D on it).
    factor: Vec<f64>,
    workspace: Option<MemBuffer>,
    residual: Vec<f64>,
    correction: Vec<f64>,
    tmp: Vec<f64>,
    /// The λ the caller passed in, for the fallback.
    warm_start: Vec<f64>,
    /// The direct solve's answer, kept while the fallback tries.
    direct: Vec<f64>,
    fallback: super::ConjugateGradient,
}

impl std::fmt::Debug for SparseLdlt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SparseLdlt")
            .field("rows", &self.pattern.as_ref().map(|p| p.diagonal.len()))
            .field("factor_entries", &self.factor.len())
            .finish_non_exhaustive()
    }
}

impl Clone for SparseLdlt {
    /// A fresh solver: the cached analysis belongs to one model and is cheap to redo.
    fn clone(&self) -> Self {
        SparseLdlt::default()
    }
}

/// Everything that depends only on which blocks of `J` exist, and on which of them act on
/// bodies that can move.
#[derive(Debug)]
struct Pattern {
    /// The blocks the analysis was made for; a different list means a new structure.
    blocks: Vec<Block>,
    /// Whether each block's body is an anchor (`W = 0` over its columns): it couples no rows.
    anchored: Vec<bool>,
    /// Lower triangle of `J W Jᵀ`, diagonal included.
    matrix: SymbolicSparseColMat<usize>,
    symbolic: SymbolicCholesky<usize>,
    contributions: Vec<Contribution>,
    /// Slot of each diagonal entry.
    diagonal: Vec<usize>,
    /// The sign every pivot must have: `J W Jᵀ` is positive semi-definite.
    signs: Vec<i8>,
}

/// One term `J_p[r] · W · J_q[s]` of entry `(i, j)` of `J W Jᵀ`, where row `i` is row `r` of
/// block `p`, row `j` row `s` of block `q`, and both blocks cover the same body.
#[derive(Clone, Copy, Debug)]
struct Contribution {
    p: usize,
    r: usize,
    q: usize,
    s: usize,
    slot: usize,
}

/// Pivots below this fraction of the largest diagonal entry are treated as zero (redundancy),
/// and replaced by the largest diagonal entry divided by it (which drops their row).
const PIVOT_RATIO: f64 = 1e-11;
/// Relative residual of the direct solve below which what is left is taken for the disagreement
/// of redundant rows, not for rounding: conjugate gradient then only polishes the direct answer.
const ROUNDING_SPOILT: f64 = 1e-6;
/// Iterations of that polish at most.
const POLISH_ITERATIONS: usize = 100;
/// Steps of iterative refinement at most when the first solve misses the tolerance.
const REFINEMENTS: usize = 3;

/// Whether each block of `j` acts on columns where `W` is zero: an anchor, whose rows share no
/// term of `J W Jᵀ` through it (k rods on one nail would otherwise make a dense k × k block).
fn anchored_blocks<'a>(j: &'a BlockSparse, w: &'a [f64]) -> impl Iterator<Item = bool> + 'a {
    j.blocks()
        .iter()
        .map(move |b| w[b.col..b.col + b.ncols].iter().all(|x| *x == 0.0))
}

impl Pattern {
    fn analyse(j: &BlockSparse, w: &[f64]) -> Result<Pattern, SolveError> {
        let m = j.nrows();
        let blocks = j.blocks();
        let anchored: Vec<bool> = anchored_blocks(j, w).collect();
        // Blocks over the same body couple their rows, unless the body cannot move.
        let mut by_body: Vec<usize> = (0..blocks.len()).filter(|&b| !anchored[b]).collect();
        by_body.sort_by_key(|&b| (blocks[b].col, blocks[b].row));
        let mut terms: Vec<(usize, usize, Contribution)> = Vec::new();
        for group in by_body.chunk_by(|&x, &y| blocks[x].col == blocks[y].col) {
            for &p in group {
                for &q in group {
                    let (bp, bq) = (blocks[p], blocks[q]);
                    for r in 0..bp.nrows {
                        for s in 0..bq.nrows {
                            let (i, jj) = (bp.row + r, bq.row + s);
                            if i >= jj {
                                terms.push((
                                    jj,
                                    i,
                                    Contribution {
                                        p,
                                        r,
                                        q,
                                        s,
                                        slot: 0,
                                    },
                                ));
                            }
                        }
                    }
                }
            }
        }
        let entries = terms.iter().map(|(c, r, _)| (*c, *r)).collect();
        let (matrix, symbolic) = ldlt::analyse(m, entries)?;
        let contributions = terms
            .iter()
            .map(|&(c, r, t)| Contribution {
                slot: ldlt::slot(&matrix, c, r),
                ..t
            })
            .collect();
        let diagonal = (0..m).map(|i| ldlt::slot(&matrix, i, i)).collect();
        Ok(Pattern {
            blocks: blocks.to_vec(),
            anchored,
            matrix,
            symbolic,
            contributions,
            diagonal,
            signs: vec![1; m],
        })
    }
}

impl SparseLdlt {
    /// Makes sure the cached analysis fits `j`'s structure (and which bodies are anchors);
    /// redoes it when that changed.
    fn pattern_for(&mut self, j: &BlockSparse, w: &[f64]) -> Result<(), SolveError> {
        if self.pattern.as_ref().is_some_and(|p| {
            p.blocks == j.blocks() && anchored_blocks(j, w).eq(p.anchored.iter().copied())
        }) {
            return Ok(());
        }
        let pattern = Pattern::analyse(j, w)?;
        self.values.resize(pattern.matrix.row_idx().len(), 0.0);
        self.factor.resize(pattern.symbolic.len_val(), 0.0);
        let m = j.nrows();
        self.workspace = Some(ldlt::workspace(&pattern.symbolic));
        self.residual.resize(m, 0.0);
        self.correction.resize(m, 0.0);
        self.pattern = Some(pattern);
        Ok(())
    }

    /// Refills the stored lower triangle of `J W Jᵀ`; returns its largest diagonal entry.
    fn assemble(&mut self, a: &MultiplierMatrix<'_>) -> f64 {
        let Some(pattern) = &self.pattern else {
            return 0.0;
        };
        let (j, w) = (a.jacobian(), a.inv_mass());
        self.values.fill(0.0);
        for t in &pattern.contributions {
            let (bp, bq) = (&j.blocks()[t.p], &j.blocks()[t.q]);
            if !a.includes(bp.row + t.r) || !a.includes(bq.row + t.s) {
                continue;
            }
            let rp = &j.block_values(t.p)[t.r * bp.ncols..(t.r + 1) * bp.ncols];
            let rq = &j.block_values(t.q)[t.s * bq.ncols..(t.s + 1) * bq.ncols];
            self.values[t.slot] += w.weighted_dot(bp.col, rp, rq);
        }
        let mut max_diagonal = 0.0_f64;
        for (i, &d) in pattern.diagonal.iter().enumerate() {
            if !a.includes(i) {
                self.values[d] = 1.0;
            }
            max_diagonal = max_diagonal.max(self.values[d]);
        }
        max_diagonal
    }
}

impl SparseLdlt {
    /// Factors `J W Jᵀ` and solves for λ with a few steps of iterative refinement; returns the
    /// residual norm reached. `lambda` is overwritten.
    fn factor_and_solve(
        &mut self,
        a: &MultiplierMatrix<'_>,
        b: &[f64],
        lambda: &mut [f64],
        threshold: f64,
    ) -> Result<f64, SolveError> {
        self.pattern_for(a.jacobian(), a.inv_mass().diagonal())?;
        let max_diagonal = self.assemble(a);
        if !self.values.iter().all(|v| v.is_finite()) {
            return Err(SolveError::NonFinite);
        }
        let (Some(pattern), Some(workspace)) = (&self.pattern, &mut self.workspace) else {
            return Err(SolveError::NonFinite);
        };
        let scale = max_diagonal.max(f64::MIN_POSITIVE);
        let pivots = Pivots {
            signs: &pattern.signs,
            delta: scale / PIVOT_RATIO,
            epsilon: PIVOT_RATIO * scale,
        };
        let factor = ldlt::factor(
            &pattern.symbolic,
            &pattern.matrix,
            &self.values,
            &mut self.factor,
            pivots,
            workspace,
        )?;
        for (i, (l, bi)) in lambda.iter_mut().zip(b).enumerate() {
            *l = if a.includes(i) { *bi } else { 0.0 };
        }
        ldlt::solve(factor, lambda, workspace);
        self.tmp.resize(a.inv_mass().len(), 0.0);
        let mut residual = f64::INFINITY;
        for refinement in 0..=REFINEMENTS {
            if !lambda.iter().all(|v| v.is_finite()) {
                return Ok(f64::INFINITY);
            }
            a.apply(lambda, &mut self.residual, &mut self.tmp);
            for (i, (r, bi)) in self.residual.iter_mut().zip(b).enumerate() {
                *r = if a.includes(i) { bi - *r } else { 0.0 };
            }
            residual = norm(&self.residual);
            if residual <= threshold || refinement == REFINEMENTS {
                break;
            }
            self.correction.copy_from_slice(&self.residual);
            ldlt::solve(factor, &mut self.correction, workspace);
            for (l, c) in lambda.iter_mut().zip(&self.correction) {
                *l += c;
            }
        }
        Ok(residual)
    }
}

impl LinearSolver for SparseLdlt {
    fn name(&self) -> &'static str {
        "sparse"
    }

    fn solve(
        &mut self,
        a: &MultiplierMatrix<'_>,
        b: &[f64],
        lambda: &mut [f64],
        params: &SolveParams,
    ) -> Result<SolveInfo, SolveError> {
        if !b.iter().all(|v| v.is_finite()) {
            return Err(SolveError::NonFinite);
        }
        if a.size() == 0 {
            return Ok(SolveInfo::default());
        }
        let b_norm = norm(b);
        if b_norm == 0.0 {
            lambda.fill(0.0);
            return Ok(SolveInfo::default());
        }
        self.warm_start.clear();
        self.warm_start.extend_from_slice(lambda);
        let threshold = params.threshold(b_norm);
        let residual = self.factor_and_solve(a, b, lambda, threshold)?;
        if residual <= params.consistency_threshold(b_norm) {
            return Ok(SolveInfo {
                iterations: 1,
                residual: residual / b_norm,
            });
        }
        let inconsistent = SolveError::Inconsistent {
            residual: residual / b_norm,
        };
        self.direct.clear();
        self.direct.extend_from_slice(lambda);
        let fallback = if residual <= ROUNDING_SPOILT * b_norm {
            // Redundant rows whose targets disagree slightly: the direct answer satisfies the
            // independent rows and leaves the disagreement on the dropped ones; the least-squares
            // answer spreads it and can be within the tolerance where this is not. A few
            // iterations of conjugate gradient from the direct answer find out.
            SolveParams {
                max_iterations: Some(POLISH_ITERATIONS),
                ..*params
            }
        } else {
            // Nearly redundant constraints: a genuinely small pivot makes large entries in L, and
            // the rounding they carry can leave a pivot that should vanish just above the
            // threshold, which spoils the solution. Conjugate gradient tolerates a semi-definite
            // J W Jᵀ (seed 000 §4.4): let it finish from the previous λ.
            if !self.warm_start.iter().all(|v| v.is_finite()) {
                self.warm_start.fill(0.0);
            }
            lambda.copy_from_slice(&self.warm_start);
            *params
        };
        // If conjugate gradient does not reach the tolerance either, the direct answer stays:
        // its iterates on a singular system can carry large multipliers along near-null
        // directions at a small residual, while the direct answer is bounded.
        match self.fallback.solve(a, b, lambda, &fallback) {
            Ok(info) => Ok(SolveInfo {
                iterations: 1 + info.iterations,
                residual: info.residual,
            }),
            Err(SolveError::Inconsistent { .. } | SolveError::NoConvergence { .. })
                if residual.is_finite() =>
            {
                lambda.copy_from_slice(&self.direct);
                Err(inconsistent)
            }
            Err(e) => Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solve::Dense;

    /// `n` rods from one anchor (W = 0) to `n` free particles: a fan.
    fn fan(n: usize) -> (BlockSparse, crate::solve::InverseMass) {
        let mut j = BlockSparse::new(2 + 2 * n);
        for k in 0..n {
            let b = j.add_band(1, &[(0, 2), (2 + 2 * k, 2)]);
            let a = k as f64 * 0.1;
            j.block_values_mut(b).copy_from_slice(&[-a.cos(), -a.sin()]);
            j.block_values_mut(b + 1)
                .copy_from_slice(&[a.cos(), a.sin()]);
        }
        let mut w = vec![1.0; 2 + 2 * n];
        w[..2].fill(0.0);
        (j, crate::solve::InverseMass::diagonal_of(w))
    }

    /// The rods share only the anchor, which cannot move: J W Jᵀ is diagonal, and so is the
    /// factor — its size grows like n, not n² (the anchor's blocks used to couple every pair).
    #[test]
    fn rods_on_one_anchor_make_a_linear_pattern() {
        let mut sizes = Vec::new();
        for n in [100, 200] {
            let (j, w) = fan(n);
            let a = MultiplierMatrix::new(&j, &w);
            let b: Vec<f64> = (0..n).map(|k| (k as f64).sin()).collect();
            let mut solver = SparseLdlt::default();
            let mut lambda = vec![0.0; n];
            solver
                .solve(&a, &b, &mut lambda, &SolveParams::default())
                .unwrap_or_else(|e| panic!("{e}"));
            let mut dense = vec![0.0; n];
            Dense::default()
                .solve(&a, &b, &mut dense, &SolveParams::default())
                .unwrap_or_else(|e| panic!("{e}"));
            for (x, y) in lambda.iter().zip(&dense) {
                assert!((x - y).abs() < 1e-12);
            }
            let stored = solver
                .pattern
                .as_ref()
                .map_or(0, |p| p.matrix.row_idx().len());
            assert_eq!(stored, n, "J W Jᵀ stores its diagonal only");
            sizes.push(solver.factor.len());
        }
        assert!(sizes[1] <= 2 * sizes[0] + 2, "factor sizes {sizes:?}");
    }
}
