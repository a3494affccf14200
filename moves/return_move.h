#pragma once
/**
 * @file return_move.h
 * Return move: a migrated VM goes back to its snapshot placement (host and pNUMA nodes) and gives
 * its migration and RAM back to the budget. A small value type: evaluate() is const and exact,
 * apply() is separate.
 */
#include <cstdint>

#include <string_view>

#include "evaluators/state/search_state.h"
#include "moves/move.h"

namespace vmcap {

/** Result of ReturnMove::evaluate. */
struct ReturnDelta : DeltaHead {};

/** Off by default (kDefaultShare 0): migrate proposals already send migrated VMs home (1 in 16,
 *  on the best nodes there); docs/performance.md has the measurement. No cheap upper bound. */
struct ReturnMove {
    static constexpr std::string_view kName = "return";
    using Delta = ReturnDelta;

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

    /** The VM back to its snapshot host and nodes. */
    int relocations(const SearchState& state, const ReturnDelta& d, Relocation* out) const;
    int host_relocations(const SearchState& state, Relocation* out) const { return relocating(state, out, vm, state.origin_of(vm)); }

    /** Applies a feasible result of evaluate() on the same state. */
    void apply(SearchState& state, const ReturnDelta& d) const;

    /** A random migrated VM; false if none is migrated. */
    static bool propose(ProposalContext& ctx, ReturnMove& out);
};

}  // namespace vmcap
