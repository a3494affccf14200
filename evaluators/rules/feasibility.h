#pragma once
/**
 * @file feasibility.h
 * The feasibility rules, in one place. Built in (inline, on every hot path): a VM must be
 * migratable, its pNUMA nodes must have room in every resource (node capacity), and the plan must
 * stay within the migration budget (count and RAM, Constraints; evaluators/rules/migration_budget.h,
 * checked by each move per candidate placement through BudgetUse). Further rules are
 * FeasibilityFilter objects listed in the CapacityModel (evaluators/objective/objective.h), consulted by
 * every move before any capacity work through filters_admit().
 */
#include <cstdint>
#include <span>
#include <string>

#include "evaluators/rules/migration_budget.h"
#include "evaluators/state/search_state.h"

namespace vmcap {

/** Does (migration count, migrated RAM in MiB) respect the budget of `s` (the snapshot's
 *  Constraints, or the share SearchState::set_budget gave it)? O(1). For moves that sum their own
 *  outcome (of more VMs than BudgetUse takes). */
inline bool within_budget(const SearchState& s, std::int64_t migrations, Amount ram_mib) {
    return migrations <= s.max_migrations() && ram_mib <= s.max_migrated_ram_mib();
}

/**
 * The migration budget as one move sees it: the state's migrated count and RAM with the moved
 * VMs' present share taken back. Small value type; O(1) to build and query; reads `s` only in the
 * constructor.
 */
class BudgetUse {
public:
    /** For a move that relocates `a` and, if `b` >= 0, `b` (a != b) on `s`. */
    BudgetUse(const SearchState& s, int a, int b = -1) {
        const Problem& p = s.problem();
        ram_a_ = p.flavors[s.flavor_of(a)].demand[kRamMib];
        const bool was_a = s.is_migrated(a);
        base_ = s.migrations() - (was_a ? 1 : 0);
        base_ram_ = s.migrated_ram_mib() - (was_a ? ram_a_ : 0);
        if (b >= 0) {
            ram_b_ = p.flavors[s.flavor_of(b)].demand[kRamMib];
            const bool was_b = s.is_migrated(b);
            base_ -= was_b ? 1 : 0;
            base_ram_ -= was_b ? ram_b_ : 0;
        }
        max_count_ = s.max_migrations();
        max_ram_ = s.max_migrated_ram_mib();
    }
    /** SearchState::migrations() after the move when `a` ends migrated iff `ma` and `b` iff `mb`. */
    std::int64_t migrations_after(bool ma, bool mb = false) const { return base_ + (ma ? 1 : 0) + (mb ? 1 : 0); }
    /** SearchState::migrated_ram_mib() after that move (MiB). */
    Amount ram_after(bool ma, bool mb = false) const { return base_ram_ + (ma ? ram_a_ : 0) + (mb ? ram_b_ : 0); }
    /** Does the state's budget (SearchState::max_migrations, max_migrated_ram_mib: the
     *  snapshot's Constraints or a region's share) admit that outcome? */
    bool admits(bool ma, bool mb = false) const { return migrations_after(ma, mb) <= max_count_ && ram_after(ma, mb) <= max_ram_; }

private:
    std::int64_t base_ = 0, max_count_ = 0;
    Amount base_ram_ = 0, ram_a_ = 0, ram_b_ = 0, max_ram_ = 0;
};

/**
 * O(1) necessary condition for a move of two VMs to fit the budget: `a` ends on host `host_a`,
 * `b` on `host_b`; each counts as migrated afterwards at least when it ends off its snapshot host
 * (on it, a remap may still count: the move's evaluation decides). False when even that cheapest
 * outcome exceeds the budget.
 */
inline bool pair_budget_admits(const SearchState& s, int a, int host_a, int b, int host_b) {
    return BudgetUse(s, a, b).admits(host_a != s.origin_of(a), host_b != s.origin_of(b));
}

/** Node capacity: room for a VM of `fl` on `nodes` (its k pNUMA nodes) in free amounts `free`
 *  ([node * R + r]). O(k x R). */
inline bool fits_nodes(const Amount* free, int R, const Flavor& fl, const std::uint8_t* nodes) {
    for (int i = 0; i < fl.num_vnuma(); ++i)
        for (int r = 0; r < R; ++r)
            if (free[nodes[i] * R + r] < fl.node_demand[r]) return false;
    return true;
}

/** From scratch, every rule of the model (CapacityModel::rules(): the migration budget against
 *  the snapshot's Constraints, then each filter) on `state`'s placement: "" if all hold, else
 *  "<rule name> rule: <reason>" for the first that fails. O(VMs + rules' violation()). For the
 *  solvers' re-checks of their optimum. */
std::string first_rule_violation(const CapacityModel& model, const SearchState& state);

/** Do all the model's extra feasibility filters admit `moves` on `state`? O(filters x cost). */
inline bool filters_admit(const SearchState& s, std::span<const Relocation> moves) {
    for (const auto& f : s.model().filters())
        if (!f->admits(s, moves)) return false;
    return true;
}

}  // namespace vmcap
