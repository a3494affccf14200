#pragma once
/**
 * @file exchange.h
 * Budget exchange: a migrated VM `a` returns to its snapshot placement (giving its budget slot
 * back) and a VM `b` still on its snapshot placement migrates to `host` (taking that slot), as one
 * compound move. The move that keeps improving a plan whose migration budget is full.
 * A small value type: evaluate() is const and exact, apply() is separate.
 */
#include <cstdint>

#include "evaluators/search_state.h"

namespace vmcap {

/** Result of ExchangeMove::evaluate. */
struct ExchangeDelta {
    bool feasible = false;
    double delta = 0.0;                 ///< exact change of sum_f w_f * capacity_f (both steps)
    int embedding = -1;                 ///< b's placement: evaluator(type of host, flavor b).placements() index
    std::int64_t migrations_after = 0;  ///< always SearchState::migrations() (unchanged)
};

struct ExchangeMove {
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
    ExchangeDelta evaluate(const SearchState& state) const;

    /** Applies a feasible result of evaluate() on the same state: a's return, then b's move. */
    void apply(SearchState& state, const ExchangeDelta& d) const;
};

}  // namespace vmcap
