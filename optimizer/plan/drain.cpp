#include "optimizer/plan/drain.h"

#include <algorithm>

#include "evaluators/rules/feasibility.h"
#include "moves/host_scratch.h"

namespace vmcap {

std::string drain_violation(const Problem& p, const std::vector<int>& host) {
    std::vector<char> drained(p.hosts.size(), 0);
    for (int h : p.constraints.drain_hosts) drained[h] = 1;
    for (std::size_t v = 0; v < host.size(); ++v)
        if (host[v] != kUnplaced && drained[host[v]])
            return "host \"" + p.hosts[host[v]].id + "\" is to be drained, but vm \"" + p.vms[v].id + "\" is still on it";
    return "";
}

std::vector<PlanStep> drain_steps(const CapacityModel& model) {
    const Problem& p = model.problem();
    std::vector<PlanStep> steps;
    if (p.constraints.drain_hosts.empty()) return steps;
    std::vector<char> drained(p.hosts.size(), 0);
    for (int h : p.constraints.drain_hosts) drained[h] = 1;
    std::vector<int> vms;
    for (std::size_t v = 0; v < p.vms.size(); ++v)
        if (drained[p.vms[v].host]) vms.push_back(static_cast<int>(v));
    std::stable_sort(vms.begin(), vms.end(), [&](int a, int b) {
        const auto& da = p.flavors[p.vms[a].flavor].demand;
        const auto& db = p.flavors[p.vms[b].flavor].demand;
        return da[kVcpu] != db[kVcpu] ? da[kVcpu] > db[kVcpu] : da[kRamMib] > db[kRamMib];
    });
    const auto fail = [&](int v, const std::string& why) {
        return InputError("constraints.drain_hosts: host \"" + p.hosts[p.vms[v].host].id + "\" cannot be emptied: vm \"" + p.vms[v].id +
                          "\" " + why);
    };
    SearchState s(model);
    std::int64_t count = 0;
    Amount ram = 0;
    for (int v : vms) {
        if (!p.vms[v].migratable) throw fail(v, "is not migratable");
        const Flavor& fl = p.flavors[p.vms[v].flavor];
        const int from = s.host_of(v);
        int best_host = -1, best_e = -1;
        Score best = 0;
        for (int h = 0; h < static_cast<int>(p.hosts.size()); ++h) {
            if (drained[h]) continue;
            const Relocation probe{v, from, h, 0};
            if (!filters_admit(s, std::span(&probe, 1))) continue;
            HostScratch hs;
            hs.load(s, h);
            const auto& placements = model.evaluator(p.hosts[h].type, p.vms[v].flavor).placements();
            Score g = 0;
            const int e = hs.best_placement(s, p.vms[v].flavor, g);
            if (e < 0 || !step_fits(s, v, h, placements[e].map)) continue;
            const Relocation r{v, from, h, placements[e].mask};
            for (const auto& t : model.terms()) g += t->delta(s, std::span(&r, 1));
            if (best_host < 0 || g > best) best_host = h, best_e = e, best = g;
        }
        if (best_host < 0) throw fail(v, "(flavor " + fl.name + ") fits no host that the rules leave open");
        if (++count > p.constraints.max_migrations || (ram += fl.demand[kRamMib]) > p.constraints.max_migrated_ram_mib)
            throw InputError("constraints.drain_hosts: emptying the drained hosts takes " + std::to_string(vms.size()) +
                             " live migrations, more than the migration budget allows");
        const Embedding& emb = model.evaluator(p.hosts[best_host].type, p.vms[v].flavor).placements()[best_e];
        PlanStep st;
        st.vm = v;
        st.from_host = from;
        st.to_host = best_host;
        st.from_pnuma = p.vms[v].pnuma;
        st.to_pnuma = emb.map;
        s.move(v, best_host, emb);
        steps.push_back(st);
    }
    return steps;
}

}  // namespace vmcap
