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

use crate::body::ParticleId;
use crate::constraint::{ConstraintId, NonPenetration};
use crate::error::ModelError;
use crate::model::Model;
use crate::point::{Point, point_position};
use crate::state::State;

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

impl ContactGroup {
    /// A group of `particles` of `model` (checked to exist) whose pairs take restitution
    /// `restitution` (in [0, 1]; the system's default when `None`).
    pub(crate) fn new(
        model: &Model,
        particles: &[ParticleId],
        restitution: Option<f64>,
    ) -> Result<ContactGroup, ModelError> {
        for p in particles {
            model.checked_body(p.body())?;
        }
        if let Some(e) = restitution
            && !(0.0..=1.0).contains(&e)
        {
            return Err(ModelError::Setting(format!(
                "restitution must be in [0, 1], got {e}"
            )));
        }
        Ok(ContactGroup {
            members: particles.to_vec(),
            restitution,
            pairs: HashMap::new(),
        })
    }

    /// Number of pair constraints the group currently holds.
    pub(crate) fn pairs(&self) -> usize {
        self.pairs.len()
    }
}

/// Brings every group's pair constraints up to date for a step of `dt` from `state`: returns
/// whether any constraint was added or removed, or an error with whether any was before it.
pub(crate) fn update(
    groups: &mut [ContactGroup],
    model: &mut Model,
    state: &State,
    dt: f64,
) -> Result<bool, (bool, ModelError)> {
    let mut changed = false;
    for group in groups {
        update_group(group, model, state, dt, &mut changed).map_err(|e| (changed, e))?;
    }
    Ok(changed)
}

/// Brings one group's pair constraints up to date; sets `changed` when it adds or removes one.
fn update_group(
    group: &mut ContactGroup,
    model: &mut Model,
    state: &State,
    dt: f64,
    changed: &mut bool,
) -> Result<(), ModelError> {
    let position = |model: &Model, p: ParticleId| -> Result<[f64; 3], ModelError> {
        let body = model.checked_body(p.body())?;
        Ok(point_position(&Point::from(p), body, state.t, &state.q))
    };
    let radius = |model: &Model, p: ParticleId| -> Result<f64, ModelError> {
        Ok(model.checked_body(p.body())?.radius)
    };
    let n = group.members.len();
    let mut items: Vec<Extent> = Vec::with_capacity(n);
    let mut fastest: f64 = 0.0;
    for (i, p) in group.members.iter().enumerate() {
        let x = position(model, *p)?;
        let v = model.body(p.body().0).slice(&state.v);
        fastest = fastest.max(v.iter().map(|c| c * c).sum::<f64>().sqrt());
        let r = radius(model, *p)?;
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
        if group.pairs.contains_key(&(i, j)) {
            continue;
        }
        let (a, b) = (group.members[i], group.members[j]);
        let sum = radius(model, a)? + radius(model, b)?;
        let id = model.add_constraint(Box::new(NonPenetration::new(a, b, sum)))?;
        *changed = true;
        if let Some(e) = group.restitution {
            model.set_restitution(id, e)?;
        }
        group.pairs.insert((i, j), id);
    }
    // Drop the pairs now far apart.
    let members = &group.members;
    let mut far: Vec<((usize, usize), ConstraintId)> = group
        .pairs
        .iter()
        .filter(|((i, j), _)| {
            let (a, b) = (members[*i], members[*j]);
            let xa = model.body(a.body().0).slice(&state.q);
            let xb = model.body(b.body().0).slice(&state.q);
            let d = xa
                .iter()
                .zip(xb)
                .map(|(p, q)| (p - q).powi(2))
                .sum::<f64>()
                .sqrt();
            let sum = radius(model, a).unwrap_or(0.0) + radius(model, b).unwrap_or(0.0);
            d > sum + 2.0 * margin
        })
        .map(|(k, id)| (*k, *id))
        .collect();
    // Removed in a fixed order: freed slots are reused by the next pairs added, and a
    // hash map's order differs from run to run.
    far.sort_unstable_by_key(|(key, _)| *key);
    for (key, id) in far {
        model.constraints.remove(id);
        *changed = true;
        group.pairs.remove(&key);
    }
    Ok(())
}
