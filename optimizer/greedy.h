#pragma once
/**
 * @file greedy.h
 * Greedy baseline, as published greedy consolidators do it: repeatedly apply the single migrate
 * move with the largest positive gain until the budget is spent or no move gains. The yardstick
 * the annealing is compared against (`vmcap plan --algorithm greedy`).
 */
#include "optimizer/search_params.h"

namespace vmcap {

/**
 * Runs the greedy baseline from the snapshot. Each round finds the exact best migrate move over
 * every (migratable VM, other host) pair, using that a move's delta splits into a source part
 * (per VM) and a destination part (per flavor and host): O(VMs + flavors x hosts) per round after
 * refreshing the two touched hosts. With further objective terms or feasibility filters
 * (evaluators/objective.h) the ranking uses the VMCAP parts and every chosen move is re-scored
 * completely (score_move) before it is applied: greedy never applies a move that does not raise
 * the whole objective, but may miss the best one. Deterministic (ties: the VM with less RAM, then lowest VM index,
 * then lowest host index).
 * Stops at `params.time_limit_s`. Thread count is ignored (sequential).
 */
SearchResult greedy(const CapacityModel& model, const SearchParams& params);

}  // namespace vmcap
