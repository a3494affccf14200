#pragma once
/**
 * @file make_room.h
 * Live migrations that make room for an arriving VM no host can take (`vmcap place
 * --migrations-per-request K`, placement/admission.h): the consolidation engine run on the
 * cluster as it is now, with the arriving VM's flavor as the only target and a budget of K
 * migrations, its best state ordered into an executable plan. No published placer does this.
 */
#include <vector>

#include "evaluators/state/search_state.h"

namespace vmcap {

/**
 * At most `k` live migrations on `state` (the VMs on a host; arriving VMs not placed yet are left
 * out) after which a VM of the flavor of `vm` fits on some host, in execution order, each step
 * fitting once the ones before it are done (build_plan, optimizer/plan/plan.h); empty when the
 * greedy search (optimizer/search/greedy.h: the move that adds most capacity of that flavor, again
 * until the budget or no gain) finds none. The cluster's own budget and weights do not apply: this
 * is the scheduler's budget for one request. With vlinks, every step keeps every link within
 * capacity (the link rule of the model built from the VMs on a host, their vlinks among them).
 * Deterministic. Cost: a capacity model and greedy on the whole cluster (O(VMs + hosts) set-up,
 * then greedy's rounds).
 */
std::vector<Placement> make_room(const SearchState& state, int vm, int k);

}  // namespace vmcap
