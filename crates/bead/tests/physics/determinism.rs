//! Determinism (after Box2D's determinism test): the same model stepped the same way gives
//! bit-identical states, run after run and on any thread, and a pinned hash of the state after a
//! fixed number of steps of a contact scene catches any change to the arithmetic.
//!
//! The engine runs on the calling thread and keeps no global state (its sparse factorizations
//! are asked for sequential execution), so a run on another thread, or beside other runs, is the
//! same run. The pinned value is for the explicit path with conjugate gradient, which is bead's
//! own code from end to end: IEEE arithmetic with no fused multiply-add, the same on every
//! x86-64 and aarch64 machine.

use std::thread;

use bead::integrate::{ImplicitEuler, Rk4};
use bead::solve::{ConjugateGradient, SparseLdlt};
use bead::{InequalityMethod, System};

/// 64-bit FNV-1a over the bits of `t`, `q` and `q̇`: a hash that does not change with the Rust
/// version (std's `DefaultHasher` may).
fn state_hash(sys: &System) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let words = std::iter::once(sys.time())
        .chain(sys.q().iter().copied())
        .chain(sys.q_dot().iter().copied());
    for word in words {
        for byte in word.to_bits().to_le_bytes() {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    hash
}

/// 40 balls tumbling into a box (contacts appear, break and reform, impacts included), RK4
/// with conjugate gradient and Jonquet's active set, 100 steps of 1 ms (the first rows land and
/// bounce).
fn explicit_pile() -> u64 {
    let (mut sys, _) = bead::models::ball_pile(40, 0.02, 0.3).expect("a valid model");
    sys.set_integrator(Rk4::default());
    sys.set_solver(ConjugateGradient::default());
    let settings = bead::Settings {
        inequality: InequalityMethod::Jonquet,
        ..*sys.settings()
    };
    sys.set_settings(settings).expect("valid settings");
    for _ in 0..100 {
        sys.step(1e-3).expect("the pile steps");
    }
    state_hash(&sys)
}

/// The same pile with implicit Euler and the sparse LDLᵀ factorization.
fn implicit_pile() -> u64 {
    let (mut sys, _) = bead::models::ball_pile(40, 0.02, 0.3).expect("a valid model");
    sys.set_integrator(ImplicitEuler::default());
    sys.set_solver(SparseLdlt::default());
    for _ in 0..80 {
        sys.step(1e-3).expect("the pile steps");
    }
    state_hash(&sys)
}

/// Runs `run` twice in a row and twice at once on two threads: all four must agree.
fn repeatable(run: fn() -> u64) -> u64 {
    let first = run();
    assert_eq!(run(), first, "a second run differs");
    let threads: Vec<_> = (0..2).map(|_| thread::spawn(run)).collect();
    for t in threads {
        assert_eq!(
            t.join().expect("the run completes"),
            first,
            "a run on a thread differs"
        );
    }
    first
}

/// The pinned hash. If a change to the engine's arithmetic (an order of summation, a formula
/// rewritten, a different default) is intended, this value changes with it: update it in the
/// same commit and say in its message why the trajectory changed. If it changes on another
/// machine with no change to the code, that machine's floating point differs (fused
/// multiply-add contraction, or a libm whose `sin` rounds differently in the pile's setup):
/// report it, with the platform.
const EXPLICIT_PILE_HASH: u64 = 0xd9fa_92ce_56a3_503d;

#[test]
fn a_contact_scene_is_bit_identical_across_runs_and_threads() {
    let hash = repeatable(explicit_pile);
    assert_eq!(
        hash, EXPLICIT_PILE_HASH,
        "the state of the pile after 100 steps changed: {hash:#018x} (see EXPLICIT_PILE_HASH)"
    );
}

#[test]
fn the_implicit_stepper_is_bit_identical_across_runs_and_threads() {
    repeatable(implicit_pile);
}
