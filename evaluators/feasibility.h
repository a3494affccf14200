#pragma once
/**
 * @file feasibility.h
 * The feasibility rules, in one place. Built in (inline, on every hot path): a VM must be
 * migratable, its pNUMA nodes must have room in every resource (node capacity), and the plan must
 * stay within the migration budget (count and RAM, Constraints). Further rules are
 * FeasibilityFilter objects listed in the CapacityModel (evaluators/objective.h), consulted by
 * every move before any capacity work through filters_admit().
 */
#include <cstdint>
#include <span>

#include "evaluators/search_state.h"

namespace vmcap {

/** Does (migration count, migrated RAM in MiB) respect the budget of state `s` (the snapshot's
 *  Constraints, or the share SearchState::set_budget gave it)? O(1). */
inline bool within_budget(const SearchState& s, std::int64_t migrations, Amount ram_mib) {
    return migrations <= s.max_migrations() && ram_mib <= s.max_migrated_ram_mib();
}

/**
 * O(1) necessary condition for a move of two VMs to fit the budget: `a` ends on host `host_a`,
 * `b` on `host_b`; each counts as migrated afterwards at least when it ends off its snapshot host.
 * False when even that cheapest outcome exceeds the migration count or RAM budget.
 */
inline bool pair_budget_admits(const SearchState& s, int a, int host_a, int b, int host_b) {
    const Problem& p = s.problem();
    const Amount ra = p.flavors[s.flavor_of(a)].demand[kRamMib], rb = p.flavors[s.flavor_of(b)].demand[kRamMib];
    const bool was_a = s.is_migrated(a), was_b = s.is_migrated(b);
    const bool ma = host_a != s.origin_of(a), mb = host_b != s.origin_of(b);
    return within_budget(s, s.migrations() - was_a - was_b + ma + mb,
                         s.migrated_ram_mib() - (was_a ? ra : 0) - (was_b ? rb : 0) + (ma ? ra : 0) + (mb ? rb : 0));
}

/** Node capacity: room for a VM of `fl` on `nodes` (its k pNUMA nodes) in free amounts `free`
 *  ([node * R + r]). O(k x R). */
inline bool fits_nodes(const Amount* free, int R, const Flavor& fl, const std::uint8_t* nodes) {
    for (int i = 0; i < fl.num_vnuma(); ++i)
        for (int r = 0; r < R; ++r)
            if (free[nodes[i] * R + r] < fl.node_demand[r]) return false;
    return true;
}

/** Do all the model's extra feasibility filters admit `moves` on `state`? O(filters x cost). */
inline bool filters_admit(const SearchState& s, std::span<const Relocation> moves) {
    for (const auto& f : s.model().filters())
        if (!f->admits(s, moves)) return false;
    return true;
}

}  // namespace vmcap
