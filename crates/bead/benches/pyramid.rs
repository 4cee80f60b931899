//! `pyramid`: one step of a box pyramid standing on a floor with friction μ = 0.6 at dt = 1/60 s
//! (the scene `bead bench pyramid` runs for 10 s against pymunk, Box2D and Rapier): 10 and 20
//! rows (55 and 210 boxes), under RK4 with conjugate gradient and under implicit Euler. Each
//! box stands on two below, so every contact is redundant and its friction indeterminate: the
//! steps measured are the resting ones, where the exact solve must keep every box still.

#![allow(missing_docs, clippy::unwrap_used)]

use std::time::Duration;

use bead::models::box_pyramid;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

const DT: f64 = 1.0 / 60.0;

fn bench_pyramid(c: &mut Criterion) {
    let mut group = c.benchmark_group("pyramid");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(5));
    for rows in [10, 20] {
        for (integrator, solver) in [("rk4", "cg"), ("implicit-euler", "sparse")] {
            let (mut sys, _, _) = box_pyramid(rows, 0.6).unwrap();
            sys.set_integrator_boxed(bead::integrate::by_name(integrator).unwrap());
            sys.set_solver_boxed(bead::solve::by_name(solver).unwrap());
            // The first step chooses every contact from nothing; the steps that follow are
            // the ones a standing pyramid takes.
            sys.step(DT).unwrap();
            group.bench_function(
                BenchmarkId::new(format!("{integrator}-{solver}"), rows),
                |b| {
                    b.iter(|| sys.step(DT).unwrap());
                },
            );
            let stats = sys.step(DT).unwrap();
            println!(
                "pyramid/{rows} {integrator}: {} constraint rows; a step: {} evaluations, \
                 at most {} active-set passes, at most {} solver iterations per evaluation",
                sys.constraint_rows(),
                stats.evaluations,
                stats.active_set_passes,
                stats.solver_iterations,
            );
        }
    }
    group.finish();
}

criterion_group!(benches, bench_pyramid);
criterion_main!(benches);
