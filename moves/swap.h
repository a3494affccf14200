#pragma once
/**
 * @file swap.h
 * Swap move: two VMs on different hosts exchange hosts, each on its best placement on the other's
 * host once both have left. A small value type: evaluate() is const and exact, apply() separate.
 */
#include <cstdint>

#include <string_view>

#include "evaluators/state/search_state.h"
#include "moves/move.h"

namespace vmcap {

/** Result of SwapMove::evaluate. */
struct SwapDelta : DeltaHead {
    int embedding_a = -1;  ///< a's placement on b's host: evaluator(type, flavor a).placements() index
    int embedding_b = -1;  ///< b's placement on a's host
    bool a_first = true;   ///< execution order of the two migrations (see evaluate)
};

/** No cached evaluation (both hosts change together): score_move uses evaluate(state). */
struct SwapMove {
    static constexpr std::string_view kName = "swap";
    static constexpr bool kCompound = true;
    /** Rare by default: a swap costs 10-30 cached migrate evaluations (docs/performance.md). */
    static constexpr double kDefaultShare = 0.03;
    using Delta = SwapDelta;

    int a = -1;
    int b = -1;

    /**
     * Exact weighted delta of a -> host_of(b) and b -> host_of(a) without mutating `state`.
     * Placements are chosen on the hosts after both VMs left; the pair must also be executable
     * as two live migrations in sequence: the first VM's placement has room on the other host
     * while the second VM is still there (the second then fits by construction). Among all such
     * pairs within the budget the largest delta wins; ties go to fewer migrations, then to
     * a first, then to the lowest node masks. Budget semantics are SearchState's: after the swap
     * a VM counts as migrated iff it is off its snapshot (host, node set), so the count changes by
     * (a, b migrated after) - (a, b migrated before): +2 for two snapshot VMs, 0 for two VMs that
     * were already migrated and do not land on their snapshot placement, -1/-2 when one returns.
     * Infeasible if a == b, either VM is not migratable, they share a host, no placement pair
     * has room, or the budget (count and RAM) would be exceeded.
     * O((placements_a + placements_b) x targets x (k x R + VMCAP)); allocation-free.
     */
    SwapDelta evaluate(const SearchState& state) const;

    /**
     * O(1) necessary condition for feasibility: false when even the cheapest outcome (each VM
     * counts as migrated unless it lands on its snapshot host) exceeds the migration budget
     * (count or RAM), in which case evaluate() returns infeasible. Lets a search reject the move
     * before any capacity is computed (at a full budget nearly every swap of two snapshot VMs).
     * Precondition: a and b are valid VM indices.
     */
    bool budget_admits(const SearchState& state) const;

    /**
     * Upper bound on the delta from cached halves, valid because VMCAP never grows when a VM is
     * added to a host: the sum of the two removal deltas (the VMs leave different hosts).
     * -kNoBound when budget_admits() is false; kNoBound when a and b share a host.
     */
    double upper_bound(const SearchState& state, MoveCache& cache) const;

    /** a to b's host and b to a's host, in the order of d.a_first. */
    int relocations(const SearchState& state, const SwapDelta& d, Relocation* out) const;
    int host_relocations(const SearchState& state, Relocation* out) const {
        return relocating(state, out, a, state.host_of(b), b, state.host_of(a));
    }

    /** Applies a feasible result of evaluate() on the same state: two SearchState::move calls. */
    void apply(SearchState& state, const SwapDelta& d) const;

    /** Two random migratable VMs of different flavors on different hosts (4 tries for b). */
    static bool propose(ProposalContext& ctx, SwapMove& out);
};

}  // namespace vmcap
