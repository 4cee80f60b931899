//! The dynamics of a constrained model at a state: the explicit integrators' derivative
//! evaluation (Witkin's four steps, [`acceleration`]), which rows take part where some are
//! inequalities (seed 004, [`active_set`], over the rows of [`rows`]; the contacts' problem
//! with their cones, [`cones`], for a 3D contact's circle and 2D friction the pivoting cannot
//! settle), and the model as each family of steppers sees it ([`stage`]: the accelerations
//! for the explicit ones, assembly and the Newton system for the implicit ones).

pub(crate) mod acceleration;
pub(crate) mod active_set;
pub(crate) mod cones;
pub(crate) mod conflicts;
pub(crate) mod rows;
pub(crate) mod stage;

pub(crate) use acceleration::{Acceleration, Mode, stick_speed};
pub(crate) use stage::{Prediction, Stage};
