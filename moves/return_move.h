#pragma once
/**
 * @file return_move.h
 * Return move: a migrated VM goes back to its snapshot placement (host and pNUMA nodes) and gives
 * its migration and RAM back to the budget. A small value type: evaluate() is const and exact,
 * apply() is separate.
 */
#include <cstdint>

#include "evaluators/search_state.h"

namespace vmcap {

class MoveCache;

/** Result of ReturnMove::evaluate. */
struct ReturnDelta {
    bool feasible = false;
    double delta = 0.0;                 ///< exact change of sum_f w_f * capacity_f
    std::int64_t migrations_after = 0;  ///< SearchState::migrations() - 1
};

struct ReturnMove {
    int vm = -1;

    /**
     * Exact weighted delta of putting `vm` back on its snapshot (host, pNUMA nodes), without
     * mutating `state`. Infeasible unless the VM is migrated and its snapshot nodes have room
     * (counting its own share as free when it is on its snapshot host on other nodes). Always
     * within budget: it only gives budget back. O(targets x (k x R + VMCAP)); allocation-free.
     */
    ReturnDelta evaluate(const SearchState& state) const;

    /**
     * The same result through the worker's MoveCache: when the VM is on another host than its
     * snapshot host, the delta is its cached removal delta plus its cached return delta (the two
     * hosts change independently); otherwise evaluate(state).
     */
    ReturnDelta evaluate(const SearchState& state, MoveCache& cache) const;

    /** Applies a feasible result of evaluate() on the same state. */
    void apply(SearchState& state, const ReturnDelta& d) const;
};

}  // namespace vmcap
