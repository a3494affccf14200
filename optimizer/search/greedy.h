#pragma once
/**
 * @file greedy.h
 * Greedy baseline, as published greedy consolidators do it: repeatedly apply the single migrate
 * move with the largest positive gain until the budget is spent or no move gains. The yardstick
 * the annealing is compared against (`vmcap plan --algorithm greedy`).
 */
#include "optimizer/search/search_params.h"

namespace vmcap {

/**
 * Runs the greedy baseline from the snapshot. Each round applies the exact best migrate move over
 * every (migratable VM, other host) pair, using that a move's delta splits into a source part
 * (per VM) and a destination part (per flavor and host). Incremental: per flavor a tournament
 * tree of the destination parts over hosts and one of the source parts over the flavor's VMs;
 * a round queries them (O(flavors x (log hosts + log VMs + VMs on the best host)) plus the
 * migrated VMs once the budget has no room for new ones) and refreshes only the two hosts the
 * applied move touched (O(flavors x log hosts + their VMs x log VMs) tree updates). It picks
 * exactly the move a scan over all pairs picks. The initial pass (every insertion and removal)
 * runs on `params.threads` oneTBB threads; the result does not depend on the thread count.
 * With further objective terms or feasibility filters (evaluators/interfaces/seams.h) the ranking uses
 * the VMCAP parts and every chosen move is re-scored completely (score_move) before it is
 * applied: greedy never applies a move that does not raise the whole objective, but may miss the
 * best one. Deterministic (ties: the VM with less RAM, then lowest VM index, then lowest host
 * index). Stops at `params.time_limit_s`, and as soon as the objective reaches
 * `params.bound_score` (StopReason::ProvenOptimal: no migration can then raise it).
 */
SearchResult greedy(const CapacityModel& model, const SearchParams& params);

}  // namespace vmcap
