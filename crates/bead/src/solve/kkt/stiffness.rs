//! How the geometric stiffness enters the KKT matrix: each constraint's block `−h² K_c` is kept
//! where it is positive semi-definite (a rod in tension) and replaced by its diagonal bound where
//! not ([`positive_semidefinite`]); and how much it couples each coordinate to other bodies
//! against its own mass ([`coupling_ratio`]), which decides whether the matrix keeps that
//! coupling at all.

use crate::math::sparse::BlockSparse;

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
