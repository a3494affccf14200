#include "moves/insertion.h"

#include <optional>

#include "evaluators/state/capacity_change.h"
#include "evaluators/rules/feasibility.h"

namespace vmcap {

Score removal_delta(const SearchState& s, int vm) {
    const Flavor& fl = s.problem().flavors[s.flavor_of(vm)];
    const int k = fl.num_vnuma();
    const int R = s.model().num_resources();
    const Amount* nd = fl.node_demand.data();
    const int src = s.host_of(vm);
    const Amount* fs = s.free_of(src);
    const std::uint8_t* cur = s.pnuma_of(vm);
    Amount local[kMaxPNuma * kMaxResources];  // free amounts of the VM's nodes once it is gone
    for (int i = 0; i < k; ++i)
        for (int r = 0; r < R; ++r) local[cur[i] * R + r] = fs[cur[i] * R + r] + nd[r];
    return capacity_gain(s, src, node_mask(cur, k), local);
}

Insertion best_insertion(const SearchState& s, int flavor, int host, int vm) {
    Insertion out;
    const Problem& p = s.problem();
    const CapacityModel& m = s.model();
    const Flavor& fl = p.flavors[flavor];
    const int k = fl.num_vnuma();
    const int R = m.num_resources();
    const Amount* nd = fl.node_demand.data();
    const Amount* fd = s.free_of(host);
    const int type = s.type_of(host), n = s.nodes_of(host);
    const auto& placements = m.evaluator(type, flavor).placements();
    // The destination-node rule: free (every placement, the common case) or the one it assigns.
    std::size_t first = 0, last = placements.size();
    if (const int only = m.node_choice(flavor, host, fd); only != kAnyPlacement) [[unlikely]] {
        if (only == kNoPlacement) return out;
        first = static_cast<std::size_t>(only);
        last = first + 1;
    }
    std::optional<BudgetUse> budget;  // for a given VM only
    if (vm >= 0) budget.emplace(s, vm);
    Amount local[kMaxPNuma * kMaxResources];  // free amounts of the placement's nodes with the VM
    for (std::size_t e = first; e < last; ++e) {
        const Embedding& emb = placements[e];
        bool fits = true;
        for (int i = 0; i < k && fits; ++i)
            for (int r = 0; r < R; ++r) {
                const Amount l = fd[emb.map[i] * R + r] - nd[r];
                if (l < 0) {
                    fits = false;
                    break;
                }
                local[emb.map[i] * R + r] = l;
            }
        if (!fits) continue;
        const bool migrates = vm < 0 || s.differs_from_origin(vm, host, emb.mask);
        if (budget && !budget->admits(migrates)) continue;
        const Score gain = capacity_gain(s, host, type, n, emb.mask, local);
        if (out.embedding < 0 || gain > out.delta || (gain == out.delta && out.migrates && !migrates)) {
            out.embedding = static_cast<int>(e);
            out.delta = gain;
            out.migrates = migrates;
        }
    }
    if (out.embedding >= 0 && budget) out.migrations_after = budget->migrations_after(out.migrates);
    return out;
}

}  // namespace vmcap
