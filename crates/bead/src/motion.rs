//! Prescribed motion of a constraint's target over time: `p(t)`, `ṗ(t)`, `p̈(t)`.
//!
//! Time-dependent constraints `c(q, t)` (seed 003, "Constraints") need `∂c/∂t` for `Ċ` and
//! `∂²c/∂t²` (the `c_tt` term of seed 003's `J W (C + Q) + J̇ q̇ + c_tt = 0`). Every built-in
//! constraint that refers to a location in space (a nail's location, a circle's centre, a line's or
//! plane's reference point) takes a [`Motion`], so the same constraint serves both the fixed and
//! the moving case, and the time terms come from closed forms rather than finite differences.

use crate::math::vector::{Vec3, to_vec3};

/// How a location moves with time. All vectors have the system's dimension.
///
/// ```
/// use bead::Motion;
/// // A point going round a circle of radius 0.5 m about (1, 0) at 2 rad/s.
/// let m = Motion::circle(&[1.0, 0.0], 0.5, 2.0, 0.0);
/// let s = m.sample(0.0);
/// assert_eq!(s.position[..2], [1.5, 0.0]);
/// assert!((s.acceleration[0] + 0.5 * 4.0).abs() < 1e-12); // centripetal: −r ω²
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Motion {
    kind: MotionKind,
    /// Lengths of the vectors the caller gave, checked against the system's dimension.
    lengths: Vec<usize>,
}

/// The closed forms a [`Motion`] can follow.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum MotionKind {
    /// Does not move.
    Fixed {
        /// Location, in metres.
        at: Vec3,
    },
    /// Moves along a line, at constant velocity or uniformly accelerated:
    /// `p(t) = start + velocity · t + ½ acceleration · t²`.
    Linear {
        /// Location at t = 0, in metres.
        start: Vec3,
        /// Velocity at t = 0, in metres per second.
        velocity: Vec3,
        /// Acceleration, in metres per second squared (zero for constant velocity).
        acceleration: Vec3,
    },
    /// Goes round a circle in the x-y plane: `p(t) = center + r (cos(ωt + φ), sin(ωt + φ), 0)`.
    Circle {
        /// Centre, in metres (its z, in 3D, is the plane of the circle).
        center: Vec3,
        /// Radius, in metres.
        radius: f64,
        /// Angular velocity ω, in radians per second (positive: counter-clockwise).
        angular_velocity: f64,
        /// Phase φ at t = 0, in radians.
        phase: f64,
    },
    /// Oscillates along a vector: `p(t) = center + amplitude · sin(ωt + φ)`.
    Oscillation {
        /// Centre of the oscillation, in metres.
        center: Vec3,
        /// Amplitude vector, in metres.
        amplitude: Vec3,
        /// Angular frequency ω, in radians per second.
        angular_frequency: f64,
        /// Phase φ at t = 0, in radians.
        phase: f64,
    },
}

/// Position, velocity and acceleration of a [`Motion`] at one instant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MotionSample {
    /// `p(t)`, in metres.
    pub position: Vec3,
    /// `ṗ(t)`, in metres per second.
    pub velocity: Vec3,
    /// `p̈(t)`, in metres per second squared.
    pub acceleration: Vec3,
}

impl Motion {
    /// A location that does not move.
    pub fn fixed(at: &[f64]) -> Self {
        Motion {
            kind: MotionKind::Fixed { at: to_vec3(at) },
            lengths: vec![at.len()],
        }
    }

    /// Constant-velocity motion from `start`.
    pub fn linear(start: &[f64], velocity: &[f64]) -> Self {
        Motion {
            kind: MotionKind::Linear {
                start: to_vec3(start),
                velocity: to_vec3(velocity),
                acceleration: [0.0; 3],
            },
            lengths: vec![start.len(), velocity.len()],
        }
    }

    /// Uniformly accelerated motion from `start` with initial `velocity` (m/s) and constant
    /// `acceleration` (m/s²).
    ///
    /// ```
    /// use bead::Motion;
    /// // A floor dropping away at twice the acceleration of gravity.
    /// let m = Motion::accelerated(&[0.0, 0.0], &[0.0, 0.0], &[0.0, -19.62]);
    /// assert!((m.sample(1.0).position[1] + 9.81).abs() < 1e-12);
    /// ```
    pub fn accelerated(start: &[f64], velocity: &[f64], acceleration: &[f64]) -> Self {
        Motion {
            kind: MotionKind::Linear {
                start: to_vec3(start),
                velocity: to_vec3(velocity),
                acceleration: to_vec3(acceleration),
            },
            lengths: vec![start.len(), velocity.len(), acceleration.len()],
        }
    }

    /// Uniform circular motion in the x-y plane (radius in metres, ω in rad/s, phase in rad).
    pub fn circle(center: &[f64], radius: f64, angular_velocity: f64, phase: f64) -> Self {
        Motion {
            kind: MotionKind::Circle {
                center: to_vec3(center),
                radius,
                angular_velocity,
                phase,
            },
            lengths: vec![center.len()],
        }
    }

    /// Sinusoidal oscillation about `center` along `amplitude` (ω in rad/s, phase in rad).
    pub fn oscillation(
        center: &[f64],
        amplitude: &[f64],
        angular_frequency: f64,
        phase: f64,
    ) -> Self {
        Motion {
            kind: MotionKind::Oscillation {
                center: to_vec3(center),
                amplitude: to_vec3(amplitude),
                angular_frequency,
                phase,
            },
            lengths: vec![center.len(), amplitude.len()],
        }
    }

    /// True when the location never moves (the constraint then has no time terms).
    pub fn is_fixed(&self) -> bool {
        matches!(self.kind, MotionKind::Fixed { .. })
    }

    /// The closed form this motion follows.
    pub fn kind(&self) -> &MotionKind {
        &self.kind
    }

    /// Checks that every vector has `dim` components and every number is finite.
    pub fn check(&self, dim: usize) -> Result<(), String> {
        if let Some(len) = self.lengths.iter().find(|&&l| l != dim) {
            return Err(format!(
                "a vector of the motion has {len} components; the system is {dim}D"
            ));
        }
        if let MotionKind::Circle { .. } = self.kind
            && dim != 2
            && dim != 3
        {
            return Err("a circular motion needs a 2D or 3D system".into());
        }
        let s = self.sample(0.0);
        let finite = |v: &Vec3| v.iter().all(|x| x.is_finite());
        if !(finite(&s.position) && finite(&s.velocity) && finite(&s.acceleration)) {
            return Err("the motion has a non-finite number".into());
        }
        Ok(())
    }

    /// `p`, `ṗ` and `p̈` at time `t` (seconds).
    pub fn sample(&self, t: f64) -> MotionSample {
        match &self.kind {
            MotionKind::Fixed { at } => MotionSample {
                position: *at,
                velocity: [0.0; 3],
                acceleration: [0.0; 3],
            },
            MotionKind::Linear {
                start,
                velocity,
                acceleration,
            } => MotionSample {
                position: std::array::from_fn(|i| {
                    start[i] + velocity[i] * t + 0.5 * acceleration[i] * t * t
                }),
                velocity: std::array::from_fn(|i| velocity[i] + acceleration[i] * t),
                acceleration: *acceleration,
            },
            MotionKind::Circle {
                center,
                radius,
                angular_velocity: w,
                phase,
            } => {
                let (s, c) = (w * t + phase).sin_cos();
                MotionSample {
                    position: [center[0] + radius * c, center[1] + radius * s, center[2]],
                    velocity: [-radius * w * s, radius * w * c, 0.0],
                    acceleration: [-radius * w * w * c, -radius * w * w * s, 0.0],
                }
            }
            MotionKind::Oscillation {
                center,
                amplitude,
                angular_frequency: w,
                phase,
            } => {
                let (s, c) = (w * t + phase).sin_cos();
                MotionSample {
                    position: std::array::from_fn(|i| center[i] + amplitude[i] * s),
                    velocity: std::array::from_fn(|i| amplitude[i] * w * c),
                    acceleration: std::array::from_fn(|i| -amplitude[i] * w * w * s),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Velocity and acceleration agree with central differences of the position.
    #[test]
    fn derivatives_match_finite_differences() {
        let motions = [
            Motion::fixed(&[1.0, 2.0, 3.0]),
            Motion::linear(&[1.0, 2.0], &[0.5, -1.0]),
            Motion::accelerated(&[1.0, 2.0], &[0.5, -1.0], &[-3.0, 2.0]),
            Motion::circle(&[1.0, 2.0, 0.5], 0.7, 3.0, 0.4),
            Motion::oscillation(&[0.0, 1.0, 0.0], &[0.2, 0.1, -0.3], 5.0, 1.0),
        ];
        let h = 1e-4;
        for m in &motions {
            let t = 0.37;
            let (a, b, c) = (m.sample(t - h), m.sample(t), m.sample(t + h));
            for i in 0..3 {
                let v = (c.position[i] - a.position[i]) / (2.0 * h);
                let acc = (c.position[i] - 2.0 * b.position[i] + a.position[i]) / (h * h);
                assert!((v - b.velocity[i]).abs() < 1e-6, "{m:?}");
                assert!((acc - b.acceleration[i]).abs() < 1e-4, "{m:?}");
            }
        }
    }
}
