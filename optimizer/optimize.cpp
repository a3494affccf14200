#include "optimizer/optimize.h"

#include <algorithm>
#include <stdexcept>

#include "optimizer/annealing.h"
#include "optimizer/greedy.h"

namespace vmcap {

void OptimizeParams::validate() const {
    search.validate();
    if (tabu.tenure < 0) throw std::invalid_argument("tabu tenure must be >= 0");
    if (tabu.candidates < 1) throw std::invalid_argument("tabu candidate list size must be >= 1");
}

OptimizeResult optimize(const CapacityModel& model, const OptimizeParams& params) {
    params.validate();
    OptimizeResult out;
    SearchParams sp = params.search;
    SearchResult& sr = out.search;
    if (params.algorithm == Algorithm::Greedy || params.greedy_start) sr = greedy(model, sp);
    out.greedy_best = sr.best;
    if (params.algorithm != Algorithm::Greedy) {
        const double greedy_seconds = sr.seconds;
        const std::int64_t greedy_evals = sr.evaluations;
        if (params.greedy_start) sp.start = sr.best;
        sp.time_limit_s = std::max(1e-3, params.search.time_limit_s - greedy_seconds);
        sr = params.algorithm == Algorithm::Annealing ? anneal(model, sp) : tabu_search(model, sp, params.tabu);
        out.phase_seconds = sr.seconds;
        out.phase_evaluations = sr.evaluations;
        sr.seconds += greedy_seconds;
        sr.evaluations += greedy_evals;
    }
    out.plan = build_plan(model, sr.best);
    // The search optimises final states; if its state cannot be ordered within the budget as
    // well as the greedy one (moves dropped), the greedy plan is written: never worse than greedy.
    if (params.algorithm != Algorithm::Greedy && params.greedy_start && out.plan.dropped > 0) {
        Plan g = build_plan(model, out.greedy_best);
        if (g.objective_after > out.plan.objective_after) {
            out.plan = std::move(g);
            out.fell_back = true;
        }
    }
    return out;
}

}  // namespace vmcap
