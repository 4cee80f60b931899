//! A cylinder ([`Core::Cylinder`]) against every other solid core: its two flat caps, its round
//! side and its two rims, each met by the features of the other shape that can touch it.
//!
//! - **A point** (a ball's centre, a capsule's end, a box's corner) meets the cap above it
//!   ([`Gap3d::Face`]), the side beside it (its distance from the axis less the cylinder's
//!   radius, [`Gap3d::Line`]) or the rim beyond both ([`Gap3d::Rim`]): each exact.
//! - **A rim on a plane** (a box's face, another cylinder's cap) touches at its lowest point,
//!   which runs round the rim as the cylinder rolls: [`Gap3d::Circle`], exact for a cylinder
//!   rolling on its side or tipped on its rim. Nearly flat on the plane (the rim's tilt under
//!   [`FLAT`]) the lowest point is ill defined, and four points fixed on the rim hold it, the
//!   first where the lowest point is now, so the gap is exact at the step's start; a tilted rim
//!   keeps those other three points too, so a can falling flat lands on its far side.
//! - **A line across the side** (a box's edge, a capsule's axis, another cylinder's axis)
//!   crosses it at the lines' common normal ([`Gap3d::Edges`]); along the side, the overlap's
//!   two ends hold it.
//! - **A line over a rim**, and **a rim against another cylinder's side or rim**, meet where
//!   they come nearest, found numerically ([`rims`]: a circle's distance from a line has no
//!   closed form). The gap is the line (or the first rim's tangent) against the rim's tangent
//!   there, signed, or a rim's point against the other's side: exact at the step's start and as
//!   the straight feature slides along itself, first order as the contact runs round the rim.
//!   These are the passing contacts of a can tipping over a table's edge.
//!
//! Overlapping, the separating axis of least depth among those that can be listed picks the
//! features ([`axes`]); a pair cut into each other by millimetres where no feature sees it falls
//! back on parry3d-f64's deepest points ([`super::overlap`]). A bowl does not hold a cylinder
//! (contact groups refuse the pair).

mod axes;
mod rims;

use axes::{cylinders, least, polytope};

use super::collider::Core;
use super::contact_point::{ContactPoint3d, Placed, crossing_gap, key, kind, sided};
use super::segments::{along, closest_on_segments};
use crate::constraint::Gap3d;
use crate::math::vector::{Vec3, cross, dot, norm, sub};

/// The sine of a rim's tilt to a plane below which it lies flat on it (2.9°): its lowest point
/// is then held by points fixed on the rim rather than by [`Gap3d::Circle`], whose curvature
/// grows as `1/s` and which has no lowest point at all where the rim lies flat. The points keep
/// to whole steps of [`TURN`] round the rim, fixed in the body while the lowest point moves within
/// a step of one, as a polygon's corners would; the gap is then exact to `ρ s (1 − cos(TURN/2))`,
/// 2e-6 of the radius. Moved with the lowest point at every step, they gave a wobbling can energy
/// under BDF2 (1.4 % in 1 s).
const FLAT: f64 = 0.05;

/// The sine of a flat rim's tilt below which its points keep the body's own directions:
/// where the lowest point's direction is rounding.
const ALIGN: f64 = 1e-9;

/// The sine of a flat rim's tilt below which its points follow its pressure, not its tilt: the
/// gap is then exact to `0.3 ρ STILL` (to `ρ s (1 − cos 45°)`, the lowest point between two).
const STILL: f64 = 1e-6;

/// The steps round a flat rim its points keep to (1°).
const TURN: f64 = std::f64::consts::TAU / 360.0;

/// A share of the radius by which the pressure on a flat rim must lean off its centre for the
/// rim's points to follow it (0.1 µm on a 10 cm can): centred, rounding has no direction.
const LEANS: f64 = 1e-6;

/// A share of the radius within which a point just beyond the rim counts as over the cap (two
/// equal coins stacked have each rim exactly on the other's).
const ON: f64 = 1e-9;

/// A share of the smaller body's size that every separating axis listed must overlap by before
/// the least deep takes the contact (0.1 µm on a 10 cm can): resting, a pair overlaps by
/// rounding, which must not choose the features.
const CUT: f64 = 1e-6;

/// A share of the cylinder's size that every separating axis listed must overlap by, with no
/// point seeing it, before parry's deepest points are asked (0.1 mm on a 10 cm can): a flat rim's
/// points leave its lowest point up to `ρ s (1 − cos(TURN/2))` below them.
const DEEP: f64 = 1e-3;

/// Samples along a line or round a rim where the numerical searches start.
const SAMPLES: usize = 24;

/// A cylinder placed: `radius` about its body's z axis, `half` its half-length.
#[derive(Clone, Copy)]
pub(super) struct Cylinder<'a> {
    /// The cylinder's collider and pose, and whether it is the pair's first.
    pub(super) at: Placed<'a>,
    /// Its radius, m.
    pub(super) radius: f64,
    /// Half its length, m.
    pub(super) half: f64,
    /// Where the pair's pressure was centred at the last step (world), if a rim lay flat.
    pub(super) lean: Option<Vec3>,
}

/// Which of a cylinder's features is nearest a point.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Region {
    /// The top (`true`) or bottom cap.
    Cap(bool),
    /// The round side.
    Side,
    /// The top or bottom rim.
    Rim(bool),
}

impl Region {
    /// The region's part of a contact's key.
    fn code(self) -> u64 {
        match self {
            Region::Cap(top) => u64::from(top),
            Region::Side => 2,
            Region::Rim(top) => 3 + u64::from(top),
        }
    }
}

/// A contact found, with the world point it is placed at (for choosing four).
type Found = (Vec3, ContactPoint3d);

impl Cylinder<'_> {
    /// The nearest feature to `x` (cylinder frame) and the signed distance from it.
    fn region(&self, x: &Vec3) -> (Region, f64) {
        let across = x[0].hypot(x[1]);
        let top = x[2] >= 0.0;
        let (height, out) = (x[2].abs() - self.half, across - self.radius);
        if height > 0.0 && out > ON * self.radius {
            (Region::Rim(top), out.hypot(height))
        } else if height > 0.0 {
            (Region::Cap(top), height)
        } else if out > 0.0 {
            (Region::Side, out)
        } else if height > out || across == 0.0 {
            (Region::Cap(top), height)
        } else {
            (Region::Side, out)
        }
    }

    /// The centre of the top or bottom rim, cylinder frame.
    fn centre(&self, top: bool) -> Vec3 {
        [0.0, 0.0, if top { self.half } else { -self.half }]
    }

    /// The rim's point at angle `theta`, cylinder frame.
    fn rim_point(&self, top: bool, theta: f64) -> Vec3 {
        let z = self.centre(top)[2];
        [self.radius * theta.cos(), self.radius * theta.sin(), z]
    }

    /// The distance from `x` (cylinder frame) to the top or bottom rim.
    fn off_rim(&self, top: bool, x: &Vec3) -> f64 {
        (x[0].hypot(x[1]) - self.radius).hypot(x[2] - self.centre(top)[2])
    }

    /// The point `x` (world) of `other`, its core swept by `radius`, against the cylinder; `code`
    /// names the point within `other`.
    fn point(
        &self,
        other: &Placed<'_>,
        x: Vec3,
        radius: f64,
        code: u64,
        margin: f64,
    ) -> Option<Found> {
        let local = self.at.pose.local(&x);
        self.point_at(other, (x, self.region(&local)), radius, code, margin)
    }

    /// [`Self::point`] against the feature `region`, `distance` from it.
    fn point_at(
        &self,
        other: &Placed<'_>,
        (x, (region, distance)): (Vec3, (Region, f64)),
        radius: f64,
        code: u64,
        margin: f64,
    ) -> Option<Found> {
        let separation = distance - radius;
        if separation > margin {
            return None;
        }
        let a = other.pose.local(&x);
        let (gap, radii) = match region {
            Region::Cap(top) => {
                let normal = [0.0, 0.0, if top { 1.0 } else { -1.0 }];
                let b = self.centre(top);
                (Gap3d::Face { a, b, normal }, [radius, 0.0])
            }
            Region::Side => {
                let (b, direction) = ([0.0; 3], [0.0, 0.0, 1.0]);
                (Gap3d::Line { a, b, direction }, [radius, self.radius])
            }
            Region::Rim(top) => {
                let (b, axis) = (self.centre(top), [0.0, 0.0, 1.0]);
                let rim = Gap3d::Rim {
                    a,
                    b,
                    axis,
                    radius: self.radius,
                };
                (rim, [radius, 0.0])
            }
        };
        let case = sided(kind::CYLINDER_POINT, self.at.first);
        Some((
            x,
            ContactPoint3d {
                key: key(case, code, region.code()),
                first_is_a: other.first,
                gap,
                radii,
                separation,
            },
        ))
    }

    /// The rims against the plane through `f` with outward unit normal `n` (world), fixed in
    /// `other` and numbered `code` there: a point is kept where `on_face` says it lies over the
    /// plane's face.
    fn rims_on_plane(
        &self,
        other: &Placed<'_>,
        (f, n, code): (Vec3, Vec3, u64),
        on_face: &dyn Fn(&Vec3) -> bool,
        margin: f64,
        out: &mut Vec<Found>,
    ) {
        let pose = self.at.pose;
        let u = pose.rotate(&[0.0, 0.0, 1.0]);
        let tilt = dot(&n, &u);
        let across: Vec3 = [0, 1, 2].map(|k| n[k] - tilt * u[k]);
        let s = norm(&across);
        // Where the rim dips towards the plane, in the cylinder's frame: its points are placed
        // in the cylinder.
        let down = pose.rotate_back(&across.map(|v| -v));
        let lowest = if s > ALIGN {
            down[1].atan2(down[0])
        } else {
            0.0
        };
        let step = |theta: f64| (theta / TURN).round() as i64;
        let (b, normal) = (other.pose.local(&f), other.pose.rotate_back(&n));
        for top in [false, true] {
            // Where the rim's points go, in whole steps of `TURN` round it (see `FLAT`).
            let places: Vec<(i64, bool)> = if s >= FLAT {
                // Tipped: the lowest point, exact wherever it runs, then three fixed points.
                let first = (step(lowest), true);
                std::iter::once(first)
                    .chain((1..4).map(|k| (step(lowest) + 90 * k, false)))
                    .collect()
            } else {
                // Resting flat, the first point goes where the pressure leant at the last step,
                // and the four hold the can wherever its load leans (fixed in its own
                // directions, they would tip it early by up to 29 % of the angle, between them).
                let leant = self.lean.map(|p| pose.local(&p)).filter(|l| {
                    let on_rim = (l[2] - self.centre(top)[2]).abs() <= 0.01 * self.radius;
                    s < STILL && on_rim && l[0].hypot(l[1]) > LEANS * self.radius
                });
                let first = step(leant.map_or(lowest, |l| l[1].atan2(l[0])));
                (0..4).map(|k| (first + 90 * k, false)).collect()
            };
            for (k, &(place, circle)) in places.iter().enumerate() {
                let mut theta = if circle { lowest } else { place as f64 * TURN };
                // The rim's height over the plane varies by 2ρs round it: a point higher than
                // that above the margin has nothing near the face.
                let x = pose.apply(&self.rim_point(top, theta));
                if dot(&n, &sub(&x, &f)) - 2.0 * self.radius * s > margin {
                    continue;
                }
                let inside = |theta: f64| on_face(&pose.apply(&self.rim_point(top, theta)));
                // Off the face (a can over a table's edge, a coin on another set off its axis),
                // a fixed point moves along the rim to where it crosses onto the face, so the
                // points span the part of the rim the face holds.
                let clipped = !inside(theta);
                if clipped {
                    match (s < FLAT).then(|| onto_face(theta, &inside)).flatten() {
                        Some(on) => theta = on,
                        None => continue,
                    }
                }
                let local = self.rim_point(top, theta);
                let x = pose.apply(&local);
                let separation = dot(&n, &sub(&x, &f));
                if separation > margin {
                    continue;
                }
                let gap = if circle {
                    Gap3d::Circle {
                        a: self.centre(top),
                        axis: [0.0, 0.0, 1.0],
                        radius: self.radius,
                        b,
                        normal,
                    }
                } else {
                    Gap3d::Face {
                        a: local,
                        b,
                        normal,
                    }
                };
                // A fixed point is named by its place round the rim: moved to another place it
                // is another point, as a polygon's next corner would be (BDF2's history of a
                // point that jumped gave a wobbling can energy).
                let named = if circle {
                    0
                } else {
                    1 + place.rem_euclid(360) as u64 + if clipped { 360 } else { 0 }
                };
                let case = sided(kind::RIM_PLANE, self.at.first);
                out.push((
                    x,
                    ContactPoint3d {
                        key: key(case, 16 * named + 8 * u64::from(top) + k as u64, code),
                        first_is_a: self.at.first,
                        gap,
                        radii: [0.0, 0.0],
                        separation,
                    },
                ));
            }
        }
    }

    /// The segment `ends` (world) of `other`, swept by `radius`, against the side: where it
    /// crosses the side, the lines' common normal; where it runs along it, the two ends of the
    /// overlap. `points` says whether the segment's ends are points of `other`'s surface (a
    /// capsule's, an edge's), found as points already; a cylinder's axis ends are not.
    fn segment_on_side(
        &self,
        other: &Placed<'_>,
        (ends, radius, code, points): ([Vec3; 2], f64, u64, bool),
        (margin, across): (f64, bool),
        out: &mut Vec<Found>,
    ) {
        let pose = self.at.pose;
        let [p0, p1] = ends.map(|x| pose.local(&x));
        let d = sub(&p1, &p0);
        let (axis0, axis) = ([0.0, 0.0, -self.half], [0.0, 0.0, 2.0 * self.half]);
        let reach = self.radius + radius;
        let case = sided(kind::SIDE, self.at.first);
        let length = norm(&d);
        if !(length > 0.0) {
            return;
        }
        let parallel = norm(&cross(&d, &axis)) <= 1e-3 * length * norm(&axis);
        if parallel {
            // The overlap along the axis: each end is the segment's own end or a cap's centre.
            let (z0, z1) = (p0[2].min(p1[2]), p0[2].max(p1[2]));
            let (lo, hi) = (z0.max(-self.half), z1.min(self.half));
            if hi - lo <= 1e-9 * self.half {
                return;
            }
            for (k, z) in [lo, hi].into_iter().enumerate() {
                let own = if k == 0 {
                    z0 > -self.half
                } else {
                    z1 < self.half
                };
                let t = (z - p0[2]) / d[2];
                let on_segment = along(&p0, &d, t);
                let distance = on_segment[0].hypot(on_segment[1]);
                let separation = distance - reach;
                if separation > margin || !(distance > 0.0) {
                    continue;
                }
                let (x, gap, radii, first_is_a) = if own {
                    if points {
                        continue;
                    }
                    // The segment's end against the axis.
                    let a = other.pose.local(&pose.apply(&on_segment));
                    let line = Gap3d::Line {
                        a,
                        b: [0.0; 3],
                        direction: [0.0, 0.0, 1.0],
                    };
                    (
                        pose.apply(&on_segment),
                        line,
                        [radius, self.radius],
                        other.first,
                    )
                } else {
                    // The cap's centre against the segment's line.
                    let centre = [0.0, 0.0, z];
                    let direction = other.pose.rotate_back(&pose.rotate(&d.map(|v| v / length)));
                    let b = other.pose.local(&pose.apply(&on_segment));
                    let line = Gap3d::Line {
                        a: centre,
                        b,
                        direction,
                    };
                    (
                        pose.apply(&centre),
                        line,
                        [self.radius, radius],
                        self.at.first,
                    )
                };
                out.push((
                    x,
                    ContactPoint3d {
                        key: key(case, 4 * code + 2 + k as u64, 0),
                        first_is_a,
                        gap,
                        radii,
                        separation,
                    },
                ));
            }
            return;
        }
        let (s, t) = closest_on_segments(&p0, &d, &axis0, &axis);
        if !(s > 0.0 && s < 1.0 && t > 0.0 && t < 1.0) {
            return;
        }
        let (x, y) = (along(&p0, &d, s), along(&axis0, &axis, t));
        let separation = norm(&sub(&x, &y)) - reach;
        // Inside the cylinder, nearer a cap than the side, the line meets the cap.
        if separation > margin || (!across && radius == 0.0 && self.region(&x).0 != Region::Side) {
            return;
        }
        let world = |v: &Vec3| pose.apply(v);
        let towards = match norm(&sub(&x, &y)) {
            gap if gap > 0.0 => pose.rotate(&sub(&x, &y)),
            _ => sub(&other.pose.position, &pose.position),
        };
        let gap = crossing_gap(
            (other, world(&x), pose.rotate(&d)),
            (&self.at, world(&y), pose.rotate(&axis)),
            towards,
        );
        out.push((
            world(&x),
            ContactPoint3d {
                key: key(case, 4 * code, 0),
                first_is_a: other.first,
                gap,
                radii: [radius, self.radius],
                separation,
            },
        ));
    }
}

/// The contact points of cylinder `c` with `other` within `margin`, appended to `out`: up to
/// four that span the contact where the features rest on each other, and the next nearest up
/// to eight where they come together from apart.
pub(super) fn manifold(
    c: Cylinder<'_>,
    other: Placed<'_>,
    margin: f64,
    out: &mut Vec<ContactPoint3d>,
) {
    let mut found: Vec<Found> = Vec::new();
    // The greatest separation along a separating axis listed: overlapping when negative (a
    // ball's features are exact however deep).
    let mut separation = f64::INFINITY;
    let r = other.c.radius;
    let pose = other.pose;
    match &other.c.core {
        Core::Point => found.extend(c.point(&other, pose.position, r, 0, margin)),
        Core::Segment([p, q]) => {
            let ends = [pose.apply(p), pose.apply(q)];
            for (k, x) in ends.iter().enumerate() {
                found.extend(c.point(&other, *x, r, k as u64, margin));
            }
            c.segment_on_side(&other, (ends, r, 0, true), (margin, false), &mut found);
            c.segment_over_rims(&other, (ends, r, 0), margin, &mut found);
            // The cylinder's signed distance is convex: its least along the segment says
            // whether they overlap (a capsule run through a coin has no end or rim inside).
            let [p0, p1] = ends.map(|x| c.at.pose.local(&x));
            let depth = |s: f64| c.region(&along(&p0, &sub(&p1, &p0), s)).1 - r;
            separation = least(depth);
        }
        Core::Polytope(poly) => separation = polytope(c, (other, poly), margin, &mut found),
        &Core::Cylinder { radius, half, .. } => {
            let d = Cylinder {
                at: other,
                radius,
                half,
                lean: c.lean,
            };
            separation = cylinders(c, d, margin, &mut found);
        }
        // Refused when the group is built.
        Core::Bowl { .. } => {}
    }
    if separation < -DEEP * c.size() && found.iter().all(|p| p.1.separation >= 0.0) {
        found.extend(super::overlap::deepest(&c.at, &other));
    }
    choose(&mut found, c.size());
    out.extend(found.into_iter().map(|(_, p)| p));
}

/// Keeps the points that span the contact: those within a millionth of the cylinder's size of
/// the deepest cut to the widest four (see [`super::polytopes`]), then the nearest of the rest
/// up to eight.
fn choose(found: &mut Vec<Found>, size: f64) {
    // One point where two coincide (two equal coins on one axis put each rim's points on the
    // other's): a second row there is redundant, and which of the two to keep is a tie.
    let mut kept: Vec<Found> = Vec::with_capacity(found.len());
    for p in found.drain(..) {
        if !kept.iter().any(|q| norm(&sub(&q.0, &p.0)) <= 1e-9 * size) {
            kept.push(p);
        }
    }
    *found = kept;
    if found.len() <= 4 {
        return;
    }
    let deepest = found
        .iter()
        .map(|p| p.1.separation)
        .fold(f64::INFINITY, f64::min);
    let (mut resting, mut rest): (Vec<Found>, Vec<Found>) = found
        .drain(..)
        .partition(|p| p.1.separation <= deepest + 1e-6 * size);
    super::polytopes::reduce(&mut resting, size);
    rest.sort_by(|a, b| a.1.separation.total_cmp(&b.1.separation));
    rest.truncate(8usize.saturating_sub(resting.len()));
    resting.extend(rest);
    *found = resting;
}

/// The angle nearest `theta`, within 45° of it, where the rim is `inside` a face, found by
/// stepping out from `theta` and bisecting the crossing; `None` if the rim there is off the face.
fn onto_face(theta: f64, inside: &dyn Fn(f64) -> bool) -> Option<f64> {
    let (reach, steps) = (std::f64::consts::FRAC_PI_4, 16);
    for j in 1..=steps {
        for sign in [1.0, -1.0] {
            let at = |i: usize| theta + sign * reach * i as f64 / steps as f64;
            let (mut off, mut on) = (at(j - 1), at(j));
            if !inside(on) {
                continue;
            }
            for _ in 0..50 {
                let mid = 0.5 * (off + on);
                if inside(mid) {
                    on = mid;
                } else {
                    off = mid;
                }
            }
            return Some(on);
        }
    }
    None
}
