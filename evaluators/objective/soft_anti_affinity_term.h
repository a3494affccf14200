#pragma once
/**
 * @file soft_anti_affinity_term.h
 * OpenStack's "soft-anti-affinity" server groups as an objective term: members apart where it
 * costs little capacity. Value: -W x sum over soft groups g and hosts h of max(0, members of g on
 * h - 1) — W objective units (a weight-1 VM of capacity) per member sharing a host with another.
 */
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "evaluators/interfaces/seams.h"
#include "evaluators/rules/group_counts.h"

namespace vmcap {

class SoftAntiAffinityTerm final : public GroupCountHooks<ObjectiveTerm> {
public:
    static constexpr std::string_view kName = "soft-anti-affinity";
    static constexpr std::string_view kHelp =
        "objective penalty per member of a soft-anti-affinity server group that shares a host with another member (objective units; "
        "0: off)";

    /** Throws std::invalid_argument if `weight` is negative, above kMaxWeight or has more than
     *  three decimals. */
    SoftAntiAffinityTerm(const Problem& problem, double weight);

    std::string_view name() const override { return kName; }
    double weight() const override { return w_; }
    /** Reads the moved VMs and the members counts of the hosts they leave and enter. */
    bool separable_per_host() const override { return true; }
    /** A VM arriving on a host never raises the term (it can only add a shared member). */
    bool monotone_under_insertion() const override { return true; }
    TermShape shape() const override { return TermShape::NonPositive; }

    /** Exact: per relocation, +W if it leaves a host where its group has >= 2 members, -W if it
     *  enters one with >= 1, counted with the move's earlier relocations. O(moves^2). */
    Score delta(const SearchState& state, std::span<const Relocation> moves) const override;
    /** W per listed VM whose host holds another member of its group now (at best each leaves). */
    double bound(const SearchState& state, std::span<const int> vms) const override;
    /** From scratch. O(VMs). */
    Score value(const Problem& problem, const PlacementView& placement) const override;

private:
    double w_;
    Score unit_;  ///< score of one shared member: W in thousandths x 1024 (score.h)
    // counted_ (GroupCountHooks), per VM: index of its soft-anti-affinity group in problem.server_groups, or -1
};

}  // namespace vmcap
