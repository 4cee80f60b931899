//! Box3D's joint grid (`bead::models::joint_grid`): spheres on spherical joints hold together to
//! the Newton tolerance, at rest and swinging out of their plane, at Box3D's step of 1/60 s.

use bead::force::Gravity;
use bead::integrate::ImplicitEuler;
use bead::models::{JointGrid, joint_grid};

/// The largest distance between the two points of any joint, m.
fn largest_gap(grid: &JointGrid) -> f64 {
    grid.joints
        .iter()
        .map(|[a, b]| {
            let (a, b) = (
                grid.system.point_position(a).unwrap(),
                grid.system.point_position(b).unwrap(),
            );
            (0..3).map(|i| (a[i] - b[i]).powi(2)).sum::<f64>().sqrt()
        })
        .fold(0.0, f64::max)
}

/// The largest distance of any sphere's centre from where it started, m.
fn largest_move(grid: &JointGrid, start: &[Vec<f64>]) -> f64 {
    grid.spheres
        .iter()
        .zip(start)
        .map(|(&s, x0)| {
            let x = grid.system.coordinates(s);
            (0..3).map(|i| (x[i] - x0[i]).powi(2)).sum::<f64>().sqrt()
        })
        .fold(0.0, f64::max)
}

#[test]
fn the_grid_is_built_as_box3d_builds_it() {
    let grid = joint_grid(4).unwrap();
    assert_eq!(grid.spheres.len(), 16);
    // 3 joints down each of 4 columns, 3 across each of the 3 rows below the fixed one.
    assert_eq!(grid.joints.len(), 21);
    assert_eq!(grid.system.constraint_rows(), 63);
    // Sphere (k, i) at (k, −i, 0); every joint starts closed.
    let x = grid.system.coordinates(grid.spheres[2 * 4 + 3]);
    assert_eq!(&x[..3], &[2.0, -3.0, 0.0]);
    assert!(largest_gap(&grid) < 1e-15);
    let m = grid.system.mass(grid.spheres[1].into()).unwrap();
    assert!((m - 1000.0 * 4.0 / 3.0 * std::f64::consts::PI * 0.064).abs() < 1e-9);
    assert!(
        grid.system
            .mass(grid.spheres[0].into())
            .unwrap()
            .is_infinite()
    );
    assert!(joint_grid(1).is_err());
}

/// Hanging straight, it is in equilibrium: implicit Euler at 1/60 s keeps it there, every joint
/// closed to 1e-9 m.
#[test]
fn the_hanging_grid_stays_put_with_its_joints_closed() {
    let mut grid = joint_grid(5).unwrap();
    grid.system.set_integrator(ImplicitEuler::default());
    let start: Vec<Vec<f64>> = grid
        .spheres
        .iter()
        .map(|&s| grid.system.coordinates(s)[..3].to_vec())
        .collect();
    for _ in 0..20 {
        grid.system.step(1.0 / 60.0).unwrap();
        assert!(largest_gap(&grid) < 1e-9, "{}", largest_gap(&grid));
    }
    assert!(
        largest_move(&grid, &start) < 1e-6,
        "{}",
        largest_move(&grid, &start)
    );
}

/// Pushed out of its plane by a second, sideways gravity, the grid swings like a net hanging
/// from a rail: the spheres move by decimetres, and every joint stays closed to 1e-9 m.
#[test]
fn a_swinging_grid_keeps_every_joint_closed() {
    let mut grid = joint_grid(5).unwrap();
    grid.system
        .add_force(Gravity::new(&[0.0, 0.0, -5.0]))
        .unwrap();
    grid.system.set_integrator(ImplicitEuler::default());
    let start: Vec<Vec<f64>> = grid
        .spheres
        .iter()
        .map(|&s| grid.system.coordinates(s)[..3].to_vec())
        .collect();
    for _ in 0..30 {
        grid.system.step(1.0 / 60.0).unwrap();
        assert!(largest_gap(&grid) < 1e-9, "{}", largest_gap(&grid));
    }
    assert!(
        largest_move(&grid, &start) > 0.1,
        "{}",
        largest_move(&grid, &start)
    );
}
