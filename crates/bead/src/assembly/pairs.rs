//! The rows that are separations of two particles — rods, ropes, contacts between balls (see
//! [`Constraint::separation`]) — evaluated in a loop of their own.
//!
//! The general path ([`Evaluator::evaluate_constraints`]) gathers each constraint's operands into
//! buffers, calls the constraint, and carries its gradients through each point's chain rule
//! `J_b = Σ G_i P_i` (seed 000 §4). For a particle's point `P = I`, and that bookkeeping is most
//! of the cost: on the viewer's 30 × 30 curtain, whose 1,711 rods are all of its constraints, it
//! was two thirds of evaluating a row, and evaluating the rows a third of an implicit step.
//! Between two particles the row's blocks of `J` are its gradient itself, so this writes `C`,
//! `Ċ`, `J̇q̇` and the two blocks straight from `q` and `q̇`, with the arithmetic of the
//! constraints' own `evaluate` ([`separation`](crate::constraint::Distance)) in the same order: the numbers are the same to
//! the bit. The geometric stiffness of such a row, `λ ∇²C`, is written the same way.
//!
//! [`Constraint::separation`]: crate::constraint::Constraint::separation
//! [`Evaluator::evaluate_constraints`]: super::evaluator::Evaluator::evaluate_constraints

use crate::constraint::{
    Constraint, ConstraintError, ConstraintId, Separation, add_separation_hessian,
    separation as separation_row, separation_along,
};
use crate::error::EvalError;
use crate::math::vector::dot;
use crate::model::Model;

/// Where a separation between two particles reads and writes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ParticlePair {
    /// The constraint.
    id: ConstraintId,
    /// Its row.
    row: usize,
    /// The first coordinate of each particle in `q`.
    coordinates: [usize; 2],
    /// Where each particle's block of `J` (one row, `dim` columns) starts in `J`'s values.
    values: [usize; 2],
}

/// The rows of one evaluation that [`ParticlePairs::evaluate`] writes.
pub(crate) struct Rows<'a> {
    /// `C`.
    pub(crate) c: &'a mut [f64],
    /// `Ċ`.
    pub(crate) c_dot: &'a mut [f64],
    /// `∂C/∂t`.
    pub(crate) c_t: &'a mut [f64],
    /// `J̇q̇`.
    pub(crate) jdot_qdot: &'a mut [f64],
    /// `J`'s values.
    pub(crate) jacobian: &'a mut [f64],
}

impl ParticlePair {
    /// The pair of constraint `id`'s row `row`, between the particles whose coordinates start
    /// at `coordinates` in `q`, whose blocks of `J` start at `values` in its values.
    pub(crate) fn new(
        id: ConstraintId,
        row: usize,
        coordinates: [usize; 2],
        values: [usize; 2],
    ) -> ParticlePair {
        ParticlePair {
            id,
            row,
            coordinates,
            values,
        }
    }

    /// Adds `λ ∇²C` of the row in the two particles' coordinates (row-major `2 dim × 2 dim`,
    /// the first particle's first) into `hessian`.
    pub(crate) fn stiffness(
        &self,
        separation: Separation,
        dim: usize,
        q: &[f64],
        lambda: f64,
        hessian: &mut [f64],
    ) -> Result<(), ConstraintError> {
        let [a, b] = self.coordinates;
        add_separation_hessian(
            [&q[a..a + dim], &q[b..b + dim]],
            separation.sign * lambda,
            hessian,
        )
    }
}

/// The separation a pair's constraint is: it said so when the layout was made, and must still.
pub(crate) fn separation_of(constraint: &dyn Constraint) -> Result<Separation, ConstraintError> {
    constraint.separation().ok_or_else(|| {
        ConstraintError::new("its separation() answered when it was added, and no longer does")
    })
}

/// The layout's separations between particles, and what each is (its length and sign), read
/// from the constraints again only when they may have changed.
#[derive(Debug, Default)]
pub(crate) struct ParticlePairs {
    pairs: Vec<ParticlePair>,
    /// Each pair's separation (`None` for a constraint no longer there, whose row is left be).
    separations: Vec<Option<Separation>>,
    /// The constraints' [`version`](crate::model::ConstraintSlots::version) `separations` were
    /// read at.
    read_at: Option<u64>,
}

impl ParticlePairs {
    /// Adds a pair (the layout's, in row order).
    pub(crate) fn extend(&mut self, pair: Option<ParticlePair>) {
        self.pairs.extend(pair);
        self.read_at = None;
    }

    /// Writes each pair's row of `rows` (`C`, `Ċ`, `∂C/∂t` and `J̇q̇`) at `(q, q̇)`, and its
    /// gradient into its two blocks of `J`. With `held`, `q` at the step's start and which rows
    /// are inequalities: the contacts among them (inequalities of sign `+`) are held along their
    /// normals there (see [`separation_along`]).
    pub(crate) fn evaluate(
        &mut self,
        model: &Model,
        (q, v): (&[f64], &[f64]),
        rows: Rows<'_>,
        held: Option<(&[f64], &[bool])>,
    ) -> Result<(), EvalError> {
        if self.read_at != Some(model.constraints.version()) {
            // A dynamic call per rod and Newton iteration was a twentieth of a cloth's step.
            self.separations.clear();
            for pair in &self.pairs {
                let separation = match model.constraints.get(pair.id) {
                    Some(entry) => {
                        Some(separation_of(entry.constraint.as_ref()).map_err(|source| {
                            EvalError::Constraint {
                                id: pair.id,
                                name: entry.name.clone(),
                                source,
                            }
                        })?)
                    }
                    None => None,
                };
                self.separations.push(separation);
            }
            self.read_at = Some(model.constraints.version());
        }
        // The dimension as a constant: the loop over a cloth's rods is then straight-line code.
        match model.dim {
            2 => evaluate_in::<2>(&self.pairs, &self.separations, model, (q, v), rows, held),
            _ => evaluate_in::<3>(&self.pairs, &self.separations, model, (q, v), rows, held),
        }
    }
}

fn evaluate_in<const D: usize>(
    pairs: &[ParticlePair],
    separations: &[Option<Separation>],
    model: &Model,
    (q, v): (&[f64], &[f64]),
    rows: Rows<'_>,
    held: Option<(&[f64], &[bool])>,
) -> Result<(), EvalError> {
    for (pair, separation) in pairs.iter().zip(separations) {
        let Some(separation) = separation else {
            continue;
        };
        let [a, b] = pair.coordinates;
        let (xa, xb) = (&q[a..a + D], &q[b..b + D]);
        let (va, vb) = (&v[a..a + D], &v[b..b + D]);
        let row = match held {
            Some((start, inequality)) if separation.sign > 0.0 && inequality[pair.row] => {
                let start = [&start[a..a + D], &start[b..b + D]];
                separation_along([xa, xb], start, separation.length)
            }
            _ => separation_row([xa, xb], [va, vb], separation.length, separation.sign),
        };
        let r = row.map_err(|source| EvalError::Constraint {
            id: pair.id,
            name: model
                .constraints
                .get(pair.id)
                .map(|e| e.name.clone())
                .unwrap_or_default(),
            source,
        })?;
        let minus = r.gradient.map(|g| -g);
        let row = pair.row;
        rows.c[row] = r.value;
        rows.c_t[row] = 0.0;
        rows.jdot_qdot[row] = r.jdot_xdot;
        // As the general path sums it, operand by operand.
        rows.c_dot[row] = 0.0 + dot(&r.gradient[..D], va) + dot(&minus[..D], vb);
        for (start, gradient) in pair.values.into_iter().zip([&r.gradient, &minus]) {
            for (j, g) in rows.jacobian[start..start + D].iter_mut().zip(gradient) {
                // A pair's blocks are its own: written whole, as the general path sums them
                // onto zero.
                *j = 0.0 + g;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::assembly::stiffness::constraint_stiffness;
    use crate::constraint::{Distance, NonPenetration};
    use crate::{Constraint, ConstraintError, ConstraintEval, Operand, Particle, Point, System};

    /// A separation that does not say it is one: the system evaluates it by the general path.
    #[derive(Debug)]
    struct General(Box<dyn Constraint>);

    impl Constraint for General {
        fn rows(&self, dim: usize) -> usize {
            self.0.rows(dim)
        }
        fn operands(&self) -> Vec<Operand> {
            self.0.operands()
        }
        fn kind(&self) -> crate::ConstraintKind {
            self.0.kind()
        }
        fn evaluate(&self, eval: &mut ConstraintEval<'_>) -> Result<(), ConstraintError> {
            self.0.evaluate(eval)
        }
        fn weighted_hessian(
            &self,
            at: &crate::constraint::HessianEval<'_>,
            weights: &[f64],
            hessian: &mut [f64],
        ) -> Result<(), ConstraintError> {
            self.0.weighted_hessian(at, weights, hessian)
        }
    }

    /// Everything one evaluation of `sys`'s constraints writes at `(q, v)`, and the geometric
    /// stiffness of each under multipliers `lambda`.
    fn evaluation(sys: &mut System, q: &[f64], v: &[f64], lambda: &[f64]) -> Vec<Vec<f64>> {
        let parts = sys.parts();
        let ev = parts.evaluator;
        ev.evaluate_constraints(parts.model, 0.3, q, v)
            .unwrap_or_else(|e| panic!("{e}"));
        let mut out = vec![
            ev.c().to_vec(),
            ev.c_dot().to_vec(),
            ev.c_t().to_vec(),
            ev.jdot_qdot().to_vec(),
            ev.layout().jacobian.values().to_vec(),
        ];
        constraint_stiffness(ev, parts.model, 0.3, q, lambda, |_, k, _| {
            out.push(k.to_vec())
        })
        .unwrap_or_else(|e| panic!("{e}"));
        out
    }

    /// Rods, a contact and a rope between particles, with a rigid body's point among them (which
    /// the general path keeps), evaluated in their own loop and by the general path: the same
    /// numbers to the bit, in 2D and 3D.
    #[test]
    fn particle_pairs_evaluate_as_the_general_path_does() {
        for dim in [2, 3] {
            let build = |general: bool| {
                let mut sys = System::new(dim).unwrap_or_else(|e| panic!("{e}"));
                let at = |x: f64, y: f64| {
                    let mut p = vec![x, y, 0.4 * x];
                    p.truncate(dim);
                    p
                };
                let a = sys.add_particle(Particle::new(&at(0.1, 0.2)).mass(2.0));
                let b = sys.add_particle(Particle::anchor(&at(1.3, -0.4)));
                let c = sys.add_particle(Particle::new(&at(-0.7, 0.9)).mass(0.5));
                let (a, b, c) = match (a, b, c) {
                    (Ok(a), Ok(b), Ok(c)) => (a, b, c),
                    _ => panic!("particles"),
                };
                let body = if dim == 2 {
                    let body = crate::RigidBody::new(&[0.5, 0.5], 0.3)
                        .mass(1.0)
                        .inertia(0.1);
                    Some(sys.add_rigid_body(body).unwrap_or_else(|e| panic!("{e}")))
                } else {
                    None
                };
                let mut constraints: Vec<Box<dyn Constraint>> = vec![
                    Box::new(Distance::new(a, b, 1.1)),
                    Box::new(NonPenetration::new(b, c, 0.3)),
                    Box::new(NonPenetration::rope(c, a, 1.4)),
                ];
                if let Some(body) = body {
                    constraints.push(Box::new(Distance::new(
                        a,
                        Point::on_body(body, [0.2, 0.1]),
                        0.6,
                    )));
                }
                for constraint in constraints {
                    let added = if general {
                        sys.add_constraint(General(constraint))
                    } else {
                        sys.add_constraint_boxed(constraint)
                    };
                    added.unwrap_or_else(|e| panic!("{e}"));
                }
                sys
            };
            let (mut fast, mut general) = (build(false), build(true));
            let parts = fast.parts();
            let layout = parts.evaluator.layout();
            let pairs = layout.constraints.iter();
            assert_eq!(pairs.filter(|s| s.pair.is_some()).count(), 3);
            let rows = layout.rows();
            let q = fast.q().to_vec();
            let v: Vec<f64> = (0..q.len()).map(|i| 0.3 * i as f64 - 0.8).collect();
            let lambda: Vec<f64> = (0..rows).map(|r| 1.7 - 1.1 * r as f64).collect();
            let (x, y) = (
                evaluation(&mut fast, &q, &v, &lambda),
                evaluation(&mut general, &q, &v, &lambda),
            );
            assert_eq!(x.len(), y.len());
            for (x, y) in x.iter().zip(&y) {
                let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(x), bits(y), "{dim}D: {x:?} against {y:?}");
            }
        }
    }

    /// A rod's length changed through the system between two evaluations is the one the
    /// second evaluates (the pairs keep what each separation is, and read it again then).
    #[test]
    fn a_changed_length_is_evaluated() {
        let mut sys = System::new(2).unwrap_or_else(|e| panic!("{e}"));
        let a = sys.add_particle(Particle::new(&[0.0, 0.0]));
        let b = sys.add_particle(Particle::new(&[3.0, 4.0]));
        let (Ok(a), Ok(b)) = (a, b) else {
            panic!("particles")
        };
        let rod = sys
            .add_constraint(Distance::new(a, b, 5.0))
            .unwrap_or_else(|e| panic!("{e}"));
        let (q, v) = (sys.q().to_vec(), vec![0.0; 4]);
        assert_eq!(evaluation(&mut sys, &q, &v, &[0.0])[0], [0.0]);
        if let Some(rod) = sys.constraint_mut::<Distance>(rod) {
            rod.set_length(4.5);
        }
        assert_eq!(evaluation(&mut sys, &q, &v, &[0.0])[0], [0.5]);
    }
}
