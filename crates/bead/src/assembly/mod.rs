//! Assembly: a model's constraints as the rows of one global system at a state (seed 000 §4).
//!
//! The [`Layout`] places every constraint's rows, its blocks of `J` and its operands' buffers
//! when the model's structure changes; the [`Evaluator`] fills `C`, `Ċ`, `J`, `J̇q̇` and `∂C/∂t`
//! at each state by the chain rule through the points (separations between two particles in a
//! loop of their own, [`pairs`]); [`stiffness`] gives each constraint's geometric stiffness
//! `Σ λ ∇²C` for the implicit steppers, and [`object_stiffness`] a parametric object's own block of
//! their Newton matrix ([`rigid3d_inertia`] a 3D rigid body's). Nothing here solves anything: the dynamics above decide
//! what the rows are for.

mod evaluator;
mod layout;
pub(crate) mod object_stiffness;
pub(crate) mod pairs;
pub(crate) mod rigid3d_inertia;
pub(crate) mod stiffness;

pub(crate) use evaluator::Evaluator;
pub(crate) use layout::Layout;
