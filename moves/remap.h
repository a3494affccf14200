#pragma once
/**
 * @file remap.h
 * Remap move: a VM stays on its host but moves to another pNUMA node set there (the best one).
 * A small value type: evaluate() is const and exact, apply() is separate.
 */
#include <cstdint>

#include <string_view>

#include "evaluators/state/search_state.h"
#include "moves/move.h"

namespace vmcap {

/** Result of RemapMove::evaluate. */
struct RemapDelta : DeltaHead {
    int embedding = -1;  ///< index into evaluator(host type, flavor).placements()
};

/** No cached evaluation (one host, changed twice) and no cheap upper bound. */
struct RemapMove {
    static constexpr std::string_view kName = "remap";
    /** 2% by default: optima that put a VM on other pNUMA nodes of its own
     *  host — a swap of two full hosts through the destination's other node, 5 of the 30
     *  exact-with-links optima — are reached by no other move. 0.02 and 0.05 gave the same
     *  quality suite and medium table (docs/performance.md, "Quality"); with free remaps
     *  `vmcap plan` proposes 5%. */
    static constexpr double kDefaultShare = 0.02;
    using Delta = RemapDelta;

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

    /** The VM to other nodes of its own host. */
    int relocations(const SearchState& state, const RemapDelta& d, Relocation* out) const;
    int host_relocations(const SearchState& state, Relocation* out) const { return relocating(state, out, vm, state.host_of(vm)); }

    /** Applies a feasible result of evaluate() on the same state (SearchState::move, same host). */
    void apply(SearchState& state, const RemapDelta& d) const;

    /** A random migratable VM. Always succeeds. */
    static bool propose(ProposalContext& ctx, RemapMove& out);
};

}  // namespace vmcap
