//! Whether a model starts on its constraints: the check every front end makes before a run
//! (`bead check` and `bead run` print it, the Python package warns with it) and the numbers
//! `summary.json` records (`initial_abs_C`, `initial_abs_Cdot`).
//!
//! A start off its constraints is not an error: the feedback pulls the bodies onto them in the
//! first steps. But that pull is a jump no force explains, which shows in the energy and in
//! `max |C|`, so it is said, with the way out: `[simulation] assemble = true`.

use bead::{StepError, Violation};

use crate::Model;

/// The least distance from a constraint that counts as off, in the constraints' units (metres,
/// radians), and the least rate of moving off it, in the same units per second. A scene whose
/// Newton tolerance is looser uses that instead, for both.
pub const TOLERANCE: f64 = 1e-6;

/// How many of the constraints that are off a warning names, the furthest first.
const NAMED: usize = 3;

/// How far a model's current state is from its constraints.
///
/// ```
/// use bead_scene::{Format, Scene};
/// let text = "format = 1\n[simulation]\ndimension = 2\ndt = 0.01\nduration = 1\n\
///             [[particles]]\nname = \"nail\"\nposition = [0, 0]\nmass = \"infinity\"\n\
///             [[particles]]\nname = \"bob\"\nposition = [0, -1]\n\
///             [[constraints]]\nkind = \"distance\"\nbetween = [\"nail\", \"bob\"]\n\
///             length = 0.5\nname = \"rod\"";
/// let mut model = Scene::parse(text, Format::Toml, "example")?.build()?;
/// let start = bead_scene::start::check(&mut model).unwrap();
/// assert!((start.abs_c - 0.5).abs() < 1e-12);
/// assert_eq!(start.off[0].name, "rod");
/// assert!(start.warning().unwrap().contains("'rod' |C| = 5.000e-1"));
///
/// let mut model = Scene::parse(&text.replace("[simulation]", "[simulation]\nassemble = true"),
///     Format::Toml, "example")?.build()?;
/// assert!(bead_scene::start::check(&mut model).unwrap().warning().is_none());
/// # Ok::<(), bead_scene::SceneError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Start {
    /// The time of the state, s.
    pub t: f64,
    /// The largest `|C|` over the equality rows and the depth of inequalities inside
    /// (`max(−g, 0)`: a gap is not off), in the constraints' units.
    pub abs_c: f64,
    /// The largest `|Ċ| = |J q̇ + ∂C/∂t|` over the equality rows, in the constraints' units per
    /// second (a motor's speed error and a contact's approach are not counted).
    pub abs_c_dot: f64,
    /// The tolerance both were compared with: [`TOLERANCE`], or the scene's `newton_tolerance`
    /// where that is larger.
    pub tolerance: f64,
    /// The constraints further than the tolerance, or moving off faster, the furthest first.
    pub off: Vec<Violation>,
}

impl Start {
    /// Whether some constraint is off.
    pub fn is_off(&self) -> bool {
        !self.off.is_empty()
    }

    /// The warning to give when the start is off, one line naming the furthest constraints and
    /// by how much; `None` when it is on.
    pub fn warning(&self) -> Option<String> {
        if !self.is_off() {
            return None;
        }
        let mut named: Vec<String> = self
            .off
            .iter()
            .take(NAMED)
            .map(|v| {
                let mut parts = Vec::new();
                if !(v.abs_c <= self.tolerance) {
                    parts.push(format!("|C| = {:.3e}", v.abs_c));
                }
                if !(v.abs_c_dot <= self.tolerance) {
                    parts.push(format!("|Ċ| = {:.3e}", v.abs_c_dot));
                }
                format!("'{}' {}", v.name, parts.join(", "))
            })
            .collect();
        if self.off.len() > NAMED {
            named.push(format!("{} more", self.off.len() - NAMED));
        }
        Some(format!(
            "the run starts off its constraints at t = {} s: {} (tolerance {:e} m or rad, and \
             {:e} per second for |Ċ|); the feedback will pull the bodies onto them in the first \
             steps, a jump no force explains. Set `[simulation] assemble = true` to move the \
             start onto them first, or place the bodies on them",
            self.t,
            named.join(", "),
            self.tolerance,
            self.tolerance
        ))
    }
}

/// How far `model`'s current state is from its constraints; fails as its first step would
/// where a constraint cannot be evaluated there.
pub fn check(model: &mut Model) -> Result<Start, StepError> {
    let tolerance = TOLERANCE.max(model.run.newton_tolerance);
    let violations = model.system.violations()?;
    let worse = |a: f64, b: f64| {
        if a.is_nan() || b.is_nan() {
            f64::NAN
        } else {
            a.max(b)
        }
    };
    let abs_c = violations.iter().fold(0.0, |m, v| worse(m, v.abs_c));
    let abs_c_dot = violations.iter().fold(0.0, |m, v| worse(m, v.abs_c_dot));
    let mut off: Vec<Violation> = violations
        .into_iter()
        .filter(|v| !(v.abs_c <= tolerance && v.abs_c_dot <= tolerance))
        .collect();
    // Positions first: a start off by a distance is the worse news.
    off.sort_by(|a, b| {
        b.abs_c
            .total_cmp(&a.abs_c)
            .then(b.abs_c_dot.total_cmp(&a.abs_c_dot))
    });
    Ok(Start {
        t: model.system.time(),
        abs_c,
        abs_c_dot,
        tolerance,
        off,
    })
}
