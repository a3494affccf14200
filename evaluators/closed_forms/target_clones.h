#pragma once
/**
 * @file target_clones.h
 * VMCAP_BATCH_CLONES: function multiversioning for the batched kernels (evaluators/closed_forms/vmcap_batch.cpp,
 * evaluators/closed_forms/capacity_vectors.cpp). Each marked function is compiled for baseline x86-64 (SSE2),
 * AVX2 and AVX-512F; the dynamic loader picks one per process (ifunc, the CPU's best). AVX2
 * matters for the 64-bit lanes (SSE2 has no 64-bit compare, so a 64-bit min does not vectorize
 * there) and doubles the width of the 32-bit ones; AVX-512F narrows 64-bit loads to 32-bit lanes
 * in one instruction (VPMOVQD) and doubles the width again (K4/K3: 1.24 -> 0.81 ns per vector in a
 * scratch benchmark on the VM of docs/performance.md). GCC on x86-64 Linux only; elsewhere the
 * baseline build (and under ThreadSanitizer). Internal to evaluators/.
 */
// Not under ThreadSanitizer: the ifunc resolvers run before its runtime is set up and crash.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__gnu_linux__) && !defined(__SANITIZE_THREAD__)
#define VMCAP_BATCH_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
/** For 8- and 16-bit lanes: AVX-512BW holds 32 of them a vector where AVX-512F has no 16-bit ops. */
#define VMCAP_NARROW_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define VMCAP_BATCH_CLONES
#define VMCAP_NARROW_CLONES
#endif
