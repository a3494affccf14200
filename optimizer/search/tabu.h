#pragma once
/**
 * @file tabu.h
 * Parallel tabu search over the same moves as the annealing (optimizer/search/candidates.h), chosen
 * with `vmcap plan --algorithm tabu`. Each iteration evaluates a sampled candidate list of
 * `tabu_candidates` moves (migrate sources swept, destinations random, move kinds by the mix)
 * and applies the best one that is not tabu, even if it worsens the objective; a VM that moved
 * stays tabu (may not move again) for a randomized tenure of [tenure, 2 x tenure] iterations,
 * unless the move reaches a new best of the worker (aspiration). Workers meet at synchronisation
 * points decided by counted evaluations, like the annealing: the same snapshot, seed, thread
 * count and evaluation budget give the same result.
 */
#include "optimizer/search/search_params.h"

namespace vmcap {

/** Tabu-specific parameters; the rest (budget, threads, seed, mix, start) come from SearchParams. */
struct TabuParams {
    int tenure = 25;       ///< iterations a moved VM stays tabu (randomized in [tenure, 2 x tenure]); >= 0
    int candidates = 256;  ///< candidate moves evaluated per iteration; >= 1
};

/**
 * Runs the tabu search. Never returns a state worse than the start (the best state starts as
 * it). Throws std::invalid_argument on bad params, std::logic_error if a --check recomputation
 * differs from the incremental state. Thread-safety: `model` is only read; workers own their
 * states. Cost per iteration: `candidates` evaluations plus one apply.
 */
SearchResult tabu_search(const CapacityModel& model, const SearchParams& params, const TabuParams& tabu);

}  // namespace vmcap
