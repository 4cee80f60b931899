//! The engine's numerical containers, knowing nothing of constraints or integrators: small
//! vectors ([`vector`]), the block-sparse Jacobian `J` ([`sparse`], seed 000 §4.2–4.3) and the
//! block-diagonal inverse mass `W = M⁻¹` ([`inverse_mass`], seed 000 §3 and §5), and GMRES for
//! the small nonsymmetric systems the implicit steppers reach only through products (`gmres`).

pub(crate) mod bands;
pub(crate) mod components;
pub(crate) mod dual;
pub(crate) mod gmres;
pub(crate) mod inverse_mass;
pub(crate) mod rotation;
pub mod sparse;
pub(crate) mod vector;
pub(crate) mod vector_state;
