#include "evaluators/rules/nova_node_rule.h"

#include <algorithm>
#include <stdexcept>

#include "evaluators/state/capacity_model.h"

namespace vmcap {

NovaNodeRule::NovaNodeRule(const CapacityModel& model) : settings_(nova_settings(model.problem().node_rule)) {
    const Problem& p = model.problem();
    if (const std::string why = node_rule_problem_error(p); !why.empty()) throw std::invalid_argument(why);
    for (const HostType& ht : p.host_types) {
        sizes_.push_back(nova_cell_sizes(ht, settings_));
        capacity_.push_back(ht.node_capacity);
    }
}

void NovaNodeRule::cells(int host_type, const Amount* free, NovaCell* out) const {
    const auto& sz = sizes_[host_type];
    const auto& cap = capacity_[host_type];
    for (std::size_t i = 0; i < sz.size(); ++i) {
        out[i] = sz[i];
        out[i].cpu_usage = cap[i * 2 + kVcpu] - free[i * 2 + kVcpu];
        out[i].memory_usage = cap[i * 2 + kRamMib] - free[i * 2 + kRamMib];
    }
}

NovaFit NovaNodeRule::choose(const Problem& p, int host_type, int flavor, const Amount* free) const {
    NovaCell c[kMaxPNuma];
    const auto n = sizes_[host_type].size();
    cells(host_type, free, c);
    const Flavor& fl = p.flavors[flavor];
    return nova_place(std::span<const NovaCell>(c, n), fl.num_vnuma(), fl.node_demand[kVcpu], fl.node_demand[kRamMib], settings_);
}

int NovaNodeRule::assign(const CapacityModel& model, int flavor, int host, const Amount* free) const {
    const Problem& p = model.problem();
    const int type = p.hosts[host].type;
    const NovaFit fit = choose(p, type, flavor, free);
    if (!fit.found) return kNoPlacement;
    const NodeMask mask = node_mask(fit.cells.data(), p.flavors[flavor].num_vnuma());
    // Placements are listed by increasing mask, one per node set (topology.h, enumerate_embeddings).
    const auto& pl = model.evaluator(type, flavor).placements();
    const auto it = std::lower_bound(pl.begin(), pl.end(), mask, [](const Embedding& e, NodeMask m) { return e.mask < m; });
    return it != pl.end() && it->mask == mask ? static_cast<int>(it - pl.begin()) : kNoPlacement;
}

Count NovaNodeRule::host_capacity(const CapacityModel& model, int host_type, int flavor, const Amount* free) const {
    const Problem& p = model.problem();
    const Flavor& fl = p.flavors[flavor];
    const int k = fl.num_vnuma();
    const Amount v = fl.node_demand[kVcpu], m = fl.node_demand[kRamMib];
    NovaCell c[kMaxPNuma];
    const auto n = sizes_[host_type].size();
    cells(host_type, free, c);
    const std::span<const NovaCell> host(c, n);
    if (k == 1) {
        // Each arrival takes one slot of some fitting cell (node_b) and nothing else: the count is
        // the sum of the cells' slots, unless Placement's host-level limit stops it first.
        Count slots = 0;
        for (std::size_t i = 0; i < n; ++i)
            if (v <= c[i].pcpus && m <= c[i].memory_mib) slots += model.node_b(flavor, free + i * 2);
        // Placement admits c more iff used + c x amount <= limit in both classes; find the largest
        // c <= slots by the same comparison Nova makes (a binary search: admits is monotone in c).
        Count lo = 0, hi = slots;
        while (lo < hi) {
            const Count mid = lo + (hi - lo + 1) / 2;
            NovaCell shifted[kMaxPNuma];
            std::copy(c, c + n, shifted);
            shifted[0].cpu_usage += (mid - 1) * v;
            shifted[0].memory_usage += (mid - 1) * m;
            if (nova_placement_admits(std::span<const NovaCell>(shifted, n), v, m, settings_))
                lo = mid;
            else
                hi = mid - 1;
        }
        return lo;
    }
    Count count = 0;
    for (;;) {
        const NovaFit fit = nova_place(host, k, v, m, settings_);
        if (!fit.found) return count;
        for (int i = 0; i < k; ++i) {
            c[fit.cells[i]].cpu_usage += v;
            c[fit.cells[i]].memory_usage += m;
        }
        ++count;
    }
}

}  // namespace vmcap
