//! Connected components of a set of indices joined pair by pair (a disjoint-set forest with
//! path halving and union by size): which coordinates a matrix's entries couple, so that
//! what happens in one component cannot reach another.
//!
//! Written here rather than taken from a graph crate: it is a dozen lines, and the one user
//! (the Newton matrix's coupling, [`crate::solve::kkt`]) needs nothing else of a graph.

/// Disjoint sets over `0..n`, joined by [`join`](Self::join).
#[derive(Clone, Debug, Default)]
pub(crate) struct Components {
    parent: Vec<usize>,
    size: Vec<usize>,
}

impl Components {
    /// `n` singletons.
    pub(crate) fn new(n: usize) -> Self {
        Components {
            parent: (0..n).collect(),
            size: vec![1; n],
        }
    }

    /// The representative of `i`'s set.
    pub(crate) fn find(&mut self, mut i: usize) -> usize {
        while self.parent[i] != i {
            self.parent[i] = self.parent[self.parent[i]];
            i = self.parent[i];
        }
        i
    }

    /// Puts `a` and `b` in one set.
    pub(crate) fn join(&mut self, a: usize, b: usize) {
        let (mut a, mut b) = (self.find(a), self.find(b));
        if a == b {
            return;
        }
        if self.size[a] < self.size[b] {
            std::mem::swap(&mut a, &mut b);
        }
        self.parent[b] = a;
        self.size[a] += self.size[b];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joined_indices_share_a_representative_and_others_do_not() {
        let mut c = Components::new(6);
        c.join(0, 1);
        c.join(4, 1);
        c.join(2, 3);
        assert_eq!(c.find(0), c.find(4));
        assert_eq!(c.find(2), c.find(3));
        assert_ne!(c.find(0), c.find(2));
        assert_ne!(c.find(5), c.find(0));
        assert_ne!(c.find(5), c.find(3));
    }
}
