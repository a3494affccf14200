#pragma once
/**
 * @file vmcap_batch.h
 * VMCAP of many capacity vectors at once (one host type, one flavor): the closed forms of
 * vmcap.h over a batch in structure-of-arrays layout, branch-free so that GCC vectorizes the
 * loop over vectors at -O3 on baseline x86-64 (SSE2). On x86-64 every kernel is also compiled
 * for AVX2 and AVX-512F (GCC function multiversioning, `target_clones`), picked once at load
 * time by the dynamic loader (ifunc); results do not depend on the clone.
 *
 * This is how the product evaluates capacity: the same (host type, flavor) pair over every host
 * of a cluster (vmcap capacity, the initial state of a search, full recomputations), where the
 * scalar call's per-vector overhead (call, switch, gathers of a short vector, branches of Kn/Kk)
 * dominates. Incremental evaluation of one touched host still uses VmcapEvaluator.
 *
 * Layout ("SoA"): `soa[i * stride + t]` is b_i of vector t, for node i < host nodes and vector
 * t < count; `out[t]` receives VMCAP of vector t. Requirements (not checked on the hot path):
 * every b_i >= 0, the vector's sum < 2^59 (as vmcap.h), `out[0..count)` does not overlap the
 * rows read. Any stride, any alignment of `soa` and `out` (unaligned starts are fine), any count
 * (0 does nothing).
 *
 * Lane width: a block of vectors is computed in 32-bit lanes when all of its capacities are
 * below kBatchNarrowLimit (every intermediate of every form then fits in int32, and Kn/Kk's
 * division is MagicDivisor::divide31), otherwise in 64-bit lanes; the check is an OR over the
 * values as they are loaded, per block of kBatchBlock vectors, and a block that fails it is
 * recomputed in 64-bit lanes. Results are identical to the scalar closed forms of vmcap.h for
 * every input within the requirements (tests/vmcap_batch_test.cpp).
 *
 * Formulas: ../shared/docs/vmcap-formulas.md ("Closed forms"), paper Table I, labelings of
 * instances/topology.h (row 0 is the paper's b1). All functions are pure and thread-safe, and
 * allocation-free except where vmcap_batch_kn_kk / vmcap_batch_2xkn_kk build a plan per call.
 */
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "evaluators/closed_forms/score.h"
#include "evaluators/closed_forms/vmcap.h"
#include "instances/topology.h"

namespace vmcap {

/** Capacities below this (2^26) let a block use 32-bit lanes: 16 x 2^26 = 2^30 < 2^31. */
inline constexpr Count kBatchNarrowLimit = Count{1} << 26;
/** Vectors per lane-width decision (one OR check, one possible 64-bit recomputation). */
inline constexpr std::size_t kBatchBlock = 512;

/** Any host with n nodes (1..kMaxPNuma), K1 guest: out[t] = sum_i b_i. Row "any/K1". O(n) per vector. */
void vmcap_batch_k1(const Count* soa, std::size_t stride, std::size_t count, int n, Count* out);
/** C4 host, K2 guest: min(b1+b3, b2+b4). Row "C4/K2". */
void vmcap_batch_c4_k2(const Count* soa, std::size_t stride, std::size_t count, Count* out);
/** K<m>,<n> host (rows 0..m-1 part 1, m..m+n-1 part 2; m + n <= kMaxPNuma), K2 guest: min of the part sums. Row "Km,n/K2". */
void vmcap_batch_kmn_k2(const Count* soa, std::size_t stride, std::size_t count, int m, int n, Count* out);
/**
 * K<n> host, K<k> guest, 1 <= k <= n <= kMaxPNuma (k > n gives 0): the min-over-r form of Table I,
 * min over r = 0..k-1 of floor((S - b_(1) - ... - b_(r)) / (k - r)), evaluated without branches:
 * the r largest capacities come from the comparator network top_selection_network(n, k - 1), the
 * divisions from MagicDivisor reciprocals. The recursive form of vmcap_kn_kk computes the same
 * value (it stops at the first r where the min is reached); the test proves the network by the
 * 0-1 principle and compares both forms. K4/K2 and K4/K3 use their dedicated kernels.
 * Builds the network and reciprocals on each call (O(n log^2 n), allocates); BatchEvaluator
 * builds them once. Per vector: O(comparators + k).
 */
void vmcap_batch_kn_kk(const Count* soa, std::size_t stride, std::size_t count, int n, int k, Count* out);
/** K4 host, K2 guest: min(floor(S/2), S - b_(1)). Row "K4/K2". */
void vmcap_batch_k4_k2(const Count* soa, std::size_t stride, std::size_t count, Count* out);
/** K4 host, K3 guest: min(floor(S/3), floor((S - b_(1))/2), S - b_(1) - b_(2)). Row "K4/K3". */
void vmcap_batch_k4_k3(const Count* soa, std::size_t stride, std::size_t count, Count* out);
/** Q3,3 host, K2 guest: min(b1+b3+b5+b7, b2+b4+b6+b8). Row "Q3,3/K2". */
void vmcap_batch_q33_k2(const Count* soa, std::size_t stride, std::size_t count, Count* out);
/** Q3,3 host, C4 guest: min(VMCAP(K4,K2,[b1,b3,b5,b7]), VMCAP(K4,K2,[b2,b4,b6,b8])). Row "Q3,3/C4". */
void vmcap_batch_q33_c4(const Count* soa, std::size_t stride, std::size_t count, Count* out);
/** CQ3 host, C4 guest: min(min(b1,b2)+min(b5,b6), min(b3,b4)+min(b7,b8)). Row "CQ3/C4". */
void vmcap_batch_cq3_c4(const Count* soa, std::size_t stride, std::size_t count, Count* out);
/** CQ3 host, K2 guest: the six-term minimum with the clamped shift d (paper Lemma 5). Row "CQ3/K2". */
void vmcap_batch_cq3_k2(const Count* soa, std::size_t stride, std::size_t count, Count* out);
/**
 * 2xK<n> host (rows 0..n-1 socket 1, n..2n-1 socket 2), K<k> guest, 1 <= k <= n <= 8:
 * VMCAP(Kn,Kk, socket 1) + VMCAP(Kn,Kk, socket 2). n = 4 with k = 2 or 3 use one fused kernel;
 * other n build the Kn/Kk plan per call, as vmcap_batch_kn_kk.
 */
void vmcap_batch_2xkn_kk(const Count* soa, std::size_t stride, std::size_t count, int n, int k, Count* out);

/** One comparator of a network: afterwards value[lo] <= value[hi] (lo < hi). */
struct Comparator {
    std::uint8_t lo = 0, hi = 0;
};

/**
 * A comparator network on n values (1 <= n <= kMaxPNuma) after which positions n-t..n-1 hold
 * the t largest values in ascending order (position n-1 the largest), 0 <= t <= n: Batcher's
 * odd-even merge sort for the next power of two (Knuth TAOCP 5.3.4), comparators reaching past n
 * removed (equivalent to padding with +infinity, which never moves), then comparators that cannot
 * influence the top t positions removed (backward liveness). Sizes for t = n: 1, 3, 5, 9, 12, 16,
 * 19 for n = 2..8, 63 for n = 16. Pure; allocates the result.
 */
std::vector<Comparator> top_selection_network(int n, int t);

/**
 * Precomputed Kn/Kk batch evaluation (network and the reciprocals of 1..k); built once per pair.
 * Immutable after construction; may be shared across threads.
 */
class KnKkBatchPlan {
public:
    KnKkBatchPlan() = default;
    /** Throws std::invalid_argument unless 1 <= k <= n <= kMaxPNuma. */
    KnKkBatchPlan(int n, int k);
    /** out[t] = VMCAP(Kn, Kk, vector t) (rows 0..n-1 of soa); with `accumulate`, out[t] += it instead. */
    void run(const Count* soa, std::size_t stride, std::size_t count, Count* out, bool accumulate = false) const;
    int n() const { return n_; }
    int k() const { return k_; }
    const std::vector<Comparator>& network() const { return network_; }

private:
    int n_ = 0, k_ = 0;
    std::vector<Comparator> network_;
    std::uint32_t magic31_[kMaxPNuma + 1] = {};  ///< MagicDivisor::make(d).magic31 for d = 1..k
    int shift31_[kMaxPNuma + 1] = {};
};

/**
 * Batched VMCAP of one (host topology, guest topology) pair. The method is VmcapEvaluator's
 * (chosen once, in the constructor, from the same rules; vmcap.h); closed forms use the batched
 * kernels above, the exact fallback calls vmcap_exact once per vector (gathering it from the
 * columns), so every pair is supported and the result always equals VmcapEvaluator's.
 * Immutable after construction; may be shared across threads (operator() is const and keeps no
 * state).
 */
class BatchEvaluator {
public:
    /** As VmcapEvaluator(host, guest); same exceptions. Cost: enumerate_embeddings plus, for Kn/Kk, the plan. */
    BatchEvaluator(const Topology& host, const Topology& guest);
    /** From an existing scalar evaluator (copied). */
    explicit BatchEvaluator(VmcapEvaluator scalar);

    /**
     * out[t] = VMCAP of vector t, t < count; soa has host_nodes() rows of `stride` Counts (layout,
     * ranges and aliasing as in the file comment). Closed forms: O(host_nodes()) per vector, no
     * allocation, a predicted switch per call. Exact fallback: vmcap_exact per vector.
     */
    void operator()(const Count* soa, std::size_t stride, std::size_t count, Count* out) const;

    /**
     * sum_t w[t] x VMCAP(vector t), t < count, where b_i of vector t is the byte rows[i][t] (i <
     * host_nodes()): the weighted VMCAP of many flavors of one pair from per-node quotient tables
     * (weighted_vmcap.h). Exact (16-bit lanes, which hold every intermediate of a fixed-size form
     * of bytes; the sum modulo 2^64, exact when it fits a Score). Returns false, computing
     * nothing, for methods without a fixed-size form (K1, Km,n/K2, Kn/Kk, 2xKn/Kk other than n = 4
     * with k = 2 or 3, the exact fallback). O(count x host_nodes()), no allocation, thread-safe.
     */
    bool weighted_bytes(const std::uint8_t* const* rows, const Score* w, std::size_t count, Score& sum) const;

    VmcapMethod method() const { return scalar_.method(); }
    bool is_closed_form() const { return scalar_.is_closed_form(); }
    int host_nodes() const { return scalar_.host_nodes(); }
    /** The scalar evaluator of the same pair (same method and placements). */
    const VmcapEvaluator& scalar() const { return scalar_; }
    /** "batched " + VmcapEvaluator::describe(). */
    std::string describe() const;

private:
    VmcapEvaluator scalar_;
    KnKkBatchPlan plan_;  ///< Kn_Kk, and TwoKn_Kk other than n = 4, k in {2, 3}
};

/**
 * Transposes `count` contiguous vectors of n capacities (aos[t * n + i]) into SoA
 * (soa[i * stride + t]); stride >= count. O(n * count). A helper for callers holding one
 * contiguous vector per host (and for tests and benchmarks).
 */
void transpose_to_soa(const Count* aos, int n, std::size_t count, Count* soa, std::size_t stride);

}  // namespace vmcap
