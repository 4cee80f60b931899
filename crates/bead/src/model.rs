//! The model a [`System`](crate::System) integrates: bodies, forces and constraints, everything
//! that defines `q̈(t, q, q̇)`, apart from the state and the machinery that steps it.
//!
//! Constraints live in reusable slots: contact groups add and remove pair constraints at every
//! step, and a list that only grew would make a long run slower and larger the longer it ran. A
//! removed constraint's slot is handed to the next one added, with a new generation in its
//! [`ConstraintId`], so that a stale handle never names the newcomer.

use crate::body::Body;
use crate::constraint::{Constraint, ConstraintId};
use crate::force::Force;
use crate::point::Operand;

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
