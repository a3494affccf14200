#pragma once
/**
 * @file insertion.h
 * The two per-host halves of a migrate move's VMCAP delta, which the move cache memoises by host
 * version and every move type builds on: taking a VM off its host (removal_delta) and the best
 * placement of a VM of some flavor on one host (best_insertion). Both go through the
 * capacity-change kernel (evaluators/state/capacity_change.h).
 */
#include <cstdint>

#include "evaluators/closed_forms/score.h"
#include "evaluators/state/search_state.h"

namespace vmcap {

/**
 * Exact weighted VMCAP change (score units) of taking `vm` off its current host (source half of a migrate
 * move). Only the VM's pNUMA nodes' capacity entries change. O(targets x (k x R + VMCAP)).
 */
Score removal_delta(const SearchState& state, int vm);

/** Best placement of a VM of some flavor on one host (destination half of a migrate move). */
struct Insertion {
    int embedding = -1;                 ///< index into evaluator(host type, flavor).placements(); -1: nothing fits
    Score delta = 0;                    ///< exact weighted VMCAP change on that host (score units)
    bool migrates = true;               ///< false only when it puts `vm` back on its snapshot nodes
    std::int64_t migrations_after = 0;  ///< with `vm` >= 0: SearchState::migrations() after the move
};

/**
 * Best placement for a VM of `flavor` on `host` as the host is now: the feasible placement with the
 * largest weighted VMCAP gain; ties go to the VM's snapshot placement (no migration), then to the
 * lowest node mask. With `vm` >= 0, placements that would break the migration budget are skipped;
 * with `vm` == -1 the budget is not considered. Under a destination-node rule that fixes nodes
 * (CapacityModel::node_choice) only the placement it assigns on the host now is considered (none
 * when it assigns none). Does not remove `vm` from its current host:
 * callers pass a host other than the VM's own. O(placements x targets x (k x R + VMCAP)).
 */
Insertion best_insertion(const SearchState& state, int flavor, int host, int vm);

}  // namespace vmcap
