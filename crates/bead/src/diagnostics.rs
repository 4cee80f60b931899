//! What a user reads after a step: energies, constraint errors, multipliers, constraint forces and
//! solver effort (see [`System::diagnostics`](crate::System::diagnostics)).

use crate::body::BodyId;
use crate::constraint::ConstraintId;

/// The state of the simulation's health at one instant.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostics {
    /// Time, in seconds.
    pub time: f64,
    /// Kinetic energy `½ q̇ᵀ M q̇`, in joules (anchors excluded).
    pub kinetic_energy: f64,
    /// Potential energy of the conservative forces (gravity, springs, constant forces), in joules.
    pub potential_energy: f64,
    /// Largest |C| over all constraint rows (metres for the built-ins).
    pub max_abs_c: f64,
    /// Largest |Ċ| over all constraint rows (m/s for the built-ins).
    pub max_abs_c_dot: f64,
    /// Iterations of the last λ solve.
    pub solver_iterations: usize,
    /// Relative residual of the last λ solve.
    pub solver_residual: f64,
    /// Each constraint's rows, multipliers and forces, in slot order (the order the constraints
    /// were added, while none is removed).
    pub constraints: Vec<ConstraintReport>,
}

impl Diagnostics {
    /// Kinetic plus potential energy, in joules.
    pub fn total_energy(&self) -> f64 {
        self.kinetic_energy + self.potential_energy
    }

    /// The report of one constraint.
    pub fn constraint(&self, id: ConstraintId) -> Option<&ConstraintReport> {
        // Reports come in slot order, the order of the ids' indices: renderers look every
        // constraint up once per frame, so keep this logarithmic. A stale handle whose slot now
        // holds another constraint finds nothing.
        self.constraints
            .binary_search_by_key(&id.index(), |c| c.id.index())
            .ok()
            .map(|i| &self.constraints[i])
            .filter(|c| c.id == id)
    }
}

/// One constraint at one instant.
#[derive(Clone, Debug, PartialEq)]
pub struct ConstraintReport {
    /// The constraint.
    pub id: ConstraintId,
    /// Its name.
    pub name: String,
    /// `C`, one entry per row.
    pub c: Vec<f64>,
    /// `Ċ`, one entry per row.
    pub c_dot: Vec<f64>,
    /// The Lagrange multipliers λ, one per row (newtons for the built-ins).
    pub lambda: Vec<f64>,
    /// `Jᵀλ` on each body the constraint touches: the generalized force it exerts
    /// (for a particle, the force vector in newtons; for a rigid body, `[Fx, Fy, τ]` in N and N·m).
    pub forces: Vec<(BodyId, Vec<f64>)>,
    /// The constraint's blocks of `J`, one per body, each row-major `rows × ndof`.
    pub jacobian: Vec<(BodyId, Vec<f64>)>,
    /// Its slice of `J̇q̇` (with the time terms of moving constraints).
    pub jdot_qdot: Vec<f64>,
    /// For an inequality, whether each row took part in the last solve (is in `F⁺`).
    pub active: Option<Vec<bool>>,
}

/// What [`System::assemble`](crate::System::assemble) did.
///
/// ```
/// use bead::{constraint::Distance, Assembly, Particle, System};
/// let mut sys = System::new(2)?;
/// let nail = sys.add_particle(Particle::anchor(&[0.0, 0.0]))?;
/// let bob = sys.add_particle(Particle::new(&[0.0, -1.5]))?;
/// sys.add_constraint(Distance::new(nail, bob, 1.0))?;
/// let report = sys.assemble(&Assembly::default()).unwrap();
/// assert!((report.abs_c - 0.5).abs() < 1e-12);
/// assert!((report.displacement - 0.5).abs() < 1e-12);
/// assert!(report.iterations >= 1);
/// # Ok::<(), bead::ModelError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AssemblyReport {
    /// Newton iterations the positions took (0 if they were on the constraints already).
    pub iterations: usize,
    /// The largest `|C|` before (equalities, and inequalities' depth inside), in the
    /// constraints' units.
    pub abs_c: f64,
    /// The largest `|Ċ|` of the equalities before, in the constraints' units per second.
    pub abs_c_dot: f64,
    /// The largest change of one coordinate of `q` (metres, or radians for an angle).
    pub displacement: f64,
    /// The largest change of one component of `q̇`.
    pub velocity_change: f64,
}
