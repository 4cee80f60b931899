//! `pile_run`: a pile of 500 balls (radius 2 cm, in a box 0.6 m wide) dropped and left to settle
//! for 10 s of simulated time (10,000 steps of 1 ms) with the implicit Euler stepper, whose
//! contacts land by an interior-point iteration when their active set will not settle (see
//! `docs/implicit.md`). Contact pairs come and go for the whole run; what they cost must not
//! grow with it.
//!
//! Printed, one line per simulated second: the mean time of a step over that second, the Newton
//! assemblies a step, the heap in use at its end (counted by this benchmark's allocator), the
//! constraint slots and rows. Then criterion times single steps early in the run and at its
//! end. (The explicit integrators do not carry piles of this size to their end: see
//! `docs/tutorial-contact.md`.)

#![allow(missing_docs, clippy::unwrap_used)]

use std::time::{Duration, Instant};

use bead::integrate::ImplicitEuler;
use bead::models::ball_pile;
use cap::Cap;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

/// The system allocator, counting the bytes in use.
#[global_allocator]
static ALLOCATOR: Cap<std::alloc::System> = Cap::new(std::alloc::System, usize::MAX);

const N: usize = 500;
const DT: f64 = 1e-3;

fn pile() -> bead::System {
    let (mut sys, _) = ball_pile(N, 0.02, 0.6).unwrap();
    sys.set_integrator(ImplicitEuler::default());
    sys
}

fn bench_pile_run(c: &mut Criterion) {
    let mut group = c.benchmark_group("pile_run");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(5));
    let name = "implicit-euler";
    {
        let mut sys = pile();
        println!("pile_run/{name}: {N} balls, 10 s in steps of {DT} s");
        println!("   t (s)   ms/step   assemblies/step   heap (MiB)   slots   rows");
        let per_second = (1.0 / DT).round() as usize;
        for second in 1..=10 {
            let start = Instant::now();
            let mut assemblies = 0;
            for k in 1..=per_second {
                match sys.step_to(((second - 1) * per_second + k) as f64 * DT) {
                    Ok(stats) => assemblies += stats.evaluations,
                    Err(e) => panic!("pile_run/{name}: {e}"),
                }
            }
            let ms = start.elapsed().as_secs_f64() * 1e3 / per_second as f64;
            println!(
                "   {second:5}   {ms:7.3}   {:15.1}   {:10.2}   {:5}   {:4}",
                assemblies as f64 / per_second as f64,
                ALLOCATOR.allocated() as f64 / (1024.0 * 1024.0),
                sys.constraint_slots(),
                sys.constraint_rows()
            );
        }
        group.bench_function(BenchmarkId::new(name, "after 10 s"), |b| {
            b.iter(|| sys.step(DT).unwrap());
        });
        let mut early = pile();
        for _ in 0..400 {
            early.step(DT).unwrap();
        }
        group.bench_function(BenchmarkId::new(name, "landing, after 0.4 s"), |b| {
            b.iter(|| early.step(DT).unwrap());
        });
    }
    group.finish();
}

criterion_group!(benches, bench_pile_run);
criterion_main!(benches);
