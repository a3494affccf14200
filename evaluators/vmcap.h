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
 * All free functions are pure, O(n log n) or better, allocation-free and thread-safe.
 * Preconditions (not checked on the hot path): every b_i >= 0, b has the host's node count.
 */
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "instances/topology.h"

namespace vmcap {

/** Number of VMs / vNUMA node slots. */
using Count = std::int64_t;

/** Any host, K1 guest: sum of b. */
Count vmcap_k1(const Count* b, int n);
/** C4 host, K2 guest: min(b1+b3, b2+b4). */
Count vmcap_c4_k2(const Count* b);
/** K<m>,<n> host (part 1 = b[0..m), part 2 = b[m..m+n)), K2 guest: min(sum part 1, sum part 2). */
Count vmcap_kmn_k2(const Count* b, int m, int n);
/**
 * K<n> host, K<k> guest, 1 <= k <= n <= 16: min over r = 0..k-1 of
 * floor((S - b_(1) - ... - b_(r)) / (k - r)), evaluated in the paper's recursive form (drop the
 * largest capacity while floor(S/k) < b_(1)), which stops after one step on balanced inputs.
 */
Count vmcap_kn_kk(const Count* b, int n, int k);
/** K4 host, K2 guest: min(floor(S/2), S - b_(1)). */
Count vmcap_k4_k2(const Count* b);
/** K4 host, K3 guest: min(floor(S/3), floor((S - b_(1))/2), S - b_(1) - b_(2)). */
Count vmcap_k4_k3(const Count* b);
/** Q3,3 host, K2 guest: min(b1+b3+b5+b7, b2+b4+b6+b8). */
Count vmcap_q33_k2(const Count* b);
/** Q3,3 host, C4 guest: min(VMCAP(K4,K2,[b1,b3,b5,b7]), VMCAP(K4,K2,[b2,b4,b6,b8])). */
Count vmcap_q33_c4(const Count* b);
/** CQ3 host, C4 guest: min(min(b1,b2)+min(b5,b6), min(b3,b4)+min(b7,b8)). */
Count vmcap_cq3_c4(const Count* b);
/** CQ3 host, K2 guest: the six-term minimum of vmcap-formulas.md with the clamped shift d. */
Count vmcap_cq3_k2(const Count* b);
/** 2xK<n> host (two sockets), K<k> guest: VMCAP(Kn,Kk,b[0..n)) + VMCAP(Kn,Kk,b[n..2n)). */
Count vmcap_2xkn_kk(const Count* b, int n, int k);

/**
 * Exact VMCAP for any pair, given every distinct placement (pNUMA node set) of the guest:
 * the maximum number of placements, with repetition, using node i at most b_i times.
 * Branch and bound with memoisation; exponential in the worst case, intended for host graphs of
 * at most 16 nodes and guests of at most 8. Used where no closed form exists. Thread-safe.
 */
Count vmcap_exact(std::span<const Embedding> placements, int n, const Count* b);

/** How a (host topology, guest topology) pair is evaluated; chosen once per pair. */
enum class VmcapMethod {
    K1, C4_K2, Kmn_K2, Kn_Kk, K4_K2, K4_K3, Q33_K2, Q33_C4, CQ3_C4, CQ3_K2, TwoKn_Kk, Exact
};

/**
 * VMCAP of one (host topology, guest topology) pair. The closed form or the exact fallback is
 * chosen once in the constructor, never per call. Immutable after construction; may be shared
 * across threads.
 */
class VmcapEvaluator {
public:
    /** Throws std::invalid_argument if the guest has more vNUMA nodes than kMaxVNuma. */
    VmcapEvaluator(const Topology& host, const Topology& guest);

    /** VMCAP for capacity vector b (host.size() entries, each >= 0). */
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
            case VmcapMethod::Exact: return vmcap_exact(placements_, n_, b);
        }
        return 0;
    }

    VmcapMethod method() const { return method_; }
    bool is_closed_form() const { return method_ != VmcapMethod::Exact; }
    /** Human-readable method, e.g. "closed form CQ3/K2" or "exact (branch and bound)". */
    std::string describe() const;
    /** Every distinct pNUMA node set the guest can use on this host (enumerate_embeddings). */
    const std::vector<Embedding>& placements() const { return placements_; }
    int host_nodes() const { return n_; }
    int guest_nodes() const { return k_; }

private:
    VmcapMethod method_ = VmcapMethod::Exact;
    int n_ = 0, k_ = 0, p_ = 0, q_ = 0;
    std::vector<Embedding> placements_;
};

}  // namespace vmcap
