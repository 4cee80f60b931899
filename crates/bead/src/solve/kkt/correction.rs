//! What the factored KKT matrix leaves out of the exact Newton matrix: each constraint's
//! geometric stiffness where it was replaced by its diagonal bound (an indefinite block the
//! masses do not outweigh), and between bodies where the matrix was reduced. The implicit
//! steppers add it back by iterating around the factor (`integrate::implicit::exact_step`), so
//! that a Newton step is the exact one while the factor stays definite.

use crate::math::sparse::BlockSparse;

/// `E = K_exact − K_factored` on each band's coordinates, for the bands where they differ.
#[derive(Debug, Default)]
pub(crate) struct Correction {
    /// Each band's coordinates, one band after another.
    coordinates: Vec<usize>,
    /// Where each band starts in `coordinates`, and in `values`.
    starts: Vec<(usize, usize)>,
    /// Each band's `E`, row-major.
    values: Vec<f64>,
}

impl Correction {
    /// Records `exact − kept` for the bands `bands` (`(band of J, start in the values)`) of the
    /// stiffness values `exact` and `kept`, the terms between different bodies counted as left
    /// out when `reduced`.
    pub(crate) fn record(
        &mut self,
        j: &BlockSparse,
        (exact, kept): (&[f64], &[f64]),
        bands: &[(usize, usize)],
        reduced: bool,
    ) {
        self.clear();
        for &(band, start) in bands {
            let blocks = &j.blocks()[j.bands()[band].1.clone()];
            let owner: Vec<usize> = blocks
                .iter()
                .enumerate()
                .flat_map(|(k, b)| std::iter::repeat_n(k, b.ncols))
                .collect();
            let size = owner.len();
            let range = start..start + size * size;
            let differs = |(i, (e, k)): (usize, (&f64, &f64))| {
                e != k || (reduced && owner[i / size] != owner[i % size] && *k != 0.0)
            };
            if !exact[range.clone()]
                .iter()
                .zip(&kept[range.clone()])
                .enumerate()
                .any(differs)
            {
                continue;
            }
            self.starts
                .push((self.coordinates.len(), self.values.len()));
            self.coordinates
                .extend(blocks.iter().flat_map(|b| b.col..b.col + b.ncols));
            self.values.extend(
                exact[range.clone()]
                    .iter()
                    .zip(&kept[range])
                    .enumerate()
                    .map(|(i, (e, k))| {
                        let in_factor = !(reduced && owner[i / size] != owner[i % size]);
                        if in_factor { e - k } else { *e }
                    }),
            );
        }
    }

    /// Records nothing left out.
    pub(crate) fn clear(&mut self) {
        self.coordinates.clear();
        self.starts.clear();
        self.values.clear();
    }

    /// Whether anything was left out.
    pub(crate) fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    /// Adds `E v` into `out` (both over all coordinates).
    pub(crate) fn apply(&self, v: &[f64], out: &mut [f64]) {
        for (k, &(c0, v0)) in self.starts.iter().enumerate() {
            let c1 = self
                .starts
                .get(k + 1)
                .map_or(self.coordinates.len(), |s| s.0);
            let coordinates = &self.coordinates[c0..c1];
            let size = coordinates.len();
            for (r, &i) in coordinates.iter().enumerate() {
                let row = &self.values[v0 + r * size..v0 + (r + 1) * size];
                out[i] += row
                    .iter()
                    .zip(coordinates)
                    .map(|(e, &c)| e * v[c])
                    .sum::<f64>();
            }
        }
    }
}
