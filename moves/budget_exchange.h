#pragma once
/**
 * @file exchange.h
 * Budget exchange: a migrated VM `a` returns to its snapshot placement (giving its budget slot
 * back) and a VM `b` still on its snapshot placement migrates to `host` (taking that slot), as one
 * compound move. The move that keeps improving a plan whose migration budget is full.
 * A small value type: evaluate() is const and exact, apply() is separate.
 */
#include <cstdint>

#include <string_view>

#include "evaluators/state/search_state.h"
#include "moves/move.h"

namespace vmcap {

/** Result of BudgetExchangeMove::evaluate. */
struct BudgetExchangeDelta : DeltaHead {
    int embedding = -1;  ///< b's placement: evaluator(type of host, flavor b).placements() index
};

struct BudgetExchangeMove {
    static constexpr std::string_view kName = "exchange";
    static constexpr bool kCompound = true;
    static constexpr double kDefaultShare = 0.20;
    using Delta = BudgetExchangeDelta;

    int a = -1;     ///< a migrated VM; goes back to its snapshot (host, pNUMA nodes)
    int b = -1;     ///< a migratable VM on its snapshot placement
    int host = -1;  ///< b's destination, != b's host

    /**
     * Exact weighted delta of the two steps in order, without mutating `state`: (1) a returns to
     * its snapshot nodes, which must have room once a has left its current ones; (2) b takes its
     * best placement on `host` in the state after (1) (ties: lowest node mask). Each step is a
     * feasible live migration on the state the previous one leaves. The migration count is
     * unchanged (a stops counting, b starts); migrated RAM changes by ram(b) - ram(a) and must
     * stay within the budget. Works on tentative copies of the (at most 4) touched hosts' free
     * amounts (HostScratch), never on a copy of the state. Infeasible if a is not migrated, b is
     * migrated or not migratable, a == b, host is b's host, a's snapshot nodes or every placement
     * of b on host lack room, or the RAM budget would be exceeded.
     * O(placements_b x targets x (k x R + VMCAP) + hosts touched x targets x VMCAP); allocation-free.
     */
    BudgetExchangeDelta evaluate(const SearchState& state) const;

    /**
     * evaluate(state) through the cache. When the four hosts involved (a's current host, a's
     * snapshot host, b's host, b's destination) are distinct, each changes independently and the
     * delta is exactly the sum of four cached parts (a's removal, a's return, b's removal, b's best
     * insertion); when b's destination is a's current host (b takes the room a leaves) and the
     * other three are distinct, that host's part is the memoised vacated_insertion. When a is
     * remapped on its snapshot host (its current and snapshot hosts coincide) its whole part is the
     * cached return, and a destination there is vacated_insertion(returned). Otherwise (b on a's
     * current or snapshot host, or b sent to a's snapshot host from elsewhere) the uncached evaluate.
     * Same result as evaluate(state), exactly (integer score units).
     */
    BudgetExchangeDelta evaluate(const SearchState& state, MoveCache& cache) const;

    /**
     * Upper bound from cached parts (VMCAP never grows when a VM is added): the removal deltas of
     * a and b, plus a's return and b's best insertion where those hosts are otherwise untouched.
     * -kNoBound if a's return or b's insertion has no room; kNoBound where no cheap bound exists
     * (or the cached evaluation is exact anyway).
     */
    double upper_bound(const SearchState& state, MoveCache& cache) const;

    /** a back to its snapshot placement, then b to `host` on the chosen nodes. */
    int relocations(const SearchState& state, const BudgetExchangeDelta& d, Relocation* out) const;
    int host_relocations(const SearchState& state, Relocation* out) const { return relocating(state, out, a, state.origin_of(a), b, host); }

    /** Applies a feasible result of evaluate() on the same state: a's return, then b's move. */
    void apply(SearchState& state, const BudgetExchangeDelta& d) const;

    /**
     * A random migrated VM a returns home while a random VM b still on its snapshot placement goes
     * to the host a vacates half the time (the room it leaves is the likeliest use), else a quarter
     * each to a host of b's flavor's destination list or a uniform one. Random VMs come from
     * Proposal::random_vm (drawn ahead, prefetched), not from a sweep: consecutive VMs share a
     * host. False without a migrated VM or a suitable b in 4 tries.
     */
    static bool propose(ProposalContext& ctx, BudgetExchangeMove& out);
};

}  // namespace vmcap
