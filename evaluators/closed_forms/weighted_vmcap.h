#pragma once
/**
 * @file weighted_vmcap.h
 * A host's weighted capacity V(F) = sum_j w_j VMCAP_j(b_j(F)) over many target flavors at once,
 * from the free amounts F of its pNUMA nodes alone (vmcap-formulas.md, Definition: b_j depends on
 * F, VMCAP on b_j and the topology). With hundreds of targets this sum is the search's memo-miss
 * path and the upper bound's inner loop, so it is computed target-parallel:
 *
 *  - targets whose VMCAP is the sum of b (one-node guests, Table I row "any/K1") and those whose
 *    VMCAP is the minimum of b (K<n> guest on a K<n> host, row "Kn/Kk" with k = n: e.g. a
 *    two-node flavor on a dual-node server) that demand every resource are evaluated in structure
 *    of arrays, targets innermost: per (node, resource) one 32x32->64 multiply and a per-lane shift
 *    (MagicDivisor::divide31, exact for amounts below 2^31), a min over resources and a sum or a
 *    min over nodes, in a loop GCC vectorizes (AVX2 and AVX-512F clones, target_clones.h);
 *  - targets with another closed form (e.g. K2 or C4 guests on CQ3 hosts) that demand every
 *    resource, grouped by their (host, guest) pair: the per-node quotients of a chunk of targets
 *    the same way into a structure-of-arrays buffer, then the pair's batched closed form over
 *    them (BatchEvaluator, vmcap_batch.h);
 *  - every other target (the exact fallback, a flavor without demand in some resource) goes
 *    through its VmcapEvaluator, as SearchState does.
 *
 * Exact: the same integer as the per-target scalar sum (tests/weighted_vmcap_test.cpp compares
 * both on random and boundary inputs). A host with a free amount of 2^31 or more is evaluated by
 * the scalar path (checked per call).
 *
 * Immutable after construction; value() is const, allocation-free and thread-safe (exact-fallback
 * evaluators share their own lock-free memo). Memory: 12 bytes x resources + 12 per vectorised target,
 * plus the per-node tables (at most 8 MiB for the sum lanes and 8 MiB per batch group).
 */
#include <cstdint>
#include <vector>

#include "evaluators/closed_forms/capacity_vectors.h"
#include "evaluators/closed_forms/score.h"
#include "evaluators/closed_forms/vmcap.h"
#include "evaluators/closed_forms/vmcap_batch.h"
#include "instances/problem.h"

namespace vmcap {

class WeightedVmcap {
public:
    /**
     * For hosts of type `host_type` of `problem` and the targets (flavor index, weight in score
     * units, evaluator of (host_type, flavor)) given in parallel vectors of equal length. Keeps
     * pointers to the evaluators (they must outlive this object). O(targets x resources).
     * Throws std::invalid_argument when the vectors differ in length.
     */
    WeightedVmcap(const Problem& problem, int host_type, const std::vector<int>& target_flavors, const std::vector<Score>& weight_units,
                  const std::vector<const VmcapEvaluator*>& evaluators);

    /**
     * sum_j w_j VMCAP_j on one host of this type with free amounts `free[i * R + r]` (nodes x
     * resources, every amount >= 0), in score units, exactly. Cost O(nodes x resources x vectorised
     * targets / lanes + scalar targets x (nodes x resources + VMCAP)). May throw what the
     * exact-fallback evaluators throw (vmcap.h: InputError beyond the work limit,
     * TimeLimitReached).
     */
    Score value(const Amount* free) const;

    /** Targets on the vectorised paths (sum or min of b, or a batched closed form), and on the
     *  evaluator path. */
    int vectorised_targets() const {
        std::size_t v = sum_.weight.size() + min_.weight.size();
        for (const BatchGroup& g : batch_) v += g.lanes.weight.size();
        return static_cast<int>(v);
    }
    int scalar_targets() const { return static_cast<int>(scalar_.size()); }
    /** Entries of the per-node table of the sum lanes (0: none; value() then runs the lanes). */
    std::size_t node_table_entries() const { return table_.size(); }
    /** Batch groups with a per-node quotient table, of batch_groups(). */
    int quotient_tables() const {
        int t = 0;
        for (const BatchGroup& g : batch_) t += g.quotients.empty() ? 0 : 1;
        return t;
    }
    int batch_groups() const { return static_cast<int>(batch_.size()); }
    /** Every target of this host type has a closed form (no exact fallback: value() cannot throw). */
    bool closed_forms_only() const { return closed_forms_only_; }

private:
    /** Targets of one combining rule, structure of arrays: magic[r][k], shift[r][k], weight[k]. */
    struct Lanes {
        std::vector<std::uint32_t> magic[kMaxResources];
        std::vector<std::uint64_t> shift[kMaxResources];
        std::vector<Score> weight;
        std::vector<int> target;  ///< index j of lane k in the constructor's order
    };
    /**
     * Free amounts of one pNUMA node in units g_r per resource, up to extent_r - 1 units: the
     * index of a node's free vector in a per-node table, row-major over resources. A table over
     * this grid is exact for every demand that is a multiple of g_r (floor(x / d) =
     * floor(floor(x / g) / (d / g))). entries == 0: no table.
     */
    struct NodeGrid {
        Amount units[kMaxResources] = {};
        MagicDivisor per_unit[kMaxResources];  ///< floor(x / units[r])
        Amount extent[kMaxResources] = {};
        std::size_t entries = 0;
        /** The grid over every node of `ht` in units `gcd`, if it has at most `most` entries. */
        bool make(const HostType& ht, int n, int R, const Amount* gcd, std::size_t most);
        /** Index of node amounts x[0..R); false when one is beyond the grid. */
        bool index(const std::uint32_t* x, int R, std::size_t& e) const;
        /** The smallest amounts of entry e (x[r] = its unit count x g_r). */
        void amounts(std::size_t e, int R, std::uint32_t* x) const;
    };
    /** Targets sharing one batched closed form (same VmcapMethod and parameters). */
    struct BatchGroup {
        Lanes lanes;
        BatchEvaluator eval;
        /**
         * Every lane's b on one node, per free vector of the grid: quotients[e * lanes + k]
         * (uint8: built only when every quotient is below 256, as with nodes of tens of vCPU
         * and flavors of at least one), so a node's row of quotients is a widening copy instead
         * of resources x (multiply, shift, min) per lane. Empty: the quotients are computed.
         */
        NodeGrid grid;
        std::vector<std::uint8_t> quotients;
    };
    /** One target on the per-target path: its divisors (resources with demand) and evaluator. */
    struct ScalarTarget {
        int target = 0;  ///< index j in the constructor's order
        Score weight = 0;
        const VmcapEvaluator* ev = nullptr;
        int count = 0;
        int resource[kMaxResources] = {};
        MagicDivisor div[kMaxResources];
    };
    /** w VMCAP of target t by its evaluator. */
    Score scalar_term(const ScalarTarget& t, const Amount* free) const;
    /** Target t's capacity vector (n entries) by its divisors. */
    void scalar_b(const ScalarTarget& t, const Amount* free, Count* b) const;
    /** w-weighted VMCAP sum of batch group g from the narrowed amounts x. */
    Score batch_value(const BatchGroup& g, const std::uint32_t* x) const;
    /** The sum lanes' per-node table (below), if it fits kMaxNodeTable entries and
     *  kMaxNodeTableWork entries x targets to build. */
    void build_node_table(const HostType& ht, const Amount* gcd);
    /** Group g's per-node quotient table, if it fits kMaxQuotientTable bytes and every quotient
     *  fits 8 bits. */
    void build_quotient_table(const HostType& ht, const Amount* gcd, BatchGroup& g) const;
    /** Sum over nodes of the table's entries for x; ok false (and 0) when an amount is beyond it. */
    Score table_sum(const std::uint32_t* x, bool& ok) const;
    /** Narrows the free amounts to 32 bits; false when one is 2^31 or more. */
    bool narrow(const Amount* free, std::uint32_t* x) const;

    int n_ = 0, R_ = 0;
    Lanes sum_, min_;
    /**
     * The sum lanes are separable per node (VMCAP = sum of b, b_i a function of node i's free
     * amounts), so their weighted sum for one node is tabulated once per host type over every
     * free vector of a node in units of the gcd g_r of the lanes' demands in each resource
     * (floor(x / d) = floor(floor(x / g) / (d / g)) when g divides d): table_[index of
     * (floor(x_r / g_r))_r], row-major over resources with extents table_extent_ (the largest node
     * capacity / g_r + 1). A host's share is then one read per node. Empty when it would not pay.
     */
    std::vector<Score> table_;
    NodeGrid table_grid_;
    static constexpr std::size_t kMaxNodeTable = std::size_t{1} << 20;      ///< 8 MiB a host type
    static constexpr std::size_t kMaxNodeTableWork = std::size_t{1} << 28;  ///< entries x targets (~0.1 s)
    static constexpr std::size_t kMaxQuotientTable = std::size_t{1} << 23;  ///< 8 MiB a group
    std::vector<BatchGroup> batch_;
    std::vector<ScalarTarget> scalar_;  ///< targets off the vectorised path
    std::vector<ScalarTarget> all_;     ///< every target (amounts of 2^31 or more)
    bool closed_forms_only_ = true;
};

}  // namespace vmcap
