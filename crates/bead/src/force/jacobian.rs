//! The applied forces' Jacobians, `−∂f/∂x` and `−∂f/∂ẋ`, which the implicit steppers put into
//! their Newton matrix (Baraff and Witkin 1998, "Large Steps in Cloth Simulation"):
//!
//! ```text
//! [ M − ĥ² ∂Q/∂q − ĥ ∂Q/∂q̇ + ĥ² K̃   Jᵀ ]
//! [ J                                0  ]
//! ```
//!
//! A force gives its Jacobians in world terms, over the points it acts at; [`ForceJacobian`]
//! carries them to the bodies' coordinates by the points' Jacobians `P = ∂x/∂q`, as
//! `Pᵀ (ĥ² K + ĥ D) P`. Only the matrix takes them: the steppers' residual evaluates every force
//! at the step's end, so a force without a Jacobian is still implicit, only slower to converge
//! where it is stiff. The terms a point's curvature adds (`(∂Pᵀ/∂q) f`) are left out; a
//! parametric object's own block carries its own.

use crate::body::{BodyId, BodyKind};
use crate::math::bands::Bands;
use crate::point::{Point, point_jacobian};
use crate::view::View;

/// Where a force adds its Jacobians (see [`Force::jacobian`](super::Force::jacobian)), and the
/// state it reads them at ([`ForceJacobian::view`]).
#[derive(Debug)]
pub struct ForceJacobian<'a> {
    pub(crate) view: View<'a>,
    /// The weights of `K = −∂f/∂x` and `D = −∂f/∂ẋ` in the Newton matrix: `(ĥ², ĥ)`.
    pub(crate) weights: (f64, f64),
    pub(crate) bands: &'a mut Bands,
}

impl<'a> ForceJacobian<'a> {
    /// The state: time, point positions and velocities.
    pub fn view(&self) -> &View<'a> {
        &self.view
    }

    /// Adds the Jacobians of the forces this force applies at `points` (`f`, the forces at the
    /// points stacked in their order, `points.len() · dim` components): `stiffness = −∂f/∂x`
    /// and `damping = −∂f/∂ẋ` over the points' stacked world coordinates, each row-major and
    /// square (an empty slice for a zero one). Both should be symmetric and positive
    /// semi-definite, as those of springs and dampers are; the Newton matrix replaces a block
    /// that is not by a positive diagonal bound, which still converges, more slowly.
    ///
    /// ```
    /// use bead::force::{Force, ForceContext, ForceJacobian};
    /// use bead::{integrate::ImplicitEuler, Particle, Point, System};
    ///
    /// /// A stiff spring `f = −k x` from one point to the origin.
    /// #[derive(Debug)]
    /// struct ToOrigin(Point, f64);
    ///
    /// impl Force for ToOrigin {
    ///     fn apply(&self, ctx: &mut ForceContext<'_>) {
    ///         let x = ctx.view().position(&self.0);
    ///         ctx.add_force(&self.0, &x.map(|x| -self.1 * x));
    ///     }
    ///     fn jacobian(&self, ctx: &mut ForceJacobian<'_>) {
    ///         let k = self.1;
    ///         ctx.add_points(&[self.0], &[k, 0.0, 0.0, k], &[]);
    ///     }
    /// }
    ///
    /// let mut sys = System::new(2)?;
    /// sys.set_integrator(ImplicitEuler::default());
    /// let p = sys.add_particle(Particle::new(&[0.1, 0.0]))?;
    /// sys.add_force(ToOrigin(p.into(), 1e8))?; // ω h = 10 at h = 1 ms
    /// for _ in 0..100 {
    ///     sys.step(1e-3).expect("implicit in the spring too");
    /// }
    /// assert!(sys.position(p)[0].abs() < 0.1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn add_points(&mut self, points: &[Point], stiffness: &[f64], damping: &[f64]) {
        let dim = self.view.dim;
        let rows = points.len() * dim;
        let usable = |m: &[f64]| m.len() == rows * rows && m.iter().any(|x| *x != 0.0);
        let (stiff, damped) = (usable(stiffness), usable(damping));
        if !(stiff || damped) {
            return;
        }
        // The bodies the points lie on, each once, and where each body's coordinates start in
        // the band.
        let mut bodies: Vec<(BodyId, usize)> = Vec::with_capacity(points.len());
        let mut coordinates = Vec::new();
        for point in points {
            let id = point.body();
            if bodies.iter().all(|(b, _)| *b != id) {
                let body = self.view.body(point);
                bodies.push((id, coordinates.len()));
                coordinates.extend(body.offset..body.offset + body.ndof);
            }
        }
        let cols = coordinates.len();
        // P, stacked: row `a·dim + r` is component r of point a.
        let mut p = vec![0.0; rows * cols];
        let mut block = Vec::new();
        for (a, point) in points.iter().enumerate() {
            let body = self.view.body(point);
            let start = bodies
                .iter()
                .find(|(b, _)| *b == point.body())
                .map_or(0, |(_, s)| *s);
            block.clear();
            block.resize(dim * body.ndof, 0.0);
            point_jacobian(point, body, self.view.t, self.view.q, &mut block);
            for r in 0..dim {
                let row = &mut p[(a * dim + r) * cols..(a * dim + r + 1) * cols];
                row[start..start + body.ndof]
                    .copy_from_slice(&block[r * body.ndof..(r + 1) * body.ndof]);
            }
        }
        // A = w_k K + w_d D over the stacked coordinates, then Pᵀ A P.
        let (wk, wd) = self.weights;
        let a: Vec<f64> = (0..rows * rows)
            .map(|i| {
                let k = if stiff { wk * stiffness[i] } else { 0.0 };
                let d = if damped { wd * damping[i] } else { 0.0 };
                k + d
            })
            .collect();
        let out = self.bands.push(&coordinates, false, bodies.len() > 1);
        let mut ap = vec![0.0; rows * cols];
        for r in 0..rows {
            for c in 0..cols {
                ap[r * cols + c] = (0..rows).map(|k| a[r * rows + k] * p[k * cols + c]).sum();
            }
        }
        for r in 0..cols {
            for c in 0..cols {
                out[r * cols + c] = (0..rows).map(|k| p[k * cols + r] * ap[k * cols + c]).sum();
            }
        }
    }

    /// Adds the Jacobians of torques this force applies to rigid bodies: `stiffness = −∂τ/∂θ`
    /// and `damping = −∂τ/∂ω` over the bodies' angles in the order given (square, row-major;
    /// an empty slice for a zero one). Bodies that do not turn are left out.
    ///
    /// ```
    /// use bead::force::{Force, ForceContext, ForceJacobian};
    /// use bead::{RigidBody, RigidBodyId, System};
    ///
    /// /// A torsion spring `τ = −k θ` holding one body's angle at 0.
    /// #[derive(Debug)]
    /// struct Hold(RigidBodyId, f64);
    ///
    /// impl Force for Hold {
    ///     fn apply(&self, ctx: &mut ForceContext<'_>) {
    ///         let tau = -self.1 * ctx.view().angle(self.0.into());
    ///         ctx.add_torque(self.0.into(), tau);
    ///     }
    ///     fn jacobian(&self, ctx: &mut ForceJacobian<'_>) {
    ///         ctx.add_angles(&[self.0.into()], &[self.1], &[]);
    ///     }
    /// }
    ///
    /// let mut sys = System::new(2)?;
    /// let wheel = sys.add_rigid_body(RigidBody::new(&[0.0, 0.0], 0.3).mass(1.0).inertia(1e-3))?;
    /// sys.add_force(Hold(wheel, 10.0))?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn add_angles(&mut self, bodies: &[BodyId], stiffness: &[f64], damping: &[f64]) {
        let n = bodies.len();
        let angle = |b: &BodyId| match self.view.bodies.get(b.0) {
            Some(Some(body)) if matches!(body.kind, BodyKind::Rigid2d { .. }) => {
                Some(body.offset + 2)
            }
            _ => None,
        };
        let angles: Vec<Option<usize>> = bodies.iter().map(angle).collect();
        let kept: Vec<usize> = (0..n).filter(|&i| angles[i].is_some()).collect();
        if kept.is_empty() {
            return;
        }
        let coordinates: Vec<usize> = kept.iter().filter_map(|&i| angles[i]).collect();
        let (wk, wd) = self.weights;
        let entry = |m: &[f64], i: usize| if m.len() == n * n { m[i] } else { 0.0 };
        let out = self.bands.push(&coordinates, false, coordinates.len() > 1);
        let k = kept.len();
        for (r, &a) in kept.iter().enumerate() {
            for (c, &b) in kept.iter().enumerate() {
                out[r * k + c] = wk * entry(stiffness, a * n + b) + wd * entry(damping, a * n + b);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ForceJacobian;
    use crate::force::{Drag, MouseSpring, Spring, TorsionSpring};
    use crate::math::bands::Bands;
    use crate::view::View;
    use crate::{Particle, RigidBody, System};

    /// `(−∂Q/∂q, −∂Q/∂q̇)` of `sys`'s forces at its state, dense, by central differences.
    fn differences(sys: &mut System) -> (Vec<f64>, Vec<f64>) {
        let (q, v) = (sys.q().to_vec(), sys.q_dot().to_vec());
        let n = q.len();
        let mut force = |q: &[f64], v: &[f64]| -> Vec<f64> {
            let parts = sys.parts();
            let (applied, _) = parts
                .acceleration
                .applied_force(parts.evaluator, parts.model, (0.0, q, v), true)
                .unwrap_or_else(|e| panic!("{e}"));
            applied.to_vec()
        };
        let (mut k, mut d) = (vec![0.0; n * n], vec![0.0; n * n]);
        let step = 1e-6;
        for c in 0..n {
            for (which, out) in [(0, &mut k), (1, &mut d)] {
                let (mut plus, mut minus) = ((q.clone(), v.clone()), (q.clone(), v.clone()));
                if which == 0 {
                    plus.0[c] += step;
                    minus.0[c] -= step;
                } else {
                    plus.1[c] += step;
                    minus.1[c] -= step;
                }
                let (a, b) = (force(&plus.0, &plus.1), force(&minus.0, &minus.1));
                for r in 0..n {
                    out[r * n + c] = -(a[r] - b[r]) / (2.0 * step);
                }
            }
        }
        (k, d)
    }

    /// The forces' Jacobians as [`ForceJacobian`] assembles them with weights `weights`,
    /// dense.
    fn assembled(sys: &mut System, weights: (f64, f64)) -> Vec<f64> {
        let (q, v) = (sys.q().to_vec(), sys.q_dot().to_vec());
        let n = q.len();
        let parts = sys.parts();
        let mut bands = Bands::default();
        let mut ctx = ForceJacobian {
            view: View {
                t: 0.0,
                dim: parts.model.dim,
                bodies: &parts.model.bodies,
                q: &q,
                v: &v,
            },
            weights,
            bands: &mut bands,
        };
        for force in parts.model.forces.iter().flatten() {
            force.jacobian(&mut ctx);
        }
        let mut dense = vec![0.0; n * n];
        let mut first = 0;
        for b in 0..bands.len() {
            let coordinates = bands.coordinates(b);
            let k = coordinates.len();
            for (r, &i) in coordinates.iter().enumerate() {
                for (c, &j) in coordinates.iter().enumerate() {
                    dense[i * n + j] += bands.values()[first + r * k + c];
                }
            }
            first += k * k;
        }
        dense
    }

    /// Asserts the assembled Jacobians equal the differences, to `relative` of the largest.
    fn check(mut sys: System, relative: f64) {
        let (k, d) = differences(&mut sys);
        for (name, exact, got) in [
            ("stiffness", &k, assembled(&mut sys, (1.0, 0.0))),
            ("damping", &d, assembled(&mut sys, (0.0, 1.0))),
        ] {
            let scale = exact.iter().fold(1.0_f64, |m, x| m.max(x.abs()));
            for (i, (a, b)) in exact.iter().zip(&got).enumerate() {
                assert!(
                    (a - b).abs() <= relative * scale,
                    "{name}[{i}]: {b}, the differences give {a}"
                );
            }
        }
    }

    /// A damped spring in tension, moving along its axis (its damping's turn of the axis then
    /// leaves no antisymmetric part), a mouse spring and drag, on particles in the plane and in
    /// space: exact.
    #[test]
    fn particle_force_jacobians_match_differences() {
        for dim in [2, 3] {
            let mut sys = System::new(dim).unwrap_or_else(|e| panic!("{e}"));
            let x = |a: f64, b: f64| [a, b, 0.3][..dim].to_vec();
            let a = sys
                .add_particle(Particle::new(&x(0.1, 0.2)).velocity(&x(0.0, 0.0)))
                .unwrap_or_else(|e| panic!("{e}"));
            let b = sys
                .add_particle(Particle::new(&x(1.1, 0.7)).mass(2.0).velocity(&x(1.0, 0.5)))
                .unwrap_or_else(|e| panic!("{e}"));
            let add = |sys: &mut System, f: Box<dyn crate::force::Force>| {
                sys.add_force_boxed(f).unwrap_or_else(|e| panic!("{e}"));
            };
            add(&mut sys, Box::new(Spring::new(a, b, 300.0, 7.0, 0.8)));
            add(
                &mut sys,
                Box::new(MouseSpring::new(b, &x(2.0, 1.0), 50.0, 3.0)),
            );
            add(&mut sys, Box::new(Drag::new(0.7)));
            check(sys, 1e-7);
        }
    }

    /// A torsion spring between two wheels: exact on their angles.
    #[test]
    fn torsion_spring_jacobians_match_differences() {
        let mut sys = System::new(2).unwrap_or_else(|e| panic!("{e}"));
        let body = |sys: &mut System, angle: f64| {
            sys.add_rigid_body(
                RigidBody::new(&[0.0, 0.0], angle).velocity(&[0.0, 0.0], angle - 0.2),
            )
            .unwrap_or_else(|e| panic!("{e}"))
        };
        let (a, b) = (body(&mut sys, 0.3), body(&mut sys, 1.1));
        sys.add_force(TorsionSpring::new(a, b, 40.0, 2.0, 0.1))
            .unwrap_or_else(|e| panic!("{e}"));
        check(sys, 1e-7);
    }
}
