//! Parametric objects (seed 000 §5, Lagrangian dynamics): bodies whose generalized coordinates
//! `u` are not positions, and whose mass points sit at `x_i(u, t)`.
//!
//! The constraint `q = x(u, t)` is built into the coordinates, so it needs no multiplier. With
//! `J_i = ∂x_i/∂u`, Lagrange's equations of motion (seed 000 eq. 13) read
//!
//! ```text
//! (Σ m_i J_iᵀ J_i) ü = Σ J_iᵀ (f_i − m_i a_i)        a_i = (∂²x_i/∂(u,t)²)((u̇,1), (u̇,1))
//! ```
//!
//! — the generalized mass `M(u) = Σ m_i J_iᵀ J_i` (dense, changing with `u`: one block of `W`),
//! the applied forces `f_i` at the points carried to `u` by `J_iᵀ`, and the velocity-product term
//! `J̇ u̇` (with the time terms of a moving object) as a generalized inertial force. Every point of
//! an object is a [`Point`](crate::Point) like a particle's: constraints and forces on it act on
//! `u` by the same chain rule (seed 000 §5.1, hybrid models).
//!
//! A point's position is one generic function of `u` and `t` written on
//! [`Scalar`]s; its Jacobian, velocity-product term and time derivative
//! come from second-order dual numbers (n + 1 passes for n coordinates, exact to rounding).

use std::fmt;
use std::sync::Arc;

use super::{Body, BodyId, BodyKind, Placed};
use crate::error::ModelError;
use crate::math::dual::Scalar;

/// A point's position `x(u, t)`, written once on dual numbers: `out` receives the `dim`
/// coordinates.
pub type PositionFn = dyn Fn(&[Scalar], Scalar, &mut [Scalar]) + Send + Sync;

/// Handle of a parametric object in a [`System`](crate::System).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ParametricId(pub(crate) BodyId);

impl ParametricId {
    /// The body handle of this object.
    pub fn body(self) -> BodyId {
        self.0
    }
}

impl From<ParametricId> for BodyId {
    fn from(id: ParametricId) -> BodyId {
        id.0
    }
}

/// One mass point of a parametric object.
#[derive(Clone)]
pub struct MassPoint {
    /// Its name, unique within the object (`NAME.POINT` in outputs).
    pub name: String,
    /// Mass, kg (positive and finite).
    pub mass: f64,
    /// Radius for drawing and contact, m.
    pub radius: f64,
    pub(crate) position: Arc<PositionFn>,
}

impl fmt::Debug for MassPoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MassPoint")
            .field("name", &self.name)
            .field("mass", &self.mass)
            .finish_non_exhaustive()
    }
}

/// Description of a parametric object to add to a system: its coordinates `u` (and rates `u̇`)
/// at t = 0 and its mass points.
///
/// ```
/// use bead::autodiff::DualNum;
/// use bead::{force::Gravity, Parametric, System};
///
/// // A bead on a vertical circle of radius 0.5 m, by its angle u0 from the bottom.
/// let mut sys = System::new(2)?;
/// let ring = sys.add_parametric(Parametric::new(&[1.0]).point("bead", 0.2, |u, _t, x| {
///     x[0] = u[0].sin() * 0.5;
///     x[1] = -u[0].cos() * 0.5;
/// }))?;
/// sys.add_force(Gravity::new(&[0.0, -9.81]))?;
/// sys.step(1e-3).unwrap();
/// // The angle accelerates back toward the bottom at −(g/r) sin u0.
/// let u_dot = sys.coordinate_velocities(ring.body())[0];
/// assert!((u_dot / 1e-3 + 9.81 / 0.5 * 1f64.sin()).abs() < 1e-3);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Parametric {
    /// Its name, used by errors (`"object"` unless set).
    pub name: String,
    /// Coordinates `u` at t = 0.
    pub coordinates: Vec<f64>,
    /// Rates `u̇` at t = 0 (empty means zero).
    pub rates: Vec<f64>,
    /// The mass points.
    pub points: Vec<MassPoint>,
    /// For a one-coordinate object, the range of `u0` over which drawings trace its curve
    /// (`None`: half a turn either side of where it is).
    pub trace: Option<(f64, f64)>,
}

impl Parametric {
    /// An object with coordinates `u = coordinates` at rest, and no points yet.
    pub fn new(coordinates: &[f64]) -> Self {
        Parametric {
            name: "object".into(),
            coordinates: coordinates.to_vec(),
            rates: Vec::new(),
            points: Vec::new(),
            trace: None,
        }
    }

    /// Sets the range of `u0` drawings trace the curve over.
    pub fn trace(mut self, from: f64, to: f64) -> Self {
        self.trace = Some((from, to));
        self
    }

    /// Sets the name errors call the object by.
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Sets the rates `u̇` at t = 0.
    pub fn rates(mut self, rates: &[f64]) -> Self {
        self.rates = rates.to_vec();
        self
    }

    /// Adds a mass point of `mass` kg at `position(u, t)`.
    pub fn point(
        mut self,
        name: impl Into<String>,
        mass: f64,
        position: impl Fn(&[Scalar], Scalar, &mut [Scalar]) + Send + Sync + 'static,
    ) -> Self {
        self.points.push(MassPoint {
            name: name.into(),
            mass,
            radius: 0.0,
            position: Arc::new(position),
        });
        self
    }

    /// Sets the radius (m) of every point, for drawing and contact.
    pub fn radius(mut self, radius: f64) -> Self {
        for p in &mut self.points {
            p.radius = radius;
        }
        self
    }

    /// The object checked for a `dim`-dimensional system at time `t` (at least one coordinate
    /// and one mass point; finite coordinates and rates, as many rates as coordinates; points
    /// named uniquely, with positive finite masses, at finite positions; a regular generalized
    /// mass), as a body whose coordinates `u` start at `offset` in `q`.
    pub(crate) fn place(&self, dim: usize, offset: usize, t: f64) -> Result<Placed, ModelError> {
        let object = self;
        let n = object.coordinates.len();
        let what =
            |s: String| ModelError::Setting(format!("parametric object '{}': {s}", object.name));
        if n == 0 {
            return Err(what("it needs at least one coordinate".into()));
        }
        if object.points.is_empty() {
            return Err(what("it needs at least one mass point".into()));
        }
        if object.coordinates.iter().any(|x| !x.is_finite()) {
            return Err(what(format!(
                "coordinates {:?} are not all finite",
                object.coordinates
            )));
        }
        let rates = if object.rates.is_empty() {
            vec![0.0; n]
        } else {
            object.rates.clone()
        };
        if rates.len() != n {
            return Err(what(format!(
                "{} rates given for {n} coordinates",
                rates.len()
            )));
        }
        if rates.iter().any(|x| !x.is_finite()) {
            return Err(what(format!("rates {rates:?} are not all finite")));
        }
        for (k, p) in object.points.iter().enumerate() {
            if !(p.mass > 0.0 && p.mass.is_finite()) {
                return Err(what(format!(
                    "point '{}' has mass {}; it must be positive and finite",
                    p.name, p.mass
                )));
            }
            if !(p.radius >= 0.0 && p.radius.is_finite()) {
                return Err(ModelError::Radius(p.radius));
            }
            if object.points[..k].iter().any(|o| o.name == p.name) {
                return Err(what(format!("two points are named '{}'", p.name)));
            }
            let mut x = [0.0; 3];
            p.position(&object.coordinates, t, &mut x[..dim]);
            if x.iter().any(|x| !x.is_finite()) {
                return Err(what(format!(
                    "point '{}' is not finite at u = {:?}",
                    p.name, object.coordinates
                )));
            }
        }
        let mass: f64 = object.points.iter().map(|p| p.mass).sum();
        // The generalized mass at the start must be regular: check it now, where the error can
        // say so, rather than at the first step.
        let mut m = vec![0.0; n * n];
        let scale = generalized_mass(
            &object.points,
            dim,
            &object.coordinates,
            &rates,
            t,
            &mut m,
            &mut vec![0.0; n],
        );
        if crate::math::inverse_mass::spd_inverse(&m, n, scale).is_none() {
            return Err(what(format!(
                "its generalized mass is singular at u = {:?} (some change of u moves none of its points)",
                object.coordinates
            )));
        }
        let body = Body {
            kind: BodyKind::Parametric {
                name: object.name.clone(),
                points: object.points.clone(),
                dim,
                trace: object.trace,
            },
            offset,
            ndof: n,
            mass,
            radius: object.points.iter().fold(0.0, |r, p| r.max(p.radius)),
        };
        Ok(Placed {
            body,
            q: object.coordinates.clone(),
            v: rates,
        })
    }
}

/// A point's kinematics at `(u, u̇, t)`, written into the caller's buffers.
pub(crate) struct PointMotion<'a> {
    /// Position (`dim`).
    pub x: &'a mut [f64],
    /// Velocity `J u̇ + ∂x/∂t` (`dim`).
    pub v: &'a mut [f64],
    /// `J = ∂x/∂u`, row-major `dim × n`.
    pub jacobian: &'a mut [f64],
    /// The velocity-product term `ẍ − J ü` (`dim`).
    pub velocity_product: &'a mut [f64],
}

/// Most coordinates and dimensions evaluated without allocating.
const INLINE: usize = 16;

impl MassPoint {
    /// Position at `(u, t)`.
    pub(crate) fn position(&self, u: &[f64], t: f64, out: &mut [f64]) {
        self.with_args(u.len(), out.len(), |args, x| {
            for (a, ui) in args.iter_mut().zip(u) {
                *a = Scalar::from(*ui);
            }
            (self.position)(args, Scalar::from(t), x);
            for (o, xi) in out.iter_mut().zip(x.iter()) {
                *o = xi.re;
            }
        });
    }

    /// Velocity `J u̇ + ∂x/∂t` at `(u, u̇, t)`: one dual pass, no Jacobian.
    pub(crate) fn velocity(&self, u: &[f64], u_dot: &[f64], t: f64, out: &mut [f64]) {
        self.with_args(u.len(), out.len(), |args, x| {
            for ((a, ui), vi) in args.iter_mut().zip(u).zip(u_dot) {
                *a = Scalar::new(*ui, *vi, 0.0);
            }
            (self.position)(args, Scalar::new(t, 1.0, 0.0), x);
            for (o, xi) in out.iter_mut().zip(x.iter()) {
                *o = xi.v1;
            }
        });
    }

    /// Position, velocity, Jacobian and velocity-product term at `(u, u̇, t)`.
    pub(crate) fn motion(&self, u: &[f64], u_dot: &[f64], t: f64, out: PointMotion<'_>) {
        let (n, dim) = (u.len(), out.x.len());
        self.with_args(n, dim, |args, x| {
            // Along (u̇, ṫ = 1): position, velocity and the full second directional derivative.
            for ((a, ui), vi) in args.iter_mut().zip(u).zip(u_dot) {
                *a = Scalar::new(*ui, *vi, 0.0);
            }
            (self.position)(args, Scalar::new(t, 1.0, 0.0), x);
            for k in 0..dim {
                out.x[k] = x[k].re;
                out.v[k] = x[k].v1;
                out.velocity_product[k] = x[k].v2;
            }
            // One column of J per coordinate.
            for c in 0..n {
                for (j, (a, ui)) in args.iter_mut().zip(u).enumerate() {
                    *a = Scalar::new(*ui, if j == c { 1.0 } else { 0.0 }, 0.0);
                }
                (self.position)(args, Scalar::from(t), x);
                for k in 0..dim {
                    out.jacobian[k * n + c] = x[k].v1;
                }
            }
        });
    }

    /// `∂x/∂t` at `(u, t)` (zero for an object that does not move by itself).
    pub(crate) fn time_rate(&self, u: &[f64], t: f64, out: &mut [f64]) {
        self.with_args(u.len(), out.len(), |args, x| {
            for (a, ui) in args.iter_mut().zip(u) {
                *a = Scalar::from(*ui);
            }
            (self.position)(args, Scalar::new(t, 1.0, 0.0), x);
            for (o, xi) in out.iter_mut().zip(x.iter()) {
                *o = xi.v1;
            }
        });
    }

    /// Adds `Σ_k g_k ∂²x_k/∂u²` (n × n, row-major, with stride `stride` from `out[0]`): the
    /// point's own curvature that the chain rule adds to a constraint's Hessian. By
    /// polarization of second directional derivatives: `H_ab = ½ (d²_{a+b} − d²_a − d²_b)`.
    pub(crate) fn add_curvature(
        &self,
        u: &[f64],
        t: f64,
        g: &[f64],
        mut add: impl FnMut(usize, usize, f64),
    ) {
        let (n, dim) = (u.len(), g.len());
        self.with_args(n, dim, |args, x| {
            let along = |dir: &dyn Fn(usize) -> f64, args: &mut [Scalar], x: &mut [Scalar]| {
                for (j, (a, ui)) in args.iter_mut().zip(u).enumerate() {
                    *a = Scalar::new(*ui, dir(j), 0.0);
                }
                (self.position)(args, Scalar::from(t), x);
                x.iter().zip(g).map(|(xk, gk)| gk * xk.v2).sum::<f64>()
            };
            let diagonal: Vec<f64> = (0..n)
                .map(|a| along(&|j| if j == a { 1.0 } else { 0.0 }, args, x))
                .collect();
            for a in 0..n {
                add(a, a, diagonal[a]);
                for b in 0..a {
                    let both = along(&|j| if j == a || j == b { 1.0 } else { 0.0 }, args, x);
                    let h = 0.5 * (both - diagonal[a] - diagonal[b]);
                    add(a, b, h);
                    add(b, a, h);
                }
            }
        });
    }

    /// Runs `f` with argument and output buffers of `n` and `dim` scalars.
    fn with_args(&self, n: usize, dim: usize, f: impl FnOnce(&mut [Scalar], &mut [Scalar])) {
        let zero = Scalar::from(0.0);
        if n <= INLINE && dim <= 3 {
            let (mut args, mut x) = ([zero; INLINE], [zero; 3]);
            f(&mut args[..n], &mut x[..dim]);
        } else {
            let (mut args, mut x) = (vec![zero; n], vec![zero; dim]);
            f(&mut args, &mut x);
        }
    }
}

/// Writes the generalized mass `Σ m_i J_iᵀ J_i` (row-major `n × n`) and adds the generalized
/// inertial force `−Σ m_i J_iᵀ a_i` to `force`, at `(u, u̇, t)`. Returns the mass's natural
/// scale `Σ m_i max(1, |x_i|²)` (kg·m²), against which a pivot counts as singular.
pub(crate) fn generalized_mass(
    points: &[MassPoint],
    dim: usize,
    u: &[f64],
    u_dot: &[f64],
    t: f64,
    mass: &mut [f64],
    force: &mut [f64],
) -> f64 {
    let n = u.len();
    mass.fill(0.0);
    let mut scale = 0.0;
    let (mut x, mut v, mut a) = ([0.0; 3], [0.0; 3], [0.0; 3]);
    // Evaluated at every step: no allocation for objects of up to 16 coordinates.
    let mut inline = [0.0; 3 * INLINE];
    let mut heap = Vec::new();
    let jacobian: &mut [f64] = if dim * n <= inline.len() {
        &mut inline[..dim * n]
    } else {
        heap.resize(dim * n, 0.0);
        &mut heap
    };
    for p in points {
        p.motion(
            u,
            u_dot,
            t,
            PointMotion {
                x: &mut x[..dim],
                v: &mut v[..dim],
                jacobian: &mut *jacobian,
                velocity_product: &mut a[..dim],
            },
        );
        for r in 0..n {
            for c in 0..n {
                mass[r * n + c] += p.mass
                    * (0..dim)
                        .map(|k| jacobian[k * n + r] * jacobian[k * n + c])
                        .sum::<f64>();
            }
            force[r] -= p.mass * (0..dim).map(|k| jacobian[k * n + r] * a[k]).sum::<f64>();
        }
        scale += p.mass * x[..dim].iter().map(|x| x * x).sum::<f64>().max(1.0);
    }
    scale
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::autodiff::DualNum;

    /// J, ẋ and the velocity-product term of a helix point match their closed forms.
    #[test]
    fn helix_point_motion_is_exact() {
        let helix = Parametric::new(&[0.0]).point("p", 1.0, |u, t, x| {
            x[0] = u[0].cos() * 0.5;
            x[1] = u[0].sin() * 0.5;
            x[2] = u[0] * 0.1 + t * 0.2;
        });
        let p = &helix.points[0];
        let (u, w, t) = (0.7_f64, 1.3_f64, 0.4);
        let (mut x, mut v, mut j, mut a) = ([0.0; 3], [0.0; 3], [0.0; 3], [0.0; 3]);
        p.motion(
            &[u],
            &[w],
            t,
            PointMotion {
                x: &mut x,
                v: &mut v,
                jacobian: &mut j,
                velocity_product: &mut a,
            },
        );
        let close = |a: &[f64], b: &[f64]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-14);
        assert!(close(
            &x,
            &[0.5 * u.cos(), 0.5 * u.sin(), 0.1 * u + 0.2 * t]
        ));
        assert!(close(&j, &[-0.5 * u.sin(), 0.5 * u.cos(), 0.1]));
        assert!(close(
            &v,
            &[-0.5 * u.sin() * w, 0.5 * u.cos() * w, 0.1 * w + 0.2]
        ));
        assert!(close(
            &a,
            &[-0.5 * u.cos() * w * w, -0.5 * u.sin() * w * w, 0.0]
        ));
        let mut xt = [0.0; 3];
        p.time_rate(&[u], t, &mut xt);
        assert!(close(&xt, &[0.0, 0.0, 0.2]));
    }
}
