#include "optimizer/solvers/make_room.h"

#include <cstdio>
#include <limits>

#include "evaluators/state/capacity_model.h"
#include "optimizer/plan/plan.h"
#include "optimizer/search/greedy.h"
#include "optimizer/solvers/cluster_now.h"

namespace vmcap {

std::vector<Placement> make_room(const SearchState& state, int vm, int k) {
    const int flavor = state.flavor_of(vm);
    // The cluster as it stands (its VMs where they are now: their new origin), the arriving
    // flavor the only target, k migrations.
    std::vector<int> original;  // q's VM -> state's
    Problem q = cluster_now(state, original);
    for (Flavor& f : q.flavors) f.weight = 0.0;
    q.flavors[static_cast<std::size_t>(flavor)].weight = 1.0;
    q.constraints.max_migrations = k;
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

Problem cluster_now(const SearchState& state, std::vector<int>& original) {
    const Problem& p = state.problem();
    Problem q;
    q.resources = p.resources;
    q.host_types = p.host_types;
    q.hosts = p.hosts;
    q.network = p.network;
    q.flavors = p.flavors;
    original.clear();
    std::vector<int> index(p.vms.size(), -1);  // state's VM -> q's
    for (int v = 0; v < static_cast<int>(p.vms.size()); ++v) {
        if (!state.is_placed(v)) continue;
        index[static_cast<std::size_t>(v)] = static_cast<int>(q.vms.size());
        Vm x = p.vms[static_cast<std::size_t>(v)];
        if (x.id.empty()) {  // arrivals of a replay have no ids: plans and validate name VMs by id
            char id[24];
            std::snprintf(id, sizeof id, "a%d", v);
            x.id = id;
        }
        x.host = state.host_of(v);
        const int nv = p.flavors[static_cast<std::size_t>(x.flavor)].num_vnuma();
        for (int i = 0; i < nv; ++i) x.pnuma[static_cast<std::size_t>(i)] = state.pnuma_of(v)[i];
        original.push_back(v);
        q.vms.push_back(std::move(x));
    }
    q.vdcs = p.vdcs;
    for (const Vlink& l : p.vlinks) {
        const int a = index[static_cast<std::size_t>(l.a)], b = index[static_cast<std::size_t>(l.b)];
        if (a >= 0 && b >= 0) q.vlinks.push_back(Vlink{a, b, l.mbps, l.vdc});
    }
    q.server_groups.clear();  // groups name VMs by index: not carried over (placement/ has none)
    q.constraints = Constraints{};
    finalize_problem(q, "<cluster now>");
    return q;
}

}  // namespace vmcap
