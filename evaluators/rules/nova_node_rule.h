#pragma once
/**
 * @file nova_node_rule.h
 * The destination-node rules "nova-spread" and "nova-pack": OpenStack Nova picks a server's NUMA
 * cells itself (nova/virt/hardware.py numa_fit_instance_to_host, with Placement's host-level
 * check first; the pure fit is instances/nova_numa.h), and the live-migration API cannot name
 * them. A snapshot asks for one with its `node_rule` section (docs/format.md); `vmcap import
 * openstack` writes nova-spread by default. The rule also counts capacity as Nova admits it: VMs
 * of a flavor booted one at a time until Nova answers NoValidHost (counts_capacity()).
 */
#include <string_view>
#include <vector>

#include "evaluators/interfaces/seams.h"
#include "instances/nova_numa.h"

namespace vmcap {

/**
 * Nova's cell choice as a DestinationNodeRule. Built from the model's problem (its node_rule
 * settings and host types; precondition: node_rule_problem_error(problem) == "", which the
 * snapshot loader checks; the constructor throws std::invalid_argument otherwise). Immutable;
 * thread-safe for concurrent calls.
 */
class NovaNodeRule final : public DestinationNodeRule {
public:
    static constexpr std::string_view kSpreadHelp =
        "OpenStack Nova's NUMA cells, default order (packing_host_numa_cells_allocation_strategy=False): least vCPU used, then most "
        "free memory";
    static constexpr std::string_view kPackHelp =
        "OpenStack Nova's NUMA cells, packing order (packing_host_numa_cells_allocation_strategy=True): most vCPU used, then least "
        "free memory";

    explicit NovaNodeRule(const CapacityModel& model);
    std::string_view name() const override { return settings_.pack ? kNovaPackRule : kNovaSpreadRule; }
    bool fixes_nodes() const override { return true; }
    /** The placement (by node mask) of the cells nova_place picks on the host's cells, usage =
     *  node capacity - `free`; kNoPlacement when Placement or the cell fit refuses. O(n log n). */
    int assign(const CapacityModel& model, int flavor, int host, const Amount* free) const override;
    bool counts_capacity() const override { return true; }
    /** Nova's boot-until-NoValidHost count on one host (nova_place repeated). O(count x n log n),
     *  O(n) for a one-cell flavor (any fitting cell takes one of its slots: the sum of the nodes'
     *  slots, capped by Placement's host-level limits). */
    Count host_capacity(const CapacityModel& model, int host_type, int flavor, const Amount* free) const override;
    /** Nova's cells for a VM of `flavor` on a host of `host_type` with free amounts `free`. */
    NovaFit choose(const Problem& problem, int host_type, int flavor, const Amount* free) const;
    const NovaSettings& settings() const { return settings_; }

private:
    /** The host's cells with their usage from `free`, into `out` (n entries). */
    void cells(int host_type, const Amount* free, NovaCell* out) const;

    NovaSettings settings_;
    std::vector<std::vector<NovaCell>> sizes_;   ///< [host type][node]: pCPUs and memory, usage 0
    std::vector<std::vector<Amount>> capacity_;  ///< [host type][node * 2 + r]: the model's node capacity
};

}  // namespace vmcap
