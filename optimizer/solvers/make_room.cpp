#include "optimizer/solvers/make_room.h"

#include <limits>

#include "evaluators/state/capacity_model.h"
#include "optimizer/plan/plan.h"
#include "optimizer/search/greedy.h"

namespace vmcap {

std::vector<Placement> make_room(const SearchState& state, int vm, int k) {
    const Problem& p = state.problem();
    const int flavor = state.flavor_of(vm);
    // The cluster as it stands: its VMs on a host where they are now (their new origin), the
    // arriving flavor the only target.
    Problem q;
    q.resources = p.resources;
    q.host_types = p.host_types;
    q.hosts = p.hosts;
    q.network = p.network;  // no vlinks (precondition): the network carries no rule here
    q.flavors = p.flavors;
    for (Flavor& f : q.flavors) f.weight = 0.0;
    q.flavors[static_cast<std::size_t>(flavor)].weight = 1.0;
    std::vector<int> original;  // q's VM -> state's
    for (int v = 0; v < static_cast<int>(p.vms.size()); ++v) {
        if (!state.is_placed(v)) continue;
        Vm x = p.vms[static_cast<std::size_t>(v)];
        x.host = state.host_of(v);
        const int nv = p.flavors[static_cast<std::size_t>(x.flavor)].num_vnuma();
        for (int i = 0; i < nv; ++i) x.pnuma[static_cast<std::size_t>(i)] = state.pnuma_of(v)[i];
        x.migratable = p.vms[static_cast<std::size_t>(v)].migratable;
        original.push_back(v);
        q.vms.push_back(std::move(x));
    }
    q.constraints.max_migrations = k;
    q.constraints.max_migrated_ram_mib = std::numeric_limits<Amount>::max();
    finalize_problem(q, "<make room>");
    const CapacityModel model(q);
    SearchParams prm;
    prm.threads = 1;
    prm.quiet = true;
    prm.value_memo = false;
    const SearchResult r = greedy(model, prm);
    if (r.score_best <= 0) return {};
    const Plan plan = build_plan(model, r.best);
    if (plan.capacity_after.empty() || plan.capacity_after[static_cast<std::size_t>(flavor)] < 1) return {};
    std::vector<Placement> out;
    for (const PlanStep& s : plan.steps) out.push_back(Placement{original[static_cast<std::size_t>(s.vm)], s.to_host, s.to_pnuma});
    return out;
}

}  // namespace vmcap
