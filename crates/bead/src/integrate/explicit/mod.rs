//! The explicit integrators: ODE schemes over `(q, q̇)` that call the derivative evaluation
//! (Witkin's four steps, seed 000 §4.1) at the states their stages need and nothing else, so
//! every constraint and solver works with each of them.

mod euler;
mod midpoint;
mod rk4;
mod symplectic_euler;

pub use euler::Euler;
pub use midpoint::Midpoint;
pub use rk4::Rk4;
pub use symplectic_euler::SymplecticEuler;
