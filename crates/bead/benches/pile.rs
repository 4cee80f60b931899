//! `pile`: one step of a pile of balls settling in a box (seed 004's machinery at scale):
//! 200 and 2000 balls of radius 2 cm, half-planes for the box, a contact group with the
//! sort-and-sweep broad phase, Jonquet's algorithm, impacts with rewind. The pile is stepped
//! continuously from its release, so the measured steps include impacts and resting contact.

#![allow(missing_docs, clippy::unwrap_used)]

use std::time::Duration;

use bead::models::ball_pile;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

const DT: f64 = 2e-3;

fn bench_pile(c: &mut Criterion) {
    let mut group = c.benchmark_group("pile");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(5));
    for (n, width) in [(200, 0.6), (2000, 2.0)] {
        let (mut sys, _) = ball_pile(n, 0.02, width).unwrap();
        // Let the balls land first: the interesting steps are the crowded ones.
        for _ in 0..100 {
            sys.step(DT).unwrap();
        }
        group.bench_function(BenchmarkId::new("rk4-cg-jonquet", n), |b| {
            b.iter(|| sys.step(DT).unwrap());
        });
        let stats = sys.step(DT).unwrap();
        // Statistics over 20 further steps: impacts make single steps very different.
        let (mut evaluations, mut passes, mut iterations) = (0, 0, 0);
        let mut stats = stats;
        for _ in 0..20 {
            evaluations += stats.evaluations;
            passes = passes.max(stats.active_set_passes);
            iterations = iterations.max(stats.solver_iterations);
            stats = sys.step(DT).unwrap();
        }
        println!(
            "pile/{n}: {} constraint rows; over 20 steps: {:.1} evaluations per step (impact bisections included), \
             at most {passes} active-set passes per evaluation, at most {iterations} CG iterations per evaluation",
            sys.constraint_rows(),
            evaluations as f64 / 20.0,
        );
    }
    group.finish();
}

criterion_group!(benches, bench_pile);
criterion_main!(benches);
