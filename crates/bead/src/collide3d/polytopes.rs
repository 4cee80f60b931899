//! Two convex polytopes: the separating axis of least depth among both shapes' face normals
//! and the cross products of their edges (Gottschalk's test, as Gregorius presented it for
//! games), then, for a face, the other body's most opposed face clipped to the reference face's
//! sides (Sutherland–Hodgman), and for two edges their closest points.
//!
//! Every clipped point keeps where it came from, for its key: a vertex of the incident face, an
//! incident edge cut by a side of the reference face, or a corner of the reference face. Each
//! is the incident face's point there, fixed in the incident body, against the reference face's
//! plane ([`Gap3d::Face`]): inside the reference face's sides, that is its distance to the face.
//! Apart, the nearest features are found as well (see [`manifold`]).

use super::collider::{Nearest, Polytope, nearest};
use super::contact_point::{
    ContactPoint3d, Placed, crossing_gap, key, kind, kind_of, pair_gap, sided,
};
use super::segments::closest_on_segments;
use crate::constraint::Gap3d;
use crate::math::vector::{Vec3, cross, dot, norm, sub};

/// Where a clipped point comes from.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Tag {
    /// The incident face's vertex.
    Vertex(usize),
    /// The incident edge `.0` cut by the reference face's side `.1`.
    Clip(usize, usize),
    /// The reference face's corner between its sides `.0` and `.1`.
    Corner(usize, usize),
}

/// What a polygon's edge lies on while it is clipped.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Edge {
    Incident(usize),
    Side(usize),
}

/// A polytope placed: its vertices in the world, and its body.
struct World<'a> {
    body: Placed<'a>,
    poly: &'a Polytope,
    vertices: Vec<Vec3>,
}

impl World<'_> {
    fn normal(&self, f: usize) -> Vec3 {
        self.body.pose.rotate(&self.poly.faces[f].normal)
    }

    /// The face of greatest separation from `other` along its normal, and that separation.
    fn face_query(&self, other: &World<'_>) -> (usize, f64) {
        let mut best = (0, f64::NEG_INFINITY);
        for (f, face) in self.poly.faces.iter().enumerate() {
            let n = self.normal(f);
            let x0 = self.vertices[face.vertices[0]];
            let s = other
                .vertices
                .iter()
                .map(|v| dot(&n, &sub(v, &x0)))
                .fold(f64::INFINITY, f64::min);
            if s > best.1 {
                best = (f, s);
            }
        }
        best
    }

    fn centre(&self) -> Vec3 {
        let k = self.vertices.len() as f64;
        [0, 1, 2].map(|d| self.vertices.iter().map(|v| v[d]).sum::<f64>() / k)
    }
}

/// The contact points of two polytopes within `margin`, up to four.
///
/// Apart, the separating axis of greatest separation need not run between the features that
/// come nearest (a tumbling box's far corner may fall towards a face other than the axis's):
/// every vertex's nearest feature on the other body, and every pair of edges whose closest
/// points lie inside both, join the axis's points when within the margin, so no approach goes
/// unseen until it has already penetrated (a cube tumbling off another sank 0.5 mm into it
/// that way). The axis's points are cut to the widest four, then the nearest four of all kept.
pub(super) fn manifold(
    (one, a): (Placed<'_>, &Polytope),
    (two, b): (Placed<'_>, &Polytope),
    margin: f64,
    out: &mut Vec<ContactPoint3d>,
) {
    let (wa, wb) = (place(one, a), place(two, b));
    let size = one.c.extent().min(two.c.extent());
    let Some((mut points, apart)) = axis_points(&wa, &wb, margin, size) else {
        return;
    };
    // The axis's points span the contact (a face's clipped polygon): its widest four.
    reduce(&mut points, size);
    if apart {
        let axis = points.len();
        // A vertex the clip found already comes back as a vertex over a face: one of them.
        let deepest = points
            .iter()
            .map(|p| p.1.separation)
            .fold(f64::INFINITY, f64::min);
        for p in proximity_points(&wa, &wb, margin) {
            let same = |q: &(Vec3, ContactPoint3d)| {
                q.1.key == p.1.key || norm(&sub(&q.0, &p.0)) <= 1e-9 * size
            };
            // Two edges crossing where a face's clipped polygon already has its points (two
            // faces nearly parallel) would put a second, nearly equal row there: they join
            // only as the nearest pair.
            let crossing = kind_of(p.1.key) == kind::EDGES;
            if !points.iter().any(same) && (!crossing || p.1.separation < deepest) {
                points.push(p);
            }
        }
        // The nearest four: a far corner's line 9 mm off must not crowd out the face's points.
        // The axis's own points win near-ties: two faces resting flat within the contact
        // tolerance (apart by a fraction of a nanometre) see each of their corners again as a
        // vertex over the other's face, at the same depth to rounding, and rounding must not
        // choose which four are kept (see `reduce`).
        let mut order: Vec<usize> = (0..points.len()).collect();
        let rank = |k: usize| points[k].1.separation - if k < axis { TIE * size } else { 0.0 };
        order.sort_by(|&i, &j| rank(i).total_cmp(&rank(j)).then(i.cmp(&j)));
        // Resting flat (every point of the axis within a millionth of the body's size of
        // touching), the face's four span the contact. Otherwise a tumbling body's corners can
        // reach the other body in any order, one pivoting on a corner that touches included,
        // and a corner beyond the four would cross unseen: a 0.1 mm plate spinning onto a 1 mm
        // floor passed through it under RK4. Up to eight are kept then, as many as a box has
        // corners.
        let shallowest = points[..axis]
            .iter()
            .map(|p| p.1.separation)
            .fold(f64::NEG_INFINITY, f64::max);
        let resting = shallowest <= APART * size;
        order.truncate(if resting { 4 } else { 8 });
        order.sort_unstable();
        points = order.into_iter().map(|k| points[k]).collect();
    }
    out.extend(points.into_iter().map(|(_, p)| p));
}

/// The points of the separating axis of greatest separation (a face's, clipped, or two
/// edges'), each with its place in the world, and whether the polytopes are apart along it;
/// `None` if an axis separates them by more than `margin`. `size` is the smaller body's reach.
#[allow(clippy::type_complexity)]
fn axis_points(
    wa: &World<'_>,
    wb: &World<'_>,
    margin: f64,
    size: f64,
) -> Option<(Vec<(Vec3, ContactPoint3d)>, bool)> {
    let (fa, sa) = wa.face_query(wb);
    if sa > margin {
        return None;
    }
    let (fb, sb) = wb.face_query(wa);
    if sb > margin {
        return None;
    }
    let (edge, se) = edge_query(wa, wb);
    if se > margin {
        return None;
    }
    let apart = sa.max(sb).max(se) > 0.0;
    // Faces are preferred: a resting box keeps its four points; an edge wins only when it is
    // clearly the axis of least depth.
    let face_separation = sa.max(sb);
    if let Some((ea, eb, n)) = edge
        && se > face_separation + 1e-3 * size
    {
        let mut points: Vec<(Vec3, ContactPoint3d)> = edge_contact(wa, wb, (ea, eb, n), margin)
            .into_iter()
            .collect();
        if points.is_empty() && !apart {
            // The edges' closest points clamped away from the axis (a deep overlap).
            let (reference, f, inc) = if sb > sa { (wb, fb, wa) } else { (wa, fa, wb) };
            points.extend(deepest_vertex(reference, f, inc));
        }
        return Some((points, apart));
    }
    let (reference, f, inc) = if sb > sa + 1e-6 * size {
        (wb, fb, wa)
    } else {
        (wa, fa, wb)
    };
    let mut points = clip(reference, f, inc, margin, size);
    if points.is_empty() && !apart {
        // Deep enough that the incident face has left the reference face's sides: the
        // incident body's deepest vertex.
        points.extend(deepest_vertex(reference, f, inc));
    }
    Some((points, apart))
}

/// The features of two polytopes apart that come within `margin`: each one's vertices against
/// the other's nearest feature, and pairs of edges whose closest points are inside both; each
/// with its place in the world.
fn proximity_points(wa: &World<'_>, wb: &World<'_>, margin: f64) -> Vec<(Vec3, ContactPoint3d)> {
    let mut found = Vec::new();
    let mut consider = |x: Vec3, p: ContactPoint3d| {
        if p.separation <= margin {
            found.push((x, p));
        }
    };
    for (from, to, case) in [(wa, wb, kind::CORNER[0]), (wb, wa, kind::CORNER[1])] {
        let tie = TIE * to.body.c.extent();
        for (v, x) in from.vertices.iter().enumerate() {
            let (feature, y, depth) = nearest(to.poly, &to.body.pose.local(x));
            // A corner against a face: the face's plane. Against an edge or a corner: the
            // plane through the nearest point, its normal fixed in the body it belongs to. The
            // distance to a line or a point has no normal where they touch, and a sharp corner
            // (no radius) touches there: a frictionless 3D arch's corner came to rest on its
            // neighbour's edge at 1e-12 m, and the line's distance, a square root of rounding,
            // was not a number.
            let off = || sub(&to.body.pose.local(x), &y);
            let (through, normal) = match feature {
                Nearest::Face(f) => (to.poly.faces[f].vertices[0], to.poly.faces[f].normal),
                Nearest::Edge(e) => {
                    let faces = to.poly.edge_faces[e].map(|f| to.poly.faces[f].normal);
                    (to.poly.edges[e][0], outward(&off(), faces.into_iter(), tie))
                }
                Nearest::Vertex(w) => {
                    let faces = to.poly.faces.iter().filter(|f| f.vertices.contains(&w));
                    (w, outward(&off(), faces.map(|f| f.normal), tie))
                }
            };
            let gap = Gap3d::Face {
                a: from.poly.vertices[v],
                b: to.poly.vertices[through],
                normal,
            };
            consider(
                *x,
                ContactPoint3d {
                    key: key(case, v as u64, feature.code()),
                    first_is_a: from.body.first,
                    gap,
                    radii: [0.0, 0.0],
                    separation: depth,
                },
            );
        }
    }
    for (i, &[a0, a1]) in wa.poly.edges.iter().enumerate() {
        let (pa, da) = (wa.vertices[a0], sub(&wa.vertices[a1], &wa.vertices[a0]));
        for (j, &[b0, b1]) in wb.poly.edges.iter().enumerate() {
            let (pb, db) = (wb.vertices[b0], sub(&wb.vertices[b1], &wb.vertices[b0]));
            let (s, t) = closest_on_segments(&pa, &da, &pb, &db);
            if !(s > 0.0 && s < 1.0 && t > 0.0 && t < 1.0) {
                continue;
            }
            let x: Vec3 = [0, 1, 2].map(|k| pa[k] + s * da[k]);
            let y: Vec3 = [0, 1, 2].map(|k| pb[k] + t * db[k]);
            let unit = |d: &Vec3| d.map(|c| c / norm(d));
            let (gap, _) = pair_gap(&wa.body, x, Some(unit(&da)), &wb.body, y, Some(unit(&db)));
            consider(
                x,
                ContactPoint3d {
                    key: key(kind::EDGES, i as u64, j as u64),
                    first_is_a: wa.body.first,
                    gap,
                    radii: [0.0, 0.0],
                    separation: norm(&sub(&x, &y)),
                },
            );
        }
    }
    found
}

/// The unit normal of the plane through a polytope's edge or corner that a point touches,
/// `d` from the nearest point to it (body frame): along `d` where it is longer than `tie`,
/// otherwise the mean of the normals of the `faces` that meet there (never zero: a convex
/// corner's face normals lie in one open half-space).
fn outward(d: &Vec3, faces: impl Iterator<Item = Vec3>, tie: f64) -> Vec3 {
    let len = norm(d);
    if len > tie {
        return d.map(|c| c / len);
    }
    let sum = faces.fold([0.0; 3], |s, n| [s[0] + n[0], s[1] + n[1], s[2] + n[2]]);
    let l = norm(&sum);
    sum.map(|c| c / l)
}

fn place<'a>(body: Placed<'a>, poly: &'a Polytope) -> World<'a> {
    World {
        vertices: poly.vertices.iter().map(|v| body.pose.apply(v)).collect(),
        body,
        poly,
    }
}

/// Whether the arcs `a b` and `c d` of the Gauss map cross: the edges whose faces have normals
/// `a, b` and `−c, −d` then build a face of the Minkowski difference, so they can touch along
/// their cross product (Gregorius, GDC 2013).
fn minkowski_face(a: &Vec3, b: &Vec3, c: &Vec3, d: &Vec3) -> bool {
    let (bxa, dxc) = (cross(b, a), cross(d, c));
    let (cba, dba, adc, bdc) = (dot(c, &bxa), dot(d, &bxa), dot(a, &dxc), dot(b, &dxc));
    cba * dba < 0.0 && adc * bdc < 0.0 && cba * bdc > 0.0
}

/// The pair of edges whose cross product separates most, with that axis (from `a` to `b`),
/// and the separation along it: only pairs that can touch (see [`minkowski_face`]), so the
/// axis's supports are those edges.
#[allow(clippy::type_complexity)]
fn edge_query(a: &World<'_>, b: &World<'_>) -> (Option<(usize, usize, Vec3)>, f64) {
    let centre = a.centre();
    let mut best = (None, f64::NEG_INFINITY);
    for (i, &[a0, a1]) in a.poly.edges.iter().enumerate() {
        let da = sub(&a.vertices[a1], &a.vertices[a0]);
        let [fa, ga] = a.poly.edge_faces[i].map(|f| a.normal(f));
        for (j, &[b0, b1]) in b.poly.edges.iter().enumerate() {
            let [fb, gb] = b.poly.edge_faces[j].map(|f| b.normal(f).map(|x| -x));
            if !minkowski_face(&fa, &ga, &fb, &gb) {
                continue;
            }
            let db = sub(&b.vertices[b1], &b.vertices[b0]);
            let c = cross(&da, &db);
            let len = norm(&c);
            // Parallel edges give no axis of their own (a face's normal covers them).
            if len <= 1e-6 * norm(&da) * norm(&db) {
                continue;
            }
            let mut n = c.map(|x| x / len);
            if dot(&n, &sub(&a.vertices[a0], &centre)) < 0.0 {
                n = n.map(|x| -x);
            }
            let s = dot(&n, &sub(&b.vertices[b0], &a.vertices[a0]));
            if s > best.1 {
                best = (Some((i, j, n)), s);
            }
        }
    }
    best
}

/// The point where edge `ea` of `a` crosses edge `eb` of `b`, `n` the axis from `a` to `b`, with
/// its place; none if the edges' closest points are not inside both.
fn edge_contact(
    a: &World<'_>,
    b: &World<'_>,
    (ea, eb, n): (usize, usize, Vec3),
    margin: f64,
) -> Option<(Vec3, ContactPoint3d)> {
    let ([a0, a1], [b0, b1]) = (a.poly.edges[ea], b.poly.edges[eb]);
    let (pa, pb) = (a.vertices[a0], b.vertices[b0]);
    let (da, db) = (sub(&a.vertices[a1], &pa), sub(&b.vertices[b1], &pb));
    let (s, t) = closest_on_segments(&pa, &da, &pb, &db);
    let xa: Vec3 = [0, 1, 2].map(|k| pa[k] + s * da[k]);
    let xb: Vec3 = [0, 1, 2].map(|k| pb[k] + t * db[k]);
    let separation = -dot(&n, &sub(&xa, &xb));
    if separation > margin || !(s > 0.0 && s < 1.0 && t > 0.0 && t < 1.0) {
        return None;
    }
    // The axis runs from a to b, whatever the sign of the gap.
    let gap = crossing_gap((&a.body, xa, da), (&b.body, xb, db), n.map(|v| -v));
    Some((
        xa,
        ContactPoint3d {
            key: key(kind::EDGES, ea as u64, eb as u64),
            first_is_a: a.body.first,
            gap,
            radii: [0.0, 0.0],
            separation,
        },
    ))
}

/// The points of the face of `inc` most opposed to face `f` of `reference`, clipped to `f`'s
/// sides, within `margin` of `f`'s plane: each with its world position.
fn clip(
    reference: &World<'_>,
    f: usize,
    inc: &World<'_>,
    margin: f64,
    size: f64,
) -> Vec<(Vec3, ContactPoint3d)> {
    let n = reference.normal(f);
    let incident = (0..inc.poly.faces.len())
        .min_by(|&x, &y| dot(&inc.normal(x), &n).total_cmp(&dot(&inc.normal(y), &n)))
        .unwrap_or(0);
    let face = &inc.poly.faces[incident].vertices;
    let mut polygon: Vec<(Vec3, Tag, Edge)> = (0..face.len())
        .map(|k| {
            let (i, j) = (face[k], face[(k + 1) % face.len()]);
            (
                inc.vertices[i],
                Tag::Vertex(i),
                Edge::Incident(inc.poly.edge_index(i, j)),
            )
        })
        .collect();
    let sides = &reference.poly.faces[f].vertices;
    let eps = 1e-12 * size;
    for k in 0..sides.len() {
        let m = reference
            .body
            .pose
            .rotate(&reference.poly.side_normal(f, k));
        let on = reference.vertices[sides[k]];
        let mut next = Vec::with_capacity(polygon.len() + 1);
        for p in 0..polygon.len() {
            let (x, tag, edge) = polygon[p];
            let (y, _, _) = polygon[(p + 1) % polygon.len()];
            let (dx, dy) = (dot(&m, &sub(&x, &on)), dot(&m, &sub(&y, &on)));
            if dx <= eps {
                next.push((x, tag, edge));
            }
            if (dx > eps && dy < -eps) || (dx < -eps && dy > eps) {
                let t = dx / (dx - dy);
                let cut: Vec3 = [0, 1, 2].map(|d| x[d] + t * (y[d] - x[d]));
                let tag = match edge {
                    Edge::Incident(e) => Tag::Clip(e, k),
                    Edge::Side(j) => Tag::Corner(j, k),
                };
                // Leaving, the polygon runs on along the side; entering, along its old edge.
                let on_edge = if dx > eps { edge } else { Edge::Side(k) };
                next.push((cut, tag, on_edge));
            }
        }
        polygon = next;
        if polygon.is_empty() {
            return Vec::new();
        }
    }
    let x0 = reference.vertices[sides[0]];
    let case = sided(kind::FACE, reference.body.first);
    polygon
        .into_iter()
        .filter_map(|(x, tag, _)| {
            // Every point is a point of the incident body's face, inside the reference face's
            // sides, against the reference face's plane: its distance to the face. A corner of
            // the reference face is the point of the incident face over it.
            let code = match tag {
                Tag::Vertex(v) => v as u64,
                Tag::Clip(e, k) => (1 << 20) | ((e as u64) << 10) | k as u64,
                Tag::Corner(j, k) => {
                    (2 << 20) | corner_between(sides, j, k).unwrap_or(sides[k]) as u64
                }
            };
            let separation = dot(&n, &sub(&x, &x0));
            let gap = Gap3d::Face {
                a: inc.body.pose.local(&x),
                b: reference.poly.vertices[sides[0]],
                normal: reference.poly.faces[f].normal,
            };
            (separation <= margin).then_some((
                x,
                ContactPoint3d {
                    key: key(case, code, f as u64),
                    first_is_a: inc.body.first,
                    gap,
                    radii: [0.0, 0.0],
                    separation,
                },
            ))
        })
        .collect()
}

/// The vertex of `inc` deepest under face `f` of `reference`, as a point against its plane.
fn deepest_vertex(
    reference: &World<'_>,
    f: usize,
    inc: &World<'_>,
) -> Option<(Vec3, ContactPoint3d)> {
    let n = reference.normal(f);
    let x0 = reference.vertices[reference.poly.faces[f].vertices[0]];
    let (v, separation) = inc
        .vertices
        .iter()
        .map(|x| dot(&n, &sub(x, &x0)))
        .enumerate()
        .min_by(|a, b| a.1.total_cmp(&b.1))?;
    Some((
        inc.vertices[v],
        ContactPoint3d {
            key: key(sided(kind::FACE, reference.body.first), v as u64, f as u64),
            first_is_a: inc.body.first,
            gap: Gap3d::Face {
                a: inc.poly.vertices[v],
                b: reference.poly.vertices[reference.poly.faces[f].vertices[0]],
                normal: reference.poly.faces[f].normal,
            },
            radii: [0.0, 0.0],
            separation,
        },
    ))
}

/// The vertex of a face shared by its sides `j` and `k` (side `k` runs from vertex `k` to
/// `k + 1`), if they are neighbours.
fn corner_between(sides: &[usize], j: usize, k: usize) -> Option<usize> {
    let count = sides.len();
    if (j + 1) % count == k {
        Some(sides[k])
    } else if (k + 1) % count == j {
        Some(sides[j])
    } else {
        None
    }
}

/// At most four points that keep the manifold's area: the deepest, the farthest from it, and
/// the two that span the largest area on either side of their line. `size` is the smaller
/// body's reach.
///
/// Near-ties go to the first point in the clip's order, which follows the faces' and edges'
/// numbering: two faces resting flat on each other have points whose depths differ by rounding,
/// and a regular octagon (two squares turned) has equal distances. Chosen by rounding, the
/// kept four would change from one evaluation to the next, and the rows held through a step
/// would move to other corners in its middle (a resting stack of turned cubes was kicked to
/// 0.06 rad/s that way).
pub(super) fn reduce(points: &mut Vec<(Vec3, ContactPoint3d)>, size: f64) {
    if points.len() <= 4 {
        return;
    }
    let band = TIE * size;
    let deepest = first_best(points.len(), |k| -points[k].1.separation, band);
    let p1 = points[deepest].0;
    let far = first_best(points.len(), |k| norm(&sub(&points[k].0, &p1)), band);
    let p2 = points[far].0;
    let line = sub(&p2, &p1);
    let area = |k: usize| norm(&cross(&line, &sub(&points[k].0, &p1)));
    let side = |k: usize, n: &Vec3| dot(&cross(&line, &sub(&points[k].0, &p1)), n);
    let third = first_best(points.len(), area, band * size);
    let up = cross(&line, &sub(&points[third].0, &p1));
    let fourth = first_best(points.len(), |k| -side(k, &up), band * size * norm(&up));
    let mut keep = vec![deepest, far, third, fourth];
    keep.sort_unstable();
    keep.dedup();
    let kept: Vec<(Vec3, ContactPoint3d)> = keep.into_iter().map(|k| points[k]).collect();
    *points = kept;
}

/// A share of the smaller body's reach within which a pair apart counts as resting on each
/// other (0.2 µm on a 0.2 m box): its face's four points are kept (see `manifold`).
const APART: f64 = 1e-6;

/// A share of the smaller body's reach below which two depths or distances tie (0.2 nm on a
/// 0.2 m box, far below the contact tolerance, far above rounding).
const TIE: f64 = 1e-9;

/// The first of `0..n` whose `score` is within `band` of the best.
fn first_best(n: usize, score: impl Fn(usize) -> f64, band: f64) -> usize {
    let best = (0..n).map(&score).fold(f64::NEG_INFINITY, f64::max);
    (0..n).find(|&k| score(k) >= best - band).unwrap_or(0)
}
