//! The generalized state a [`System`](crate::System) advances (seed 000 §3): the time, the
//! coordinates `q` and velocities `q̇` of every body in one vector each, and the steps taken.

use crate::model::Model;
use crate::view::View;

/// Time, `q`, `q̇` and the number of steps taken.
#[derive(Clone, Debug, Default)]
pub(crate) struct State {
    /// Time, in seconds.
    pub(crate) t: f64,
    /// The generalized coordinates, each body's in the slice its entry names.
    pub(crate) q: Vec<f64>,
    /// The generalized velocities, laid out as `q`.
    pub(crate) v: Vec<f64>,
    /// Steps taken.
    pub(crate) steps: u64,
}

impl State {
    /// The state as forces and constraints read it, with `model`'s bodies.
    pub(crate) fn view<'a>(&'a self, model: &'a Model) -> View<'a> {
        View {
            t: self.t,
            dim: model.dim,
            bodies: &model.bodies,
            q: &self.q,
            v: &self.v,
        }
    }
}
