#pragma once
/**
 * @file fit.h
 * Does a VM of a flavor fit on a host of a SearchState, and in which of its placements: questions
 * about the state's free amounts (pNUMA node capacity in every resource), asked by the placers
 * (placement/placer.h), the plan builder (optimizer/plan/plan.cpp) and the simulation. They
 * consult no feasibility rule beyond node capacity, except the two that ask the destination-node
 * rule (assigned_nodes, rule_admits_step).
 */
#include "evaluators/state/search_state.h"

namespace vmcap {

/** Does a VM of `flavor` fit on `host` in placement `emb` (room in every resource of each of its
 *  pNUMA nodes)? O(k x R). */
bool fits(const SearchState& state, int flavor, int host, const Embedding& emb);

/** Index of the first placement of `flavor` on `host` that fits, or -1. O(placements x k x R). */
int first_fitting_placement(const SearchState& state, int flavor, int host);

/** Index of the placement of `flavor` on `host` that fits leaving the least free vCPU on its
 *  pNUMA nodes (ties: lowest index, i.e. lowest node mask), or -1. O(placements x k x R). */
int tightest_placement(const SearchState& state, int flavor, int host);

/** Index of the placement of `flavor` on `host` that fits leaving the most free vCPU on its pNUMA
 *  nodes (ties: lowest index), or -1: worst fit's choice on a host. O(placements x k x R). */
int loosest_placement(const SearchState& state, int flavor, int host);

/** tightest_placement of `flavor` on `host` against the free amounts `free` ([node x R + r], e.g.
 *  a scratch copy of SearchState::free_of(host) with a batch's earlier VMs taken off) instead of
 *  the state's; with `take`, the chosen placement's demand is subtracted from `free`. -1: none fits. */
int tightest_placement_on(const SearchState& state, int flavor, int host, Amount* free, bool take);

/** The pNUMA node set that the model's destination-node rule (CapacityModel::node_rule) assigns to
 *  a VM of `flavor` arriving on `host` whose free amounts are `free` ([node x R + r], the VM not
 *  there): the mask of its placement, 0 when it places none there. Precondition:
 *  model.fixes_nodes(). O(the rule's assign()). */
NodeMask assigned_nodes(const CapacityModel& model, int flavor, int host, const Amount* free);

/** May one plan step move `vm` onto pNUMA node set `mask` of `host` in `state` now, as the
 *  destination-node rule sees it? Always when the rule leaves the choice free; under a rule that
 *  fixes nodes, only onto a host other than the VM's own (a remap arrives nowhere), on the set the
 *  rule assigns there now (assigned_nodes on state.free_of(host)). O(1) or the rule's assign(). */
bool rule_admits_step(const SearchState& state, int vm, int host, NodeMask mask);

/** Free amounts of one host summed over its pNUMA nodes and of its largest node, in vCPU and RAM
 *  (MiB): necessary conditions a strategy checks before looking at placements. */
struct HostFree {
    Amount vcpu = 0, ram_mib = 0;            ///< sum over the host's pNUMA nodes
    Amount node_vcpu = 0, node_ram_mib = 0;  ///< the most any one node has free (each separately)
};
/** HostFree of `host` now. O(nodes). */
HostFree host_free(const SearchState& state, int host);

}  // namespace vmcap
