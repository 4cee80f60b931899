//! Small dense symmetric blocks over sets of coordinates, to be summed into a large sparse
//! matrix: the applied forces' Jacobians and the parametric objects' own blocks that the
//! implicit steppers add to their Newton matrix `M − ĥ² ∂Q/∂q − ĥ ∂Q/∂q̇` (Baraff and Witkin
//! 1998). Each band lists the coordinates it covers and a row-major `k × k` block over them.

/// Dense symmetric blocks over coordinate sets, one after another.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Bands {
    /// Each band's coordinates, one band after another.
    coordinates: Vec<usize>,
    /// Where each band's coordinates start in `coordinates`, and the end.
    starts: Vec<usize>,
    /// Each band's row-major `k × k` block, one after another.
    values: Vec<f64>,
    /// Whether each band is known to keep the matrix it is added to positive definite (else
    /// the matrix checks it, and bounds it where it is not positive semi-definite).
    definite: Vec<bool>,
    /// Whether any band couples different bodies.
    coupled: bool,
}

impl Bands {
    /// No bands.
    pub(crate) fn clear(&mut self) {
        self.coordinates.clear();
        self.starts.clear();
        self.values.clear();
        self.definite.clear();
        self.coupled = false;
    }

    /// Adds a band over `coordinates`, and returns its `k × k` block, zeroed, to fill;
    /// `definite` says that the block is known to keep the matrix positive definite, `coupled`
    /// that its coordinates belong to more than one body.
    pub(crate) fn push(
        &mut self,
        coordinates: &[usize],
        definite: bool,
        coupled: bool,
    ) -> &mut [f64] {
        self.definite.push(definite);
        self.coupled |= coupled;
        if self.starts.is_empty() {
            self.starts.push(0);
        }
        self.coordinates.extend_from_slice(coordinates);
        self.starts.push(self.coordinates.len());
        let k = coordinates.len();
        let start = self.values.len();
        self.values.resize(start + k * k, 0.0);
        &mut self.values[start..]
    }

    /// The number of bands.
    pub(crate) fn len(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    /// Band `b`'s coordinates.
    pub(crate) fn coordinates(&self, b: usize) -> &[usize] {
        &self.coordinates[self.starts[b]..self.starts[b + 1]]
    }

    /// Whether any band couples different bodies.
    pub(crate) fn coupled(&self) -> bool {
        self.coupled
    }

    /// Whether band `b` is known to keep the matrix positive definite.
    pub(crate) fn definite(&self, b: usize) -> bool {
        self.definite[b]
    }

    /// Every band's coordinates, one after another, with where each starts: what a sparse
    /// pattern built for these bands depends on.
    pub(crate) fn structure(&self) -> (&[usize], &[usize]) {
        (&self.coordinates, &self.starts)
    }

    /// Every band's block, one after another (band `b` starts after the squares of the sizes
    /// before it).
    pub(crate) fn values(&self) -> &[f64] {
        &self.values
    }
}

#[cfg(test)]
mod tests {
    use super::Bands;

    /// Bands keep their coordinates and blocks apart, and clearing leaves no trace.
    #[test]
    fn bands_push_and_clear() {
        let mut bands = Bands::default();
        bands
            .push(&[0, 1], false, false)
            .copy_from_slice(&[1.0, 2.0, 2.0, 3.0]);
        bands.push(&[4, 7], true, true)[3] = 5.0;
        assert_eq!(bands.len(), 2);
        assert_eq!(bands.coordinates(1), &[4, 7]);
        assert_eq!(bands.values(), &[1.0, 2.0, 2.0, 3.0, 0.0, 0.0, 0.0, 5.0]);
        assert!(bands.coupled() && bands.definite(1) && !bands.definite(0));
        bands.clear();
        assert_eq!(bands, Bands::default());
        assert_eq!(bands.len(), 0);
    }
}
