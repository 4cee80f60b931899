//! From world points to a picture: the one projection of 3D points onto the picture plane and the
//! one fit of a view to what is drawn, shared by every renderer (`bead render`'s GIF frames, the
//! viewer), so that a scene looks the same in both.
//!
//! A picture is drawn in three steps. [`project`] maps world points (metres, z up in 3D) onto the
//! picture plane (metres, y up). [`Bounds`] collects what is drawn there, and [`Fit::new`] finds
//! the centre and the scale (picture units per metre) that show it in a `width` × `height`
//! picture. The last step, from the picture plane to pixels or screen points (y down, the user's
//! zoom and pan), is each renderer's own.

/// cos 30° and sin 30°, correctly rounded: the direction in which depth recedes.
const COS_30: f64 = 0.866_025_403_784_438_6;
const SIN_30: f64 = 0.5;

/// Cabinet projection: depth is drawn at half its length.
const DEPTH_SCALE: f64 = 0.5;

/// Where world point `p` (metres) is drawn on the picture plane (metres, y up).
///
/// In 3D (`dim == 3`) this is a fixed cabinet projection: x to the right, z up, and depth (y)
/// receding up and to the right at 30°, drawn at half its length, so that depth stays visible in
/// a still image. Any other dimension is 2D, where the picture plane is the world's plane and
/// `p[2]` is ignored. The map is linear, so it projects vectors (a force, a velocity) too.
///
/// ```
/// use bead::draw::projection::project;
///
/// assert_eq!(project(2, [0.3, -1.0, 0.0]), [0.3, -1.0]);
/// // One metre of depth recedes half a metre at 30° above the horizontal.
/// let [x, y] = project(3, [0.0, 1.0, 0.0]);
/// assert!((x - 0.5 * 30f64.to_radians().cos()).abs() < 1e-15);
/// assert_eq!(y, 0.25);
/// assert_eq!(project(3, [1.0, 0.0, 2.0]), [1.0, 2.0]);
/// ```
pub fn project(dim: usize, p: [f64; 3]) -> [f64; 2] {
    if dim == 3 {
        [
            p[0] + DEPTH_SCALE * p[1] * COS_30,
            p[2] + DEPTH_SCALE * p[1] * SIN_30,
        ]
    } else {
        [p[0], p[1]]
    }
}

/// The world point (metres) that [`project`] draws at `q` on the picture plane. In 3D a picture
/// point stands for a whole line of world points, one at each depth, so the caller chooses the
/// depth (y, metres): a point dragged with the mouse keeps its own. In 2D `depth` is ignored and
/// the third component is 0.
///
/// ```
/// use bead::draw::projection::{project, unproject};
///
/// let p = [0.3, -0.2, 0.7];
/// let back = unproject(3, project(3, p), p[1]);
/// assert!((0..3).all(|k| (back[k] - p[k]).abs() < 1e-15));
/// assert_eq!(unproject(2, [0.3, 0.7], 5.0), [0.3, 0.7, 0.0]);
/// ```
pub fn unproject(dim: usize, q: [f64; 2], depth: f64) -> [f64; 3] {
    if dim == 3 {
        [
            q[0] - DEPTH_SCALE * depth * COS_30,
            depth,
            q[1] - DEPTH_SCALE * depth * SIN_30,
        ]
    } else {
        [q[0], q[1], 0.0]
    }
}

/// The axis-aligned bounds of what is drawn on the picture plane, metres: the smallest and
/// largest coordinates along each axis. Start from [`Bounds::EMPTY`] and [`include`] each point.
///
/// [`include`]: Bounds::include
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds {
    /// The smallest x and y, metres.
    pub min: [f64; 2],
    /// The largest x and y, metres.
    pub max: [f64; 2],
}

impl Bounds {
    /// No points: the first point included sets the bounds.
    pub const EMPTY: Bounds = Bounds {
        min: [f64::INFINITY; 2],
        max: [f64::NEG_INFINITY; 2],
    };

    /// Grows the bounds to hold `p` and the square of half-side `margin` (metres) about it: a
    /// disc's radius, the reach of a body from its centre, or 0 for a point. A point with a
    /// coordinate that is not finite is left out, so that a diverged body does not take the view
    /// with it; a margin that is not finite counts as 0.
    pub fn include(&mut self, p: [f64; 2], margin: f64) {
        if !(p[0].is_finite() && p[1].is_finite()) {
            return;
        }
        let margin = if margin.is_finite() {
            margin.abs()
        } else {
            0.0
        };
        for i in 0..2 {
            self.min[i] = self.min[i].min(p[i] - margin);
            self.max[i] = self.max[i].max(p[i] + margin);
        }
    }

    /// Whether no point has been included.
    pub fn is_empty(&self) -> bool {
        !(self.min[0] <= self.max[0])
    }

    /// The middle of the bounds, metres.
    pub fn center(&self) -> [f64; 2] {
        std::array::from_fn(|i| 0.5 * (self.min[i] + self.max[i]))
    }

    /// The width and height of the bounds, metres.
    pub fn size(&self) -> [f64; 2] {
        std::array::from_fn(|i| self.max[i] - self.min[i])
    }
}

/// A view fitted to what is drawn: the picture-plane point (metres) at the centre of the
/// picture, and the scale, in the picture's units (pixels, screen points) per metre, the same
/// along both axes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fit {
    /// The picture-plane point drawn at the centre of the picture, metres.
    pub center: [f64; 2],
    /// Picture units per metre.
    pub scale: f64,
}

impl Fit {
    /// The view that shows a region of `size` (width and height, metres) about `center` whole in
    /// a `width` × `height` picture (any unit) with `margin`, a fraction of each side (0 ≤ margin
    /// < 0.5), left free on each side: the largest scale at which the region fits both ways,
    /// keeping its aspect ratio.
    ///
    /// An axis along which the region has no size (a chain hanging straight) places no limit on
    /// the scale; a region with no size at all (a lone point) has no scale to fit, and gets an
    /// infinite one. What such a region should show is the renderer's choice: give it a size
    /// first.
    ///
    /// ```
    /// use bead::draw::projection::{project, Bounds, Fit};
    ///
    /// // A pendulum's pivot and bob (radius 0.1 m), fitted into 400 × 300 pixels with 10% of
    /// // each side free.
    /// let mut bounds = Bounds::EMPTY;
    /// bounds.include(project(2, [0.0, 0.0, 0.0]), 0.0);
    /// bounds.include(project(2, [1.0, -1.0, 0.0]), 0.1);
    /// assert_eq!(bounds.size(), [1.1, 1.1]);
    /// let fit = Fit::new(bounds.center(), bounds.size(), 400.0, 300.0, 0.1);
    /// assert_eq!(fit.center, [0.55, -0.55]);
    /// // The height limits: 240 usable pixels for 1.1 m.
    /// assert!((fit.scale - 240.0 / 1.1).abs() < 1e-12);
    /// ```
    pub fn new(center: [f64; 2], size: [f64; 2], width: f64, height: f64, margin: f64) -> Fit {
        let usable = [width, height].map(|side| side * (1.0 - 2.0 * margin));
        let scale = (0..2)
            .filter(|&i| size[i] > 0.0)
            .map(|i| usable[i] / size[i])
            .fold(f64::INFINITY, f64::min);
        Fit { center, scale }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Points that are not finite leave the bounds alone; an empty set of bounds says so.
    #[test]
    fn bounds_skip_points_that_are_not_finite() {
        let mut bounds = Bounds::EMPTY;
        assert!(bounds.is_empty());
        bounds.include([f64::NAN, 0.0], 0.0);
        bounds.include([0.0, f64::INFINITY], 1.0);
        assert!(bounds.is_empty());
        bounds.include([1.0, 2.0], f64::NAN);
        bounds.include([-1.0, 0.0], 0.5);
        assert!(!bounds.is_empty());
        assert_eq!(bounds.min, [-1.5, -0.5]);
        assert_eq!(bounds.max, [1.0, 2.0]);
        assert_eq!(bounds.center(), [-0.25, 0.75]);
        assert_eq!(bounds.size(), [2.5, 2.5]);
    }

    /// An axis without extent does not limit the scale; a point has none to fit.
    #[test]
    fn fit_ignores_axes_without_extent() {
        let fit = Fit::new([0.0, -1.0], [0.0, 2.0], 100.0, 50.0, 0.1);
        assert_eq!(fit.center, [0.0, -1.0]);
        assert!((fit.scale - 20.0).abs() < 1e-12);
        let fit = Fit::new([0.0, 0.0], [0.0, 0.0], 100.0, 50.0, 0.1);
        assert_eq!(fit.scale, f64::INFINITY);
    }

    /// The projection is linear and its inverse at the point's own depth gives the point back.
    #[test]
    fn unproject_inverts_project_at_the_points_depth() {
        for p in [[0.3, -0.2, 0.7], [-4.0, 2.5, 1e-3], [0.0, 0.0, 0.0]] {
            let back = unproject(3, project(3, p), p[1]);
            for k in 0..3 {
                assert!((back[k] - p[k]).abs() < 1e-14, "{p:?} → {back:?}");
            }
            let (shifted, one) = (project(3, p.map(|c| c + 1.0)), project(3, [1.0; 3]));
            for k in 0..2 {
                assert!((shifted[k] - project(3, p)[k] - one[k]).abs() < 1e-14);
            }
        }
    }
}
