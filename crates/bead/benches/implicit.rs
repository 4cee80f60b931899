//! `implicit`: the position-level implicit stepper on the scenes of docs/performance.md — the
//! chain swing (N links of 1 kg, 1 m in all, swinging at 1 rad/s) at N = 1,000 and 10,000, one
//! step each; the viewer's curtain-sized cloth (30 × 30), ten steps (one 60 Hz frame at
//! dt = 1/600); and a 100 × 100 cloth, one step. dt = 1e-3 s unless said.
//!
//! Each system is stepped a little before measuring, so that the Newton iteration starts from
//! the warm state it has in a run (the last step's λ, a factor to reuse).

#![allow(missing_docs, clippy::unwrap_used)]

use std::time::Duration;

use bead::integrate::ImplicitEuler;
use bead::models::cloth;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

fn chain_swing(n: usize) -> bead::System {
    let mut c = bead::models::chain_swing(n, 1.0).unwrap();
    c.system.set_integrator(ImplicitEuler::default());
    for _ in 0..20 {
        c.system.step(1e-3).unwrap();
    }
    c.system
}

fn hanging_cloth(n: usize, dt: f64) -> bead::System {
    let (mut sys, _) = cloth(n, 1.0, 1.0).unwrap();
    sys.set_integrator(ImplicitEuler::default());
    for _ in 0..20 {
        sys.step(dt).unwrap();
    }
    sys
}

fn bench_implicit(c: &mut Criterion) {
    let mut group = c.benchmark_group("implicit");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for n in [1000, 10_000] {
        let mut sys = chain_swing(n);
        group.bench_function(BenchmarkId::new("chain-swing", n), |b| {
            b.iter(|| sys.step(1e-3).unwrap());
        });
    }
    let dt = 1.0 / 600.0;
    let mut curtain = hanging_cloth(30, dt);
    group.bench_function("cloth-30x30-ten-steps", |b| {
        b.iter(|| {
            for _ in 0..10 {
                curtain.step(dt).unwrap();
            }
        });
    });
    let mut big = hanging_cloth(100, 1e-3);
    group.bench_function("cloth-100x100-step", |b| {
        b.iter(|| big.step(1e-3).unwrap());
    });
    group.finish();
}

criterion_group!(benches, bench_implicit);
criterion_main!(benches);
