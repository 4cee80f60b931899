//! Automatic non-penetration among a group of particles (`[[contacts]]`), found by sort and sweep
//! so that n particles do not cost n² constraints.
//!
//! Before each step the group's particles are sorted by the left end of their x extent, inflated
//! by a margin (the distance the fastest particle can cover in two steps); a sweep keeps the pairs
//! whose extents overlap, and a pair becomes a [`NonPenetration`] constraint when the particles are
//! within the margin of touching. A pair's constraint is removed once they are two margins apart
//! (the gap between the two thresholds keeps a pair from flickering). Existing constraints keep
//! their λ as a warm start across the rebuild.

use std::collections::HashMap;

use crate::constraint::{ConstraintId, NonPenetration};
use crate::error::ModelError;
use crate::ids::ContactGroupId;
use crate::system::System;
use crate::{ParticleId, Point};

/// A set of particles that may not overlap each other.
#[derive(Clone, Debug)]
pub(crate) struct ContactGroup {
    members: Vec<ParticleId>,
    restitution: Option<f64>,
    /// The live pair constraints, keyed by member indices (smaller first).
    pairs: HashMap<(usize, usize), ConstraintId>,
}

/// A particle's extent along x, for the sweep.
struct Extent {
    radius: f64,
    /// Left end of the inflated extent.
    left: f64,
    x: [f64; 3],
    /// Index in the group.
    member: usize,
}

impl System {
    /// Makes every pair of `particles` non-penetrating (radii from the particles), generating the
    /// constraints for nearby pairs only, step by step. `restitution` defaults to the system's.
    ///
    /// ```
    /// use bead::{Particle, System};
    /// let mut sys = System::new(2)?;
    /// let balls: Vec<_> = (0..3)
    ///     .map(|k| sys.add_particle(Particle::new(&[k as f64 * 0.3, 0.0]).radius(0.1)))
    ///     .collect::<Result<_, _>>()?;
    /// sys.add_contacts(&balls, None)?;
    /// # Ok::<(), bead::ModelError>(())
    /// ```
    pub fn add_contacts(
        &mut self,
        particles: &[ParticleId],
        restitution: Option<f64>,
    ) -> Result<ContactGroupId, ModelError> {
        for p in particles {
            self.point_position(&Point::from(*p))?;
        }
        if let Some(e) = restitution
            && !(0.0..=1.0).contains(&e)
        {
            return Err(ModelError::Setting(format!(
                "restitution must be in [0, 1], got {e}"
            )));
        }
        self.contact_groups.push(ContactGroup {
            members: particles.to_vec(),
            restitution,
            pairs: HashMap::new(),
        });
        Ok(ContactGroupId(self.contact_groups.len() - 1))
    }

    /// Number of pair constraints a contact group currently holds.
    pub fn contact_pairs(&self, group: ContactGroupId) -> usize {
        self.contact_groups
            .get(group.0)
            .map_or(0, |g| g.pairs.len())
    }

    /// Brings every group's pair constraints up to date for a step of `dt`.
    pub(crate) fn update_contacts(&mut self, dt: f64) -> Result<(), ModelError> {
        for g in 0..self.contact_groups.len() {
            let group = &self.contact_groups[g];
            let n = group.members.len();
            let mut items: Vec<Extent> = Vec::with_capacity(n);
            let mut fastest: f64 = 0.0;
            for (i, p) in group.members.iter().enumerate() {
                let x = self.point_position(&Point::from(*p))?;
                let v = self.velocity(*p);
                fastest = fastest.max(v.iter().map(|c| c * c).sum::<f64>().sqrt());
                let r = self.radius(p.body())?;
                items.push(Extent {
                    radius: r,
                    left: 0.0,
                    x,
                    member: i,
                });
            }
            let max_r = items.iter().fold(0.0_f64, |m, it| m.max(it.radius));
            let margin = 2.0 * fastest * dt + 1e-3 * max_r.max(1e-3);
            for it in &mut items {
                it.left = it.x[0] - it.radius - margin;
            }
            items.sort_by(|a, b| a.left.total_cmp(&b.left));
            let mut near: Vec<(usize, usize)> = Vec::new();
            for a in 0..items.len() {
                let right = items[a].x[0] + items[a].radius + margin;
                for b in a + 1..items.len() {
                    if items[b].left > right {
                        break;
                    }
                    let (ia, ib) = (&items[a], &items[b]);
                    let d = (0..3)
                        .map(|k| (ia.x[k] - ib.x[k]).powi(2))
                        .sum::<f64>()
                        .sqrt();
                    if d < ia.radius + ib.radius + margin {
                        near.push((ia.member.min(ib.member), ia.member.max(ib.member)));
                    }
                }
            }
            // Add the new pairs.
            for (i, j) in near.iter().copied() {
                if self.contact_groups[g].pairs.contains_key(&(i, j)) {
                    continue;
                }
                let (a, b) = (
                    self.contact_groups[g].members[i],
                    self.contact_groups[g].members[j],
                );
                let sum = self.radius(a.body())? + self.radius(b.body())?;
                let id = self.add_constraint(NonPenetration::new(a, b, sum))?;
                if let Some(e) = self.contact_groups[g].restitution {
                    self.set_restitution(id, e)?;
                }
                self.contact_groups[g].pairs.insert((i, j), id);
            }
            // Drop the pairs now far apart.
            let members = self.contact_groups[g].members.clone();
            let far: Vec<((usize, usize), ConstraintId)> = self.contact_groups[g]
                .pairs
                .iter()
                .filter(|((i, j), _)| {
                    let (i, j) = (*i, *j);
                    let (a, b) = (members[i], members[j]);
                    let (xa, xb) = (self.position(a), self.position(b));
                    let d = xa
                        .iter()
                        .zip(xb)
                        .map(|(p, q)| (p - q).powi(2))
                        .sum::<f64>()
                        .sqrt();
                    let sum =
                        self.radius(a.body()).unwrap_or(0.0) + self.radius(b.body()).unwrap_or(0.0);
                    d > sum + 2.0 * margin
                })
                .map(|(k, id)| (*k, *id))
                .collect();
            // Removed in a fixed order: freed slots are reused by the next pairs added, and a
            // hash map's order differs from run to run.
            let mut far = far;
            far.sort_unstable_by_key(|(key, _)| *key);
            for (key, id) in far {
                self.remove_constraint(id);
                self.contact_groups[g].pairs.remove(&key);
            }
        }
        Ok(())
    }
}
