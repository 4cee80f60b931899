//! Contacts under the implicit steppers at steps where bodies move a radius or more: each round
//! contact is held along the normal it had at the step's start, so two balls cannot pass
//! through each other within a step, a pile lands at dt = 1/60 s, and the result still
//! converges at the method's order as dt is halved.

use bead::constraint::NonPenetration;
use bead::contact::ShapeContacts;
use bead::force::Gravity;
use bead::integrate::{Bdf2, ImplicitEuler, Integrator};
use bead::{Particle, RigidBody, Shape, System};

const G: f64 = 9.81;

fn steppers() -> Vec<(&'static str, Box<dyn Integrator>)> {
    vec![
        ("implicit-euler", Box::new(ImplicitEuler::default())),
        ("bdf2", Box::new(Bdf2::default())),
    ]
}

/// Two balls of 0.1 m radius, 0.1 m apart, meeting head-on at 5 m/s each, in steps of 50 ms:
/// each ball would move 0.25 m in the step, to where the two lie on the other's side exactly
/// touching. They collide instead, in both contact models (a `[[contacts]]` pair and two discs
/// of a shape group): they never change sides or overlap, momentum stays zero and the kinetic
/// energy never grows.
#[test]
fn two_balls_that_would_cross_each_other_in_one_step_collide_instead() {
    for shapes in [false, true] {
        for (name, stepper) in steppers() {
            let mut sys = System::new(2).unwrap();
            let r = 0.1;
            let ball = |x: f64, v: f64| Particle::new(&[x, 0.0]).radius(r).velocity(&[v, 0.0]);
            let a = sys.add_particle(ball(-0.15, 5.0)).unwrap();
            let b = sys.add_particle(ball(0.15, -5.0)).unwrap();
            if shapes {
                sys.add_shape_contacts(ShapeContacts::new().body(a, 0.3).body(b, 0.3))
                    .unwrap();
            } else {
                sys.add_contacts(&[a, b], None).unwrap();
            }
            sys.set_integrator_boxed(stepper);
            let energy0 = 0.5 * 2.0 * 25.0;
            for step in 0..10 {
                sys.step(0.05).unwrap();
                let (xa, xb) = (sys.position(a)[0], sys.position(b)[0]);
                let (va, vb) = (sys.velocity(a)[0], sys.velocity(b)[0]);
                let label = format!("{name}, shapes {shapes}, step {step}");
                assert!(xa < xb, "{label}: the balls changed sides: {xa} {xb}");
                assert!(
                    xb - xa >= 2.0 * r - 1e-9,
                    "{label}: overlap {}",
                    2.0 * r - (xb - xa)
                );
                assert!((va + vb).abs() < 1e-9, "{label}: momentum {}", va + vb);
                let energy = 0.5 * (va * va + vb * vb);
                assert!(energy <= energy0 + 1e-9, "{label}: energy {energy}");
            }
            // Implicit Euler's contact is inelastic: the two end at rest, touching.
            let (va, vb) = (sys.velocity(a)[0], sys.velocity(b)[0]);
            assert!(va.abs() < 1e-6 && vb.abs() < 1e-6, "{name}: {va} {vb}");
        }
    }
}

/// A ball released with speed `v₀` from the top of a fixed ball leaves it where
/// `cos θ = (2 + v₀²/(g L))/3` (`L` the sum of the radii), whatever holds the contact: a
/// `NonPenetration` with an anchor, or a disc on a fixed round body of a shape group. Under
/// implicit Euler, whose held normal turns a little each step, the angle converges at first
/// order: halving dt halves its error.
#[test]
fn a_ball_leaves_a_fixed_ball_at_the_closed_form_angle_at_first_order() {
    let (l, v0) = (1.0, 0.5);
    let exact = ((2.0 + v0 * v0 / (G * l)) / 3.0).acos();
    for shapes in [false, true] {
        let errors: Vec<f64> = [4e-3, 2e-3, 1e-3, 5e-4]
            .iter()
            .map(|&dt| (departure_angle(shapes, l, v0, dt) - exact).abs())
            .collect();
        for pair in errors.windows(2) {
            let ratio = pair[0] / pair[1];
            assert!(
                (1.6..2.5).contains(&ratio),
                "shapes {shapes}: errors {errors:?}"
            );
        }
        assert!(errors[3] < 2e-3, "shapes {shapes}: errors {errors:?}");
    }
}

/// The angle from the vertical at which the contact's force reaches zero, extrapolated from the
/// last two steps that pushed.
fn departure_angle(shapes: bool, l: f64, v0: f64, dt: f64) -> f64 {
    let mut sys = System::new(2).unwrap();
    let (big, small) = (0.8, l - 0.8);
    let ball = sys
        .add_particle(
            Particle::new(&[0.0, l])
                .radius(small)
                .mass(1.0)
                .velocity(&[v0, 0.0]),
        )
        .unwrap();
    sys.add_force(Gravity::new(&[0.0, -G])).unwrap();
    let contact = if shapes {
        let support = sys
            .add_rigid_body(
                RigidBody::new(&[0.0, 0.0], 0.0)
                    .shape(Shape::Disc { radius: big }, 1.0)
                    .fixed(),
            )
            .unwrap();
        let group = sys
            .add_shape_contacts(ShapeContacts::new().body(support, 0.0).body(ball, 0.0))
            .unwrap();
        Err(group)
    } else {
        let anchor = sys.add_particle(Particle::anchor(&[0.0, 0.0])).unwrap();
        Ok(sys
            .add_constraint(NonPenetration::new(ball, anchor, l))
            .unwrap())
    };
    sys.set_integrator(ImplicitEuler::default());
    let mut last: Vec<(f64, f64)> = Vec::new();
    loop {
        sys.step(dt).unwrap();
        let x = sys.position(ball);
        let angle = x[0].atan2(x[1]);
        let d = sys.diagnostics().unwrap();
        let lambda = match contact {
            Ok(id) => d.constraint(id).unwrap().lambda[0],
            Err(group) => sys.contact_summary(group, &d).unwrap().normal_force,
        };
        if lambda <= 0.0 {
            let [(a0, l0), (a1, l1)] = [last[last.len() - 2], last[last.len() - 1]];
            return a1 + (a1 - a0) * l1 / (l0 - l1);
        }
        last.push((angle, lambda));
        assert!(angle < 1.5, "dt {dt}: the ball never left");
    }
}

/// The energy of a pile's balls of 10 g.
fn pile_energy(sys: &System, balls: &[bead::ParticleId]) -> f64 {
    balls
        .iter()
        .map(|&b| {
            let (x, v) = (sys.position(b), sys.velocity(b));
            0.01 * (0.5 * (v[0] * v[0] + v[1] * v[1]) + G * x[1])
        })
        .sum()
}

/// The contact benchmark's pile (balls of 2 cm and 10 g in a box 0.6 m wide), 100 balls at
/// dt = 1/60 s, where the upper rows land at more than a radius a step: every step converges,
/// no contact penetrates by more than 1e-6 m at any step's end (the bound), and the
/// energy never exceeds what the pile started with.
#[test]
fn a_pile_lands_at_one_sixtieth_of_a_second() {
    let (mut sys, balls) = bead::models::ball_pile(100, 0.02, 0.6).unwrap();
    sys.set_integrator(ImplicitEuler::default());
    let energy = |sys: &System| pile_energy(sys, &balls);
    let start = energy(&sys);
    for step in 0..120 {
        sys.step(1.0 / 60.0)
            .unwrap_or_else(|e| panic!("step {step}: {e}"));
        let (error, _) = sys.constraint_error().unwrap();
        assert!(error < 1e-6, "step {step}: constraint error {error}");
        assert!(energy(&sys) <= start + 1e-9, "step {step}: energy grew");
    }
}

/// The same pile at rest, in its fourth second, is solved by the warm start: one assembly a
/// step (at most two on average allowed), every contact within its tolerance. Its exact fit in
/// the box jams its rigid rows, and its contacts keep the compliance of the interior-point
/// iteration that landed it; before, the active set cycled on the jam whenever it was tried,
/// and every resting step took the interior point's ten iterations or more. Resting means
/// resting: no ball moves by 1e-9 m over that second.
#[test]
fn a_pile_at_rest_is_solved_by_its_warm_start() {
    let (mut sys, balls) = bead::models::ball_pile(100, 0.02, 0.6).unwrap();
    sys.set_integrator(ImplicitEuler::default());
    for step in 0..180 {
        sys.step(1.0 / 60.0)
            .unwrap_or_else(|e| panic!("step {step}: {e}"));
    }
    let settled: Vec<Vec<f64>> = balls.iter().map(|&b| sys.position(b).to_vec()).collect();
    let evaluations: Vec<usize> = (0..60)
        .map(|step| {
            let stats = sys
                .step(1.0 / 60.0)
                .unwrap_or_else(|e| panic!("resting step {step}: {e}"));
            let (error, _) = sys.constraint_error().unwrap();
            assert!(
                error < 1e-6,
                "resting step {step}: constraint error {error}"
            );
            stats.evaluations
        })
        .collect();
    let assemblies: usize = evaluations.iter().sum();
    assert!(
        assemblies <= 2 * evaluations.len(),
        "{assemblies} assemblies in {} steps: {evaluations:?}",
        evaluations.len()
    );
    for (&b, at) in balls.iter().zip(&settled) {
        let x = sys.position(b);
        let moved = (x[0] - at[0]).hypot(x[1] - at[1]);
        assert!(moved < 1e-9, "a ball crept {moved} m at rest");
    }
}

/// The same pile with μ = 0.5 at every contact, 30 balls: its landing steps' contacts' problems
/// (240–290 rows) are past Lemke's size, jammed against the walls, and their sweeps circle on
/// the cones, so they take the contacts' compliance and Tresca's passes. Every step converges,
/// no contact penetrates by more than 1e-6 m, and friction never adds energy.
#[test]
fn a_frictional_pile_lands_at_one_sixtieth_of_a_second() {
    let (mut sys, balls) = bead::models::frictional_ball_pile(30, 0.02, 0.6, 0.5).unwrap();
    sys.set_integrator(ImplicitEuler::default());
    let energy = |sys: &System| pile_energy(sys, &balls);
    let mut last = energy(&sys);
    for step in 0..60 {
        sys.step(1.0 / 60.0)
            .unwrap_or_else(|e| panic!("step {step}: {e}"));
        let (error, _) = sys.constraint_error().unwrap();
        assert!(error < 1e-6, "step {step}: constraint error {error}");
        let now = energy(&sys);
        assert!(
            now <= last + 1e-9,
            "step {step}: energy grew from {last} to {now}"
        );
        last = now;
    }
}

/// A step whose Newton iteration runs out of iterations is taken again as two halves, each
/// halved again as it needs: a pendulum released at 1.2 rad from the vertical takes one step of
/// 0.1 s with only four Newton iterations allowed (whole, it needs more). The step reports its halvings,
/// and every part met the tolerance: the rod holds to 1e-12 m and the energy did not grow.
#[test]
fn a_step_that_runs_out_of_iterations_is_taken_again_in_halves() {
    let pendulum = || bead::models::chain(1, 1.0, 1.0, 1.2 - std::f64::consts::FRAC_PI_2).unwrap();
    let chain = pendulum();
    let (mut sys, anchor, bob) = (chain.system, chain.particles[0], chain.particles[1]);
    let energy = |sys: &System| {
        let (x, v) = (sys.position(bob), sys.velocity(bob));
        0.5 * (v[0] * v[0] + v[1] * v[1]) + G * x[1]
    };
    let start = energy(&sys);
    sys.set_integrator(ImplicitEuler::new(1e-12, 4));
    let stats = sys.step(0.1).unwrap();
    assert!(stats.halved >= 1, "{stats:?}");
    let (x, a) = (sys.position(bob), sys.position(anchor));
    let length = ((x[0] - a[0]).powi(2) + (x[1] - a[1]).powi(2)).sqrt();
    assert!((length - 1.0).abs() < 1e-12, "rod length {length}");
    assert!(energy(&sys) <= start, "{} > {start}", energy(&sys));
    // Allowed its iterations, the same step is taken whole.
    let mut whole = pendulum().system;
    whole.set_integrator(ImplicitEuler::new(1e-12, 50));
    assert_eq!(whole.step(0.1).unwrap().halved, 0);
}

/// Box2D's tumbler in small: 25 boxes of 0.25 m (62.5 g) land at 14 m/s, at dt = 1/60 s, on a
/// plank of 945 kg tilted 36° and turned about a hub by a motor at 25°/s. A box that lands on a
/// corner carries a torque whose stiffness outweighs its inertia over the step, and the Newton
/// iteration wanders: its fifth step ended reading its rows as conflicting ("the constraints
/// 'c1', 'contact: member 1/member 0', … conflict (least-squares relative residual 5.878e-1)")
/// and the run stopped there, as the 5 × 5 tumbler did at t = 1.517 s.
/// Halved, every part converges: the run goes on with every contact and joint within the
/// tolerance, and no box's corner is inside the plank.
#[test]
fn boxes_landing_on_a_turning_plank_are_halved_rather_than_reported_in_conflict() {
    use bead::Point;
    use bead::constraint::{Motor, Nail};
    let angle: f64 = 0.63;
    let mut sys = System::new(2).unwrap();
    sys.add_force(Gravity::new(&[0.0, -G])).unwrap();
    let plank = sys
        .add_rigid_body(RigidBody::new(&[0.0, 0.0], angle).shape(
            Shape::Box {
                width: 20.0,
                height: 1.0,
            },
            50.0,
        ))
        .unwrap();
    let hub = [-10.0 * angle.sin(), 10.0 * angle.cos()];
    sys.add_constraint(Nail::new(Point::on_body(plank, [0.0, 10.0]), &hub))
        .unwrap();
    sys.add_constraint(Motor::to_world(plank, 25f64.to_radians()).max_torque(1e8))
        .unwrap();
    let mut group = ShapeContacts::new().body(plank, 0.6);
    let mut boxes = Vec::new();
    for k in 0..25 {
        let (i, j) = ((k % 5) as f64, (k / 5) as f64);
        let x = -0.8 + 0.4 * i;
        let y = x * angle.tan() + 0.5 / angle.cos() + 0.25 + 0.4 * j;
        let body = sys
            .add_rigid_body(
                RigidBody::new(&[x, y], 0.0)
                    .shape(
                        Shape::Box {
                            width: 0.25,
                            height: 0.25,
                        },
                        1.0,
                    )
                    .velocity(&[0.0, -14.0], 0.0),
            )
            .unwrap();
        group = group.body(body, 0.6);
        boxes.push(body);
    }
    sys.add_shape_contacts(group).unwrap();
    sys.set_integrator(ImplicitEuler::default());
    let mut halved = 0;
    for step in 0..8 {
        let stats = sys
            .step(1.0 / 60.0)
            .unwrap_or_else(|e| panic!("step {step}: {e}"));
        halved += stats.halved;
        let (error, _) = sys.constraint_error().unwrap();
        assert!(error < 1e-6, "step {step}: constraint error {error}");
    }
    assert!(halved > 0, "the landing was expected to need halving");
    // No corner of any box below the plank's top face, measured from the bodies' coordinates
    // rather than the contacts' rows.
    let p = sys.coordinates(plank).to_vec();
    let normal = [-p[2].sin(), p[2].cos()];
    for b in boxes {
        let c = sys.coordinates(b.body()).to_vec();
        for (sx, sy) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
            let (lx, ly) = (0.125 * sx, 0.125 * sy);
            let corner = [
                c[0] + lx * c[2].cos() - ly * c[2].sin(),
                c[1] + lx * c[2].sin() + ly * c[2].cos(),
            ];
            let height = normal[0] * (corner[0] - p[0]) + normal[1] * (corner[1] - p[1]) - 0.5;
            assert!(height > -1e-6, "a corner {height} m into the plank");
        }
    }
}
