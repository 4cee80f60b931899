//! The contact-rich scenes of `piles.py`, a ball pile and box pyramids, run in Rapier.
//!
//! `piles.py` measures pymunk and Box2D from Python; Rapier is a Rust crate, so it gets this
//! scratch binary instead. It builds the same scenes, measures them the same way and prints the
//! same CSV (`piles.py`'s docstring is the specification; what differs is said where it is done
//! and in `../README.md`):
//!
//!     engine,scene,n,dt,s_per_step,cpu_s_per_sim_s,max_penetration,creep,energy_drift,status
//!
//! Use: `piles-rapier --scene pile --n 500 --dt 1/240 --seconds 5 --friction 0 --header`.

use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

use rapier2d::prelude::*;

/// Cargo.toml pins rapier2d to exactly this version: change the two together.
const ENGINE: &str = "rapier2d 0.36.1";

/// The engine column: the version and the iteration count, as piles.py labels pymunk and Box2D.
fn engine_label() -> String {
    let substeps = IntegrationParameters::default().num_solver_iterations;
    format!("{ENGINE} ({substeps} substeps)")
}
const HEADER: &str =
    "engine,scene,n,dt,s_per_step,cpu_s_per_sim_s,max_penetration,creep,energy_drift,status";

const G: f64 = 9.81; // m/s^2

// pile
const RADIUS: f64 = 0.02; // m
const BALL_MASS: f64 = 0.01; // kg
const WALL_TOP: f64 = 1000.0; // m

// pyramid
const SIDE: f64 = 0.5; // m
const BOX_MASS: f64 = 25.0; // kg (100 kg/m^2)
const FLOOR_HALF: f64 = 50.0; // m

// large-pyramid, as Box2D v3's benchmark
const LARGE_SIDE: f64 = 1.0; // m
const LARGE_BOX_MASS: f64 = 1.0; // kg (1 kg/m^2)
const LARGE_FLOOR_HALF: f64 = 100.0; // m

// many-pyramids, as Box2D v3's benchmark
const SMALL_PYRAMID_ROWS: usize = 10;

// tumbler, as Box2D v3's benchmark
const TUMBLER_CENTRE: [f64; 2] = [0.0, 10.0]; // m, the container's centre and hinge
/// (hx, hy, cx, cy) of each wall in the container's frame, m.
const TUMBLER_WALLS: [[f64; 4]; 4] = [
    [0.5, 10.0, 10.0, 0.0],
    [0.5, 10.0, -10.0, 0.0],
    [10.0, 0.5, 0.0, 10.0],
    [10.0, 0.5, 0.0, -10.0],
];
const TUMBLER_DENSITY: f64 = 50.0; // kg/m^2
const TUMBLER_SPEED_DEG: f64 = 25.0; // degrees/s, counterclockwise
const TUMBLER_TORQUE: f64 = 1e8; // N m
const TUMBLER_BOX: f64 = 0.125; // m, the small boxes' half side
const TUMBLER_BOX_MASS: f64 = 0.0625; // kg (1 kg/m^2)

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Pile,
    Pyramid,
    LargePyramid,
    ManyPyramids,
    Tumbler,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Pile => "pile",
            Kind::Pyramid => "pyramid",
            Kind::LargePyramid => "large-pyramid",
            Kind::ManyPyramids => "many-pyramids",
            Kind::Tumbler => "tumbler",
        }
    }
}

/// A scene as every engine builds it, in f64 exactly as `piles.py` computes it; Rapier gets
/// the values rounded to its f32.
struct Scene {
    kind: Kind,
    n: usize,
    pos: Vec<[f64; 2]>,
    vel: Vec<[f64; 2]>,
    mass: f64,
    inertia: f64,
    /// The ball's radius, or the box's half side.
    size: f64,
    /// The pile's box; 0 for the pyramids.
    width: f64,
    /// The pyramids' floor reaches from -floor_half to floor_half.
    floor_half: f64,
    /// The pyramids' floors' heights.
    floors: Vec<f64>,
    /// Each body's floor height.
    floor_of: Vec<f64>,
}

/// Halves round up, as `piles.py` and bead do (`f64::round`).
fn pile_width(n: usize) -> f64 {
    if n <= 1000 {
        0.6
    } else {
        (0.6 * (n as f64 / 500.0).sqrt() * 100.0 + 0.5).floor() / 100.0
    }
}

fn pile(n: usize) -> Scene {
    let r = RADIUS;
    let width = pile_width(n);
    // Floating point on purpose: 0.6 / 0.05 is 11.999..., so 11 balls a row, as in piles.py.
    let per_row = ((width / (2.5 * r)).floor() as usize).max(1);
    let mut pos = Vec::with_capacity(n);
    let mut vel = Vec::with_capacity(n);
    for k in 0..n {
        let (i, j) = (k % per_row, k / per_row);
        // The same operations in the same order as piles.py, so the f64 values are identical.
        let x = r * 1.25 + 2.5 * r * i as f64 + if j % 2 == 1 { 0.6 * r } else { 0.0 };
        pos.push([x.min(width - r), r * 1.5 + 2.5 * r * j as f64]);
        vel.push([0.2 * (k as f64 * 1.7).sin(), 0.0]);
    }
    Scene {
        kind: Kind::Pile,
        n,
        pos,
        vel,
        mass: BALL_MASS,
        inertia: 0.5 * BALL_MASS * r * r,
        size: r,
        width,
        floor_half: FLOOR_HALF,
        floors: vec![0.0],
        floor_of: vec![0.0; n],
    }
}

fn pyramid(rows: usize) -> Scene {
    let mut pos = Vec::new();
    for rho in 0..rows {
        let count = rows - rho;
        for k in 0..count {
            let x = (k as f64 - (count as f64 - 1.0) / 2.0) * SIDE * 1.05;
            pos.push([x, SIDE / 2.0 + rho as f64 * SIDE]);
        }
    }
    let vel = vec![[0.0, 0.0]; pos.len()];
    let floor_of = vec![0.0; pos.len()];
    Scene {
        kind: Kind::Pyramid,
        n: rows,
        pos,
        vel,
        mass: BOX_MASS,
        inertia: BOX_MASS * (SIDE * SIDE + SIDE * SIDE) / 12.0,
        size: SIDE / 2.0,
        width: 0.0,
        floor_half: FLOOR_HALF,
        floors: vec![0.0],
        floor_of,
    }
}

fn large_pyramid(rows: usize) -> Scene {
    let a = LARGE_SIDE / 2.0;
    let mut pos = Vec::new();
    for i in 0..rows {
        let y = (2.0 * i as f64 + 1.0) * a;
        for j in i..rows {
            // As piles.py, which follows Box2D v3's expression term for term.
            let x = (i as f64 + 1.0) * a + 2.0 * (j - i) as f64 * a - a * rows as f64;
            pos.push([x, y]);
        }
    }
    let vel = vec![[0.0, 0.0]; pos.len()];
    let floor_of = vec![0.0; pos.len()];
    Scene {
        kind: Kind::LargePyramid,
        n: rows,
        pos,
        vel,
        mass: LARGE_BOX_MASS,
        inertia: LARGE_BOX_MASS * (LARGE_SIDE * LARGE_SIDE + LARGE_SIDE * LARGE_SIDE) / 12.0,
        size: a,
        width: 0.0,
        // v3's ground is 200 m whatever the rows; past 100 rows this one grows to twice the base.
        floor_half: LARGE_FLOOR_HALF.max(rows as f64),
        floors: vec![0.0],
        floor_of,
    }
}

fn many_pyramids(count: usize) -> Scene {
    let a = LARGE_SIDE / 2.0;
    let b = SMALL_PYRAMID_ROWS;
    let level = 2.0 * a * (b as f64 + 1.0);
    let ground_width = 2.0 * a * count as f64 * (b as f64 + 1.0);
    let (mut pos, mut floor_of) = (Vec::new(), Vec::new());
    for i in 0..count {
        let base_y = i as f64 * level;
        for j in 0..count {
            // As piles.py, which follows Box2D v3's expressions term for term.
            let center_x = -0.5 * ground_width + j as f64 * (2.0 * a * b as f64 + 2.0 * a) + a;
            for k in 0..b {
                let y = (2.0 * k as f64 + 1.0) * a + base_y;
                for m in k..b {
                    let x = (k as f64 + 1.0) * a + 2.0 * (m - k) as f64 * a + center_x - 0.5;
                    pos.push([x, y]);
                    floor_of.push(base_y);
                }
            }
        }
    }
    let vel = vec![[0.0, 0.0]; pos.len()];
    Scene {
        kind: Kind::ManyPyramids,
        n: count,
        pos,
        vel,
        mass: LARGE_BOX_MASS,
        inertia: LARGE_BOX_MASS * (LARGE_SIDE * LARGE_SIDE + LARGE_SIDE * LARGE_SIDE) / 12.0,
        size: a,
        width: 0.0,
        floor_half: ground_width,
        floors: (0..count).map(|i| i as f64 * level).collect(),
        floor_of,
    }
}

fn tumbler(count: usize) -> Scene {
    let mut pos = Vec::with_capacity(count * count);
    // As piles.py, which follows Box2D v3's loop (running sums, not products).
    let mut y = -0.2 * count as f64 + 10.0;
    for _ in 0..count {
        let mut x = -0.2 * count as f64;
        for _ in 0..count {
            pos.push([x, y]);
            x += 0.4;
        }
        y += 0.4;
    }
    let side = 2.0 * TUMBLER_BOX;
    let vel = vec![[0.0, 0.0]; pos.len()];
    let floor_of = vec![0.0; pos.len()];
    Scene {
        kind: Kind::Tumbler,
        n: count,
        pos,
        vel,
        mass: TUMBLER_BOX_MASS,
        inertia: TUMBLER_BOX_MASS * (side * side + side * side) / 12.0,
        size: TUMBLER_BOX,
        width: 0.0,
        floor_half: 0.0,
        floors: Vec::new(),
        floor_of,
    }
}

fn build_scene(kind: Kind, n: usize) -> Scene {
    match kind {
        Kind::Pile => pile(n),
        Kind::Pyramid => pyramid(n),
        Kind::LargePyramid => large_pyramid(n),
        Kind::ManyPyramids => many_pyramids(n),
        Kind::Tumbler => tumbler(n),
    }
}

// --- Rapier ------------------------------------------------------------------------------------

struct Sim {
    world: PhysicsWorld,
    bodies: Vec<RigidBodyHandle>,
    /// The tumbler's container.
    container: Option<RigidBodyHandle>,
}

fn v(p: [f64; 2]) -> Vector {
    Vector::new(p[0] as f32, p[1] as f32)
}

/// Defaults everywhere (integration parameters, combine rules, CCD, no threads) except what
/// the scenes fix: dt, gravity, μ, restitution 0, the masses, and no sleeping.
fn build_rapier(scene: &Scene, dt: f64, mu: f64) -> Sim {
    let mut world = PhysicsWorld {
        gravity: Vector::new(0.0, -G as f32),
        integration_parameters: IntegrationParameters {
            dt: dt as f32,
            ..IntegrationParameters::default()
        },
        ..PhysicsWorld::default()
    };
    let mu = mu as f32;

    // Zero-thickness segments on one fixed body, as pymunk's segments and Box2D's edges are.
    // Rapier averages two colliders' frictions by default, so μ on every collider is μ.
    let ground = world.insert_body(RigidBodyBuilder::fixed());
    let mut segment = |a: [f64; 2], b: [f64; 2]| {
        let collider = ColliderBuilder::segment(v(a), v(b))
            .friction(mu)
            .restitution(0.0);
        world.insert_collider(collider, Some(ground));
    };
    match scene.kind {
        Kind::Pile => {
            let w = scene.width;
            segment([-1.0, 0.0], [w + 1.0, 0.0]);
            segment([0.0, -1.0], [0.0, WALL_TOP]);
            segment([w, -1.0], [w, WALL_TOP]);
        }
        Kind::Pyramid | Kind::LargePyramid | Kind::ManyPyramids => {
            for &y in &scene.floors {
                segment([-scene.floor_half, y], [scene.floor_half, y]);
            }
        }
        Kind::Tumbler => {}
    }
    let container = (scene.kind == Kind::Tumbler).then(|| {
        // Mass and inertia from the walls' density; a revolute joint at the centre whose motor
        // turns it counterclockwise, with v3's torque limit.
        let drum = world.insert_body(
            RigidBodyBuilder::dynamic()
                .translation(v(TUMBLER_CENTRE))
                .can_sleep(false),
        );
        for [hx, hy, cx, cy] in TUMBLER_WALLS {
            let wall = ColliderBuilder::cuboid(hx as f32, hy as f32)
                .translation(v([cx, cy]))
                .density(TUMBLER_DENSITY as f32)
                .friction(mu)
                .restitution(0.0);
            world.insert_collider(wall, Some(drum));
        }
        let hinge = RevoluteJointBuilder::new()
            .local_anchor1(v(TUMBLER_CENTRE))
            .local_anchor2(v([0.0, 0.0]))
            .motor_velocity(TUMBLER_SPEED_DEG.to_radians() as f32, 1.0)
            .motor_max_force(TUMBLER_TORQUE as f32);
        world.impulse_joints.insert(ground, drum, hinge, true);
        drum
    });

    let mut bodies = Vec::with_capacity(scene.pos.len());
    for (&p, &u) in scene.pos.iter().zip(&scene.vel) {
        let body = RigidBodyBuilder::dynamic()
            .translation(v(p))
            .linvel(v(u))
            .can_sleep(false);
        // `mass` scales the shape's own mass properties: m r^2 / 2 for the ball,
        // m (w^2 + h^2) / 12 for the box, the scenes' moments.
        let shape = match scene.kind {
            Kind::Pile => ColliderBuilder::ball(scene.size as f32),
            Kind::Pyramid | Kind::LargePyramid | Kind::ManyPyramids | Kind::Tumbler => {
                ColliderBuilder::cuboid(scene.size as f32, scene.size as f32)
            }
        };
        let collider = shape.mass(scene.mass as f32).friction(mu).restitution(0.0);
        let (handle, _) = world.insert(body, collider);
        bodies.push(handle);
    }
    Sim {
        world,
        bodies,
        container,
    }
}

impl Sim {
    fn step(&mut self) {
        self.world.step();
    }

    fn pose(&self) -> (Vec<[f64; 2]>, Vec<f64>) {
        let mut pos = Vec::with_capacity(self.bodies.len());
        let mut angle = Vec::with_capacity(self.bodies.len());
        for &h in &self.bodies {
            let body = &self.world.bodies[h];
            let t = body.translation();
            pos.push([t.x as f64, t.y as f64]);
            angle.push(body.rotation().angle() as f64);
        }
        (pos, angle)
    }

    /// The tumbler's container: centre and angle.
    fn container(&self) -> Option<([f64; 2], f64)> {
        let body = &self.world.bodies[self.container?];
        let t = body.translation();
        Some(([t.x as f64, t.y as f64], body.rotation().angle() as f64))
    }

    fn motion(&self) -> (Vec<[f64; 2]>, Vec<f64>) {
        let mut vel = Vec::with_capacity(self.bodies.len());
        let mut omega = Vec::with_capacity(self.bodies.len());
        for &h in &self.bodies {
            let body = &self.world.bodies[h];
            let u = body.linvel();
            vel.push([u.x as f64, u.y as f64]);
            omega.push(body.angvel() as f64);
        }
        (vel, omega)
    }

    /// Rapier's own view of the contacts, for stderr: how many pairs its narrow phase holds and
    /// the deepest contact of its manifolds (−dist). Recycled contacts may be a step stale.
    fn note(&self) -> String {
        let mut pairs = 0usize;
        let mut touching = 0usize;
        let mut deepest = f32::NEG_INFINITY;
        for pair in self.world.narrow_phase.contact_pairs() {
            pairs += 1;
            if pair.has_any_active_contact() {
                touching += 1;
            }
            if let Some((_, contact)) = pair.find_deepest_contact() {
                // `+ 0.0` turns the −0 of a resting contact into 0 for printing.
                deepest = deepest.max(-contact.dist + 0.0);
            }
        }
        let depth = if deepest.is_finite() {
            format!("; deepest manifold contact {} m", py_e(deepest as f64, 3))
        } else {
            String::new()
        };
        format!(
            "rapier2d: {pairs} contact pairs in the narrow phase at the end, {touching} touching{depth}"
        )
    }
}

// --- measuring, as piles.py ----------------------------------------------------------------------

/// Every pair of points closer than `cutoff`, each once. piles.py finds them with a numpy grid;
/// the set of pairs is the same whichever way it is searched.
fn neighbour_pairs(pos: &[[f64; 2]], cutoff: f64) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    if pos.len() < 2 {
        return out;
    }
    let (mut x0, mut y0) = (f64::INFINITY, f64::INFINITY);
    for p in pos {
        x0 = x0.min(p[0]);
        y0 = y0.min(p[1]);
    }
    // Sorted cell keys rather than a dense grid, so that one body far away costs nothing.
    let mut cells: Vec<((i64, i64), usize)> = pos
        .iter()
        .enumerate()
        .map(|(k, p)| {
            let cx = ((p[0] - x0) / cutoff).floor() as i64;
            let cy = ((p[1] - y0) / cutoff).floor() as i64;
            ((cx, cy), k)
        })
        .collect();
    cells.sort_unstable();
    let range = |key: (i64, i64)| {
        let lo = cells.partition_point(|c| c.0 < key);
        let hi = cells.partition_point(|c| c.0 <= key);
        lo..hi
    };
    let cut2 = cutoff * cutoff;
    let close = |a: usize, b: usize| {
        let dx = pos[a][0] - pos[b][0];
        let dy = pos[a][1] - pos[b][1];
        dx * dx + dy * dy < cut2
    };
    let mut start = 0;
    while start < cells.len() {
        let key = cells[start].0;
        let here = range(key);
        for a in here.clone() {
            for b in a + 1..here.end {
                if close(cells[a].1, cells[b].1) {
                    out.push((cells[a].1, cells[b].1));
                }
            }
        }
        // Four of the eight neighbours, so that each pair of neighbouring cells is seen once.
        for (dx, dy) in [(1, 0), (0, 1), (1, 1), (1, -1)] {
            for b in range((key.0 + dx, key.1 + dy)) {
                for a in here.clone() {
                    if close(cells[a].1, cells[b].1) {
                        out.push((cells[a].1, cells[b].1));
                    }
                }
            }
        }
        start = here.end;
    }
    out
}

/// The deepest ball-ball or ball-wall overlap, metres.
fn pile_penetration(pos: &[[f64; 2]], r: f64, width: f64) -> f64 {
    let mut worst = 0.0f64;
    for p in pos {
        worst = worst.max((r - p[1]).max(r - p[0]).max(r - (width - p[0])));
    }
    for (i, j) in neighbour_pairs(pos, 2.0 * r) {
        let d = (pos[i][0] - pos[j][0]).hypot(pos[i][1] - pos[j][1]);
        worst = worst.max(2.0 * r - d);
    }
    worst
}

/// The deepest box-box (separating-axis depth) or box-floor (lowest corner) overlap, metres.
fn pyramid_penetration(pos: &[[f64; 2]], angle: &[f64], h: f64, floor_of: &[f64]) -> f64 {
    let mut worst = 0.0f64;
    for ((p, &a), floor) in pos.iter().zip(angle).zip(floor_of) {
        // The lowest corner below the box's floor.
        worst = worst.max(h * (a.cos().abs() + a.sin().abs()) - (p[1] - floor));
    }
    worst.max(box_box_penetration(pos, angle, h))
}

/// The deepest overlap of two of the square boxes of half side `h` (separating axes), metres.
fn box_box_penetration(pos: &[[f64; 2]], angle: &[f64], h: f64) -> f64 {
    neighbour_pairs(pos, 2.0 * 2.0f64.sqrt() * h)
        .into_iter()
        .map(|(i, j)| obb_depth(pos[i], angle[i], [h, h], pos[j], angle[j], [h, h]))
        .fold(0.0, f64::max)
}

/// The separating-axis overlap depth of two oriented boxes (centre, angle, half extents): the
/// smallest overlap of their projections on the four face normals, negative where apart.
fn obb_depth(ci: [f64; 2], ai: f64, hi: [f64; 2], cj: [f64; 2], aj: f64, hj: [f64; 2]) -> f64 {
    let axes = |a: f64| [[a.cos(), a.sin()], [-a.sin(), a.cos()]];
    let dot = |u: [f64; 2], w: [f64; 2]| u[0] * w[0] + u[1] * w[1];
    let (ui, uj) = (axes(ai), axes(aj));
    let d = [cj[0] - ci[0], cj[1] - ci[1]];
    let mut depth = f64::INFINITY;
    for u in [ui[0], ui[1], uj[0], uj[1]] {
        let extent_i = hi[0] * dot(u, ui[0]).abs() + hi[1] * dot(u, ui[1]).abs();
        let extent_j = hj[0] * dot(u, uj[0]).abs() + hj[1] * dot(u, uj[1]).abs();
        depth = depth.min(extent_i + extent_j - dot(u, d).abs());
    }
    depth
}

/// The tumbler's walls in the world: centre and half extents of each.
fn tumbler_walls((centre, angle): ([f64; 2], f64)) -> Vec<([f64; 2], [f64; 2])> {
    let (s, c) = angle.sin_cos();
    TUMBLER_WALLS
        .iter()
        .map(|&[hx, hy, x, y]| {
            (
                [centre[0] + c * x - s * y, centre[1] + s * x + c * y],
                [hx, hy],
            )
        })
        .collect()
}

/// The deepest box-box or box-wall overlap of the tumbler, metres.
fn tumbler_penetration(pos: &[[f64; 2]], angle: &[f64], h: f64, container: ([f64; 2], f64)) -> f64 {
    let mut worst = box_box_penetration(pos, angle, h);
    for (c, e) in tumbler_walls(container) {
        for (p, &a) in pos.iter().zip(angle) {
            worst = worst.max(obb_depth(*p, a, [h, h], c, container.1, e));
        }
    }
    worst
}

/// The boxes whose centres have left the tumbler's inside (|x|, |y| > 10 m in its frame).
fn outside_tumbler(pos: &[[f64; 2]], (centre, angle): ([f64; 2], f64)) -> Vec<usize> {
    let (s, c) = angle.sin_cos();
    (0..pos.len())
        .filter(|&k| {
            let d = [pos[k][0] - centre[0], pos[k][1] - centre[1]];
            let (x, y) = (c * d[0] + s * d[1], -s * d[0] + c * d[1]);
            !(x.abs() <= 10.0 && y.abs() <= 10.0)
        })
        .collect()
}

/// Kinetic (translation and rotation) plus gravitational potential m g y, joules.
fn energy(scene: &Scene, pos: &[[f64; 2]], vel: &[[f64; 2]], omega: &[f64]) -> f64 {
    let v2: f64 = vel.iter().map(|u| u[0] * u[0] + u[1] * u[1]).sum();
    let w2: f64 = omega.iter().map(|w| w * w).sum();
    let y: f64 = pos.iter().map(|p| p[1]).sum();
    0.5 * scene.mass * v2 + 0.5 * scene.inertia * w2 + scene.mass * G * y
}

/// The bodies that count as having left the scene (piles.py's `diverged`).
fn out_of_scene(scene: &Scene, pos: &[[f64; 2]]) -> Vec<usize> {
    let h = scene.size;
    let non_finite: Vec<usize> = (0..pos.len())
        .filter(|&k| !(pos[k][0].is_finite() && pos[k][1].is_finite()))
        .collect();
    if !non_finite.is_empty() {
        return non_finite;
    }
    (0..pos.len())
        .filter(|&k| {
            let [x, y] = pos[k];
            let side = match scene.kind {
                Kind::Pile => x < -h || x > scene.width + h,
                Kind::Pyramid | Kind::LargePyramid | Kind::ManyPyramids => {
                    x.abs() > scene.floor_half
                }
                // The tumbler's boxes are checked against its container (outside_tumbler).
                Kind::Tumbler => false,
            };
            y - scene.floor_of[k] < -h || y > WALL_TOP || side
        })
        .collect()
}

/// CPU seconds of the whole process, on the clock Python's `time.process_time` reads on Linux.
fn process_time() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec for the duration of the call.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        // Without this clock the CPU column would be silently wrong; nothing to fall back to.
        eprintln!("piles-rapier: clock_gettime(CLOCK_PROCESS_CPUTIME_ID) failed");
        std::process::exit(1);
    }
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

struct Outcome {
    scene: Kind,
    n: usize,
    dt: f64,
    s_per_step: f64,
    cpu_s_per_sim_s: f64,
    max_penetration: f64,
    creep: f64,
    energy_drift: f64,
    status: String,
    late_penetration: f64,
    notes: Vec<String>,
}

/// Python's `f"{v:.{digits}e}"`: Rust writes `1.5e-3` where Python writes `1.5e-03`.
fn py_e(v: f64, digits: usize) -> String {
    if !v.is_finite() {
        return if v.is_nan() {
            "nan".into()
        } else if v > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        };
    }
    let s = format!("{v:.digits$e}");
    let (mantissa, exp) = s
        .split_once('e')
        .expect("Rust's {:e} always writes an exponent");
    let exp: i32 = exp.parse().expect("Rust's {:e} writes an integer exponent");
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exp.abs())
}

impl Outcome {
    fn csv(&self) -> String {
        let num = |v: f64| {
            if v.is_nan() {
                String::new()
            } else {
                py_e(v, 6)
            }
        };
        [
            engine_label().replace(',', ";"),
            self.scene.name().to_string(),
            self.n.to_string(),
            format!("{:.6}", self.dt),
            num(self.s_per_step),
            num(self.cpu_s_per_sim_s),
            num(self.max_penetration),
            num(self.creep),
            num(self.energy_drift),
            self.status.replace(',', ";"),
        ]
        .join(",")
    }
}

/// Python's `round()`, ties to even, for the step counts piles.py derives.
fn py_round(x: f64) -> i64 {
    x.round_ties_even() as i64
}

/// The first run: step, timing the steps alone, and measure after each (piles.py's
/// `measured_run`). Returns the outcome and the number of steps taken.
fn measured_run(
    scene: &Scene,
    dt: f64,
    steps: usize,
    mu: f64,
    time_limit: Option<f64>,
) -> (Outcome, usize) {
    let mut sim = build_rapier(scene, dt, mu);
    let mark_step = (steps as i64 - py_round(1.0 / dt)).max(0) as usize; // t_end - 1 s
    let start = scene.pos.clone();
    let mut penetration = 0.0f64;
    let mut late_penetration = 0.0f64;
    let mut creep = 0.0f64;
    let mut mark_pos = start.clone();
    let mut mark_energy = energy(scene, &scene.pos, &scene.vel, &vec![0.0; scene.pos.len()]);
    let mut drift = f64::NAN;
    let (mut wall, mut cpu) = (0.0f64, 0.0f64);
    let mut status = "ok".to_string();
    let mut notes = Vec::new();
    let began = Instant::now();
    let mut ran = 0;
    for s in 1..=steps {
        let (t0, c0) = (Instant::now(), process_time());
        sim.step();
        wall += t0.elapsed().as_secs_f64();
        cpu += process_time() - c0;
        ran = s;
        let (pos, angle) = sim.pose();
        // Rapier never lets a NaN reach the positions: it disables the body and rolls it back
        // to its last valid pose (its "quarantine"). That is piles.py's NaN, so it diverges here.
        let quarantined = sim.world.quarantine().bodies().len();
        let container = sim.container();
        let out = match container {
            Some(drum) => outside_tumbler(&pos, drum),
            None => out_of_scene(scene, &pos),
        };
        if quarantined > 0 || !out.is_empty() {
            status = format!("diverged at step {s}");
            if quarantined > 0 {
                notes.push(format!(
                    "rapier2d quarantined {quarantined} {} at step {s} (non-finite state)",
                    if quarantined == 1 { "body" } else { "bodies" }
                ));
            }
            if let Some(&k) = out.first() {
                notes.push(format!(
                    "{} {} out at step {s}: body {k} at ({:.4}; {:.4})",
                    out.len(),
                    if out.len() == 1 { "body" } else { "bodies" },
                    pos[k][0],
                    pos[k][1]
                ));
            }
            break;
        }
        let depth = match scene.kind {
            Kind::Pile => pile_penetration(&pos, scene.size, scene.width),
            Kind::Pyramid | Kind::LargePyramid | Kind::ManyPyramids => {
                for (p, q) in pos.iter().zip(&start) {
                    creep = creep.max((p[0] - q[0]).hypot(p[1] - q[1]));
                }
                pyramid_penetration(&pos, &angle, scene.size, &scene.floor_of)
            }
            Kind::Tumbler => match container {
                Some(drum) => tumbler_penetration(&pos, &angle, scene.size, drum),
                None => 0.0,
            },
        };
        penetration = penetration.max(depth);
        if s > mark_step {
            late_penetration = late_penetration.max(depth);
        }
        if s == mark_step || s == steps {
            let (vel, omega) = sim.motion();
            let e = energy(scene, &pos, &vel, &omega);
            if s == mark_step {
                mark_pos = pos;
                mark_energy = e;
            } else {
                drift = (e - mark_energy) / mark_energy.abs();
                if scene.kind == Kind::Pile {
                    creep = pos
                        .iter()
                        .zip(&mark_pos)
                        .map(|(p, q)| (p[0] - q[0]).hypot(p[1] - q[1]))
                        .fold(f64::NEG_INFINITY, f64::max);
                }
            }
        }
        if let Some(limit) = time_limit {
            if s < steps && began.elapsed().as_secs_f64() > limit {
                status = format!("stopped at step {s} (time limit)");
                notes.push(format!(
                    "stopped after {:.0} s at t = {:.3} s of {:.3} s",
                    began.elapsed().as_secs_f64(),
                    s as f64 * dt,
                    steps as f64 * dt
                ));
                break;
            }
        }
    }
    notes.push(sim.note());
    let ok = status == "ok";
    let outcome = Outcome {
        scene: scene.kind,
        n: scene.n,
        dt,
        s_per_step: wall / ran as f64,
        cpu_s_per_sim_s: cpu / (ran as f64 * dt),
        max_penetration: penetration,
        // The tumbler's boxes tumble and its motor drives it: no creep or drift to speak of.
        creep: if ok && scene.kind != Kind::Tumbler {
            creep
        } else {
            f64::NAN
        },
        energy_drift: if scene.kind != Kind::Tumbler {
            drift
        } else {
            f64::NAN
        },
        status,
        late_penetration: if ok { late_penetration } else { f64::NAN },
        notes,
    };
    (outcome, ran)
}

/// A later run: rebuild, step `steps` times; (wall s per step, CPU s per simulated s).
fn timed_run(scene: &Scene, dt: f64, steps: usize, mu: f64) -> (f64, f64) {
    let mut sim = build_rapier(scene, dt, mu);
    let (t0, c0) = (Instant::now(), process_time());
    for _ in 0..steps {
        sim.step();
    }
    let (wall, cpu) = (t0.elapsed().as_secs_f64(), process_time() - c0);
    (wall / steps as f64, cpu / (steps as f64 * dt))
}

/// One scene: the best timing of `repeats` runs, the first run's accuracy; a first run stopped
/// by the time limit is not repeated.
fn run(args: &Args, n: usize) -> Outcome {
    let scene = build_scene(args.scene, n);
    let steps = py_round(args.seconds / args.dt).max(1) as usize;
    let (mut outcome, ran) = measured_run(&scene, args.dt, steps, args.friction, args.time_limit);
    if !outcome.status.starts_with("stopped") {
        for _ in 1..args.repeats {
            let (wall, cpu) = timed_run(&scene, args.dt, ran, args.friction);
            outcome.s_per_step = outcome.s_per_step.min(wall);
            outcome.cpu_s_per_sim_s = outcome.cpu_s_per_sim_s.min(cpu);
        }
    }
    outcome
}

// --- command line --------------------------------------------------------------------------------

struct Args {
    scene: Kind,
    n: Vec<usize>,
    dt: f64,
    seconds: f64,
    friction: f64,
    repeats: usize,
    time_limit: Option<f64>,
    header: bool,
}

const USAGE: &str = "\
usage: piles-rapier --scene {pile,pyramid,large-pyramid,many-pyramids,tumbler} --n N[,N...]
                    [--dt DT]
                    [--seconds S] [--friction MU] [--repeats K] [--time-limit SECONDS]
                    [--header]

The ball pile and the box pyramids of piles.py, in rapier2d 0.36.1; CSV on stdout.

  --scene        pile, pyramid, large-pyramid, many-pyramids or tumbler (the last three are
                 Box2D v3's benchmarks)
  --n            balls of the pile, rows of a pyramid, floors (and pyramids a floor) of
                 many-pyramids, or boxes a side of the tumbler's grid, e.g. 500 or 50,500
  --dt           time step, s, a number or a fraction such as 1/240 (default 1/60)
  --seconds      simulated seconds per run (default 5)
  --friction     Coulomb coefficient of every contact (default 0)
  --repeats      runs per size; the best time counts (default 3)
  --time-limit   stop a run after this many seconds (status 'stopped at step s (time limit)';
                 not repeated)
  --header       print the CSV header line first";

/// A number or a fraction `p/q`, as piles.py's `Fraction` parsing takes for `--dt`.
fn positive(option: &str, text: &str) -> Result<f64, String> {
    let bad = || format!("{option}: expected a number such as 0.004 or 1/240, got {text:?}");
    let t = text.trim();
    let value = match t.split_once('/') {
        Some((p, q)) => {
            let p: f64 = p.trim().parse().map_err(|_| bad())?;
            let q: f64 = q.trim().parse().map_err(|_| bad())?;
            if q == 0.0 {
                return Err(bad());
            }
            p / q
        }
        None => t.parse().map_err(|_| bad())?,
    };
    if !(value > 0.0 && value.is_finite()) {
        return Err(format!(
            "{option}: expected a positive number, got {text:?}"
        ));
    }
    Ok(value)
}

fn sizes(text: &str) -> Result<Vec<usize>, String> {
    let parsed: Result<Vec<usize>, _> = text
        .split(',')
        .filter(|s| !s.trim().is_empty())
        .map(|s| s.trim().parse::<usize>())
        .collect();
    match parsed {
        Ok(v) if !v.is_empty() && v.iter().all(|&n| n >= 1) => Ok(v),
        Ok(_) => Err(format!(
            "--n: sizes must be positive integers, got {text:?}"
        )),
        Err(_) => Err(format!(
            "--n: expected a comma-separated list of integers, got {text:?}"
        )),
    }
}

fn parse_args(argv: &[String]) -> Result<Option<Args>, String> {
    let mut scene = None;
    let mut n = None;
    let mut dt = 1.0 / 60.0;
    let mut seconds = 5.0;
    let mut friction = 0.0;
    let mut repeats = 3usize;
    let mut time_limit = None;
    let mut header = false;
    let mut it = argv.iter();
    while let Some(arg) = it.next() {
        // `--opt=value` as well as `--opt value`, as argparse takes both.
        let (name, inline) = match arg.split_once('=') {
            Some((a, b)) if a.starts_with("--") => (a, Some(b.to_string())),
            _ => (arg.as_str(), None),
        };
        let mut value = || -> Result<String, String> {
            inline
                .clone()
                .or_else(|| it.next().cloned())
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match name {
            "-h" | "--help" => return Ok(None),
            "--header" => header = true,
            "--scene" => {
                scene = Some(match value()?.as_str() {
                    "pile" => Kind::Pile,
                    "pyramid" => Kind::Pyramid,
                    "large-pyramid" => Kind::LargePyramid,
                    "many-pyramids" => Kind::ManyPyramids,
                    "tumbler" => Kind::Tumbler,
                    other => {
                        return Err(format!(
                            "--scene: expected pile, pyramid, large-pyramid, many-pyramids or \
                             tumbler, got {other:?}"
                        ))
                    }
                })
            }
            "--n" => n = Some(sizes(&value()?)?),
            "--dt" => dt = positive("--dt", &value()?)?,
            "--seconds" => seconds = positive("--seconds", &value()?)?,
            "--time-limit" => time_limit = Some(positive("--time-limit", &value()?)?),
            "--friction" => {
                let text = value()?;
                friction = text
                    .trim()
                    .parse::<f64>()
                    .map_err(|_| format!("--friction: expected a number, got {text:?}"))?;
                if !(friction >= 0.0 && friction.is_finite()) {
                    return Err(format!("--friction: must be 0 or more, got {text:?}"));
                }
            }
            "--repeats" => {
                let text = value()?;
                let k: i64 = text
                    .trim()
                    .parse()
                    .map_err(|_| format!("--repeats: expected an integer, got {text:?}"))?;
                repeats = k.max(1) as usize; // piles.py takes max(1, repeats)
            }
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    let scene = scene.ok_or("--scene is required")?;
    let n = n.ok_or("--n is required")?;
    Ok(Some(Args {
        scene,
        n,
        dt,
        seconds,
        friction,
        repeats,
        time_limit,
        header,
    }))
}

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let args = match parse_args(&argv) {
        Ok(Some(args)) => args,
        Ok(None) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            // As argparse does: the synopsis, not the whole help, then the error.
            let synopsis: Vec<&str> = USAGE.lines().take_while(|l| !l.is_empty()).collect();
            eprintln!("{}\npiles-rapier: error: {message}", synopsis.join("\n"));
            return ExitCode::from(2);
        }
    };
    let mut stdout = std::io::stdout();
    if args.header {
        println!("{HEADER}");
    }
    let p = IntegrationParameters::default();
    eprintln!(
        "# {ENGINE} ({} solver iterations, {} PGS + {} stabilization each; defaults)",
        p.num_solver_iterations,
        p.num_internal_pgs_iterations,
        p.num_internal_stabilization_iterations
    );
    for &n in &args.n {
        match args.scene {
            Kind::Pile => eprintln!("# pile of {n} balls: box width W = {:.2} m", pile_width(n)),
            Kind::Pyramid | Kind::LargePyramid => eprintln!(
                "# {} of {n} rows: {} boxes",
                args.scene.name(),
                n * (n + 1) / 2
            ),
            Kind::ManyPyramids => eprintln!(
                "# many-pyramids: {n} floors of {n} pyramids, {} boxes",
                n * n * SMALL_PYRAMID_ROWS * (SMALL_PYRAMID_ROWS + 1) / 2
            ),
            Kind::Tumbler => eprintln!(
                "# tumbler: {} boxes in a container turning at 25 degrees/s",
                n * n
            ),
        }
        let started = Instant::now();
        let outcome = run(&args, n);
        println!("{}", outcome.csv());
        // The rows are read as they come by `run`; a lost flush would lose a row.
        if stdout.flush().is_err() {
            eprintln!("piles-rapier: could not write to stdout");
            return ExitCode::FAILURE;
        }
        for note in &outcome.notes {
            eprintln!("# {note}");
        }
        let late = if outcome.late_penetration.is_nan() {
            String::new()
        } else {
            format!(
                "; deepest overlap over the last second {} m",
                py_e(outcome.late_penetration, 3)
            )
        };
        eprintln!("# ({:.1} s{late})", started.elapsed().as_secs_f64());
    }
    ExitCode::SUCCESS
}
