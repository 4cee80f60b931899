//! The inverse mass matrix `W = M⁻¹` (seed 000 §3): block-diagonal, one block per body.
//!
//! A particle's or a rigid body's block is diagonal (`1/m`, `1/I`) and constant. A parametric
//! object's block (seed 000 §5, eq. 13) is the inverse of its generalized mass `Jᵀ M J`, dense and
//! changing with its coordinates `u`, so it is refreshed at every evaluation. Everything that uses
//! `W` — the multiplier matrix `J W Jᵀ`, accelerations, impulses, projections, the implicit
//! stepper's `M` — goes through this type, so that a dense block is never mistaken for a diagonal.

/// `W = M⁻¹`: a diagonal, with small dense blocks where a body's mass is not diagonal.
///
/// ```
/// use bead::solve::InverseMass;
/// // Two particles of 2 kg in 2D, the first one an anchor.
/// let w = InverseMass::diagonal_of(vec![0.0, 0.0, 0.5, 0.5]);
/// let mut out = [0.0; 4];
/// w.apply(&[1.0, 1.0, 4.0, 6.0], &mut out);
/// assert_eq!(out, [0.0, 0.0, 2.0, 3.0]);
/// ```
#[derive(Clone, Debug, Default)]
pub struct InverseMass {
    /// The diagonal of `W` (for a dense block, the diagonal of its `W_b`).
    diagonal: Vec<f64>,
    /// The dense block each coordinate belongs to, or `NONE`.
    block_of: Vec<u32>,
    blocks: Vec<DenseBlock>,
}

/// One dense block of `W` and the mass block it inverts, both row-major `n × n`.
#[derive(Clone, Debug)]
pub(crate) struct DenseBlock {
    /// The body (slot) whose mass this is.
    pub(crate) body: usize,
    pub(crate) offset: usize,
    pub(crate) n: usize,
    pub(crate) inverse: Vec<f64>,
    pub(crate) mass: Vec<f64>,
}

const NONE: u32 = u32::MAX;

impl InverseMass {
    /// A diagonal `W` (zeros for what cannot move), one entry per coordinate.
    pub fn diagonal_of(diagonal: Vec<f64>) -> Self {
        InverseMass {
            block_of: vec![NONE; diagonal.len()],
            diagonal,
            blocks: Vec::new(),
        }
    }

    /// Declares a dense block for `body` on coordinates `offset..offset + n` (its values come
    /// from [`InverseMass::set_block`]).
    pub(crate) fn add_block(&mut self, body: usize, offset: usize, n: usize) {
        let index = u32::try_from(self.blocks.len()).unwrap_or(NONE);
        self.block_of[offset..offset + n].fill(index);
        self.blocks.push(DenseBlock {
            body,
            offset,
            n,
            inverse: vec![0.0; n * n],
            mass: vec![0.0; n * n],
        });
    }

    /// The dense blocks.
    pub(crate) fn blocks(&self) -> &[DenseBlock] {
        &self.blocks
    }

    /// Sets dense block `k` from its mass matrix `mass` (row-major, symmetric positive
    /// definite); returns `false`, leaving the block unchanged, when `mass` is not, a pivot
    /// falling below 1e-12 of `scale` (a curve whose speed vanishes makes its generalized mass
    /// singular).
    pub(crate) fn set_block(&mut self, k: usize, mass: &[f64], scale: f64) -> bool {
        let n = self.blocks[k].n;
        let Some(inverse) = spd_inverse(mass, n, scale) else {
            return false;
        };
        let block = &mut self.blocks[k];
        block.mass.copy_from_slice(mass);
        block.inverse.copy_from_slice(&inverse);
        for i in 0..n {
            self.diagonal[block.offset + i] = inverse[i * n + i];
        }
        true
    }

    /// Number of coordinates.
    pub fn len(&self) -> usize {
        self.diagonal.len()
    }

    /// Whether there are no coordinates.
    pub fn is_empty(&self) -> bool {
        self.diagonal.is_empty()
    }

    /// Whether coordinate `i` can move (its diagonal of `W` is positive).
    pub fn movable(&self, i: usize) -> bool {
        self.diagonal[i] > 0.0
    }

    /// The diagonal of `W`.
    pub fn diagonal(&self) -> &[f64] {
        &self.diagonal
    }

    /// `out = W x`.
    pub fn apply(&self, x: &[f64], out: &mut [f64]) {
        for ((o, xi), w) in out.iter_mut().zip(x).zip(&self.diagonal) {
            *o = w * xi;
        }
        for b in &self.blocks {
            let range = b.offset..b.offset + b.n;
            mul_block(&b.inverse, b.n, &x[range.clone()], &mut out[range]);
        }
    }

    /// `x ← W x`.
    pub fn apply_in_place(&self, x: &mut [f64]) {
        if self.blocks.is_empty() {
            for (xi, w) in x.iter_mut().zip(&self.diagonal) {
                *xi *= w;
            }
            return;
        }
        let mut tmp = [0.0; MAX_INLINE];
        for (i, (xi, w)) in x.iter_mut().zip(&self.diagonal).enumerate() {
            if self.block_of[i] == NONE {
                *xi *= w;
            }
        }
        for b in &self.blocks {
            let range = b.offset..b.offset + b.n;
            if b.n <= MAX_INLINE {
                tmp[..b.n].copy_from_slice(&x[range.clone()]);
                mul_block(&b.inverse, b.n, &tmp[..b.n], &mut x[range]);
            } else {
                let copy = x[range.clone()].to_vec();
                mul_block(&b.inverse, b.n, &copy, &mut x[range]);
            }
        }
    }

    /// `out = M x` on the coordinates that move (0 elsewhere).
    pub(crate) fn apply_mass(&self, x: &[f64], out: &mut [f64]) {
        for ((o, xi), w) in out.iter_mut().zip(x).zip(&self.diagonal) {
            *o = if *w > 0.0 { xi / w } else { 0.0 };
        }
        for b in &self.blocks {
            let range = b.offset..b.offset + b.n;
            mul_block(&b.mass, b.n, &x[range.clone()], &mut out[range]);
        }
    }

    /// The coordinates `W` couples to a Jacobian block's columns `col..col + len`: the columns,
    /// widened to the whole of every dense block they touch.
    pub(crate) fn span(&self, col: usize, len: usize) -> std::ops::Range<usize> {
        let (mut start, mut end) = (col, col + len);
        for c in col..col + len {
            if let Some(&k) = self.block_of.get(c)
                && k != NONE
            {
                let block = &self.blocks[k as usize];
                start = start.min(block.offset);
                end = end.max(block.offset + block.n);
            }
        }
        start..end
    }

    /// Where a Jacobian block's columns `col..col + len` meet `W`: runs of diagonal columns and
    /// whole dense blocks, as `(start, n, block)` relative to `col`. A block of `J` spans one
    /// body's coordinates: a parametric object's are one dense block, a 3D body's its
    /// translation's diagonal and then its rotation's dense 3 × 3 block.
    fn pieces(
        &self,
        col: usize,
        len: usize,
    ) -> impl Iterator<Item = (usize, usize, Option<&DenseBlock>)> {
        let mut i = 0;
        std::iter::from_fn(move || {
            if i >= len {
                return None;
            }
            let piece = match self.block_of.get(col + i) {
                Some(&k) if k != NONE => {
                    let block = &self.blocks[k as usize];
                    // A block of J starts at its body's first coordinate, so it holds each
                    // dense block from that block's own start.
                    debug_assert_eq!(block.offset, col + i);
                    (i, block.n.min(len - i), Some(block))
                }
                _ => (i, 1, None),
            };
            i += piece.1;
            Some(piece)
        })
    }

    /// `aᵀ W_b b` for two rows `a`, `b` of a Jacobian block whose columns start at `col`.
    pub fn weighted_dot(&self, col: usize, a: &[f64], b: &[f64]) -> f64 {
        if self.blocks.is_empty() {
            // Every assembly of J W Jᵀ comes here, per pair of rows: the diagonal alone.
            return a
                .iter()
                .zip(b)
                .zip(&self.diagonal[col..col + a.len()])
                .map(|((x, y), w)| x * y * w)
                .sum();
        }
        self.pieces(col, a.len())
            .map(|(i, n, block)| match block {
                Some(block) => (0..n)
                    .map(|p| {
                        a[i + p]
                            * (0..n)
                                .map(|q| block.inverse[p * block.n + q] * b[i + q])
                                .sum::<f64>()
                    })
                    .sum::<f64>(),
                None => a[i] * b[i] * self.diagonal[col + i],
            })
            .sum()
    }
}

impl InverseMass {
    /// `out[col..] += factor · W_b aᵀ` for a row `a` of a Jacobian block whose columns start at
    /// `col`: the velocity change an impulse `factor` along that row makes.
    pub fn add_weighted_row(&self, col: usize, a: &[f64], factor: f64, out: &mut [f64]) {
        if self.blocks.is_empty() {
            for ((o, ai), w) in out[col..col + a.len()]
                .iter_mut()
                .zip(a)
                .zip(&self.diagonal[col..])
            {
                *o += factor * w * ai;
            }
            return;
        }
        for (i, n, block) in self.pieces(col, a.len()) {
            match block {
                Some(block) => {
                    for p in 0..n {
                        let row = (0..n)
                            .map(|q| block.inverse[p * block.n + q] * a[i + q])
                            .sum::<f64>();
                        out[col + i + p] += factor * row;
                    }
                }
                None => out[col + i] += factor * self.diagonal[col + i] * a[i],
            }
        }
    }
}

/// Coordinates of one parametric object that [`InverseMass::apply_in_place`] handles without
/// allocating.
const MAX_INLINE: usize = 16;

fn mul_block(m: &[f64], n: usize, x: &[f64], out: &mut [f64]) {
    for (i, o) in out.iter_mut().enumerate() {
        *o = (0..n).map(|j| m[i * n + j] * x[j]).sum();
    }
}

/// The inverse of a small symmetric positive definite matrix by Cholesky, or `None` when a
/// pivot falls below 1e-12 of `scale` or of its largest diagonal entry.
pub(crate) fn spd_inverse(a: &[f64], n: usize, scale: f64) -> Option<Vec<f64>> {
    let scale = (0..n).fold(scale, |m, i| m.max(a[i * n + i].abs()));
    if !(scale > 0.0 && scale.is_finite()) {
        return None;
    }
    let mut l = vec![0.0; n * n];
    for i in 0..n {
        for k in 0..=i {
            let mut sum = a[i * n + k];
            for p in 0..k {
                sum -= l[i * n + p] * l[k * n + p];
            }
            if i == k {
                if !(sum > 1e-12 * scale) {
                    return None;
                }
                l[i * n + i] = sum.sqrt();
            } else {
                l[i * n + k] = sum / l[k * n + k];
            }
        }
    }
    // Columns of A⁻¹ by two triangular solves each.
    let mut inverse = vec![0.0; n * n];
    let mut y = vec![0.0; n];
    for c in 0..n {
        for i in 0..n {
            let mut s = if i == c { 1.0 } else { 0.0 };
            for p in 0..i {
                s -= l[i * n + p] * y[p];
            }
            y[i] = s / l[i * n + i];
        }
        for i in (0..n).rev() {
            let mut s = y[i];
            for p in i + 1..n {
                s -= l[p * n + i] * inverse[p * n + c];
            }
            inverse[i * n + c] = s / l[i * n + i];
        }
    }
    inverse.iter().all(|x| x.is_finite()).then_some(inverse)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A dense block is applied, inverted and weighted consistently with the diagonal around it.
    #[test]
    fn dense_block_inverts_its_mass() {
        let mut w = InverseMass::diagonal_of(vec![0.5, 0.0, 0.0, 0.0]);
        w.add_block(0, 1, 2);
        let mass = [4.0, 1.0, 1.0, 3.0];
        assert!(w.set_block(0, &mass, 1.0));
        let x = [2.0, 1.0, -1.0, 7.0];
        let mut wx = [0.0; 4];
        w.apply(&x, &mut wx);
        let mut back = [0.0; 4];
        w.apply_mass(&wx, &mut back);
        for i in 0..3 {
            assert!((back[i] - x[i]).abs() < 1e-14, "{back:?}");
        }
        assert_eq!(back[3], 0.0);
        let mut inplace = x;
        w.apply_in_place(&mut inplace);
        assert_eq!(inplace, wx);
        // aᵀ W_b b with W_b = (1/11) [3 −1; −1 4].
        let d = w.weighted_dot(1, &[1.0, 2.0], &[3.0, -1.0]);
        assert!((d - (1.0 * (9.0 + 1.0) + 2.0 * (-3.0 - 4.0)) / 11.0).abs() < 1e-14);
        assert!(
            !w.set_block(0, &[1.0, 1.0, 1.0, 1.0], 1.0),
            "a singular mass is refused"
        );
        assert!(
            !w.set_block(0, &[1e-20, 0.0, 0.0, 1.0], 1.0),
            "so is a vanishing pivot"
        );
    }
}
