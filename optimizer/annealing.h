#pragma once
/**
 * @file annealing.h
 * Parallel simulated annealing with reheats over migrate, swap, budget-exchange, ejection-chain,
 * remap and return moves (moves/; mix in SearchParams; proposal and cached evaluation in
 * optimizer/candidates.h). Each worker owns a SearchState, a MoveCache and an Rng seeded from
 * (seed, worker id); workers run a fixed number of evaluations per round and meet at
 * synchronisation points decided by counted work (not wall time), where the best state is shared
 * in worker order. Hence the same snapshot, seed, thread count and evaluation budget give the same
 * result. A run stopped by the time limit depends on machine speed (reported in stopped_by).
 */
#include "optimizer/search_params.h"

namespace vmcap {

/**
 * Runs the annealing. Throws std::invalid_argument on bad params, std::logic_error if a --check
 * recomputation differs from the incremental state; exceptions of worker threads reach the caller.
 */
SearchResult anneal(const CapacityModel& model, const SearchParams& params);

}  // namespace vmcap
