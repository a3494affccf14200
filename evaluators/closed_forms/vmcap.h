#pragma once
/**
 * @file vmcap.h
 * VMCAP(G, g, b): how many more copies of guest graph g (a flavor's vNUMA graph) fit on host
 * graph G (a host type's pNUMA graph) when pNUMA node i can serve b_i more vNUMA nodes.
 *
 * Source: "Efficient calculation of available space for multi-NUMA virtual machines" (seed 000),
 * Table I, restated with vertex labelings in ../shared/docs/vmcap-formulas.md. Capacity vectors b
 * are 0-based arrays in the labeling of topology.h (b[0] is the paper's b1).
 *
 * The closed forms are pure, O(n) (Kn/Kk: O(n*k) on unbalanced inputs), allocation-free and
 * thread-safe; they are the optimizer's inner loop. vmcap_exact is pure and thread-safe but
 * allocates and is exponential in the worst case.
 * Preconditions (not checked on the hot path): every b_i >= 0, b has the host's node count, and
 * sum_i b_i < 2^59 (Kn/Kk divides by a 64x64->128 reciprocal multiply, exact below that).
 * Every closed form is tested against an exhaustive search and the CBC MILP solver
 * (tests/vmcap_test.cpp). Which placements reach the count: evaluators/closed_forms/placements.h.
 */
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "instances/topology.h"

namespace vmcap {

/** Number of VMs / vNUMA node slots. */
using Count = std::int64_t;

/** Any host (n nodes), K1 guest: sum of b[0..n). Table I row "any/K1". */
Count vmcap_k1(const Count* b, int n);
/** C4 host (b[0..4), cycle 1-2-3-4-1), K2 guest: min(b1+b3, b2+b4). Table I row "C4/K2". */
Count vmcap_c4_k2(const Count* b);
/**
 * K<m>,<n> host (part 1 = b[0..m), part 2 = b[m..m+n)), K2 guest: min(sum part 1, sum part 2).
 * Table I row "Km,n/K2". O(m+n).
 */
Count vmcap_kmn_k2(const Count* b, int m, int n);
/**
 * K<n> host, K<k> guest, 1 <= k <= n <= 16: min over r = 0..k-1 of
 * floor((S - b_(1) - ... - b_(r)) / (k - r)), evaluated in the paper's recursive form (drop the
 * largest capacity while floor(S/k) < b_(1)), which stops after one step on balanced inputs.
 * k == 1 returns the sum, k == n the minimum; k > n returns 0. Table I row "Kn/Kk".
 * Cost O(n) when floor(S/k) >= b_(1); otherwise n = 4 and n = 8 sort by a branch-free network
 * and take the min over r (O(k) more), other n select the maximum per dropped node (O(n*k)).
 */
Count vmcap_kn_kk(const Count* b, int n, int k);
/** K4 host, K2 guest: min(floor(S/2), S - b_(1)). Table I row "K4/K2"; branch-free. */
Count vmcap_k4_k2(const Count* b);
/** K4 host, K3 guest: min(floor(S/3), floor((S - b_(1))/2), S - b_(1) - b_(2)). Row "K4/K3"; branch-free. */
Count vmcap_k4_k3(const Count* b);
/** Q3,3 host (K4,4 with parts {1,3,5,7}, {2,4,6,8}), K2 guest: min(b1+b3+b5+b7, b2+b4+b6+b8). Row "Q3,3/K2". */
Count vmcap_q33_k2(const Count* b);
/** Q3,3 host, C4 guest: min(VMCAP(K4,K2,[b1,b3,b5,b7]), VMCAP(K4,K2,[b2,b4,b6,b8])). Row "Q3,3/C4". */
Count vmcap_q33_c4(const Count* b);
/** CQ3 host (labeling of topology.h), C4 guest: min(min(b1,b2)+min(b5,b6), min(b3,b4)+min(b7,b8)). Row "CQ3/C4". */
Count vmcap_cq3_c4(const Count* b);
/**
 * CQ3 host, K2 guest: the six-term minimum of vmcap-formulas.md (paper Lemma 5) with the shift
 * d = floor((O - E)/2) clamped to [-min(b2,b8), min(b1,b7)]. Row "CQ3/K2"; branch-free.
 */
Count vmcap_cq3_k2(const Count* b);
/**
 * 2xK<n> host (two sockets), K<k> guest, 1 <= k <= n <= 8: VMCAP(Kn,Kk,b[0..n)) +
 * VMCAP(Kn,Kk,b[n..2n)) (vmcap-formulas.md: two independent Kn problems).
 */
Count vmcap_2xkn_kk(const Count* b, int n, int k);

/**
 * Default work limit of one exact VMCAP evaluation (`--exact-work-limit`), in work units: every
 * branch-and-bound node costs m + n^2 units (a pricing pass over its m placements plus a basis
 * update on n node rows), so the limit tracks time across topologies. Measured time at the
 * limit: docs/performance.md, "Bounded exact fallback"; every benchmarked pair needs a few
 * nodes per random input, far below it.
 */
inline constexpr std::int64_t kDefaultExactWorkLimit = 20'000'000;

/** The exact VMCAP solver would need more than `work_limit` work units (kDefaultExactWorkLimit). */
struct ExactLimitExceeded : std::runtime_error {
    explicit ExactLimitExceeded(std::int64_t limit);
    std::int64_t work_limit;
};

/**
 * Exact VMCAP for any pair, given every distinct placement (pNUMA node set) of the guest:
 * the maximum number of placements, with repetition, using node i at most b_i times, i.e. the
 * integer program max sum_S x_S s.t. sum_{S contains i} x_S <= b_i, x_S >= 0 integer.
 *
 * Inputs: n in 0..kMaxPNuma; b[0..n) >= 0 and sum < 2^50; placements as from
 * enumerate_embeddings (only `mask` is read). Empty masks, masks naming nodes >= n, duplicates
 * and strict supersets of other placements are ignored (they never change the optimum).
 * No placement (e.g. guest larger than host) gives 0.
 *
 * Method: placements through a node with b_i = 0 are dropped; independent components (no
 * placement spans two) are solved separately; each by depth-first branch and bound on x_S
 * (x_S <= t | x_S >= t+1, most fractional variable first) with the LP relaxation, solved by a
 * bounded-variable revised simplex on the n node rows, as bound. Exactness does not depend on
 * floating point: pruning uses the weak-duality bound of the final dual vector, valid for any
 * dual vector, plus a safety margin, and incumbents are checked in integer arithmetic.
 * Cost: one LP is O(iterations * (n^2 + 2^min(n,8) + m)) for m placements. Bipartite hosts with
 * K2 guests (Q3, Km,n, Q3,3) have integral LPs and finish at the root; on the benchmarked pairs
 * random inputs need about one branch-and-bound node; measured 0.3-25 us per call for 8-node hosts with b <= 64
 * (bench/bench_vmcap.cpp; K8/K4 with 70 placements is the slowest), ~1 ms for 16-node hosts
 * with a few hundred placements. The number of branch-and-bound nodes is
 * exponential in the worst case (large integrality gaps, e.g. many odd components inside one
 * component), and grows linearly with b when the LP optimum is an integer that no integer point
 * attains on a degenerate optimal face: Q3 with a K1,3 guest on b = (H,L,L,H,L,H,H,L), H + L odd,
 * takes ~0.4 s at H = 7350 and ~40 s at H = 735037 without a limit (CBC: over 60 s; test
 * VmcapExact.DegenerateLpFaceScalesWithValues). The answer is exact or not given: beyond
 * `work_limit` work units (kDefaultExactWorkLimit) the call throws ExactLimitExceeded, which
 * bounds the time of one evaluation by counting work, not the clock, so the outcome is
 * deterministic.
 * Thread-safe (all state is local to the call); allocates O(m + n^2) per call.
 */
Count vmcap_exact(std::span<const Embedding> placements, int n, const Count* b, std::int64_t work_limit = kDefaultExactWorkLimit);

/**
 * `copies` more VMs of a flavor, each mapped as `placement` (vNUMA node v -> pNUMA node
 * placement.map[v]; placement.mask is the node set). A solution of VMCAP is a list of these with
 * distinct masks, so its size does not grow with the capacities (b up to 10^6 and beyond).
 */
struct PlacementCount {
    Embedding placement;
    Count copies = 0;
};

/**
 * vmcap_exact, and an optimal multiset of placements: `out` is cleared, then receives one entry
 * per used node set (copies > 0, sorted by mask), whose copies sum to the returned VMCAP and use
 * node i at most b[i] times. Each entry's Embedding is the first element of `placements` with that
 * mask. Same inputs, method and exactness as vmcap_exact (the branch and bound records its
 * incumbent; vmcap_exact itself does not pay for the recording). Cost: vmcap_exact plus
 * O(m x used masks). Thread-safe. Throws ExactLimitExceeded as vmcap_exact, std::logic_error only
 * on an internal inconsistency.
 */
Count vmcap_exact_placements(std::span<const Embedding> placements, int n, const Count* b, std::vector<PlacementCount>& out,
                             std::int64_t work_limit = kDefaultExactWorkLimit);

/**
 * A command's wall-clock limit (`--time-limit`) passed before or during an exact-fallback VMCAP
 * evaluation. Exit code 4 in the CLI (nothing written). Closed forms never check the clock.
 */
struct TimeLimitReached : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/** Limits of the exact fallback of one VmcapEvaluator. */
struct ExactOptions {
    /** Most work units per evaluation (vmcap_exact's work_limit); >= 1. */
    std::int64_t work_limit = kDefaultExactWorkLimit;
    /** Names the pair in the refusal, e.g. "host type 'q3' with flavor 'star'". */
    std::string label;
    /** Exact evaluations stop soon after this instant (TimeLimitReached): none starts after it
     *  (the clock is read before every 16th exact evaluation of a thread, and before every one
     *  after an expensive one), and one already running reads the clock every 16,384 work units
     *  of its branch and bound (well under 0.1% of its time) and stops within about a
     *  millisecond of the deadline, whatever the work limit. Default: never. */
    std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
};

/** How a (host topology, guest topology) pair is evaluated; chosen once per pair. */
enum class VmcapMethod { K1, C4_K2, Kmn_K2, Kn_Kk, K4_K2, K4_K3, Q33_K2, Q33_C4, CQ3_C4, CQ3_K2, TwoKn_Kk, Exact };

/**
 * VMCAP of one (host topology, guest topology) pair. The closed form or the exact fallback is
 * chosen once in the constructor, never per call. Immutable after construction; may be shared
 * across threads.
 */
class VmcapEvaluator {
public:
    /**
     * Chooses the method from (host.kind, host.p/q, guest graph) and enumerates the placements
     * (for every method: callers pick mappings from them). Closed forms: any/K1; C4/K2;
     * K<m>,<n>/K2; K4/K2, K4/K3, K<n>/K<k> (k <= n; complete hosts also when given explicitly);
     * Q33/K2, Q33/C4; CQ3/K2, CQ3/C4; 2xK<n>/K<k> (k <= n). Guests are recognised from the graph
     * (complete, or a 4-cycle), not the name. Everything else, including guests larger than the
     * host (0 placements, value 0), uses vmcap_exact. Cost: enumerate_embeddings, O(C(n,k)) searches.
     * Throws std::invalid_argument if the guest has more vNUMA nodes than kMaxVNuma.
     * `exact` bounds the exact fallback's work per evaluation.
     */
    VmcapEvaluator(const Topology& host, const Topology& guest, ExactOptions exact = {});

    /**
     * VMCAP for capacity vector b (host.size() entries, each >= 0). One predictable switch.
     * The exact fallback throws InputError (instances/problem.h) when one evaluation would need
     * more than the ExactOptions work limit: "<label> needs the exact VMCAP solver beyond its
     * limit of N work units (b = [...]); ..." -- a documented refusal, exit code 2 in the CLI;
     * and TimeLimitReached when called after the ExactOptions deadline or when it passes during
     * the evaluation.
     */
    Count operator()(const Count* b) const {
        switch (method_) {
            case VmcapMethod::K1: return vmcap_k1(b, n_);
            case VmcapMethod::C4_K2: return vmcap_c4_k2(b);
            case VmcapMethod::Kmn_K2: return vmcap_kmn_k2(b, p_, q_);
            case VmcapMethod::Kn_Kk: return vmcap_kn_kk(b, n_, k_);
            case VmcapMethod::K4_K2: return vmcap_k4_k2(b);
            case VmcapMethod::K4_K3: return vmcap_k4_k3(b);
            case VmcapMethod::Q33_K2: return vmcap_q33_k2(b);
            case VmcapMethod::Q33_C4: return vmcap_q33_c4(b);
            case VmcapMethod::CQ3_C4: return vmcap_cq3_c4(b);
            case VmcapMethod::CQ3_K2: return vmcap_cq3_k2(b);
            case VmcapMethod::TwoKn_Kk: return vmcap_2xkn_kk(b, p_, k_);
            case VmcapMethod::Exact: return exact(b);
        }
        return 0;
    }

    VmcapMethod method() const { return method_; }
    /** VMCAP is the sum of the capacity vector (one-node guest, formula K1): a change of some
     *  entries changes VMCAP by exactly the sum of the entry changes, which the incremental
     *  evaluators use instead of calling the evaluator. */
    bool additive() const { return method_ == VmcapMethod::K1; }
    bool is_closed_form() const { return method_ != VmcapMethod::Exact; }
    /** Human-readable method, e.g. "closed form CQ3/K2" or "exact fallback (LP branch and bound over 24 placements)". */
    std::string describe() const;
    /** Every distinct pNUMA node set the guest can use on this host (enumerate_embeddings). */
    const std::vector<Embedding>& placements() const { return placements_; }
    int host_nodes() const { return n_; }
    int guest_nodes() const { return k_; }
    /** K<m>,<n> host with the Kmn_K2 method: m (part 1 = nodes 0..m-1); 2xK<n> with TwoKn_Kk: n (socket size); else 0. */
    int host_p() const { return p_; }
    /** K<m>,<n> host with the Kmn_K2 method: n (part 2 = nodes m..m+n-1); else 0. */
    int host_q() const { return q_; }

    /** The exact-fallback limits this evaluator was built with. */
    const ExactOptions& exact_options() const { return exact_; }

    /**
     * Exact fallback only: remembers every VMCAP it computes for capacity vectors with
     * b_i <= bmax[i] (bmax: host_nodes() entries, the most VMs of the guest's vNUMA node that
     * node i can hold when empty), in a table of prod(bmax_i + 1) entries, if that is at most
     * `max_entries`; otherwise, and for closed forms, nothing changes. Hosts with the same
     * capacity vector -- every empty host of a type, and the many lightly used ones of a sparse
     * cluster -- then cost one table read instead of a branch and bound (without it, snapshots
     * with many empty hosts ran at a fraction of the search's usual rate). Entries are relaxed
     * atomics written only with the value the solver returns, so concurrent workers share the
     * table without a lock and every result is what the solver would return (deterministic).
     * Copies share it. Memory: 4 bytes per entry, allocated here. Not thread-safe against
     * concurrent calls of enable_memo itself (the model calls it once, at construction).
     */
    void enable_memo(std::span<const Count> bmax, std::size_t max_entries);
    /** Entries of the memo table (0: none). */
    std::size_t memo_entries() const { return memo_size_; }
    /** The one-line refusal for capacity vector b (operator()'s InputError message). */
    std::string exact_refusal(const Count* b) const;

private:
    /** vmcap_exact within the work limit; the refusal names the pair (out of line: cold). */
    Count exact(const Count* b) const;
    /** exact() without the memo (the solver itself, with the deadline check). */
    Count exact_uncached(const Count* b) const;

    VmcapMethod method_ = VmcapMethod::Exact;
    int n_ = 0, k_ = 0, p_ = 0, q_ = 0;
    std::vector<Embedding> placements_;
    ExactOptions exact_;
    std::shared_ptr<std::atomic<std::int32_t>[]> memo_;  ///< [sum_i b_i x memo_stride_[i]]: VMCAP, or -1 not yet known
    std::size_t memo_size_ = 0;
    std::vector<std::size_t> memo_stride_;
    std::vector<Count> memo_max_;
};

}  // namespace vmcap
