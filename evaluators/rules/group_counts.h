#pragma once
/**
 * @file group_counts.h
 * Members of server groups per (group, host), kept as per-state aggregates (AggregateHooks) by the
 * rules and terms over OpenStack server groups: the anti-affinity rule (placement_rules.h) and
 * the soft-anti-affinity term (soft_anti_affinity_term.h), both through GroupCountHooks.
 */
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "evaluators/interfaces/seams.h"

namespace vmcap {

/** Counts of members per (group, host); a group index per VM (-1: counted in none). Value type. */
struct GroupHostCounts final : StateAggregates {
    std::unordered_map<std::uint64_t, int> n;  ///< key(group, host) -> members there (entries > 0 only)

    static std::uint64_t key(int g, int h) {
        return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(g)) << 32) | static_cast<std::uint32_t>(h);
    }
    static int group_of_key(std::uint64_t k) { return static_cast<int>(k >> 32); }
    static int host_of_key(std::uint64_t k) { return static_cast<int>(k & 0xffffffffU); }

    /** From scratch: VM v counts in group[v] (if >= 0) on host[v] (if placed). O(VMs). */
    static GroupHostCounts of(std::span<const int> group, std::span<const int> host) {
        GroupHostCounts c;
        for (std::size_t v = 0; v < host.size(); ++v)
            if (group[v] >= 0 && host[v] != kUnplaced) ++c.n[key(group[v], host[v])];
        return c;
    }
    int count(int g, int h) const {
        const auto it = n.find(key(g, h));
        return it == n.end() ? 0 : it->second;
    }
    /** A member of group g moves from `from` to `to` (either may be kUnplaced). O(1). */
    void move(int g, int from, int to) {
        if (g < 0 || from == to) return;
        if (from != kUnplaced && --n[key(g, from)] == 0) n.erase(key(g, from));
        if (to != kUnplaced) ++n[key(g, to)];
    }
    std::unique_ptr<StateAggregates> clone() const override { return std::make_unique<GroupHostCounts>(*this); }
};

/**
 * The aggregate hooks of a term or rule (`Seam`: ObjectiveTerm or FeasibilityFilter) that keeps
 * the members of its groups per host as GroupHostCounts: VM v counts in group counted_[v] (-1: in
 * none), set by the derived constructor. Arrivals and departures are supported (an unplaced VM
 * counts nowhere). make_aggregates and check_aggregates O(VMs); on_move O(1). Instantiated for
 * ObjectiveTerm and FeasibilityFilter (group_counts.cpp).
 */
template <class Seam>
class GroupCountHooks : public Seam {
public:
    std::unique_ptr<StateAggregates> make_aggregates(const SearchState& state) const override;
    void on_move(StateAggregates& agg, const SearchState& state, const Relocation& r) const override;
    bool supports_arrivals() const override { return true; }
    /** "<name> member counts differ" when the kept counts are not those from scratch. */
    std::string check_aggregates(const StateAggregates& cached, const SearchState& state) const override;

protected:
    /** Nobody counted yet, for a problem of `vms` VMs. */
    explicit GroupCountHooks(std::size_t vms) : counted_(vms, -1) {}
    /** The counts kept for `state` (its aggregates of this term or rule). O(1). */
    const GroupHostCounts& counts(const SearchState& state) const;

    std::vector<int> counted_;  ///< per VM: the group it counts in, or -1
};

}  // namespace vmcap
