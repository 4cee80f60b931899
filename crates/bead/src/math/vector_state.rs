//! Leaves the CPU's vector registers clean after a call into faer.
//!
//! faer's dense kernels (gemm's AVX2 and AVX-512 micro-kernels, chosen at run time) can return
//! with the upper halves of the vector registers still dirty. bead itself is compiled for the
//! baseline x86-64, whose floating point is SSE, and on processors that track that state every
//! SSE instruction afterwards pays for a false dependency on it — not for a moment but until
//! something clears it. Measured on this project's 2-core machine (AMD EPYC): after a single
//! 400 × 400 singular value decomposition, every later step of a 20-row box pyramid under RK4
//! took 8.7 ms instead of 3.9, for the rest of the process (within an implicit run alone, which
//! factors at every Newton iteration, no difference was measured).
//!
//! `vzeroupper` clears the state at no cost. It is reached through pulp (faer's own SIMD layer),
//! whose wrapper checks that the processor has AVX before it issues the instruction, so no
//! `unsafe` is needed here.

/// Clears the upper halves of the vector registers (`vzeroupper`) where the processor has
/// AVX; nothing elsewhere. Call it after each call into faer's numerical kernels.
pub(crate) fn clear_upper_state() {
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    if let Some(avx) = pulp::core_arch::x86::Avx::try_new() {
        avx._mm256_zeroupper();
    }
}
