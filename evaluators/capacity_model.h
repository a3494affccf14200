#pragma once
/**
 * @file capacity_model.h
 * Immutable per-(host type, flavor) tables derived from a Problem once: the VMCAP evaluator of
 * every pair (closed form or exact fallback, chosen here and never per call), every placement of
 * every flavor on every host type, and the capacity targets (flavors with weight > 0).
 * Shared by `const&` across search threads; thread-safe for concurrent reads.
 */
#include <vector>

#include "evaluators/vmcap.h"
#include "instances/problem.h"

namespace vmcap {

class CapacityModel {
public:
    /** Builds the tables; O(host types x flavors x placements). Keeps a reference to `problem`. */
    explicit CapacityModel(const Problem& problem);

    const Problem& problem() const { return problem_; }
    int num_resources() const { return R_; }

    /** Capacity targets, in flavor order: flavor index and weight of target j. */
    int num_targets() const { return static_cast<int>(targets_.size()); }
    int target_flavor(int j) const { return targets_[j]; }
    double target_weight(int j) const { return weights_[j]; }

    /** VMCAP evaluator of (host type, flavor); its placements() list the usable node sets. */
    const VmcapEvaluator& evaluator(int host_type, int flavor) const {
        return evaluators_[static_cast<std::size_t>(host_type) * problem_.flavors.size() + flavor];
    }

    /**
     * b_i of one pNUMA node for `flavor`: min over resources r with demand of
     * floor(free[r] / node_demand[r]) (vmcap-formulas.md, Definition). `free_node` has R entries.
     * O(R); free amounts must be >= 0.
     */
    Count node_slots(int flavor, const Amount* free_node) const {
        const Amount* nd = problem_.flavors[flavor].node_demand.data();
        Count best = -1;
        for (int r = 0; r < R_; ++r) {
            if (nd[r] == 0) continue;
            const Count s = free_node[r] / nd[r];
            if (best < 0 || s < best) best = s;
        }
        return best;
    }

    /** VMCAP of `flavor` on one host of `host_type` with free amounts `free` ([node * R + r]). */
    Count host_capacity(int host_type, int flavor, const Amount* free) const;

    /** Weighted objective sum_j w_j * totals[j] in target order (totals has num_targets() entries). */
    double weighted(const Count* totals) const {
        double s = 0.0;
        for (int j = 0; j < num_targets(); ++j) s += weights_[j] * static_cast<double>(totals[j]);
        return s;
    }

private:
    const Problem& problem_;
    int R_ = 0;
    std::vector<int> targets_;
    std::vector<double> weights_;
    std::vector<VmcapEvaluator> evaluators_;  ///< [host_type * F + flavor]
};

}  // namespace vmcap
