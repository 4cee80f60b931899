//! From world points to a picture: the one projection of 3D points onto the picture plane (a
//! [`Camera`]) and the one fit of a view to what is drawn, shared by every renderer (`bead
//! render`'s GIF frames, the viewer), so that a scene looks the same in both.
//!
//! A picture is drawn in three steps. [`Camera::project`] maps world points (metres, z up in 3D)
//! onto the picture plane (metres, y up). [`Bounds`] collects what is drawn there, and
//! [`Fit::new`] finds the centre and the scale (picture units per metre) that show it in a
//! `width` × `height` picture. The last step, from the picture plane to pixels or screen points
//! (y down, the user's zoom and pan), is each renderer's own.
//!
//! Every camera is a parallel projection: a picture point stands for a line of world points
//! along [`Camera::view_direction`]. That line is how solids are sorted by depth (painter's
//! algorithm, [`super::faces`]) and how a point under the mouse is found on a face or in the
//! plane a dragged point moves in ([`Camera::unproject`], [`Camera::on_plane`]).

use std::f64::consts::{FRAC_PI_2, PI, TAU};

/// cos 30° and sin 30°, correctly rounded: the direction in which depth recedes.
const COS_30: f64 = 0.866_025_403_784_438_6;
const SIN_30: f64 = 0.5;

/// Cabinet projection: depth is drawn at half its length.
const DEPTH_SCALE: f64 = 0.5;

/// Where the light comes from, in the camera's frame (right, up, forward): from the upper left,
/// in front of the picture, so that the faces turned to the viewer are lit and the top, left and
/// front sides of a box get three different shades.
const LIGHT: [f64; 3] = [-0.35, 0.55, -0.76];

/// How 3D scenes are seen: the projection of world points onto the picture plane.
///
/// - [`Camera::Cabinet`], the default, is the fixed cabinet projection `bead render` draws
///   with: x to the right, z up, and depth (y) receding up and to the right at 30°, drawn at half
///   its length, so that depth stays visible in a still image.
/// - [`Camera::Orbit`] is an orthographic view from any side: the viewer's orbit camera. At
///   yaw = pitch = 0 it looks along +y (x to the right, z up, as the cabinet's front); a positive
///   yaw turns the camera about z, counter-clockwise seen from above, and a positive pitch raises
///   it above the horizon to look down.
///
/// 2D scenes ignore the camera: their picture plane is the world's plane.
///
/// ```
/// use bead::draw::projection::Camera;
///
/// // The cabinet: one metre of depth recedes half a metre at 30° above the horizontal.
/// let [x, y] = Camera::Cabinet.project(3, [0.0, 1.0, 0.0]);
/// assert!((x - 0.5 * 30f64.to_radians().cos()).abs() < 1e-15);
/// assert_eq!(y, 0.25);
/// assert_eq!(Camera::default(), Camera::Cabinet);
/// // Seen from above (pitch 90°), y points up the picture.
/// let top = Camera::orbit(0.0, 90f64.to_radians());
/// let [x, y] = top.project(3, [0.0, 1.0, 5.0]);
/// assert!(x.abs() < 1e-15 && (y - 1.0).abs() < 1e-15);
/// // A 2D scene is drawn as it is.
/// assert_eq!(top.project(2, [0.3, -1.0, 0.0]), [0.3, -1.0]);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Camera {
    /// The fixed cabinet projection (see [`Camera`]).
    #[default]
    Cabinet,
    /// An orthographic view from `yaw` radians about the world's z axis and `pitch` radians
    /// above the horizon (−π/2 to π/2).
    Orbit {
        /// Turn about z, rad (0: looking along +y).
        yaw: f64,
        /// Height above the horizon, rad (π/2: looking straight down).
        pitch: f64,
    },
}

impl Camera {
    /// The orthographic view from `yaw` and `pitch` (radians), with the pitch held within
    /// ±π/2 (straight down or straight up) and the yaw brought within ±π.
    ///
    /// ```
    /// use bead::draw::projection::Camera;
    /// assert_eq!(
    ///     Camera::orbit(0.5, 2.0),
    ///     Camera::Orbit { yaw: 0.5, pitch: std::f64::consts::FRAC_PI_2 }
    /// );
    /// ```
    pub fn orbit(yaw: f64, pitch: f64) -> Camera {
        // Only a yaw past a half turn is brought back, so that one within keeps its exact value.
        let yaw = if yaw.abs() > PI {
            (yaw + PI).rem_euclid(TAU) - PI
        } else {
            yaw
        };
        Camera::Orbit {
            yaw,
            pitch: pitch.clamp(-FRAC_PI_2, FRAC_PI_2),
        }
    }

    /// The camera turned further by `yaw` and `pitch` radians: the viewer's orbit gesture. The
    /// cabinet turns from the orthographic view along its own direction
    /// ([`Camera::cabinet_angles`]), which sees the same sides of every solid: only the
    /// cabinet's slant of the picture goes.
    ///
    /// ```
    /// use bead::draw::projection::Camera;
    /// let Camera::Orbit { yaw, pitch } = Camera::orbit(0.1, 0.2).orbited(0.3, -0.1) else {
    ///     unreachable!()
    /// };
    /// assert!((yaw - 0.4).abs() < 1e-15 && (pitch - 0.1).abs() < 1e-15);
    /// ```
    pub fn orbited(self, yaw: f64, pitch: f64) -> Camera {
        let [from_yaw, from_pitch] = match self {
            Camera::Cabinet => Camera::cabinet_angles(),
            Camera::Orbit { yaw, pitch } => [yaw, pitch],
        };
        Camera::orbit(from_yaw + yaw, from_pitch + pitch)
    }

    /// The yaw and pitch (radians) of the orthographic view that looks along the cabinet's
    /// direction (about −23.4° and 12.9°): its depth order and the sides of solids it sees are
    /// the cabinet's.
    ///
    /// ```
    /// use bead::draw::projection::Camera;
    /// let [yaw, pitch] = Camera::cabinet_angles();
    /// let (cabinet, orbit) = (Camera::Cabinet, Camera::orbit(yaw, pitch));
    /// let (a, b) = (cabinet.view_direction(), orbit.view_direction());
    /// assert!((0..3).all(|k| (a[k] - b[k]).abs() < 1e-15));
    /// ```
    pub fn cabinet_angles() -> [f64; 2] {
        let d = cabinet_direction();
        [d[0].atan2(d[1]), (-d[2]).asin()]
    }

    /// The camera's frame in the world: the picture's right and up, and the direction it looks
    /// along (away from the viewer), each a unit vector, right-handed with the viewer on the
    /// side opposite `forward`. The cabinet, whose picture is slanted, has that of the
    /// orthographic view along its direction.
    ///
    /// ```
    /// use bead::draw::projection::Camera;
    /// let [right, up, forward] = Camera::orbit(0.0, 0.0).frame();
    /// assert_eq!((right, up, forward), ([1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]));
    /// ```
    pub fn frame(&self) -> [[f64; 3]; 3] {
        let [yaw, pitch] = match *self {
            Camera::Cabinet => Camera::cabinet_angles(),
            Camera::Orbit { yaw, pitch } => [yaw, pitch],
        };
        let (sy, cy) = yaw.sin_cos();
        let (sp, cp) = pitch.sin_cos();
        [
            [cy, -sy, 0.0],
            [sy * sp, cy * sp, cp],
            [sy * cp, cy * cp, -sp],
        ]
    }

    /// Where world point `p` (metres) is drawn on the picture plane (metres, y up). In 2D
    /// (`dim != 3`) the picture plane is the world's plane and `p[2]` is ignored. The map is
    /// linear, so it projects vectors (a force, a velocity) too.
    ///
    /// ```
    /// use bead::draw::projection::Camera;
    /// assert_eq!(Camera::Cabinet.project(3, [1.0, 0.0, 2.0]), [1.0, 2.0]);
    /// assert_eq!(Camera::Cabinet.project(2, [0.3, -1.0, 0.0]), [0.3, -1.0]);
    /// ```
    pub fn project(&self, dim: usize, p: [f64; 3]) -> [f64; 2] {
        if dim != 3 {
            return [p[0], p[1]];
        }
        match self {
            Camera::Cabinet => [
                p[0] + DEPTH_SCALE * p[1] * COS_30,
                p[2] + DEPTH_SCALE * p[1] * SIN_30,
            ],
            Camera::Orbit { .. } => {
                let [right, up, _] = self.frame();
                [dot(right, p), dot(up, p)]
            }
        }
    }

    /// The world point (metres) drawn at `q` on the picture plane, in the plane through
    /// `through` that a dragged point moves in. In 3D a picture point stands for a whole line of
    /// world points, so a plane picks one: for an orbit view the plane across the view direction;
    /// for the cabinet the plane of constant depth y, which it draws at true shape. In 2D
    /// `through` is ignored and the third component is 0.
    ///
    /// ```
    /// use bead::draw::projection::Camera;
    ///
    /// let p = [0.3, -0.2, 0.7];
    /// for camera in [Camera::Cabinet, Camera::orbit(0.4, -0.3)] {
    ///     let back = camera.unproject(3, camera.project(3, p), p);
    ///     assert!((0..3).all(|k| (back[k] - p[k]).abs() < 1e-15));
    /// }
    /// assert_eq!(Camera::Cabinet.unproject(2, [0.3, 0.7], [5.0; 3]), [0.3, 0.7, 0.0]);
    /// ```
    pub fn unproject(&self, dim: usize, q: [f64; 2], through: [f64; 3]) -> [f64; 3] {
        if dim != 3 {
            return [q[0], q[1], 0.0];
        }
        match self {
            Camera::Cabinet => {
                let depth = through[1];
                [
                    q[0] - DEPTH_SCALE * depth * COS_30,
                    depth,
                    q[1] - DEPTH_SCALE * depth * SIN_30,
                ]
            }
            Camera::Orbit { .. } => {
                let [right, up, forward] = self.frame();
                let depth = dot(forward, through);
                std::array::from_fn(|i| q[0] * right[i] + q[1] * up[i] + depth * forward[i])
            }
        }
    }

    /// The direction the camera looks along, away from the viewer (a unit vector): every world
    /// point along it is drawn at the same picture point.
    ///
    /// ```
    /// use bead::draw::projection::Camera;
    /// let d = Camera::Cabinet.view_direction();
    /// let (a, b) = (Camera::Cabinet.project(3, [0.0; 3]), Camera::Cabinet.project(3, d));
    /// assert!((a[0] - b[0]).abs() < 1e-15 && (a[1] - b[1]).abs() < 1e-15);
    /// ```
    pub fn view_direction(&self) -> [f64; 3] {
        match self {
            Camera::Cabinet => cabinet_direction(),
            Camera::Orbit { .. } => self.frame()[2],
        }
    }

    /// How far `p` lies along the view direction, metres: larger is farther from the viewer.
    /// Painters sort by it.
    ///
    /// ```
    /// use bead::draw::projection::Camera;
    /// let camera = Camera::orbit(0.0, 0.0); // looking along +y
    /// assert!(camera.depth([0.0, 2.0, 0.0]) > camera.depth([5.0, 1.0, 3.0]));
    /// ```
    pub fn depth(&self, p: [f64; 3]) -> f64 {
        dot(self.view_direction(), p)
    }

    /// The unit vector towards the light that shades solids, fixed to the camera (from the upper
    /// left, in front of the picture), so that orbiting never leaves the model in the dark.
    ///
    /// ```
    /// use bead::draw::projection::Camera;
    /// let camera = Camera::orbit(0.3, 0.2);
    /// let [right, up, forward] = camera.frame();
    /// let light = camera.light();
    /// let along = |v: [f64; 3]| (0..3).map(|k| v[k] * light[k]).sum::<f64>();
    /// assert!(along(right) < 0.0 && along(up) > 0.0 && along(forward) < 0.0);
    /// ```
    pub fn light(&self) -> [f64; 3] {
        let frame = self.frame();
        let norm = dot(LIGHT, LIGHT).sqrt();
        std::array::from_fn(|i| (0..3).map(|k| LIGHT[k] * frame[k][i]).sum::<f64>() / norm)
    }

    /// The world point drawn at `q` that lies on the plane through `point` with normal `normal`
    /// (a solid's face under the mouse); `None` if the plane is seen edge-on. In 2D it is the
    /// point of the picture.
    ///
    /// ```
    /// use bead::draw::projection::Camera;
    /// let camera = Camera::orbit(0.3, 0.4);
    /// // The top of a box, the plane z = 0.5: the point drawn where (0.1, -0.2, 0.5) is.
    /// let p = [0.1, -0.2, 0.5];
    /// let hit = camera.on_plane(3, camera.project(3, p), [0.0, 0.0, 0.5], [0.0, 0.0, 1.0]);
    /// let hit = hit.unwrap();
    /// assert!((0..3).all(|k| (hit[k] - p[k]).abs() < 1e-14));
    /// ```
    pub fn on_plane(
        &self,
        dim: usize,
        q: [f64; 2],
        point: [f64; 3],
        normal: [f64; 3],
    ) -> Option<[f64; 3]> {
        let start = self.unproject(dim, q, point);
        if dim != 3 {
            return Some(start);
        }
        let d = self.view_direction();
        let across = dot(normal, d);
        let scale = dot(normal, normal).sqrt();
        if !(across.abs() > 1e-9 * scale) {
            return None;
        }
        let gap = std::array::from_fn(|i| point[i] - start[i]);
        let s = dot(normal, gap) / across;
        Some(std::array::from_fn(|i| start[i] + s * d[i]))
    }
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// The cabinet's view direction, a unit vector: depth runs into the picture along +y and is
/// drawn up and to the right, so a line of world points drawn as one runs back, left and down.
fn cabinet_direction() -> [f64; 3] {
    let d = [-DEPTH_SCALE * COS_30, 1.0, -DEPTH_SCALE * SIN_30];
    let norm = dot(d, d).sqrt();
    d.map(|c| c / norm)
}

/// Points on the circle of `radius` about `center` in the plane normal to `normal` (the z axis
/// when the normal is unusable), `count` of them evenly spaced: a 3D circle for a renderer to
/// project as a closed outline.
///
/// ```
/// use bead::draw::projection::circle_points;
/// let points: Vec<[f64; 3]> = circle_points([0.0, 0.0, 1.0], 0.5, [1.0, 0.0, 0.0], 16).collect();
/// assert_eq!(points.len(), 16);
/// for p in points {
///     assert!(p[0].abs() < 1e-15);
///     assert!(((p[1] * p[1] + (p[2] - 1.0).powi(2)).sqrt() - 0.5).abs() < 1e-15);
/// }
/// ```
pub fn circle_points(
    center: [f64; 3],
    radius: f64,
    normal: [f64; 3],
    count: usize,
) -> impl Iterator<Item = [f64; 3]> {
    let (u, v) = plane_basis(normal);
    (0..count).map(move |k| {
        let angle = TAU * k as f64 / count as f64;
        let (s, c) = angle.sin_cos();
        std::array::from_fn(|i| center[i] + radius * (c * u[i] + s * v[i]))
    })
}

/// Two unit vectors spanning the plane normal to `normal` (z when the normal is unusable).
fn plane_basis(normal: [f64; 3]) -> ([f64; 3], [f64; 3]) {
    let len = dot(normal, normal).sqrt();
    let n = if len > 0.0 && len.is_finite() {
        normal.map(|c| c / len)
    } else {
        [0.0, 0.0, 1.0]
    };
    // Crossing with the axis least aligned with n keeps the result well conditioned.
    let axis = if n[0].abs() <= n[1].abs() && n[0].abs() <= n[2].abs() {
        [1.0, 0.0, 0.0]
    } else if n[1].abs() <= n[2].abs() {
        [0.0, 1.0, 0.0]
    } else {
        [0.0, 0.0, 1.0]
    };
    let cross = |a: [f64; 3], b: [f64; 3]| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    let u = cross(n, axis);
    let u_len = dot(u, u).sqrt();
    let u = u.map(|c| c / u_len);
    (u, cross(n, u))
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
    /// use bead::draw::projection::{Bounds, Camera, Fit};
    ///
    /// // A pendulum's pivot and bob (radius 0.1 m), fitted into 400 × 300 pixels with 10% of
    /// // each side free.
    /// let camera = Camera::default();
    /// let mut bounds = Bounds::EMPTY;
    /// bounds.include(camera.project(2, [0.0, 0.0, 0.0]), 0.0);
    /// bounds.include(camera.project(2, [1.0, -1.0, 0.0]), 0.1);
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

    /// Points in a box about the origin, some far, one tiny.
    fn points() -> Vec<[f64; 3]> {
        let mut points = vec![
            [0.3, -0.2, 0.7],
            [-4.0, 2.5, 1e-3],
            [0.0; 3],
            [1e-300, -7.0, 3.0],
        ];
        for k in 0..27 {
            let c = |j: usize| ((k / 3usize.pow(j as u32)) % 3) as f64 * 0.7 - 0.6;
            points.push([c(0), c(1) * 1.3, c(2) * 0.9]);
        }
        points
    }

    /// Cameras all round: the default, orbits from every side, straight down and straight up.
    fn cameras() -> Vec<Camera> {
        let mut cameras = vec![Camera::default()];
        for yaw in [-3.0, -1.2, 0.0, 0.4, 2.0, 3.1] {
            for pitch in [-FRAC_PI_2, -0.7, 0.0, 0.3, 1.2, FRAC_PI_2] {
                cameras.push(Camera::orbit(yaw, pitch));
            }
        }
        cameras
    }

    /// The default camera draws every point exactly where the cabinet projection always has, to
    /// the last bit (`bead render`'s frames are compared byte for byte), and puts a dragged
    /// point back at the depth y it is given.
    #[test]
    fn the_default_camera_is_the_cabinet_to_the_bit() {
        let camera = Camera::default();
        for p in points() {
            let cabinet = [p[0] + 0.5 * p[1] * COS_30, p[2] + 0.5 * p[1] * SIN_30];
            let drawn = camera.project(3, p);
            assert_eq!(drawn.map(f64::to_bits), cabinet.map(f64::to_bits), "{p:?}");
            let back = camera.unproject(3, cabinet, [9.0, p[1], -9.0]);
            let expected = [
                cabinet[0] - 0.5 * p[1] * COS_30,
                p[1],
                cabinet[1] - 0.5 * p[1] * SIN_30,
            ];
            assert_eq!(back.map(f64::to_bits), expected.map(f64::to_bits));
        }
    }

    /// For every camera, unprojecting a picture point onto the plane through any point gives a
    /// world point on that plane (across the view direction, or the cabinet's constant depth)
    /// that projects back to the picture point; onto the plane through the point itself, the
    /// point itself. The map is linear.
    #[test]
    fn unproject_inverts_project_on_the_drag_plane() {
        for camera in cameras() {
            for p in points() {
                let q = camera.project(3, p);
                let back = camera.unproject(3, q, p);
                for k in 0..3 {
                    assert!(
                        (back[k] - p[k]).abs() < 1e-14,
                        "{camera:?}: {p:?} → {back:?}"
                    );
                }
                let through = [0.25, -1.5, 0.75];
                let elsewhere = camera.unproject(3, q, through);
                let again = camera.project(3, elsewhere);
                assert!((again[0] - q[0]).abs() < 1e-14 && (again[1] - q[1]).abs() < 1e-14);
                let (on, off) = match camera {
                    Camera::Cabinet => (elsewhere[1], through[1]),
                    Camera::Orbit { .. } => (camera.depth(elsewhere), camera.depth(through)),
                };
                assert!((on - off).abs() < 1e-14, "{camera:?}: off the drag plane");
                let (shifted, one) = (
                    camera.project(3, p.map(|c| c + 1.0)),
                    camera.project(3, [1.0; 3]),
                );
                for k in 0..2 {
                    assert!((shifted[k] - q[k] - one[k]).abs() < 1e-14);
                }
            }
        }
    }

    /// Every camera's frame is orthonormal and right-handed, the view direction is what it draws
    /// as a point, and the light is a unit vector on the viewer's side.
    #[test]
    fn frames_are_orthonormal_and_the_view_direction_is_drawn_as_a_point() {
        for camera in cameras() {
            let [right, up, forward] = camera.frame();
            for (a, b, want) in [
                (right, right, 1.0),
                (up, up, 1.0),
                (forward, forward, 1.0),
                (right, up, 0.0),
                (right, forward, 0.0),
                (up, forward, 0.0),
            ] {
                assert!((dot(a, b) - want).abs() < 1e-15, "{camera:?}");
            }
            // right × up points at the viewer, against forward.
            let toward = [
                right[1] * up[2] - right[2] * up[1],
                right[2] * up[0] - right[0] * up[2],
                right[0] * up[1] - right[1] * up[0],
            ];
            assert!((dot(toward, forward) + 1.0).abs() < 1e-15);
            let d = camera.view_direction();
            let (o, e) = (camera.project(3, [0.0; 3]), camera.project(3, d));
            assert!((o[0] - e[0]).abs() < 1e-15 && (o[1] - e[1]).abs() < 1e-15);
            assert!((dot(d, d) - 1.0).abs() < 1e-15);
            let light = camera.light();
            assert!((dot(light, light) - 1.0).abs() < 1e-15 && dot(light, d) < 0.0);
        }
        // The cabinet sees along the orbit view its turning starts from.
        let [yaw, pitch] = Camera::cabinet_angles();
        assert!(
            (yaw.to_degrees() + 23.413).abs() < 1e-3,
            "{}",
            yaw.to_degrees()
        );
        assert!(
            (pitch.to_degrees() - 12.921).abs() < 1e-3,
            "{}",
            pitch.to_degrees()
        );
        let turned = Camera::Cabinet.orbited(0.0, 0.0);
        assert_eq!(turned, Camera::orbit(yaw, pitch));
    }

    /// A point found on a plane under a picture point lies on the plane and is drawn there.
    #[test]
    fn points_on_planes_are_drawn_where_they_were_picked() {
        for camera in cameras() {
            let q = [0.3, -0.1];
            for normal in [[0.0, 0.0, 1.0], [1.0, 2.0, -0.5], [0.0, -1.0, 0.0]] {
                let point = [0.2, 0.4, -0.3];
                let Some(x) = camera.on_plane(3, q, point, normal) else {
                    assert!(dot(normal, camera.view_direction()).abs() < 1e-9);
                    continue;
                };
                let gap: [f64; 3] = std::array::from_fn(|i| x[i] - point[i]);
                assert!(dot(gap, normal).abs() < 1e-13, "{camera:?}: off the plane");
                let drawn = camera.project(3, x);
                assert!((drawn[0] - q[0]).abs() < 1e-13 && (drawn[1] - q[1]).abs() < 1e-13);
            }
        }
        // Edge-on: no point.
        let camera = Camera::orbit(0.0, 0.0);
        assert_eq!(
            camera.on_plane(3, [0.0; 2], [0.0; 3], [1.0, 0.0, 0.0]),
            None
        );
    }
}
