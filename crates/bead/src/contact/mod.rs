//! Inequality constraints `g(q, t) ≥ 0` (seed 004): how they are chosen to take part in the
//! multiplier solve ([`InequalityMethod`]) and how their impacts are found and resolved
//! ([`Impacts`]). These are settings ([`crate::Settings`]); the engine's active-set algorithms,
//! its exact complementarity solve and its impulses carry them out in the dynamics and the step
//! pipeline (see the guide's architecture page).
//!
//! An inequality row is *active* when `g ≤ tolerance` (seed 004 §2.3 says `g = 0`; in floating
//! point a stated tolerance is needed), or when it rests on a moving support: the last explicit
//! step held it, it still pushed at that step's end, and its gap and speed are within what the
//! step leaves between a body and an accelerating support (the Euler schemes' first-order
//! offset; the ball on a floor rising at `a` then reads `m (g + a)` on every step rather than
//! being hit again by its floor). Only rows in the handled set `F⁺` enter eq. 6 (our eq. 11);
//! the others get λ = 0. The set is chosen at the start of each step and kept through its stages
//! (seed 004 §4.2); the methods differ in how it is chosen:
//!
//! - [`InequalityMethod::Platt`] (seed 004 Alg. 1): `F⁺` starts as every active row and is updated
//!   after each step — a handled row with λ ≤ 0 leaves, an ignored row with `g < 0` enters. It
//!   fails as the paper shows: at the corner of fig. 1 it releases the particle into `y < 0`.
//! - [`InequalityMethod::Improved`] (Alg. 2): the same, but a row enters on the *violation
//!   tendency* `J_k q̈ < d_k` instead of `g < 0`. It fails on the paper's second example.
//! - [`InequalityMethod::Jonquet`] (Alg. 3, "the right algorithm", the default): at every step
//!   `F⁺` starts empty; solve, add every active row with a violation tendency under the new
//!   accelerations, repeat until nothing is added. Rows are never removed, so a row added early
//!   may end with λ < 0 (pulling) — see the tests.
//! - [`InequalityMethod::Lcp`]: the exact complementarity solution
//!   `0 ≤ λ_k ⊥ (J_k q̈ − d_k) ≥ 0` over the active rows, by Dantzig's principal pivoting as
//!   Baraff gave it for contact forces, warm-started from the previous step's set.
//!
//! Here `d_k = −J̇q̇_k − k_d ġ_k − k_s g_k` is the row's target acceleration (seed 004 eq. 5 with
//! Baumgarte's gains), so `J_k q̈ − d_k < −ε` means the constraint is being driven into violation;
//! one threshold ε serves every method. Rows with bounds of their own (a motor's
//! torque limit) are complementary whatever the method: at its bound, a row applies exactly that
//! force.

mod shapes;

pub use crate::ids::{ContactGroupId, ShapeGroupId};
pub use shapes::{ContactSummary, ShapeContacts};

/// How the set of handled inequality constraints is chosen (seed 004).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum InequalityMethod {
    /// Platt's algorithm (seed 004 Alg. 1), kept to be compared: it fails on the corner example.
    Platt,
    /// Platt's improved algorithm (Alg. 2), kept to be compared: it fails on the second example.
    Improved,
    /// Jonquet, Nocent and Rémion's "right algorithm" (Alg. 3), finished by Alg. 1's sign rule
    /// where a handled contact would pull (λ < 0) or handled contacts conflict: the
    /// complementarity solve then starts from Alg. 3's set. On the paper's examples, Alg. 3 as
    /// published.
    #[default]
    Jonquet,
    /// The exact linear complementarity solution.
    Lcp,
}

impl InequalityMethod {
    /// Every method, in the order scene files and the CLI list them.
    pub const ALL: [InequalityMethod; 4] = [
        InequalityMethod::Platt,
        InequalityMethod::Improved,
        InequalityMethod::Jonquet,
        InequalityMethod::Lcp,
    ];

    /// The method called `name` in scene files (`platt`, `improved`, `jonquet`, `lcp`).
    pub fn by_name(name: &str) -> Option<InequalityMethod> {
        Some(match name {
            "platt" => InequalityMethod::Platt,
            "improved" => InequalityMethod::Improved,
            "jonquet" => InequalityMethod::Jonquet,
            "lcp" => InequalityMethod::Lcp,
            _ => return None,
        })
    }

    /// The name [`InequalityMethod::by_name`] takes.
    ///
    /// ```
    /// use bead::InequalityMethod;
    /// assert_eq!(InequalityMethod::by_name(InequalityMethod::Lcp.name()), Some(InequalityMethod::Lcp));
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            InequalityMethod::Platt => "platt",
            InequalityMethod::Improved => "improved",
            InequalityMethod::Jonquet => "jonquet",
            InequalityMethod::Lcp => "lcp",
        }
    }

    /// Whether the handled set is kept from step to step (Platt's and the improved algorithm) rather
    /// than chosen afresh at every evaluation.
    pub(crate) fn persistent(self) -> bool {
        matches!(self, InequalityMethod::Platt | InequalityMethod::Improved)
    }
}

/// How impacts of inequality constraints are found and resolved.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Impacts {
    /// No impulses: a row that closes fast enters the multiplier solve like any other and its
    /// feedback stops it (softly, over about the feedback's time constant).
    Off,
    /// Each impact located inside the step by rewinding (bisection) and resolved at that
    /// instant (seed 004's "rewind time until the first constraint activation"): exact impact
    /// times and restitution, for a few bodies; a pile's landing is a cascade of thousands of
    /// such events.
    #[default]
    Located,
    /// Time-stepping with speculative contacts, for piles and crowds: no rewind; at each step's
    /// start, rows that touch and approach get their impulse, and rows that would cross zero
    /// within the step at their current speed are slowed so as to close their gap exactly over
    /// it. Impact times are known to a step, penetration is what the step's acceleration adds
    /// (`½ a h²`, 20 µm under gravity at h = 2 ms), removed by the feedback. A row with
    /// restitution that would hit within the step bounces at once instead, at its full speed and
    /// up to `|ġ| h` before contact (its rebound a little higher than `e² h`, by that distance).
    /// For piles and crowds, where located impacts are a cascade of thousands of events.
    Speculative,
}

impl Impacts {
    /// Every mode, in the order scene files list them.
    pub const ALL: [Impacts; 3] = [Impacts::Located, Impacts::Speculative, Impacts::Off];

    /// The mode called `name` in scene files (`located`, `speculative`, `off`).
    ///
    /// ```
    /// use bead::contact::Impacts;
    /// assert_eq!(Impacts::by_name("speculative"), Some(Impacts::Speculative));
    /// assert_eq!(Impacts::by_name(Impacts::Off.name()), Some(Impacts::Off));
    /// ```
    pub fn by_name(name: &str) -> Option<Impacts> {
        Impacts::ALL.into_iter().find(|m| m.name() == name)
    }

    /// The name [`Impacts::by_name`] takes.
    pub fn name(self) -> &'static str {
        match self {
            Impacts::Off => "off",
            Impacts::Located => "located",
            Impacts::Speculative => "speculative",
        }
    }
}
