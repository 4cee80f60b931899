//! The separating axes of a cylinder and a polytope or another cylinder, and the manifolds
//! they guide: overlapping, the axis of least depth takes the contact.

use super::{CUT, Cylinder, Found, ON, Region};
use crate::collide3d::collider::{Nearest, Polytope, nearest};
use crate::collide3d::contact_point::Placed;
use crate::math::vector::{Vec3, cross, dot, norm, sub};

/// The separating axis of a cylinder and another shape along which they are farthest apart
/// (least deep) among the finitely many that can be listed: an axis overlapping by less than a
/// feature's own depth shows that feature to be no contact of the pair.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Axis {
    /// A face of the polytope (or a cap of the other cylinder, 1 the top).
    Face(usize),
    /// The cylinder's top (`true`) or bottom cap.
    Cap(bool),
    /// The common normal of the cylinder's axis and an edge (or the other cylinder's axis).
    Across(usize),
}

impl Cylinder<'_> {
    /// The world unit vector along the axis.
    fn axis(&self) -> Vec3 {
        self.at.pose.rotate(&[0.0, 0.0, 1.0])
    }

    /// The least of `n·x` over the cylinder (`n` a world unit vector).
    fn lowest_along(&self, n: &Vec3) -> f64 {
        let t = dot(n, &self.axis());
        dot(n, &self.at.pose.position)
            - self.half * t.abs()
            - self.radius * (1.0 - t * t).max(0.0).sqrt()
    }

    /// Half the cylinder's largest dimension: the sizes its tolerances are shares of.
    pub(super) fn size(&self) -> f64 {
        self.radius.max(self.half)
    }
}

/// The best of `candidates` (axis, separation): the greatest separation, the first on a tie.
fn best(candidates: impl Iterator<Item = (Axis, f64)>) -> (Axis, f64) {
    candidates.fold((Axis::Cap(false), f64::NEG_INFINITY), |b, c| {
        if c.1 > b.1 { c } else { b }
    })
}

/// Drops the points deeper than `separation`, the pair's greatest separation along an axis
/// listed: overlapping, a point deeper than the least overlap pairs features that do not touch.
fn no_deeper(found: &mut Vec<Found>, separation: f64, size: f64) {
    found.retain(|p| p.1.separation >= separation - 1e-9 * size);
}

/// A cylinder against a polytope: the polytope's corners and edges against the cylinder, and the
/// rims against its faces; the greatest separation along an axis listed. Overlapping, the separating axis
/// of least depth among the faces' normals, the caps' and the edges' common normals with the
/// axis takes the contact: a rim cut into a face near its edge is nearer the next face, but the
/// contact is the face's.
pub(super) fn polytope(
    c: Cylinder<'_>,
    (other, poly): (Placed<'_>, &Polytope),
    margin: f64,
    out: &mut Vec<Found>,
) -> f64 {
    let world: Vec<Vec3> = poly.vertices.iter().map(|v| other.pose.apply(v)).collect();
    let lowest = |n: &Vec3| {
        world
            .iter()
            .map(|v| dot(n, v))
            .fold(f64::INFINITY, f64::min)
    };
    let (u, centre) = (c.axis(), c.at.pose.position);
    let faces = poly.faces.iter().enumerate().map(|(f, face)| {
        let n = other.pose.rotate(&face.normal);
        (
            Axis::Face(f),
            c.lowest_along(&n) - dot(&n, &world[face.vertices[0]]),
        )
    });
    let caps = [false, true].map(|top| {
        let n = if top { u } else { u.map(|x| -x) };
        (Axis::Cap(top), lowest(&n) - dot(&n, &centre) - c.half)
    });
    let across = poly.edges.iter().enumerate().filter_map(|(e, &[i, j])| {
        let m = cross(&u, &sub(&world[j], &world[i]));
        let len = norm(&m);
        (len > 1e-9 * norm(&sub(&world[j], &world[i]))).then(|| {
            let towards = dot(&m, &sub(&world[i], &centre)).signum();
            let n = m.map(|x| towards * x / len);
            (Axis::Across(e), lowest(&n) - dot(&n, &centre) - c.radius)
        })
    });
    let (axis, separation) = best(faces.chain(caps).chain(across));
    let overlap = separation < -CUT * c.size();
    for (k, x) in world.iter().enumerate() {
        let local = c.at.pose.local(x);
        let region = match axis {
            // Under the cap that cuts least deep, a corner meets that cap.
            Axis::Cap(top) if overlap && local[0].hypot(local[1]) <= c.radius => {
                let height = if top { local[2] } else { -local[2] };
                (Region::Cap(top), height - c.half)
            }
            _ => c.region(&local),
        };
        out.extend(c.point_at(&other, (*x, region), 0.0, k as u64, margin));
    }
    for (e, &[i, j]) in poly.edges.iter().enumerate() {
        let ends = [world[i], world[j]];
        let forced = overlap && axis == Axis::Across(e);
        c.segment_on_side(&other, (ends, 0.0, e as u64, true), (margin, forced), out);
        c.segment_over_rims(&other, (ends, 0.0, e as u64), margin, out);
    }
    for (f, face) in poly.faces.iter().enumerate() {
        let n = other.pose.rotate(&face.normal);
        let least = overlap && axis == Axis::Face(f);
        let on_face = |x: &Vec3| {
            let local = other.pose.local(x);
            if least {
                let v = poly.vertices[face.vertices[0]];
                let depth = dot(&face.normal, &sub(&local, &v));
                let foot: Vec3 = [0, 1, 2].map(|k| local[k] - depth * face.normal[k]);
                poly.within_face(f, &foot)
            } else {
                matches!(nearest(poly, &local).0, Nearest::Face(g) if g == f)
            }
        };
        let plane = (world[face.vertices[0]], n, f as u64);
        c.rims_on_plane(&other, plane, &on_face, margin, out);
    }
    no_deeper(out, separation, c.size());
    separation
}

/// Two cylinders: each one's rims against the other's caps, side and rims, and the two sides
/// across each other, with the least deep axis taking the contact where they overlap (see
/// [`polytope`]); the greatest separation along an axis listed.
pub(super) fn cylinders(
    c: Cylinder<'_>,
    d: Cylinder<'_>,
    margin: f64,
    out: &mut Vec<Found>,
) -> f64 {
    let (uc, ud) = (c.axis(), d.axis());
    // Caps: c's (as `Cap`) and d's (as `Face`, 0 the bottom, 1 the top).
    let cap = |one: &Cylinder<'_>, two: &Cylinder<'_>, top: bool| {
        let n = one.axis().map(|x| if top { x } else { -x });
        two.lowest_along(&n) - dot(&n, &one.at.pose.position) - one.half
    };
    let caps = [false, true].into_iter().flat_map(|top| {
        [
            (Axis::Cap(top), cap(&c, &d, top)),
            (Axis::Face(usize::from(top)), cap(&d, &c, top)),
        ]
    });
    let m = cross(&uc, &ud);
    let between = sub(&d.at.pose.position, &c.at.pose.position);
    // The sides' axis: the axes' common normal, or for parallel axes the line between them
    // square to both (two cans side by side, logs lying stacked), which the caps' axes miss.
    let square: Vec3 = [0, 1, 2].map(|k| between[k] - dot(&between, &uc) * uc[k]);
    let sides = if norm(&m) > 1e-9 {
        let n = m.map(|x| x / norm(&m) * dot(&m, &between).signum());
        Some((Axis::Across(0), dot(&n, &between) - c.radius - d.radius))
    } else {
        (norm(&square) > 0.0).then(|| (Axis::Across(0), norm(&square) - c.radius - d.radius))
    };
    let (axis, separation) = best(caps.chain(sides));
    let size = c.size().min(d.size());
    let overlap = separation < -CUT * size;
    for (one, two, rims) in [(c, d, true), (d, c, false)] {
        for top in [false, true] {
            let f = two.at.pose.apply(&two.centre(top));
            let n = two
                .at
                .pose
                .rotate(&[0.0, 0.0, if top { 1.0 } else { -1.0 }]);
            // Overlapping across this cap the least, a rim point under it meets it.
            let least = overlap
                && axis
                    == if rims {
                        Axis::Face(usize::from(top))
                    } else {
                        Axis::Cap(top)
                    };
            // Not overlapping, a rim point over the cap's disk and cut under its plane by no
            // more than rounding rests on it, though the side is as near, if the rim's cylinder
            // lies beyond the cap (not beside it, as a can standing by another does): two equal
            // coins on one axis have each rim on the other's, and a step's rounding there once
            // moved every point onto the side and dropped the pair's contact.
            let beyond = dot(&n, &sub(&one.at.pose.position, &f)) > 0.0;
            let on_cap = |x: &Vec3| {
                let local = two.at.pose.local(x);
                let across = local[0].hypot(local[1]);
                let under = two.half - if top { local[2] } else { -local[2] };
                if least {
                    across <= two.radius
                } else {
                    two.region(&local).0 == Region::Cap(top)
                        || (beyond && across <= two.radius * (1.0 + ON) && under <= CUT * size)
                }
            };
            one.rims_on_plane(&two.at, (f, n, u64::from(top)), &on_cap, margin, out);
        }
        one.rims_on_cylinder(&two, rims, margin, out);
    }
    let axis_d = [-d.half, d.half].map(|z| d.at.pose.apply(&[0.0, 0.0, z]));
    let forced = overlap && axis == Axis::Across(0);
    c.segment_on_side(&d.at, (axis_d, d.radius, 0, false), (margin, forced), out);
    no_deeper(out, separation, size);
    separation
}

/// The least of a convex `f` over `[0, 1]`, by ternary search.
pub(super) fn least(f: impl Fn(f64) -> f64) -> f64 {
    let (mut lo, mut hi) = (0.0, 1.0);
    for _ in 0..100 {
        let (a, b) = (lo + (hi - lo) / 3.0, hi - (hi - lo) / 3.0);
        if f(a) < f(b) {
            hi = b;
        } else {
            lo = a;
        }
    }
    f(0.5 * (lo + hi))
}
