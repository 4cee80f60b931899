//! The Newton system of the implicit steppers in its augmented (KKT) form, seed 004 eq. 6:
//!
//! ```text
//! [ M + h² K̃   Jᵀ ] [ Δq ]   [ −M (q − q̃) ]
//! [ J         0  ] [ ν  ] = [ −r          ]      (ν = −h² λ)
//! ```
//!
//! `K̃` is the geometric stiffness, each constraint's part kept when it is positive
//! semi-definite (a rod in tension) or when the masses it touches outweigh it with every other
//! such part on them (a lightly compressed rod), and replaced by its positive diagonal bound
//! when neither (see [`stiffness`]), so the upper-left block stays positive definite and the
//! matrix quasi-definite: an LDLᵀ with `n` positive and `m` negative pivots exists in any symmetric
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

mod correction;
mod dense;
mod pattern;
mod stiffness;
#[cfg(test)]
mod tests;

use faer::dyn_stack::MemBuffer;

use super::ldlt::{self, Pivots};
use super::{Role, SolveError};
use crate::math::bands::Bands;
use crate::math::components::Components;
use crate::math::inverse_mass::InverseMass;
use crate::math::sparse::BlockSparse;
use correction::Correction;
use dense::DenseFactor;
use pattern::Pattern;
pub(crate) use stiffness::positive_semidefinite;
use stiffness::{DOMINATED_BELOW, bound_undominated, coupling_ratio, keep_definite};

/// Pivots below this (on the scaled matrix) are taken for redundancy.
const PIVOT_EPSILON: f64 = 1e-11;
/// The regularization `−δ I` of the constraint block (on the scaled matrix): with it the matrix
/// is quasi-definite and factors in the fill-reducing order (a zero block would give zero pivots
/// to the λ rows that order puts first). The Newton iteration removes its effect: its residuals
/// are those of the unregularized system.
const DELTA: f64 = 1e-10;

/// The largest weight of the held rows' proximal term in [`Kkt::solve`] (on the scaled matrix):
/// the regularization's own δ.
pub(crate) const PROXIMAL: f64 = DELTA;

/// The largest ratio of a coordinate's stiffness coupling to other bodies to its own mass,
/// `h² Σ|K̃_ab| / m_a`, below which the Newton matrix leaves that coupling out: a modified Newton
/// iteration then still gains about this factor an iteration.
const REDUCED_BELOW: f64 = 0.25;
/// The ratio above which a reduced Newton matrix takes the coupling back.
const COUPLED_ABOVE: f64 = 0.5;

/// Joins the movable coordinates (`diagonal` of `W` above zero) among `coordinates` in one set.
fn join_movable(sets: &mut Components, diagonal: &[f64], coordinates: impl Iterator<Item = usize>) {
    let mut first = None;
    for i in coordinates.filter(|&i| diagonal[i] > 0.0) {
        match first {
            None => first = Some(i),
            Some(f) => sets.join(f, i),
        }
    }
}

/// The geometric stiffness given to [`Kkt::factor`] is not finite.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct NonFiniteStiffness;

/// Sparse LDLᵀ of the implicit steppers' KKT matrix.
#[derive(Default)]
pub(crate) struct Kkt {
    pattern: Option<Pattern>,
    /// The pattern factored on before `pattern` (most often the other form, reduced or not),
    /// swapped back in when the matrix fits it again.
    spare: Option<Pattern>,
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
    /// The bands of `stiffness` whose `−h² K_c` is not positive semi-definite (scratch).
    indefinite: Vec<usize>,
    /// `stiffness` before the indefinite bands were bounded (scratch).
    exact: Vec<f64>,
    /// What the last factorization left out of the exact stiffness.
    correction: Correction,
    /// The added blocks of the factorization under way, bounded where not definite.
    added: Vec<f64>,
    /// Each unknown's diagonal of the mass alone, in the factorization under way (scratch).
    mass_diagonal: Vec<f64>,
    /// The largest ratio, over the coordinates, of the stiffness on the matrix's diagonal to
    /// the mass there, at the last factorization.
    stiffness_ratio: f64,
    /// The rows the factorization holds (their targets, not a fixed multiplier).
    held: Vec<bool>,
    /// The dense factor, when the last factorization was dense.
    dense: Option<DenseFactor>,
    /// The solve's right-hand side in the unknowns' own order (scratch of the dense solve).
    unknowns: Vec<f64>,
}

impl std::fmt::Debug for Kkt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kkt")
            .field("factor_entries", &self.factor.len())
            .finish_non_exhaustive()
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
    /// Factor the matrix dense ([`dense`]) rather than sparse: the model's `solver` is `dense`.
    pub(crate) dense: bool,
    /// Record what the factor leaves out of the exact stiffness ([`Kkt::add_correction`]), for
    /// a stepper that takes its Newton steps on the exact matrix.
    pub(crate) exact_steps: bool,
    /// Blocks added to the coordinates' block as they are: the applied forces' Jacobians
    /// `−ĥ² ∂Q/∂q − ĥ ∂Q/∂q̇` and the parametric objects' own blocks, each checked to be
    /// positive semi-definite unless known to be, and bounded where not.
    pub(crate) additions: &'a Bands,
}

impl Kkt {
    /// Whether the factorization under way leaves out the geometric stiffness between bodies:
    /// when it couples each coordinate to other bodies' by little against its own mass, the
    /// matrix without those terms is a close enough Newton matrix and factors into a fraction
    /// of the entries (the stiffness between neighbours is what fills the factor of a cloth),
    /// so the cheaper iterations win; a long chain's, thousands of times its links' masses,
    /// needs them. Hysteresis keeps the pattern from flickering at the threshold.
    fn choose_reduced(&mut self, j: &BlockSparse, inv_mass: &[f64]) -> bool {
        let ratio = coupling_ratio(
            j,
            inv_mass,
            (&self.stiffness, &self.stiffness_bands),
            &mut self.coupling,
        );
        self.reduced = if self.reduced {
            ratio <= COUPLED_ABOVE
        } else {
            ratio < REDUCED_BELOW
        };
        self.reduced
    }

    /// The largest ratio, over the coordinates, of the stiffness on the diagonal of the last
    /// factored matrix (`ĥ² K̃`, the forces' Jacobians) to the mass there: how much a change of
    /// `q` moves the forces against the inertia, and so how much the rounding of `q` moves the
    /// momentum residual.
    pub(crate) fn stiffness_ratio(&self) -> f64 {
        self.stiffness_ratio
    }

    /// Adds `E v` into `out`, `E` the geometric stiffness the last factorization left out
    /// (see [`correction`]); returns `false`, adding nothing, when it left out none.
    pub(crate) fn add_correction(&self, v: &[f64], out: &mut [f64]) -> bool {
        if self.correction.is_empty() {
            return false;
        }
        self.correction.apply(v, out);
        true
    }

    /// Whether a factor exists for a matrix of `j`'s structure and these movable coordinates,
    /// dense or not as `dense` says: a chord iteration may reuse it (with the added blocks of
    /// the last factorization, which only a fresh one brings up to date).
    pub(crate) fn has_factor_for(&self, j: &BlockSparse, inv_mass: &[f64], dense: bool) -> bool {
        self.factored
            && self.dense.is_some() == dense
            && self.pattern.as_ref().is_some_and(|p| {
                let additions = (p.additions.0.as_slice(), p.additions.1.as_slice());
                p.fits(j, inv_mass, additions)
            })
    }

    /// Assembles and factors the KKT matrix, with the geometric stiffness that `stiffness`
    /// gives per band (`K_c`, and whether `−K_c` is known positive semi-definite: see
    /// [`crate::assembly::stiffness`]). Fails with the error `stiffness` returns, or with a
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
        self.indefinite.clear();
        {
            let (values, bands) = (&mut self.stiffness, &mut self.stiffness_bands);
            let indefinite = &mut self.indefinite;
            stiffness(&mut |band: usize, k: &[f64], definite: Option<bool>| {
                let size = k.len().isqrt();
                let start = values.len();
                values.extend(k.iter().map(|x| -h2 * x));
                let newton = &values[start..];
                finite &= newton.iter().all(|x| x.is_finite());
                if !definite.unwrap_or_else(|| positive_semidefinite(newton, size, &mut cholesky)) {
                    indefinite.push(bands.len());
                }
                bands.push((band, start));
            })?;
        }
        if system.exact_steps {
            self.exact.clone_from(&self.stiffness);
        }
        if finite {
            // A matrix asked for because the iteration was slow bounds every compressed part:
            // kept as they are, heavy compressions short of the dominance's share (a whipping
            // cloth's buckling rows) left fresh factors gaining 3 % an iteration where the bound
            // converges.
            let share = if system.full_stiffness {
                0.0
            } else {
                DOMINATED_BELOW
            };
            bound_undominated(
                j,
                system.inv_mass,
                (&mut self.stiffness, &self.stiffness_bands, &self.indefinite),
                (share, &mut self.coupling),
            );
        }
        // The added blocks, each kept where positive semi-definite and bounded where not, as
        // the constraints' are.
        self.added.clear();
        self.added.extend_from_slice(system.additions.values());
        let mut first = 0;
        for band in 0..system.additions.len() {
            let size = system.additions.coordinates(band).len();
            let block = &mut self.added[first..first + size * size];
            first += size * size;
            finite &= block.iter().all(|x| x.is_finite());
            keep_definite(
                block,
                size,
                system.additions.definite(band).then_some(true),
                &mut cholesky,
            );
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
        if system.exact_steps {
            self.correction.record(
                j,
                (&self.exact, &self.stiffness),
                &self.stiffness_bands,
                reduced,
            );
        } else {
            self.correction.clear();
        }
        let additions = system.additions.structure();
        let fits = |p: &Option<Pattern>| {
            p.as_ref().is_some_and(|p| {
                p.fits(j, system.inv_mass.diagonal(), additions) && p.reduced == reduced
            })
        };
        if !fits(&self.pattern) {
            // The last pattern is kept: a resting pyramid's contacts cross the coupling
            // thresholds back and forth, and each crossing analysed the matrix again.
            if fits(&self.spare) {
                std::mem::swap(&mut self.pattern, &mut self.spare);
            } else {
                let pattern = Pattern::analyse(j, system.inv_mass, reduced, system.additions)?;
                self.spare = self.pattern.replace(pattern);
            }
            if let Some(pattern) = &self.pattern {
                self.values.resize(pattern.matrix.row_idx().len(), 0.0);
                self.factor.resize(pattern.symbolic.len_val(), 0.0);
                self.workspace = Some(ldlt::workspace(&pattern.symbolic));
            }
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
        self.mass_diagonal.clear();
        self.mass_diagonal
            .extend((0..n).map(|u| self.values[p.diagonal[u]]));
        for &(band, start) in &self.stiffness_bands {
            let stiffness = &self.stiffness[start..];
            for &(k, s) in &p.band_slots[p.band_starts[band]..p.band_starts[band + 1]] {
                self.values[s] += stiffness[k];
            }
        }
        for &(k, s) in &p.addition_slots {
            self.values[s] += self.added[k];
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
        self.stiffness_ratio = (0..n).fold(0.0_f64, |r, u| {
            r.max(self.values[p.diagonal[u]] / self.mass_diagonal[u] - 1.0)
        });
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
        self.held.clear();
        self.held.extend(system.roles.iter().map(Role::holds));
        for r in 0..m {
            self.values[p.diagonal[n + r]] -= DELTA;
            if let Role::Compliant(c) = system.roles[r] {
                self.values[p.diagonal[n + r]] -= c * self.scale[n + r] * self.scale[n + r];
            }
        }
        if !crate::math::vector::all_finite(&self.values) {
            return Err(SolveError::NonFinite.into());
        }
        let pivots = Pivots {
            signs: &p.signs,
            delta: 1.0 / PIVOT_EPSILON,
            epsilon: PIVOT_EPSILON,
        };
        if system.dense {
            self.dense = Some(DenseFactor::new(p, &self.values));
        } else {
            self.dense = None;
            ldlt::factor(
                &p.symbolic,
                &p.matrix,
                &self.values,
                &mut self.factor,
                pivots,
                workspace,
            )?;
        }
        self.factorizations += 1;
        self.factored = true;
        Ok(())
    }

    /// Labels each coordinate of `q` with the component of the last factored matrix it lies in
    /// (`usize::MAX` where nothing moves): coordinates with different labels share no entry of
    /// that matrix, directly or through other coordinates, so a solve with a right-hand side in
    /// one component is zero in every other. Joined are each block of `J`'s coordinates (one
    /// body's), every held row's bodies, a dense mass block's or an added block's coordinates,
    /// and, unless the matrix left it out, every band's with geometric stiffness.
    pub(crate) fn components(
        &self,
        j: &BlockSparse,
        inv_mass: &InverseMass,
        labels: &mut Vec<usize>,
    ) {
        let diagonal = inv_mass.diagonal();
        let mut sets = Components::new(diagonal.len());
        let band_coordinates = |band: usize| {
            let blocks = j.bands()[band].1.clone();
            j.blocks()[blocks]
                .iter()
                .flat_map(|b| b.col..b.col + b.ncols)
        };
        for block in j.blocks() {
            join_movable(&mut sets, diagonal, block.col..block.col + block.ncols);
        }
        for (band, (rows, _)) in j.bands().iter().enumerate() {
            if rows
                .clone()
                .any(|r| self.held.get(r).copied().unwrap_or(true))
            {
                join_movable(&mut sets, diagonal, band_coordinates(band));
            }
        }
        if !self.reduced {
            for &(band, _) in &self.stiffness_bands {
                join_movable(&mut sets, diagonal, band_coordinates(band));
            }
        }
        for block in inv_mass.blocks() {
            join_movable(&mut sets, diagonal, block.offset..block.offset + block.n);
        }
        if let Some(p) = &self.pattern {
            let (coordinates, starts) = (&p.additions.0, &p.additions.1);
            for w in starts.windows(2) {
                join_movable(&mut sets, diagonal, coordinates[w[0]..w[1]].iter().copied());
            }
        }
        labels.clear();
        labels.extend((0..diagonal.len()).map(|i| {
            if diagonal[i] > 0.0 {
                sets.find(i)
            } else {
                usize::MAX
            }
        }));
    }

    /// Solves the factored system for the Newton correction of the residuals
    /// `F₁ = M (q − q̃) − Jᵀμ` (per coordinate of `q`) and `F₂` (per row: a held row's `r`, a
    /// fixed row's `μ − target`), at multipliers `μ = h² λ`: writes `Δq` (zero where nothing
    /// moves) and `Δμ`.
    ///
    /// The held rows carry a proximal term of weight `proximal` (at most [`PROXIMAL`], on the
    /// scaled matrix): their rows read `J Δq − δ Δμ − p μ = −r`. Where the rows are independent
    /// that is a compliance: the iteration ends with each row off by `p μ_r (J W Jᵀ)_rr`, which
    /// the caller keeps below its tolerance by its choice of `p`. Where they are redundant (the
    /// teeth of a planetary gear) it is what decides the split of their force, which the rows
    /// themselves leave free: Tikhonov's least-norm split. Without it each iteration added
    /// `nᵀr/δ` of the residual's rounding to the split, and over a run the teeth of
    /// `scenes/planetary_gear.toml` came to push against each other with 1e7 N.
    pub(crate) fn solve(
        &mut self,
        momentum: &[f64],
        residual: &[f64],
        (lambda, h2, proximal): (&[f64], f64, f64),
        dq: &mut [f64],
        dmu: &mut [f64],
    ) -> Result<(), SolveError> {
        let (Some(p), Some(workspace), true) = (&self.pattern, &mut self.workspace, self.factored)
        else {
            return Err(SolveError::NonFinite);
        };
        let n = p.n;
        // Right-hand side −[F₁; F₂], scaled, written in the factor's order (the order applied
        // as it is written and undone as the solution is read, rather than by two passes of
        // their own): entry k is input `source[k]` of [F₁; F₂].
        self.input.clear();
        self.input.extend_from_slice(momentum);
        self.input.extend_from_slice(residual);
        let rows = self.input.len() - residual.len();
        for (r, (&held, &lambda)) in self.held.iter().zip(lambda).enumerate() {
            if held {
                let s = self.scale[n + r];
                self.input[rows + r] += proximal * lambda * h2 / (s * s);
            }
        }
        if let Some(dense) = &self.dense {
            // The unknowns' own order: coordinates, then rows.
            let rows = momentum.len();
            self.unknowns.clear();
            self.unknowns
                .extend((0..n).map(|u| -self.input[p.coordinate[u]] * self.scale[u]));
            self.unknowns
                .extend((0..residual.len()).map(|r| -self.input[rows + r] * self.scale[n + r]));
            dense.solve(&mut self.unknowns);
            dq.fill(0.0);
            for (u, &i) in p.coordinate.iter().enumerate() {
                dq[i] = self.unknowns[u] * self.scale[u];
            }
            for (r, d) in dmu.iter_mut().enumerate() {
                *d = -self.unknowns[n + r] * self.scale[n + r];
            }
            return if crate::math::vector::all_finite(dq) && crate::math::vector::all_finite(dmu) {
                Ok(())
            } else {
                Err(SolveError::NonFinite)
            };
        }
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
        ldlt::solve_in_order(&p.symbolic, &self.factor, &mut self.rhs, workspace);
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
