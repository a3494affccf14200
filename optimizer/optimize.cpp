#include "optimizer/optimize.h"

#include <algorithm>
#include <stdexcept>

#include "evaluators/feasibility.h"
#include "moves/host_scratch.h"
#include "optimizer/annealing.h"
#include "optimizer/greedy.h"

namespace vmcap {

void OptimizeParams::validate() const {
    search.validate();
    if (tabu.tenure < 0) throw std::invalid_argument("tabu tenure must be >= 0");
    if (tabu.candidates < 1) throw std::invalid_argument("tabu candidate list size must be >= 1");
}

std::vector<Placement> drop_neutral_remaps(const CapacityModel& model, const std::vector<Placement>& placements) {
    const Problem& p = model.problem();
    if (p.constraints.remap_counts_as_migration) return placements;
    SearchState s(model);
    s.set_placements(placements);
    for (bool changed = true; changed;) {
        changed = false;
        std::vector<int> remapped;
        for (int vm : s.displaced_vms())
            if (s.host_of(vm) == s.origin_of(vm)) remapped.push_back(vm);
        std::sort(remapped.begin(), remapped.end());
        for (int vm : remapped) {
            const Flavor& fl = p.flavors[s.flavor_of(vm)];
            const Embedding home = snapshot_embedding(p, vm);
            const int host = s.host_of(vm);
            const Relocation r{vm, host, host, home.mask};
            if (!filters_admit(s, std::span(&r, 1))) continue;
            HostScratch h;
            h.load(s, host);
            h.release(fl, s.pnuma_of(vm));
            if (!h.fits(fl, home.map.data())) continue;
            Score d = h.gain(s, &fl, home.map.data());
            for (const auto& t : model.terms()) d += t->delta(s, std::span(&r, 1));
            if (d < 0) continue;
            s.move(vm, host, home);
            changed = true;
        }
    }
    return s.displaced_placements();
}

OptimizeResult optimize(const CapacityModel& model, const OptimizeParams& params) {
    params.validate();
    OptimizeResult out;
    SearchParams sp = params.search;
    SearchResult& sr = out.search;
    if (params.algorithm == Algorithm::Greedy || params.greedy_start) sr = greedy(model, sp);
    out.greedy_best = sr.best;
    const bool stop_now = sr.stopped_by == StopReason::Interrupted;  // interrupted during greedy: no search phase
    if (params.algorithm != Algorithm::Greedy && !stop_now) {
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
    if (params.algorithm != Algorithm::Greedy) sr.best = drop_neutral_remaps(model, sr.best);
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
