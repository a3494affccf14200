#include "evaluators/network/network_report.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <utility>

#include "evaluators/closed_forms/score.h"

namespace vmcap {

namespace {

/** Name of the layer of a switch link whose ends have levels lo <= hi. */
std::string layer_name(int lo, int hi) {
    if (lo == 0 && hi == 0) return "ToR-ToR links";
    if (lo == 0) return "ToR uplinks";
    if (lo == 1 && hi == 2) return "aggregation uplinks";
    if (lo == hi) return "level-" + std::to_string(lo) + " lateral links";
    return "level-" + std::to_string(lo) + " uplinks";
}

}  // namespace

NetworkReport network_report(const Problem& p, const NetworkRoutes& routes, std::span<const int> host) {
    const auto loads = link_loads(p, routes, host);
    NetworkReport r;
    r.links = static_cast<std::size_t>(routes.num_links() / 2);  // links; each has two directions (arcs)
    r.vlinks = p.vlinks.size();
    for (const Vlink& v : p.vlinks) {
        const int x = host[v.a], y = host[v.b];
        r.in_vdcs += v.vdc >= 0 ? 1 : 0;
        r.same_host += x == y ? 1 : 0;
        if (p.network.host_switch[x] != p.network.host_switch[y]) r.cross_rack_mbps += v.mbps;
        if (!p.hosts[x].pod.empty() && !p.hosts[y].pod.empty() && p.hosts[x].pod != p.hosts[y].pod) r.cross_pod_mbps += v.mbps;
    }
    std::vector<int> order;
    for (int l = 0; l < routes.num_links(); ++l)
        if (loads[l] > 0) order.push_back(l);
    // Exact order by load / capacity (cross-multiplied in 128 bits), then link number.
    std::sort(order.begin(), order.end(), [&](int a, int b) {
        const Wide x = static_cast<Wide>(loads[a]) * routes.capacity(b), y = static_cast<Wide>(loads[b]) * routes.capacity(a);
        return x != y ? x > y : a < b;
    });
    for (int l : order) {
        const double scale = static_cast<double>(routes.scale(l));
        NetworkReport::Row row{l, routes.link_name(l), static_cast<double>(loads[l]) / scale,
                               static_cast<double>(routes.capacity(l)) / scale};
        if (loads[l] > routes.capacity(l)) r.over.push_back(row);
        r.by_utilisation.push_back(std::move(row));
    }
    const std::vector<int> level = switch_levels(p);
    const int H = static_cast<int>(p.hosts.size());
    std::map<std::pair<int, int>, std::vector<double>> util;  // (lo, hi) level, host uplinks (-1, -1)
    for (int l = 0; l < routes.num_links(); ++l) {
        std::pair<int, int> key{-1, -1};
        if (l / 2 >= H) {
            const NetLink& nl = p.network.links[l / 2 - H];
            key = {std::min(level[nl.a], level[nl.b]), std::max(level[nl.a], level[nl.b])};
        }
        const double pct = 100.0 * static_cast<double>(loads[l]) / static_cast<double>(routes.capacity(l));
        r.max_pct = std::max(r.max_pct, pct);
        util[key].push_back(pct);
    }
    for (auto& [key, u] : util) {
        NetworkReport::Layer layer;
        layer.name = key.first < 0 ? "host NIC uplinks" : layer_name(key.first, key.second);
        std::sort(u.begin(), u.end());
        layer.links = u.size() / 2;  // both directions of each link are in u
        layer.max_pct = u.back();
        layer.p99_pct = u[(u.size() * 99 + 99) / 100 - 1];
        layer.mean_pct = std::accumulate(u.begin(), u.end(), 0.0) / static_cast<double>(u.size());
        layer.over = static_cast<std::size_t>(u.end() - std::upper_bound(u.begin(), u.end(), 100.0));
        r.layers.push_back(std::move(layer));
    }
    return r;
}

}  // namespace vmcap
