#include "evaluators/state/fit.h"

#include <algorithm>
#include <bit>

namespace vmcap {

bool fits(const SearchState& s, int flavor, int host, const Embedding& emb) {
    const Flavor& fl = s.problem().flavors[flavor];
    const int R = s.model().num_resources();
    const Amount* free = s.free_of(host);
    for (int i = 0; i < fl.num_vnuma(); ++i)
        for (int r = 0; r < R; ++r)
            if (free[emb.map[i] * R + r] < fl.node_demand[r]) return false;
    return true;
}

NodeMask assigned_nodes(const CapacityModel& model, int flavor, int host, const Amount* free) {
    const int e = model.node_choice(flavor, host, free);
    if (e < 0) return 0;
    return model.evaluator(model.problem().hosts[host].type, flavor).placements()[static_cast<std::size_t>(e)].mask;
}

bool rule_admits_step(const SearchState& s, int vm, int host, NodeMask mask) {
    if (!s.model().fixes_nodes()) return true;
    return s.host_of(vm) != host && assigned_nodes(s.model(), s.flavor_of(vm), host, s.free_of(host)) == mask;
}

int first_fitting_placement(const SearchState& s, int flavor, int host) {
    const auto& placements = s.model().evaluator(s.type_of(host), flavor).placements();
    for (std::size_t e = 0; e < placements.size(); ++e)
        if (fits(s, flavor, host, placements[e])) return static_cast<int>(e);
    return -1;
}

namespace {

/** tightest_placement against `free`; with `loosest`, the placement leaving the most free vCPU
 *  instead (ties: lowest index as well). */
int tightest_in(const SearchState& s, int flavor, int h, const Amount* free, bool loosest = false) {
    const auto& placements = s.model().evaluator(s.type_of(h), flavor).placements();
    const Flavor& fl = s.problem().flavors[static_cast<std::size_t>(flavor)];
    const int R = s.model().num_resources();
    int best = -1;
    Amount best_left = 0;
    for (std::size_t e = 0; e < placements.size(); ++e) {
        bool room = true;
        for (int i = 0; room && i < fl.num_vnuma(); ++i)
            for (int r = 0; r < R; ++r) room = room && free[placements[e].map[static_cast<std::size_t>(i)] * R + r] >= fl.node_demand[r];
        if (!room) continue;
        Amount left = 0;
        for (unsigned m = placements[e].mask; m; m &= m - 1) left += free[std::countr_zero(m) * R + kVcpu];
        if (best < 0 || (loosest ? left > best_left : left < best_left)) {
            best = static_cast<int>(e);
            best_left = left;
        }
    }
    return best;
}

}  // namespace

int tightest_placement(const SearchState& s, int flavor, int h) {
    return tightest_in(s, flavor, h, s.free_of(h));
}

int loosest_placement(const SearchState& s, int flavor, int h) {
    return tightest_in(s, flavor, h, s.free_of(h), true);
}

int tightest_placement_on(const SearchState& s, int flavor, int h, Amount* free, bool take) {
    const int e = tightest_in(s, flavor, h, free);
    if (e < 0 || !take) return e;
    const Flavor& fl = s.problem().flavors[static_cast<std::size_t>(flavor)];
    const int R = s.model().num_resources();
    const Embedding& emb = s.model().evaluator(s.type_of(h), flavor).placements()[static_cast<std::size_t>(e)];
    for (int i = 0; i < fl.num_vnuma(); ++i)
        for (int r = 0; r < R; ++r) free[emb.map[static_cast<std::size_t>(i)] * R + r] -= fl.node_demand[r];
    return e;
}

HostFree host_free(const SearchState& s, int host) {
    const int R = s.model().num_resources();
    const Amount* free = s.free_of(host);
    HostFree out;
    for (int i = 0; i < s.nodes_of(host); ++i) {
        const Amount v = free[i * R + kVcpu], m = free[i * R + kRamMib];
        out.vcpu += v;
        out.ram_mib += m;
        out.node_vcpu = std::max(out.node_vcpu, v);
        out.node_ram_mib = std::max(out.node_ram_mib, m);
    }
    return out;
}

}  // namespace vmcap
