//! A cylinder's rims against lines and other rims: the points where they come nearest, found
//! numerically, and the signed gap of the rim's tangent there.

use super::{CUT, Cylinder, Found, Region, SAMPLES};
use crate::collide3d::contact_point::{ContactPoint3d, Placed, crossing_gap, key, kind, sided};
use crate::collide3d::segments::along;
use crate::constraint::Gap3d;
use crate::math::vector::{Vec3, cross, dot, norm, sub};

impl Cylinder<'_> {
    /// The rim's unit tangent at its point `y` and its outward direction there (between the
    /// cap's normal and the side's), cylinder frame.
    fn rim_frame(&self, top: bool, y: &Vec3) -> (Vec3, Vec3) {
        let across = y[0].hypot(y[1]);
        let (c, s) = (y[0] / across, y[1] / across);
        ([-s, c, 0.0], [c, s, if top { 1.0 } else { -1.0 }])
    }

    /// The line of `r` through `x` along `e` (world) against this cylinder's rim at its point `y`
    /// (cylinder frame), `x` and `y` the two features' nearest points: the common normal of
    /// the line and the rim's tangent there, turned outwards of the rim ([`crossing_gap`]), and
    /// the signed separation along it, less `radius`. Signed, it sees a line cut into the rim,
    /// which a distance from the circle would not. Where the line runs nearly along the tangent
    /// their common normal is ill conditioned (two coplanar lines are 0 apart along it however
    /// far their nearest points), and the gap is `x` against the plane through `y` square to
    /// `x − y`, fixed in the cylinder.
    fn across_rim(
        &self,
        r: &Placed<'_>,
        (x, e): (Vec3, Vec3),
        (top, y): (bool, Vec3),
        radius: f64,
    ) -> (Gap3d, f64) {
        let (t, o) = self.rim_frame(top, &y);
        let pose = self.at.pose;
        let (yw, tw, ow) = (pose.apply(&y), pose.rotate(&t), pose.rotate(&o));
        let d = sub(&x, &yw);
        let c = cross(&e, &tw);
        if norm(&c) > 0.1 * norm(&e) * norm(&tw) {
            let gap = crossing_gap((r, x, e), (&self.at, yw, tw), ow);
            let n = c.map(|v| v * dot(&c, &ow).signum() / norm(&c));
            return (gap, dot(&n, &d) - radius);
        }
        // Outwards: from the rim towards x, or away from it where x is cut in.
        let length = norm(&d);
        let n = if length > 0.0 {
            d.map(|v| v * dot(&d, &ow).signum() / length)
        } else {
            ow.map(|v| v / norm(&ow))
        };
        let gap = Gap3d::Face {
            a: r.pose.local(&x),
            b: y,
            normal: pose.rotate_back(&n),
        };
        (gap, dot(&n, &d) - radius)
    }

    /// The point of the top or bottom rim nearest `x` (cylinder frame), `None` on the axis.
    fn nearest_on_rim(&self, top: bool, x: &Vec3) -> Option<Vec3> {
        let across = x[0].hypot(x[1]);
        (across > 0.0).then(|| {
            let z = self.centre(top)[2];
            [self.radius * x[0] / across, self.radius * x[1] / across, z]
        })
    }

    /// Whether `x` (cylinder frame) lies beyond the top or bottom rim, or inside the cylinder
    /// on that rim's side: where a feature cut into the rim is.
    fn at_rim(&self, top: bool, x: &Vec3) -> bool {
        let (region, distance) = self.region(x);
        region == Region::Rim(top) || (distance < 0.0 && (x[2] >= 0.0) == top)
    }

    /// The segment `ends` (world) of `other`, swept by `radius`, over the rims: at each least
    /// distance inside the segment whose point lies beyond the rim (or cut into it).
    pub(super) fn segment_over_rims(
        &self,
        other: &Placed<'_>,
        (ends, radius, code): ([Vec3; 2], f64, u64),
        margin: f64,
        out: &mut Vec<Found>,
    ) {
        let pose = self.at.pose;
        let [p0, p1] = ends.map(|x| pose.local(&x));
        let d = sub(&p1, &p0);
        for top in [false, true] {
            let off_rim = |s: f64| self.off_rim(top, &along(&p0, &d, s));
            for (k, s) in minima(off_rim, (0.0, 1.0), false)
                .into_iter()
                .take(4)
                .enumerate()
            {
                let x = along(&p0, &d, s);
                if off_rim(s) - radius > margin {
                    continue;
                }
                let Some(y) = self.nearest_on_rim(top, &x) else {
                    continue;
                };
                if !(s > 1e-9 && s < 1.0 - 1e-9 && self.at_rim(top, &x)) {
                    continue;
                }
                let line = (pose.apply(&x), pose.rotate(&d));
                let (gap, separation) = self.across_rim(other, line, (top, y), radius);
                if separation > margin {
                    continue;
                }
                let case = sided(kind::SEGMENT_RIM, self.at.first);
                out.push((
                    pose.apply(&x),
                    ContactPoint3d {
                        key: key(case, 8 * code + 4 * u64::from(top) + k as u64, 0),
                        first_is_a: other.first,
                        gap,
                        radii: [radius, 0.0],
                        separation,
                    },
                ));
            }
        }
    }

    /// This cylinder's rims against `other`'s side, and against its rims where `rims` (asked of
    /// one cylinder of the pair only, as each such contact is found from either side).
    pub(super) fn rims_on_cylinder(
        &self,
        other: &Cylinder<'_>,
        rims: bool,
        margin: f64,
        out: &mut Vec<Found>,
    ) {
        let to_other = |x: &Vec3| other.at.pose.local(&self.at.pose.apply(x));
        let tau = (0.0, std::f64::consts::TAU);
        for top in [false, true] {
            let point = |theta: f64| to_other(&self.rim_point(top, theta));
            // Against the side: the least distance from the other's axis.
            let off_axis = |theta: f64| {
                let y = point(theta);
                y[0].hypot(y[1])
            };
            for (k, theta) in minima(off_axis, tau, true).into_iter().take(4).enumerate() {
                let y = point(theta);
                let separation = off_axis(theta) - other.radius;
                // Beside the side only: a rim point at the other's cap plane, or cut into the
                // other, rests on its cap (two equal coins on one axis have each rim on the
                // other's, and a side's push there shoved a stack apart).
                let in_cap_plane = y[2].abs() >= other.half - CUT * other.size();
                if separation > margin || in_cap_plane || other.region(&y).0 != Region::Side {
                    continue;
                }
                let gap = Gap3d::Line {
                    a: self.rim_point(top, theta),
                    b: [0.0; 3],
                    direction: [0.0, 0.0, 1.0],
                };
                let found = (gap, [0.0, other.radius], separation);
                self.push_rim_point((top, theta, k), found, 0, out);
            }
            // Against the other's rims: the two rims' tangents at their nearest points.
            for other_top in [false, true].into_iter().filter(|_| rims) {
                let distance = |theta: f64| other.off_rim(other_top, &point(theta));
                for (k, theta) in minima(distance, tau, true).into_iter().take(4).enumerate() {
                    let y = point(theta);
                    if distance(theta) > margin {
                        continue;
                    }
                    let Some(nearest) = other.nearest_on_rim(other_top, &y) else {
                        continue;
                    };
                    let back = self.at.pose.local(&other.at.pose.apply(&nearest));
                    if !other.at_rim(other_top, &y) || !self.at_rim(top, &back) {
                        continue;
                    }
                    let x = self.rim_point(top, theta);
                    let (t, _) = self.rim_frame(top, &x);
                    let line = (self.at.pose.apply(&x), self.at.pose.rotate(&t));
                    let (gap, separation) =
                        other.across_rim(&self.at, line, (other_top, nearest), 0.0);
                    if separation > margin {
                        continue;
                    }
                    let code = 1 + u64::from(other_top);
                    self.push_rim_point((top, theta, k), (gap, [0.0, 0.0], separation), code, out);
                }
            }
        }
    }

    /// A point of this cylinder's rim (`top`, at `theta`, the `k`th found) against a feature of
    /// another cylinder (`code`: its side, or its bottom or top rim).
    fn push_rim_point(
        &self,
        (top, theta, k): (bool, f64, usize),
        (gap, radii, separation): (Gap3d, [f64; 2], f64),
        code: u64,
        out: &mut Vec<Found>,
    ) {
        let case = sided(kind::RIM_CYLINDER, self.at.first);
        out.push((
            self.at.pose.apply(&self.rim_point(top, theta)),
            ContactPoint3d {
                key: key(case, 4 * u64::from(top) + k as u64, code),
                first_is_a: self.at.first,
                gap,
                radii,
                separation,
            },
        ));
    }
}

/// The local minima of `f` over `[lo, hi]` (round a circle where `periodic`), each refined by
/// golden sections between its neighbouring samples.
fn minima(f: impl Fn(f64) -> f64, (lo, hi): (f64, f64), periodic: bool) -> Vec<f64> {
    let n = SAMPLES;
    let at = |i: usize| lo + (hi - lo) * i as f64 / n as f64;
    let values: Vec<f64> = (0..=n).map(|i| f(at(i))).collect();
    let mut found = Vec::new();
    let last = if periodic { n - 1 } else { n };
    for i in 0..=last {
        let (before, after) = match (i, periodic) {
            (0, true) => (values[n - 1], values[1]),
            (0, false) => (f64::INFINITY, values[1]),
            (i, false) if i == n => (values[n - 1], f64::INFINITY),
            (i, _) => (values[i - 1], values[i + 1]),
        };
        // Strictly below the sample before it: a flat stretch gives one minimum, not many.
        if !(values[i] < before && values[i] <= after) {
            continue;
        }
        let (mut a, mut b) = (
            if i == 0 && !periodic {
                at(0)
            } else {
                at(i) - (hi - lo) / n as f64
            },
            if i == n {
                at(n)
            } else {
                at(i) + (hi - lo) / n as f64
            },
        );
        let ratio = 0.5 * (5.0_f64.sqrt() - 1.0);
        for _ in 0..80 {
            let (c, d) = (b - ratio * (b - a), a + ratio * (b - a));
            if f(c) < f(d) {
                b = d;
            } else {
                a = c;
            }
        }
        let x = 0.5 * (a + b);
        found.push(if periodic {
            x.rem_euclid(hi - lo)
        } else {
            x.clamp(lo, hi)
        });
    }
    found
}
