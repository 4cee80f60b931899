//! Inequality constraints (seed 004): the paper's corner examples with each algorithm, a case
//! where the "right algorithm" alone would keep a pulling constraint, resting contact, ropes and
//! joint limits.

use bead::constraint::{AngleLimit, HalfPlane, Linear, Nail, NonPenetration};
use bead::force::{ConstantForce, Gravity, Spring};
use bead::models::G;
use bead::solve::Dense;
use bead::{InequalityMethod, Motion, Particle, Point, RigidBody, Settings, Shape, System};

/// Fig. 1: a particle of mass m at the corner of g₁ = x − y ≥ 0 and g₂ = y ≥ 0, pushed by f.
fn corner(
    method: InequalityMethod,
    m: f64,
    f: [f64; 2],
) -> (System, bead::ParticleId, [bead::ConstraintId; 2]) {
    let mut sys = System::new(2).unwrap();
    let p = sys
        .add_particle(Particle::new(&[0.0, 0.0]).mass(m))
        .unwrap();
    sys.add_force(ConstantForce::new(p, &f)).unwrap();
    let g1 = sys
        .add_constraint(Linear::new(p, &[1.0, -1.0], 0.0))
        .unwrap();
    let g2 = sys
        .add_constraint(Linear::new(p, &[0.0, 1.0], 0.0))
        .unwrap();
    sys.set_settings(Settings {
        inequality: method,
        ..Settings::default()
    })
    .unwrap();
    (sys, p, [g1, g2])
}

/// Smallest g₁ and g₂ over a run of `steps` steps of 1 ms.
fn worst_violation(sys: &mut System, p: bead::ParticleId, steps: usize) -> (f64, f64) {
    let (mut g1, mut g2) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..steps {
        sys.step(1e-3).unwrap();
        let x = sys.position(p);
        g1 = g1.min(x[0] - x[1]);
        g2 = g2.min(x[1]);
    }
    (g1, g2)
}

/// Platt's algorithm holds the particle at first (λ = (−2, −1), eq. 11), then releases both
/// constraints and lets it fall into y < 0, for m = 2 and m = 3 (figs. 4-5). Jonquet's keeps y
/// within 1e-8 and slides the particle along x with ẍ = 2/m.
#[test]
fn corner_example_platt_fails_jonquet_holds() {
    for m in [2.0, 3.0] {
        let (mut platt, p, [g1, g2]) = corner(InequalityMethod::Platt, m, [2.0, -1.0]);
        let d = platt.diagnostics().unwrap();
        assert_eq!(d.constraint(g1).unwrap().lambda[0], -2.0);
        assert_eq!(d.constraint(g2).unwrap().lambda[0], -1.0);
        platt.step(1e-3).unwrap();
        assert_eq!(platt.position(p), &[0.0, 0.0], "held during the first step");
        let (_, y_platt) = worst_violation(&mut platt, p, 1000);
        assert!(
            y_platt < -1e-7,
            "m = {m}: Platt should let y < 0, min y = {y_platt:e}"
        );

        let (mut ours, p, [_, g2]) = corner(InequalityMethod::Jonquet, m, [2.0, -1.0]);
        let lambda2 = ours.diagnostics().unwrap().constraint(g2).unwrap().lambda[0];
        assert!(
            (lambda2 - 1.0).abs() < 1e-12,
            "eq. 13: λ₂ = 1, got {lambda2}"
        );
        let (_, y_ours) = worst_violation(&mut ours, p, 1001);
        assert!(y_ours >= -1e-8, "m = {m}: min y = {y_ours:e}");
        let x = ours.position(p)[0];
        let t = ours.time();
        assert!(
            (x - t * t / m).abs() < 1e-9,
            "x = {x}, expected {}",
            t * t / m
        );
        println!("m = {m}: min y with Platt {y_platt:.3e}, with Jonquet {y_ours:.3e}");
    }
}

/// The second example, f = (−1, −2): the improved algorithm handles only g₂ and slides the
/// particle through g₁; the right algorithm adds g₁ and holds it in the corner.
#[test]
fn second_example_improved_fails_jonquet_holds() {
    let (mut improved, p, _) = corner(InequalityMethod::Improved, 1.0, [-1.0, -2.0]);
    let (g1, _) = worst_violation(&mut improved, p, 200);
    assert!(
        g1 < -1e-7,
        "the improved algorithm should violate g₁: min g₁ = {g1:e}"
    );

    for method in [InequalityMethod::Jonquet, InequalityMethod::Lcp] {
        let (mut sys, p, [c1, c2]) = corner(method, 1.0, [-1.0, -2.0]);
        let d = sys.diagnostics().unwrap();
        // Both handled: f + J₁ᵀλ₁ + J₂ᵀλ₂ = 0 gives λ = (1, 3).
        assert!((d.constraint(c1).unwrap().lambda[0] - 1.0).abs() < 1e-12);
        assert!((d.constraint(c2).unwrap().lambda[0] - 3.0).abs() < 1e-12);
        let (g1, g2) = worst_violation(&mut sys, p, 200);
        assert!(g1 >= -1e-9 && g2 >= -1e-9, "{method:?}: {g1:e} {g2:e}");
    }
}

/// Where the right algorithm alone would keep a constraint that pulls: a floor g₂ = y ≥ 0 and a
/// steep wall g₁ = x + 0.2 y ≥ 0, pushed by f = (−1, −0.1). Both rows show a violation tendency
/// at first, so Alg. 3 handles both, and holding both as equalities gives the floor
/// λ₂ = −0.1: it would hold the particle down. bead's `jonquet` finishes Alg. 3 with Alg. 1's
/// rule (a row stays handled while its λ pushes): it drops the floor (λ₂ = 0) as the exact
/// complementarity solve does, and the particle rides up the wall.
#[test]
fn jonquet_drops_a_pulling_contact_as_the_lcp_does() {
    let build = |method| {
        let mut sys = System::new(2).unwrap();
        let p = sys.add_particle(Particle::new(&[0.0, 0.0])).unwrap();
        sys.add_force(ConstantForce::new(p, &[-1.0, -0.1])).unwrap();
        let wall = sys
            .add_constraint(Linear::new(p, &[1.0, 0.2], 0.0))
            .unwrap();
        let floor = sys
            .add_constraint(Linear::new(p, &[0.0, 1.0], 0.0))
            .unwrap();
        sys.set_settings(Settings {
            inequality: method,
            ..Settings::default()
        })
        .unwrap();
        (sys, p, wall, floor)
    };
    for method in [InequalityMethod::Jonquet, InequalityMethod::Lcp] {
        let (mut sys, p, wall, floor) = build(method);
        let d = sys.diagnostics().unwrap();
        let (lw, lf) = (
            d.constraint(wall).unwrap().lambda[0],
            d.constraint(floor).unwrap().lambda[0],
        );
        // The wall alone: (1, 0.2)·(f + (1, 0.2) λ₁) = 0 gives λ₁ = 1.02 / 1.04.
        assert_eq!(lf, 0.0, "{method:?}");
        assert!(
            (lw - 1.02 / 1.04).abs() < 1e-12,
            "{method:?}: wall λ = {lw}"
        );
        assert_eq!(d.constraint(floor).unwrap().active, Some(vec![false]));
        for _ in 0..500 {
            sys.step(1e-3).unwrap();
        }
        let x = sys.position(p);
        assert!(x[1] > 1e-3, "{method:?}: it leaves the floor: y = {}", x[1]);
        assert!(x[0] + 0.2 * x[1] >= -1e-9, "and stays on the wall's side");
    }
}

/// A particle resting on a floor: λ = m g, and its height stays within 1e-9 (no jitter).
#[test]
fn resting_contact_holds_the_weight_without_jitter() {
    for method in [
        InequalityMethod::Jonquet,
        InequalityMethod::Lcp,
        InequalityMethod::Improved,
    ] {
        let (m, r) = (0.7, 0.05);
        let mut sys = System::new(2).unwrap();
        let p = sys
            .add_particle(
                Particle::new(&[0.3, r])
                    .mass(m)
                    .radius(r)
                    .velocity(&[0.5, 0.0]),
            )
            .unwrap();
        sys.add_force(Gravity::new(&[0.0, -G])).unwrap();
        let floor = sys
            .add_constraint(HalfPlane::new(
                p,
                Motion::fixed(&[0.0, 0.0]),
                &[0.0, 1.0],
                r,
            ))
            .unwrap();
        sys.set_settings(Settings {
            inequality: method,
            ..Settings::default()
        })
        .unwrap();
        let mut worst: f64 = 0.0;
        for _ in 0..2000 {
            sys.step(1e-3).unwrap();
            worst = worst.max((sys.position(p)[1] - r).abs());
        }
        let lambda = sys.diagnostics().unwrap().constraint(floor).unwrap().lambda[0];
        assert!((lambda - m * G).abs() < 1e-9, "{method:?}: λ = {lambda}");
        assert!(worst < 1e-9, "{method:?}: height error {worst:e}");
        assert!((sys.position(p)[0] - 1.3).abs() < 1e-9, "slides freely");
    }
}

/// A rope holds a hanging weight when taut (λ = m g) and does nothing when slack.
#[test]
fn rope_pulls_only_when_taut() {
    let mut sys = System::new(2).unwrap();
    let hook = sys.add_particle(Particle::anchor(&[0.0, 0.0])).unwrap();
    let w = sys
        .add_particle(Particle::new(&[0.0, -1.0]).mass(2.0))
        .unwrap();
    sys.add_force(Gravity::new(&[0.0, -G])).unwrap();
    let rope = sys
        .add_constraint(NonPenetration::rope(hook, w, 1.0))
        .unwrap();
    let d = sys.diagnostics().unwrap();
    assert!((d.constraint(rope).unwrap().lambda[0] - 2.0 * G).abs() < 1e-9);
    // Thrown upward: slack, free flight.
    sys.set_velocity(w, &[0.0, 2.0]).unwrap();
    sys.step(1e-3).unwrap();
    let d = sys.diagnostics().unwrap();
    assert_eq!(d.constraint(rope).unwrap().lambda[0], 0.0);
    for _ in 0..99 {
        sys.step(1e-3).unwrap();
    }
    let y = sys.position(w)[1];
    assert!(
        (y - (-1.0 + 2.0 * 0.1 - 0.5 * G * 0.01)).abs() < 1e-9,
        "{y}"
    );
}

/// A rod pivoted at one end rests against a joint limit: the limit's λ is the gravity torque
/// m g (L/2) cos θ, and the angle stays at the limit.
#[test]
fn joint_limit_holds_an_arm() {
    let (length, min) = (0.8_f64, -0.4_f64);
    let mut sys = System::new(2).unwrap();
    let center = [0.5 * length * min.cos(), 0.5 * length * min.sin()];
    let arm = sys
        .add_rigid_body(RigidBody::new(&center, min).shape(Shape::Rod { length }, 2.0))
        .unwrap();
    sys.add_force(Gravity::new(&[0.0, -G])).unwrap();
    sys.add_constraint(Nail::new(
        Point::on_body(arm, [-0.5 * length, 0.0]),
        &[0.0, 0.0],
    ))
    .unwrap();
    let limit = sys
        .add_constraint(AngleLimit::to_world(arm, min, 0.4))
        .unwrap();
    for _ in 0..500 {
        sys.step(1e-3).unwrap();
    }
    let theta = sys.coordinates(arm)[2];
    assert!((theta - min).abs() < 1e-9, "θ = {theta}");
    let d = sys.diagnostics().unwrap();
    let report = d.constraint(limit).unwrap();
    let m = 2.0 * length;
    let expected = m * G * 0.5 * length * min.cos();
    assert!(
        (report.lambda[0] - expected).abs() < 1e-9,
        "{:?} vs {expected}",
        report.lambda
    );
    assert_eq!(report.lambda[1], 0.0);
    assert_eq!(report.active, Some(vec![true, false]));
}

/// Seed 004 chooses `F⁺` at the start of each step; so does bead, for every method, and keeps it
/// through the step's stages, so RK4 integrates a smooth right-hand side between events and keeps
/// its fourth order. The corner of fig. 1 with f = (2, −1) and a spring of 1 N/m to (3, −2): the
/// particle slides along the floor (g₂ held, g₁ opening) with ẍ = 5 − x, so x = 5 (1 − cos t).
#[test]
fn rk4_keeps_fourth_order_sliding_in_the_corner() {
    for method in [
        InequalityMethod::Jonquet,
        InequalityMethod::Lcp,
        InequalityMethod::Improved,
    ] {
        let error = |h: f64| {
            let (mut sys, p, [_, g2]) = corner(method, 1.0, [2.0, -1.0]);
            let anchor = sys.add_particle(Particle::anchor(&[3.0, -2.0])).unwrap();
            sys.add_force(Spring::new(p, anchor, 1.0, 0.0, 0.0))
                .unwrap();
            sys.set_solver(Dense::default());
            let steps = (1.0 / h).round() as usize;
            for _ in 0..steps {
                sys.step(h).unwrap();
                assert!(
                    sys.position(p)[1].abs() < 1e-12,
                    "{method:?}: left the floor"
                );
            }
            let lambda = sys.diagnostics().unwrap().constraint(g2).unwrap().lambda[0];
            assert!((lambda - 3.0).abs() < 1e-9, "{method:?}: λ₂ = {lambda}");
            (sys.position(p)[0] - 5.0 * (1.0 - 1f64.cos())).abs()
        };
        let (e1, e2, e3) = (error(0.1), error(0.05), error(0.025));
        let order = ((e1 / e2).log2() + (e2 / e3).log2()) / 2.0;
        println!("{method:?}: errors {e1:.3e} {e2:.3e} {e3:.3e}, order {order:.2}");
        assert!(
            (order - 4.0).abs() < 0.2,
            "{method:?}: observed order {order}"
        );
    }
}

/// Every held inequality row of `d` has λ ≥ `floor` (a small negative allowance for rounding).
fn assert_held_contacts_push(d: &bead::Diagnostics, floor: f64, what: &str) {
    for c in &d.constraints {
        for (r, held) in c.active.iter().flatten().enumerate() {
            assert!(
                !held || c.lambda[r] >= floor,
                "{what}, t = {}: {} pulls, λ = {}",
                d.time,
                c.name,
                c.lambda[r]
            );
        }
    }
}

/// Asserts that no inequality row's λ is below `floor`, held or not (the implicit stepper keeps
/// no active set for the diagnostics to report: every contact's multiplier is checked).
fn assert_no_contact_pulls(d: &bead::Diagnostics, floor: f64, what: &str) {
    for c in d.constraints.iter().filter(|c| c.active.is_some()) {
        for l in &c.lambda {
            assert!(
                *l >= floor,
                "{what}, t = {}: {} pulls, λ = {l}",
                d.time,
                c.name
            );
        }
    }
}

/// Asserts that no constraint row is below `−depth` (no ball sinks into another or a wall) but
/// by the compliance the implicit steppers' interior-point iteration gives a contact: 1e-8 of
/// the displacement its force makes in a step, `1e-8 λ (J W Jᵀ)_rr h²`, here bounded with
/// `(J W Jᵀ)_rr ≤ 2/m` for balls of mass `m`. (A row of balls that fits its box exactly can
/// hold any compression; where the normals turn within a step, as the pile lands, it holds
/// 150 N for a few steps, 1.2e-9 m of compliance.)
fn assert_nothing_sinks(d: &bead::Diagnostics, depth: f64, (h, mass): (f64, f64)) {
    for c in &d.constraints {
        for (g, lambda) in c.c.iter().zip(&c.lambda) {
            let compliance = 1e-8 * lambda.max(0.0) * (2.0 / mass) * h * h;
            assert!(
                *g >= -depth - compliance,
                "t = {}: {} sinks {g} m into another, λ = {lambda}",
                d.time,
                c.name
            );
        }
    }
}

/// A dozen balls dropped into a narrow box settle into a pile whose contacts only push, with
/// impacts located or speculative: at every step every held contact's λ ≥ 0 (to rounding), and
/// the total energy never grows by more than the feedback can give by lifting every ball out of
/// the deepest penetration a step allows, `½ g h²`. Coupled contacts are where seed 004's Alg. 3
/// alone lets a contact pull: before it was finished with Alg. 1's sign rule, this pile held
/// contacts at −0.45 N (located, contact tolerance 1e-3) and at −1440 N (speculative, default
/// tolerance), balls of 10 g.
#[test]
fn a_settling_pile_s_contacts_only_push() {
    use bead::contact::Impacts;
    let (n, mass, h) = (12, 0.01, 2e-3);
    let gain = n as f64 * mass * G * (0.5 * G * h * h);
    for impacts in [Impacts::Located, Impacts::Speculative] {
        let (mut sys, _) = bead::models::ball_pile(n, 0.02, 0.15).unwrap();
        sys.set_solver(bead::solve::SparseLdlt::default());
        // Speculative contacts sink by up to ½ g h² (20 µm) within a step: a tolerance above
        // that keeps them in the acceleration-level solve while they rest (docs: tutorial-contact).
        let contact_tolerance = match impacts {
            Impacts::Speculative => 1e-4,
            _ => sys.settings().contact_tolerance,
        };
        let settings = Settings {
            impacts,
            contact_tolerance,
            ..*sys.settings()
        };
        sys.set_settings(settings).unwrap();
        let mut energy = sys.diagnostics().unwrap().total_energy();
        for k in 1..=2500 {
            sys.step_to(k as f64 * h).unwrap();
            let d = sys.diagnostics().unwrap();
            let lambdas = || d.constraints.iter().flat_map(|c| c.lambda.iter());
            let scale = 1.0 + lambdas().fold(0.0_f64, |m, l| m.max(l.abs()));
            assert_held_contacts_push(&d, -1e-9 * scale, &format!("{impacts:?}"));
            let e = d.total_energy();
            assert!(
                e - energy <= gain,
                "{impacts:?}, t = {}: energy grew by {} J in a step",
                d.time,
                e - energy
            );
            energy = e;
        }
        let ke = sys.diagnostics().unwrap().kinetic_energy;
        assert!(
            ke < 1e-12,
            "{impacts:?}: settled, yet kinetic energy {ke} J"
        );
    }
}

/// The same pile under the implicit stepper, whose Newton iteration keeps contacts
/// complementary by an active set: every held contact's λ ≥ 0 to what the Newton tolerance
/// allows (1e-10 m of displacement, 2.5e-7 N on a 10 g ball at h = 2 ms), the energy never grows
/// by more than rounding, and the pile comes to rest. A held row's Newton step could carry its
/// multiplier below zero and the iteration stopped there: this pile held a contact at −1.2e-3 N,
/// and 20 balls in a 0.3 m box at −3.8e-2 N; 40 balls gained kinetic energy exponentially once
/// at rest (1e-14 J to 1e-4 J in 0.8 s).
#[test]
fn the_implicit_stepper_s_contacts_only_push() {
    let h = 2e-3;
    let (mut sys, _) = bead::models::ball_pile(12, 0.02, 0.15).unwrap();
    sys.set_integrator(bead::integrate::ImplicitEuler::default());
    let mut energy = sys.diagnostics().unwrap().total_energy();
    for k in 1..=2500 {
        sys.step_to(k as f64 * h).unwrap();
        let d = sys.diagnostics().unwrap();
        assert_held_contacts_push(&d, -1e-6, "implicit Euler");
        let e = d.total_energy();
        assert!(
            e - energy <= 1e-9,
            "t = {}: energy grew by {} J in a step",
            d.time,
            e - energy
        );
        energy = e;
    }
    let ke = sys.diagnostics().unwrap().kinetic_energy;
    assert!(ke < 1e-12, "settled, yet kinetic energy {ke} J");
}

/// Forty balls, where the implicit stepper's active set cycled: its Newton iteration changed
/// every contact whose trial multiplier said so, and the packed, redundant contacts of a pile
/// flipped back and forth until the 200 iterations ran out (t = 0.39 s). A step whose contacts
/// still change their roles after 8 iterations now goes over to an interior-point iteration,
/// which has no active set to choose (the 15 balls of its bottom row fit the box exactly, so
/// their contacts and the walls can hold any horizontal compression: the contacts' tiny
/// compliance there keeps it at none). The pile
/// runs 5 s, its contacts only push, no ball sinks into another, and it comes to rest having
/// lost energy. (Settled, a ball may tip off a balance point and the pile slide a little:
/// implicit Euler slightly overstates such unstable motions, so the energy is not checked step
/// by step here.)
#[test]
fn the_implicit_stepper_settles_a_forty_ball_pile() {
    let h = 2e-3;
    let (mut sys, _) = bead::models::ball_pile(40, 0.02, 0.6).unwrap();
    sys.set_integrator(bead::integrate::ImplicitEuler::default());
    let start = sys.diagnostics().unwrap().total_energy();
    for k in 1..=2500 {
        sys.step_to(k as f64 * h).unwrap();
        let d = sys.diagnostics().unwrap();
        assert_no_contact_pulls(&d, -1e-6, "implicit Euler, 40 balls");
        assert_nothing_sinks(&d, 1e-9, (h, 0.01));
    }
    let d = sys.diagnostics().unwrap();
    assert!(
        d.kinetic_energy < 1e-12,
        "settled, yet kinetic energy {} J",
        d.kinetic_energy
    );
    assert!(
        d.total_energy() < start,
        "{} J at rest against {start} J dropped",
        d.total_energy()
    );
}

/// Two hundred balls dropped into a box 0.6 m wide at dt = 2 ms: a landing cascade in which the
/// semismooth active-set iteration needed more than 200 Newton iterations a step and stopped at
/// t = 0.41 s. With the interior-point iteration the pile lands and comes to rest (by 3.1 s).
/// At every step the reported contact forces balance the pile's vertical momentum exactly as
/// implicit Euler moves it, `Δp_y = h (Σ F_y − N m g)` (the contacts between balls cancel, so
/// this checks the floor's forces), every contact pushes, no ball sinks into another by more
/// than the Newton tolerance, and the total energy, sampled every 0.1 s, never grows by more than
/// the positions' tolerance allows.
#[test]
fn the_implicit_stepper_lands_a_two_hundred_ball_pile() {
    let (n, mass, h) = (200, 0.01, 2e-3);
    let (mut sys, balls) = bead::models::ball_pile(n, 0.02, 0.6).unwrap();
    sys.set_integrator(bead::integrate::ImplicitEuler::default());
    let weight = n as f64 * mass * G;
    let momentum = |sys: &System| -> f64 { balls.iter().map(|b| mass * sys.velocity(*b)[1]).sum() };
    let mut p = momentum(&sys);
    let mut energy = sys.diagnostics().unwrap().total_energy();
    for k in 1..=1600 {
        sys.step_to(k as f64 * h).unwrap();
        let d = sys.diagnostics().unwrap();
        assert_no_contact_pulls(&d, -1e-6, "implicit Euler, 200 balls");
        assert_nothing_sinks(&d, 1e-9, (h, mass));
        let lift: f64 = d
            .constraints
            .iter()
            .flat_map(|c| c.forces.iter())
            .map(|(_, f)| f[1])
            .sum();
        let next = momentum(&sys);
        let gap = (next - p - h * (lift - weight)).abs();
        assert!(
            gap <= 1e-5 * h * weight,
            "t = {}: the pile's momentum changed by {} N s, its forces give {} N s",
            d.time,
            next - p,
            h * (lift - weight)
        );
        p = next;
        if k % 50 == 0 {
            let e = d.total_energy();
            // The positions hold to Newton's tolerance, which moves the pile's weight by as
            // much: an energy of `weight · tolerance` (2e-9 J) is noise, not a gain.
            let noise = weight * bead::integrate::NEWTON_TOLERANCE;
            assert!(
                e <= energy + noise,
                "t = {}: energy {e} J after {energy} J",
                d.time
            );
            energy = e;
        }
    }
    let d = sys.diagnostics().unwrap();
    assert!(
        d.kinetic_energy < 1e-9,
        "t = 3.2 s: kinetic energy {} J",
        d.kinetic_energy
    );
}
