#pragma once
/**
 * @file cluster_capacity.h
 * Per-flavor capacity of a whole cluster state, batched over hosts.
 */
#include <vector>

#include "evaluators/state/capacity_model.h"

namespace vmcap {

/** Capacity of every flavor on every host, and its topology-free upper bound. */
struct ClusterCapacity {
    int F = 0;
    std::vector<Count> cap;    ///< [host * F + flavor]: VMCAP (or the node rule's count)
    std::vector<Count> bound;  ///< [host * F + flavor]: floor(sum_i b_i / k)
    /** Cluster capacity per flavor (sum over hosts). O(hosts x flavors). */
    std::vector<Count> totals() const;
};

/**
 * One full recomputation, the product's batched capacity path (`vmcap capacity`, plan files):
 * free amounts from `usage` (compute_node_usage layout: [host][node * R + r]), then per host type, blocks of up to
 * 256 hosts in structure-of-arrays layout: every flavor's capacity vectors in one batched pass
 * (CapacityVectors::compute_batch) and VMCAP by the batched closed forms (BatchEvaluator,
 * vmcap_batch.h; the exact fallback per vector where there is no closed form), plus the
 * topology-free bound per flavor. Same values as the scalar path (tests/vmcap_batch_test.cpp).
 * Under a destination-node rule that counts capacity (CapacityModel::counts_by_rule) `cap` is
 * the rule's count per host (CapacityModel::host_capacity), `bound` unchanged.
 * O(hosts x flavors x (n x R + VMCAP)); thread-safe (reads `model` only).
 */
ClusterCapacity cluster_capacity(const CapacityModel& model, const std::vector<std::vector<Amount>>& usage);

}  // namespace vmcap
