//! The scene file format, version 1: the serde model of a TOML or JSON scene. Its JSON Schema and
//! the reference page `docs/scene-format.md` are generated from these types and their `///` docs
//! (see [`crate::schema`]), so a doc comment here is what users read.
//!
//! Every table rejects unknown keys. Points are referred to by name; vectors have the system's
//! dimension (checked when the scene is built, where the error can name the field).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A whole scene file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SceneFile {
    /// Format version; must be 1.
    pub format: u32,
    /// A human-readable name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Time stepping and solver settings.
    pub simulation: Simulation,
    /// The particles, in order (trajectory.csv columns follow this order).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub particles: Vec<ParticleSpec>,
    /// The 2D rigid bodies, in order (their trajectory.csv columns follow the particles').
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bodies: Vec<BodySpec>,
    /// The parametric objects (Lagrangian dynamics in generalized coordinates), in order (their trajectory.csv columns follow the
    /// bodies').
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parametric: Vec<ParametricSpec>,
    /// The forces.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub forces: Vec<ForceSpec>,
    /// The constraints, in order (constraints.csv columns follow this order).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub constraints: Vec<ConstraintSpec>,
    /// Contact groups: particles kept apart by generated non-penetration constraints, or bodies'
    /// shapes (and particles) colliding with friction.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub contacts: Vec<ContactsSpec>,
}

/// `[[contacts]]`: a contact group, whose members collide pairwise. A group of particles alone,
/// without friction, is kept apart by non-penetration constraints generated for nearby pairs by
/// a broad phase (no output columns). A group that names `bodies`, or has friction (its own or
/// `[simulation] friction`), collides shapes: the bodies' shapes, and its particles as discs
/// (spheres in 3D) of their radius, with Coulomb friction (in 3D on its circular cone); its
/// columns in constraints.csv are `NAME.contacts` (touching pairs), `NAME.normal_force` (sum
/// of the normal forces, N), `NAME.friction_force` (sum of the friction forces' magnitudes, N)
/// and `NAME.max_penetration` (m).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ContactsSpec {
    /// Name, for the group's output columns (default `contacts<index>`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The bodies' names, or `"all"` (every body with a shape; a body named here must have
    /// one). Bodies without a `shape` take no part.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bodies: Option<ParticleSet>,
    /// The particles' names, or `"all"`. In a group that collides shapes they are discs of
    /// their radius (`"all"` leaves out those without one; a particle named here must have one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub particles: Option<ParticleSet>,
    /// Coulomb coefficient μ of every contact of the group (default: the members' own,
    /// combined as √(μ_a μ_b); a body's is its `friction`, and `[simulation] friction`
    /// otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub friction: Option<f64>,
    /// Coefficient of restitution, 0 to 1 (default: `[simulation] restitution`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub restitution: Option<f64>,
    /// Whether bodies joined by a constraint collide with each other (default `false`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub collide_connected: bool,
}

/// `"all"`, or a list of names.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ParticleSet {
    /// The word `"all"`.
    All(String),
    /// Names.
    Names(Vec<String>),
}

/// `[simulation]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Simulation {
    /// 2 or 3.
    #[schemars(range(min = 2, max = 3))]
    pub dimension: usize,
    /// Time step, in seconds.
    pub dt: f64,
    /// Length of the run, in seconds.
    pub duration: f64,
    /// `euler`, `symplectic-euler`, `midpoint`, `rk4` (default), or the implicit `implicit-euler`
    /// and `bdf2`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub integrator: Option<String>,
    /// `cg` (default with the explicit integrators), `sparse` (default with the implicit ones),
    /// `dense` or `gauss-seidel`: the λ solve of the explicit integrators. The implicit ones
    /// factor their Newton (KKT) matrix dense under `dense` and sparse under any other.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub solver: Option<String>,
    /// Implicit integrators and `assemble`: the largest `|C|` (m) at which Newton's method stops
    /// (default 1e-10).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub newton_tolerance: Option<f64>,
    /// Implicit integrators: the momentum residual at which Newton's method stops, relative to
    /// the displacement the step's forces make (default 1e-8): λ and the velocities come out
    /// accurate to this fraction of the forces in play, at any `dt`. The rows are held as
    /// closely where that is tighter than `newton_tolerance`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub newton_relative_tolerance: Option<f64>,
    /// Implicit integrators: Newton iterations allowed per step; `assemble`: in all (default
    /// 200).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub newton_iterations: Option<usize>,
    /// Relative residual of the λ solve (default 1e-10).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<f64>,
    /// Feedback gains `{ ks, kd }` (Witkin's eq. 11: `ks C + kd Ċ` added to the multiplier system).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feedback: Option<FeedbackSpec>,
    /// Baumgarte's time constant τ in seconds (ks = 1/τ², kd = 2/τ); excludes `feedback`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baumgarte_tau: Option<f64>,
    /// Active-set algorithm for inequality constraints (`platt`, `improved`, `jonquet`, `lcp`);
    /// recorded in the summary, used once inequality constraints exist.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inequality: Option<String>,
    /// How impacts are found: `located` (default: each impact located inside its step by
    /// rewinding, exact times and restitution, for a few bodies), `speculative` (time-stepping
    /// for piles and crowds: no rewind; contacts that would close within a step are limited at
    /// its start), or `off`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub impacts: Option<String>,
    /// Default coefficient of restitution of inequality constraints' impacts (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub restitution: Option<f64>,
    /// Default Coulomb coefficient μ of every contact: contact groups, bodies, `half-plane` and
    /// `non-penetration` (default 0: frictionless). In 3D only contact groups carry friction;
    /// `platt` and `improved` refuse a scene with friction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub friction: Option<f64>,
    /// Write every n-th step (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_every: Option<u64>,
    /// Post-step projection onto the constraints: `true`, or `{ iterations, tolerance }`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub projection: Option<ProjectionSpec>,
    /// `true` moves the initial positions and velocities onto the constraints before the first
    /// step (a run that starts off its constraints otherwise warns: `bead check`, `bead run`
    /// and the Python package say so when some `|C|` exceeds 1e-6, or `newton_tolerance` where
    /// that is larger, or some `|Ċ|` the same per second). The positions move by the smallest
    /// mass-weighted correction, repeated until every `|C|` is within `newton_tolerance`
    /// (default 1e-10; at most `newton_iterations` times); then the velocities onto `Ċ = 0`.
    /// Motors and contacts keep their velocities. Constraints that conflict, or that the bodies
    /// cannot reach, are an error that names them. Default `false`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assemble: Option<bool>,
}

/// `feedback = { ks = .., kd = .. }`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FeedbackSpec {
    /// Spring gain, 1/s².
    pub ks: f64,
    /// Damping gain, 1/s.
    pub kd: f64,
}

/// `projection = true` or `projection = { iterations = 10, tolerance = 1e-12 }`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ProjectionSpec {
    /// On with defaults, or off.
    Enabled(bool),
    /// On with these settings.
    Settings {
        /// Newton iterations at most.
        iterations: usize,
        /// Target max |C|.
        tolerance: f64,
    },
}

/// `[[particles]]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ParticleSpec {
    /// Unique name; other entries refer to the particle by it.
    pub name: String,
    /// Initial position, in metres.
    pub position: Vec<f64>,
    /// Initial velocity, in m/s (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub velocity: Option<Vec<f64>>,
    /// Mass in kg, or `"infinity"` for a kinematic anchor (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mass: Option<MassSpec>,
    /// Radius in metres, for contact and drawing (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radius: Option<f64>,
}

/// `[[bodies]]`: a rigid body, 2D or 3D as the scene is.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BodySpec {
    /// Unique name (shared namespace with particles).
    pub name: String,
    /// Position of the centre of mass, m.
    pub position: Vec<f64>,
    /// Angle, rad (2D; default 0).
    #[serde(default)]
    pub angle: f64,
    /// Orientation, a quaternion `[w, x, y, z]` (3D; default identity; normalized on input).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub orientation: Option<Vec<f64>>,
    /// Velocity, m/s (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub velocity: Option<Vec<f64>>,
    /// Angular velocity: rad/s in 2D; a vector in the world frame in 3D (default 0).
    #[serde(default)]
    pub angular_velocity: AngularVelocitySpec,
    /// Mass in kg or `"infinity"` (with `inertia`); or derive both from `shape` and `density`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mass: Option<MassSpec>,
    /// Inertia about the centre of mass: in 2D a moment, kg·m², or `"infinity"`; in 3D the
    /// principal moments `[Ix, Iy, Iz]` along the body's axes, or the full 3 × 3 tensor in the
    /// body's frame (a fixed 3D body, `mass = "infinity"`, may say `"infinity"` or nothing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inertia: Option<InertiaSpec>,
    /// Outline (for drawing, for contact groups, and for mass and inertia with `density`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape: Option<ShapeSpec>,
    /// Density: kg/m² for areas, kg/m for a rod (2D); kg/m³ (3D).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub density: Option<f64>,
    /// Coulomb coefficient μ of its contacts (default: `[simulation] friction`); two bodies'
    /// combine as √(μ_a μ_b) unless their contact group sets one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub friction: Option<f64>,
}

/// `[[parametric]]`: an object in generalized coordinates `u0, u1, ...` whose mass points sit
/// at positions written as expressions of the coordinates and time `t`; it moves by Lagrange's
/// equations, and its points take constraints and forces like particles.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ParametricSpec {
    /// Unique name (shared namespace with particles and bodies).
    pub name: String,
    /// `u` at t = 0, one entry per coordinate.
    pub coordinates: Vec<f64>,
    /// `u̇` at t = 0 (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rates: Option<Vec<f64>>,
    /// The mass points.
    pub points: Vec<MassPointSpec>,
    /// For a one-coordinate object, the range `[from, to]` of `u0` over which its curve is drawn
    /// (default: half a turn either side of the start).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<[f64; 2]>,
}

/// One mass point of a `[[parametric]]` object.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MassPointSpec {
    /// Name, unique within the object (`OBJECT.POINT` in outputs).
    pub name: String,
    /// Mass, kg (positive).
    pub mass: f64,
    /// Position: one expression per axis, in `u0, u1, ...` and `t` (see
    /// [expressions](#expressions)).
    pub position: Vec<String>,
    /// Radius, m, for contact and drawing (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radius: Option<f64>,
}

/// A body's angular velocity: a rate in 2D, a vector in 3D.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum AngularVelocitySpec {
    /// rad/s, counter-clockwise (2D).
    Rate(f64),
    /// `[ωx, ωy, ωz]`, rad/s, world frame (3D).
    Vector(Vec<f64>),
}

impl Default for AngularVelocitySpec {
    fn default() -> Self {
        AngularVelocitySpec::Rate(0.0)
    }
}

/// A body's inertia: a moment (2D), principal moments or a tensor (3D).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum InertiaSpec {
    /// kg·m², or `"infinity"` (2D); `"infinity"` with an infinite mass (a fixed body) in 3D.
    Moment(MassSpec),
    /// `[Ix, Iy, Iz]` along the body's axes, kg·m² (3D).
    Principal(Vec<f64>),
    /// The 3 × 3 tensor in the body's frame, kg·m² (3D).
    Tensor(Vec<Vec<f64>>),
}

/// A body's outline (2D) or solid (3D).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum ShapeSpec {
    /// A disc (2D).
    Disc {
        /// Radius, m.
        radius: f64,
    },
    /// A ball (3D).
    Sphere {
        /// Radius, m.
        radius: f64,
    },
    /// A rectangle, `width` along the body's x axis (2D); a box of full edges `size` (3D).
    Box {
        /// Width, m (2D).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        width: Option<f64>,
        /// Height, m (2D).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        height: Option<f64>,
        /// Full edges `[x, y, z]`, m (3D).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        size: Option<Vec<f64>>,
    },
    /// A cylinder along the body's z axis, `length` between its end faces (3D). It collides with
    /// every shape but a bowl, rolling on its rims' lowest points.
    Cylinder {
        /// Radius, m.
        radius: f64,
        /// Length, m.
        length: f64,
    },
    /// A thin rod along the body's x axis (it collides as a capsule of radius 0).
    Rod {
        /// Length, m.
        length: f64,
    },
    /// A capsule: the segment of `length` along the body's x axis (2D: a stadium) or z axis
    /// (3D), centred, swept by a disc or ball of `radius`.
    Capsule {
        /// Radius, m.
        radius: f64,
        /// Distance between the centres of its two round ends, m.
        length: f64,
    },
    /// A convex polygon, counter-clockwise, centroid at the origin (a non-convex one is an
    /// error naming the vertex where it turns clockwise).
    Polygon {
        /// Vertices, m.
        vertices: Vec<[f64; 2]>,
    },
    /// The convex hull of `points` in the body's frame, centroid at the origin (3D). Every
    /// point must be a corner of the hull: one inside it or on a face or an edge is an error
    /// naming it (a non-convex solid is several bodies).
    ConvexHull {
        /// Corners, m.
        points: Vec<[f64; 3]>,
    },
    /// A bowl (3D): the inside of a sphere of `radius` about the body's position, from its
    /// lowest point, `radius` below, up to the rim, `depth` above that (`depth = radius`: a
    /// hemisphere). A surface without thickness or mass: a body's round points and corners
    /// touch its wall from inside below the rim, and its rim from anywhere; nothing touches its
    /// outside. Give it `mass = "infinity"`, or a mass and an inertia.
    Bowl {
        /// Radius of the sphere, m.
        radius: f64,
        /// Height of the rim over the lowest point, m (more than 0, at most twice the radius).
        depth: f64,
    },
}

/// A mass: a number of kilograms, or the word `"infinity"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum MassSpec {
    /// Kilograms (TOML's `inf` also means an anchor).
    Kilograms(f64),
    /// `"infinity"` (or `"inf"`): a kinematic anchor.
    Word(String),
}

/// `[[forces]]`, by `kind`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum ForceSpec {
    /// Uniform gravity on everything with mass.
    Gravity {
        /// Acceleration, m/s².
        g: Vec<f64>,
        /// Optional name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// A constant force at a point.
    Constant {
        /// The point.
        point: PointRef,
        /// Force, N.
        force: Vec<f64>,
        /// Optional name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// A damped spring between two points.
    Spring {
        /// The two ends.
        between: [PointRef; 2],
        /// Stiffness, N/m.
        stiffness: f64,
        /// Damping, N·s/m (default 0).
        #[serde(default)]
        damping: f64,
        /// Rest length, m (default: the initial distance).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rest_length: Option<f64>,
        /// Optional name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// A constant torque on a rigid body.
    Torque {
        /// The body.
        body: String,
        /// Torque, N·m (counter-clockwise positive).
        torque: f64,
        /// Optional name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// A torsion spring between two bodies (`between`) or one body and the world (`body`).
    TorsionSpring {
        /// Two bodies.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        between: Option<[String; 2]>,
        /// One body, against the world.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        body: Option<String>,
        /// Stiffness, N·m/rad.
        stiffness: f64,
        /// Damping, N·m·s/rad (default 0).
        #[serde(default)]
        damping: f64,
        /// Rest angle, rad (default: the initial angle).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rest_angle: Option<f64>,
        /// Optional name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// Viscous drag on every body, `f = −c ẋ` at its centre of mass (or at each mass point of
    /// a parametric object): it slows translation, not a rigid body's spin.
    Drag {
        /// Coefficient, N·s/m.
        coefficient: f64,
        /// Optional name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
}

/// `[[constraints]]`, by `kind`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum ConstraintSpec {
    /// A point held at a location (fixed or moving).
    Nail {
        /// The point.
        point: PointRef,
        /// Location (default: the point's initial position), or a motion.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        at: Option<Location>,
        /// Name (default `c<index>`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// A rigid rod.
    Distance {
        /// The two ends.
        between: [PointRef; 2],
        /// Length, m (default: the initial distance).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        length: Option<f64>,
        /// Name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// A point on a circle (2D; in 3D a circle in the plane normal to `normal`).
    OnCircle {
        /// The point.
        point: PointRef,
        /// Centre, or its motion.
        center: Location,
        /// Radius, m (default: the point's initial distance from the centre).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        radius: Option<f64>,
        /// Axis of the circle (3D only; default z).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        normal: Option<Vec<f64>>,
        /// Name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// A point on a sphere (3D).
    OnSphere {
        /// The point.
        point: PointRef,
        /// Centre, or its motion.
        center: Location,
        /// Radius, m (default: the initial distance).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        radius: Option<f64>,
        /// Name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// A point on a straight line.
    OnLine {
        /// The point.
        point: PointRef,
        /// A point of the line, or its motion.
        through: Location,
        /// Direction of the line.
        direction: Vec<f64>,
        /// Name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// Two points pinned together (a hinge). In 3D it joins two bodies about `axis`.
    Revolute {
        /// The two points.
        between: [PointRef; 2],
        /// The hinge's axis in the world at t = 0 (3D; required there).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        axis: Option<Vec<f64>>,
        /// Name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// Two points pinned together in 3D, free to turn every way about them (a ball joint);
    /// each point may be on a 3D body, a particle or a parametric object's point.
    Spherical {
        /// The two points.
        between: [PointRef; 2],
        /// Name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// Two bodies glued at two coinciding points. In 3D the bodies' relative orientation is
    /// held where it starts.
    Weld {
        /// The two points, on two bodies.
        between: [PointRef; 2],
        /// θ_b − θ_a, rad (2D; default: the initial value).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        angle: Option<f64>,
        /// Name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// A slider: the second point's body moves along an axis of the first point's body, without
    /// turning against it (in 3D its relative orientation is held where it starts).
    Prismatic {
        /// A point of the axis (on body a), and a point of the slider (on body b).
        between: [PointRef; 2],
        /// Direction of the axis: in 2D in body a's frame; in 3D in the world at t = 0.
        axis: Vec<f64>,
        /// θ_b − θ_a, rad (2D; default: the initial value).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        angle: Option<f64>,
        /// Name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// A relative angle held (`between`), or a body's angle (`body`).
    Angle {
        /// Two bodies.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        between: Option<[String; 2]>,
        /// One body, against the world.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        body: Option<String>,
        /// The angle, rad (default: the initial value).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        angle: Option<f64>,
        /// Name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// A relative angular velocity held (`between`), or a body's (`body`).
    Motor {
        /// Two bodies.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        between: Option<[String; 2]>,
        /// One body, against the world.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        body: Option<String>,
        /// In 3D: the name of the `revolute` joint (with its `axis`) whose relative angular
        /// speed about its axis the motor drives.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        joint: Option<String>,
        /// Speed, rad/s.
        speed: f64,
        /// Torque limit, N·m (default: none): beyond it the motor applies exactly this torque and
        /// slows down. Without one, a motor driven into a stop is reported as a conflict.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_torque: Option<f64>,
        /// Name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// Meshing gears, rolling on each other along their line of centres:
    /// r_a (θ_a − φ) + r_b (θ_b − φ) = const, φ the angle of p_b − p_a (see `bead::constraint::Gear`).
    /// The constant is read from the initial state; gears on a moving carrier (a planetary
    /// stage) work as well as gears on fixed axles.
    Gear {
        /// The two bodies.
        between: [String; 2],
        /// Pitch radii [r_a, r_b], m; a negative radius is an internal gear (a ring). The pitch
        /// circles touch when the centres are |r_a + r_b| apart.
        radii: [f64; 2],
        /// Name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// A pinion rolling on a rack without slipping (see `bead::constraint::RackAndPinion`): the
    /// side of the rack the pinion meshes on and the constant are read from the initial state.
    RackAndPinion {
        /// The rack body.
        rack: String,
        /// The pinion body; its centre must start off the rack's line of travel (the line along
        /// `axis` through the rack's centre), on the side where it meshes.
        pinion: String,
        /// The rack's direction of travel, in the rack's own frame (it turns with the rack; for a
        /// rack at angle 0 it is the world direction).
        axis: Vec<f64>,
        /// Pitch radius of the pinion, m.
        radius: f64,
        /// Name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// A point (a ball) kept on one side of a line or plane: `n̂·(x − through) − radius ≥ 0`.
    HalfPlane {
        /// The point.
        point: PointRef,
        /// A point of the boundary, or its motion.
        through: Location,
        /// The normal, pointing to the allowed side.
        normal: Vec<f64>,
        /// Clearance, m (default: the particle's radius).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        radius: Option<f64>,
        /// Coefficient of restitution of its impacts, 0 to 1 (default: `[simulation] restitution`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(range(min = 0.0, max = 1.0))]
        restitution: Option<f64>,
        /// Coulomb coefficient μ (2D; default: `[simulation] friction`). With μ > 0 it has two
        /// rows: `NAME.lambda0` the normal force, `NAME.lambda1` the friction force along the
        /// boundary.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(range(min = 0.0))]
        friction: Option<f64>,
        /// Name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// Two balls that may not overlap: `|x₁ − x₂| − (r₁ + r₂) ≥ 0`.
    NonPenetration {
        /// The two points (their radii are the particles').
        between: [PointRef; 2],
        /// Coefficient of restitution of its impacts, 0 to 1 (default: `[simulation] restitution`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(range(min = 0.0, max = 1.0))]
        restitution: Option<f64>,
        /// Coulomb coefficient μ (2D; default: `[simulation] friction`). With μ > 0 it has two
        /// rows: `NAME.lambda0` the normal force, `NAME.lambda1` the friction force.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(range(min = 0.0))]
        friction: Option<f64>,
        /// Name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// A maximum distance: `L − |x₁ − x₂| ≥ 0`.
    Rope {
        /// The two ends.
        between: [PointRef; 2],
        /// Length, m (default: the initial distance).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        length: Option<f64>,
        /// Coefficient of restitution of its impacts, 0 to 1 (default: `[simulation] restitution`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(range(min = 0.0, max = 1.0))]
        restitution: Option<f64>,
        /// Name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// Jonquet et al.'s linear form `a·x + b ≥ 0` for a point.
    Linear {
        /// The point.
        point: PointRef,
        /// Coefficients.
        a: Vec<f64>,
        /// Offset.
        #[serde(default)]
        b: f64,
        /// Coefficient of restitution of its impacts, 0 to 1 (default: `[simulation] restitution`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(range(min = 0.0, max = 1.0))]
        restitution: Option<f64>,
        /// Name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// A joint limit: `min ≤ θ_b − θ_a ≤ max` (`between`), or `min ≤ θ ≤ max` (`body`); in 3D
    /// the angle of the `revolute` joint named `joint` about its axis, 0 where it starts.
    AngleLimit {
        /// Two bodies (2D).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        between: Option<[String; 2]>,
        /// One body, against the world (2D).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        body: Option<String>,
        /// In 3D: the name of the `revolute` joint (with its `axis`) whose angle is limited.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        joint: Option<String>,
        /// Lower limit, rad.
        min: f64,
        /// Upper limit, rad.
        max: f64,
        /// Coefficient of restitution of its impacts, 0 to 1 (default: `[simulation] restitution`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(range(min = 0.0, max = 1.0))]
        restitution: Option<f64>,
        /// Name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// A 3D ball joint's cone-twist limit: the second body's `axis` kept within `cone` radians
    /// of the first body's, and optionally its twist about the axis within `twist`.
    ConeLimit {
        /// The name of the `spherical` joint it limits.
        joint: String,
        /// The axis of the cone, in the world at t = 0 (carried by each body from there).
        axis: Vec<f64>,
        /// The cone's half-angle, rad, in (0, π).
        cone: f64,
        /// `[min, max]` of the twist about the axis, rad, 0 where it starts (default: free).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        twist: Option<[f64; 2]>,
        /// Coefficient of restitution of its impacts, 0 to 1 (default: `[simulation] restitution`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(range(min = 0.0, max = 1.0))]
        restitution: Option<f64>,
        /// Name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// A slider's motor: the travel rate along its axis of the `prismatic` joint named `joint`
    /// (between two bodies, 2D or 3D) held at `speed`, with at most `max_force`.
    SliderMotor {
        /// The name of the `prismatic` joint it drives.
        joint: String,
        /// Speed of the second body along the axis, m/s.
        speed: f64,
        /// Force limit, N (default: none): beyond it the motor applies exactly this force and
        /// gives way. Without one, a motor driven into a stop is reported as a conflict.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_force: Option<f64>,
        /// Name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// A slider's travel limit: `min ≤ s ≤ max` for the travel `s` along its axis of the
    /// `prismatic` joint named `joint` (between two bodies, 2D or 3D), 0 where it starts.
    SliderLimit {
        /// The name of the `prismatic` joint it limits.
        joint: String,
        /// Lower limit, m.
        min: f64,
        /// Upper limit, m.
        max: f64,
        /// Coefficient of restitution of its impacts, 0 to 1 (default: `[simulation] restitution`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(range(min = 0.0, max = 1.0))]
        restitution: Option<f64>,
        /// Name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// Any scalar constraint written as an expression `c = 0` (or `c ≥ 0` with
    /// `inequality = true`) in `ALIAS.x ALIAS.y [ALIAS.z]` of its aliased points and `t`;
    /// differentiated exactly on dual numbers.
    Expression {
        /// Aliases for the points the expression reads: `{ a = "bob", tip = { object = "bead",
        /// point = "p" } }`.
        points: BTreeMap<String, PointRef>,
        /// The expression (see [expressions](#expressions)).
        c: String,
        /// `c ≥ 0` (an inequality with contact and impacts) instead of `c = 0`.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        inequality: bool,
        /// Coefficient of restitution of its impacts, 0 to 1, for an inequality (default:
        /// `[simulation] restitution`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(range(min = 0.0, max = 1.0))]
        restitution: Option<f64>,
        /// Name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// A point on a plane (3D).
    OnPlane {
        /// The point.
        point: PointRef,
        /// A point of the plane, or its motion.
        through: Location,
        /// Normal of the plane.
        normal: Vec<f64>,
        /// Name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
}

/// A point: a particle's (or a body's centre's) name, `{ body = "arm", local = [0.5, 0.0] }`,
/// or `{ object = "bead", point = "p" }` (a name alone stands for an object's only point).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum PointRef {
    /// The particle of this name, or the centre of the body of this name.
    Particle(String),
    /// A point fixed in a rigid body, in its frame.
    OnBody {
        /// The body's name.
        body: String,
        /// Position in the body's frame, m.
        local: [f64; 2],
    },
    /// A point fixed in a 3D rigid body, in its frame.
    OnBody3d {
        /// The body's name.
        body: String,
        /// Position in the body's frame, m.
        local: [f64; 3],
    },
    /// A mass point of a parametric object.
    OnObject {
        /// The object's name.
        object: String,
        /// The point's name within the object.
        point: String,
    },
}

/// A location: a fixed vector, or a motion over time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Location {
    /// A fixed point, in metres.
    Fixed(Vec<f64>),
    /// A moving point.
    Moving(MotionSpec),
}

/// A prescribed motion (`at = { kind = "circle", ... }`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum MotionSpec {
    /// Along a line from `start`: constant velocity, or uniformly accelerated.
    Linear {
        /// Position at t = 0, m.
        start: Vec<f64>,
        /// Velocity at t = 0, m/s.
        velocity: Vec<f64>,
        /// Acceleration, m/s² (default: none, constant velocity).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        acceleration: Option<Vec<f64>>,
    },
    /// Uniform circular motion in the x-y plane.
    Circle {
        /// Centre, m.
        center: Vec<f64>,
        /// Radius, m.
        radius: f64,
        /// Angular velocity, rad/s.
        angular_velocity: f64,
        /// Phase at t = 0, rad.
        #[serde(default)]
        phase: f64,
    },
    /// Sinusoidal oscillation `center + amplitude sin(ωt + φ)`.
    Oscillation {
        /// Centre, m.
        center: Vec<f64>,
        /// Amplitude vector, m.
        amplitude: Vec<f64>,
        /// Angular frequency, rad/s.
        angular_frequency: f64,
        /// Phase at t = 0, rad.
        #[serde(default)]
        phase: f64,
    },
}

impl SceneFile {
    /// The same scene started `t0` seconds later: every prescribed motion is shifted so that
    /// the new scene's time `t` is the old scene's `t + t0` (positions and velocities are left as
    /// they are). An editor that captured a model at `t0` saves it with this, as a scene that
    /// starts at 0.
    ///
    /// ```
    /// use bead_scene::format::{ConstraintSpec, Location, MotionSpec};
    /// use bead_scene::{Format, Scene};
    /// let scene = Scene::load(std::path::Path::new("../../scenes/moving_nail.toml"))?;
    /// let later = scene.file.starting_at(0.5);
    /// // The pivot circles at 6 rad/s: half a second later its phase has advanced by 3 rad.
    /// let phase = |f: &bead_scene::SceneFile| match &f.constraints[0] {
    ///     ConstraintSpec::Nail {
    ///         at: Some(Location::Moving(MotionSpec::Circle { phase, .. })),
    ///         ..
    ///     } => *phase,
    ///     _ => panic!("a circling nail"),
    /// };
    /// assert!((phase(&later) - phase(&scene.file) - 3.0).abs() < 1e-12);
    /// # Ok::<(), bead_scene::SceneError>(())
    /// ```
    pub fn starting_at(&self, t0: f64) -> SceneFile {
        let mut file = self.clone();
        for spec in &mut file.constraints {
            if let Some(Location::Moving(motion)) = spec.location_mut() {
                match motion {
                    MotionSpec::Linear {
                        start,
                        velocity,
                        acceleration,
                    } => {
                        let a = acceleration.clone().unwrap_or_default();
                        for (k, (x, v)) in start.iter_mut().zip(velocity.iter_mut()).enumerate() {
                            let ak = a.get(k).copied().unwrap_or(0.0);
                            *x += *v * t0 + 0.5 * ak * t0 * t0;
                            *v += ak * t0;
                        }
                    }
                    MotionSpec::Circle {
                        angular_velocity: w,
                        phase,
                        ..
                    }
                    | MotionSpec::Oscillation {
                        angular_frequency: w,
                        phase,
                        ..
                    } => *phase += *w * t0,
                }
            }
        }
        file
    }
}

impl PointRef {
    /// The particle or body the point belongs to.
    pub fn owner(&self) -> &str {
        match self {
            PointRef::Particle(name)
            | PointRef::OnBody { body: name, .. }
            | PointRef::OnBody3d { body: name, .. }
            | PointRef::OnObject { object: name, .. } => name,
        }
    }
}

impl ForceSpec {
    /// The name the file gives it, if any.
    pub fn name(&self) -> Option<&str> {
        match self {
            ForceSpec::Gravity { name, .. }
            | ForceSpec::Constant { name, .. }
            | ForceSpec::Spring { name, .. }
            | ForceSpec::Torque { name, .. }
            | ForceSpec::TorsionSpring { name, .. }
            | ForceSpec::Drag { name, .. } => name.as_deref(),
        }
    }

    /// The particles and bodies it acts on, by name (none for the forces on everything).
    pub fn references(&self) -> Vec<&str> {
        match self {
            ForceSpec::Gravity { .. } | ForceSpec::Drag { .. } => vec![],
            ForceSpec::Constant { point, .. } => vec![point.owner()],
            ForceSpec::Spring { between, .. } => between.iter().map(PointRef::owner).collect(),
            ForceSpec::Torque { body, .. } => vec![body],
            ForceSpec::TorsionSpring { between, body, .. } => one_or_two(between, body),
        }
    }
}

/// `$body` with `$name` bound to the `name` field of whichever kind of constraint `$spec` is:
/// one list of the kinds for the accessors that read or set a name.
macro_rules! every_constraint {
    ($spec:expr, $name:ident => $body:expr) => {
        match $spec {
            ConstraintSpec::Nail { name: $name, .. }
            | ConstraintSpec::Distance { name: $name, .. }
            | ConstraintSpec::OnCircle { name: $name, .. }
            | ConstraintSpec::OnSphere { name: $name, .. }
            | ConstraintSpec::OnLine { name: $name, .. }
            | ConstraintSpec::OnPlane { name: $name, .. }
            | ConstraintSpec::HalfPlane { name: $name, .. }
            | ConstraintSpec::NonPenetration { name: $name, .. }
            | ConstraintSpec::Rope { name: $name, .. }
            | ConstraintSpec::Linear { name: $name, .. }
            | ConstraintSpec::AngleLimit { name: $name, .. }
            | ConstraintSpec::ConeLimit { name: $name, .. }
            | ConstraintSpec::SliderMotor { name: $name, .. }
            | ConstraintSpec::SliderLimit { name: $name, .. }
            | ConstraintSpec::Revolute { name: $name, .. }
            | ConstraintSpec::Spherical { name: $name, .. }
            | ConstraintSpec::Weld { name: $name, .. }
            | ConstraintSpec::Prismatic { name: $name, .. }
            | ConstraintSpec::Angle { name: $name, .. }
            | ConstraintSpec::Motor { name: $name, .. }
            | ConstraintSpec::Gear { name: $name, .. }
            | ConstraintSpec::RackAndPinion { name: $name, .. }
            | ConstraintSpec::Expression { name: $name, .. } => $body,
        }
    };
}

impl ConstraintSpec {
    /// The name the file gives it, if any (the model calls it `c<index>` otherwise).
    pub fn name(&self) -> Option<&str> {
        every_constraint!(self, name => name.as_deref())
    }

    /// Its name, to set it.
    pub fn name_mut(&mut self) -> &mut Option<String> {
        every_constraint!(self, name => name)
    }

    /// The particles and bodies it holds, by name (none for a limit on a named joint, which
    /// holds that joint's).
    pub fn references(&self) -> Vec<&str> {
        match self {
            ConstraintSpec::Nail { point, .. }
            | ConstraintSpec::OnCircle { point, .. }
            | ConstraintSpec::OnSphere { point, .. }
            | ConstraintSpec::OnLine { point, .. }
            | ConstraintSpec::OnPlane { point, .. }
            | ConstraintSpec::HalfPlane { point, .. }
            | ConstraintSpec::Linear { point, .. } => vec![point.owner()],
            ConstraintSpec::Distance { between, .. }
            | ConstraintSpec::Revolute { between, .. }
            | ConstraintSpec::Spherical { between, .. }
            | ConstraintSpec::Weld { between, .. }
            | ConstraintSpec::Prismatic { between, .. }
            | ConstraintSpec::NonPenetration { between, .. }
            | ConstraintSpec::Rope { between, .. } => between.iter().map(PointRef::owner).collect(),
            ConstraintSpec::Angle { between, body, .. }
            | ConstraintSpec::Motor { between, body, .. }
            | ConstraintSpec::AngleLimit { between, body, .. } => one_or_two(between, body),
            ConstraintSpec::Gear { between, .. } => between.iter().map(String::as_str).collect(),
            ConstraintSpec::RackAndPinion { rack, pinion, .. } => vec![rack, pinion],
            ConstraintSpec::ConeLimit { .. }
            | ConstraintSpec::SliderMotor { .. }
            | ConstraintSpec::SliderLimit { .. } => Vec::new(),
            ConstraintSpec::Expression { points, .. } => {
                points.values().map(PointRef::owner).collect()
            }
        }
    }

    /// Where it holds its point, for the kinds that hold a point at a location that may move.
    pub fn location_mut(&mut self) -> Option<&mut Location> {
        match self {
            ConstraintSpec::Nail { at, .. } => at.as_mut(),
            ConstraintSpec::OnCircle { center, .. } | ConstraintSpec::OnSphere { center, .. } => {
                Some(center)
            }
            ConstraintSpec::OnLine { through, .. }
            | ConstraintSpec::OnPlane { through, .. }
            | ConstraintSpec::HalfPlane { through, .. } => Some(through),
            _ => None,
        }
    }
}

/// The names of `between = [a, b]` or `body = a`.
fn one_or_two<'a>(between: &'a Option<[String; 2]>, body: &'a Option<String>) -> Vec<&'a str> {
    between
        .iter()
        .flatten()
        .chain(body.iter())
        .map(String::as_str)
        .collect()
}
