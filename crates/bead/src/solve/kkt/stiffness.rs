//! How the geometric stiffness enters the KKT matrix: each constraint's block `−h² K_c` is kept
//! where it is positive semi-definite (a rod in tension), and where not (a rod in compression)
//! while the masses it touches outweigh every such block on them ([`bound_undominated`]), and is
//! replaced by its diagonal bound elsewhere; and how much it couples each coordinate to other
//! bodies against its own mass ([`coupling_ratio`]), which decides whether the matrix keeps that
//! coupling at all.

use crate::math::inverse_mass::InverseMass;
use crate::math::sparse::BlockSparse;

/// The share of a coordinate's mass that the blocks kept indefinite may take together, each
/// counted by its row's absolute sum there: below it the coordinates' block stays diagonally
/// dominant, so positive definite, with half its mass to spare.
pub(super) const DOMINATED_BELOW: f64 = 0.5;

/// The largest ratio, over the coordinates, of the stiffness coupling a coordinate to other
/// bodies to its own mass, `h² Σ|K̃_ab| / m_a`, from each band's `−h² K̃_c` (`stiffness`, with
/// where each band's block starts); `coupling` is scratch.
pub(super) fn coupling_ratio(
    j: &BlockSparse,
    inv_mass: &[f64],
    (stiffness, bands): (&[f64], &[(usize, usize)]),
    coupling: &mut Vec<f64>,
) -> f64 {
    coupling.clear();
    coupling.resize(inv_mass.len(), 0.0);
    for &(band, start) in bands {
        // A band has one block per body: the coupling to other bodies is what lies outside
        // the row's own block, summed in column order.
        let blocks = &j.blocks()[j.bands()[band].1.clone()];
        let size: usize = blocks.iter().map(|b| b.ncols).sum();
        let k = &stiffness[start..start + size * size];
        let mut first = 0;
        for block in blocks {
            let own = first..first + block.ncols;
            for (r, row) in k[own.start * size..own.end * size]
                .chunks_exact(size)
                .enumerate()
            {
                coupling[block.col + r] += row[..own.start]
                    .iter()
                    .chain(&row[own.end..])
                    .map(|x| x.abs())
                    .sum::<f64>();
            }
            first = own.end;
        }
    }
    coupling
        .iter()
        .zip(inv_mass)
        .fold(0.0_f64, |r, (k, w)| r.max(k * w))
}

/// Whether the symmetric `size × size` matrix `a` is positive semi-definite (up to rounding),
/// by a Cholesky factorization of `a + ε I` into the scratch `l`.
pub(crate) fn positive_semidefinite(a: &[f64], size: usize, l: &mut Vec<f64>) -> bool {
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

/// Keeps the symmetric `size × size` block `a` where it is positive semi-definite (`definite`
/// says so where that is known without factoring it) and replaces it by its positive diagonal
/// bound ([`diagonal_bound`]) where not: the coordinates' block of the matrix then stays
/// positive definite.
pub(super) fn keep_definite(
    a: &mut [f64],
    size: usize,
    definite: Option<bool>,
    cholesky: &mut Vec<f64>,
) {
    if !definite.unwrap_or_else(|| positive_semidefinite(a, size, cholesky)) {
        diagonal_bound(a, size);
    }
}

/// Replaces the symmetric `size × size` block `a` by each row's absolute sum on the diagonal:
/// positive semi-definite, and at least `a` in every direction.
fn diagonal_bound(a: &mut [f64], size: usize) {
    for r in 0..size {
        let row = &mut a[r * size..(r + 1) * size];
        let bound: f64 = row.iter().map(|x| x.abs()).sum();
        row.fill(0.0);
        row[r] = bound;
    }
}

/// Bounds ([`diagonal_bound`]) each band of `−h² K̃` in `indefinite` (indices into `bands`, each
/// `(band of J, start in stiffness)`) that touches a coordinate where the indefinite blocks
/// together weigh more than `share` of its mass ([`DOMINATED_BELOW`], or 0 to bound them all),
/// by their rows' absolute sums, or one of a dense mass block; the rest stay exact. `sums` is
/// scratch.
///
/// The mass then keeps the coordinates' block positive definite (diagonally dominant against
/// the indefinite blocks, and the rest are positive semi-definite), as the bound alone would,
/// while a lightly compressed rod keeps its true stiffness. The bound has the wrong sign there,
/// an error of twice the block: on a curtain pulled hard at one corner its wrinkles' rods made
/// Newton's method gain only 5 % an iteration.
pub(super) fn bound_undominated(
    j: &BlockSparse,
    inv_mass: &InverseMass,
    (stiffness, bands, indefinite): (&mut [f64], &[(usize, usize)], &[usize]),
    (share, sums): (f64, &mut Vec<f64>),
) {
    if indefinite.is_empty() {
        return;
    }
    let diagonal = inv_mass.diagonal();
    sums.clear();
    sums.resize(diagonal.len(), 0.0);
    // A coordinate of a dense mass block has no mass of its own to weigh against.
    for block in inv_mass.blocks() {
        sums[block.offset..block.offset + block.n].fill(f64::INFINITY);
    }
    let coordinates = |band: usize| {
        j.blocks()[j.bands()[band].1.clone()]
            .iter()
            .flat_map(|b| b.col..b.col + b.ncols)
    };
    for &k in indefinite {
        let (band, start) = bands[k];
        let size = coordinates(band).count();
        let block = &stiffness[start..start + size * size];
        for (row, i) in block.chunks_exact(size).zip(coordinates(band)) {
            sums[i] += row.iter().map(|x| x.abs()).sum::<f64>();
        }
    }
    for &k in indefinite {
        let (band, start) = bands[k];
        let dominated =
            coordinates(band).all(|i| diagonal[i] == 0.0 || sums[i] * diagonal[i] < share);
        if !dominated {
            let size = coordinates(band).count();
            diagonal_bound(&mut stiffness[start..start + size * size], size);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{DOMINATED_BELOW, bound_undominated, positive_semidefinite};
    use crate::math::inverse_mass::InverseMass;
    use crate::math::sparse::BlockSparse;

    /// `−h² K` of a planar rod along x between two particles under compression `c`: the
    /// block `−c [[P, −P], [−P, P]]` with `P` the projector across the rod.
    fn compressed_rod(c: f64) -> Vec<f64> {
        let p = [0.0, 0.0, 0.0, 1.0];
        let mut k = vec![0.0; 16];
        for (a, b) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
            let sign = if a == b { -c } else { c };
            for i in 0..2 {
                for j in 0..2 {
                    k[(2 * a + i) * 4 + 2 * b + j] = sign * p[i * 2 + j];
                }
            }
        }
        k
    }

    /// Three particles of 1 kg on two rods, `0–1` and `1–2`: the particle in the middle
    /// carries both.
    fn chain() -> (BlockSparse, Vec<(usize, usize)>) {
        let mut j = BlockSparse::new(6);
        j.add_band(1, &[(0, 2), (2, 2)]);
        j.add_band(1, &[(2, 2), (4, 2)]);
        (j, vec![(0, 0), (1, 16)])
    }

    /// Whether the coordinates' block `M + Σ −h² K̃` is positive definite.
    fn definite(stiffness: &[f64], mass: f64) -> bool {
        let mut a = vec![0.0; 36];
        for i in 0..6 {
            a[i * 6 + i] = mass;
        }
        for (band, first) in [(0, 0), (16, 2)] {
            for r in 0..4 {
                for c in 0..4 {
                    a[(first + r) * 6 + first + c] += stiffness[band + r * 4 + c];
                }
            }
        }
        let shifted: Vec<f64> = (0..36)
            .map(|k| a[k] - if k % 7 == 0 { 1e-9 } else { 0.0 })
            .collect();
        positive_semidefinite(&shifted, 6, &mut Vec::new())
    }

    /// `stiffness` (the chain's two rods) after [`bound_undominated`] with the rods `indefinite`
    /// under the masses `w`.
    fn bounded(w: &InverseMass, stiffness: &[f64], indefinite: &[usize]) -> Vec<f64> {
        let (j, bands) = chain();
        let mut out = stiffness.to_vec();
        let scratch = &mut Vec::new();
        bound_undominated(
            &j,
            w,
            (&mut out, &bands, indefinite),
            (DOMINATED_BELOW, scratch),
        );
        out
    }

    /// A lightly compressed rod keeps its stiffness as it is; one whose compression, with its
    /// neighbour's, outweighs half a particle's mass is bounded, and so is any rod on a
    /// coordinate of a dense mass block. Whatever is kept, the coordinates' block stays
    /// positive definite.
    #[test]
    fn compressed_rods_keep_their_stiffness_while_the_masses_outweigh_it() {
        let light: Vec<f64> = [compressed_rod(0.1), compressed_rod(0.1)].concat();
        let w = InverseMass::diagonal_of(vec![1.0; 6]);
        let kept = bounded(&w, &light, &[0, 1]);
        assert_eq!(kept, light, "a light compression was bounded");
        assert!(definite(&kept, 1.0));

        // Each rod's rows across it sum to 2c at each end, so the middle particle carries 4c:
        // under half its mass of 1 kg at c = 0.1. At c = 0.4 the rods as they are would make
        // the block indefinite (the chain's zig-zag mode: 1 − 3c < 0); bounded, it is not.
        let heavy: Vec<f64> = [compressed_rod(0.4), compressed_rod(0.4)].concat();
        assert!(!definite(&heavy, 1.0));
        let heavy_bounded = bounded(&w, &heavy, &[0, 1]);
        for band in [0, 16] {
            let block = &heavy_bounded[band..band + 16];
            let off_diagonal = (0..16).filter(|k| k % 5 != 0).map(|k| block[k].abs());
            assert_eq!(off_diagonal.sum::<f64>(), 0.0, "not diagonal: {block:?}");
            assert!(
                (block[15] - 0.8).abs() < 1e-15,
                "the bound is the row's sum"
            );
        }
        assert!(definite(&heavy_bounded, 1.0));
        // Only the rod listed as indefinite is touched.
        let one = bounded(&w, &heavy, &[1]);
        assert_eq!(one[..16], heavy[..16]);

        let mut dense = InverseMass::diagonal_of(vec![1.0; 6]);
        dense.add_block(0, 4, 2);
        let touched = bounded(&dense, &light, &[0, 1]);
        assert_eq!(touched[..16], light[..16], "the rod away from the block");
        assert_ne!(touched[16..], light[16..], "the rod on the dense block");
    }
}
