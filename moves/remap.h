#pragma once
/**
 * @file remap.h
 * Remap move: a VM stays on its host but moves to another pNUMA node set there (the best one).
 * A small value type: evaluate() is const and exact, apply() is separate.
 */
#include <cstdint>

#include "evaluators/search_state.h"

namespace vmcap {

/** Result of RemapMove::evaluate. */
struct RemapDelta {
    bool feasible = false;
    double delta = 0.0;                 ///< exact change of sum_f w_f * capacity_f
    int embedding = -1;                 ///< index into evaluator(host type, flavor).placements()
    std::int64_t migrations_after = 0;  ///< SearchState::migrations() after apply
};

struct RemapMove {
    int vm = -1;

    /**
     * Exact weighted delta of the best placement of `vm` on its current host other than its
     * current node set, without mutating `state`. Room is checked with the VM's own share
     * counted as free (as the plan builder and validator do for a same-host step). Budget:
     * a remap changes the VM's node set, so it counts as a migration unless it lands on the
     * snapshot placement (then it gives one back); placements that would exceed the budget
     * (count or RAM) are skipped. Ties go to the non-migrating placement, then the lowest mask.
     * Infeasible if the VM is not migratable or no other placement has room.
     * O(placements x targets x (k x R + VMCAP)); allocation-free.
     */
    RemapDelta evaluate(const SearchState& state) const;

    /** Applies a feasible result of evaluate() on the same state (SearchState::move, same host). */
    void apply(SearchState& state, const RemapDelta& d) const;
};

}  // namespace vmcap
