#pragma once
/**
 * @file placement_rules.h
 * Tenants' and operators' placement rules, each a FeasibilityFilter behind the
 * registry (registered_filters, evaluators/registry/registry.cpp), so the search, plan
 * building, the schedule's waves and `vmcap validate` all enforce them:
 *  - ServerGroupFilter: OpenStack server groups with policy "anti-affinity" (no two members on one
 *    host) and "affinity" (all members on one host);
 *  - ClosedHostsFilter: hosts closed to incoming VMs (constraints.drain_hosts, no_target_hosts).
 * "soft-anti-affinity" is an objective term (evaluators/objective/soft_anti_affinity_term.h).
 */
#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "evaluators/interfaces/seams.h"
#include "evaluators/rules/group_counts.h"

namespace vmcap {

/**
 * Anti-affinity: a member may not move onto a host that holds another member of its group — so
 * at most one member per host, or, on a host where the snapshot already has more (a policy Nova
 * did not enforce, e.g. a forced migration), no more than there. Affinity: a member of a group of
 * two or more may not leave its host (one live migration moves one VM, and the members must be
 * together at every instant), only be remapped on it; an arriving member (placement/) goes to the
 * host of the members already placed. Separable per host: reads the moved VMs and the counts of
 * the hosts they enter. Aggregates: members per (group, host). admits() O(moves^2); violation()
 * O(VMs).
 */
class ServerGroupFilter final : public GroupCountHooks<FeasibilityFilter> {
public:
    explicit ServerGroupFilter(const Problem& problem);

    static constexpr std::string_view kName = "server-groups";
    /** On when the snapshot has an anti-affinity or affinity group of two or more members. */
    static bool applies(const Problem& problem);
    std::string_view name() const override { return kName; }
    bool separable_per_host() const override { return true; }
    /** True: anti-affinity holds with the wave in flight — a member arriving on a host counts
     *  there beside the members still leaving it. Affinity members never change host. */
    bool holds_in_flight() const override { return true; }

    bool admits(const SearchState& state, std::span<const Relocation> moves) const override;
    /** From scratch: an anti-affinity group with more members on a host than max(1, the
     *  snapshot's count there), or an affinity member off its snapshot host. */
    std::string violation(const Problem& problem, const PlacementView& placement) const override;

private:
    /** Most members of anti-affinity group `g` (an index into groups_) that host `h` may hold:
     *  max(1, the snapshot's). */
    int allowed(int g, int h) const;

    const Problem& problem_;
    std::vector<int> group_;  ///< per VM: index into groups_, or -1
    // counted_ (GroupCountHooks), per VM: its group_ if that is an anti-affinity group (counted per host), else -1
    std::vector<int> groups_;   ///< hard groups: indices into problem.server_groups
    GroupHostCounts snapshot_;  ///< anti-affinity counts above 1 in the snapshot
};

/**
 * Hosts closed to incoming VMs: constraints.drain_hosts (which the plan also empties: the drain
 * phase of optimizer/solvers/optimize.h and `vmcap validate`'s end check) and
 * constraints.no_target_hosts. A VM may stay on, leave, or be remapped on a closed host; no VM may
 * move onto one from elsewhere. Separable per host; O(moves). violation() flags a VM on a closed
 * host it was not on in the snapshot (a VM that leaves and comes back is caught by `vmcap
 * validate`'s step check).
 */
class ClosedHostsFilter final : public FeasibilityFilter {
public:
    explicit ClosedHostsFilter(const Problem& problem);

    static constexpr std::string_view kName = "closed-hosts";
    static bool applies(const Problem& problem) {
        return !problem.constraints.drain_hosts.empty() || !problem.constraints.no_target_hosts.empty();
    }
    std::string_view name() const override { return kName; }
    bool separable_per_host() const override { return true; }
    bool supports_arrivals() const override { return true; }
    bool admits(const SearchState& state, std::span<const Relocation> moves) const override;
    std::string violation(const Problem& problem, const PlacementView& placement) const override;
    bool closed(int host) const { return closed_[host] != 0; }

private:
    std::vector<char> closed_;
};

/**
 * No remaps (constraints.remaps_allowed false): a VM may change host but not move to other pNUMA
 * nodes of the host it is on — OpenStack Nova has no operation for it. A rule on steps, not on
 * states: a live migration to another host and one back, onto other pNUMA nodes of the VM's first
 * host, are two host changes Nova can run, so a VM on its snapshot host on other nodes breaks
 * nothing. admits() refuses a relocation within one host; O(moves). violation() (a placement from
 * scratch, which cannot tell how it was reached) is always "": `vmcap validate` refuses each step
 * with from_host == to_host itself.
 */
class NoRemapFilter final : public FeasibilityFilter {
public:
    static constexpr std::string_view kName = "no-remaps";
    static bool applies(const Problem& problem) { return !problem.constraints.remaps_allowed; }
    std::string_view name() const override { return kName; }
    bool separable_per_host() const override { return true; }
    bool supports_arrivals() const override { return true; }
    bool admits(const SearchState& state, std::span<const Relocation> moves) const override;
    std::string violation(const Problem& problem, const PlacementView& placement) const override;
};

}  // namespace vmcap
