//! The model a [`System`](crate::System) integrates: bodies, forces and constraints, everything
//! that defines `q̈(t, q, q̇)`, apart from the state and the machinery that steps it.
//!
//! Constraints live in reusable slots: contact groups add and remove pair constraints at every
//! step, and a list that only grew would make a long run slower and larger the longer it ran. A
//! removed constraint's slot is handed to the next one added, with a new generation in its
//! [`ConstraintId`], so that a stale handle never names the newcomer.

use crate::body::{Body, BodyKind};
use crate::constraint::{Constraint, ConstraintId};
use crate::error::ModelError;
use crate::force::{Force, ForceId};
use crate::ids::BodyId;
use crate::point::{Operand, Point};

/// A constraint and the name it is reported by.
#[derive(Debug)]
pub(crate) struct ConstraintEntry {
    pub(crate) constraint: Box<dyn Constraint>,
    pub(crate) name: String,
    pub(crate) operands: Vec<Operand>,
    pub(crate) rows: usize,
    /// Restitution of an inequality's impacts, if not the system's default.
    pub(crate) restitution: Option<f64>,
}

/// Bodies, forces and constraints: everything that defines `q̈(t, q, q̇)`.
#[derive(Debug)]
pub(crate) struct Model {
    pub(crate) dim: usize,
    pub(crate) bodies: Vec<Option<Body>>,
    pub(crate) forces: Vec<Option<Box<dyn Force>>>,
    pub(crate) constraints: ConstraintSlots,
}

impl Model {
    /// An empty `dim`-dimensional model.
    pub(crate) fn new(dim: usize) -> Model {
        Model {
            dim,
            bodies: Vec::new(),
            forces: Vec::new(),
            constraints: ConstraintSlots::default(),
        }
    }

    /// Body at slot `i`; slots handed out by this system always hold a body.
    pub(crate) fn body(&self, i: usize) -> &Body {
        match &self.bodies[i] {
            Some(b) => b,
            None => unreachable!("body handles are checked when forces and constraints are added"),
        }
    }

    /// The body `id`, or an error if this model has none such.
    pub(crate) fn checked_body(&self, id: BodyId) -> Result<&Body, ModelError> {
        self.bodies
            .get(id.0)
            .and_then(|b| b.as_ref())
            .ok_or(ModelError::UnknownBody(id))
    }

    /// The point named `name` of the parametric object `object`.
    pub(crate) fn parametric_point(&self, object: BodyId, name: &str) -> Result<Point, ModelError> {
        let body = self.checked_body(object)?;
        match &body.kind {
            BodyKind::Parametric {
                points,
                name: object_name,
                ..
            } => points
                .iter()
                .position(|p| p.name == name)
                .map(|index| Point::OfObject {
                    body: object,
                    index,
                })
                .ok_or_else(|| {
                    ModelError::Setting(format!(
                        "parametric object '{object_name}' has no point '{name}' (it has {})",
                        points
                            .iter()
                            .map(|p| p.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ))
                }),
            _ => Err(ModelError::UnknownBody(object)),
        }
    }

    /// The body `id`, checked to take `values` (finite, one per coordinate).
    pub(crate) fn body_for(
        &self,
        id: BodyId,
        values: &[f64],
        what: &'static str,
    ) -> Result<&Body, ModelError> {
        let body = self.checked_body(id)?;
        if values.len() != body.ndof {
            return Err(ModelError::Setting(format!(
                "{} {what} given for a body that has {} coordinates",
                values.len(),
                body.ndof
            )));
        }
        if values.iter().any(|x| !x.is_finite()) {
            return Err(ModelError::NonFinite(what));
        }
        Ok(body)
    }

    /// Changes a body's mass (kg; infinity makes it an anchor).
    pub(crate) fn set_mass(&mut self, body: BodyId, mass: f64) -> Result<(), ModelError> {
        if !(mass > 0.0) || mass.is_nan() {
            return Err(ModelError::Mass(mass));
        }
        self.checked_body(body)?;
        if let Some(Some(b)) = self.bodies.get_mut(body.0) {
            b.mass = mass;
        }
        Ok(())
    }

    /// Whether any body is a 3D rigid body, whose chart moves after each step.
    pub(crate) fn has_3d_bodies(&self) -> bool {
        self.bodies
            .iter()
            .flatten()
            .any(|b| matches!(b.kind, BodyKind::Rigid3d { .. }))
    }

    /// Adds a body; returns its handle.
    pub(crate) fn push_body(&mut self, body: Body) -> BodyId {
        self.bodies.push(Some(body));
        BodyId(self.bodies.len() - 1)
    }

    /// Checks that a point refers to a body of this model that can carry it.
    pub(crate) fn check_point(&self, point: &Point) -> Result<(), ModelError> {
        let body = self.checked_body(point.body())?;
        if !crate::point::point_fits(point, body) {
            return Err(ModelError::Constraint(format!(
                "{point:?}: a point in a body's frame needs a rigid body, and a particle's point a particle"
            )));
        }
        let local_finite = match point {
            Point::OnBody { local, .. } => local.iter().all(|x| x.is_finite()),
            Point::OnBody3d { local, .. } => local.iter().all(|x| x.is_finite()),
            _ => true,
        };
        if !local_finite {
            return Err(ModelError::NonFinite("a body point's local coordinates"));
        }
        Ok(())
    }

    /// Adds a force, checked against the dimension and the bodies it acts on.
    pub(crate) fn add_force(&mut self, force: Box<dyn Force>) -> Result<ForceId, ModelError> {
        force
            .check(self.dim)
            .map_err(|e| ModelError::ForceParameter(Box::new(e)))?;
        for p in force.points() {
            self.check_point(&p)?;
        }
        self.forces.push(Some(force));
        Ok(ForceId(self.forces.len() - 1))
    }

    /// Adds a constraint, checked against the dimension and the bodies it acts on, named
    /// `c<index>`.
    pub(crate) fn add_constraint(
        &mut self,
        constraint: Box<dyn Constraint>,
    ) -> Result<ConstraintId, ModelError> {
        let dim = self.dim;
        constraint
            .check(dim)
            .map_err(|e| ModelError::ConstraintParameter(Box::new(e)))?;
        let operands = constraint.operands();
        if operands.is_empty() {
            return Err(ModelError::Constraint(
                "a constraint needs at least one operand".into(),
            ));
        }
        for op in &operands {
            match op {
                Operand::Point(p) => self.check_point(p)?,
                _ => {
                    // Body coordinates are a rigid body's [x, y, θ]; a particle's are its point.
                    if !matches!(self.checked_body(op.body())?.kind, BodyKind::Rigid2d { .. }) {
                        return Err(ModelError::Constraint(format!(
                            "{:?} is not a rigid body: angle joints need rigid bodies",
                            op.body()
                        )));
                    }
                }
            }
        }
        let rows = constraint.rows(dim);
        if rows == 0 {
            return Err(ModelError::Constraint(
                "a constraint needs at least one row".into(),
            ));
        }
        let (lo, hi) = constraint.multiplier_bounds();
        if !(lo <= hi && lo < f64::INFINITY && hi > f64::NEG_INFINITY) {
            return Err(ModelError::Constraint(format!(
                "its multiplier bounds ({lo}, {hi}) must be numbers with lo ≤ hi, lo < ∞ and \
                 hi > −∞"
            )));
        }
        for r in 0..rows {
            let Some(f) = constraint.friction(r) else {
                continue;
            };
            let normal_is_inequality = f.normal < rows
                && constraint.row_kind(f.normal) == crate::constraint::ConstraintKind::Inequality;
            if !normal_is_inequality
                || constraint.row_kind(r) != crate::constraint::ConstraintKind::Velocity
            {
                return Err(ModelError::Constraint(format!(
                    "friction row {r} must hold a velocity and be bounded by an inequality row \
                     of its own constraint, got normal row {}",
                    f.normal
                )));
            }
            if !(f.coefficient >= 0.0 && f.coefficient.is_finite()) {
                return Err(ModelError::Constraint(format!(
                    "the friction coefficient must be zero or more, got {}",
                    f.coefficient
                )));
            }
        }
        let id = self
            .constraints
            .insert(|id| ConstraintEntry {
                constraint,
                name: format!("c{}", id.index()),
                operands,
                rows,
                restitution: None,
            })
            .ok_or_else(|| ModelError::Constraint("the system holds 2³² constraints".into()))?;
        Ok(id)
    }

    /// The constraint `id`'s entry, or an error if it no longer exists.
    pub(crate) fn entry_mut(
        &mut self,
        id: ConstraintId,
    ) -> Result<&mut ConstraintEntry, ModelError> {
        self.constraints
            .get_mut(id)
            .ok_or(ModelError::UnknownConstraint(id))
    }

    /// Sets the coefficient of restitution (0 to 1) of an inequality constraint's impacts.
    pub(crate) fn set_restitution(
        &mut self,
        id: ConstraintId,
        restitution: f64,
    ) -> Result<(), ModelError> {
        if !(0.0..=1.0).contains(&restitution) {
            return Err(ModelError::Setting(format!(
                "restitution must be in [0, 1], got {restitution}"
            )));
        }
        self.entry_mut(id)?.restitution = Some(restitution);
        Ok(())
    }
}

/// Constraint slots: an index and a generation per constraint, slots reused last-freed first.
#[derive(Debug, Default)]
pub(crate) struct ConstraintSlots {
    slots: Vec<Slot>,
    /// Empty slots, the most recently freed last.
    free: Vec<usize>,
    /// Counts the changes to the constraints: each insertion, removal and mutable access.
    version: u64,
}

#[derive(Debug)]
struct Slot {
    generation: u32,
    entry: Option<ConstraintEntry>,
}

impl ConstraintSlots {
    /// Stores the entry `entry` builds from the handle it will have (default names are
    /// `c<slot>`) in a free slot, or a new one, and returns the handle; `None` when all 2³²
    /// slots are in use.
    pub(crate) fn insert(
        &mut self,
        entry: impl FnOnce(ConstraintId) -> ConstraintEntry,
    ) -> Option<ConstraintId> {
        let index = match self.free.pop() {
            Some(i) => i,
            None => {
                u32::try_from(self.slots.len()).ok()?;
                self.slots.push(Slot {
                    generation: 0,
                    entry: None,
                });
                self.slots.len() - 1
            }
        };
        let slot = &mut self.slots[index];
        let id = ConstraintId {
            index: u32::try_from(index).ok()?,
            generation: slot.generation,
        };
        slot.entry = Some(entry(id));
        self.version += 1;
        Some(id)
    }

    /// A number that changes whenever a constraint may have: one is added, removed, or lent
    /// out mutably ([`ConstraintSlots::get_mut`]).
    pub(crate) fn version(&self) -> u64 {
        self.version
    }

    /// Removes the constraint `id`; returns whether it existed.
    pub(crate) fn remove(&mut self, id: ConstraintId) -> bool {
        match self.slots.get_mut(id.index()) {
            Some(slot) if slot.generation == id.generation && slot.entry.is_some() => {
                self.version += 1;
                slot.entry = None;
                slot.generation = slot.generation.wrapping_add(1);
                self.free.push(id.index());
                true
            }
            _ => false,
        }
    }

    /// The constraint `id`, if it still exists.
    pub(crate) fn get(&self, id: ConstraintId) -> Option<&ConstraintEntry> {
        self.slots
            .get(id.index())
            .filter(|s| s.generation == id.generation)?
            .entry
            .as_ref()
    }

    /// The constraint `id`, mutably, if it still exists.
    pub(crate) fn get_mut(&mut self, id: ConstraintId) -> Option<&mut ConstraintEntry> {
        self.version += 1;
        self.slots
            .get_mut(id.index())
            .filter(|s| s.generation == id.generation)?
            .entry
            .as_mut()
    }

    /// The live constraints in slot order, with their handles.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (ConstraintId, &ConstraintEntry)> + '_ {
        // Slots past u32::MAX are never handed out (see `insert`).
        self.slots.iter().zip(0..u32::MAX).filter_map(|(s, index)| {
            let entry = s.entry.as_ref()?;
            Some((
                ConstraintId {
                    index,
                    generation: s.generation,
                },
                entry,
            ))
        })
    }

    /// Number of slots, live or free: what the memory of the model scales with.
    pub(crate) fn capacity(&self) -> usize {
        self.slots.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::constraint::Nail;
    use crate::{Particle, System};

    fn entry(id: ConstraintId) -> ConstraintEntry {
        let mut sys = System::new(2).unwrap_or_else(|_| unreachable!());
        let p = sys
            .add_particle(Particle::new(&[0.0, 0.0]))
            .unwrap_or_else(|_| unreachable!());
        ConstraintEntry {
            constraint: Box::new(Nail::new(p, &[0.0, 0.0])),
            name: format!("c{}", id.index),
            operands: Vec::new(),
            rows: 2,
            restitution: None,
        }
    }

    /// A freed slot is reused, and the stale handle does not name the newcomer.
    #[test]
    fn slots_are_reused_with_a_new_generation() {
        let mut slots = ConstraintSlots::default();
        let mut insert = || slots.insert(entry).unwrap_or_else(|| unreachable!());
        let a = insert();
        let b = insert();
        assert!(slots.remove(a));
        assert!(!slots.remove(a));
        let c = slots.insert(entry).unwrap_or_else(|| unreachable!());
        assert_eq!(c.index, a.index);
        assert_ne!(c, a);
        assert!(slots.get(a).is_none());
        assert!(slots.get(c).is_some() && slots.get(b).is_some());
        assert_eq!(slots.capacity(), 2);
        let ids: Vec<_> = slots.iter().map(|(id, _)| id).collect();
        assert_eq!(ids, [c, b]);
    }
}
