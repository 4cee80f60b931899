//! `chain`: one RK4 step of a swinging chain of n links, n = 10 … 10 000, with the matrix-free
//! conjugate gradient, the sparse LDLᵀ and (up to n = 1000) the dense solver.
//!
//! The chain is 1 m long (links of 1/n m, particles of 1/n kg), released 45° below horizontal and
//! stepped continuously, so CG's warm start sees realistic changes of λ. dt = 1e-5 s keeps RK4
//! stable for the stiffest chain (its fastest mode grows like n: its rods' tension over their length is a geometric stiffness).

#![allow(missing_docs, clippy::unwrap_used)]

use std::time::Duration;

use bead::models::chain;
use bead::solve::{ConjugateGradient, Dense, LinearSolver, SparseLdlt};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

const DT: f64 = 1e-5;

fn swinging_chain(n: usize, solver: Box<dyn LinearSolver>) -> bead::System {
    let mut c = chain(
        n,
        1.0 / n as f64,
        1.0 / n as f64,
        -std::f64::consts::FRAC_PI_4,
    )
    .unwrap();
    c.system.set_solver_boxed(solver);
    for _ in 0..10 {
        c.system.step(DT).unwrap();
    }
    c.system
}

fn bench_chain(c: &mut Criterion) {
    let mut group = c.benchmark_group("chain");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for n in [10, 100, 1000, 10_000] {
        let mut sys = swinging_chain(n, Box::new(ConjugateGradient::default()));
        group.bench_function(BenchmarkId::new("rk4-cg", n), |b| {
            b.iter(|| sys.step(DT).unwrap());
        });
        let stats = sys.step(DT).unwrap();
        println!(
            "chain/rk4-cg/{n}: CG iterations per solve (last step, max of 4 stages): {}",
            stats.solver_iterations
        );
    }
    for n in [10, 100, 1000, 10_000] {
        let mut sys = swinging_chain(n, Box::new(SparseLdlt::default()));
        group.bench_function(BenchmarkId::new("rk4-sparse", n), |b| {
            b.iter(|| sys.step(DT).unwrap());
        });
    }
    for n in [10, 100, 1000] {
        let mut sys = swinging_chain(n, Box::new(Dense::default()));
        group.bench_function(BenchmarkId::new("rk4-dense", n), |b| {
            b.iter(|| sys.step(DT).unwrap());
        });
    }
    group.finish();
}

criterion_group!(benches, bench_chain);
criterion_main!(benches);
