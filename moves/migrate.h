#pragma once
/**
 * @file migrate.h
 * Migrate move: a VM goes to another host, on the placement (pNUMA node set) there that keeps the
 * most weighted capacity. A small value type: evaluate() is const and exact, apply() is separate.
 */
#include <cstdint>

#include "evaluators/search_state.h"

namespace vmcap {

/** Result of MigrateMove::evaluate. */
struct MigrateDelta {
    bool feasible = false;  ///< room on the destination nodes and the budget holds afterwards
    double delta = 0.0;     ///< exact change of the weighted objective sum_f w_f * capacity_f
    int embedding = -1;     ///< index into evaluator(dest type, flavor).placements()
    std::int64_t migrations_after = 0;  ///< SearchState::migrations() after apply
};

/**
 * Exact weighted-objective change of taking `vm` off its current host (source half of a migrate
 * move). Only the VM's pNUMA nodes' capacity entries change. O(targets x (k x R + VMCAP)).
 */
double removal_delta(const SearchState& state, int vm);

/** Best placement of a VM of some flavor on one host (destination half of a migrate move). */
struct Insertion {
    int embedding = -1;      ///< index into evaluator(host type, flavor).placements(); -1: nothing fits
    double delta = 0.0;      ///< exact weighted-objective change on that host
    bool migrates = true;    ///< false only when it puts `vm` back on its snapshot nodes
    std::int64_t migrations_after = 0;  ///< with `vm` >= 0: SearchState::migrations() after the move
};

/**
 * Best placement for a VM of `flavor` on `host` as the host is now: the feasible placement with the
 * largest weighted gain; ties go to the VM's snapshot placement (no migration), then to the lowest
 * node mask. With `vm` >= 0, placements that would break the migration budget are skipped; with
 * `vm` == -1 the budget is not considered. Does not remove `vm` from its current host: callers
 * pass a host other than the VM's own. O(placements x targets x (k x R + VMCAP)).
 */
Insertion best_insertion(const SearchState& state, int flavor, int host, int vm);

struct MigrateMove {
    int vm = -1;
    int host = -1;  ///< destination host, != current host

    /**
     * Exact weighted delta of the best placement on `host` without mutating `state`: only the
     * source and destination hosts are re-evaluated, and on them only the touched pNUMA nodes'
     * capacity entries change. Ties between placements go to the one that is not a migration
     * (back to the VM's original nodes), then to the lowest node mask, so evaluation is
     * deterministic. Infeasible if the VM is not migratable, `host` is its current host, no
     * placement has room, or the budget (Constraints) would be exceeded.
     * O(targets x (placements x (k x R + VMCAP))). Allocation-free.
     */
    MigrateDelta evaluate(const SearchState& state) const;

    /** Applies a feasible result of evaluate() on the same state. */
    void apply(SearchState& state, const MigrateDelta& d) const;
};

}  // namespace vmcap
