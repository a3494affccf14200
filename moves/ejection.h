#pragma once
/**
 * @file ejection.h
 * Depth-2 ejection chain: VM `a` goes to the host of VM `b`, which is first ejected to a third
 * host. Makes room-for-room trades that two separate migrate moves only reach through a
 * worsening or infeasible intermediate state. A small value type: evaluate() is const and exact,
 * apply() is separate.
 */
#include <cstdint>

#include <string_view>

#include "evaluators/state/search_state.h"
#include "moves/move.h"

namespace vmcap {

/** Result of EjectionMove::evaluate. */
struct EjectionDelta : DeltaHead {
    int embedding_a = -1;  ///< a's placement on b's host: evaluator(type, flavor a).placements() index
    int embedding_b = -1;  ///< b's placement on `host`
};

struct EjectionMove {
    static constexpr std::string_view kName = "ejection";
    static constexpr bool kCompound = true;
    /** Rare by default, like swap (docs/performance.md). */
    static constexpr double kDefaultShare = 0.03;
    using Delta = EjectionDelta;

    int a = -1;
    int b = -1;     ///< on the destination of a (any host other than a's)
    int host = -1;  ///< where b goes; != b's host (may be a's host)

    /**
     * Exact weighted delta of the chain in execution order, without mutating `state`:
     * (1) b -> `host` on a placement with room now (a still on its host if that is `host`);
     * (2) a -> b's former host, on a placement with room once b has left. Each step is a
     * feasible live migration on the state the previous one leaves. The pair of placements with
     * the largest combined delta within the budget wins (ties: fewer migrations, lowest masks).
     * Budget as in SearchState: the count changes by (a, b migrated after) - (a, b migrated
     * before); a VM landing on its snapshot placement gives its slot back. Infeasible if a == b,
     * either is not migratable, a and b share a host, `host` is b's host, no placement pair has
     * room, or the budget (count, RAM) would be exceeded. Works on tentative copies of the three
     * touched hosts' free amounts (HostScratch).
     * O((placements_a + placements_b) x targets x (k x R + VMCAP)); allocation-free.
     */
    EjectionDelta evaluate(const SearchState& state) const;

    /**
     * O(1) necessary condition for feasibility: false when even the cheapest outcome (each VM
     * counts as migrated unless it lands on its snapshot host) exceeds the migration budget
     * (count or RAM), in which case evaluate() returns infeasible. Lets a search reject the move
     * before any capacity is computed (at a full budget nearly every ejection of two snapshot VMs).
     * Precondition: a and b are valid VM indices.
     */
    bool budget_admits(const SearchState& state) const;

    /**
     * The same evaluation with step 1 taken from the worker's MoveCache when `host` is neither
     * a's host nor b's snapshot host (a's removal delta and b's best insertion there, both exact
     * for the current state): then only b's host is evaluated on a tentative copy. Same result
     * as evaluate(state).
     */
    EjectionDelta evaluate(const SearchState& state, MoveCache& cache) const;

    /**
     * Upper bound from cached halves (VMCAP never grows when a VM is added): a's and b's removal
     * deltas plus b's best insertion on `host` when that is not a's host. -kNoBound if the budget
     * or b's insertion rules the move out; kNoBound when a and b share a host or host is b's.
     */
    double upper_bound(const SearchState& state, MoveCache& cache) const;

    /** b to `host`, then a to b's former host, on the chosen nodes. */
    int relocations(const SearchState& state, const EjectionDelta& d, Relocation* out) const;
    int host_relocations(const SearchState& state, Relocation* out) const { return relocating(state, out, a, state.host_of(b), b, host); }

    /** Applies a feasible result of evaluate() on the same state: b's move, then a's. */
    void apply(SearchState& state, const EjectionDelta& d) const;

    /** A random migratable VM a goes to the host of another, b, which is ejected to a random third
     *  host (4 tries for a b on another host than a's). */
    static bool propose(ProposalContext& ctx, EjectionMove& out);
};

}  // namespace vmcap
