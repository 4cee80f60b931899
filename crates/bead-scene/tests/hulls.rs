//! Convex hulls from scene files (issue 33): a cube given as a hull moves as the box does, the
//! 3D Roman arch of hulls stands with friction and falls without, and a bad hull is an error
//! that names the body, the field and the point.

#![allow(clippy::unwrap_used)]
// SceneError is returned by value once per failed load, as in the library.
#![allow(clippy::result_large_err)]

use std::path::Path;

mod common;

use bead_scene::Model;
use common::{error, model};

/// A 0.2 m cube of `shape`, dropped tilted and spinning onto a frictionless floor.
fn dropped(shape: &str) -> String {
    format!(
        "format = 1\n[simulation]\ndimension = 3\ndt = 0.002\nduration = 0.6\n\
         integrator = \"implicit-euler\"\n\
         [[forces]]\nkind = \"gravity\"\ng = [0, 0, -9.81]\n\
         [[bodies]]\nname = \"floor\"\nposition = [0, 0, -0.5]\nmass = \"infinity\"\n\
         inertia = \"infinity\"\nshape = {{ kind = \"box\", size = [4, 4, 1] }}\n\
         [[bodies]]\nname = \"cube\"\nposition = [0, 0, 0.25]\n\
         orientation = [0.95, 0.2, 0.15, 0.1]\nangular_velocity = [1.0, -2.0, 3.0]\n\
         shape = {shape}\ndensity = 500\n\
         [[contacts]]\nname = \"ground\"\nbodies = \"all\"\n"
    )
}

const CUBE_HULL: &str = "{ kind = \"convex-hull\", points = [\
    [-0.1, -0.1, -0.1], [0.1, -0.1, -0.1], [-0.1, 0.1, -0.1], [0.1, 0.1, -0.1], \
    [-0.1, -0.1, 0.1], [0.1, -0.1, 0.1], [-0.1, 0.1, 0.1], [0.1, 0.1, 0.1]] }";

/// The same cube built two ways, as a box and as the hull of its corners, tumbles onto the
/// floor and comes to rest the same: its own numbering of faces and corners changes nothing
/// but rounding.
#[test]
fn a_cube_given_as_a_hull_tumbles_as_the_box_does() {
    let mut boxed = model(&dropped("{ kind = \"box\", size = [0.2, 0.2, 0.2] }"));
    let mut hull = model(&dropped(CUBE_HULL));
    let body = |m: &Model| m.bodies_3d.iter().find(|(n, _)| n == "cube").unwrap().1;
    let (a, b) = (body(&boxed), body(&hull));
    let (ma, mb) = (
        boxed.system.mass(a.body()).unwrap(),
        hull.system.mass(b.body()).unwrap(),
    );
    assert!((ma - mb).abs() < 1e-12 * ma);
    let mut worst = 0.0_f64;
    for k in 1..=300 {
        let t = k as f64 * 0.002;
        boxed.system.step_to(t).unwrap();
        hull.system.step_to(t).unwrap();
        let (p, q) = (
            boxed.system.coordinates(a.body()),
            hull.system.coordinates(b.body()),
        );
        let (r, s) = (boxed.system.orientation(a), hull.system.orientation(b));
        for i in 0..3 {
            worst = worst.max((p[i] - q[i]).abs());
        }
        let sign = if (0..4).map(|i| r[i] * s[i]).sum::<f64>() < 0.0 {
            -1.0
        } else {
            1.0
        };
        for i in 0..4 {
            worst = worst.max((r[i] - sign * s[i]).abs());
        }
    }
    // It lands on a corner, then an edge, then a face: every kind of contact takes part.
    let z = boxed.system.coordinates(a.body())[2];
    assert!((z - 0.1).abs() < 1e-9, "the cube rests at {z}");
    assert!(worst < 1e-9, "the hull and the box part by {worst}");
}

/// The 3D arch of nine hulls stands on its joints' friction: it moves by nanometres (each
/// step within Newton's tolerance), where MuJoCo's own arch model notes that its keystone
/// creeps down about a centimetre in five minutes. Without friction its joints slide and its
/// crown falls.
#[test]
fn the_3d_arch_stands_with_friction_and_falls_without() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes/arch_3d.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let places = |m: &Model| -> Vec<f64> {
        m.bodies_3d
            .iter()
            .flat_map(|(_, id)| m.system.coordinates(id.body())[..3].to_vec())
            .collect()
    };
    let farthest = |a: &[f64], b: &[f64]| {
        a.iter()
            .zip(b)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0_f64, f64::max)
    };
    // On the run's grid of step times, as `bead run` steps.
    let run_to = |m: &mut Model, t: f64| {
        let now = m.system.time();
        for time in bead::step_times(t, m.run.dt).filter(|&time| time > now) {
            m.system.step_to(time).unwrap();
        }
    };
    let mut arch = model(&text);
    let start = places(&arch);
    run_to(&mut arch, 1.5);
    let settled = places(&arch);
    run_to(&mut arch, 2.0);
    // Measured: 2.1e-9 m by 1.5 s, then 4.6e-12 m in the next half second, as `bead run`.
    // Each step holds the sticking joints to Newton's tolerance (1e-10 m), not to zero, so the
    // path depends on rounding: stepped at times k·dt multiplied out in floating point, steps
    // that differ from these by 1e-18 s, the arch settled by 1.7e-9 m and then moved 8.5e-10 m
    // in that half second, about 2 nm/s.
    let settle = farthest(&start, &settled);
    assert!(settle < 5e-9, "the arch settled {settle} m");
    let creep = farthest(&settled, &places(&arch));
    assert!(creep < 5e-9, "the arch crept {creep} m in 0.5 s");
    let frictionless = text.replace("friction = 0.6", "friction = 0.0");
    assert_ne!(frictionless, text);
    let mut fallen = model(&frictionless);
    run_to(&mut fallen, 0.5);
    let crown = fallen
        .bodies_3d
        .iter()
        .find(|(n, _)| n == "stone4")
        .unwrap()
        .1;
    let z = fallen.system.coordinates(crown.body())[2];
    assert!(z < 0.8, "the crown is still at {z} m");
}

/// A hull with a point inside, off its centroid, flat, or in a 2D scene is refused at its
/// shape, with the reason.
#[test]
fn bad_hulls_name_the_body_and_the_point() {
    let with = |shape: &str| dropped(shape);
    let dented = CUBE_HULL.replace("]] }", "], [0.0, 0.0, 0.05]] }");
    let e = error(&with(&dented)).to_string();
    assert!(
        e.contains("bodies[1].shape") && e.contains("hull point 8") && e.contains("not a corner"),
        "{e}"
    );
    let moved = CUBE_HULL.replace("-0.1, -0.1, -0.1]", "-0.3, -0.1, -0.1]");
    let e = error(&with(&moved)).to_string();
    assert!(
        e.contains("bodies[1].shape") && e.contains("centroid"),
        "{e}"
    );
    let flat = "{ kind = \"convex-hull\", points = [[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]] }";
    let e = error(&with(flat)).to_string();
    assert!(e.contains("one plane"), "{e}");
    let planar = "format = 1\n[simulation]\ndimension = 2\ndt = 0.01\nduration = 1\n\
         [[bodies]]\nname = \"b\"\nposition = [0, 0]\ndensity = 1\n\
         shape = { kind = \"convex-hull\", points = [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]] }\n";
    let e = error(planar).to_string();
    assert!(
        e.contains("bodies[0].shape") && e.contains("3D shapes"),
        "{e}"
    );
}
