//! A convex hull's faces from its points, and its mass properties (issue 33's convex hull
//! shape, [`super::Shape3d::ConvexHull`]).
//!
//! The triangles come from parry3d-f64's quickhull. Collision and drawing need the hull's
//! *faces*: a box given as eight points has six square faces, not twelve triangles, so that a
//! box resting on a hull keeps four corners and the clipping of one face against another
//! ([`crate::collide3d`]) sees whole faces. Each triangle's plane is taken with every point on
//! it, and those points' convex polygon in the plane is the face.
//!
//! Every point must be a corner of the hull. A point inside it, or on a face or an edge,
//! is refused with its index: it is most often a sign that the shape was meant to be
//! non-convex, which one hull cannot be.
//!
//! Mass properties sum the tetrahedra from the origin to each face's fan of triangles, each
//! signed by its orientation: `∫ x xᵀ dV = det(a b c)/120 · (a aᵀ + b bᵀ + c cᵀ + s sᵀ)` with
//! `s = a + b + c`, and the inertia is `ρ (tr S · 1 − S)`.

use crate::math::vector::{Vec3, cross, dot, norm, sub};

/// One face of a hull: its outward unit normal and its corners, indices into the points,
/// counter-clockwise seen from outside.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct HullFace {
    pub(crate) normal: Vec3,
    pub(crate) corners: Vec<usize>,
}

/// The faces of the convex hull of `points`, or why the points do not make one: fewer than
/// four, not finite, two that coincide, all in one plane, or one that is not a corner.
pub(crate) fn hull_faces(points: &[[f64; 3]]) -> Result<Vec<HullFace>, String> {
    if points.len() < 4 {
        return Err(format!(
            "a convex hull needs at least 4 points, got {}",
            points.len()
        ));
    }
    if let Some(k) = points.iter().position(|p| !p.iter().all(|x| x.is_finite())) {
        return Err(format!("hull point {k} {:?} is not finite", points[k]));
    }
    let size = reach(points);
    if !(size > 0.0) {
        return Err("a convex hull's points must not all coincide".into());
    }
    let tol = 1e-9 * size;
    for (i, p) in points.iter().enumerate() {
        if let Some(j) = points[i + 1..].iter().position(|q| norm(&sub(p, q)) <= tol) {
            return Err(format!(
                "hull points {i} and {} coincide at {p:?}",
                i + 1 + j
            ));
        }
    }
    let flat = || {
        "a convex hull's points all lie in one plane: the hull has no volume \
         (give at least four points not in one plane)"
            .to_string()
    };
    let glam: Vec<parry3d_f64::math::Vector> = points
        .iter()
        .map(|p| parry3d_f64::math::Vector::new(p[0], p[1], p[2]))
        .collect();
    let (vertices, triangles) =
        parry3d_f64::transformation::try_convex_hull(&glam).map_err(|_| flat())?;
    let count = points.len() as f64;
    let mean: Vec3 = [0, 1, 2].map(|d| points.iter().map(|p| p[d]).sum::<f64>() / count);
    let mut faces: Vec<HullFace> = Vec::new();
    for t in &triangles {
        let [a, b, c] = t.map(|i| {
            let v = vertices[i as usize];
            [v.x, v.y, v.z]
        });
        let n = cross(&sub(&b, &a), &sub(&c, &a));
        let len = norm(&n);
        if !(len > tol * size) {
            continue;
        }
        // Outward: away from the points' mean, which is inside.
        let out = if dot(&n, &sub(&a, &mean)) < 0.0 {
            -1.0
        } else {
            1.0
        };
        let n = n.map(|x| out * x / len);
        let on: Vec<usize> = (0..points.len())
            .filter(|&k| dot(&n, &sub(&points[k], &a)).abs() <= tol)
            .collect();
        // Each of a face's triangles finds it again.
        if let Some(face) = face(points, &n, &on, tol)
            && !faces.iter().any(|f| same_points(&f.corners, &face.corners))
        {
            faces.push(face);
        }
    }
    if faces.len() < 4 {
        return Err(flat());
    }
    // Every plane found must hold all points on its inner side.
    for f in &faces {
        let x0 = points[f.corners[0]];
        if let Some(k) = (0..points.len()).find(|&k| dot(&f.normal, &sub(&points[k], &x0)) > tol) {
            return Err(format!(
                "hull point {k} {:?} lies outside a face the hull found: the points are too \
                 nearly coplanar to tell their faces apart (make such points exactly coplanar, \
                 or move them apart)",
                points[k]
            ));
        }
    }
    if let Some(k) = (0..points.len()).find(|k| !faces.iter().any(|f| f.corners.contains(k))) {
        return Err(format!(
            "hull point {k} {:?} is not a corner of the hull: it lies inside it, or on one of \
             its faces or edges (a hull's points must be its corners; a non-convex shape needs \
             several bodies)",
            points[k]
        ));
    }
    closed(&faces)?;
    Ok(faces)
}

/// The largest distance of a point from the first, at least the largest coordinate: the
/// scale of rounding.
fn reach(points: &[[f64; 3]]) -> f64 {
    let spread = points
        .iter()
        .map(|p| norm(&sub(p, &points[0])))
        .fold(0.0_f64, f64::max);
    let far = points.iter().flatten().fold(0.0_f64, |m, x| m.max(x.abs()));
    spread.max(1e-3 * far)
}

fn same_points(a: &[usize], b: &[usize]) -> bool {
    let mut a = a.to_vec();
    a.sort_unstable();
    let mut b = b.to_vec();
    b.sort_unstable();
    a == b
}

/// The face on the plane of normal `n` through the points `on`: their convex polygon in the
/// plane, counter-clockwise about `n`, with its corners only (points on its sides dropped).
fn face(points: &[[f64; 3]], n: &Vec3, on: &[usize], tol: f64) -> Option<HullFace> {
    let (u, w) = crate::math::vector::orthonormal_pair(n);
    let flat: Vec<(usize, [f64; 2])> = on
        .iter()
        .map(|&k| (k, [dot(&u, &points[k]), dot(&w, &points[k])]))
        .collect();
    let corners = polygon(flat, tol);
    if corners.len() < 3 {
        return None;
    }
    // Newell's normal, the polygon's area vector: every corner weighs in, not one triangle's.
    let mut area = [0.0; 3];
    for k in 0..corners.len() {
        let (a, b) = (points[corners[k]], points[corners[(k + 1) % corners.len()]]);
        area[0] += (a[1] - b[1]) * (a[2] + b[2]);
        area[1] += (a[2] - b[2]) * (a[0] + b[0]);
        area[2] += (a[0] - b[0]) * (a[1] + b[1]);
    }
    let len = norm(&area);
    Some(HullFace {
        normal: area.map(|x| x / len),
        corners,
    })
}

/// The corners of the convex polygon of `points` (index, plane coordinates), counter-clockwise
/// (Andrew's monotone chain), dropping points within `tol` of a side.
fn polygon(mut points: Vec<(usize, [f64; 2])>, tol: f64) -> Vec<usize> {
    points.sort_by(|a, b| a.1[0].total_cmp(&b.1[0]).then(a.1[1].total_cmp(&b.1[1])));
    // Left of the line from a to b by more than tol (the signed distance of c from it).
    let left = |a: &[f64; 2], b: &[f64; 2], c: &[f64; 2]| {
        let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
        let len = (dx * dx + dy * dy).sqrt();
        (dx * (c[1] - a[1]) - dy * (c[0] - a[0])) > tol * len
    };
    let mut chain: Vec<(usize, [f64; 2])> = Vec::new();
    for pass in 0..2 {
        let start = chain.len();
        let order: Vec<(usize, [f64; 2])> = if pass == 0 {
            points.clone()
        } else {
            points.iter().rev().copied().collect()
        };
        for p in order {
            while chain.len() >= start + 2
                && !left(&chain[chain.len() - 2].1, &chain[chain.len() - 1].1, &p.1)
            {
                chain.pop();
            }
            chain.push(p);
        }
        chain.pop();
    }
    chain.into_iter().map(|(k, _)| k).collect()
}

/// Checks that every edge joins exactly two faces, the faces turning opposite ways along it:
/// the faces close the hull.
fn closed(faces: &[HullFace]) -> Result<(), String> {
    let mut directed: Vec<(usize, usize)> = Vec::new();
    for f in faces {
        let c = &f.corners;
        for k in 0..c.len() {
            directed.push((c[k], c[(k + 1) % c.len()]));
        }
    }
    let open = directed
        .iter()
        .any(|&(i, j)| directed.iter().filter(|&&e| e == (j, i)).count() != 1);
    if open {
        return Err(
            "the hull's faces do not close: some of its points are coplanar only to \
                    within rounding (make them exactly coplanar, or move them apart)"
                .into(),
        );
    }
    Ok(())
}

/// Volume, centroid and second moment `∫ x xᵀ dV` about the origin of the hull of `points`
/// with `faces`.
pub(crate) fn moments(points: &[[f64; 3]], faces: &[HullFace]) -> (f64, Vec3, [[f64; 3]; 3]) {
    let (mut volume, mut first, mut second) = (0.0, [0.0; 3], [[0.0; 3]; 3]);
    for f in faces {
        let a = points[f.corners[0]];
        for k in 1..f.corners.len() - 1 {
            let (b, c) = (points[f.corners[k]], points[f.corners[k + 1]]);
            let det = dot(&a, &cross(&b, &c));
            let s: Vec3 = [0, 1, 2].map(|i| a[i] + b[i] + c[i]);
            volume += det / 6.0;
            for i in 0..3 {
                first[i] += det / 24.0 * s[i];
                for j in 0..3 {
                    second[i][j] +=
                        det / 120.0 * (a[i] * a[j] + b[i] * b[j] + c[i] * c[j] + s[i] * s[j]);
                }
            }
        }
    }
    (volume, first.map(|x| x / volume), second)
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// The eight corners of the box of half-edges `h` about the origin.
    pub(in super::super) fn corners(h: [f64; 3]) -> Vec<[f64; 3]> {
        (0..8)
            .map(|k| [0, 1, 2].map(|d| if k & (1 << d) != 0 { h[d] } else { -h[d] }))
            .collect()
    }

    #[test]
    fn a_cube_has_six_square_faces_turning_outward() {
        let p = corners([0.5; 3]);
        let faces = hull_faces(&p).unwrap();
        assert_eq!(faces.len(), 6);
        for f in &faces {
            assert_eq!(f.corners.len(), 4);
            // Counter-clockwise from outside: the corners' turn agrees with the normal.
            let c = &f.corners;
            let turn = cross(&sub(&p[c[1]], &p[c[0]]), &sub(&p[c[2]], &p[c[1]]));
            assert!(dot(&turn, &f.normal) > 0.0);
            assert!(dot(&f.normal, &p[c[0]]) > 0.0);
        }
        let (v, centroid, s) = moments(&p, &faces);
        assert!((v - 1.0).abs() < 1e-14);
        assert!(norm(&centroid) < 1e-15);
        // ∫ x² dV over the unit cube about its centre: 1/12.
        assert!((s[0][0] - 1.0 / 12.0).abs() < 1e-15 && s[0][1].abs() < 1e-15);
    }

    #[test]
    fn a_tetrahedron_has_its_closed_form_moments() {
        let p = [
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 2.0, 0.0],
            [0.0, 0.0, 3.0],
        ];
        let faces = hull_faces(&p).unwrap();
        assert_eq!(faces.len(), 4);
        let (v, centroid, s) = moments(&p, &faces);
        assert!((v - 1.0).abs() < 1e-14);
        assert!(norm(&sub(&centroid, &[0.25, 0.5, 0.75])) < 1e-14);
        // Over the corner tetrahedron of edges a, b, c along the axes: ∫ x y dV = a² b² c / 120
        // and ∫ z² dV = a b c³ / 60.
        assert!((s[0][1] - 6.0 * 2.0 / 120.0).abs() < 1e-14);
        assert!((s[2][2] - 6.0 * 9.0 / 60.0).abs() < 1e-14);
    }

    #[test]
    fn points_that_are_not_corners_are_refused_with_their_index() {
        let mut p = corners([1.0; 3]);
        p.push([0.0, 0.0, 0.0]);
        let e = hull_faces(&p).unwrap_err();
        assert!(
            e.contains("hull point 8") && e.contains("not a corner"),
            "{e}"
        );
        let mut p = corners([1.0; 3]);
        p.push([1.0, 0.0, 0.0]); // the middle of a face
        assert!(hull_faces(&p).unwrap_err().contains("hull point 8"));
        let mut p = corners([1.0; 3]);
        p.push([1.0, 1.0, 0.0]); // the middle of an edge
        assert!(hull_faces(&p).unwrap_err().contains("hull point 8"));
    }

    #[test]
    fn degenerate_points_are_refused() {
        let flat = [
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [1.0, 1.0, 0.0],
        ];
        assert!(hull_faces(&flat).unwrap_err().contains("one plane"));
        assert!(hull_faces(&flat[..3]).unwrap_err().contains("at least 4"));
        let mut twice = corners([1.0; 3]);
        twice.push([1.0, 1.0, 1.0]);
        assert!(hull_faces(&twice).unwrap_err().contains("coincide"));
        let mut nan = corners([1.0; 3]);
        nan[3][1] = f64::NAN;
        assert!(hull_faces(&nan).unwrap_err().contains("hull point 3"));
    }

    #[test]
    fn a_turned_prism_keeps_its_faces() {
        // A wedge (a triangular prism), turned about an oblique axis and moved: five faces,
        // two triangles and three rectangles.
        let base = [
            [0.0, 0.0, 0.0],
            [2.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, 0.0, 0.5],
            [2.0, 0.0, 0.5],
            [0.0, 1.0, 0.5],
        ];
        let r = crate::math::rotation::rotation_matrix(&[0.8, 0.2, -0.4, 0.4]);
        let p: Vec<[f64; 3]> = base
            .iter()
            .map(|x| [0, 1, 2].map(|i| 3.0 + (0..3).map(|j| r[i][j] * x[j]).sum::<f64>()))
            .collect();
        let faces = hull_faces(&p).unwrap();
        let mut sides: Vec<usize> = faces.iter().map(|f| f.corners.len()).collect();
        sides.sort_unstable();
        assert_eq!(sides, vec![3, 3, 4, 4, 4]);
        let (v, _, _) = moments(&p, &faces);
        assert!((v - 0.5).abs() < 1e-12, "{v}");
    }
}
