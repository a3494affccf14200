#pragma once
/**
 * @file migration_budget.h
 * The migration budget, the engine's one built-in rule (Constraints::max_migrations,
 * max_migrated_ram_mib, remap_counts_as_migration), in one place.
 *
 * "Migrated" is defined once, by SearchState::differs_from_origin: a VM off its snapshot host, or
 * on it on other pNUMA nodes when remaps count as migrations. The state keeps the count and the
 * RAM (MiB) of its migrated VMs. A move that relocates VMs a (and b) takes their present share
 * back and adds it again for each that ends migrated; BudgetUse (evaluators/rules/feasibility.h) does
 * that sum once per evaluation, and every move asks it, per candidate placement, whether the budget admits the
 * outcome and how many migrations it leaves. MigrationBudget is the same rule as a
 * FeasibilityFilter over a move's relocations and, from scratch, over a placement: the reference
 * the moves' bookkeeping is tested against, and what CapacityModel::budget() names in reports.
 *
 * The moves enforce it inline (it is on every hot path, and a move's choice among placements
 * depends on it); it is therefore not one of CapacityModel::filters(), which every move consults
 * before its own evaluation. The exact solvers and the upper bound model it natively.
 */
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "evaluators/interfaces/seams.h"

namespace vmcap {

class SearchState;

/** Does VM `vm` of `problem` placed on (host, mask) count as migrated? Off its snapshot host
 *  always; on it, on other pNUMA nodes only if Constraints::remap_counts_as_migration. The one
 *  definition: SearchState::differs_from_origin and the from-scratch tally use it. O(k). */
inline bool differs_from_snapshot(const Problem& problem, int vm, int host, NodeMask mask) {
    const Vm& v = problem.vms[vm];
    if (v.host != host) return true;
    if (!problem.constraints.remap_counts_as_migration) return false;  // a remap is free
    return node_mask(v.pnuma.data(), problem.flavors[v.flavor].num_vnuma()) != mask;
}

/** Migration count and migrated RAM (MiB) of a placement or of a state after a move. */
struct BudgetTally {
    std::int64_t migrations = 0;
    Amount ram_mib = 0;
};

/** The migration budget as a rule over relocations and placements (see the file comment). */
class MigrationBudget final : public FeasibilityFilter {
public:
    std::string_view name() const override { return "migration-budget"; }
    /** One count over every host: host regions split it (SearchState::set_budget), they do not
     *  decompose it. */
    bool separable_per_host() const override { return false; }
    /** The state's count and RAM after `moves` run in order, from the relocations alone: each
     *  moved VM counts by where its last relocation leaves it (a to_mask of 0 means "nodes not
     *  chosen yet": counted as migrated only off its snapshot host, the cheapest outcome). O(moves^2). */
    static BudgetTally after(const SearchState& state, std::span<const Relocation> moves);
    /** after() within the state's budget (SearchState::max_migrations, max_migrated_ram_mib). */
    bool admits(const SearchState& state, std::span<const Relocation> moves) const override;
    /** From scratch: the placement's VMs that differ from the snapshot, counted and summed. O(VMs). */
    static BudgetTally tally(const Problem& problem, const PlacementView& placement);
    /** "" if tally() is within the snapshot's Constraints, else which limit it exceeds. */
    std::string violation(const Problem& problem, const PlacementView& placement) const override;
};

}  // namespace vmcap
