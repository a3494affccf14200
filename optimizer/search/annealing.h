#pragma once
/**
 * @file annealing.h
 * Parallel simulated annealing with reheats over the move kinds of moves/move_list.h (migrate,
 * swap, budget exchange, remap, return, ejection chain, gather; mix in SearchParams; proposal in
 * moves/proposal.h, cached evaluation in moves/move_cache.h; the per-move check and the
 * synchronisation points shared with tabu in optimizer/search/candidates.h). Each worker owns a
 * SearchState, a MoveCache and an Rng seeded from (seed, worker id); workers run a fixed number of
 * evaluations per round and meet at synchronisation points decided by counted work (not wall
 * time). Two ways to use threads
 * (SearchParams::regions):
 *  - host regions (default where the objective is separable per host): a domain decomposition,
 *    each worker owning a disjoint set of hosts and a share of the budget per round; the regions'
 *    moves add up exactly, so the workers run one chain at their combined rate and the regions'
 *    states (and bests) are merged at each synchronisation point;
 *  - chains: each worker anneals the whole cluster with its share of the evaluations, and the
 *    best state is shared in worker order at each synchronisation point.
 * Hence the same snapshot, seed, thread count and evaluation budget give the same result. A run
 * stopped by the time limit depends on machine speed (reported in stopped_by).
 */
#include "optimizer/search/search_params.h"

namespace vmcap {

/**
 * Runs the annealing. O(evaluations x move cost) plus, per synchronisation point, O(VMs + hosts)
 * per worker with host regions. Memory: one SearchState and MoveCache per worker. Thread-safe for
 * concurrent calls on the same model (each call owns its workers). Throws std::invalid_argument on
 * bad params, std::logic_error if a --check recomputation differs from the incremental state (with
 * host regions also: a merged state whose objective is not the sum of the regions', or beyond the
 * budget; a proposal outside its region under --check); exceptions of worker threads reach the
 * caller. Result: SearchResult::regions says which way the threads were used.
 */
SearchResult anneal(const CapacityModel& model, const SearchParams& params);

}  // namespace vmcap
