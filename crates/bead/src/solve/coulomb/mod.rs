//! Coulomb's law over a set of bounded rows, as a complementarity problem of its own: the
//! rows' matrix `A` by compressed columns and their residuals `r = c + A (λ − λ⁰)`, solved by
//! nonsmooth Gauss–Seidel over the contacts (Moreau and Jean) with direct solves of the rows
//! inside their bounds, a 3D contact's two friction rows on their circular cone (issue 33's
//! exact cone; seed 004's contact with friction carried into 3D), and the least-norm split of
//! redundant contacts' forces.
//!
//! Two callers state the problem: the implicit steppers on each Newton iteration's
//! linearization, in displacements ([`crate::integrate`]'s `contact_lcp`), and the explicit
//! integrators on the accelerations of seed 004's multiplier system, where a 3D contact's cone
//! is a circle that Dantzig's pivoting on boxed rows cannot hold ([`crate::dynamics`]).
//!
//! The files: [`contact_problem`] (the buffers and the measures of the error), [`gauss_seidel`]
//! (the sweeps), [`subspace`] (their direct solves), [`disk`] (one contact on its circle),
//! [`least_norm`], [`split`] and [`row_bounds`].

pub(crate) mod contact_problem;
pub(crate) mod disk;
pub(crate) mod gauss_seidel;
pub(crate) mod least_norm;
pub(crate) mod row_bounds;
pub(crate) mod split;
pub(crate) mod subspace;

pub(crate) use row_bounds::RowBounds;
