//! # bead — constrained dynamics with exact Lagrange multipliers
//!
//! bead simulates particles held by constraints, computing the constraint forces exactly, as in
//! Andrew Witkin's *Constrained Dynamics* (seed 000): every evaluation solves
//!
//! ```text
//! J W Jᵀ λ = −J̇q̇ − J W Q − k_s C − k_d Ċ          (seed 000, eq. 11)
//! ```
//!
//! for the multipliers λ, adds the constraint force `Q̂ = Jᵀλ` to the applied force `Q`, and hands
//! `q̈ = W (Q + Q̂)` to an ODE integrator. λ is physical: for the built-in constraints it is a
//! force in newtons, reported by [`System::diagnostics`].
//!
//! ```
//! use bead::{constraint::Distance, force::Gravity, Particle, System};
//!
//! // A double pendulum in 2D, released from the horizontal.
//! let mut sys = System::new(2)?;
//! let pivot = sys.add_particle(Particle::anchor(&[0.0, 0.0]))?;
//! let a = sys.add_particle(Particle::new(&[1.0, 0.0]))?;
//! let b = sys.add_particle(Particle::new(&[2.0, 0.0]))?;
//! sys.add_force(Gravity::new(&[0.0, -9.81]))?;
//! sys.add_constraint(Distance::new(pivot, a, 1.0))?;
//! let lower = sys.add_constraint(Distance::new(a, b, 1.0))?;
//!
//! let e0 = sys.diagnostics()?.total_energy();
//! for _ in 0..1000 {
//!     sys.step(1e-3)?;
//! }
//! let d = sys.diagnostics()?;
//! assert!((d.total_energy() - e0).abs() < 1e-6);       // RK4 conserves energy closely
//! assert!(d.max_abs_c < 1e-8);                          // the rods hold
//! println!("lower rod force: {} N", d.constraint(lower).unwrap().lambda[0]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The crate's parts follow the data flow of one step: [`force`] adds `Q`,
//! [`constraint`] writes `C`, `Ċ`, `J`, `J̇q̇` on [`Point`]s, [`sparse`] holds the block-sparse `J`,
//! [`solve`] finds λ, [`integrate`] advances `(q, q̇)`, all driven by [`System::step`].

#![warn(missing_docs)]

mod assembly;
pub mod autodiff;
mod body;
mod collide;
mod collide3d;
pub mod constraint;
pub mod contact;
mod diagnostics;
pub mod draw;
mod drawing;
mod dynamics;
mod error;
pub mod force;
mod ids;
pub mod integrate;
mod math;
mod model;
pub mod models;
mod motion;
mod point;
pub mod primitives;
mod schedule;
mod settings;
pub mod solve;
mod state;
mod step;
mod system;
mod view;

pub use body::{
    BodyId, MassPoint, Parametric, ParametricId, Particle, ParticleId, PositionFn, RigidBody,
    RigidBody3d, RigidBody3dId, RigidBodyId, Shape, Shape3d,
};
pub use constraint::{Constraint, ConstraintError, ConstraintEval, ConstraintId, ConstraintKind};
pub use contact::{ContactGroupId, InequalityMethod};
pub use diagnostics::{AssemblyReport, ConstraintReport, Diagnostics};
pub use error::EvalError;
pub use error::{
    AssemblyError, InvalidParameter, ModelError, StepError, StepFailure, Violation, WorstConstraint,
};
pub use math::sparse;
pub use motion::{Motion, MotionKind, MotionSample};
pub use point::{Operand, Point};
pub use schedule::{step_count, step_sizes, step_times};
pub use settings::{Assembly, Feedback, Projection, Settings, StepStats};
pub use system::System;
pub use view::View;

/// The Rust examples of the user's guide (`docs/`), compiled and run as doctests, so the guide
/// cannot show code that does not build or does not do what it says.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/tutorial-custom-constraint.md")]
pub struct GuideCustomConstraint;

/// The guide's library page, as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/library.md")]
pub struct GuideLibrary;

/// The guide's parametric-objects tutorial, as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/tutorial-parametric.md")]
pub struct GuideParametric;

/// The guide's page on 3D rigid bodies, as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/rigid-bodies-3d.md")]
pub struct GuideRigidBodies3d;
