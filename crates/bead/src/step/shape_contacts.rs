//! Contact among the shapes of a group ([`ShapeContacts`]): the broad phase (sort and sweep of
//! the members' bounding boxes along x), the narrow phase ([`crate::collide`]) and the
//! bookkeeping that keeps one [`ShapeContact`] constraint per touching pair of features.
//!
//! Before each step every member's box is grown by a margin (the distance the fastest point
//! can cover in two steps); pairs whose boxes overlap go to the narrow phase, which returns the
//! points within the margin of touching. A point whose features touched at the last step keeps
//! its constraint, moved to the new features' coordinates, so its multipliers carry over as a
//! warm start; a new one gets a constraint, and one no longer reported loses it. Within the step
//! the features stay fixed in their bodies, so the gap is exact there.
//!
//! Sort and sweep rather than a bounding-volume hierarchy: the members move every step, the
//! sweep re-sorts an almost sorted list in about linear time, and it is the broad phase the
//! particle groups already use.

use std::collections::{HashMap, HashSet};

use crate::body::{BodyKind, Shape};
use crate::collide::{Collider, ContactPoint, Pose, manifold};
use crate::collide3d::{Collider3d, ContactPoint3d, Pose3d};
use crate::constraint::{
    Constraint, ConstraintId, ContactBody, Gap3d, ShapeContact, ShapeContact3d,
};
use crate::contact::ShapeContacts;
use crate::error::ModelError;
use crate::math::vector::norm;
use crate::model::Model;
use crate::point::{Operand, Point};
use crate::state::State;

/// A member's collision geometry, in the plane or in space.
#[derive(Clone, Debug)]
enum Geometry {
    Flat(Collider),
    Solid(Collider3d),
}

/// A member's placement at a step's start.
enum Placement {
    Flat(Pose),
    Solid(Pose3d),
}

/// A point the narrow phase found, in the plane or in space.
#[derive(Clone, Copy)]
enum Found {
    Flat(ContactPoint),
    Solid(ContactPoint3d),
}

impl Found {
    fn first_is_a(&self) -> bool {
        match self {
            Found::Flat(p) => p.first_is_a,
            Found::Solid(p) => p.first_is_a,
        }
    }
}

/// One member: a rigid body or a particle, its collider and its Coulomb coefficient.
#[derive(Clone, Debug)]
struct Member {
    operand: Operand,
    body: usize,
    geometry: Geometry,
    /// The shape's reach from its body's origin, for the broad phase's margin.
    extent: f64,
    friction: f64,
    /// Whether nothing can move it (infinite mass and inertia): two such never collide.
    immovable: bool,
}

/// A shape contact group while it runs.
#[derive(Debug)]
pub(crate) struct ShapeGroup {
    members: Vec<Member>,
    /// Whether a member is a cylinder (see [`ShapeGroup::has_cylinders`]).
    cylinders: bool,
    friction: Option<f64>,
    restitution: Option<f64>,
    collide_connected: bool,
    /// Pairs of bodies joined by a constraint (found at the first update).
    connected: Option<HashSet<(usize, usize)>>,
    /// The live contacts, keyed by members (smaller first) and the features' key.
    contacts: HashMap<(usize, usize, u64), ConstraintId>,
    /// The group's name and its members' labels, for the contacts' names.
    name: String,
    labels: Vec<String>,
}

impl ShapeGroup {
    /// The group `spec` over bodies of `model`: each member checked to exist and to have a
    /// shape, each coefficient to be zero or more.
    pub(crate) fn new(model: &Model, spec: &ShapeContacts) -> Result<ShapeGroup, ModelError> {
        let mut members = Vec::with_capacity(spec.members.len());
        let check_mu = |what: &str, mu: f64| {
            if mu >= 0.0 && mu.is_finite() {
                Ok(())
            } else {
                Err(ModelError::Setting(format!(
                    "{what}: the friction coefficient must be zero or more, got {mu}"
                )))
            }
        };
        for (k, (member, mu)) in spec.members.iter().enumerate() {
            let operand = member.0;
            let id = operand.body();
            let body = model.checked_body(id)?;
            let who = who(spec, k);
            check_mu(&who, *mu)?;
            // Listed twice, a body's contacts would be made and counted twice.
            if spec.members[..k].iter().any(|(m, _)| m.0.body() == id) {
                return Err(ModelError::Setting(format!(
                    "{who} is listed twice in the group"
                )));
            }
            let (geometry, immovable) = match (&body.kind, operand) {
                (BodyKind::Rigid2d { shape, inertia }, Operand::Coordinates(_)) => {
                    let shape: &Shape = shape.as_ref().ok_or_else(|| no_shape(&who))?;
                    let collider = Collider::of(shape)
                        .map_err(|e| ModelError::Setting(format!("{who}: its shape {e}")))?;
                    (
                        Geometry::Flat(collider),
                        body.mass.is_infinite() && inertia.is_infinite(),
                    )
                }
                (BodyKind::Rigid3d { shape, .. }, Operand::Coordinates(_)) => {
                    let shape = shape.as_ref().ok_or_else(|| no_shape(&who))?;
                    let collider = Collider3d::of(shape)
                        .map_err(|e| ModelError::Setting(format!("{who}: its shape {e}")))?;
                    (Geometry::Solid(collider), body.mass.is_infinite())
                }
                (BodyKind::Particle, Operand::Point(Point::Particle(_))) => {
                    if !(body.radius > 0.0) {
                        return Err(ModelError::Setting(format!(
                            "{who} is a particle of radius 0: give it a radius to collide"
                        )));
                    }
                    let geometry = if model.dim == 3 {
                        Geometry::Solid(Collider3d::sphere(body.radius))
                    } else {
                        Geometry::Flat(Collider::disc(body.radius))
                    };
                    (geometry, body.mass.is_infinite())
                }
                _ => {
                    return Err(ModelError::Setting(format!(
                        "{who} is neither a rigid body nor a particle"
                    )));
                }
            };
            members.push(Member {
                operand,
                body: id.0,
                extent: match &geometry {
                    Geometry::Flat(c) => c.extent(),
                    Geometry::Solid(c) => c.extent(),
                },
                geometry,
                friction: *mu,
                immovable,
            });
        }
        too_large_for_a_bowl(&members, spec)?;
        if let Some(mu) = spec.friction {
            check_mu("the group", mu)?;
        }
        if let Some(e) = spec.restitution
            && !(0.0..=1.0).contains(&e)
        {
            return Err(ModelError::Setting(format!(
                "restitution must be in [0, 1], got {e}"
            )));
        }
        let cylinders = members.iter().any(|m| match &m.geometry {
            Geometry::Solid(c) => matches!(c.core, crate::collide3d::Core::Cylinder { .. }),
            Geometry::Flat(_) => false,
        });
        Ok(ShapeGroup {
            members,
            cylinders,
            friction: spec.friction,
            restitution: spec.restitution,
            collide_connected: spec.collide_connected,
            connected: None,
            contacts: HashMap::new(),
            name: spec.name.clone().unwrap_or_else(|| "contact".into()),
            labels: (0..spec.members.len())
                .map(|k| {
                    spec.labels
                        .get(k)
                        .cloned()
                        .flatten()
                        .unwrap_or_else(|| format!("member {k}"))
                })
                .collect(),
        })
    }

    /// Gives every contact of the group the coefficient `mu` from now on: the live contacts are
    /// removed (the narrow phase makes them again, with it); sets `changed` if any was.
    pub(crate) fn set_friction(
        &mut self,
        model: &mut Model,
        mu: f64,
        changed: &mut bool,
    ) -> Result<(), ModelError> {
        if !(mu >= 0.0 && mu.is_finite()) {
            return Err(ModelError::Setting(format!(
                "the friction coefficient must be zero or more, got {mu}"
            )));
        }
        self.friction = Some(mu);
        let mut live: Vec<((usize, usize, u64), ConstraintId)> = self.contacts.drain().collect();
        live.sort_unstable_by_key(|(k, _)| *k);
        for (_, id) in live {
            model.constraints.remove(id);
            *changed = true;
        }
        Ok(())
    }

    /// Forgets which bodies are joined, to find them again at the next update.
    pub(crate) fn forget_joints(&mut self) {
        self.connected = None;
    }

    /// The pairs of members (smaller first) that each live contact joins, with its constraint,
    /// in the order of their keys: sums over them come out the same from run to run (a hash
    /// map's order does not).
    pub(crate) fn contact_pairs(&self) -> Vec<((usize, usize), ConstraintId)> {
        let mut pairs: Vec<((usize, usize, u64), ConstraintId)> =
            self.contacts.iter().map(|(&k, &id)| (k, id)).collect();
        pairs.sort_unstable_by_key(|(k, _)| *k);
        pairs
            .into_iter()
            .map(|((i, j, _), id)| ((i, j), id))
            .collect()
    }

    /// Whether a member is a cylinder, whose flat rims follow their pressure (see
    /// [`Pressures`]).
    pub(crate) fn has_cylinders(&self) -> bool {
        self.cylinders
    }

    /// Brings the contacts up to date for a step of `dt` from `state`, the last step's normal
    /// forces `pressure`; sets `changed` when a constraint is added or removed.
    pub(crate) fn update(
        &mut self,
        model: &mut Model,
        state: &State,
        (dt, pressure): (f64, &Pressures),
        changed: &mut bool,
    ) -> Result<(), ModelError> {
        if self.connected.is_none() {
            self.connected = Some(connected_pairs(model));
        }
        let n = self.members.len();
        let mut poses = Vec::with_capacity(n);
        let mut fastest: f64 = 0.0;
        let mut size: f64 = 0.0;
        for m in &self.members {
            let body = model.body(m.body);
            let (q, v) = (body.slice(&state.q), body.slice(&state.v));
            let (pose, speed, spin) = match (&m.geometry, &body.kind) {
                (Geometry::Solid(_), BodyKind::Rigid3d { chart, .. }) => {
                    let theta = [q[3], q[4], q[5]];
                    let pose = Pose3d::new([q[0], q[1], q[2]], chart.orientation(&theta));
                    // θ = 0 at a step's start, where θ̇ is the angular velocity.
                    (Placement::Solid(pose), norm(&v[..3]), norm(&v[3..6]))
                }
                (Geometry::Solid(_), _) => (
                    Placement::Solid(Pose3d::at([q[0], q[1], q[2]])),
                    norm(&v[..3]),
                    0.0,
                ),
                (Geometry::Flat(_), _) => {
                    let (angle, omega) = if q.len() > 2 {
                        (q[2], v[2])
                    } else {
                        (0.0, 0.0)
                    };
                    (
                        Placement::Flat(Pose::new([q[0], q[1]], angle)),
                        norm(&v[..2]),
                        omega.abs(),
                    )
                }
            };
            if !m.immovable {
                fastest = fastest.max(speed + spin * m.extent);
                size = size.max(m.extent);
            }
            poses.push(pose);
        }
        let margin = 2.0 * fastest * dt + 1e-3 * size.max(1e-3);
        let leans = self.leans(model, &poses, pressure);
        // Sort and sweep along x.
        let boxes: Vec<[[f64; 3]; 2]> = self
            .members
            .iter()
            .zip(&poses)
            .map(|(m, p)| match (&m.geometry, p) {
                (Geometry::Solid(c), Placement::Solid(p)) => c.bounds(p, margin / 2.0),
                (Geometry::Flat(c), Placement::Flat(p)) => {
                    let [lo, hi] = c.bounds(p, margin / 2.0);
                    [[lo[0], lo[1], 0.0], [hi[0], hi[1], 0.0]]
                }
                _ => [[0.0; 3]; 2],
            })
            .collect();
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| boxes[a][0][0].total_cmp(&boxes[b][0][0]));
        let connected = self.connected.as_ref();
        let mut found: HashMap<(usize, usize, u64), Found> = HashMap::new();
        let (mut flat, mut solid) = (Vec::new(), Vec::new());
        for (k, &a) in order.iter().enumerate() {
            for &b in &order[k + 1..] {
                if boxes[b][0][0] > boxes[a][1][0] {
                    break;
                }
                if (1..3)
                    .any(|d| boxes[b][0][d] > boxes[a][1][d] || boxes[a][0][d] > boxes[b][1][d])
                {
                    continue;
                }
                let (i, j) = (a.min(b), a.max(b));
                let (mi, mj) = (&self.members[i], &self.members[j]);
                if (mi.immovable && mj.immovable) || mi.body == mj.body {
                    continue;
                }
                let pair = (mi.body.min(mj.body), mi.body.max(mj.body));
                if !self.collide_connected && connected.is_some_and(|c| c.contains(&pair)) {
                    continue;
                }
                match (&mi.geometry, &poses[i], &mj.geometry, &poses[j]) {
                    (
                        Geometry::Flat(ci),
                        Placement::Flat(pi),
                        Geometry::Flat(cj),
                        Placement::Flat(pj),
                    ) => {
                        flat.clear();
                        manifold((ci, pi), (cj, pj), margin, &mut flat);
                        for p in &flat {
                            found.insert((i, j, p.key), Found::Flat(*p));
                        }
                    }
                    (
                        Geometry::Solid(ci),
                        Placement::Solid(pi),
                        Geometry::Solid(cj),
                        Placement::Solid(pj),
                    ) => {
                        solid.clear();
                        let lean = leans.get(&(i, j)).copied();
                        crate::collide3d::manifold((ci, pi), (cj, pj), (margin, lean), &mut solid);
                        for p in &solid {
                            found.insert((i, j, p.key), Found::Solid(*p));
                        }
                    }
                    _ => {}
                }
            }
        }
        // Drop the contacts no longer found, in a fixed order (freed slots are reused by the
        // next ones added, and a hash map's order differs from run to run).
        let mut gone: Vec<(usize, usize, u64)> = self
            .contacts
            .keys()
            .filter(|k| !found.contains_key(k))
            .copied()
            .collect();
        gone.sort_unstable();
        for key in gone {
            if let Some(id) = self.contacts.remove(&key) {
                model.constraints.remove(id);
                *changed = true;
            }
        }
        let mut keys: Vec<(usize, usize, u64)> = found.keys().copied().collect();
        keys.sort_unstable();
        for key in keys {
            let p = found[&key];
            let (i, j, _) = key;
            let (a, b) = if p.first_is_a() { (i, j) } else { (j, i) };
            if let Some(&id) = self.contacts.get(&key) {
                let entry = model.entry_mut(id)?;
                let any: &mut dyn std::any::Any = entry.constraint.as_mut();
                match p {
                    Found::Flat(p) => {
                        if let Some(contact) = any.downcast_mut::<ShapeContact>() {
                            contact.set_gap(p.gap, p.radii);
                        }
                    }
                    Found::Solid(p) => {
                        if let Some(contact) = any.downcast_mut::<ShapeContact3d>() {
                            contact.set_gap(p.gap, p.radii);
                            if contact.coefficient() > 0.0
                                && let Some((touch, n)) = touching(contact, &poses[a], &poses[b])
                            {
                                contact.set_touch(touch, n);
                            }
                            // Its points moved with the features: the model's copy follows.
                            entry.operands = contact.operands();
                        }
                    }
                }
                continue;
            }
            let (body_a, body_b) = (
                ContactBody(self.members[a].operand),
                ContactBody(self.members[b].operand),
            );
            let contact: Box<dyn Constraint> = match p {
                Found::Flat(p) => {
                    let mu = self.friction.unwrap_or_else(|| {
                        (self.members[i].friction * self.members[j].friction).sqrt()
                    });
                    Box::new(ShapeContact::new(body_a, body_b, p.gap, p.radii).friction(mu))
                }
                Found::Solid(p) => {
                    let mu = self.friction.unwrap_or_else(|| {
                        (self.members[i].friction * self.members[j].friction).sqrt()
                    });
                    let mut contact = ShapeContact3d::new(body_a, body_b, p.gap, p.radii);
                    if mu > 0.0
                        && let Some((touch, n)) = touching(&contact, &poses[a], &poses[b])
                    {
                        let reference = crate::constraint::tangent_reference_from(&n, None);
                        contact = contact.with_friction(mu, touch, reference);
                    }
                    Box::new(contact)
                }
            };
            let id = model.add_constraint(contact)?;
            model.entry_mut(id)?.name =
                format!("{}: {}/{}", self.name, self.labels[a], self.labels[b]);
            if let Some(e) = self.restitution {
                model.set_restitution(id, e)?;
            }
            self.contacts.insert(key, id);
            *changed = true;
        }
        Ok(())
    }
}

/// The error of a member without a shape.
fn no_shape(who: &str) -> ModelError {
    ModelError::Setting(format!(
        "{who} has no shape: a contact group needs one for each body"
    ))
}

/// The pairs of bodies (smaller index first) that some constraint joins.
fn connected_pairs(model: &Model) -> HashSet<(usize, usize)> {
    let mut pairs = HashSet::new();
    for (_, entry) in model.constraints.iter() {
        // Contacts and limits join nothing: they only keep bodies apart.
        if entry.constraint.kind() == crate::constraint::ConstraintKind::Inequality {
            continue;
        }
        let bodies: Vec<usize> = entry.operands.iter().map(|o| o.body().0).collect();
        for (k, &a) in bodies.iter().enumerate() {
            for &b in &bodies[k + 1..] {
                if a != b {
                    pairs.insert((a.min(b), a.max(b)));
                }
            }
        }
    }
    pairs
}

/// Member `k` of `spec` as messages name it: its label where the group has one (a scene's body
/// name), else its place in the group and its handle.
fn who(spec: &ShapeContacts, k: usize) -> String {
    match spec.labels.get(k).cloned().flatten() {
        Some(label) => format!("'{label}'"),
        None => format!("member {k} ({:?})", spec.members[k].0.0.body()),
    }
}

/// A body of the group that cannot lie inside a bowl of the group's sphere is refused: its
/// corners would be found deep in the wall, and the rim does not hold a body laid across it.
fn too_large_for_a_bowl(members: &[Member], spec: &ShapeContacts) -> Result<(), ModelError> {
    for (b, bowl) in members.iter().enumerate() {
        let Some(radius) = (match &bowl.geometry {
            Geometry::Solid(c) => c.bowl_radius(),
            Geometry::Flat(_) => None,
        }) else {
            continue;
        };
        for (k, member) in members.iter().enumerate() {
            if let Geometry::Solid(c) = &member.geometry
                && let crate::collide3d::Core::Cylinder { .. } = c.core
            {
                return Err(ModelError::Setting(format!(
                    "{} is a cylinder and {} a bowl: a bowl does not hold cylinders yet (balls, \
                     boxes, capsules and convex hulls it does); put them in separate contact \
                     groups",
                    who(spec, k),
                    who(spec, b),
                )));
            }
            if let Geometry::Solid(c) = &member.geometry
                && k != b
                && c.half_width() >= radius
            {
                return Err(ModelError::Setting(format!(
                    "{} is {:.4} m across and cannot lie inside the bowl {}, whose sphere is \
                     {:.4} m across: the bowl holds what is inside it, and its rim does not \
                     hold a body laid across it",
                    who(spec, k),
                    2.0 * c.half_width(),
                    who(spec, b),
                    2.0 * radius
                )));
            }
        }
    }
    Ok(())
}

/// The normal force (its multiplier) each contact carried at the last step.
pub(crate) type Pressures = HashMap<ConstraintId, f64>;

impl ShapeGroup {
    /// Where each pair's pressure on a cylinder's flat rim was centred at the last step
    /// (world), from its rim points' normal forces `pressure` and the members' `poses`: the
    /// narrow phase puts the rim's first point there, so the rim holds wherever its load leans.
    fn leans(
        &self,
        model: &Model,
        poses: &[Placement],
        pressure: &Pressures,
    ) -> HashMap<(usize, usize), [f64; 3]> {
        let mut sums: HashMap<(usize, usize), (f64, [f64; 3])> = HashMap::new();
        if pressure.is_empty() {
            return HashMap::new();
        }
        for (&(i, j, key), id) in &self.contacts {
            let (Some(first), Some(&lambda)) = (crate::collide3d::flat_rim(key), pressure.get(id))
            else {
                continue;
            };
            let contact = model.constraints.get(*id).and_then(|e| {
                let any: &dyn std::any::Any = e.constraint.as_ref();
                any.downcast_ref::<ShapeContact3d>()
            });
            let (Some(contact), true) = (contact, lambda > 0.0) else {
                continue;
            };
            let (Gap3d::Face { a, .. }, Placement::Solid(pose)) =
                (contact.gap(), &poses[if first { i } else { j }])
            else {
                continue;
            };
            let x = pose.apply(&a);
            let sum = sums.entry((i, j)).or_insert((0.0, [0.0; 3]));
            sum.0 += lambda;
            for k in 0..3 {
                sum.1[k] += lambda * x[k];
            }
        }
        sums.into_iter()
            .map(|(pair, (total, moment))| (pair, moment.map(|m| m / total)))
            .collect()
    }
}

/// Where a 3D contact's bodies touch at their placements `pa`, `pb` (the step's start), in
/// each body's frame, and its normal there (from b towards a): the friction rows' material
/// points. `None` where the features give no normal.
fn touching(
    contact: &ShapeContact3d,
    pa: &Placement,
    pb: &Placement,
) -> Option<([[f64; 3]; 2], [f64; 3])> {
    let (Placement::Solid(pa), Placement::Solid(pb)) = (pa, pb) else {
        return None;
    };
    let world = |op: &Operand, pose: &Pose3d| match op {
        Operand::Point(Point::OnBody3d { local, .. }) => pose.apply(local),
        _ => pose.position,
    };
    let ops = contact.operands();
    let poses = [pa, pb, pb, pa];
    let x: [[f64; 3]; 4] = std::array::from_fn(|i| world(&ops[i], poses[i]));
    let at = contact.witness(&x)?;
    let n = contact.world_normal(&x)?;
    Some(([pa.local(&at), pb.local(&at)], n))
}
