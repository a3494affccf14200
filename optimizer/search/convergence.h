#pragma once
/**
 * @file convergence.h
 * A search's convergence trace point, shared by the search drivers (search_params.h) and the plan
 * they end in (optimizer/plan/plan.h, PlanInfo::convergence) without the search's parameters.
 */
#include <cstdint>

namespace vmcap {

/** One point of a search's convergence trace, taken at a synchronisation point. */
struct ConvergencePoint {
    double seconds = 0.0;          ///< since the search phase started (the pipeline adds greedy's time)
    std::int64_t evaluations = 0;  ///< candidate moves evaluated so far, all workers
    double objective = 0.0;        ///< best objective so far, objective units
};

}  // namespace vmcap
