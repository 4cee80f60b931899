//! Stacking with friction (issue 29): bodies that rest on several others, whose redundant
//! contacts leave the split of their forces to statics. A pyramid that stands without creeping,
//! a Roman arch that stands with friction and falls without it, and a row of dominoes that falls
//! and comes to rest. Each checks what statics decides (the floor carries the weight, the net
//! friction on a body at rest is zero) and that nothing creeps.

use super::friction::{G, implicit, incline_body};
use bead::contact::ShapeContacts;
use bead::force::Gravity;
use bead::{RigidBody, RigidBodyId, Shape, System};

#[test]
fn a_pyramid_of_boxes_stands_without_creeping_at_a_sixtieth_of_a_second() {
    // Six rows, 21 boxes, each on two below: redundant contacts whose friction is
    // indeterminate. The second corner's friction stays pinned rather than held (which made the
    // pivoting cycle at the second step before) or pushing back at its cone's edge. The implicit
    // steppers' semismooth roles cycled on it (a 10-row pyramid stopped at t = 0.2 s); their
    // contacts are now solved as their own problem when that happens.
    let (rows, w, m, mu) = (6, 0.5, 25.0, 0.6);
    for name in ["rk4", "midpoint", "implicit-euler", "bdf2"] {
        let mut sys = System::new(2).unwrap();
        sys.set_integrator_boxed(bead::integrate::by_name(name).unwrap());
        // A floor: an incline of 0 whose top face is y = 0.
        let floor = incline_body(&mut sys, 0.0, 20.0);
        let mut ground = ShapeContacts::new().named("floor", &[]).body(floor, mu);
        let mut stack = ShapeContacts::new();
        let mut boxes = Vec::new();
        for r in 0..rows {
            for k in 0..rows - r {
                let x = (k as f64 - (rows - r - 1) as f64 / 2.0) * w * 1.05;
                let at = [x, w / 2.0 + r as f64 * w];
                let b = square(&mut sys, at, w);
                if r == 0 {
                    ground = ground.body(b, mu);
                }
                stack = stack.body(b, mu);
                boxes.push((b, at));
            }
        }
        let ground = sys.add_shape_contacts(ground).unwrap();
        sys.add_shape_contacts(stack).unwrap();
        sys.add_force(Gravity::new(&[0.0, -G])).unwrap();
        for _ in 0..60 {
            sys.step(1.0 / 60.0).unwrap();
        }
        for (b, at) in &boxes {
            let q = sys.coordinates(b.body());
            let moved = ((q[0] - at[0]).powi(2) + (q[1] - at[1]).powi(2) + q[2].powi(2)).sqrt();
            assert!(moved < 1e-9, "{name}: a box moved {moved} m in a second");
        }
        let diagnostics = sys.diagnostics().unwrap();
        let sum = sys.contact_summary(ground, &diagnostics).unwrap();
        let weight = m * G * boxes.len() as f64;
        // The implicit steppers balance each coordinate's momentum to 1e-8 of the largest
        // displacement the step's forces make, a box's weight or the redundant corners' net
        // torque on one, whichever is larger: over the 21 boxes the floor's total is within
        // about 1e-8 of the weight, a little more where a torque sets the scale (1.2e-8 under
        // BDF2 once the Newton matrix kept the contacts' curvature as it is).
        let tol = if implicit(name) { 2e-8 } else { 1e-9 };
        assert!(
            (sum.normal_force - weight).abs() < tol * weight,
            "{name}: {sum:?}"
        );
        // Nothing pushes the pyramid sideways, so the floor's friction sums to zero: the one
        // part of the corners' friction that statics decides.
        let net: f64 = diagnostics
            .constraints
            .iter()
            .filter(|c| c.name.starts_with("floor:"))
            .map(|c| c.lambda[1])
            .sum();
        let tol = if implicit(name) { 1e-7 } else { 1e-9 };
        assert!(net.abs() < tol * weight, "{name}: net friction {net} N");
        // How it splits between redundant corners statics leaves free. The explicit integrators
        // keep a second corner's friction pinned at zero. The implicit steppers take the
        // least-norm split at the end of a step whose contacts they solved as their own
        // problem, which leaves a few newtons of squeeze under 5 kN; a step that converges at
        // once by the semismooth roles keeps the split of its KKT solve instead (BDF2's last
        // steps here: 84 and 9 N at steps 53 and 59 with the split by singular values, 402
        // and 296 N with the split by the bodies' forces), within the cones.
        if name == "bdf2" {
            for c in diagnostics
                .constraints
                .iter()
                .filter(|c| c.name.starts_with("floor:"))
            {
                assert!(
                    c.lambda[1].abs() <= mu * c.lambda[0] * (1.0 + 1e-9),
                    "{name}: {c:?}"
                );
            }
        } else {
            let tol = if implicit(name) { 1e-2 } else { 1e-9 };
            assert!(sum.friction_force < tol * weight, "{name}: {sum:?}");
        }
    }
}

/// A Roman arch: `n` voussoirs of a half ring (radii 1 and 1.3 m, 2000 kg/m³) on a floor, all
/// with friction `mu`. Returns the system, the voussoirs with their starting centres, and the
/// floor's contact group.
fn arch(
    integrator: &str,
    n: usize,
    mu: f64,
) -> (
    System,
    Vec<(RigidBodyId, [f64; 2])>,
    bead::contact::ShapeGroupId,
) {
    use std::f64::consts::PI;
    let mut sys = System::new(2).unwrap();
    sys.set_integrator_boxed(bead::integrate::by_name(integrator).unwrap());
    let floor = incline_body(&mut sys, 0.0, 10.0);
    let mut ground = ShapeContacts::new().body(floor, mu);
    let mut joints = ShapeContacts::new();
    let (inner, outer) = (1.0, 1.3);
    let mut stones = Vec::new();
    for k in 0..n {
        let (a0, a1) = (PI * k as f64 / n as f64, PI * (k + 1) as f64 / n as f64);
        let corner = |r: f64, a: f64| [r * a.cos(), r * a.sin()];
        // Counter-clockwise: outer edge from a0 to a1, inner edge back.
        let ring = [
            corner(inner, a0),
            corner(outer, a0),
            corner(outer, a1),
            corner(inner, a1),
        ];
        let (mut area, mut cx, mut cy) = (0.0, 0.0, 0.0);
        for i in 0..4 {
            let (p, q) = (ring[i], ring[(i + 1) % 4]);
            let c = p[0] * q[1] - q[0] * p[1];
            area += c;
            cx += (p[0] + q[0]) * c;
            cy += (p[1] + q[1]) * c;
        }
        let centre = [cx / (3.0 * area), cy / (3.0 * area)];
        let vertices = ring
            .iter()
            .map(|p| [p[0] - centre[0], p[1] - centre[1]])
            .collect();
        let stone = sys
            .add_rigid_body(RigidBody::new(&centre, 0.0).shape(Shape::Polygon { vertices }, 2000.0))
            .unwrap();
        if k == 0 || k == n - 1 {
            ground = ground.body(stone, mu);
        }
        joints = joints.body(stone, mu);
        stones.push((stone, centre));
    }
    let ground = sys.add_shape_contacts(ground).unwrap();
    sys.add_shape_contacts(joints).unwrap();
    sys.add_force(Gravity::new(&[0.0, -G])).unwrap();
    (sys, stones, ground)
}

/// Asserts that no voussoir of `stones` has moved by 1e-9 m, and, with the floor's `ground`
/// group, that the floor carries the arch's weight with nothing sunk 1e-10 m into it.
fn assert_stands(
    what: &str,
    sys: &mut System,
    stones: &[(RigidBodyId, [f64; 2])],
    ground: Option<bead::contact::ShapeGroupId>,
) {
    for (stone, at) in stones {
        let q = sys.coordinates(stone.body());
        let moved = ((q[0] - at[0]).powi(2) + (q[1] - at[1]).powi(2)).sqrt();
        assert!(moved < 1e-9, "{what}: a voussoir moved {moved} m");
    }
    let Some(ground) = ground else {
        return;
    };
    let mass: f64 = stones
        .iter()
        .map(|(s, _)| sys.mass((*s).into()).unwrap())
        .sum();
    let diagnostics = sys.diagnostics().unwrap();
    let floor = sys.contact_summary(ground, &diagnostics).unwrap();
    assert!(
        (floor.normal_force - mass * G).abs() < 1e-7 * mass * G,
        "{what}: {floor:?} against {}",
        mass * G
    );
    assert!(floor.max_penetration < 1e-10, "{what}: {floor:?}");
}

#[test]
fn a_roman_arch_stands_with_friction_and_falls_without() {
    // Nine voussoirs: ten joints of two corners each, 40 rows of contact against 27 degrees of
    // freedom. Their friction is indeterminate, and the implicit steppers' semismooth roles
    // cycled on it from the first step; the contacts are now solved as their own problem.
    for name in ["implicit-euler", "bdf2"] {
        let (mut sys, stones, ground) = arch(name, 9, 0.6);
        for _ in 0..250 {
            sys.step(2e-3).unwrap();
        }
        // The floor carries the arch's weight; every contact keeps inside its cone.
        assert_stands(&format!("{name}, 0.5 s"), &mut sys, &stones, Some(ground));
    }
    // Close to the least friction that holds it (its joints slide at μ = 0.3), it stands.
    let (mut sys, stones, _) = arch("implicit-euler", 9, 0.35);
    for _ in 0..500 {
        sys.step(4e-3).unwrap();
    }
    assert_stands("μ = 0.35, 2 s", &mut sys, &stones, None);
    // Without friction the joints slide: the crown drops.
    for name in ["implicit-euler", "rk4"] {
        let (mut sys, stones, _) = arch(name, 9, 0.0);
        for _ in 0..250 {
            sys.step(2e-3).unwrap();
        }
        let (crown, at) = stones[4];
        let drop = at[1] - sys.coordinates(crown.body())[1];
        assert!(drop > 0.1, "{name}: the crown dropped only {drop} m");
    }
}

/// Ten dominoes 5 cm × 50 cm (500 kg/m³) 30 cm apart on a floor, every contact with friction
/// `mu`, the first tipped forward at 2 rad/s about its front edge: the system, the dominoes, and
/// the contact group (its members labelled `floor`, `d0` … `d9`).
fn dominoes(integrator: &str, mu: f64) -> (System, Vec<RigidBodyId>, bead::contact::ShapeGroupId) {
    let mut sys = System::new(2).unwrap();
    sys.set_integrator_boxed(bead::integrate::by_name(integrator).unwrap());
    let floor = incline_body(&mut sys, 0.0, 8.0);
    let mut group = ShapeContacts::new().body(floor, mu);
    let mut pieces = Vec::new();
    for k in 0..10 {
        let mut piece = RigidBody::new(&[0.3 * k as f64, 0.25], 0.0).shape(
            Shape::Box {
                width: 0.05,
                height: 0.5,
            },
            500.0,
        );
        if k == 0 {
            // ω × (c − edge) with the front edge at (0.025, 0): the edge stays where it is.
            piece = piece.velocity(&[0.5, 0.05], -2.0);
        }
        let piece = sys.add_rigid_body(piece).unwrap();
        group = group.body(piece, mu);
        pieces.push(piece);
    }
    let labels: Vec<String> = std::iter::once("floor".to_string())
        .chain((0..10).map(|k| format!("d{k}")))
        .collect();
    let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
    let group = sys
        .add_shape_contacts(group.named("dominoes", &labels))
        .unwrap();
    sys.add_force(Gravity::new(&[0.0, -G])).unwrap();
    (sys, pieces, group)
}

/// The contacts' forces (normal, friction) summed over those whose names contain `member`: a
/// member's share of its group's forces.
fn forces_on(diagnostics: &bead::Diagnostics, member: &str) -> (f64, f64) {
    diagnostics
        .constraints
        .iter()
        .filter(|c| c.name.contains(member))
        .fold((0.0, 0.0), |(n, f), c| (n + c.lambda[0], f + c.lambda[1]))
}

#[test]
fn a_row_of_dominoes_falls_in_turn_and_comes_to_rest_leaning_on_one_another() {
    // Each domino's corner slides down the next one's face while the feet stick: friction that
    // is redundant where dominoes lean on one another, and a face that slaps flat onto the next
    // in mid-step. (The run stopped at t = 1.72 s before Lemke's tableau was scaled: the
    // residuals there are picometres.)
    use std::f64::consts::FRAC_PI_2;
    let (thickness, spacing, dt) = (0.05, 0.3, 4e-3);
    let mut arrivals = Vec::new();
    for name in ["implicit-euler", "bdf2"] {
        let (mut sys, pieces, group) = dominoes(name, 0.5);
        // When the wave reaches the sixth domino: it passes 0.5 rad (interpolated in the step).
        let mut arrival = None;
        let mut previous = 0.0;
        let mut penetration = 0.0_f64;
        for step in 1..=500 {
            sys.step(dt).unwrap();
            let angle = sys.coordinates(pieces[5].body())[2];
            if arrival.is_none() && angle < -0.5 {
                let fraction = (-0.5 - previous) / (angle - previous);
                arrival = Some((step as f64 - 1.0 + fraction) * dt);
            }
            previous = angle;
            let diagnostics = sys.diagnostics().unwrap();
            penetration = penetration.max(
                sys.contact_summary(group, &diagnostics)
                    .unwrap()
                    .max_penetration,
            );
        }
        assert!(penetration < 1e-10, "{name}: {penetration} m deep");
        arrivals.push(arrival.unwrap());
        // All down by t = 2 s: the last lies flat on the floor (its face on it, so both its
        // corners touch: θ = −π/2 and its centre half its thickness up), every other leans on
        // its neighbour at about the angle whose face lies on the next one's, cos θ = T / S
        // (the feet slid a millimetre or so in the impacts, which moves it by 1e-3 rad).
        let last = sys.coordinates(pieces[9].body());
        assert!(
            (last[2] + FRAC_PI_2).abs() < 1e-9 && (last[1] - thickness / 2.0).abs() < 1e-9,
            "{name}: the last domino at {last:?}"
        );
        let leaning = (thickness / spacing).acos();
        for piece in &pieces[..9] {
            let q = sys.coordinates(piece.body());
            assert!((q[2] + leaning).abs() < 1e-2, "{name}: {q:?}");
        }
        for piece in &pieces[1..6] {
            let q = sys.coordinates(piece.body());
            assert!((q[2] + leaning).abs() < 2e-3, "{name}: {q:?}");
        }
        // At rest: nothing creeps in the next second.
        let rest: Vec<Vec<f64>> = pieces
            .iter()
            .map(|p| sys.coordinates(p.body()).to_vec())
            .collect();
        for _ in 0..250 {
            sys.step(dt).unwrap();
        }
        for (piece, at) in pieces.iter().zip(&rest) {
            let q = sys.coordinates(piece.body());
            let moved = (0..3).map(|i| (q[i] - at[i]).abs()).fold(0.0, f64::max);
            assert!(
                moved < 1e-9,
                "{name}: a domino moved {moved} in a second at rest"
            );
        }
        // Statics: the floor carries the row's weight, and its friction sums to zero (nothing
        // else pushes the row sideways), however the redundant contacts split it.
        let weight: f64 = pieces
            .iter()
            .map(|p| sys.mass((*p).into()).unwrap() * G)
            .sum();
        let (normal, friction) = forces_on(&sys.diagnostics().unwrap(), "floor");
        assert!(
            (normal - weight).abs() < 1e-7 * weight,
            "{name}: the floor carries {normal} N of {weight}"
        );
        assert!(
            friction.abs() < 1e-7 * weight,
            "{name}: net friction {friction} N"
        );
    }
    // Two integrators, one wave: the same arrival to a few steps.
    assert!(
        (arrivals[0] - arrivals[1]).abs() < 3.0 * dt,
        "arrivals {arrivals:?}"
    );
}

#[test]
fn an_arch_stands_under_rk4_where_its_pivoting_wedges() {
    // At the level of accelerations the arch's wedged joints leave Dantzig's pivoting and the
    // friction passes without consistent forces within a few steps, whatever the step. The
    // step then solves the contacts' problem as a 3D one's (sweeps and direct solves from the
    // least-norm sticking forces), and RK4 carries the arch as the implicit steppers do: no
    // voussoir moves, the floor carries the weight, nothing sinks.
    for dt in [2e-3, 5e-4] {
        let (mut sys, stones, ground) = arch("rk4", 9, 0.6);
        for _ in 0..100 {
            sys.step(dt).unwrap_or_else(|e| panic!("dt = {dt}: {e}"));
        }
        assert_stands(&format!("RK4, dt = {dt}"), &mut sys, &stones, Some(ground));
    }
}

#[test]
fn a_pyramid_stands_for_seconds_under_implicit_euler_where_its_redundant_friction_stalls() {
    // Five rows at 1/60 s: at t = 0.9 s the contacts' own problem stalled 3.4e-11 m from
    // holding, the inconsistency of its redundant friction rows' linearization, while the
    // momentum's measure asked 2.7e-11 m, and the step failed after 200 iterations. Within the
    // step's tolerance (1e-10 m) and no longer closing in, it now ends there.
    let (mut sys, boxes, group) = bead::models::box_pyramid(5, 0.6).unwrap();
    sys.set_integrator_boxed(bead::integrate::by_name("implicit-euler").unwrap());
    let start: Vec<Vec<f64>> = boxes
        .iter()
        .map(|b| sys.coordinates(b.body()).to_vec())
        .collect();
    let evaluations: Vec<usize> = (0..180)
        .map(|_| sys.step(1.0 / 60.0).unwrap().evaluations)
        .collect();
    // A step after one whose friction needed the contacts' own problem starts with it: the
    // semismooth roles cycle again on the same redundant corners, and their iterations wandered
    // metres off before each step turned to the problem (15 assemblies a step on average over
    // these 3 s; now 2.3, most steps none beyond the first).
    let assemblies: usize = evaluations.iter().sum();
    assert!(
        assemblies < 4 * evaluations.len(),
        "{assemblies} assemblies in {} steps: {evaluations:?}",
        evaluations.len()
    );
    for (b, at) in boxes.iter().zip(&start) {
        let q = sys.coordinates(b.body());
        let moved = (0..3).map(|i| (q[i] - at[i]).abs()).fold(0.0, f64::max);
        assert!(moved < 1e-9, "a box moved {moved} in 3 s");
    }
    let diagnostics = sys.diagnostics().unwrap();
    let summary = sys.contact_summary(group, &diagnostics).unwrap();
    assert!(summary.max_penetration < 1e-10, "{summary:?}");
    // The floor's share (its contacts are named after the group's first member) is the
    // pyramid's weight.
    let weight = 15.0 * 25.0 * G;
    let (floor, _) = forces_on(&diagnostics, "member 0");
    assert!(
        (floor - weight).abs() < 1e-7 * weight,
        "the floor carries {floor} N of {weight}"
    );
}

/// A square box of side `w` and 100 kg/m² centred at `at`, upright.
fn square(sys: &mut System, at: [f64; 2], w: f64) -> RigidBodyId {
    sys.add_rigid_body(RigidBody::new(&at, 0.0).shape(
        Shape::Box {
            width: w,
            height: w,
        },
        100.0,
    ))
    .unwrap()
}

/// A column of `k` boxes 0.5 m and 25 kg on a floor, under `integrator`, with friction `mu`
/// everywhere (one contact group, the floor its member 0 and box `i` its member `i + 1`).
fn column(integrator: &str, k: usize, mu: f64) -> System {
    let w = 0.5;
    let mut sys = System::new(2).unwrap();
    sys.set_integrator_boxed(bead::integrate::by_name(integrator).unwrap());
    let floor = incline_body(&mut sys, 0.0, 20.0);
    let mut group = ShapeContacts::new().body(floor, mu);
    for i in 0..k {
        let at = [0.0, w / 2.0 + i as f64 * w];
        group = group.body(square(&mut sys, at, w), mu);
    }
    sys.add_shape_contacts(group).unwrap();
    sys.add_force(Gravity::new(&[0.0, -G])).unwrap();
    sys
}

/// The normal force between members `a` and `b` of a contact group, summed over the pair's
/// contact points.
fn pair_normal_force(diagnostics: &bead::Diagnostics, a: usize, b: usize) -> f64 {
    let names = [
        format!("contact: member {a}/member {b}"),
        format!("contact: member {b}/member {a}"),
    ];
    diagnostics
        .constraints
        .iter()
        .filter(|c| names.contains(&c.name))
        .map(|c| c.lambda[0])
        .sum()
}

#[test]
fn a_column_chooses_its_contacts_in_one_solve_after_its_first_step_with_the_forces_of_statics() {
    // Jonquet's algorithm 3 grows the handled set from empty one layer a solve: the column's
    // top contact learns it is pushed only once every contact below holds, k + 1 solves at the
    // first step. From the second step the set is grown from the contacts that pushed at the
    // last solve, which is complementary at once; what it holds must be what statics says,
    // the weight above each contact, as the set grown from empty gives at the first step.
    let (k, m, mu) = (12, 25.0, 0.6);
    for integrator in ["rk4", "symplectic-euler"] {
        let mut sys = column(integrator, k, mu);
        let first = sys.step(1.0 / 60.0).unwrap();
        assert!(
            first.active_set_passes > k,
            "{integrator}: the first step chose in {} solves",
            first.active_set_passes
        );
        for step in 2..=60 {
            let stats = sys.step(1.0 / 60.0).unwrap();
            assert!(
                stats.active_set_passes <= 2,
                "{integrator}: step {step} chose in {} solves",
                stats.active_set_passes
            );
        }
        let diagnostics = sys.diagnostics().unwrap();
        for level in 0..k {
            // Member `level` carries member `level + 1` and everything on it.
            let above = (k - level) as f64 * m * G;
            let normal = pair_normal_force(&diagnostics, level, level + 1);
            assert!(
                (normal - above).abs() < 1e-9 * above,
                "{integrator}: contact {level} carries {normal} N, statics {above} N"
            );
        }
    }
}

#[test]
fn a_pyramids_forces_by_the_sparse_factor_are_right_or_reported_never_silently_wrong() {
    // An 8-row pyramid at rest, its accelerations at t = 0 by the explicit path with the sparse
    // factor: its principal pivots moved held contacts to their bounds and returned without
    // solving the held ones again, and its boxes came out accelerating at 1,080 m/s² with the
    // solve reported complete (the floor carried twice the weight). Conjugate gradient finds
    // them at rest. Now the sparse factor's answer either holds or is an error.
    let (mut sys, _, _) = bead::models::box_pyramid(8, 0.6).unwrap();
    sys.set_solver(bead::solve::SparseLdlt::default());
    match sys.acceleration() {
        Ok(a) => {
            let largest = a.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
            assert!(largest < 1e-6, "the pyramid accelerates at {largest} m/s²");
        }
        Err(e) => assert!(
            e.to_string().contains("no complementary solution"),
            "an unexpected error: {e}"
        ),
    }
    sys.set_solver(bead::solve::ConjugateGradient::default());
    let a = sys.acceleration().unwrap();
    let largest = a.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
    assert!(
        largest < 1e-6,
        "at rest by conjugate gradient: {largest} m/s²"
    );
}

#[test]
fn an_implicit_runs_first_report_finds_the_pyramids_forces_where_the_sparse_factor_has_none() {
    // Before its first step an implicit run reports the forces at the acceleration level. With
    // the sparse factor a pyramid's redundant contacts have no complementary answer there (see
    // the test above), and the report read no force at all: `constraints.csv` showed the floor
    // carrying nothing at t = 0. Conjugate gradient's least-norm split finds them, and the
    // report now falls back to it.
    let (rows, w, mu) = (8, 0.5, 0.6);
    let mut sys = System::new(2).unwrap();
    sys.set_integrator(bead::integrate::ImplicitEuler::default());
    sys.set_solver(bead::solve::SparseLdlt::default());
    let floor = incline_body(&mut sys, 0.0, 20.0);
    let mut ground = ShapeContacts::new().named("floor", &[]).body(floor, mu);
    let mut stack = ShapeContacts::new();
    let mut weight = 0.0;
    for r in 0..rows {
        for k in 0..rows - r {
            let x = (k as f64 - (rows - r - 1) as f64 / 2.0) * w * 1.05;
            let b = square(&mut sys, [x, w / 2.0 + r as f64 * w], w);
            if r == 0 {
                ground = ground.body(b, mu);
            }
            stack = stack.body(b, mu);
            // 100 kg/m² over the box's face.
            weight += 100.0 * w * w * G;
        }
    }
    let ground = sys.add_shape_contacts(ground).unwrap();
    sys.add_shape_contacts(stack).unwrap();
    sys.add_force(Gravity::new(&[0.0, -G])).unwrap();
    // At t = 0, then after the first step (solved at its end).
    for when in ["at t = 0", "after a step"] {
        if when == "after a step" {
            sys.step(1.0 / 60.0).unwrap();
        }
        let diagnostics = sys.diagnostics().unwrap();
        let summary = sys.contact_summary(ground, &diagnostics).unwrap();
        assert!(
            (summary.normal_force - weight).abs() < 1e-6 * weight,
            "the floor carries {} N of {weight} N {when}",
            summary.normal_force
        );
    }
}
